//! The course's worked examples as presets: picking one fills the calculator's inputs.
//!
//! Every preset is a warp of 32 lanes reading 4-byte floats with 128-byte lines; they differ
//! in the index expression, the base address and the sector size. The expected numbers live
//! in tests/course_examples.rs, row by row as the course prints them.

use super::inputs::Inputs;

/// One worked example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Stable identifier, also used in file names.
    pub id: &'static str,
    /// The name the course gives it.
    pub name: &'static str,
    /// Element index of lane `t`.
    pub idx: &'static str,
    /// Byte address of element 0.
    pub base: &'static str,
    /// Sector (serviced unit) size in bytes.
    pub sector: &'static str,
    /// Bytes per lane.
    pub elem: &'static str,
    /// `global` or `shared`.
    pub space: &'static str,
}

/// The course's worked examples, in the course's order, then the shared-memory tile and its
/// padding (the remedy the course names for a strided column, and its next trap).
pub const PRESETS: [Preset; 18] = [
    preset("ex1-sequential", "Ex1 sequential", "t", "0", "32"),
    preset("ex2-misaligned", "Ex2 misaligned start", "t", "8", "32"),
    preset("ex3-stride-2", "Ex3 stride 2", "2*t", "0", "32"),
    preset(
        "ex4-stride-sector",
        "Ex4 stride = one sector",
        "8*t",
        "0",
        "32",
    ),
    preset("ex5-huge-stride", "Ex5 huge stride", "1024*t", "0", "32"),
    preset("ex6-reversed", "Ex6 reversed", "31-t", "0", "32"),
    preset("ex7-broadcast", "Ex7 broadcast", "0", "0", "32"),
    preset(
        "ex8a-column",
        "Ex8a column of 1024-float rows",
        "t*1024",
        "0",
        "32",
    ),
    preset(
        "ex8b-mixed",
        "Ex8b mixed",
        "t<16 ? t : 1000+64*(t-16)",
        "0",
        "32",
    ),
    preset("ex9-aos-float3-x", "Ex9 AoS float3 .x", "3*t", "0", "32"),
    preset("column-128b-rows", "column, 128 B rows", "32*t", "0", "32"),
    preset(
        "ex2-128b-transactions",
        "Ex2 on a 128 B-transaction GPU",
        "t",
        "8",
        "128",
    ),
    shared(
        "shared-tile-column",
        "Shared: column of a 32×32 float tile",
        "32*t",
        "4",
    ),
    shared(
        "shared-tile-column-padded",
        "Shared: the same column, tile padded to 33",
        "33*t",
        "4",
    ),
    shared(
        "shared-broadcast",
        "Shared: broadcast of one word",
        "0",
        "4",
    ),
    shared("shared-stride-2", "Shared: stride of 2 floats", "2*t", "4"),
    shared("shared-float2-row", "Shared: float2 along a row", "t", "8"),
    shared(
        "shared-double-column-padded",
        "Shared: double down a padded column",
        "33*t",
        "8",
    ),
];

const fn preset(
    id: &'static str,
    name: &'static str,
    idx: &'static str,
    base: &'static str,
    sector: &'static str,
) -> Preset {
    Preset {
        id,
        name,
        idx,
        base,
        sector,
        elem: "4",
        space: "global",
    }
}

const fn shared(
    id: &'static str,
    name: &'static str,
    idx: &'static str,
    elem: &'static str,
) -> Preset {
    Preset {
        id,
        name,
        idx,
        base: "0",
        sector: "32",
        elem,
        space: "shared",
    }
}

impl Preset {
    /// The calculator inputs this preset stands for.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            idx: self.idx.to_string(),
            base: self.base.to_string(),
            sector: self.sector.to_string(),
            elem: self.elem.to_string(),
            space: self.space.to_string(),
            ..Inputs::default()
        }
    }

    /// The preset called `id`, if any.
    pub fn by_id(id: &str) -> Option<&'static Preset> {
        PRESETS.iter().find(|p| p.id == id)
    }

    /// A file name saying what an export of `inputs` holds, e.g. `coalescing-ex2-misaligned.csv`.
    ///
    /// ```
    /// use coalescing_lab::model::{inputs::Inputs, presets::Preset};
    /// let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
    /// assert_eq!(Preset::file_name(&ex2, "csv"), "coalescing-ex2-misaligned.csv");
    /// let custom = Inputs { idx: "5*t".into(), ..Inputs::default() };
    /// assert_eq!(Preset::file_name(&custom, "csv"), "coalescing-custom.csv");
    /// ```
    pub fn file_name(inputs: &Inputs, extension: &str) -> String {
        format!("{}.{extension}", Preset::file_stem(inputs))
    }

    /// The file name without extension, e.g. `coalescing-ex2-misaligned`.
    pub fn file_stem(inputs: &Inputs) -> String {
        let what = Preset::matching(inputs).map_or("custom", |p| p.id);
        format!("coalescing-{what}")
    }

    /// The first preset whose inputs are exactly `inputs` (spaces in expressions ignored).
    ///
    /// ```
    /// use coalescing_lab::model::{inputs::Inputs, presets::Preset};
    /// let typed = Inputs { idx: "2 * t".into(), ..Inputs::default() };
    /// assert_eq!(Preset::matching(&typed).map(|p| p.id), Some("ex3-stride-2"));
    /// let custom = Inputs { idx: "5*t".into(), ..Inputs::default() };
    /// assert_eq!(Preset::matching(&custom), None);
    /// ```
    pub fn matching(inputs: &Inputs) -> Option<&'static Preset> {
        let squeeze = |s: &str| s.split_whitespace().collect::<String>();
        let key = |i: &Inputs| {
            let mut i = i.clone();
            i.idx = squeeze(&i.idx);
            i.active = squeeze(&i.active);
            i.addrs = squeeze(&i.addrs);
            i
        };
        let wanted = key(inputs);
        PRESETS.iter().find(|p| key(&p.inputs()) == wanted)
    }
}
