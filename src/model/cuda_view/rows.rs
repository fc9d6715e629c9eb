//! The CUDA panel's tables and source view, worded: one row per access site, one per line,
//! the source's lines with their gutter and colour band, the whole-kernel readouts, the notes,
//! and where a failure points.
//!
//! One idea, the panel's figures worded for people, kept together so that a word used in the
//! tables, the gutter and the readouts is written once.

use super::super::cuda::error::Pos;
use super::super::cuda::run::{CudaAnalysis, CudaFailure, Proposal, RunErrorKind, SiteKind};
use super::super::format::{list_and, number, plural};
use super::super::kernel::view::figure_readouts;
use super::super::machine::{Machine, Space};
use super::super::readouts::Readout;
use super::super::warp::Figures;
use super::checks::problem_lines;
use super::CudaField;
use crate::model::cuda::files::Headers;
use crate::model::cuda::files::Line;

/// The field a failure is in: the source, or the launch (its text, or a launch that does not
/// fit the kernel or the model's limits).
///
/// ```
/// use coalescing_lab::model::cuda::run::CudaJob;
/// use coalescing_lab::model::cuda_view::{failure_field, CudaField};
/// use coalescing_lab::model::Machine;
/// let src = "__global__ void k(float* a) { a[threadIdx.x] = 1; }";
/// let field = |launch: &str| failure_field(&CudaJob::new(src, launch, Machine::default(), 0, 700).unwrap_err());
/// assert_eq!(field("k<<<1, 32>>(a)"), CudaField::Launch);
/// assert_eq!(field("other<<<1, 32>>>(a)"), CudaField::Launch);
/// assert_eq!(field("k<<<1, 2048>>>(a)"), CudaField::Launch);
/// let bad = CudaJob::new("__global__ void k( {", "k<<<1, 32>>>()", Machine::default(), 0, 700).unwrap_err();
/// assert_eq!(failure_field(&bad), CudaField::Source);
/// ```
pub fn failure_field(failure: &CudaFailure) -> CudaField {
    match failure {
        CudaFailure::Source(_) => CudaField::Source,
        CudaFailure::Launch(_) => CudaField::Launch,
        CudaFailure::Defines(_) => CudaField::Defines,
        CudaFailure::Run(e) => match *e.kind {
            RunErrorKind::NoKernel { .. }
            | RunErrorKind::Launch(_)
            | RunErrorKind::TooLarge { .. }
            | RunErrorKind::BlockTooLarge { .. }
            | RunErrorKind::Reported { launch: true, .. } => CudaField::Launch,
            RunErrorKind::Reported { defines: true, .. } => CudaField::Defines,
            _ => CudaField::Source,
        },
    }
}

/// Where in the source a failure points, to mark that line; `None` for a failure of the
/// launch.
pub fn failure_pos(failure: &CudaFailure) -> Option<Pos> {
    if failure_field(failure) != CudaField::Source {
        return None;
    }
    let pos = match failure {
        CudaFailure::Source(e) => e.pos,
        CudaFailure::Run(e) => e.pos,
        CudaFailure::Launch(_) | CudaFailure::Defines(_) => return None,
    };
    (pos.line > 0).then_some(pos)
}

/// Line `pos.line` of `source` with a caret under `pos.column`, as rustc and gcc show an
/// error; empty when the source has no such line.
///
/// ```
/// use coalescing_lab::model::cuda::error::Pos;
/// use coalescing_lab::model::cuda_view::caret;
/// let src = "int a;\n\tint b = c;\n";
/// assert_eq!(caret(src, Pos { line: 2, column: 10 }), "2 | \tint b = c;\n  | \t        ^");
/// assert_eq!(caret(src, Pos { line: 9, column: 1 }), "");
/// ```
pub fn caret(source: &str, pos: Pos) -> String {
    let Some(text) = source_text_lines(source).nth(pos.line.saturating_sub(1) as usize) else {
        return String::new();
    };
    if pos.line == 0 {
        return String::new();
    }
    let number = pos.line.to_string();
    // Tabs stay tabs under the line, so the caret stands under its column in any tab width.
    let pad: String = text
        .chars()
        .take(pos.column.saturating_sub(1) as usize)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!("{number} | {text}\n{} | {pad}^", " ".repeat(number.len()))
}

/// [`caret`] for a position in `source` or in one of `headers`, the header's path on a line
/// of its own above (`model::cuda::files` names the file a line is in).
///
/// ```
/// use coalescing_lab::model::cuda::error::Pos;
/// use coalescing_lab::model::cuda::files::{name_files, Headers, FILE_SHIFT};
/// use coalescing_lab::model::cuda_view::caret_in;
/// let headers = Headers::of(&[("u.cuh", "int a;\nint b = `;\n")]);
/// name_files(vec!["u.cuh".into()]);
/// assert_eq!(caret_in("int x;\n", &headers, Pos { line: 1 << FILE_SHIFT | 2, column: 9 }), "u.cuh\n2 | int b = `;\n  |         ^");
/// assert_eq!(caret_in("int x;\n", &headers, Pos { line: 1, column: 5 }), "1 | int x;\n  |     ^");
/// ```
pub fn caret_in(source: &str, headers: &Headers, pos: Pos) -> String {
    use crate::model::cuda::files::{file_name, header_at, split};
    let (k, line) = split(pos.line);
    if k == 0 {
        return caret(source, pos);
    }
    let Some(path) = file_name(k) else {
        return String::new();
    };
    match header_at(&headers.0, &path).map(|h| caret(&h.text, Pos { line, column: pos.column })) {
        Some(text) if !text.is_empty() => format!("{path}\n{text}"),
        _ => String::new(),
    }
}

/// `__CUDA_ARCH__` for the calculator's architecture preset: the preprocessor's `#if
/// __CUDA_ARCH__ >= …` then reads the code path that machine compiles. Fermi is 200 and
/// Kepler 350 (CUDA C Programming Guide, compute capabilities); Volta and newer, and the AMD
/// presets (whose source is read as CUDA for an NVIDIA GPU of today), 700.
///
/// ```
/// use coalescing_lab::model::cuda_view::cuda_arch;
/// assert_eq!(cuda_arch("volta"), 700);
/// assert_eq!(cuda_arch("fermi-l1"), 200);
/// // Degenerate input: an unknown or empty preset is the default's.
/// assert_eq!(cuda_arch(""), 700);
/// ```
pub fn cuda_arch(arch: &str) -> u32 {
    match arch.trim() {
        "fermi-l1" => 200,
        "nvidia-l1-bypass" => 350,
        _ => 700,
    }
}

/// The figures a row shows, for a site or summed over a line's sites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sums {
    /// Warp instructions with an active lane: `data-requests`.
    pub requests: u64,
    /// elem × active lanes, summed: `data-requested-bytes`.
    pub requested_bytes: u64,
    /// Request-level sectors, each counted cold: `data-sectors`.
    pub sectors: u64,
    /// ⌈distinct requested bytes ÷ sector⌉ summed: `data-ideal-sectors`.
    pub ideal_sectors: u64,
    /// `sectors − ideal_sectors`: `data-excess-sectors`.
    pub excess_sectors: u64,
    /// Distinct sectors: `data-unique-sectors`.
    pub unique_sectors: u64,
    /// Whether `unique_sectors` is a lower bound (the count reached its budget):
    /// `data-unique-lower-bound`, and the cell reads `≥ N`.
    pub unique_lower_bound: bool,
    /// DRAM bytes read and written back on its behalf: `data-dram-bytes`.
    pub dram_bytes: u64,
    /// With a shared access: wavefronts, their ideal and the conflicts (`data-wavefronts`,
    /// `data-ideal-wavefronts`, `data-bank-conflicts`); `None` otherwise.
    pub shared: Option<(u64, u64, u64)>,
}

impl Sums {
    /// The distinct sectors as a cell shows them: `≥ N` for a lower bound.
    pub fn unique_text(&self) -> String {
        if self.unique_lower_bound {
            format!("≥ {}", self.unique_sectors)
        } else {
            self.unique_sectors.to_string()
        }
    }

    /// The figures of `f`, with the shared triple when `shared`.
    fn of(f: &Figures, shared: bool) -> Sums {
        Sums {
            requests: f.requests,
            requested_bytes: f.requested_bytes,
            sectors: f.sectors,
            ideal_sectors: f.ideal_sectors,
            excess_sectors: f.excess_sectors(),
            unique_sectors: f.unique_sectors,
            unique_lower_bound: f.unique_lower_bound,
            dram_bytes: f.dram_bytes(),
            shared: shared.then(|| (f.wavefronts, f.ideal_wavefronts, f.bank_conflicts())),
        }
    }
}

/// One access site's row (barriers have none), with every cell worded once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteRow {
    /// Where its expression begins, as the analysis keys lines (`model::cuda::files`).
    pub line: u32,
    /// That line's number in its file: `data-line`.
    pub number: u32,
    /// The path of its file when it is a header the source includes: `data-file`.
    pub file: Option<String>,
    /// `data-column`.
    pub column: u32,
    /// `load`, `store` or `atomic`: `data-kind`.
    pub kind: &'static str,
    /// `global` or `shared`: `data-space`.
    pub space: &'static str,
    /// Bytes per lane: `data-elem`.
    pub elem: u64,
    /// For a struct copied field by field, which field (0 otherwise).
    pub part: u32,
    /// The row's header: "8:30 load".
    pub name: String,
    /// Its figures.
    pub sums: Sums,
    /// Sectors per request for people: "—" in shared memory, "n/a" with no request.
    pub sectors_per_request: String,
}

/// Sectors per global request for people.
fn per_request(f: &Figures) -> String {
    if f.global_requests() == 0 {
        return "—".into();
    }
    f.sectors_per_request()
        .map_or("n/a".into(), |r| number(r.value()))
}

/// Sectors per request of each global access site on `line`, joined by " · ", when they
/// differ; `None` when they do not (or the line has none).
fn each_per_request(a: &CudaAnalysis, line: u32) -> Option<String> {
    let each: Vec<String> = a
        .sites
        .iter()
        .filter(|(s, f)| {
            s.pos.line == line && s.kind != SiteKind::Barrier && f.global_requests() > 0
        })
        .map(|(_, f)| per_request(f))
        .collect();
    let differ = each.windows(2).any(|w| w[0] != w[1]);
    differ.then(|| each.join(" · "))
}

/// Every access site's row, in order of first execution; barriers are not rows.
pub fn site_rows(a: &CudaAnalysis) -> Vec<SiteRow> {
    a.sites
        .iter()
        .filter(|(s, _)| s.kind != SiteKind::Barrier)
        .map(|(s, f)| {
            let shared = s.space == Space::Shared;
            let (file, number) = a.place(s.pos.line);
            let at = a.line_label(s.pos.line);
            SiteRow {
                line: s.pos.line,
                number,
                file: file.map(str::to_string),
                column: s.pos.column,
                kind: s.kind.name(),
                space: s.space.name(),
                elem: s.elem,
                part: s.part,
                name: if s.part > 0 {
                    format!(
                        "{at}:{} {} (field {})",
                        s.pos.column,
                        s.kind.name(),
                        s.part + 1
                    )
                } else {
                    format!("{at}:{} {}", s.pos.column, s.kind.name())
                },
                sums: Sums::of(f, shared),
                sectors_per_request: if shared { "—".into() } else { per_request(f) },
            }
        })
        .collect()
}

/// How strongly a line is coloured: its share of the kernel's excess sectors, in five bands
/// (0: none; 1: up to a tenth; 2: up to a quarter; 3: up to a half; 4: more than a half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Band(pub u8);

impl Band {
    /// The band of `excess` sectors out of the kernel's `total`.
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::Band;
    /// assert_eq!(Band::of(0, 100), Band(0));
    /// assert_eq!(Band::of(10, 100), Band(1));
    /// assert_eq!(Band::of(26, 100), Band(3));
    /// assert_eq!(Band::of(100, 100), Band(4));
    /// // Degenerate input: no excess in the kernel.
    /// assert_eq!(Band::of(0, 0), Band(0));
    /// ```
    pub fn of(excess: u64, total: u64) -> Band {
        let (e, t) = (u128::from(excess), u128::from(total));
        Band(if e == 0 || t == 0 {
            0
        } else if e * 10 <= t {
            1
        } else if e * 4 <= t {
            2
        } else if e * 2 <= t {
            3
        } else {
            4
        })
    }

    /// What the band means, for the legend and the line's accessible name.
    pub fn meaning(self) -> &'static str {
        match self.0 {
            0 => "no excess sectors",
            1 => "up to 10 % of the kernel's excess sectors",
            2 => "up to 25 % of the kernel's excess sectors",
            3 => "up to 50 % of the kernel's excess sectors",
            _ => "more than half of the kernel's excess sectors",
        }
    }

    /// Every band, for the legend.
    pub const ALL: [Band; 5] = [Band(0), Band(1), Band(2), Band(3), Band(4)];
}

/// One source line's sums over its sites (barriers included), worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineRow {
    /// `data-line`.
    pub line: u32,
    /// Access sites on the line (barriers not counted).
    pub accesses: usize,
    /// Its figures, summed over its sites: unique sectors are each site's distinct sectors.
    pub sums: Sums,
    /// The requests to global memory, a part of `sums.requests`.
    pub global_requests: u64,
    /// `__syncthreads()` reached on this line, once per block each time.
    pub barriers: u64,
    /// Sectors per global request over the line's global accesses together: "—" with none.
    pub sectors_per_request: String,
    /// The same for each of the line's global accesses, in the order they first ran, joined
    /// by " · " where they differ (a 4-sector load and a 32-sector store: "4 · 32"), for the
    /// gutter: their mean alone ("18") is the figure of no instruction.
    pub sectors_per_request_each: String,
    /// Its share of the kernel's excess sectors.
    pub band: Band,
}

/// Every line with a site, ascending.
pub fn line_rows(a: &CudaAnalysis) -> Vec<LineRow> {
    // The rows' words name a header's lines by its path.
    crate::model::cuda::files::name_files(a.files.clone());
    let total = a.total.excess_sectors();
    a.lines
        .iter()
        .map(|(line, f)| {
            let accesses = a
                .sites
                .iter()
                .filter(|(s, _)| s.pos.line == *line && s.kind != SiteKind::Barrier)
                .count();
            LineRow {
                line: *line,
                accesses,
                sums: Sums::of(f, f.shared_requests > 0),
                global_requests: f.global_requests(),
                barriers: f.barriers,
                sectors_per_request: per_request(f),
                sectors_per_request_each: each_per_request(a, *line)
                    .unwrap_or_else(|| per_request(f)),
                band: Band::of(f.excess_sectors(), total),
            }
        })
        .collect()
}

/// One line of the source view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    /// From 1, as the file counts them; a header's lines as the analysis keys them
    /// (`model::cuda::files`).
    pub number: u32,
    /// The path of its file when it is a header the source includes.
    pub file: Option<String>,
    /// The line as written, without its line end.
    pub text: String,
    /// Its figures, when it has a site.
    pub row: Option<LineRow>,
    /// Whether a branch on it depended on a loaded value (taken by every lane reaching it).
    pub assumed: bool,
    /// Whether one of its accesses races with another (`data-race`).
    pub race: bool,
    /// Whether one of its accesses reached outside its array (`data-oob`).
    pub oob: bool,
}

/// The lines of `source` as the CUDA reader numbers them: split at `\n`, a `\r` before it
/// dropped; a final line end starts no line.
fn source_text_lines(source: &str) -> impl Iterator<Item = &str> {
    source
        .strip_suffix('\n')
        .unwrap_or(source)
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// The source view: every line of `source`, with the figures of `analysis` (of that source)
/// on the lines that have sites.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{source_lines, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 0, 700).unwrap();
/// let lines = source_lines(DEFAULT_SOURCE, Some(&a));
/// assert_eq!(lines.len(), 5);
/// assert_eq!(lines[3].row.as_ref().map(|r| (r.accesses, r.sectors_per_request.as_str())), Some((2, "4")));
/// assert!(lines[0].row.is_none());
/// ```
pub fn source_lines(source: &str, analysis: Option<&CudaAnalysis>) -> Vec<SourceLine> {
    source_lines_in(source, &[], &[], analysis)
}

/// The source view of a source and the headers it included: every line of `source`, then
/// every line of each header, in the order `files` numbers them (`CudaAnalysis::files`);
/// `headers` gives each header's text by the path it was found at (a header not given shows
/// no lines).
///
/// ```
/// use coalescing_lab::model::cuda::files::{Headers, Sources};
/// use coalescing_lab::model::cuda::run::{analyse_unit, read_files};
/// use coalescing_lab::model::cuda::Defines;
/// use coalescing_lab::model::cuda_view::source_lines_in;
/// use coalescing_lab::model::Machine;
/// let headers = Headers::of(&[("copy.cuh", "__device__ void copy(float* o, const float* i) {\n  o[threadIdx.x] = i[threadIdx.x];\n}\n")]);
/// let src = "#include \"copy.cuh\"\n__global__ void k(float* o, const float* i) { copy(o, i); }\n";
/// let sources = Sources { main: "k.cu", dirs: &[], reader: &headers };
/// let unit = read_files(src, 700, &Defines::default(), sources).unwrap();
/// let a = analyse_unit(unit, "k<<<1, 32>>>(o, i)", Machine::default(), 0).unwrap();
/// let lines = source_lines_in(src, &headers.0, &a.files, Some(&a));
/// assert_eq!(lines.len(), 5);
/// assert_eq!((lines[3].file.as_deref(), lines[3].text.as_str()), (Some("copy.cuh"), "  o[threadIdx.x] = i[threadIdx.x];"));
/// assert_eq!(lines[3].row.as_ref().map(|r| r.accesses), Some(2));
/// ```
pub fn source_lines_in(
    source: &str,
    headers: &[crate::model::cuda::files::Header],
    files: &[String],
    analysis: Option<&CudaAnalysis>,
) -> Vec<SourceLine> {
    use crate::model::cuda::files::{header_at, FILE_SHIFT};
    let mut texts: Vec<(u32, Option<String>, &str)> = vec![(0, None, source)];
    for (k, path) in files.iter().enumerate() {
        let text = header_at(headers, path).map_or("", |h| h.text.as_str());
        texts.push(((k as u32 + 1) << FILE_SHIFT, Some(path.clone()), text));
    }
    let mut rows = analysis
        .map(line_rows)
        .unwrap_or_default()
        .into_iter()
        .peekable();
    let assumed = analysis.map_or(&[][..], |a| &a.assumed[..]);
    let (races, oob) = analysis.map(problem_lines).unwrap_or_default();
    let mut out = Vec::new();
    for (base, file, source) in texts {
        if source.is_empty() && base > 0 {
            continue;
        }
        out.extend(source_text_lines(source).enumerate().map(|(k, text)| {
            let number = base + k as u32 + 1;
            while rows.peek().is_some_and(|r| r.line < number) {
                rows.next();
            }
            let row = rows.next_if(|r| r.line == number);
            SourceLine {
                number,
                file: file.clone(),
                text: text.to_string(),
                row,
                assumed: assumed.contains(&number),
                race: races.binary_search(&number).is_ok(),
                oob: oob.binary_search(&number).is_ok(),
            }
        }));
    }
    out
}

/// Source views of more lines than this show only the lines that carry something, with
/// [`SOURCE_VIEW_CONTEXT`] lines around each, and at most this many lines in all: a row per
/// line of a 12,000-line file froze the page for seconds.
pub const SOURCE_VIEW_LINES: usize = 600;

/// Lines kept before and after each line that carries something, in a long source view.
pub const SOURCE_VIEW_CONTEXT: u32 = 2;

/// A row of the source view: a line, or lines left out of a long view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceRow {
    /// A line, with its figures and marks.
    Line(Box<SourceLine>),
    /// The lines that follow are the header at `path`'s.
    File {
        /// Its path, as found.
        path: String,
    },
    /// Lines `from` to `to` (inclusive) left out: none of them carries figures or marks.
    Gap {
        /// The first line left out.
        from: u32,
        /// The last line left out.
        to: u32,
    },
}

/// The rows of the source view for `lines` ([`source_lines`]), the line `error_line` marked
/// as the one the run stopped on: every line when there are at most [`SOURCE_VIEW_LINES`];
/// otherwise the lines with figures or marks and their context, the rest as gaps, and at most
/// [`SOURCE_VIEW_LINES`] lines, the rest one last gap.
///
/// ```
/// use coalescing_lab::model::cuda_view::{source_lines, source_view, SourceRow};
/// let source = "int x;\n".repeat(5000) + "__global__ void k(float* o) { o[threadIdx.x] = 1; }\n";
/// let rows = source_view(source_lines(&source, None), Some(5001));
/// // Lines 4999 to 5001: the line the run stopped on and the two before it.
/// assert_eq!(rows.len(), 4);
/// assert_eq!(rows[0], SourceRow::Gap { from: 1, to: 4998 });
/// // Degenerate input: a short source is shown whole.
/// assert_eq!(source_view(source_lines("int x;", None), None).len(), 1);
/// ```
pub fn source_view(lines: Vec<SourceLine>, error_line: Option<u32>) -> Vec<SourceRow> {
    let long = lines.len() > SOURCE_VIEW_LINES;
    let marked = |l: &SourceLine| {
        l.row.is_some() || l.assumed || l.race || l.oob || error_line == Some(l.number)
    };
    let mut keep = vec![!long; lines.len()];
    if long {
        let context = SOURCE_VIEW_CONTEXT as usize;
        for (k, l) in lines.iter().enumerate() {
            if marked(l) {
                let from = k.saturating_sub(context);
                let to = (k + context).min(lines.len() - 1);
                keep[from..=to].iter_mut().for_each(|x| *x = true);
            }
        }
    }
    let mut rows = Vec::new();
    let mut shown = 0;
    // The first line left out of the gap open now, and the last line seen.
    let mut gap: Option<u32> = None;
    let mut last: Option<u32> = None;
    let mut file: Option<String> = None;
    for (l, keep) in lines.into_iter().zip(keep) {
        let number = l.number;
        if l.file != file {
            if let (Some(from), Some(to)) = (gap.take(), last) {
                rows.push(SourceRow::Gap { from, to });
            }
            file = l.file.clone();
            if let Some(path) = &file {
                rows.push(SourceRow::File { path: path.clone() });
            }
        }
        if keep && shown < SOURCE_VIEW_LINES {
            if let Some(from) = gap.take() {
                rows.push(SourceRow::Gap { from, to: number - 1 });
            }
            shown += 1;
            rows.push(SourceRow::Line(Box::new(l)));
        } else {
            gap.get_or_insert(number);
        }
        last = Some(number);
    }
    if let (Some(from), Some(to)) = (gap, last) {
        rows.push(SourceRow::Gap { from, to });
    }
    rows
}

/// The whole-kernel figures: the kernel view's `k-…` readouts, with `k-ideal-sectors` and
/// `k-excess-sectors` after sectors per request.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{readouts, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 0, 700).unwrap();
/// let ids: Vec<&str> = readouts(&a, Machine::default(), 0).iter().map(|r| r.id).collect();
/// assert_eq!(&ids[3..6], ["k-sectors-per-request", "k-ideal-sectors", "k-excess-sectors"]);
/// ```
pub fn readouts(a: &CudaAnalysis, machine: Machine, cache_bytes: u64) -> Vec<Readout> {
    let t = &a.total;
    let mut out = figure_readouts(t, machine, cache_bytes);
    let at = out
        .iter()
        .position(|r| r.id == "k-sectors-per-request")
        .map_or(out.len(), |k| k + 1);
    let extra = [
        Readout {
            id: "k-ideal-sectors",
            label: "Ideal sectors",
            text: t.ideal_sectors.to_string(),
            value: t.ideal_sectors.to_string(),
            detail: "⌈distinct requested bytes ÷ sector⌉ per request, summed".into(),
            headline: false,
        },
        Readout {
            id: "k-excess-sectors",
            label: "Excess sectors",
            text: t.excess_sectors().to_string(),
            value: t.excess_sectors().to_string(),
            detail: "request-level − ideal: the waste".into(),
            headline: true,
        },
    ];
    out.splice(at..at, extra);
    out
}

/// What the page says beside the figures: the run's notes, then the launch's shape.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{notes, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 0, 700).unwrap();
/// assert_eq!(notes(&a), ["16 blocks of 256 threads, 8 warps each: 128 warps."]);
/// ```
pub fn notes(a: &CudaAnalysis) -> Vec<String> {
    let (blocks, warps, threads) = a.shape;
    let all = blocks * u64::from(warps);
    let mut out = a.notes.clone();
    // A program's launches summed have no one shape.
    if blocks == 0 {
        return out;
    }
    out.push(format!(
        "{blocks} block{} of {threads} thread{}, {warps} warp{} each: {all} warp{}.",
        plural(blocks),
        plural(threads),
        plural(u64::from(warps)),
        plural(all)
    ));
    out
}

/// The note on lines whose branch depended on a loaded value, naming them; `None` with none.
///
/// ```
/// use coalescing_lab::model::cuda_view::assumed_note as note;
/// assert_eq!(note(&[4, 9]).as_deref(), Some("Lines 4 and 9: a condition depends on a value loaded from memory that this model does not know; every lane that reached it was taken to hold it."));
/// assert_eq!(note(&[]), None);
/// ```
pub fn assumed_note(lines: &[u32]) -> Option<String> {
    let (first, rest) = lines.split_first()?;
    let names: Vec<String> = lines.iter().map(u32::to_string).collect();
    let head = if rest.is_empty() {
        format!("Line {first}")
    } else {
        format!("Lines {}", list_and(&names))
    };
    Some(format!(
        "{head}: a condition depends on a value loaded from memory that this model does not \
         know; every lane that reached it was taken to hold it."
    ))
}

/// What the proposal is, and the values it still needs.
///
/// ```
/// use coalescing_lab::model::cuda::run::Proposal;
/// use coalescing_lab::model::cuda_view::proposal_text;
/// let p = Proposal { launch: "k<<<1, 256>>>(out, n)".into(), missing: vec!["n".into()], line: None };
/// assert_eq!(proposal_text(&p), "Replace n with a value, and set the grid and block to the launch you mean.");
/// let p = Proposal { launch: "k<<<1, 256>>>(out)".into(), missing: vec![], line: None };
/// assert_eq!(proposal_text(&p), "It needs no other value; set the grid and block to the launch you mean.");
/// let p = Proposal { launch: "k<<<B, T>>>(out, n);".into(), missing: vec!["n".into()], line: Some(40) };
/// assert_eq!(
///     proposal_text(&p),
///     "Replace n with a value: the launch field sees the file's #defines and constants, not the host code's variables."
/// );
/// let p = Proposal { launch: "k<<<B, T>>>(out, N);".into(), missing: vec![], line: Some(40) };
/// assert_eq!(proposal_text(&p), "The launch field sees the file's #defines and constants: it runs as written.");
/// ```
pub fn proposal_text(p: &Proposal) -> String {
    let n = p.missing.len() as u64;
    let values = if n == 1 { "a value" } else { "values" };
    match (p.line, p.missing.is_empty()) {
        (Some(_), true) => {
            "The launch field sees the file's #defines and constants: it runs as written.".into()
        }
        (Some(_), false) => format!(
            "Replace {} with {values}: the launch field sees the file's #defines and constants, \
             not the host code's variables.",
            list_and(&p.missing)
        ),
        (None, true) => {
            "It needs no other value; set the grid and block to the launch you mean.".into()
        }
        (None, false) => format!(
            "Replace {} with {values}, and set the grid and block to the launch you mean.",
            list_and(&p.missing)
        ),
    }
}

/// What the proposal is, for its note: the file's own launch at its line, or one made for
/// the file's one kernel.
///
/// ```
/// use coalescing_lab::model::cuda::run::Proposal;
/// use coalescing_lab::model::cuda_view::proposal_head;
/// let p = Proposal { launch: "k<<<1, 256>>>(out)".into(), missing: vec![], line: None };
/// assert_eq!(proposal_head(&p), "The source has one kernel. A launch for it: ");
/// let p = Proposal { launch: "k<<<1, 256>>>(out);".into(), missing: vec![], line: Some(7) };
/// assert_eq!(proposal_head(&p), "The file's first launch, at line 7: ");
/// ```
pub fn proposal_head(p: &Proposal) -> String {
    match p.line {
        Some(line) => format!("The file's first launch, at {}: ", Line(line)),
        None => "The source has one kernel. A launch for it: ".into(),
    }
}

/// Where the first value the proposal still needs stands in its launch, as a range of
/// characters (`start..end`) for the field's selection once the launch is used: the user types
/// over it. `None` when it needs none.
///
/// ```
/// use coalescing_lab::model::cuda::run::Proposal;
/// use coalescing_lab::model::cuda_view::first_missing;
/// let p = Proposal { launch: "vectorAdd<<<1, 256>>>(A, B, C, numElements)".into(), missing: vec!["numElements".into()], line: None };
/// assert_eq!(first_missing(&p), Some(31..42));
/// // A name that is a part of another name is not it: `n` in `in`.
/// let p = Proposal { launch: "k<<<1, 256>>>(in, n)".into(), missing: vec!["n".into()], line: None };
/// assert_eq!(first_missing(&p), Some(18..19));
/// // Degenerate input: nothing missing.
/// assert_eq!(first_missing(&Proposal { launch: "k<<<1, 256>>>(a)".into(), missing: vec![], line: None }), None);
/// ```
pub fn first_missing(p: &Proposal) -> Option<std::ops::Range<usize>> {
    let name = p.missing.first()?;
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    p.launch.match_indices(name.as_str()).find_map(|(at, _)| {
        let end = at + name.len();
        let before = p.launch[..at].chars().next_back();
        let after = p.launch[end..].chars().next();
        (!before.is_some_and(word) && !after.is_some_and(word)).then(|| {
            let start = p.launch[..at].chars().count();
            start..start + name.chars().count()
        })
    })
}

/// The order the cache model sees the accesses in, as a list for the page.
pub const EXECUTION_ORDER: [&str; 3] = [
    "blocks in linear order, one block at a time;",
    "inside a block, each warp runs to its end on its own, and between two __syncthreads() the warps' memory instructions reach the cache round robin, one instruction of each warp in turn;",
    "an instruction's sectors in ascending address order.",
];

/// One access of a line, for the list under the source view when the line is picked.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{access_summary, site_rows, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 0, 700).unwrap();
/// assert_eq!(
///     access_summary(&site_rows(&a)[0]),
///     "column 14: global load of 4 B per lane; 128 requests, 512 sectors (4 per request), ideal 512, excess 0"
/// );
/// ```
pub fn access_summary(r: &SiteRow) -> String {
    let part = if r.part > 0 {
        format!(" (field {})", r.part + 1)
    } else {
        String::new()
    };
    let head = format!(
        "column {}{part}: {} {} of {} B per lane; {} request{}",
        r.column,
        r.space,
        r.kind,
        r.elem,
        r.sums.requests,
        plural(r.sums.requests)
    );
    match r.sums.shared {
        Some((wavefronts, ideal, conflicts)) => format!(
            "{head}, {wavefronts} wavefront{}, ideal {ideal}, {conflicts} bank conflict{}",
            plural(wavefronts),
            plural(conflicts)
        ),
        None => format!(
            "{head}, {} sector{} ({} per request), ideal {}, excess {}",
            r.sums.sectors,
            plural(r.sums.sectors),
            r.sectors_per_request,
            r.sums.ideal_sectors,
            r.sums.excess_sectors
        ),
    }
}

/// What the figures on show are, when they are not the inputs': the default kernel's
/// (the link's source or launch does not run, or the launch is empty), or an earlier run's.
///
/// ```
/// use coalescing_lab::model::cuda_view::{results_of, CudaField};
/// assert_eq!(results_of(true, Some(CudaField::Launch)), "The figures below are the default kernel's (copy): the launch does not run.");
/// assert_eq!(results_of(false, None), "The figures below are the last finished run's, of another source, launch, cache or machine.");
/// ```
pub fn results_of(default_kernel: bool, failed: Option<CudaField>) -> String {
    if !default_kernel {
        return "The figures below are the last finished run's, of another source, launch, \
                cache or machine."
            .into();
    }
    let why = match failed {
        Some(CudaField::Source) => "the source does not run",
        Some(CudaField::Launch) => "the launch does not run",
        Some(CudaField::Defines) => "the defines do not read",
        None => "there is no launch yet",
    };
    format!("The figures below are the default kernel's (copy): {why}.")
}

/// Under the source view, when it shows a source that stops at `line` rather than the
/// analysed one.
pub fn stopped_note(line: u32) -> String {
    format!(
        "This is the source as typed: the run stops at {}. The figures and the table \
         of sites are the last finished run's.",
        Line(line)
    )
}

/// A line's accessible name in the source view, where it is a button that lists its accesses.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{line_label, line_rows, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 0, 700).unwrap();
/// assert_eq!(line_label(&line_rows(&a)[0]), "Line 4: 2 accesses, no excess sectors; list them");
/// ```
pub fn line_label(r: &LineRow) -> String {
    // "line 5 of util.cuh", capitalised: the number shown stays in the name.
    let line = crate::model::cuda::files::Line(r.line).to_string();
    format!(
        "L{}: {} access{}, {}; list them",
        &line[1..],
        r.accesses,
        if r.accesses == 1 { "" } else { "es" },
        r.band.meaning()
    )
}
