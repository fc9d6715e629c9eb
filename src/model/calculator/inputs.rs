//! The calculator's inputs as the user typed them, and their validation.
//!
//! [`Inputs`] holds raw text, one string per URL parameter, so that a half-typed or bad value
//! survives in its field and in the permalink. [`Inputs::scenario`] turns the text into a
//! checked [`Scenario`] or a list of [`FieldError`]s that name the field and what is accepted.
//! Lane-by-lane evaluation lives in `sectors`.
//!
//! The fields, their limits and the hints worded from those limits stay here, side by side;
//! the parsers that enforce the limits are `parse`'s, which read the limits from here.

use super::super::error::FieldName;
use super::super::expr::Expr;
use super::arch::Arch;
pub use super::parse::parse_address;
use super::parse::{keep, parse_addrs, parse_elem, parse_line, parse_sector, parse_warp};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One input of the calculator, named by its URL parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Field {
    /// Architecture preset id (`volta`, `cdna3`, …) that supplies the machine defaults: `arch`.
    Arch,
    /// `global` or `shared`: `space`.
    Space,
    /// Lanes in the warp, 1 to 64: `warp`.
    Warp,
    /// Bytes each lane accesses, 1, 2, 4, 8 or 16: `elem`.
    Elem,
    /// Byte address of element 0: `base`.
    Base,
    /// Element index of lane `t`, a C expression: `idx`.
    Idx,
    /// Which lanes take part; empty means every lane: `active`.
    Active,
    /// Explicit per-lane byte addresses that replace base and idx: `addrs`.
    Addrs,
    /// Sector size in bytes, a power of two from 8 to 1024: `sector`.
    Sector,
    /// Cache-line size in bytes, a power-of-two multiple of the sector: `line`.
    Line,
}

impl FieldName for Field {
    fn param(self) -> impl fmt::Display {
        Field::param(self)
    }
}

impl Field {
    /// Every field, in the order of the form and of the permalink. `arch` comes first: it
    /// supplies the defaults of `warp`, `sector` and `line`.
    pub const ALL: [Field; 10] = [
        Field::Arch,
        Field::Space,
        Field::Warp,
        Field::Elem,
        Field::Base,
        Field::Idx,
        Field::Active,
        Field::Addrs,
        Field::Sector,
        Field::Line,
    ];

    /// The URL parameter name: a public contract, never renamed.
    pub fn param(self) -> &'static str {
        match self {
            Field::Arch => "arch",
            Field::Space => "space",
            Field::Warp => "warp",
            Field::Elem => "elem",
            Field::Base => "base",
            Field::Idx => "idx",
            Field::Active => "active",
            Field::Addrs => "addrs",
            Field::Sector => "sector",
            Field::Line => "line",
        }
    }

    /// Scenario B's URL parameter for this field: the same name prefixed `b.`.
    pub fn b_param(self) -> &'static str {
        match self {
            Field::Arch => "b.arch",
            Field::Space => "b.space",
            Field::Warp => "b.warp",
            Field::Elem => "b.elem",
            Field::Base => "b.base",
            Field::Idx => "b.idx",
            Field::Active => "b.active",
            Field::Addrs => "b.addrs",
            Field::Sector => "b.sector",
            Field::Line => "b.line",
        }
    }

    /// The field's global default as text: Example 1 of the course (see `Inputs::default`).
    /// A constant, so reading one default never builds a whole `Inputs`.
    ///
    /// ```
    /// use coalescing_lab::model::inputs::{Field, Inputs};
    /// assert!(Field::ALL.iter().all(|&f| Inputs::default().get(f) == f.default_text()));
    /// assert_eq!(Field::Active.default_text(), "");
    /// ```
    pub const fn default_text(self) -> &'static str {
        match self {
            Field::Arch => "volta",
            Field::Space => "global",
            Field::Warp => "32",
            Field::Elem => "4",
            Field::Base => "0",
            Field::Idx => "t",
            Field::Active | Field::Addrs => "",
            Field::Sector => "32",
            Field::Line => "128",
        }
    }

    /// The hint under the field in the form, from the same limits the checks use.
    ///
    /// ```
    /// use coalescing_lab::model::inputs::Field;
    /// assert_eq!(Field::Warp.hint(), "1 to 64 (NVIDIA: 32, AMD wave64: 64)");
    /// assert_eq!(Field::Sector.hint(), "the serviced unit: a power of two from 8 to 1024");
    /// assert_eq!(Field::Arch.hint(), "");
    /// ```
    pub fn hint(self) -> String {
        match self {
            Field::Arch => String::new(),
            Field::Space => {
                "global: sectors and lines; shared: banks and wavefronts".into()
            }
            Field::Warp => format!("1 to {MAX_WARP} (NVIDIA: 32, AMD wave64: 64)"),
            Field::Elem => format!(
                "{} (float: 4, double: 8, float4: 16)",
                elem_sizes_text()
            ),
            Field::Base => "byte address of element 0, decimal or 0x hex".into(),
            Field::Idx => "C expression in lane id t, e.g. 2*t, 31-t, t<16 ? t : 64*t".into(),
            Field::Active => "C expression, non-zero = active; empty = every lane".into(),
            Field::Addrs => "optional: one byte address per lane, comma separated, - for inactive; replaces base and idx".into(),
            Field::Sector => format!(
                "the serviced unit: a power of two from {MIN_SECTOR_BYTES} to {MAX_SECTOR_BYTES}"
            ),
            Field::Line => {
                format!("a power-of-two multiple of the sector, up to {MAX_LINE_BYTES}")
            }
        }
    }

    /// The field whose URL parameter is `param`, if any.
    pub fn from_param(param: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.param() == param)
    }
}

/// A problem with one calculator field.
pub type FieldError = super::super::error::FieldError<Field>;

/// The calculator's inputs as text, exactly as typed or as found in the URL.
///
/// ```
/// use coalescing_lab::model::inputs::{Field, Inputs};
/// let mut inputs = Inputs::default();
/// assert_eq!(inputs.get(Field::Idx), "t");
/// inputs.set(Field::Elem, "3".into());
/// let errors = inputs.scenario().unwrap_err();
/// assert_eq!(errors[0].to_string(), "elem: must be 1, 2, 4, 8 or 16 bytes, found '3'");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Inputs {
    /// Architecture preset id: the defaults of `warp`, `sector` and `line`.
    pub arch: String,
    /// The memory the instruction reads: `global` or `shared`.
    #[serde(default = "global")]
    pub space: String,
    /// Lanes in the warp, 1 to 64.
    pub warp: String,
    /// Bytes each lane accesses: 1, 2, 4, 8 or 16.
    pub elem: String,
    /// Byte address of element 0, decimal or `0x` hex.
    pub base: String,
    /// Element index of lane `t`, an expression.
    pub idx: String,
    /// Which lanes take part, an expression; empty means every lane.
    pub active: String,
    /// Explicit byte addresses, one per lane, `-` for inactive; empty means use base and idx.
    pub addrs: String,
    /// Bytes in a sector: a power of two from 8 to 1024.
    pub sector: String,
    /// Bytes in a cache line: a power-of-two multiple of the sector, at most 4096.
    pub line: String,
}

impl Default for Inputs {
    /// Example 1 of the course: 32 lanes reading consecutive 4-byte floats from address 0,
    /// 32-byte sectors and 128-byte lines (CUDA C++ Best Practices Guide, coalesced access).
    fn default() -> Inputs {
        Inputs {
            arch: Field::Arch.default_text().into(),
            space: Field::Space.default_text().into(),
            warp: Field::Warp.default_text().into(),
            elem: Field::Elem.default_text().into(),
            base: Field::Base.default_text().into(),
            idx: Field::Idx.default_text().into(),
            active: Field::Active.default_text().into(),
            addrs: Field::Addrs.default_text().into(),
            sector: Field::Sector.default_text().into(),
            line: Field::Line.default_text().into(),
        }
    }
}

/// Where each lane's address comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addressing {
    /// `A(t) = base + elem × idx(t)`.
    Indexed {
        /// Byte address of element 0.
        base: u64,
        /// Element index of lane `t`; lane t reads from `base + elem × idx(t)`.
        idx: Expr,
    },
    /// One entry per lane; `None` is a lane the list marks inactive.
    Explicit(Vec<Option<u64>>),
}

fn global() -> String {
    Field::Space.default_text().into()
}

pub use super::super::machine::Space;

/// Checked inputs: every value is in range and every expression parses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Global (sectors and lines) or shared (banks and wavefronts).
    pub space: Space,
    /// Lanes in the warp, 1 to 64; lane ids run 0 to warp − 1.
    pub warp: u32,
    /// Bytes each lane accesses: 1, 2, 4, 8 or 16.
    pub elem: u64,
    /// Where each lane's address comes from: base and idx, or the explicit list.
    pub addressing: Addressing,
    /// `None` when every lane is active.
    pub active: Option<Expr>,
    /// Bytes in a sector, a power of two from 8 to 1024.
    pub sector_bytes: u64,
    /// Bytes in a cache line, a power-of-two multiple of `sector_bytes`, at most 4096.
    pub line_bytes: u64,
}

/// Access sizes a lane may request, as CUDA's built-in types allow.
pub const ELEM_SIZES: [u64; 5] = [1, 2, 4, 8, 16];
/// Largest warp: AMD's wave64, [`super::super::machine::LANES`] lanes.
pub const MAX_WARP: u32 = super::super::machine::LANES as u32;
/// Smallest sector in bytes.
pub const MIN_SECTOR_BYTES: u64 = 8;
/// Largest sector in bytes.
pub const MAX_SECTOR_BYTES: u64 = 1024;
/// Largest cache line in bytes.
pub const MAX_LINE_BYTES: u64 = 4096;

/// The element sizes as a sentence says them: "1, 2, 4, 8 or 16".
pub(super) fn elem_sizes_text() -> String {
    let sizes: Vec<String> = ELEM_SIZES.iter().map(u64::to_string).collect();
    match sizes.split_last() {
        Some((last, init)) if !init.is_empty() => format!("{} or {last}", init.join(", ")),
        _ => sizes.join(""),
    }
}

impl Inputs {
    /// The raw text of `field`.
    pub fn get(&self, field: Field) -> &str {
        match field {
            Field::Arch => &self.arch,
            Field::Space => &self.space,
            Field::Warp => &self.warp,
            Field::Elem => &self.elem,
            Field::Base => &self.base,
            Field::Idx => &self.idx,
            Field::Active => &self.active,
            Field::Addrs => &self.addrs,
            Field::Sector => &self.sector,
            Field::Line => &self.line,
        }
    }

    /// Replaces the raw text of `field`.
    pub fn set(&mut self, field: Field, value: String) {
        let slot = match field {
            Field::Arch => &mut self.arch,
            Field::Space => &mut self.space,
            Field::Warp => &mut self.warp,
            Field::Elem => &mut self.elem,
            Field::Base => &mut self.base,
            Field::Idx => &mut self.idx,
            Field::Active => &mut self.active,
            Field::Addrs => &mut self.addrs,
            Field::Sector => &mut self.sector,
            Field::Line => &mut self.line,
        };
        *slot = value;
    }

    /// True when explicit addresses replace `base` and `idx`.
    pub fn uses_address_list(&self) -> bool {
        !self.addrs.trim().is_empty()
    }

    /// Checks every field, reporting all problems at once in form order.
    pub fn scenario(&self) -> Result<Scenario, Vec<FieldError>> {
        let mut errors = Vec::new();
        if Arch::by_id(self.arch.trim()).is_none() {
            errors.push(FieldError::new(
                Field::Arch,
                format!(
                    "must be one of {}, found '{}'",
                    Arch::ids(),
                    self.arch.trim()
                ),
            ));
        }
        let space = keep(
            &mut errors,
            Space::parse(&self.space).ok_or_else(|| {
                FieldError::new(
                    Field::Space,
                    format!("must be global or shared, found '{}'", self.space.trim()),
                )
            }),
        );
        let warp = keep(&mut errors, parse_warp(&self.warp));
        let elem = keep(&mut errors, parse_elem(&self.elem));
        let addressing = if self.uses_address_list() {
            keep(&mut errors, parse_addrs(&self.addrs, warp)).map(Addressing::Explicit)
        } else {
            let base = keep(
                &mut errors,
                parse_address(&self.base).ok_or_else(|| {
                    FieldError::new(
                        Field::Base,
                        format!(
                        "must be a byte address from 0 to 2^64−1, decimal or 0x hex, found '{}'",
                        self.base.trim()
                    ),
                    )
                }),
            );
            let idx = keep(
                &mut errors,
                Expr::parse(&self.idx).map_err(|e| FieldError::new(Field::Idx, e.to_string())),
            );
            base.zip(idx)
                .map(|(base, idx)| Addressing::Indexed { base, idx })
        };
        let active = if self.active.trim().is_empty() {
            Some(None)
        } else {
            keep(
                &mut errors,
                Expr::parse(&self.active)
                    .map(Some)
                    .map_err(|e| FieldError::new(Field::Active, e.to_string())),
            )
        };
        let sector_bytes = keep(&mut errors, parse_sector(&self.sector));
        let line_bytes = keep(&mut errors, parse_line(&self.line, sector_bytes));
        if !errors.is_empty() {
            return Err(errors);
        }
        // With no error every field was read: `keep` gives `None` only after recording one.
        let scenario = || {
            Some(Scenario {
                space: space?,
                warp: warp?,
                elem: elem?,
                addressing: addressing?,
                active: active?,
                sector_bytes: sector_bytes?,
                line_bytes: line_bytes?,
            })
        };
        scenario().ok_or(errors)
    }

    /// A copy with `fields` put back to their defaults, so a bad link still shows something.
    /// A line that is already the default but smaller than a valid sector becomes the sector.
    pub fn with_defaults_for(&self, fields: impl IntoIterator<Item = Field>) -> Inputs {
        let mut repaired = self.clone();
        for field in fields {
            repaired.set(field, self.default_for(field));
        }
        repaired
    }

    /// The architecture preset in force: the named one, or the default when it is unknown.
    pub fn arch_preset(&self) -> &'static Arch {
        Arch::by_id(self.arch.trim()).unwrap_or(Arch::default_arch())
    }

    /// The value the architecture preset gives `warp`, `sector` or `line`, and the global
    /// default for any other field. Permalinks omit fields equal to it.
    ///
    /// ```
    /// use coalescing_lab::model::inputs::{Field, Inputs};
    /// let gcn = Inputs { arch: "gcn".into(), ..Inputs::default() };
    /// assert_eq!((gcn.preset_value(Field::Sector), gcn.preset_value(Field::Base)), ("64".into(), "0".into()));
    /// ```
    pub fn preset_value(&self, field: Field) -> String {
        let arch = self.arch_preset();
        match field {
            Field::Warp => arch.warp.to_string(),
            Field::Sector => arch.sector_bytes.to_string(),
            Field::Line => arch.line_bytes.to_string(),
            _ => field.default_text().to_string(),
        }
    }

    /// The value a field in error falls back to: its preset value, except that a line too
    /// small for a valid sector becomes the sector.
    ///
    /// ```
    /// use coalescing_lab::model::inputs::{Field, Inputs};
    /// let cdna3 = Inputs { arch: "cdna3".into(), ..Inputs::default() };
    /// assert_eq!(cdna3.default_for(Field::Warp), "64");
    /// assert_eq!(cdna3.default_for(Field::Idx), "t");
    /// ```
    pub fn default_for(&self, field: Field) -> String {
        let preset = self.preset_value(field);
        match (field, parse_sector(&self.sector)) {
            (Field::Line, Ok(sector)) if sector > self.arch_preset().line_bytes => {
                sector.to_string()
            }
            _ => preset,
        }
    }

    /// The inputs with the architecture `arch` applied: its warp, sector and line replace the
    /// current ones, as picking it in the form does.
    pub fn with_arch(&self, arch: &Arch) -> Inputs {
        Inputs {
            arch: arch.id.to_string(),
            warp: arch.warp.to_string(),
            sector: arch.sector_bytes.to_string(),
            line: arch.line_bytes.to_string(),
            ..self.clone()
        }
    }

    /// Fields whose value differs from the architecture preset's: explicit overrides.
    ///
    /// ```
    /// use coalescing_lab::model::inputs::{Field, Inputs};
    /// let ex2_128 = Inputs { base: "8".into(), sector: "128".into(), ..Inputs::default() };
    /// assert_eq!(ex2_128.overrides(), [Field::Sector]);
    /// ```
    pub fn overrides(&self) -> Vec<Field> {
        [Field::Warp, Field::Sector, Field::Line]
            .into_iter()
            .filter(|f| self.get(*f).trim() != self.preset_value(*f))
            .collect()
    }
}
