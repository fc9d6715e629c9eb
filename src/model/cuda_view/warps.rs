//! Warp executions one by one, worded for the panel: the worst of the launch by a measure,
//! and every execution one warp makes of a line's accesses; each with its pass (a loop's
//! passes over one access are told apart) and the calculator scenario that shows the same
//! cost (its addresses as `addrs=`, the site's `elem` and `space`, the calculator's machine).
//! And the measures per warp as a whole: the heat map's words and the Roofline hand-off.

use super::super::cuda::run::{CudaAnalysis, CudaJob, WarpExecution};
use super::super::exact::Exact;
use super::super::flops::CUDA_FLOPS;
use super::super::format::plural;
use super::super::inputs::Inputs;
use super::super::kernel::view::heat_description;
use super::super::roofline::Work;
use super::super::warp::Measure;

/// One warp's execution of one access site, worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutionRow {
    /// The site's line: `data-line`.
    pub line: u32,
    /// The site's column: `data-column`.
    pub column: u32,
    /// `load`, `store` or `atomic`: `data-kind`.
    pub kind: &'static str,
    /// `global` or `shared`: `data-space`.
    pub space: &'static str,
    /// Bytes per lane.
    pub elem: u64,
    /// The site for people: "23:9 load".
    pub site: String,
    /// The block's `(x, y, z)`: `data-block`, `x,y,z`.
    pub block: [u64; 3],
    /// The warp within its block: `data-warp`.
    pub warp: u32,
    /// Which of the warp's executions of the site it is, from 1: `data-pass`.
    pub pass: u32,
    /// Lanes that took part: `data-active`.
    pub active_lanes: u32,
    /// Sectors, their ideal and the excess (global memory; 0 in shared).
    pub sectors: u64,
    /// `data-ideal-sectors`.
    pub ideal_sectors: u64,
    /// `data-excess-sectors`.
    pub excess_sectors: u64,
    /// Wavefronts and bank conflicts (shared memory only).
    pub wavefronts: Option<(u64, u64)>,
    /// The cost for people: "32 (28 excess)", or "32 wavefronts (shared), 31 conflicts".
    pub cost: String,
    /// The calculator's `addrs=`: one address per lane, `-` for an inactive lane.
    pub addrs: String,
}

/// `executions` as rows, for a machine of `width` lanes; an execution whose site the analysis
/// lacks is left out.
///
/// ```
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::execution_rows;
/// use coalescing_lab::model::warp::Measure;
/// use coalescing_lab::model::Machine;
/// let p = cuda_preset("copy-offset").unwrap();
/// let a = analyse(p.source, "copy<<<1, 64>>>(out, in+1)", Machine::default(), 0, 700).unwrap();
/// let rows = execution_rows(&a, a.worst_by(Measure::Sectors), 32);
/// assert_eq!((rows[0].site.as_str(), rows[0].sectors, rows[0].cost.as_str()), ("5:14 load", 5, "5 (1 excess)"));
/// // The calculator's addrs=: 32 lanes, 4 bytes apart from one past a sector's start.
/// let addrs: Vec<u64> = rows[0].addrs.split(',').map(|a| a.parse().unwrap()).collect();
/// assert_eq!((addrs.len(), addrs[0] % 32, addrs[1] - addrs[0]), (32, 4, 4));
/// // Degenerate input: no executions, no rows.
/// assert!(execution_rows(&a, &[], 32).is_empty());
/// ```
pub fn execution_rows(
    a: &CudaAnalysis,
    executions: &[WarpExecution],
    width: u32,
) -> Vec<ExecutionRow> {
    executions
        .iter()
        .filter_map(|e| {
            let (s, _) = a.sites.get(e.site)?;
            let c = &e.cost;
            let wavefronts = c.wavefronts.map(|w| (w.wavefronts, w.conflicts()));
            let cost = match wavefronts {
                Some((w, conflicts)) => format!(
                    "{w} wavefront{} (shared), {conflicts} conflict{}",
                    plural(w),
                    plural(conflicts)
                ),
                None => format!("{} ({} excess)", c.sectors, c.excess_sectors()),
            };
            Some(ExecutionRow {
                line: s.pos.line,
                column: s.pos.column,
                kind: s.kind.name(),
                space: s.space.name(),
                elem: s.elem,
                site: format!("{}:{} {}", s.pos.line, s.pos.column, s.kind.name()),
                block: e.block,
                warp: e.warp,
                pass: e.pass,
                active_lanes: c.active_lanes,
                sectors: c.sectors,
                ideal_sectors: c.ideal_sectors,
                excess_sectors: c.excess_sectors(),
                wavefronts,
                cost,
                addrs: e.calculator_addrs(width),
            })
        })
        .collect()
}

/// The calculator scenario of one execution, as the kernel view hands one over: its
/// addresses (`addrs`, which replaces `base` and `idx`), the site's `elem` and `space`, every
/// lane of `addrs` active, and the rest of `calc` (the machine: `arch`, `warp`, `sector`,
/// `line`) as it is.
pub fn calculator_inputs(row: &ExecutionRow, calc: &Inputs) -> Inputs {
    Inputs {
        addrs: row.addrs.clone(),
        elem: row.elem.to_string(),
        space: row.space.to_string(),
        active: String::new(),
        ..calc.clone()
    }
}

/// What the worst list ranks by at first: bank conflicts when the kernel has any, else
/// sectors (as the kernel view).
pub fn default_measure(a: &CudaAnalysis) -> Measure {
    if a.total.bank_conflicts() > 0 {
        Measure::Conflicts
    } else {
        Measure::Sectors
    }
}

/// The field of the drill-down a pick's error is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PickField {
    /// The block, by its linear number.
    Block,
    /// The warp within the block.
    Warp,
}

/// Every execution warp `warp` of block `block` (its linear number, `x + y·Gx + z·Gx·Gy`)
/// makes of the accesses on `line`, in order, from the job that made `a`; or why the pick is
/// not one, with the field it is in.
///
/// ```
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// use coalescing_lab::model::cuda::run::CudaJob;
/// use coalescing_lab::model::cuda_view::{line_executions, PickField};
/// use coalescing_lab::model::Machine;
/// let p = cuda_preset("copy").unwrap();
/// let mut job = CudaJob::new(p.source, "copy<<<2, 64>>>(out, in)", Machine::default(), 0, 700).unwrap();
/// while !job.step(64).unwrap() {}
/// let a = job.finish();
/// assert_eq!(line_executions(&job, &a, 5, "1", "1").unwrap().len(), 2);
/// assert_eq!(line_executions(&job, &a, 5, "2", "0").unwrap_err(), (PickField::Block, "block: the launch has 2 blocks, 0 to 1; found 2".to_string()));
/// assert_eq!(line_executions(&job, &a, 5, "0", "x").unwrap_err(), (PickField::Warp, "warp: enter a whole number from 0, found 'x'".to_string()));
/// ```
pub fn line_executions(
    job: &CudaJob,
    a: &CudaAnalysis,
    line: u32,
    block: &str,
    warp: &str,
) -> Result<Vec<WarpExecution>, (PickField, String)> {
    let (b, w) = pick_warp(a, block, warp)?;
    let all = job
        .warp_executions(b, w)
        .map_err(|e| (PickField::Block, e.to_string()))?;
    Ok(on_line(a, all, line))
}

/// The block (linear) and the warp the pick's texts name, within `a`'s launch; or why not,
/// with the field it is in (see [`line_executions`]).
pub fn pick_warp(
    a: &CudaAnalysis,
    block: &str,
    warp: &str,
) -> Result<(u64, u32), (PickField, String)> {
    let (blocks, warps, _) = a.shape;
    let number = |field: PickField, what: &str, text: &str| {
        text.trim().parse::<u64>().map_err(|_| {
            (
                field,
                format!(
                    "{what}: enter a whole number from 0, found '{}'",
                    text.trim()
                ),
            )
        })
    };
    let b = number(PickField::Block, "block", block)?;
    let w = number(PickField::Warp, "warp", warp)?;
    if b >= blocks {
        return Err((
            PickField::Block,
            format!(
                "block: the launch has {blocks} block{}, 0 to {}; found {b}",
                plural(blocks),
                blocks.saturating_sub(1)
            ),
        ));
    }
    let w = match u32::try_from(w) {
        Ok(w) if w < warps => w,
        _ => {
            return Err((
                PickField::Warp,
                format!(
                    "warp: a block has {warps} warp{}, 0 to {}; found {w}",
                    plural(u64::from(warps)),
                    warps.saturating_sub(1)
                ),
            ))
        }
    };
    Ok((b, w))
}

/// The executions of `all` (one warp's, in order) whose site is on `line`.
pub fn on_line(a: &CudaAnalysis, all: Vec<WarpExecution>, line: u32) -> Vec<WarpExecution> {
    all.into_iter()
        .filter(|e| a.sites.get(e.site).is_some_and(|(s, _)| s.pos.line == line))
        .collect()
}

/// What a warp's cell of the CUDA panel's heat map sums, for [`heat_description`].
pub const CUDA_HEAT_OVER: &str = "the warp's accesses and their loop passes";

/// The heat map's text alternative, as the kernel view words its own.
///
/// ```
/// use coalescing_lab::model::cuda::presets::cuda_preset;
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::heat_words;
/// use coalescing_lab::model::warp::Measure;
/// use coalescing_lab::model::Machine;
/// let p = cuda_preset("copy").unwrap();
/// let a = analyse(p.source, "copy<<<2, 64>>>(out, in)", Machine::default(), 0, 700).unwrap();
/// assert_eq!(
///     heat_words(&a, Measure::Sectors),
///     "Heat map of sectors per warp: 2 rows of 1 block, 2 warps per block; from 8 to 8 \
///      sectors per warp (summed over the warp's accesses and their loop passes)."
/// );
/// ```
pub fn heat_words(a: &CudaAnalysis, measure: Measure) -> String {
    heat_description(&a.heat, measure, CUDA_HEAT_OVER)
}

/// What "Use this kernel in the Roofline lab" hands over: `flops_per_thread` (`cflops`) for
/// every thread of the launch, active or not (a guard usually skips the memory access only),
/// over the launch's DRAM and request-level bytes, as points named after the kernel.
///
/// ```
/// use coalescing_lab::model::cuda::run::analyse;
/// use coalescing_lab::model::cuda_view::{work, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// use coalescing_lab::model::exact::Exact;
/// use coalescing_lab::model::Machine;
/// let a = analyse(DEFAULT_SOURCE, DEFAULT_LAUNCH, Machine::default(), 6 << 20, 700).unwrap();
/// // 16 blocks of 256 threads, 2 FLOPs each, over 4096 floats read and 4096 written.
/// let w = work(&a, Exact::parse("2").unwrap());
/// assert_eq!((w.flops.to_string(), w.dram_bytes, w.name.as_str()), ("8192".into(), 32768, "copy"));
/// assert_eq!(w.intensity().unwrap().to_string(), "0.25");
/// // Degenerate input: no FLOPs, intensity 0.
/// assert_eq!(work(&a, Exact::ZERO).intensity().unwrap().to_string(), "0");
/// ```
pub fn work(a: &CudaAnalysis, flops_per_thread: Exact) -> Work {
    let (blocks, _, threads_per_block) = a.shape;
    let threads = u128::from(blocks) * u128::from(threads_per_block);
    Work {
        // At most 2^28 threads of at most 10^15 FLOPs: the product fits.
        flops: flops_per_thread
            .times_ratio(threads, 1)
            .unwrap_or(flops_per_thread),
        dram_bytes: a.total.dram_bytes(),
        request_bytes: a.total.transferred_bytes,
        name: a.kernel.clone(),
        field: CUDA_FLOPS,
    }
}
