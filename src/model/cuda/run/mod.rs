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
//! - `events`: what a warp records, its accesses and barriers, for its block's replay;
//! - `analysis`: the figures, per site, per line and for the launch, and one warp's accesses;
//! - `check`: races and out-of-bounds accesses;
//! - `replay`: a block's held accesses into the tally, round robin between barriers, and
//!   the barrier rule;
//! - `propose`: the launch to propose for a file's one kernel;
//! - `program`: a whole program: `main()` on the host, each launch it makes, its console;
//! - `error`: why a run stops.
//!
//! This file is the launch as a resumable job: preparing it and running its warps.

mod analysis;
pub mod check;
mod device_memory;
mod error;
mod events;
pub mod program;
mod propose;
mod replay;
mod ty;
mod value;
mod warp;

pub use analysis::{CudaAnalysis, Placement, Site, SiteKind, WarpExecution};
use events::spread;
pub(crate) use events::{Access, Event, Events};
pub use propose::{propose_for, propose_launch, Proposal};

use super::ast::{Function, Item, Skipped, TemplateParam, Unit};
use super::cint::Int;
use super::error::{CudaError, Pos};
use super::files::Sources;
use super::parse::launch::{parse_launch_in, Allocation, Launch, LaunchArg, LaunchError};
use super::parse::{parse, parse_files};
use super::pre::{Defines, DefinesError};
use crate::model::machine::{AccessKind, Machine, Space};
use crate::model::warp::{
    Cost, Figures, HeatMap, Measure, RoundRobin, SiteCounts, Tally, TallyOptions, WarpAccess,
};
pub use error::{Apart, Projection, RunError, RunErrorKind, Shrink};
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
    /// The defines given beside the source do not read.
    Defines(DefinesError),
    /// The run stopped.
    Run(RunError),
}

impl fmt::Display for CudaFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaFailure::Source(e) => write!(f, "source, {e}"),
            CudaFailure::Launch(e) => write!(f, "{e}"),
            CudaFailure::Defines(e) => write!(f, "{e}"),
            CudaFailure::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CudaFailure {}

/// What tells one site from another: where, what, in which space, and which part. A device
/// function called with a global pointer at one call and a shared one at another has a site
/// per space at the same place: one row labelled with the first call's space miscounted the
/// other's requests as its own.
type SiteKey = (Pos, SiteKind, Space, u32);

/// Entries of [`Shared`]'s memo of sites.
const SITE_MEMO: usize = 32;

/// What the interpreter keeps across warps and blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shared {
    /// Sites by first execution.
    pub(crate) sites: Vec<Site>,
    site_index: HashMap<SiteKey, u32>,
    /// A direct-mapped memo in front of `site_index`: every warp access asks for its site,
    /// and SipHash on each cost more than the rest of the lookup (#26).
    site_memo: [Option<(SiteKey, u32)>; SITE_MEMO],
    /// Struct instances by their written name.
    pub(crate) structs: HashMap<String, Rc<StructTy>>,
    /// Every struct resolved, emptied when the last copy of this state goes (`ty::StructArena`).
    pub(crate) arena: Rc<ty::StructArena>,
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
    /// Each warp runs to its end, barriers parking none: the walk that the barrier-by-barrier
    /// run is tested against ([`CudaJob::whole_warps`]).
    pub(crate) whole_warps: bool,
    /// Global memory's values, for the launch: shared until written, so that a copy of this
    /// state (a drill-down's, the launch's start) costs nothing until it differs.
    pub(crate) global: Rc<device_memory::Memory>,
    /// The running block's shared memory's values.
    pub(crate) shared_memory: device_memory::Memory,
    /// Whether a load has given a known value from memory: then a warp's run depends on what
    /// other warps and blocks stored before it, and a drill-down replays the launch up to it.
    pub(crate) values_read: bool,
    /// What device `printf` printed, call by call.
    pub(crate) output: DeviceOutput,
    /// Whether a device `printf` printed a value the model does not know, as `?`.
    pub(crate) output_unknown: bool,
    /// The program's state, when host code runs ([`program`]).
    pub(crate) host: Option<Box<program::HostState>>,
}

/// Bytes of device `printf` output kept: CUDA's printf buffer is 1 MiB by default
/// (`cudaLimitPrintfFifoSize`), circular, and older output is overwritten when more is printed
/// during a launch (CUDA C++ Programming Guide, "Formatted Output").
pub const PRINTF_BUFFER_BYTES: usize = 1 << 20;

/// Device `printf`'s output: each call's text, in the order the calls ran, the oldest dropped
/// past [`PRINTF_BUFFER_BYTES`].
#[derive(Clone, Debug, Default)]
pub(crate) struct DeviceOutput {
    calls: std::collections::VecDeque<Vec<u8>>,
    bytes: usize,
    /// Calls whose text was dropped.
    pub(crate) lost: u64,
    /// The line of the first `printf` whose format is not a string literal, printed nothing.
    pub(crate) unread: Option<u32>,
}

impl DeviceOutput {
    /// One call's text.
    pub(crate) fn push(&mut self, text: Vec<u8>) {
        self.bytes += text.len();
        self.calls.push_back(text);
        while self.bytes > PRINTF_BUFFER_BYTES {
            match self.calls.pop_front() {
                Some(old) => {
                    self.bytes -= old.len();
                    self.lost += 1;
                }
                None => break,
            }
        }
    }

    /// All the text kept, as UTF-8 (a byte that is not shows as U+FFFD).
    pub(crate) fn text(&self) -> String {
        let bytes: Vec<u8> = self.calls.iter().flatten().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
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
        let key = (pos, kind, space, part);
        let memo = (pos.line as usize)
            .wrapping_mul(7)
            .wrapping_add(pos.column as usize)
            .wrapping_add(part as usize)
            .wrapping_add(kind as usize)
            .wrapping_add(space as usize * 3)
            % SITE_MEMO;
        if let Some((k, s)) = self.site_memo[memo] {
            if k == key {
                return s;
            }
        }
        let s = match self.site_index.get(&key) {
            Some(&s) => s,
            None => {
                let s = self.sites.len() as u32;
                self.sites.push(Site { pos, kind, space, elem, part });
                self.site_index.insert(key, s);
                s
            }
        };
        self.site_memo[memo] = Some((key, s));
        s
    }
}

/// What the run is given: the parsed source, the launch, the machine.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) unit: Rc<Unit>,
    pub(crate) kernel: usize,
    pub(crate) bindings: Rc<Bindings>,
    pub(crate) launch: Launch,
    pub(crate) allocations: Vec<Allocation>,
    pub(crate) machine: Machine,
    /// `__device__` globals: their bases.
    pub(crate) device_globals: HashMap<String, u64>,
    /// The arguments host code passed, when a program's launch runs: bound to the kernel's
    /// parameters in place of the launch field's.
    pub(crate) given: Option<Rc<Vec<warp::Value>>>,
    /// The program's live device allocations, name, base and bytes, for the bounds check.
    pub(crate) heap: Vec<(String, u64, u64)>,
}

/// What a program's host code gives its launch besides the launch itself.
struct Given {
    args: Option<Rc<Vec<warp::Value>>>,
    heap: Vec<(String, u64, u64)>,
    global: Rc<device_memory::Memory>,
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
    /// What `shared` held before the first warp: memory as the launch found it, for a
    /// drill-down that runs the launch again.
    start: Shared,
    tally: Tally<WarpExecution>,
    events: Vec<Events>,
    /// Each warp of the block parked at a barrier, where it waits for the others.
    parked: Vec<Option<warp::Parked>>,
    /// The block's barrier phase: 0 before its first barrier; each later round runs each
    /// parked warp to its next barrier.
    phase: u32,
    /// Whether a warp of this round parked: another round follows.
    any_parked: bool,
    /// Warps parked at a barrier so far, all blocks together.
    parks: u64,
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

/// Reads `source` for `__CUDA_ARCH__` `arch`: preprocessed and parsed once, for any number
/// of launches ([`CudaJob::of_unit`]).
pub fn read_source(source: &str, arch: u32) -> Result<Rc<Unit>, CudaFailure> {
    read_source_with(source, arch, &Defines::default())
}

/// Reads `source` as [`read_source`] does, with `defines` given beside it (as nvcc's `-D`).
pub fn read_source_with(
    source: &str,
    arch: u32,
    defines: &Defines,
) -> Result<Rc<Unit>, CudaFailure> {
    read_files(source, arch, defines, Sources::single())
}

/// Reads `source` as [`read_source_with`] does, its `#include "…"` lines read from `sources`.
pub fn read_files(
    source: &str,
    arch: u32,
    defines: &Defines,
    sources: Sources<'_>,
) -> Result<Rc<Unit>, CudaFailure> {
    parse_files(source, arch, defines, sources)
        .map(Rc::new)
        .map_err(CudaFailure::Source)
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
        let unit = read_source(source, arch)?;
        CudaJob::of_unit(unit, launch, machine, cache_bytes)
    }

    /// Prepares the run of `launch` on a source already read ([`read_source`]): the page reads
    /// a source once per edit of it, not once per edit of the launch or the cache.
    pub fn of_unit(
        unit: Rc<Unit>,
        launch: &str,
        machine: Machine,
        cache_bytes: u64,
    ) -> Result<CudaJob, CudaFailure> {
        let launch = parse_launch_in(launch, &unit).map_err(CudaFailure::Launch)?;
        let allocations = launch.allocations().map_err(CudaFailure::Launch)?;
        let given = Given {
            args: None,
            heap: Vec::new(),
            global: Rc::default(),
        };
        CudaJob::of_launch(unit, launch, allocations, given, machine, cache_bytes)
    }

    /// Prepares a launch that a program's host code makes: its arguments' values `args`, its
    /// device allocations `heap` (name, base, bytes), and device memory as host code left it.
    pub(crate) fn of_host(
        unit: Rc<Unit>,
        launch: Launch,
        args: Vec<warp::Value>,
        heap: Vec<(String, u64, u64)>,
        global: Rc<device_memory::Memory>,
        machine: Machine,
        cache_bytes: u64,
    ) -> Result<CudaJob, CudaFailure> {
        let given = Given { args: Some(Rc::new(args)), heap, global };
        let mut job = CudaJob::of_launch(unit, launch, Vec::new(), given, machine, cache_bytes)?;
        // Memory as the launch found it is not kept: a copy of device memory per launch, made
        // at the launch's first store, would double what a program holds.
        job.start.global = Rc::default();
        Ok(job)
    }

    /// Device memory as the launch left it, for the program's next step.
    pub(crate) fn take_global(&mut self) -> Rc<device_memory::Memory> {
        std::mem::take(&mut self.shared.global)
    }

    fn of_launch(
        unit: Rc<Unit>,
        launch: Launch,
        allocations: Vec<Allocation>,
        given: Given,
        machine: Machine,
        cache_bytes: u64,
    ) -> Result<CudaJob, CudaFailure> {
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
        // CUDA's limits on each dimension (Programming Guide, "Technical Specifications per
        // Compute Capability"): the grid's x up to 2^31 − 1, y and z up to 65535; the block's
        // x and y up to 1024, z up to 64.
        for (what, dims, limits) in [
            ("grid", launch.grid, [(1 << 31) - 1, 65535, 65535]),
            ("block", launch.block, [1024, 1024, 64]),
        ] {
            for ((axis, n), limit) in ["x", "y", "z"].iter().zip(dims).zip(limits) {
                if n > limit {
                    return Err(launch_error(format!(
                        "the {what}'s {axis} is {n}; CUDA allows at most {limit}"
                    )));
                }
            }
        }
        // Threads, not accesses: a launch of 2^30 threads that do nothing is still 2^25 warps
        // to run through.
        let all = blocks.saturating_mul(threads);
        if all > MAX_LANE_ACCESSES {
            return Err(launch_error(format!(
                "the launch has {all} threads; this model runs at most {MAX_LANE_ACCESSES} (2^28) \
                 in one launch: shrink the grid"
            )));
        }
        let mut device_globals = HashMap::new();
        // In a program, above every allocation it can make: `__device__` variables keep their
        // places, and their values, from launch to launch.
        let mut next = if given.args.is_some() {
            program::DEVICE_GLOBALS / super::parse::launch::ALLOCATION_STRIDE
        } else {
            allocations.len() as u64 + 1
        };
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
            given: given.args,
            heap: given.heap,
        };
        let mut shared = Shared {
            global: given.global,
            ..Shared::default()
        };
        program.bindings =
            Rc::new(warp::bind_launch_template(&program, &mut shared).map_err(CudaFailure::Run)?);
        // Check the arguments once, before any warp runs.
        warp::launch_arguments(&program, &mut shared).map_err(CudaFailure::Run)?;
        let warps_per_block = threads.div_ceil(u64::from(machine.warp)) as u32;
        let options = TallyOptions {
            machine,
            cache_bytes,
            unique_sites: Some(usize::MAX >> 1),
            heat: Some((blocks, warps_per_block)),
            worst: true,
        };
        Ok(CudaJob::start(program, shared, options))
    }

    /// The job of `program`, before its first warp, with `shared` as the checks of the launch
    /// left it, counted by a tally of `options`.
    fn start(program: Program, shared: Shared, options: TallyOptions) -> CudaJob {
        let threads: u64 = program.launch.block.iter().product();
        let blocks: u64 = program.launch.grid.iter().product();
        let warps_per_block = threads.div_ceil(u64::from(program.machine.warp)) as u32;
        CudaJob {
            program,
            start: shared.clone(),
            shared,
            tally: Tally::new(options),
            events: vec![Events::default(); warps_per_block as usize],
            parked: (0..warps_per_block).map(|_| None).collect(),
            phase: 0,
            any_parked: false,
            parks: 0,
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
        }
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

    /// Runs each warp to its end, barriers parking none, as the interpreter did before blocks
    /// ran barrier by barrier: the walk the barrier-by-barrier run is tested against, with
    /// the same figures while memory holds no values. Call it before the first
    /// [`CudaJob::step`].
    #[doc(hidden)]
    pub fn whole_warps(&mut self) {
        self.shared.whole_warps = true;
    }

    /// How many times a warp has parked at a barrier so far, all blocks together: each warp
    /// parks once at each barrier it reaches at the end of a statement.
    #[doc(hidden)]
    pub fn parks(&self) -> u64 {
        self.parks
    }

    /// Lowers the loop iterations one warp may run in all (nested loops counted together) from
    /// [`MAX_WARP_ITERATIONS`] to `iterations`: for the fuzz target, whose endless loops would
    /// otherwise take seconds each. Call it before the first [`CudaJob::step`].
    #[doc(hidden)]
    pub fn iteration_budget(&mut self, iterations: u64) {
        self.shared.iteration_budget = iterations.min(MAX_WARP_ITERATIONS);
    }

    /// Lowers the distinct-sector count's memory budget to `bytes`: for tests of what the
    /// panel shows past it. Call it before the first [`CudaJob::step`].
    #[doc(hidden)]
    pub fn unique_budget(&mut self, bytes: u64) {
        self.tally.unique_budget(bytes);
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

    /// Runs the block's next warp to its next barrier or its end: a block runs barrier by
    /// barrier, each warp in order to its first barrier, then each to its next, and its
    /// accesses meet the tally when every warp has ended.
    fn one_warp(&mut self) -> Result<(), RunError> {
        let w = self.warp as usize;
        if w == 0 && self.phase == 0 {
            // A block's shared memory is its own.
            self.shared.shared_memory.clear();
            if self.block == 0 {
                warp::fill_memory(&self.program, &mut self.shared)?;
            }
        }
        let resume = match self.parked.get_mut(w) {
            Some(slot) => slot.take(),
            None => {
                return Err(RunError::at(
                    Pos::default(),
                    RunErrorKind::Internal("warp index"),
                ))
            }
        };
        // After the first round, only the warps parked at a barrier run on.
        if self.phase == 0 || resume.is_some() {
            let Some(events) = self.events.get_mut(w) else {
                return Err(RunError::at(
                    Pos::default(),
                    RunErrorKind::Internal("warp index"),
                ));
            };
            if resume.is_none() {
                events.list.clear();
                events.addresses.clear();
            }
            let (ran, made) = warp::run_warp(
                &self.program,
                &mut self.shared,
                self.block,
                self.warp,
                events,
                MAX_BLOCK_LANE_ACCESSES - self.block_lane_accesses,
                resume,
            )?;
            self.block_lane_accesses += made;
            self.lane_accesses += made;
            if self.lane_accesses > MAX_LANE_ACCESSES {
                let shrink = Shrink::of(&self.program.launch.sizes, 1.0);
                return Err(RunError::at(
                    Pos::default(),
                    RunErrorKind::TooLarge {
                        limit: MAX_LANE_ACCESSES,
                        projection: None,
                        shrink,
                    },
                ));
            }
            if let warp::Ran::Parked(p) = ran {
                if let Some(slot) = self.parked.get_mut(w) {
                    *slot = Some(p);
                }
                self.any_parked = true;
                self.parks += 1;
            }
        }
        self.warp += 1;
        if self.warp >= self.warps_per_block {
            self.warp = 0;
            if std::mem::take(&mut self.any_parked) {
                self.phase += 1;
                return Ok(());
            }
            self.phase = 0;
            self.drain_block()?;
            self.block += 1;
            self.block_lane_accesses = 0;
            self.project()?;
        }
        Ok(())
    }

    /// Stops a launch early whose first blocks (at least 4, or all of a shorter launch) make
    /// lane-accesses at a rate that carries the whole launch past twice the budget, rather than
    /// run it for minutes to the same refusal. A launch just past the budget runs to it.
    fn project(&self) -> Result<(), RunError> {
        let (run, all) = (self.block, self.blocks);
        if run < 4 || run >= all {
            return Ok(());
        }
        let projected = u128::from(self.lane_accesses) * u128::from(all) / u128::from(run);
        if projected <= 2 * u128::from(MAX_LANE_ACCESSES) {
            return Ok(());
        }
        let projected = u64::try_from(projected).unwrap_or(u64::MAX);
        let over = projected as f64 / MAX_LANE_ACCESSES as f64;
        Err(RunError::at(
            Pos::default(),
            RunErrorKind::TooLarge {
                limit: MAX_LANE_ACCESSES,
                projection: Some(Projection {
                    blocks_run: run,
                    blocks: all,
                    made: self.lane_accesses,
                    projected,
                }),
                shrink: Shrink::of(&self.program.launch.sizes, over),
            },
        ))
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

/// Runs a whole launch at once, as [`analyse`] does, with `defines` given beside the
/// source (as nvcc's `-D`).
///
/// ```
/// use coalescing_lab::model::cuda::{parse_defines, run::analyse_with};
/// use coalescing_lab::model::Machine;
/// let src = "#define N 4096\nconst int THREADS = 512;\n\
///            __global__ void k(float* a) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) a[i] = 0; }\n";
/// let defines = parse_defines("N=64 THREADS=32").unwrap();
/// let a = analyse_with(src, &defines, "k<<<(N + THREADS - 1) / THREADS, THREADS>>>(a)", Machine::default(), 0, 700).unwrap();
/// assert_eq!((a.total.requests, a.shape), (2, (2, 1, 32)));
/// assert_eq!(
///     a.notes[0],
///     "Defines: N=64 replaced the #define of line 1; THREADS=32 replaced the initialiser of the constant THREADS, line 2."
/// );
/// ```
pub fn analyse_with(
    source: &str,
    defines: &Defines,
    launch: &str,
    machine: Machine,
    cache_bytes: u64,
    arch: u32,
) -> Result<CudaAnalysis, CudaFailure> {
    analyse_unit(
        read_source_with(source, arch, defines)?,
        launch,
        machine,
        cache_bytes,
    )
}

/// Runs a whole launch at once, as [`analyse`] does, of a source already read
/// ([`read_files`]).
pub fn analyse_unit(
    unit: Rc<Unit>,
    launch: &str,
    machine: Machine,
    cache_bytes: u64,
) -> Result<CudaAnalysis, CudaFailure> {
    let mut job = CudaJob::of_unit(unit, launch, machine, cache_bytes)?;
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
