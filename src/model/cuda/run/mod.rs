//! The SIMT interpreter: a launch of a kernel read from source, run warp by warp as the
//! hardware's SIMT model runs it, its memory accesses counted by the warp core's tally.
//!
//! - Warps form as in the kernel view: linear thread id, `warp` lanes each, a partial last
//!   warp with its missing lanes inactive.
//! - The lanes of a warp run together under an active mask: an `if` runs its `then` side
//!   with the lanes whose condition holds and its `else` side with the others; a loop runs
//!   while any lane is in it; `break`, `continue` and `return` take lanes out until the end
//!   of the loop, the iteration or the function.
//! - Values read from memory are unknown: nothing is simulated but addresses. So warps never
//!   influence each other, and each warp of a block is run to its end on its own, its
//!   accesses and barriers held ([`Events`]). The block's accesses then meet the tally in the
//!   hardware's order between barriers: round robin, one memory instruction of each warp in
//!   turn ([`RoundRobin`]). Blocks run in linear order.
//!
//! - `ty`: resolved types and their layout;
//! - `value`: one value per lane;
//! - `warp`: one warp's run (statements, expressions, calls);
//! - `error`: why a run stops.
//!
//! This file is one idea, the launch as a resumable job: preparing it, running warps, replaying
//! a block into the tally, and its figures; what a warp does is in `warp`, the checks in
//! `check`.

pub mod check;
pub mod error;
pub mod ty;
pub mod value;
mod warp;

use super::ast::{Function, Item, Skipped, TemplateParam, Unit};
use super::cint::Int;
use super::error::{CudaError, Pos};
use super::parse::launch::{parse_launch, Allocation, Launch, LaunchArg, LaunchError};
use super::parse::parse;
use crate::model::machine::{AccessKind, Machine, Space};
use crate::model::warp::{
    Cost, Figures, HeatMap, Measure, RoundRobin, SiteCounts, Tally, TallyOptions, WarpAccess,
};
pub use error::{RunError, RunErrorKind};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::rc::Rc;
use ty::{StructTy, Ty};
use value::Lanes;

/// At most this many lane-accesses in a launch, as in the kernel view: 2^28.
pub const MAX_LANE_ACCESSES: u64 = 1 << 28;
/// At most this many lane-accesses held for one block while its warps are interleaved: 2^23
/// (64 MiB of addresses).
pub const MAX_BLOCK_LANE_ACCESSES: u64 = 1 << 23;
/// At most this many warp accesses held for one block: 2^21 (about 50 MiB).
pub const MAX_BLOCK_WARP_ACCESSES: usize = 1 << 21;
/// At most this many iterations of one loop by one warp, against endless loops: 2^20.
pub const MAX_LOOP_ITERATIONS: u64 = 1 << 20;
/// At most this many loop iterations by one warp in all, its loops and the loops inside them
/// counted together, so that nested loops cannot multiply past the one-loop limit: 2^20.
pub const MAX_WARP_ITERATIONS: u64 = 1 << 20;
/// At most this many threads in a block, as on NVIDIA hardware.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// At most this many bytes of shared memory a block: 227 KiB, the most any NVIDIA GPU gives
/// one block (H100's 227 KB).
pub const MAX_SHARED_BYTES: u64 = 227 << 10;
/// At most this many values in one local variable (a local array lives in registers).
pub const MAX_LOCAL_PARTS: usize = 4096;
/// At most this many nested calls.
pub const MAX_CALL_DEPTH: usize = 64;

/// Template arguments bound to a template's parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bindings {
    /// Type parameters.
    pub types: Vec<(String, Ty)>,
    /// Value parameters.
    pub values: Vec<(String, Int)>,
}

impl Bindings {
    fn ty(&self, name: &str) -> Option<&Ty> {
        self.types.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    fn value(&self, name: &str) -> Option<Int> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// Why a CUDA run cannot start or stops: in the source, in the launch, or while running.
#[derive(Clone, Debug, PartialEq)]
pub enum CudaFailure {
    /// The source does not read.
    Source(CudaError),
    /// The launch does not read.
    Launch(LaunchError),
    /// The run stopped.
    Run(RunError),
}

impl fmt::Display for CudaFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaFailure::Source(e) => write!(f, "source, {e}"),
            CudaFailure::Launch(e) => write!(f, "{e}"),
            CudaFailure::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CudaFailure {}

/// What a site does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SiteKind {
    /// A read.
    Load,
    /// A write.
    Store,
    /// An atomic read-modify-write (`atomicAdd`, …).
    Atomic,
    /// `__syncthreads()` (or a cooperative group's `sync`).
    Barrier,
}

impl SiteKind {
    /// Its name in the page's `data-kind` and the command line's output.
    pub fn name(self) -> &'static str {
        match self {
            SiteKind::Load => "load",
            SiteKind::Store => "store",
            SiteKind::Atomic => "atomic",
            SiteKind::Barrier => "barrier",
        }
    }
}

/// One access site: an expression of the source that reads or writes memory, with its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Where the access's expression begins.
    pub pos: Pos,
    /// Load, store, atomic, or a barrier.
    pub kind: SiteKind,
    /// Global or shared memory.
    pub space: Space,
    /// Bytes per lane.
    pub elem: u64,
    /// For a struct copied field by field, which field (0 otherwise).
    pub part: u32,
}

/// One warp's execution of one access site: which warp, its lanes' addresses and its cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpExecution {
    /// The access site (an index into the analysis's sites).
    pub site: usize,
    /// The block's `(x, y, z)`.
    pub block: [u64; 3],
    /// The warp within its block.
    pub warp: u32,
    /// Which of this warp's executions of this site it is, from 1: a loop's passes over one
    /// access are 1, 2, …
    pub pass: u32,
    /// Active lanes, bit `t` for lane `t`.
    pub mask: u64,
    /// Each active lane's first byte, lowest lane first.
    pub addresses: Vec<u64>,
    /// Its cost, cold: sectors and their ideal, or wavefronts.
    pub cost: Cost,
}

impl WarpExecution {
    /// The calculator's `addrs=` text: one address per lane of a `width`-lane warp, `-` for an
    /// inactive lane. With the site's `elem` and space, the calculator shows the same cost.
    ///
    /// ```
    /// use coalescing_lab::model::cuda::run::WarpExecution;
    /// let w = WarpExecution { site: 0, block: [0; 3], warp: 0, pass: 1, mask: 0b101, addresses: vec![16, 48],
    ///     cost: Default::default() };
    /// assert_eq!(w.calculator_addrs(4), "16,-,48,-");
    /// ```
    pub fn calculator_addrs(&self, width: u32) -> String {
        let mut next = self.addresses.iter();
        (0..width.min(64))
            .map(|t| {
                if self.mask >> t & 1 == 1 {
                    next.next().map_or_else(|| "-".to_string(), u64::to_string)
                } else {
                    "-".to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The lanes of `mask` given their addresses in order (`compact`), spread to one entry per
/// lane; entries of inactive lanes are 0.
fn spread(mask: u64, compact: &[u64]) -> [u64; crate::model::LANES] {
    let mut lanes = [0u64; crate::model::LANES];
    let mut rest = mask;
    for a in compact {
        let t = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if let Some(slot) = lanes.get_mut(t) {
            *slot = *a;
        }
    }
    lanes
}

/// The warp core's access kind for a site's: an atomic is counted as a store (with
/// [`Tally::atomic`] for its fetch).
fn access_kind(kind: SiteKind) -> AccessKind {
    if kind == SiteKind::Load {
        AccessKind::Load
    } else {
        AccessKind::Store
    }
}

/// What the interpreter keeps across warps and blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shared {
    /// Sites by first execution.
    pub(crate) sites: Vec<Site>,
    site_index: HashMap<(Pos, SiteKind, u32), u32>,
    /// Struct instances by their written name.
    pub(crate) structs: HashMap<String, Rc<StructTy>>,
    /// Offsets of static `__shared__` arrays by their declarator's position.
    pub(crate) shared_offsets: HashMap<Pos, u64>,
    /// Bytes of static shared memory laid out so far.
    pub(crate) shared_bytes: u64,
    /// Global constants, evaluated once.
    pub(crate) constants: HashMap<String, (Ty, Lanes)>,
    /// Lines whose branch depends on a loaded value, taken by every lane that reaches it.
    pub(crate) assumed: BTreeSet<u32>,
    /// Races and out-of-bounds accesses found so far, and what they are checked against.
    pub(crate) checks: check::Checks,
    /// Whether the launch's declared lengths are in `checks`.
    pub(crate) extents_known: bool,
    /// How deep type resolution is nested now (aliases, fields, template arguments).
    pub(crate) type_depth: u32,
    /// Global constants being evaluated now, to refuse one defined through itself.
    pub(crate) evaluating: Vec<String>,
    /// Whether the kernel's static shared arrays have their offsets.
    pub(crate) shared_laid_out: bool,
    /// Whether a `__constant__` read was met (not counted).
    pub(crate) constant_reads: bool,
    /// Every value held once or lane by lane, never as a line: the general path the fast
    /// paths are tested against ([`CudaJob::general_paths`]).
    pub(crate) general_only: bool,
    /// Loop iterations one warp may run in all, when lower than [`MAX_WARP_ITERATIONS`]
    /// ([`CudaJob::iteration_budget`]); 0 for the default.
    pub(crate) iteration_budget: u64,
}

impl Shared {
    pub(crate) fn site(
        &mut self,
        pos: Pos,
        kind: SiteKind,
        space: Space,
        elem: u64,
        part: u32,
    ) -> u32 {
        if let Some(&s) = self.site_index.get(&(pos, kind, part)) {
            return s;
        }
        let s = self.sites.len() as u32;
        self.sites.push(Site {
            pos,
            kind,
            space,
            elem,
            part,
        });
        self.site_index.insert((pos, kind, part), s);
        s
    }
}

/// What one warp did, in order: its accesses (the addresses of each one's active lanes in
/// `addresses`, lowest lane first) and the barriers it reached.
#[derive(Clone, Debug, Default)]
pub(crate) struct Events {
    pub(crate) list: Vec<Event>,
    pub(crate) addresses: Vec<u64>,
}

impl Events {
    /// Event `k` when it is an access, with its active lanes' addresses.
    pub(crate) fn access(&self, k: usize) -> Option<Recorded<'_>> {
        let Event::Access {
            site,
            kind,
            space,
            elem,
            mask,
            at,
            ..
        } = *self.list.get(k)?
        else {
            return None;
        };
        let compact = self.addresses.get(at..at + mask.count_ones() as usize)?;
        Some(Recorded {
            site,
            kind,
            space,
            elem,
            mask,
            compact,
        })
    }
}

/// One access a warp recorded, with its active lanes' addresses, lowest lane first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded<'a> {
    pub(crate) site: u32,
    pub(crate) kind: SiteKind,
    space: Space,
    elem: u64,
    pub(crate) mask: u64,
    pub(crate) compact: &'a [u64],
}

impl Recorded<'_> {
    /// The warp core's access of warp `warp` of block `block` (linear), with every lane's
    /// address in `lanes`.
    fn warp_access<'l>(&self, block: u64, warp: u32, lanes: &'l [u64]) -> WarpAccess<'l> {
        WarpAccess {
            site: self.site as usize,
            kind: access_kind(self.kind),
            space: self.space,
            elem: self.elem,
            block,
            warp,
            mask: self.mask,
            addresses: lanes,
        }
    }

    /// The page's row of this execution, the warp's `pass`-th of its site, at its cost.
    fn execution(&self, block: [u64; 3], warp: u32, pass: u32, cost: Cost) -> WarpExecution {
        WarpExecution {
            site: self.site as usize,
            block,
            warp,
            pass,
            mask: self.mask,
            addresses: self.compact.to_vec(),
            cost,
        }
    }
}

/// One event of a warp.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// A memory access: its site, and where its lanes' addresses begin. `same_value`: a
    /// store whose lanes all store one known value.
    Access {
        site: u32,
        kind: SiteKind,
        space: Space,
        elem: u64,
        mask: u64,
        at: usize,
        same_value: bool,
    },
    /// `__syncwarp()`: orders the lanes of the warp.
    SyncWarp,
    /// `__syncthreads()` reached by the lanes of `mask`.
    Barrier {
        site: u32,
        mask: u64,
        pos: Pos,
        /// The line of the innermost `if` or loop around it, if any.
        branch: Option<u32>,
    },
}

/// What the run is given: the parsed source, the launch, the machine.
#[derive(Debug)]
pub(crate) struct Program {
    pub(crate) unit: Unit,
    pub(crate) kernel: usize,
    pub(crate) bindings: Rc<Bindings>,
    pub(crate) launch: Launch,
    pub(crate) allocations: Vec<Allocation>,
    pub(crate) machine: Machine,
    /// `__device__` globals: their bases.
    pub(crate) device_globals: HashMap<String, u64>,
}

/// A source's figures: per access site, per line, and for the whole launch.
#[derive(Clone, Debug, PartialEq)]
pub struct CudaAnalysis {
    /// Each access site, in order of first execution, with its figures.
    pub sites: Vec<(Site, Figures)>,
    /// Each line with an access, ascending, with the sums of its sites' figures (distinct
    /// sectors summed over its sites).
    pub lines: Vec<(u32, Figures)>,
    /// The whole launch.
    pub total: Figures,
    /// Lines whose branch depends on a loaded value and was taken by every lane reaching it.
    pub assumed: Vec<u32>,
    /// What the page says beside the figures: what was skipped, what was not counted.
    pub notes: Vec<String>,
    /// Blocks, warps per block, threads per block.
    pub shape: (u64, u32, u64),
    /// Shared-memory races, each pair of sites once, in site order.
    pub races: Vec<check::Race>,
    /// Accesses outside a shared array or a declared allocation, one per site.
    pub out_of_bounds: Vec<check::OutOfBounds>,
    /// The worst warp executions by each measure, in [`Measure::ALL`]'s order, most first.
    pub worst: Vec<Vec<WarpExecution>>,
    /// Each measure per (block, warp), summed over the warp's accesses, binned for big grids.
    pub heat: HeatMap,
    /// The launched kernel's name.
    pub kernel: String,
}

impl CudaAnalysis {
    /// The worst warp executions by `measure`, most first.
    pub fn worst_by(&self, measure: Measure) -> &[WarpExecution] {
        let k = Measure::ALL.iter().position(|m| *m == measure).unwrap_or(0);
        self.worst.get(k).map_or(&[], Vec::as_slice)
    }
}

/// A launch of a kernel read from source, resumable warp by warp.
///
/// ```
/// use coalescing_lab::model::cuda::run::CudaJob;
/// use coalescing_lab::model::Machine;
/// let src = "__global__ void copy(float* out, const float* in) {\n\
///            int i = blockIdx.x * blockDim.x + threadIdx.x;\n  out[i] = in[i];\n}\n";
/// let mut job = CudaJob::new(src, "copy<<<2, 64>>>(out, in)", Machine::default(), 0, 700).unwrap();
/// while !job.step(3).unwrap() {}
/// let a = job.finish();
/// assert_eq!((a.total.requests, a.total.sectors, a.total.ideal_sectors), (8, 32, 32));
/// assert_eq!(a.sites.len(), 2);
/// ```
#[derive(Debug)]
pub struct CudaJob {
    program: Program,
    shared: Shared,
    tally: Tally<WarpExecution>,
    events: Vec<Events>,
    warps_per_block: u32,
    blocks: u64,
    block: u64,
    warp: u32,
    lane_accesses: u64,
    block_lane_accesses: u64,
    failed: Option<CudaFailure>,
    finished: bool,
    /// Each held access of the block: its warp, its event and its pass.
    order: RoundRobin<(usize, usize, u32)>,
    /// Executions so far in this block, `passes[warp × sites + site]`: the next pass's number
    /// less one.
    passes: Vec<u32>,
}

/// The launch's kernel and its template bindings.
fn find_kernel(unit: &Unit, launch: &Launch) -> Result<usize, CudaFailure> {
    let found = unit.items.iter().position(|i| {
        matches!(i, Item::Function(f) if f.spaces.global && f.name == launch.kernel && !f.body.is_empty())
    });
    if let Some(k) = found {
        return Ok(k);
    }
    // The launched kernel was skipped: its own error is the answer.
    for s in &unit.skipped {
        if let Skipped::Unread { name, error } = s {
            if *name == launch.kernel {
                return Err(CudaFailure::Source(error.clone()));
            }
        }
    }
    Err(CudaFailure::Run(RunError::at(
        Pos { line: 1, column: 1 },
        RunErrorKind::NoKernel {
            name: launch.kernel.clone(),
            kernels: unit.kernels().map(|k| k.name.clone()).collect(),
        },
    )))
}

impl CudaJob {
    /// Reads `source` and `launch` and prepares the run on `machine` with a `cache_bytes`
    /// cache (0 for none), for `__CUDA_ARCH__` `arch`.
    pub fn new(
        source: &str,
        launch: &str,
        machine: Machine,
        cache_bytes: u64,
        arch: u32,
    ) -> Result<CudaJob, CudaFailure> {
        let unit = parse(source, arch).map_err(CudaFailure::Source)?;
        let launch = parse_launch(launch).map_err(CudaFailure::Launch)?;
        let allocations = launch.allocations().map_err(CudaFailure::Launch)?;
        let kernel = find_kernel(&unit, &launch)?;
        let threads: u64 = launch.block.iter().product();
        let blocks: u64 = launch.grid.iter().product();
        let launch_error = |why: String| {
            CudaFailure::Run(RunError::at(
                Pos { line: 1, column: 1 },
                RunErrorKind::Launch(why),
            ))
        };
        if threads == 0 || blocks == 0 {
            return Err(launch_error("the launch has no threads".into()));
        }
        if launch.shared_bytes > MAX_SHARED_BYTES {
            return Err(launch_error(format!(
                "{} bytes of dynamic shared memory; a block has at most {MAX_SHARED_BYTES}",
                launch.shared_bytes
            )));
        }
        if threads > MAX_THREADS_PER_BLOCK {
            return Err(launch_error(format!(
                "a block has {threads} threads; at most {MAX_THREADS_PER_BLOCK}"
            )));
        }
        if blocks.saturating_mul(threads) > MAX_LANE_ACCESSES {
            return Err(CudaFailure::Run(RunError::at(
                Pos { line: 1, column: 1 },
                RunErrorKind::TooLarge {
                    limit: MAX_LANE_ACCESSES,
                },
            )));
        }
        let mut device_globals = HashMap::new();
        let mut next = allocations.len() as u64 + 1;
        for item in &unit.items {
            if let Item::Global(d) = item {
                if d.storage.device && !d.storage.constexpr {
                    for dec in &d.declarators {
                        device_globals.insert(
                            dec.name.clone(),
                            super::parse::launch::ALLOCATION_STRIDE * next,
                        );
                        next += 1;
                    }
                }
            }
        }
        let mut program = Program {
            unit,
            kernel,
            bindings: Rc::new(Bindings::default()),
            launch,
            allocations,
            machine,
            device_globals,
        };
        let mut shared = Shared::default();
        program.bindings =
            Rc::new(warp::bind_launch_template(&program, &mut shared).map_err(CudaFailure::Run)?);
        // Check the arguments once, before any warp runs.
        warp::launch_arguments(&program, &mut shared).map_err(CudaFailure::Run)?;
        let warps_per_block = threads.div_ceil(u64::from(machine.warp)) as u32;
        let tally = Tally::new(TallyOptions {
            machine,
            cache_bytes,
            unique_sites: Some(usize::MAX >> 1),
            heat: Some((blocks, warps_per_block)),
            worst: true,
        });
        Ok(CudaJob {
            program,
            shared,
            tally,
            events: vec![Events::default(); warps_per_block as usize],
            warps_per_block,
            blocks,
            block: 0,
            warp: 0,
            lane_accesses: 0,
            block_lane_accesses: 0,
            failed: None,
            finished: false,
            order: RoundRobin::default(),
            passes: Vec::new(),
        })
    }

    /// Warps run, and in all.
    pub fn progress(&self) -> (u64, u64) {
        let per = u64::from(self.warps_per_block);
        (self.block * per + u64::from(self.warp), self.blocks * per)
    }

    /// Turns the fast paths off: every value is then held once or lane by lane, never as a
    /// line, and all arithmetic goes lane by lane. For tests that the fast paths change no
    /// figure; call it before the first [`CudaJob::step`].
    #[doc(hidden)]
    pub fn general_paths(&mut self) {
        self.shared.general_only = true;
    }

    /// Lowers the loop iterations one warp may run in all (nested loops counted together) from
    /// [`MAX_WARP_ITERATIONS`] to `iterations`: for the fuzz target, whose endless loops would
    /// otherwise take seconds each. Call it before the first [`CudaJob::step`].
    #[doc(hidden)]
    pub fn iteration_budget(&mut self, iterations: u64) {
        self.shared.iteration_budget = iterations.min(MAX_WARP_ITERATIONS);
    }

    /// Runs up to `budget` more warps (at least one). True when the launch is complete; an
    /// error stops the job for good, and every later call returns it again.
    pub fn step(&mut self, budget: u64) -> Result<bool, CudaFailure> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        for _ in 0..budget.max(1) {
            if self.block >= self.blocks {
                break;
            }
            if let Err(e) = self.one_warp() {
                let e = CudaFailure::Run(e);
                self.failed = Some(e.clone());
                return Err(e);
            }
        }
        if self.block >= self.blocks && !self.finished {
            self.finished = true;
            self.tally.finish();
        }
        Ok(self.finished)
    }

    fn one_warp(&mut self) -> Result<(), RunError> {
        let w = self.warp as usize;
        let Some(events) = self.events.get_mut(w) else {
            return Err(RunError::at(
                Pos::default(),
                RunErrorKind::Internal("warp index"),
            ));
        };
        events.list.clear();
        events.addresses.clear();
        let made = warp::run_warp(
            &self.program,
            &mut self.shared,
            self.block,
            self.warp,
            events,
            MAX_BLOCK_LANE_ACCESSES - self.block_lane_accesses,
        )?;
        self.block_lane_accesses += made;
        self.lane_accesses += made;
        if self.lane_accesses > MAX_LANE_ACCESSES {
            return Err(RunError::at(
                Pos::default(),
                RunErrorKind::TooLarge {
                    limit: MAX_LANE_ACCESSES,
                },
            ));
        }
        self.warp += 1;
        if self.warp >= self.warps_per_block {
            self.drain_block()?;
            self.warp = 0;
            self.block += 1;
            self.block_lane_accesses = 0;
        }
        Ok(())
    }

    /// Checks the block's barriers and feeds its accesses to the tally, round robin between
    /// barriers.
    fn drain_block(&mut self) -> Result<(), RunError> {
        let threads: u64 = self.program.launch.block.iter().product();
        let width = u64::from(self.program.machine.warp);
        let present = |w: usize| -> u64 {
            let first = w as u64 * width;
            let n = threads.saturating_sub(first).min(width);
            if n >= 64 {
                u64::MAX
            } else {
                (1u64 << n) - 1
            }
        };
        // The barriers of warp 0 are the block's; every warp must reach the same ones with
        // every lane.
        let barriers = |e: &Events| -> Vec<(u32, u64, Pos, Option<u32>)> {
            e.list
                .iter()
                .filter_map(|ev| match *ev {
                    Event::Barrier {
                        site,
                        mask,
                        pos,
                        branch,
                    } => Some((site, mask, pos, branch)),
                    Event::Access { .. } | Event::SyncWarp => None,
                })
                .collect()
        };
        let first = self.events.first().map(barriers).unwrap_or_default();
        let block_idx = warp::block_index(&self.program, self.block);
        for (w, e) in self.events.iter().enumerate() {
            let mine = barriers(e);
            let full = present(w);
            for k in 0..mine.len().max(first.len()) {
                let (a, b) = (first.get(k), mine.get(k));
                let lane_tid = |lane: u32| w as u64 * width + u64::from(lane);
                let (pos, differs, reaches, branch) = match (a, b) {
                    (Some(&(sa, _, _, _)), Some(&(sb, mb, pb, bb))) => {
                        if mb != full {
                            (pb, lane_tid((!mb & full).trailing_zeros()), false, bb)
                        } else if sa != sb {
                            (pb, lane_tid(0), true, bb)
                        } else {
                            continue;
                        }
                    }
                    (Some(&(_, _, pa, ba)), None) => (pa, lane_tid(0), false, ba),
                    (None, Some(&(_, _, pb, bb))) => (pb, lane_tid(0), true, bb),
                    (None, None) => continue,
                };
                let thread = warp::thread_of(&self.program, differs);
                return Err(RunError {
                    pos,
                    thread: Some((block_idx, thread)),
                    kind: Box::new(RunErrorKind::Barrier {
                        differs: thread,
                        reaches,
                        branch,
                    }),
                });
            }
        }
        if !self.shared.checks.arrays.is_empty() {
            self.shared.checks.races(&self.events, block_idx);
        }
        // Segments between barriers, round robin.
        let mut cursors = vec![0usize; self.events.len()];
        let block = self.block;
        let sites = self.shared.sites.len();
        self.passes.clear();
        self.passes.resize(self.events.len() * sites, 0);
        for segment in 0..=first.len() {
            for (w, e) in self.events.iter().enumerate() {
                let c = &mut cursors[w];
                while let Some(ev) = e.list.get(*c) {
                    *c += 1;
                    match ev {
                        Event::Access { site, .. } => {
                            // Events arrive in the warp's own order, so this counts its passes.
                            let pass =
                                self.passes
                                    .get_mut(w * sites + *site as usize)
                                    .map_or(1, |n| {
                                        *n += 1;
                                        *n
                                    });
                            self.order.push(w, (w, *c - 1, pass));
                        }
                        Event::SyncWarp => {}
                        Event::Barrier { .. } => break,
                    }
                }
            }
            let events = &self.events;
            let tally = &mut self.tally;
            let mut failure = None;
            let width = width as usize;
            self.order.drain(|(w, k, pass)| {
                let Some(r) = events.get(w).and_then(|e| e.access(k)) else {
                    return;
                };
                let lanes = spread(r.mask, r.compact);
                let row = |cost: &Cost| r.execution(block_idx, w as u32, pass, *cost);
                let access =
                    r.warp_access(block, w as u32, &lanes[..width.min(crate::model::LANES)]);
                let (site, kind) = (r.site, r.kind);
                let counted = if kind == SiteKind::Atomic {
                    tally.atomic(&access, row)
                } else {
                    tally.access(&access, row)
                };
                if let Err(e) = counted {
                    failure.get_or_insert((site, w, e));
                }
            });
            if let Some((site, w, e)) = failure {
                let pos = self
                    .shared
                    .sites
                    .get(site as usize)
                    .map_or(Pos::default(), |s| s.pos);
                let thread =
                    warp::thread_of(&self.program, w as u64 * width as u64 + u64::from(e.0));
                return Err(RunError {
                    pos,
                    thread: Some((block_idx, thread)),
                    kind: Box::new(RunErrorKind::Type(
                        "this access's bytes run past the top of the 64-bit address space".into(),
                    )),
                });
            }
            if let Some(&(site, _, _, _)) = first.get(segment) {
                self.tally.barrier(site as usize);
            }
        }
        Ok(())
    }

    /// The figures, once [`CudaJob::step`] has returned true.
    pub fn finish(&self) -> CudaAnalysis {
        let sites: Vec<(Site, Figures)> = self
            .shared
            .sites
            .iter()
            .enumerate()
            .map(|(k, s)| (s.clone(), self.tally.figures(k)))
            .collect();
        let mut by_line: std::collections::BTreeMap<u32, (SiteCounts, u64)> = Default::default();
        for (k, (s, f)) in sites.iter().enumerate() {
            let e = by_line.entry(s.pos.line).or_default();
            e.0.add(&self.tally.counts(k));
            e.1 += f.unique_sectors;
        }
        let lines = by_line
            .into_iter()
            .map(|(line, (c, unique))| (line, self.tally.figures_of(&c, unique)))
            .collect();
        let mut notes = Vec::new();
        let host: Vec<String> = self
            .program
            .unit
            .skipped
            .iter()
            .filter_map(|s| match s {
                Skipped::Host { name, line } => Some(format!("{name} (line {line})")),
                Skipped::HostDecl { line } => Some(format!("a host declaration (line {line})")),
                Skipped::Unread { .. } => None,
            })
            .collect();
        if !host.is_empty() || !self.program.unit.includes.is_empty() {
            let includes: Vec<String> = self
                .program
                .unit
                .includes
                .iter()
                .map(|(line, name)| format!("#include {name} (line {line})"))
                .collect();
            notes.push(format!(
                "Host code is skipped: {}.",
                host.into_iter()
                    .chain(includes)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        for s in &self.program.unit.skipped {
            if let Skipped::Unread { name, error } = s {
                notes.push(format!(
                    "{name} is skipped, outside the subset this page reads ({error}); the launched kernel does not need it."
                ));
            }
        }
        if self.shared.constant_reads {
            notes.push(
                "Reads of __constant__ memory are not counted: they go through the constant \
                 cache, not the sectors of global memory."
                    .into(),
            );
        }
        let threads: u64 = self.program.launch.block.iter().product();
        CudaAnalysis {
            sites,
            lines,
            total: self.tally.total(),
            assumed: self.shared.assumed.iter().copied().collect(),
            notes,
            shape: (self.blocks, self.warps_per_block, threads),
            races: self.shared.checks.races.values().cloned().collect(),
            out_of_bounds: self.shared.checks.oob.values().cloned().collect(),
            worst: Measure::ALL.iter().map(|m| self.tally.worst(*m)).collect(),
            heat: self
                .tally
                .heat()
                .cloned()
                .unwrap_or_else(|| HeatMap::new(self.blocks, self.warps_per_block)),
            kernel: self.kernel().name.clone(),
        }
    }

    /// Every access warp `warp` of block `block` (linear) makes, in its order: for the page's
    /// drill-down into one execution. The warp runs on its own (warps never influence each
    /// other here), so this is what the launch saw.
    pub fn warp_executions(&self, block: u64, warp: u32) -> Result<Vec<WarpExecution>, RunError> {
        if block >= self.blocks || warp >= self.warps_per_block {
            return Err(RunError::at(
                Pos::default(),
                RunErrorKind::Launch(format!(
                    "block {block}, warp {warp} is outside the launch's {} blocks of {} warps",
                    self.blocks, self.warps_per_block
                )),
            ));
        }
        let mut shared = self.shared.clone();
        let mut events = Events::default();
        warp::run_warp(
            &self.program,
            &mut shared,
            block,
            warp,
            &mut events,
            MAX_BLOCK_LANE_ACCESSES,
        )?;
        let machine = self.program.machine;
        let mut scratch = crate::model::warp::Scratch::default();
        let shift = machine.sector_bytes.trailing_zeros();
        let block_idx = warp::block_index(&self.program, block);
        let mut out = Vec::new();
        let width = (machine.warp as usize).min(crate::model::LANES);
        let mut passes = vec![0u32; shared.sites.len()];
        for k in 0..events.list.len() {
            let Some(r) = events.access(k) else {
                continue;
            };
            let lanes = spread(r.mask, r.compact);
            let access = r.warp_access(block, warp, &lanes[..width]);
            let cost = scratch.measure(&access, shift).unwrap_or_default();
            let pass = passes.get_mut(r.site as usize).map_or(1, |n| {
                *n += 1;
                *n
            });
            out.push(r.execution(block_idx, warp, pass, cost));
        }
        Ok(out)
    }

    /// The kernel's parameters as the source declares them, for proposing a launch.
    pub fn kernel(&self) -> &Function {
        match self.program.unit.items.get(self.program.kernel) {
            Some(Item::Function(f)) => f,
            _ => unreachable_kernel(),
        }
    }
}

#[cold]
fn unreachable_kernel() -> &'static Function {
    // `find_kernel` returned the index of a function; a job never holds another.
    static EMPTY: std::sync::OnceLock<Function> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| Function {
        name: String::new(),
        pos: Pos::default(),
        spaces: Default::default(),
        template: None,
        specialises: None,
        ret: super::ast::Type::of(super::ast::Base::Void),
        params: Vec::new(),
        body: Vec::new(),
    })
}

/// Runs a whole launch at once: for tests and the command line.
pub fn analyse(
    source: &str,
    launch: &str,
    machine: Machine,
    cache_bytes: u64,
    arch: u32,
) -> Result<CudaAnalysis, CudaFailure> {
    let mut job = CudaJob::new(source, launch, machine, cache_bytes, arch)?;
    while !job.step(1 << 10)? {}
    Ok(job.finish())
}

/// The template parameter names of a kernel, for the launch's explicit arguments.
pub(crate) fn template_params(f: &Function) -> &[TemplateParam] {
    f.template.as_deref().unwrap_or(&[])
}

/// Launch arguments that are buffers, by position.
pub(crate) fn buffer(arg: &LaunchArg) -> Option<(&str, i64)> {
    match arg {
        LaunchArg::Buffer { name, offset, .. } => Some((name, *offset)),
        LaunchArg::Value(_) => None,
    }
}

/// A launch the page proposes for a source with one kernel and no launch yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// The launch's text: one block of 256 threads, a buffer per pointer parameter, and each
    /// value the kernel needs written as its parameter's name, to be replaced.
    pub launch: String,
    /// The template parameters and scalar parameters still to be given, in order.
    pub missing: Vec<String>,
}

/// The launch to propose when `source` has exactly one `__global__` kernel; `None` with none
/// or several.
///
/// ```
/// use coalescing_lab::model::cuda::run::propose_launch;
/// let p = propose_launch("template <int B> __global__ void k(float* out, const float* in, int n) { out[0] = in[n]; }", 700)
///     .unwrap().unwrap();
/// assert_eq!(p.launch, "k<B><<<1, 256>>>(out, in, n)");
/// assert_eq!(p.missing, ["B", "n"]);
/// // Degenerate input: no kernel, nothing to propose.
/// assert_eq!(propose_launch("__device__ int f() { return 1; }", 700).unwrap(), None);
/// ```
pub fn propose_launch(source: &str, arch: u32) -> Result<Option<Proposal>, CudaFailure> {
    let unit = parse(source, arch).map_err(CudaFailure::Source)?;
    let mut kernels = unit.kernels().filter(|k| !k.body.is_empty());
    let (Some(k), None) = (kernels.next(), kernels.next()) else {
        return Ok(None);
    };
    let mut missing = Vec::new();
    let mut targs = Vec::new();
    for p in template_params(k) {
        let (name, has_default) = match p {
            TemplateParam::Type { name, default } => (name, default.is_some()),
            TemplateParam::Value { name, default, .. } => (name, default.is_some()),
        };
        if !has_default {
            targs.push(name.clone());
            missing.push(name.clone());
        }
    }
    let mut args = Vec::new();
    for (n, p) in k.params.iter().enumerate() {
        let name = p.name.clone().unwrap_or_else(|| format!("arg{n}"));
        if p.ty.pointers == 0 {
            missing.push(name.clone());
        }
        args.push(name);
    }
    let targs = if targs.is_empty() {
        String::new()
    } else {
        format!("<{}>", targs.join(", "))
    };
    Ok(Some(Proposal {
        launch: format!("{}{targs}<<<1, 256>>>({})", k.name, args.join(", ")),
        missing,
    }))
}
