//! The kernel view's words and machine values: the whole-kernel readouts, the tables' rows,
//! the CSV exports, the pictures' text alternatives, and the repair of a bad link.
//!
//! The panel lays these out; it computes nothing. Knows nothing of the browser.

use super::super::format::{bytes_text, hex, number, percent, plural, ratio_value, size_text};
use super::super::inputs::Space;
use super::super::readouts::Readout;
use super::analysis::{Figures, HeatMap, KernelAnalysis, Measure, WarpRow, HEAT_BANDS};
use super::inputs::{AccessKind, Kernel, KernelError, KernelField, KernelInputs, Machine};
use super::presets::KernelPreset;

pub use super::compare::compare_sentence;
pub use super::export::{statement_csv, warp_csv};

/// The whole-kernel figures, each with its `data-testid` (`k-…`) and `data-value`.
///
/// ```
/// use coalescing_lab::model::kernel::{analyze_kernel, view::readouts, KernelInputs, Machine};
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// let r = readouts(&analyze_kernel(&kernel).unwrap());
/// let pairs: Vec<(&str, &str)> = r.iter().map(|r| (r.id, r.value.as_str())).collect();
/// assert_eq!(&pairs[..4], [("k-requests", "1"), ("k-requested-bytes", "128"), ("k-sectors", "4"), ("k-sectors-per-request", "4")]);
/// ```
pub fn readouts(a: &KernelAnalysis) -> Vec<Readout> {
    figure_readouts(&a.total, a.machine, a.cache_bytes)
}

/// One whole-kernel figure, in the order the panel shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelFigure {
    /// Warp instructions with an active lane, global and shared: `k-requests`.
    Requests,
    /// Bytes the active lanes asked for, `elem` × active lanes summed: `k-requested-bytes`.
    RequestedBytes,
    /// Request-level sectors, each instruction counted cold: `k-sectors`.
    Sectors,
    /// NCU's sectors per request over global requests, "n/a" without any: `k-sectors-per-request`.
    SectorsPerRequest,
    /// Requested ÷ request-level bytes, as a percentage: `k-useful`.
    Useful,
    /// Distinct sectors touched, what a perfect cache would fetch: `k-unique-sectors`.
    UniqueSectors,
    /// DRAM bytes read plus written back through the modelled cache: `k-dram-bytes`.
    DramBytes,
    /// Sector accesses that hit the cache, "no cache" at 0 bytes: `k-hit-rate`.
    HitRate,
    /// Shared-memory wavefronts, with the ideal count in the detail: `k-wavefronts`.
    Wavefronts,
    /// Shared wavefronts beyond the ideal: `k-bank-conflicts`.
    BankConflicts,
    /// `__syncthreads()` reached, once per block each time: `k-barriers`.
    Barriers,
}

impl KernelFigure {
    /// Every figure, in the panel's order.
    pub const ALL: [KernelFigure; 11] = [
        KernelFigure::Requests,
        KernelFigure::RequestedBytes,
        KernelFigure::Sectors,
        KernelFigure::SectorsPerRequest,
        KernelFigure::Useful,
        KernelFigure::UniqueSectors,
        KernelFigure::DramBytes,
        KernelFigure::HitRate,
        KernelFigure::Wavefronts,
        KernelFigure::BankConflicts,
        KernelFigure::Barriers,
    ];

    /// The figures the kernel comparison sets side by side.
    pub const SIDE_BY_SIDE: [KernelFigure; 7] = [
        KernelFigure::Requests,
        KernelFigure::Sectors,
        KernelFigure::SectorsPerRequest,
        KernelFigure::DramBytes,
        KernelFigure::Wavefronts,
        KernelFigure::BankConflicts,
        KernelFigure::Barriers,
    ];

    /// The figure's readout, with its `data-testid` (`k-…`) and `data-value`.
    pub fn readout(self, t: &Figures, machine: Machine, cache_bytes: u64) -> Readout {
        let sector = machine.sector_bytes;
        let hit_rate = t.hit_rate();
        match self {
            KernelFigure::Requests => Readout {
                id: "k-requests",
                label: "Requests",
                text: t.requests.to_string(),
                value: t.requests.to_string(),
                detail: "warp instructions with an active lane, global and shared".into(),
                headline: false,
            },
            KernelFigure::RequestedBytes => Readout {
                id: "k-requested-bytes",
                label: "Requested",
                text: bytes_text(t.requested_bytes),
                value: t.requested_bytes.to_string(),
                detail: "elem × active lanes, summed".into(),
                headline: false,
            },
            KernelFigure::Sectors => Readout {
                id: "k-sectors",
                label: "Sectors (request level)",
                text: t.sectors.to_string(),
                value: t.sectors.to_string(),
                detail: format!(
                    "each instruction counted cold, {}",
                    bytes_text(t.transferred_bytes)
                ),
                headline: true,
            },
            KernelFigure::SectorsPerRequest => Readout {
                id: "k-sectors-per-request",
                label: "Sectors per request",
                text: t
                    .sectors_per_request()
                    .map_or("n/a".into(), |r| super::super::format::number(r.value())),
                value: ratio_value(t.sectors_per_request()),
                detail: "NCU's sectors/request, global requests".into(),
                headline: false,
            },
            KernelFigure::Useful => Readout::fraction(
                "k-useful",
                "Useful fraction",
                t.useful_fraction(),
                "requested ÷ request-level bytes",
                false,
            ),
            KernelFigure::UniqueSectors if t.unique_lower_bound => Readout {
                id: "k-unique-sectors",
                label: "Unique sectors",
                text: format!("≥ {}", t.unique_sectors),
                value: t.unique_sectors.to_string(),
                detail: format!(
                    "at least: the count of distinct sectors reached its {} MiB budget, {} counted",
                    super::super::warp::UNIQUE_BUDGET_BYTES >> 20,
                    bytes_text(t.unique_sectors * sector)
                ),
                headline: false,
            },
            KernelFigure::UniqueSectors => Readout {
                id: "k-unique-sectors",
                label: "Unique sectors",
                text: t.unique_sectors.to_string(),
                value: t.unique_sectors.to_string(),
                detail: format!("a perfect cache: {}", bytes_text(t.unique_sectors * sector)),
                headline: false,
            },
            KernelFigure::DramBytes => Readout {
                id: "k-dram-bytes",
                label: "DRAM traffic",
                text: bytes_text(t.dram_bytes()),
                value: t.dram_bytes().to_string(),
                detail: format!(
                    "{} read, {} written back",
                    bytes_text(t.dram_read_bytes),
                    bytes_text(t.dram_write_bytes)
                ),
                headline: true,
            },
            KernelFigure::HitRate => Readout {
                id: "k-hit-rate",
                label: "Cache hit rate",
                text: if cache_bytes == 0 {
                    "no cache".into()
                } else {
                    percent(hit_rate)
                },
                value: ratio_value(hit_rate),
                detail: "sector accesses that found their sector".into(),
                headline: false,
            },
            KernelFigure::Wavefronts => Readout {
                id: "k-wavefronts",
                label: "Shared wavefronts",
                text: t.wavefronts.to_string(),
                value: t.wavefronts.to_string(),
                detail: format!(
                    "{} shared request{}, ideal {}",
                    t.shared_requests,
                    plural(t.shared_requests),
                    t.ideal_wavefronts
                ),
                headline: false,
            },
            KernelFigure::BankConflicts => Readout {
                id: "k-bank-conflicts",
                label: "Bank conflicts",
                text: t.bank_conflicts().to_string(),
                value: t.bank_conflicts().to_string(),
                detail: "shared wavefronts − ideal".into(),
                headline: false,
            },
            KernelFigure::Barriers => Readout {
                id: "k-barriers",
                label: "Barriers",
                text: t.barriers.to_string(),
                value: t.barriers.to_string(),
                detail: "__syncthreads() reached, once per block each time".into(),
                headline: false,
            },
        }
    }
}

/// The `k-…` readouts of any figures on `machine` with a cache of `cache_bytes` (0 for
/// none): a launch's, or a trace's.
pub fn figure_readouts(t: &Figures, machine: Machine, cache_bytes: u64) -> Vec<Readout> {
    KernelFigure::ALL
        .iter()
        .map(|f| f.readout(t, machine, cache_bytes))
        .collect()
}

/// The figures the comparison sets side by side, for one launch.
pub fn side_by_side(a: &KernelAnalysis) -> Vec<Readout> {
    KernelFigure::SIDE_BY_SIDE
        .iter()
        .map(|f| f.readout(&a.total, a.machine, a.cache_bytes))
        .collect()
}

/// One statement's row of the table, worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementRow {
    /// N in `aN`: `data-stmt`.
    pub stmt: u8,
    /// The label: the typed name or `aN`.
    pub name: String,
    /// `load`, `store` or `sync`.
    pub kind: &'static str,
    /// `global` or `shared`; empty for a barrier.
    pub space: &'static str,
    /// Warp instructions of this statement with an active lane: `data-requests`.
    pub requests: u64,
    /// Bytes its active lanes asked for: `data-requested-bytes`.
    pub requested_bytes: u64,
    /// Request-level sectors, each instruction counted cold: `data-sectors`.
    pub sectors: u64,
    /// Sectors per request for people, "n/a" without requests.
    pub sectors_per_request: String,
    /// The useful fraction for people.
    pub useful: String,
    /// Distinct sectors this statement touched: `data-unique-sectors`.
    pub unique_sectors: u64,
    /// DRAM bytes read and written back on its behalf: `data-dram-bytes`.
    pub dram_bytes: u64,
    /// The hit rate for people, "—" with no cache.
    pub hit_rate: String,
    /// Shared-memory wavefronts and bank conflicts: `data-wavefronts`, `data-bank-conflicts`.
    pub wavefronts: u64,
    /// Wavefronts beyond the ideal: `data-bank-conflicts`.
    pub bank_conflicts: u64,
    /// Barriers reached: `data-barriers`.
    pub barriers: u64,
}

/// The per-statement table, in statement order.
pub fn statement_rows(a: &KernelAnalysis) -> Vec<StatementRow> {
    a.statements
        .iter()
        .map(|s| {
            let f = &s.figures;
            StatementRow {
                stmt: s.number,
                name: s.name.clone(),
                kind: kind_word(s.kind),
                space: if s.kind == AccessKind::Sync {
                    ""
                } else {
                    s.space.name()
                },
                requests: f.requests,
                requested_bytes: f.requested_bytes,
                sectors: f.sectors,
                sectors_per_request: f
                    .sectors_per_request()
                    .map_or("n/a".into(), |r| super::super::format::number(r.value())),
                useful: percent(f.useful_fraction()),
                unique_sectors: f.unique_sectors,
                dram_bytes: f.dram_bytes(),
                hit_rate: if a.cache_bytes == 0 {
                    "—".into()
                } else {
                    percent(f.hit_rate())
                },
                wavefronts: f.wavefronts,
                bank_conflicts: f.bank_conflicts(),
                barriers: f.barriers,
            }
        })
        .collect()
}

pub(super) fn kind_word(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Load => "load",
        AccessKind::Store => "store",
        AccessKind::Sync => "sync",
    }
}

/// Lane 0's address for people: hex, or "inactive".
pub fn lane0_text(row: &WarpRow) -> String {
    row.lane0_address.map_or("inactive".into(), hex)
}

/// What a warp's cell of the kernel view's heat map sums, for [`heat_description`].
pub const KERNEL_HEAT_OVER: &str = "statements and iterations";

/// The heat map's text alternative: the same bands and the same range the picture shows.
/// `heat` is any launch's, and `over` says what a warp's cell sums: [`KERNEL_HEAT_OVER`] in
/// the kernel view, `model::cuda_view::CUDA_HEAT_OVER` in the CUDA panel.
///
/// ```
/// use coalescing_lab::model::kernel::{analyze_kernel, view::{heat_description, KERNEL_HEAT_OVER}, KernelInputs, Machine, Measure};
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// assert_eq!(
///     heat_description(&analyze_kernel(&kernel).unwrap().heat, Measure::Sectors, KERNEL_HEAT_OVER),
///     "Heat map of sectors per warp: 1 row of 1 block, 1 warp per block; \
///      from 4 to 4 sectors per warp (summed over statements and iterations)."
/// );
/// ```
pub fn heat_description(heat: &HeatMap, measure: Measure, over: &str) -> String {
    let b = heat.bands(HEAT_BANDS, measure);
    let unit = measure.unit();
    let mean = if b.blocks_per_band > 1 {
        ", the mean over a row's blocks"
    } else {
        ""
    };
    format!(
        "Heat map of {unit} per warp: {} row{} of {} block{}, {} warp{} per block; \
         from {} to {} {unit} per warp (summed over {over}{mean}).",
        b.bands,
        plural(b.bands),
        b.blocks_per_band,
        plural(b.blocks_per_band),
        b.warps,
        plural(u64::from(b.warps)),
        number(b.low),
        number(b.high),
    )
}

/// The statement bars' text alternative: each statement's three byte counts.
///
/// ```
/// use coalescing_lab::model::kernel::{analyze_kernel, view::bars_description, KernelInputs, Machine};
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// assert_eq!(
///     bars_description(&analyze_kernel(&kernel).unwrap()),
///     "Bytes per statement. a1 (load): 128 B at the request level, 128 B unique, 128 B DRAM."
/// );
/// ```
pub fn bars_description(a: &KernelAnalysis) -> String {
    let sector = a.machine.sector_bytes;
    let mut text = String::from("Bytes per statement.");
    for s in &a.statements {
        let f = &s.figures;
        text.push_str(&match (s.kind, s.space) {
            (AccessKind::Sync, _) => format!(
                " {} (sync): no memory, {} barrier{}.",
                s.name,
                f.barriers,
                plural(f.barriers)
            ),
            (kind, Space::Shared) => format!(
                " {} (shared {}): no DRAM bytes, {} wavefronts, {} bank conflicts.",
                s.name,
                kind_word(kind),
                f.wavefronts,
                f.bank_conflicts()
            ),
            (kind, Space::Global) => format!(
                " {} ({}): {} B at the request level, {} B unique, {} B DRAM.",
                s.name,
                kind_word(kind),
                f.transferred_bytes,
                f.unique_sectors * sector,
                f.dram_bytes()
            ),
        });
    }
    text
}

/// The machine and cache assumptions, stated on screen.
///
/// ```
/// use coalescing_lab::model::kernel::{view::assumptions, Machine};
/// assert_eq!(
///     assumptions(Machine::default(), 6291456),
///     "32-lane warps, 32 B sectors, 128 B lines (the calculator's arch, warp, sector and line). \
///      Cache: 6 MiB, fully associative, LRU over 128 B lines, filled and counted per 32 B sector; \
///      a load of an absent sector reads it from DRAM; a store marks it present and dirty \
///      without reading, and a dirty sector is written back when its line is evicted or the \
///      launch ends."
/// );
/// ```
pub fn assumptions(machine: Machine, cache_bytes: u64) -> String {
    let head = format!(
        "{}-lane warps, {} B sectors, {} B lines (the calculator's arch, warp, sector and line).",
        machine.warp, machine.sector_bytes, machine.line_bytes
    );
    if cache_bytes == 0 {
        return format!(
            "{head} No cache (cache=0): every request-level sector, loaded or stored, is DRAM traffic."
        );
    }
    format!(
        "{head} Cache: {}, fully associative, LRU over {} B lines, filled and counted per {} B \
         sector; a load of an absent sector reads it from DRAM; a store marks it present and \
         dirty without reading, and a dirty sector is written back when its line is evicted or \
         the launch ends.",
        size_text(cache_bytes),
        machine.line_bytes,
        machine.sector_bytes
    )
}

/// The execution order the cache model assumes, as a list for the page.
pub const EXECUTION_ORDER: [&str; 4] = [
    "blocks in linear order, one block at a time;",
    "inside a block, each iteration i of the loop;",
    "in each iteration, the statements in order;",
    "for each statement, every warp of the block in order; an instruction's sectors meet the cache in ascending address order.",
];

impl KernelPreset {
    /// The preset whose parameters `inputs` are, if any: the picker shows it.
    ///
    /// ```
    /// use coalescing_lab::model::kernel::presets::KernelPreset;
    /// let transpose = KernelPreset::by_id("transpose-naive").unwrap();
    /// assert_eq!(KernelPreset::matching(&transpose.inputs()).map(|p| p.id), Some("transpose-naive"));
    /// assert_eq!(KernelPreset::matching(&Default::default()), None);
    /// ```
    pub fn matching(inputs: &KernelInputs) -> Option<&'static KernelPreset> {
        let wanted = canonical(inputs);
        super::presets::KERNEL_PRESETS
            .iter()
            .find(|p| canonical(&p.inputs()) == wanted)
    }
}

/// The inputs as a preset would write them: no spaces anywhere, and a grid or block with its
/// missing trailing values written as 1 (`32,1024` is `32,1024,1`).
///
/// ```
/// use coalescing_lab::model::kernel::{view::canonical, KernelField, KernelInputs};
/// let mut typed = KernelInputs::default();
/// typed.set(KernelField::Grid, " 32, 1024 ".into());
/// assert_eq!(canonical(&typed).grid, "32,1024,1");
/// ```
pub fn canonical(inputs: &KernelInputs) -> KernelInputs {
    let squeeze = |text: &str| {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    let shape = |text: &str| {
        let mut parts: Vec<String> = squeeze(text).split(',').map(str::to_string).collect();
        if parts.len() < 3 && parts.iter().all(|p| !p.is_empty()) {
            parts.resize(3, "1".to_string());
        }
        parts.join(",")
    };
    let mut out = inputs.clone();
    out.grid = shape(&inputs.grid);
    out.block = shape(&inputs.block);
    for text in [&mut out.loop_range, &mut out.cache, &mut out.flops] {
        *text = squeeze(text);
    }
    for stmt in out.statements.iter_mut().flatten() {
        for text in [
            &mut stmt.kind,
            &mut stmt.space,
            &mut stmt.elem,
            &mut stmt.base,
            &mut stmt.idx,
            &mut stmt.active,
        ] {
            *text = squeeze(text);
        }
    }
    out
}

/// The kernel of `inputs` with every field in error put back to its default, and the errors
/// met, as the calculator repairs a bad link. `None` when even the defaults fail (they never
/// do on a valid machine).
///
/// ```
/// use coalescing_lab::model::kernel::{view::repair, KernelField, KernelInputs, Machine};
/// let mut inputs = KernelInputs::default();
/// inputs.set(KernelField::Grid, "0".into());
/// let (kernel, errors) = repair(&inputs, Machine::default());
/// assert_eq!(kernel.unwrap().grid, [1, 1, 1]);
/// assert_eq!(errors[0].field, KernelField::Grid);
/// ```
pub fn repair(inputs: &KernelInputs, machine: Machine) -> (Option<Kernel>, Vec<KernelError>) {
    let (kernel, errors) = repair_inputs(inputs, machine);
    (kernel.map(|(_, kernel)| kernel), errors)
}

/// [`repair`], with the repaired inputs the kernel was checked from: what the page's worker
/// is asked to run (`wire::Request`).
pub fn repair_inputs(
    inputs: &KernelInputs,
    machine: Machine,
) -> (Option<(KernelInputs, Kernel)>, Vec<KernelError>) {
    let mut repaired = inputs.clone();
    let mut met = Vec::new();
    let defaults = KernelInputs::default();
    // Each round restores at least one field; a launch has at most 5 + 8 × 7 fields.
    for _ in 0..64 {
        match repaired.kernel(machine) {
            Ok(kernel) => return (Some((repaired, kernel)), met),
            Err(errors) => {
                let before = repaired.clone();
                for e in &errors {
                    repaired.set(e.field, KernelInputs::default_for(e.field));
                }
                met.extend(errors);
                if repaired == before {
                    // The launch as a whole is too big: its shape goes back to the default.
                    repaired.set(KernelField::Grid, defaults.grid.clone());
                    repaired.set(KernelField::Loop, defaults.loop_range.clone());
                    if repaired == before {
                        break;
                    }
                }
            }
        }
    }
    let kernel = defaults.kernel(machine).ok();
    (kernel.map(|kernel| (defaults, kernel)), met)
}

/// A one-line name for the kernel whose figures are on show, for a label when they are not
/// the fields' kernel (during a run, after Cancel, or after a failed run): its shape, loop
/// and statements.
///
/// ```
/// use coalescing_lab::model::kernel::{KernelInputs, Machine};
/// use coalescing_lab::model::kernel::view::kernel_label;
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// assert_eq!(kernel_label(&kernel), "grid 1×1×1, block 32×1×1, statement a1");
/// ```
pub fn kernel_label(k: &Kernel) -> String {
    let shape = |d: [u32; 3]| format!("{}×{}×{}", d[0], d[1], d[2]);
    let r = k.loop_range;
    let looped = if r.looped {
        format!(
            ", {} iteration{} of i from {} by {}",
            r.iterations,
            plural(r.iterations),
            r.start,
            r.step
        )
    } else {
        String::new()
    };
    let names: Vec<String> = k.statements.iter().map(|s| s.name.clone()).collect();
    format!(
        "grid {}, block {}{looped}, statement{} {}",
        shape(k.grid),
        shape(k.block),
        plural(names.len() as u64),
        names.join(", ")
    )
}
