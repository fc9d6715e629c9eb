//! The race and bounds reports (`model::cuda::run::check`), worded for the panel: one row per
//! race (same-value stores within one instruction apart, as notes) and one per access outside
//! its array, each with the model's sentence, and which lines to mark in the source view.

use super::super::cuda::files::{name_files, split};
use super::super::cuda::run::check::{OutOfBounds, Race, RaceScope, Uninit};
use super::super::cuda::run::{CudaAnalysis, SiteKind};
use super::super::format::html_escape_into;
use super::super::format::plural;

/// One race (or, for lanes of one store that store the same known value, a note), worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceRow {
    /// `block`, `warp` or `instruction`: `data-scope`.
    pub scope: &'static str,
    /// The earlier access's line (the write, when one is a read): `data-line-a`.
    pub line_a: u32,
    /// The later access's line: `data-line-b`.
    pub line_b: u32,
    /// `load`, `store` or `atomic`: `data-kind-a`.
    pub kind_a: &'static str,
    /// `data-kind-b`.
    pub kind_b: &'static str,
    /// The first occurrence's block: `data-block`, `x,y,z`.
    pub block: [u64; 3],
    /// `data-warp-a`.
    pub warp_a: u32,
    /// `data-warp-b`.
    pub warp_b: u32,
    /// The word, as its array and index (`tile[3][0]`): `data-word`.
    pub word: String,
    /// Times a pair of accesses met this way: `data-occurrences`.
    pub occurrences: u64,
    /// Lanes of one store stored the same known value: harmless, a note and no race.
    pub note: bool,
    /// What is wrong and the usual fix, as the model words it.
    pub sentence: String,
    /// What the row's heading says: "Race between warps", …
    pub what: &'static str,
}

/// One access outside its array or allocation, worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OobRow {
    /// The access's line: `data-line`.
    pub line: u32,
    /// The model's report: its block and thread (`data-block`, `data-thread`, `x,y,z`), the
    /// array (`data-array`, absent when the address is near none), the index reached
    /// (`data-index`), the elements in bounds (`data-count`, absent when not declared), the
    /// address (`data-address`, in hex) and the lane-accesses out of bounds
    /// (`data-occurrences`).
    pub report: OutOfBounds,
    /// `global` or `shared`: `data-space`.
    pub space: &'static str,
    /// What is wrong, as the model words it.
    pub sentence: String,
}

/// A site's line and kind, for the model's sentences.
fn line_kind(a: &CudaAnalysis, site: usize) -> (u32, SiteKind) {
    a.sites
        .get(site)
        .map_or((0, SiteKind::Load), |(s, _)| (s.pos.line, s.kind))
}

fn race_row(a: &CudaAnalysis, r: &Race) -> RaceRow {
    let (line_a, kind_a) = line_kind(a, r.site_a);
    let (line_b, kind_b) = line_kind(a, r.site_b);
    let note = r.scope == RaceScope::Instruction && r.same_value;
    RaceRow {
        scope: r.scope.name(),
        line_a: split(line_a).1,
        line_b: split(line_b).1,
        kind_a: kind_a.name(),
        kind_b: kind_b.name(),
        block: r.block,
        warp_a: r.warp_a,
        warp_b: r.warp_b,
        word: r.word.clone(),
        occurrences: r.occurrences,
        note,
        sentence: r.sentence(|k| line_kind(a, k)),
        what: match r.scope {
            _ if note => "Note",
            RaceScope::Block => "Race between warps",
            RaceScope::Warp => "Race within a warp",
            RaceScope::Instruction => "Race within one store",
        },
    }
}

/// Every race of the launch, and the notes on harmless same-value stores, in the model's
/// order (by scope, then by site).
///
/// ```
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::race_rows;
/// use coalescing_lab::model::Machine;
/// let p = cuda_preset("transpose-race").unwrap();
/// let a = analyse(p.source, p.launch, Machine::default(), 0, 700).unwrap();
/// let r = &race_rows(&a)[0];
/// assert_eq!((r.scope, r.line_a, r.line_b, r.kind_a, r.kind_b, r.note), ("block", 15, 23, "store", "load", false));
/// // Degenerate input: a kernel without shared memory has none.
/// let p = cuda_preset("copy").unwrap();
/// assert!(race_rows(&analyse(p.source, "copy<<<1, 64>>>(out, in)", Machine::default(), 0, 700).unwrap()).is_empty());
/// ```
pub fn race_rows(a: &CudaAnalysis) -> Vec<RaceRow> {
    name_files(a.files.clone());
    a.races.iter().map(|r| race_row(a, r)).collect()
}

fn oob_row(a: &CudaAnalysis, o: &OutOfBounds) -> OobRow {
    let line = line_kind(a, o.site).0;
    OobRow {
        line: split(line).1,
        report: o.clone(),
        space: o.space.name(),
        sentence: o.sentence(line),
    }
}

/// Every access site that reached outside its array or declared allocation, by site.
///
/// ```
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::oob_rows;
/// use coalescing_lab::model::Machine;
/// let p = cuda_preset("copy").unwrap();
/// let a = analyse(p.source, "copy<<<1, 64>>>(out[48], in)", Machine::default(), 0, 700).unwrap();
/// let o = &oob_rows(&a)[0];
/// let r = &o.report;
/// assert_eq!((o.line, r.array.as_deref(), r.index, r.count, r.occurrences), (5, Some("out"), 48, Some(48), 16));
/// ```
pub fn oob_rows(a: &CudaAnalysis) -> Vec<OobRow> {
    name_files(a.files.clone());
    a.out_of_bounds.iter().map(|o| oob_row(a, o)).collect()
}

/// The lines the source view marks: those of a race (either access; notes are not races),
/// and those of an access out of bounds; each ascending, without repeats.
pub fn problem_lines(a: &CudaAnalysis) -> (Vec<u32>, Vec<u32>) {
    let mut races: Vec<u32> = race_rows(a)
        .iter()
        .filter(|r| !r.note)
        .flat_map(|r| [r.line_a, r.line_b])
        .collect();
    races.sort_unstable();
    races.dedup();
    let mut oob: Vec<u32> = a
        .out_of_bounds
        .iter()
        .map(|o| line_kind(a, o.site).0)
        .collect();
    oob.sort_unstable();
    oob.dedup();
    (races, oob)
}

/// A program's loads of device memory that nothing wrote (initcheck), as the checks' list
/// items: `li.cuda-uninit` (`data-testid="cuda-uninit"`) with `data-line`, `data-block` and
/// `data-thread` (`x,y,z`), `data-array` (absent outside every allocation), `data-index`,
/// `data-address` (hex) and `data-occurrences`, and the model's sentence; written as markup,
/// escaped.
///
/// ```
/// use coalescing_lab::model::cuda_view::uninit_items_html;
/// use coalescing_lab::model::cuda::run::program::{run_program, ProgramOptions};
/// use coalescing_lab::model::cuda::Defines;
/// let src = "__global__ void k(float* o, const float* a) { o[threadIdx.x] = a[threadIdx.x]; }\n\
///   int main() { float *a, *o; cudaMalloc(&a, 128); cudaMalloc(&o, 128);\n\
///   k<<<1, 32>>>(o, a); cudaDeviceSynchronize(); return 0; }\n";
/// let run = run_program(src, &Defines::default(), &ProgramOptions::default()).unwrap();
/// let html = uninit_items_html(&run.launches[0].analysis);
/// assert!(html.starts_with(r#"<li class="cuda-uninit" data-testid="cuda-uninit" data-line="1" data-block="0,0,0" data-thread="0,0,0" data-array="a" data-index="0""#), "{html}");
/// assert!(html.contains("32 lane-accesses read unwritten bytes"), "{html}");
/// ```
pub fn uninit_items_html(a: &CudaAnalysis) -> String {
    name_files(a.files.clone());
    let mut html = String::new();
    for u in &a.uninitialized {
        html.push_str(&uninit_item(a, u));
    }
    html
}

fn uninit_item(a: &CudaAnalysis, u: &Uninit) -> String {
    let line = line_kind(a, u.site).0;
    let xyz = |v: [u64; 3]| format!("{},{},{}", v[0], v[1], v[2]);
    let mut html = format!(
        r#"<li class="cuda-uninit" data-testid="cuda-uninit" data-line="{}" data-block="{}" data-thread="{}""#,
        split(line).1,
        xyz(u.block),
        xyz(u.thread)
    );
    if let Some(array) = &u.array {
        html.push_str(" data-array=\"");
        html_escape_into(&mut html, array);
        html.push('"');
    }
    html.push_str(&format!(
        r#" data-index="{}" data-address="{:#x}" data-occurrences="{}"><strong>Uninitialised</strong>: <span class="sentence">"#,
        u.index, u.address, u.occurrences
    ));
    html_escape_into(&mut html, &u.sentence(line));
    html.push_str("</span></li>");
    html
}

/// The checks' second sentence when a program's launch read device memory nothing wrote.
///
/// ```
/// use coalescing_lab::model::cuda_view::uninit_summary;
/// assert_eq!(uninit_summary(0), None);
/// assert_eq!(uninit_summary(2).as_deref(), Some("2 loads read device memory that no copy, memset or store has written (initcheck)."));
/// ```
pub fn uninit_summary(sites: usize) -> Option<String> {
    match sites {
        0 => None,
        1 => Some(
            "1 load reads device memory that no copy, memset or store has written (initcheck)."
                .into(),
        ),
        n => Some(format!(
            "{n} loads read device memory that no copy, memset or store has written (initcheck)."
        )),
    }
}

/// How many times a report's pair or access met, for its row: "" once, else " (N times)".
pub fn times(occurrences: u64) -> String {
    if occurrences > 1 {
        format!(" ({occurrences} times)")
    } else {
        String::new()
    }
}

/// Under the reports: what the figures make of these accesses.
pub const COUNTED_ANYWAY: &str = "The figures above still count these accesses as the \
    source makes them; on a GPU they would fault or corrupt other data, or return values that \
    depend on timing.";

/// The summary line of the reports: how many races and accesses out of bounds, or that the
/// checks found none, which is no proof.
///
/// ```
/// use coalescing_lab::model::cuda_view::checks_summary;
/// assert_eq!(checks_summary(1, 0, 2), "1 race and no access out of bounds (and 2 notes).");
/// assert_eq!(checks_summary(0, 0, 0), "No race and no access out of bounds in this launch. The checks see only this launch, run this way: a clean report is no proof that the kernel is correct.");
/// ```
pub fn checks_summary(races: usize, oob: usize, notes: usize) -> String {
    if races == 0 && oob == 0 && notes == 0 {
        return "No race and no access out of bounds in this launch. The checks see only this \
                launch, run this way: a clean report is no proof that the kernel is correct."
            .into();
    }
    let count = |n: usize, one: &str, many: &str| match n {
        0 => format!("no {one}"),
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let head = format!(
        "{} and {}",
        count(races, "race", "races"),
        count(oob, "access out of bounds", "accesses out of bounds")
    );
    let mut head = head[..1].to_uppercase() + &head[1..];
    if notes > 0 {
        head.push_str(&format!(" (and {notes} note{})", plural(notes as u64)));
    }
    head.push('.');
    head
}
