//! A whole program's launches as the panel and the command line show them: one row per launch
//! (the page's `cuda-launch` attributes, the command line's columns), which launch is shown
//! (`pick`: an index or `all`), and every launch summed per site and per line for `all`.

use super::super::csv::Csv;
use super::super::cuda::run::check::{OutOfBounds, Uninit};
use super::super::cuda::run::program::LaunchRun;
use super::super::cuda::run::program::{Printed, Stream};
use super::super::cuda::run::{CudaAnalysis, Site};
use super::super::format::html_escape_into;
use super::super::warp::{Figures, HeatMap};
use crate::model::cuda::files::Line;
use serde::{Deserialize, Serialize};

/// Each launch's columns: the command line's heads, and the page's `data-` attributes.
pub const LAUNCH_HEADS: [&str; 14] = [
    "index",
    "kernel",
    "line",
    "grid",
    "block",
    "shared-bytes",
    "requests",
    "sectors",
    "ideal-sectors",
    "unique-sectors",
    "dram-bytes",
    "wavefronts",
    "bank-conflicts",
    "barriers",
];

/// One launch of a program, as its row shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchRow {
    /// The kernel's name.
    pub kernel: String,
    /// The line of its `<<<`.
    pub line: u32,
    /// Blocks, x, y, z.
    pub grid: [u64; 3],
    /// Threads per block, x, y, z.
    pub block: [u64; 3],
    /// Bytes of dynamic shared memory.
    pub shared_bytes: u64,
    /// The whole launch's figures.
    pub total: Figures,
}

fn triple(v: [u64; 3]) -> String {
    format!("{},{},{}", v[0], v[1], v[2])
}

impl LaunchRow {
    /// The row of `launch`.
    pub fn of(launch: &LaunchRun) -> LaunchRow {
        LaunchRow {
            kernel: launch.kernel.clone(),
            line: launch.line,
            grid: launch.grid,
            block: launch.block,
            shared_bytes: launch.shared_bytes,
            total: launch.analysis.total,
        }
    }

    /// Its cells in [`LAUNCH_HEADS`]' order, as launch `index`; grid and block as `x,y,z`.
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::LaunchRow;
    /// let row = LaunchRow { kernel: "k".into(), line: 9, grid: [4, 1, 1], block: [256, 1, 1],
    ///     shared_bytes: 0, total: Default::default() };
    /// assert_eq!(row.cells(0)[..5], ["0", "k", "9", "4,1,1", "256,1,1"]);
    /// ```
    pub fn cells(&self, index: usize) -> Vec<String> {
        let t = &self.total;
        vec![
            index.to_string(),
            self.kernel.clone(),
            self.line.to_string(),
            triple(self.grid),
            triple(self.block),
            self.shared_bytes.to_string(),
            t.requests.to_string(),
            t.sectors.to_string(),
            t.ideal_sectors.to_string(),
            t.unique_sectors.to_string(),
            t.dram_bytes().to_string(),
            t.wavefronts.to_string(),
            t.bank_conflicts().to_string(),
            t.barriers.to_string(),
        ]
    }
}

/// The launches as the command line's `run --format csv` writes them: [`LAUNCH_HEADS`], then a
/// row per launch.
pub fn launches_csv(rows: &[LaunchRow]) -> String {
    let mut csv = Csv::default();
    csv.row(LAUNCH_HEADS);
    for (k, row) in rows.iter().enumerate() {
        csv.row(row.cells(k));
    }
    csv.finish()
}

/// Most launch rows the page draws; the CSV holds them all.
pub const MAX_LAUNCH_ROWS: usize = 1000;

/// The console as the page's `cuda-console` holds it: a span per piece, standard error's
/// marked, every character as printed (escaped).
///
/// ```
/// use coalescing_lab::model::cuda::run::program::{Printed, Stream};
/// use coalescing_lab::model::cuda_view::console_html;
/// let console = [
///     Printed { stream: Stream::Stdout, text: "a<b\n".into() },
///     Printed { stream: Stream::Stderr, text: "bad\n".into() },
/// ];
/// assert_eq!(console_html(&console),
///     "<span>a&lt;b\n</span><span class=\"stderr\" title=\"standard error\">bad\n</span>");
/// ```
pub fn console_html(console: &[Printed]) -> String {
    let mut html = String::new();
    for p in console {
        html.push_str(match p.stream {
            Stream::Stdout => "<span>",
            Stream::Stderr => r#"<span class="stderr" title="standard error">"#,
        });
        html_escape_into(&mut html, &p.text);
        html.push_str("</span>");
    }
    html
}

/// The launches' rows as the page's table body holds them: a `tr` per launch (the first
/// [`MAX_LAUNCH_ROWS`]) with `data-testid="cuda-launch"`, a `data-` attribute per
/// [`LAUNCH_HEADS`] column and a cell per column; the launch shown is `picked`.
///
/// ```
/// use coalescing_lab::model::cuda_view::{launch_rows_html, LaunchRow};
/// let row = LaunchRow { kernel: "k".into(), line: 9, grid: [4, 1, 1], block: [256, 1, 1],
///     shared_bytes: 0, total: Default::default() };
/// let html = launch_rows_html(&[row], Some(0));
/// assert!(html.starts_with(r#"<tr data-testid="cuda-launch" class="picked" data-index="0" data-kernel="k" data-line="9" data-grid="4,1,1""#));
/// assert!(html.ends_with("<td>0</td></tr>"));
/// ```
pub fn launch_rows_html(rows: &[LaunchRow], picked: Option<usize>) -> String {
    let mut html = String::new();
    for (k, row) in rows.iter().enumerate().take(MAX_LAUNCH_ROWS) {
        let cells = row.cells(k);
        html.push_str(r#"<tr data-testid="cuda-launch""#);
        if picked == Some(k) {
            html.push_str(r#" class="picked""#);
        }
        for (head, cell) in LAUNCH_HEADS.iter().zip(&cells) {
            html.push_str(" data-");
            html.push_str(head);
            html.push_str("=\"");
            html_escape_into(&mut html, cell);
            html.push('"');
        }
        html.push('>');
        for cell in &cells {
            html.push_str("<td>");
            html_escape_into(&mut html, cell);
            html.push_str("</td>");
        }
        html.push_str("</tr>");
    }
    html
}

/// The launch picker's options: all of them summed, then each launch (the first
/// [`MAX_LAUNCH_ROWS`]) by its index, kernel and line.
///
/// ```
/// use coalescing_lab::model::cuda_view::{launch_options_html, LaunchRow};
/// let row = LaunchRow { kernel: "k".into(), line: 9, grid: [4, 1, 1], block: [256, 1, 1],
///     shared_bytes: 0, total: Default::default() };
/// assert_eq!(launch_options_html(&[row]),
///     r#"<option value="all">All launches, summed per line</option><option value="0">0: k (line 9)</option>"#);
/// ```
pub fn launch_options_html(rows: &[LaunchRow]) -> String {
    let mut html = String::from(r#"<option value="all">All launches, summed per line</option>"#);
    for (k, row) in rows.iter().enumerate().take(MAX_LAUNCH_ROWS) {
        html.push_str(&format!(r#"<option value="{k}">{k}: "#));
        html_escape_into(&mut html, &row.kernel);
        html.push_str(&format!(" ({})</option>", Line(row.line)));
    }
    html
}

/// Where a program's run on the panel stands, worded for its console, its status and its
/// progress.
#[derive(Clone, Debug, PartialEq)]
pub enum ProgramStage {
    /// Not run.
    Idle,
    /// Launches finished, and the running launch's warps run of all.
    Running(usize, Option<(u64, u64)>),
    /// It ran to its end.
    Done,
    /// It stopped on an error of the program: its words.
    Stopped(String),
    /// Cancel stopped it.
    Cancelled,
}

impl ProgramStage {
    /// The console's `data-state`: `running`, `done`, or `failed` (stopped or cancelled).
    pub fn data_state(&self) -> &'static str {
        match self {
            ProgramStage::Running(..) => "running",
            ProgramStage::Done => "done",
            _ => "failed",
        }
    }

    /// What the program's end says: its status, why it stopped, or that it was cancelled.
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::ProgramStage;
    /// assert_eq!(ProgramStage::Done.end_words(Some(3)), "The program exited with status 3.");
    /// assert_eq!(ProgramStage::Stopped("line 4: x".into()).end_words(None), "The program stopped: line 4: x");
    /// assert_eq!(ProgramStage::Running(0, None).end_words(None), "");
    /// ```
    pub fn end_words(&self, exit_code: Option<u8>) -> String {
        match self {
            ProgramStage::Done => exit_code
                .map(|c| format!("The program exited with status {c}."))
                .unwrap_or_default(),
            ProgramStage::Stopped(words) => format!("The program stopped: {words}"),
            ProgramStage::Cancelled => {
                "Cancelled: the program did not finish. Press Run to run it again.".into()
            }
            _ => String::new(),
        }
    }

    /// The screen reader's status: what became of the run, once it ended.
    pub fn status_words(&self) -> &'static str {
        match self {
            ProgramStage::Done => "The program ran to its end.",
            ProgramStage::Stopped(_) => "The program stopped.",
            ProgramStage::Cancelled => "Cancelled.",
            _ => "",
        }
    }

    /// While it runs, the progress line beside the bar, and the running launch's warps.
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::ProgramStage;
    /// let (text, _) = ProgramStage::Running(1, Some((3, 8))).progress().unwrap();
    /// assert_eq!(text, "Running: 1 launch finished; the next at 3 of 8 warps");
    /// assert_eq!(ProgramStage::Done.progress(), None);
    /// ```
    pub fn progress(&self) -> Option<(String, Option<(u64, u64)>)> {
        let ProgramStage::Running(done, launch) = self else {
            return None;
        };
        let mut text = format!(
            "Running: {done} launch{} finished",
            if *done == 1 { "" } else { "es" }
        );
        if let Some((warps, all)) = launch {
            text.push_str(&format!("; the next at {warps} of {all} warps"));
        }
        Some((text, *launch))
    }
}

/// The model's notes on a program's run as the panel shows them: a `p.note`
/// (`data-testid="cuda-program-note"`) each, escaped.
pub fn program_notes_html(notes: &[String]) -> String {
    let mut html = String::new();
    for n in notes {
        html.push_str(r#"<p class="note" data-testid="cuda-program-note">"#);
        html_escape_into(&mut html, n);
        html.push_str("</p>");
    }
    html
}

/// What the results under a program's console are of: the whole kernel (no program), all
/// launches, or one launch, by the link's `pick`.
///
/// ```
/// use coalescing_lab::model::cuda_view::results_title;
/// assert_eq!(results_title(""), "Whole kernel");
/// assert_eq!(results_title("all"), "All launches");
/// assert_eq!(results_title("2"), "Launch 2");
/// ```
pub fn results_title(pick: &str) -> String {
    match pick {
        "" => "Whole kernel".into(),
        "all" => "All launches".into(),
        k => format!("Launch {k}"),
    }
}

/// Which launch of a program is shown: `pick=` in the link, `cuda-launch-pick` on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pick {
    /// One launch, by its index in the program's order.
    Launch(usize),
    /// Every launch summed per site and per line.
    All,
}

impl Pick {
    /// `all`, or the launch's index.
    ///
    /// ```
    /// use coalescing_lab::model::cuda_view::Pick;
    /// assert_eq!(Pick::parse(" all "), Some(Pick::All));
    /// assert_eq!(Pick::parse("2"), Some(Pick::Launch(2)));
    /// assert_eq!(Pick::parse("-1"), None);
    /// assert_eq!(Pick::All.name(), "all");
    /// ```
    pub fn parse(text: &str) -> Option<Pick> {
        match text.trim() {
            "all" => Some(Pick::All),
            t => t.parse().ok().map(Pick::Launch),
        }
    }

    /// As `parse` reads it.
    pub fn name(self) -> String {
        match self {
            Pick::All => "all".into(),
            Pick::Launch(k) => k.to_string(),
        }
    }

    /// The analysis it picks of `launches`: one launch's, or all of them summed
    /// ([`all_launches`]); `None` for an index past the last launch, or no launch.
    pub fn of(self, launches: &[LaunchRun]) -> Option<CudaAnalysis> {
        match self {
            Pick::Launch(k) => launches.get(k).map(|l| l.analysis.clone()),
            Pick::All if launches.is_empty() => None,
            Pick::All => Some(all_launches(launches)),
        }
    }
}

/// Two launches' figures, summed. Distinct sectors are summed too, as a line sums its sites':
/// a sector two launches both touch counts twice. Hits are counted when both have a cache.
pub fn figures_sum(a: &Figures, b: &Figures) -> Figures {
    Figures {
        requests: a.requests + b.requests,
        requested_bytes: a.requested_bytes + b.requested_bytes,
        shared_requests: a.shared_requests + b.shared_requests,
        shared_requested_bytes: a.shared_requested_bytes + b.shared_requested_bytes,
        wavefronts: a.wavefronts + b.wavefronts,
        ideal_wavefronts: a.ideal_wavefronts + b.ideal_wavefronts,
        barriers: a.barriers + b.barriers,
        sectors: a.sectors + b.sectors,
        ideal_sectors: a.ideal_sectors + b.ideal_sectors,
        transferred_bytes: a.transferred_bytes + b.transferred_bytes,
        unique_sectors: a.unique_sectors + b.unique_sectors,
        unique_lower_bound: a.unique_lower_bound || b.unique_lower_bound,
        dram_read_bytes: a.dram_read_bytes + b.dram_read_bytes,
        dram_write_bytes: a.dram_write_bytes + b.dram_write_bytes,
        hits: a.hits.zip(b.hits).map(|(x, y)| x + y),
    }
}

/// Every launch of a program summed: each access site once (a kernel launched twice has its
/// sites' figures summed), each line once, the whole program's total, and every launch's
/// races and accesses out of bounds. Figures per warp belong to one launch, so the sum has
/// none: its shape is zero blocks, and its heat map and worst warps are empty.
pub fn all_launches(launches: &[LaunchRun]) -> CudaAnalysis {
    let mut sites: Vec<(Site, Figures)> = Vec::new();
    let mut lines: std::collections::BTreeMap<u32, Figures> = Default::default();
    let mut total = Figures::default();
    let mut assumed = std::collections::BTreeSet::new();
    let mut notes: Vec<String> = Vec::new();
    let (mut races, mut out_of_bounds, mut uninitialized) = (Vec::new(), Vec::new(), Vec::new());
    let mut output = String::new();
    for l in launches {
        let a = &l.analysis;
        // Where each of this launch's sites lands among the sum's.
        let mut at = Vec::with_capacity(a.sites.len());
        for (site, f) in &a.sites {
            match sites.iter().position(|(s, _)| s == site) {
                Some(k) => {
                    sites[k].1 = figures_sum(&sites[k].1, f);
                    at.push(k);
                }
                None => {
                    at.push(sites.len());
                    sites.push((site.clone(), *f));
                }
            }
        }
        for (line, f) in &a.lines {
            let e = lines.entry(*line).or_default();
            *e = figures_sum(e, f);
        }
        total = figures_sum(&total, &a.total);
        assumed.extend(a.assumed.iter().copied());
        for n in &a.notes {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
        let moved = |k: usize| at.get(k).copied().unwrap_or(k);
        for r in &a.races {
            let mut r = r.clone();
            (r.site_a, r.site_b, r.fix_after) =
                (moved(r.site_a), moved(r.site_b), moved(r.fix_after));
            if !races.contains(&r) {
                races.push(r);
            }
        }
        for u in &a.uninitialized {
            let mut u = u.clone();
            u.site = moved(u.site);
            if !uninitialized.iter().any(|p: &Uninit| p.site == u.site) {
                uninitialized.push(u);
            }
        }
        for o in &a.out_of_bounds {
            let mut o = o.clone();
            o.site = moved(o.site);
            if !out_of_bounds.iter().any(|p: &OutOfBounds| p.site == o.site) {
                out_of_bounds.push(o);
            }
        }
        output.push_str(&a.output);
    }
    notes.push(format!(
        "All {} launches, summed per access site and per line; distinct sectors are summed over \
         the launches, so a sector two launches touch counts twice. Pick one launch for its \
         figures per warp.",
        launches.len()
    ));
    CudaAnalysis {
        sites,
        lines: lines.into_iter().collect(),
        total,
        assumed: assumed.into_iter().collect(),
        notes,
        shape: (0, 0, 0),
        races,
        out_of_bounds,
        uninitialized,
        worst: vec![Vec::new(); 4],
        heat: HeatMap::new(0, 0),
        kernel: "all launches".into(),
        output,
        files: launches
            .first()
            .map(|l| l.analysis.files.clone())
            .unwrap_or_default(),
    }
}
