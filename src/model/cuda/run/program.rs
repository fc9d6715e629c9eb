//! A whole program: `main()` run on the host, each `<<<…>>>` launch run on the SIMT
//! interpreter as it is reached, device memory holding real bytes from launch to launch, and
//! what the program prints.
//!
//! Host code runs as a warp of one lane that no thread owns (`warp::host`), so that C's
//! arithmetic, conversions and calls are the kernels' own. Host memory is apart from the
//! device's: a pointer tells its side by its address, and host code that dereferences device
//! memory is stopped, as the hardware would fault.
//!
//! This file keeps the program's state between its parts (its allocations, its console, its
//! launches) and runs it: one idea, the program's run.

use super::super::ast::{Function, Item, Unit};
use super::super::error::Pos;
use super::super::pre::Defines;
use super::device_memory::Memory;
use super::error::{RunError, RunErrorKind};
use super::{read_files, read_source_with, CudaAnalysis, CudaFailure, Shared};
use crate::model::clib::rand::Rand;
use crate::model::cuda::files::Line;
use crate::model::cuda::files::Sources;
use crate::model::machine::Machine;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// Where the first device allocation starts; each next one starts at the first multiple of
/// this at or after the end of the one before, and no address is used twice.
pub const DEVICE_BASE: u64 = 0x1000_0000;
/// Where host allocations start, far above any device allocation's address.
pub const HOST_BASE: u64 = 0x5555_0000_0000;

/// Whether `address` is in host memory (`HOST_BASE` on, as far as host allocations reach).
pub(crate) fn is_host_address(address: u64) -> bool {
    (HOST_BASE..HOST_BASE + (1 << 40)).contains(&address)
}
/// Where a program's `__device__` variables are, far above its allocations.
pub const DEVICE_GLOBALS: u64 = 0x1000_0000_0000;
/// The most bytes of device memory a program may hold at once: 1 GiB.
pub const MAX_DEVICE_BYTES: u64 = 1 << 30;
/// The most bytes of host memory a program may hold at once: 1 GiB.
pub const MAX_HOST_BYTES: u64 = 1 << 30;
/// The most loop iterations host code runs in all: 2^24.
pub const MAX_HOST_ITERATIONS: u64 = 1 << 24;
/// The most bytes a program's console keeps: 4 MiB; later output is dropped, and said so.
pub const MAX_CONSOLE_BYTES: usize = 4 << 20;

/// The fields of `cudaDeviceProp` that a program sees (`cudaGetDeviceProperties`), in the
/// order of the runtime's `driver_types.h`: a subset, so its `sizeof` is not the runtime's.
pub const DEVICE_PROP: &str = "struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int concurrentKernels;
    int ECCEnabled;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int maxThreadsPerMultiProcessor;
    size_t sharedMemPerMultiprocessor;
    int managedMemory;
    int concurrentManagedAccess;
};
";

/// Which stream a piece of the console was printed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Standard output (host `printf`, `puts`, and device `printf` when flushed).
    Stdout,
    /// Standard error (`fprintf(stderr, …)`).
    Stderr,
}

/// One piece of the console: consecutive text printed on one stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Printed {
    /// The stream.
    pub stream: Stream,
    /// The text.
    pub text: String,
}

/// A launch the program made, in order, with its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchRun {
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
    /// Its figures, sites, lines and checks, as the launch field's run gives them.
    pub analysis: CudaAnalysis,
}

/// What a program's run gives: what it printed, how it ended, and each launch.
#[derive(Clone, Debug)]
pub struct ProgramRun {
    /// The console, in the order printed.
    pub console: Vec<Printed>,
    /// The exit status: `main`'s return value or `exit`'s argument, modulo 256 as a shell sees
    /// it; `None` when the run stopped on an error.
    pub exit_code: Option<u8>,
    /// Each launch, in order.
    pub launches: Vec<LaunchRun>,
    /// Why the run stopped before the program's end, if it did.
    pub error: Option<CudaFailure>,
    /// What the page says beside the console: what the model could not do as a GPU would.
    pub notes: Vec<String>,
}

impl ProgramRun {
    /// What was printed on `stream`, in order.
    pub fn text_of(&self, stream: Stream) -> String {
        self.console
            .iter()
            .filter(|p| p.stream == stream)
            .map(|p| p.text.as_str())
            .collect()
    }

    /// Everything printed, both streams interleaved as printed.
    pub fn text(&self) -> String {
        self.console.iter().map(|p| p.text.as_str()).collect()
    }
}

/// An allocation, host or device.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// The name it was first stored in (`d_a`), or what made it.
    pub(crate) name: String,
    pub(crate) base: u64,
    pub(crate) bytes: u64,
    /// Device memory (`cudaMalloc`, `cudaMallocManaged`).
    pub(crate) device: bool,
    /// Managed memory: device memory that host code may read and write.
    pub(crate) managed: bool,
    /// Where it was made.
    pub(crate) line: u32,
    /// Where it was freed, if it was.
    pub(crate) freed: Option<u32>,
    /// What made it: "malloc", "cudaMalloc", "a string literal", ….
    pub(crate) made_by: &'static str,
}

impl Block {
    /// Its fields but its name (no allocation): for the checks of every host access.
    pub(crate) fn clone_plain(&self) -> Block {
        Block {
            name: String::new(),
            base: self.base,
            bytes: self.bytes,
            device: self.device,
            managed: self.managed,
            line: self.line,
            freed: self.freed,
            made_by: self.made_by,
        }
    }

    /// Its name and where it was made, for a message: "d_a (cudaMalloc, line 12)".
    pub(crate) fn described(&self) -> String {
        format!("{} ({}, {})", self.name, self.made_by, Line(self.line))
    }
}

/// The program's state that host code and its launches share.
#[derive(Clone, Debug)]
pub(crate) struct HostState {
    /// Host memory's values.
    pub(crate) memory: Memory,
    /// Every allocation, host and device, by base.
    pub(crate) blocks: Vec<Block>,
    next_host: u64,
    next_device: u64,
    /// Bytes of live host and device allocations.
    host_bytes: u64,
    pub(crate) device_bytes: u64,
    pub(crate) console: Vec<Printed>,
    console_bytes: usize,
    pub(crate) console_dropped: bool,
    /// Device `printf` output not yet flushed to the console.
    pub(crate) pending: String,
    /// glibc's `rand`.
    pub(crate) rand: Rand,
    /// The format state of `std::cout` and of `std::cerr` (with `std::clog`).
    pub(crate) formats: [crate::model::clib::iostream::StreamFormat; 2],
    pub(crate) launches: Vec<LaunchRun>,
    /// The error `cudaGetLastError` returns next (0, `cudaSuccess`, when none).
    pub(crate) last_error: i32,
    /// The source the kernels see: device code only.
    pub(crate) kernel_unit: Rc<Unit>,
    pub(crate) machine: Machine,
    pub(crate) cache_bytes: u64,
    /// Events and streams made so far (their handles).
    pub(crate) handles: u64,
    /// Recorded events' times, in the model's milliseconds, by handle.
    pub(crate) events: Vec<(u64, f64)>,
    /// Milliseconds of modelled device time so far.
    pub(crate) clock_ms: f64,
    /// Bytes per millisecond the clock counts DRAM traffic at.
    pub(crate) bytes_per_ms: f64,
    pub(crate) notes: Vec<String>,
    /// String literals already in host memory, by text.
    pub(crate) strings: Vec<(String, u64)>,
    /// The program's arguments after its name.
    pub(crate) argv: Vec<String>,
    pub(crate) limits: Limits,
    /// Who watches the run: the page's worker, which streams the console and the progress.
    pub(crate) observer: Observer,
    /// Host code's locals that live in host memory (arrays, and those whose address is
    /// taken), by slot and depth of calls: their base and bytes.
    pub(crate) locals: std::collections::HashMap<(usize, usize), (u64, u64)>,
    /// `__CUDA_ARCH__`: the device's compute capability × 100.
    pub(crate) arch: u32,
    /// Host code's entry points.
    pub(crate) hooks: &'static super::warp::Hooks,
}

impl HostState {
    fn new(kernel_unit: Rc<Unit>, options: &ProgramOptions) -> HostState {
        HostState {
            memory: Memory::with_limit(MAX_HOST_BYTES),
            blocks: Vec::new(),
            next_host: HOST_BASE,
            next_device: DEVICE_BASE,
            host_bytes: 0,
            device_bytes: 0,
            console: Vec::new(),
            console_bytes: 0,
            console_dropped: false,
            pending: String::new(),
            rand: Rand::seeded(1),
            formats: Default::default(),
            launches: Vec::new(),
            last_error: 0,
            kernel_unit,
            machine: options.machine,
            cache_bytes: options.cache_bytes,
            handles: 0,
            events: Vec::new(),
            clock_ms: 0.0,
            bytes_per_ms: options.bandwidth_gb_s * 1e6,
            notes: Vec::new(),
            strings: Vec::new(),
            argv: options.argv.clone(),
            limits: options.limits,
            observer: options.observer.clone(),
            locals: std::collections::HashMap::new(),
            arch: options.arch,
            hooks: super::warp::hooks(),
        }
    }

    /// Prints `text` on `stream`.
    pub(crate) fn print(&mut self, stream: Stream, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.console_bytes + text.len() > MAX_CONSOLE_BYTES {
            self.console_dropped = true;
            return;
        }
        self.console_bytes += text.len();
        match self.console.last_mut() {
            Some(last) if last.stream == stream => last.text.push_str(text),
            _ => self
                .console
                .push(Printed { stream, text: text.to_string() }),
        }
        self.observe(None);
    }

    /// Tells the observer, if there is one, where the run stands; `launch` is the running
    /// launch's warps run and in all.
    pub(crate) fn observe(&self, launch: Option<(u64, u64)>) {
        if let Some(watch) = &self.observer.0 {
            if let Ok(mut watch) = watch.try_borrow_mut() {
                watch(&Progress {
                    launches: self.launches.len(),
                    console: &self.console,
                    launch,
                });
            }
        }
    }

    /// Moves device `printf`'s buffered output to the console: at the start of a launch and
    /// at each synchronising call, as CUDA flushes it.
    pub(crate) fn flush_device(&mut self) {
        let text = std::mem::take(&mut self.pending);
        self.print(Stream::Stdout, &text);
    }

    /// A new allocation of `bytes`, host or device; `None` past the memory's limit.
    pub(crate) fn allocate(
        &mut self,
        bytes: u64,
        device: bool,
        managed: bool,
        made_by: &'static str,
        line: u32,
    ) -> Option<u64> {
        let held = if device {
            self.device_bytes
        } else {
            self.host_bytes
        };
        let limit = self.limits.memory_bytes;
        if held.checked_add(bytes)? > limit {
            return None;
        }
        let base = if device {
            let base = self.next_device;
            self.next_device = base
                .checked_add(bytes.max(1))?
                .checked_next_multiple_of(DEVICE_BASE)?;
            self.device_bytes += bytes;
            base
        } else {
            let base = self.next_host;
            // 16-byte aligned, as glibc's malloc, with a gap so that running off one block
            // never lands in the next.
            self.next_host = base
                .checked_add(bytes)?
                .checked_next_multiple_of(16)?
                .checked_add(16)?;
            self.host_bytes += bytes;
            base
        };
        let at = self.blocks.partition_point(|b| b.base < base);
        self.blocks.insert(
            at,
            Block {
                name: made_by.to_string(),
                base,
                bytes,
                device,
                managed,
                line,
                freed: None,
                made_by,
            },
        );
        Some(base)
    }

    /// The allocation `addr` is in (or one past the end of), live or freed.
    pub(crate) fn block_at(&self, addr: u64) -> Option<&Block> {
        let k = self.blocks.partition_point(|b| b.base <= addr);
        let b = self.blocks.get(k.checked_sub(1)?)?;
        (addr - b.base <= b.bytes).then_some(b)
    }

    /// The index of the allocation that starts at `addr`.
    pub(crate) fn block_index(&self, addr: u64) -> Option<usize> {
        let k = self.blocks.partition_point(|b| b.base < addr);
        (self.blocks.get(k)?.base == addr).then_some(k)
    }

    /// Frees the allocation at `index`, at `line`.
    pub(crate) fn free(&mut self, index: usize, line: u32) {
        if let Some(b) = self.blocks.get_mut(index) {
            b.freed = Some(line);
            if b.device {
                self.device_bytes -= b.bytes;
            } else {
                self.host_bytes -= b.bytes;
            }
        }
    }

    /// Names the allocation at `base` after the variable it was first stored in.
    pub(crate) fn name_block(&mut self, base: u64, name: &str) {
        if let Some(k) = self.block_index(base) {
            if let Some(b) = self.blocks.get_mut(k) {
                if b.name == b.made_by {
                    b.name = name.to_string();
                }
            }
        }
    }
}

/// Where a running program stands, as its observer sees it.
#[derive(Debug)]
pub struct Progress<'a> {
    /// Launches finished.
    pub launches: usize,
    /// The console so far.
    pub console: &'a [Printed],
    /// The running launch's warps run, and in all.
    pub launch: Option<(u64, u64)>,
}

/// A watcher of a program's run, called as it prints, as each launch goes on and ends, and
/// every 4096 iterations of host code's loops: the page's worker streams the console and the
/// progress through one. It watches and changes nothing.
#[derive(Clone, Default)]
#[allow(
    clippy::type_complexity,
    reason = "a shared, mutable callback: what an observer is"
)]
pub struct Observer(pub Option<Rc<RefCell<dyn FnMut(&Progress)>>>);

impl Observer {
    /// An observer that calls `watch`.
    pub fn new(watch: impl FnMut(&Progress) + 'static) -> Observer {
        Observer(Some(Rc::new(RefCell::new(watch))))
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Observer"
        } else {
            "no observer"
        })
    }
}

/// How a program is run.
#[derive(Clone, Debug)]
pub struct ProgramOptions {
    /// The machine each launch runs on.
    pub machine: Machine,
    /// The cache each launch's tally models, in bytes (0 for none).
    pub cache_bytes: u64,
    /// `__CUDA_ARCH__`.
    pub arch: u32,
    /// The DRAM bandwidth `cudaEventElapsedTime` divides a launch's bytes by, in GB/s.
    pub bandwidth_gb_s: f64,
    /// The program's arguments after its name (`argv[1]` on).
    pub argv: Vec<String>,
    /// The budgets, lower than the defaults for fuzzing.
    pub limits: Limits,
    /// Who watches the run; none by default.
    pub observer: Observer,
}

/// How much a program may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Loop iterations host code runs in all.
    pub host_iterations: u64,
    /// Bytes of allocations each side holds at once.
    pub memory_bytes: u64,
    /// Threads in one launch.
    pub launch_threads: u64,
    /// Loop iterations one warp of a launch runs in all.
    pub warp_iterations: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            host_iterations: MAX_HOST_ITERATIONS,
            memory_bytes: MAX_DEVICE_BYTES,
            launch_threads: super::MAX_LANE_ACCESSES,
            warp_iterations: super::MAX_WARP_ITERATIONS,
        }
    }
}

impl Default for ProgramOptions {
    fn default() -> ProgramOptions {
        ProgramOptions {
            machine: Machine::default(),
            cache_bytes: 0,
            arch: 700,
            bandwidth_gb_s: 900.0,
            argv: Vec::new(),
            limits: Limits::default(),
            observer: Observer::default(),
        }
    }
}

/// Runs `source`'s `main()` with `defines` (as nvcc's `-D`): every launch on the SIMT
/// interpreter, with device memory that holds real bytes.
///
/// ```
/// use coalescing_lab::model::cuda::run::program::{run_program, ProgramOptions};
/// use coalescing_lab::model::cuda::Defines;
/// let src = "#include <cstdio>\n\
///   __global__ void twice(int* a, int n) {\n\
///     int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
///     if (i < n) a[i] *= 2;\n\
///   }\n\
///   int main() {\n\
///     int n = 100;\n\
///     int* h = (int*)malloc(n * sizeof(int));\n\
///     for (int i = 0; i < n; i++) h[i] = i;\n\
///     int* d;\n\
///     cudaMalloc(&d, n * sizeof(int));\n\
///     cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);\n\
///     twice<<<(n + 63) / 64, 64>>>(d, n);\n\
///     cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);\n\
///     printf(\"%d %d\\n\", h[1], h[99]);\n\
///     return 0;\n\
///   }\n";
/// let run = run_program(src, &Defines::default(), &ProgramOptions::default()).unwrap();
/// assert_eq!(run.text(), "2 198\n");
/// assert_eq!(run.exit_code, Some(0));
/// assert_eq!(run.launches.len(), 1);
/// assert_eq!(run.launches[0].analysis.total.requests, 8);
/// ```
pub fn run_program(
    source: &str,
    defines: &Defines,
    options: &ProgramOptions,
) -> Result<ProgramRun, CudaFailure> {
    run_files(source, defines, Sources::single(), options)
}

/// Runs the `main()` of `source` as [`run_program`] does, its `#include "…"` lines read from
/// `sources`.
pub fn run_files(
    source: &str,
    defines: &Defines,
    sources: Sources<'_>,
    options: &ProgramOptions,
) -> Result<ProgramRun, CudaFailure> {
    let unit = read_files(source, options.arch, defines, sources)?;
    run_unit(unit, options)
}

/// Runs the `main()` of a source already read.
pub fn run_unit(unit: Rc<Unit>, options: &ProgramOptions) -> Result<ProgramRun, CudaFailure> {
    let Some(main) = unit.host.iter().find(|f| f.name == "main") else {
        if let Some((_, e)) = unit.host_unread.iter().find(|(n, _)| n == "main") {
            return Err(CudaFailure::Source(e.clone()));
        }
        return Err(CudaFailure::Run(RunError::at(
            Pos { line: 1, column: 1 },
            RunErrorKind::Host("the file has no main(): give a launch to run one kernel".into()),
        )));
    };
    let main: Function = main.clone();
    // Host code sees the device items (types, constants, `__host__ __device__` functions)
    // and the host functions; the kernels see the device items only.
    let mut host_unit = (*unit).clone();
    host_unit
        .items
        .extend(unit.host.iter().cloned().map(Item::Function));
    // The runtime's `cudaDeviceProp`, unless the file declares its own.
    let declared = unit
        .items
        .iter()
        .any(|i| matches!(i, Item::Struct(s) if s.name == "cudaDeviceProp"));
    if !declared {
        if let Ok(prop) = read_source_with(DEVICE_PROP, options.arch, &Defines::default()) {
            host_unit.items.extend(prop.items.iter().cloned());
        }
    }
    let host_unit = Rc::new(host_unit);
    let mut shared = Shared {
        host: Some(Box::new(HostState::new(unit.clone(), options))),
        // initcheck: a kernel's load of device bytes that nothing wrote is a finding.
        global: Rc::new(Memory::with_limit(MAX_DEVICE_BYTES).tracking_writes()),
        ..Shared::default()
    };
    let out = super::warp::run_host(host_unit, &main, options.machine, &mut shared);
    let mut state = match shared.host.take() {
        Some(s) => *s,
        None => HostState::new(unit, options),
    };
    let (exit_code, error) = match out {
        Ok(code) => {
            if !state.pending.is_empty() {
                state.notes.push(
                    "device printf output still buffered when the program exited was lost, as \
                     on a GPU: call cudaDeviceSynchronize() before returning"
                        .into(),
                );
            }
            (Some(code as u8), None)
        }
        Err(e) => {
            state.flush_device();
            (None, Some(e))
        }
    };
    if state.console_dropped {
        state.notes.push(format!(
            "the console keeps the first {} MiB the program printed",
            MAX_CONSOLE_BYTES >> 20
        ));
    }
    Ok(ProgramRun {
        console: state.console,
        exit_code,
        launches: state.launches,
        error,
        notes: state.notes,
    })
}
