//! Side-by-side comparison: scenario B against scenario A, as ratios of sectors and bytes
//! moved, and the course's pairs as presets.

use super::super::format::round_to;
use super::arch::Arch;
use super::builders::Layout;
use super::inputs::Inputs;
use super::sectors::Analysis;

/// One of the course's comparisons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Stable identifier.
    pub id: &'static str,
    /// The pair picker's title, naming the course example: "Ex8a: row against column traversal".
    pub name: &'static str,
    /// What each side is, in the sentence that compares them.
    pub a_name: &'static str,
    /// What side B is, in the comparing sentence, e.g. "column traversal".
    pub b_name: &'static str,
    /// Scenario A's inputs, the baseline.
    pub a: Inputs,
    /// Scenario B's inputs, compared against A; its fields travel as `b.…` parameters.
    pub b: Inputs,
}

/// The course's pairs: misalignment, row against column, AoS against SoA, Fermi against Volta.
pub fn pairs() -> Vec<Pair> {
    let ex1 = Inputs::default();
    let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
    let matrix = |down_column| Layout::Matrix {
        element: "float",
        rows: 1024,
        cols: 1024,
        pitch: 1024,
        down_column,
        row: 0,
        col: 0,
    };
    let float3 = |as_arrays| Layout::Structures {
        struct_bytes: 12,
        field_offset: 0,
        field_bytes: 4,
        as_arrays,
    };
    let build = |layout: Layout| layout.build(&Inputs::default()).unwrap_or_default();
    let fermi = Arch::by_id("fermi-l1").unwrap_or(Arch::default_arch());
    vec![
        Pair {
            id: "ex1-ex2",
            name: "Ex1 against Ex2: misalignment",
            a_name: "the aligned read",
            b_name: "the read misaligned by 8 B",
            a: ex1.clone(),
            b: ex2.clone(),
        },
        Pair {
            id: "row-column",
            name: "Ex8a: row against column traversal",
            a_name: "row traversal",
            b_name: "column traversal",
            a: build(matrix(false)),
            b: build(matrix(true)),
        },
        Pair {
            id: "aos-soa",
            name: "Ex9: array of structures against structure of arrays",
            a_name: "the structure of arrays",
            b_name: "the array of float3",
            a: build(float3(true)),
            b: build(float3(false)),
        },
        Pair {
            id: "volta-fermi",
            name: "Ex2 on Volta against Fermi L1",
            a_name: "Volta (32 B sectors)",
            b_name: "Fermi L1 (128 B lines)",
            a: ex2.clone(),
            b: ex2.with_arch(fermi),
        },
    ]
}

/// The course pair whose sides are exactly `a` and `b`, if any.
///
/// ```
/// use coalescing_lab::model::compare::{pair_for, pairs};
/// use coalescing_lab::model::inputs::Inputs;
/// let all = pairs();
/// let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
/// assert_eq!(pair_for(&all, &Inputs::default(), &ex2).map(|p| p.id), Some("ex1-ex2"));
/// assert_eq!(pair_for(&all, &ex2, &ex2), None);
/// ```
pub fn pair_for<'a>(pairs: &'a [Pair], a: &Inputs, b: &Inputs) -> Option<&'a Pair> {
    pairs.iter().find(|p| p.a == *a && p.b == *b)
}

/// How B compares with A, in one sentence naming both, e.g. "Column traversal moves 8×
/// more bytes than row traversal (1024 B against 128 B), in 8× more sectors (32 against 4)."
///
/// ```
/// use coalescing_lab::model::{compare::sentence, inputs::Inputs, sectors::analyze};
/// let a = analyze(&Inputs::default()).unwrap();
/// let b = analyze(&Inputs { idx: "8*t".into(), ..Inputs::default() }).unwrap();
/// assert_eq!(
///     sentence("A", &a, "B", &b),
///     "B moves 8× more bytes than A (1024 B against 128 B), in 8× more sectors (32 against 4)."
/// );
/// assert_eq!(sentence("A", &a, "B", &a), "B moves the same bytes as A (128 B), in the same sectors (4).");
/// ```
pub fn sentence(a_name: &str, a: &Analysis, b_name: &str, b: &Analysis) -> String {
    let text = match (&a.banks, &b.banks) {
        (None, None) => global_sentence(a_name, a, b_name, b),
        (Some(ba), Some(bb)) => shared_sentence(a_name, ba.totals, b_name, bb.totals),
        (Some(_), None) | (None, Some(_)) => {
            let (global, shared) = if a.banks.is_none() {
                (a_name, b_name)
            } else {
                (b_name, a_name)
            };
            format!(
                "{global} reads global memory and {shared} shared memory: one is counted in \
                 sectors, the other in wavefronts, so no ratio compares them."
            )
        }
    };
    crate::model::format::capitalize(&text)
}

/// Two shared-memory requests: wavefronts, then bank conflicts.
///
/// ```
/// use coalescing_lab::model::{compare::sentence, inputs::Inputs, sectors::analyze};
/// let shared = |idx: &str| analyze(&Inputs { space: "shared".into(), idx: idx.into(), ..Inputs::default() }).unwrap();
/// assert_eq!(
///     sentence("the padded tile", &shared("33*t"), "the 32-wide tile", &shared("32*t")),
///     "The 32-wide tile needs 32× more wavefronts than the padded tile (32 against 1), with 31 bank conflicts against 0."
/// );
/// ```
fn shared_sentence(
    a_name: &str,
    a: super::super::banks::Wavefronts,
    b_name: &str,
    b: super::super::banks::Wavefronts,
) -> String {
    let wavefronts = match compare(b.wavefronts, a.wavefronts) {
        None => format!(
            "{b_name} needs the same wavefronts as {a_name} ({})",
            a.wavefronts
        ),
        Some(ratio) => format!(
            "{b_name} needs {ratio} wavefronts than {a_name} ({} against {})",
            b.wavefronts, a.wavefronts
        ),
    };
    format!(
        "{wavefronts}, with {} bank conflict{} against {}.",
        b.conflicts(),
        super::super::format::plural(b.conflicts()),
        a.conflicts()
    )
}

fn global_sentence(a_name: &str, a: &Analysis, b_name: &str, b: &Analysis) -> String {
    let (ta, tb) = (&a.totals, &b.totals);
    let bytes = compare(tb.transferred_bytes, ta.transferred_bytes);
    let sectors = compare(tb.sectors, ta.sectors);
    let mut text = match bytes {
        None => format!(
            "{b_name} moves the same bytes as {a_name} ({} B)",
            ta.transferred_bytes
        ),
        Some(ratio) => format!(
            "{b_name} moves {ratio} bytes than {a_name} ({} B against {} B)",
            tb.transferred_bytes, ta.transferred_bytes
        ),
    };
    text.push_str(&match sectors {
        None => format!(", in the same sectors ({}).", ta.sectors),
        Some(ratio) => format!(
            ", in {ratio} sectors ({} against {}).",
            tb.sectors, ta.sectors
        ),
    });
    text
}

/// "8× more", "2.5× fewer", "2 % fewer" (fewer, under 1.5×), or `None` when equal; comparisons
/// with zero read plainly.
pub(crate) fn compare(b: u64, a: u64) -> Option<String> {
    if a == b {
        return None;
    }
    if a == 0 || b == 0 {
        return Some(if b > a { "more".into() } else { "fewer".into() });
    }
    let (big, small, word) = if b > a {
        (b, a, "more")
    } else {
        (a, b, "fewer")
    };
    let ratio = big as f64 / small as f64;
    // A little fewer reads as a percentage of A: "1.02× fewer" was ambiguous (hostile pass
    // L10). "1.25× more" is plain, and the course writes it so.
    if ratio < 1.5 && word == "fewer" {
        let percent = (b as f64 - a as f64).abs() / a as f64 * 100.0;
        let percent = if percent < 10.0 {
            round_to(percent, 1)
        } else {
            percent.round()
        };
        return Some(format!("{percent} % {word}"));
    }
    let ratio = round_to(ratio, 2);
    Some(format!("{ratio}× {word}"))
}
