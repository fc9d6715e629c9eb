//! The worker's warm-up: a few milliseconds of every preset's launch in one engine (the kernel
//! view's or the CUDA interpreter), run when the worker starts idle, so that the engine's hot
//! code is compiled for speed before the first launch it is asked for.
//!
//! A browser compiles WebAssembly twice: at once with a fast baseline compiler, then, for a
//! function that has run for a while, again with its optimising compiler, in the background.
//! A launch that arrives at a fresh worker spends its first slices in baseline code. Measured
//! in the page on the 4096² naive transpose (2 cores): a fresh worker answered in 465–639 ms,
//! the same worker asked again in 356–453 ms; with a fresh browser for every run, this warm-up
//! took the CUDA panel's run from 1991–2211 to 1756–1825 ms (docs/performance.md, "The worker
//! warmed up").
//!
//! The warm-up's figures are thrown away; only the compiled code stays. The kernel view's
//! worker has a second one that keeps its cache model (`ui::worker`): it is warmed with the
//! same message, and the kernel warm-up runs both halves.

use crate::model::cuda::presets::{CudaPreset, CUDA_PRESETS};
use crate::model::cuda::run::CudaJob;
use crate::model::job::Pump;
use crate::model::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use crate::model::kernel::{Job, Machine};
use crate::model::warp::CacheServer;
use crate::model::DEFAULT_CACHE_BYTES;

/// The engine a panel's worker warms up, asked for as the worker's first message when the
/// panel has no run waiting for it (a run waiting warms the code by itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The kernel view's launches.
    Kernel,
    /// The CUDA panel's interpreter.
    Cuda,
}

impl Engine {
    /// As posted to the worker.
    pub fn message(self) -> &'static str {
        match self {
            Engine::Kernel => "warm:kernel",
            Engine::Cuda => "warm:cuda",
        }
    }

    /// A posted message that asks for a warm-up.
    pub fn decode(text: &str) -> Option<Engine> {
        [Engine::Kernel, Engine::Cuda]
            .into_iter()
            .find(|e| e.message() == text)
    }
}

/// Warp instructions of each kernel preset per round.
const KERNEL_UNITS: u64 = 512;
/// Warps of each CUDA preset per round.
const CUDA_UNITS: u64 = 4;
/// The most rounds, whatever the clock says.
const MAX_ROUNDS: u32 = 64;

/// Runs every preset of `engine` a little at a time, round after round, until `budget_ms`
/// have passed on `clock` (at least one round, at most 64). Returns how many of
/// the presets' jobs ran without an error, of all: each preset's launch must start and run,
/// or its code would not be warmed.
pub fn warm_up(engine: Engine, clock: &mut impl FnMut() -> f64, budget_ms: f64) -> (usize, usize) {
    let start = clock();
    let machine = Machine::default();
    match engine {
        Engine::Kernel => {
            // Each job hands its cache off as a paired worker's launch does, to a server here:
            // both halves are warmed, the engine's in one worker of the pair and the cache
            // server's in the other, whichever this one is (`model::warp::CacheServer`).
            let job = |p: &KernelPreset| {
                let mut job = Job::new(&p.inputs().kernel(machine).ok()?);
                job.hand_off_cache();
                Some(Paired { job, server: CacheServer::default() })
            };
            let jobs = KERNEL_PRESETS.iter().map(job).collect();
            rounds(jobs, KERNEL_UNITS, start, clock, budget_ms)
        }
        Engine::Cuda => {
            // The panel's default cache and `__CUDA_ARCH__` (`cuda_view::cuda_arch`).
            let job = |p: &CudaPreset| {
                CudaJob::new(p.source, p.launch, machine, DEFAULT_CACHE_BYTES, 700).ok()
            };
            let jobs = CUDA_PRESETS.iter().map(job).collect();
            rounds(jobs, CUDA_UNITS, start, clock, budget_ms)
        }
    }
}

/// A kernel view's job whose cache is kept by a server beside it.
struct Paired {
    job: Job,
    server: CacheServer,
}

impl Pump for Paired {
    type Error = ();

    fn pump(&mut self, budget: u64) -> Result<bool, ()> {
        let done = self.job.step(budget).map_err(|_| ())?;
        let words = self.job.cache_words(done);
        self.server.receive(&words).map_err(|_| ())?;
        Ok(done)
    }

    fn progress(&self) -> (u64, u64) {
        self.job.progress()
    }
}

/// Pumps each job `units` at a time, round after round, from `start` until `budget_ms` have
/// passed on `clock` (at most [`MAX_ROUNDS`] rounds); a job that fails is dropped. Returns the
/// jobs still running or done, of all.
fn rounds<P: Pump>(
    mut jobs: Vec<Option<P>>,
    units: u64,
    start: f64,
    clock: &mut impl FnMut() -> f64,
    budget_ms: f64,
) -> (usize, usize) {
    for _ in 0..MAX_ROUNDS {
        for slot in &mut jobs {
            if slot.as_mut().is_some_and(|job| job.pump(units).is_err()) {
                *slot = None;
            }
        }
        if clock() - start >= budget_ms {
            break;
        }
    }
    (jobs.iter().flatten().count(), jobs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset's launch starts and runs its first rounds: a preset that failed would
    /// leave its code cold, silently.
    #[test]
    fn every_preset_warms() {
        let kernel = warm_up(Engine::Kernel, &mut || 0.0, 0.0);
        assert_eq!(kernel, (KERNEL_PRESETS.len(), KERNEL_PRESETS.len()));
        let cuda = warm_up(Engine::Cuda, &mut || 0.0, 0.0);
        assert_eq!(cuda, (CUDA_PRESETS.len(), CUDA_PRESETS.len()));
    }

    /// The messages read back, and no other text is one: not a kernel view's request, a CUDA
    /// run or a trace panel's ask.
    #[test]
    fn the_messages_read_back() {
        for engine in [Engine::Kernel, Engine::Cuda] {
            assert_eq!(Engine::decode(engine.message()), Some(engine));
        }
        for other in ["warm:", "warm:kernel ", "kernel:{}", "{}", "ready", ""] {
            assert_eq!(Engine::decode(other), None, "{other:?}");
        }
    }

    /// The clock bounds it: a clock past the budget stops it after one round; one that never
    /// moves stops at the most rounds.
    #[test]
    fn the_clock_bounds_it() {
        let mut reads = 0;
        warm_up(
            Engine::Kernel,
            &mut || {
                reads += 1;
                1000.0 * f64::from(reads > 1)
            },
            20.0,
        );
        assert_eq!(reads, 2);
        let mut reads = 0;
        warm_up(
            Engine::Kernel,
            &mut || {
                reads += 1;
                0.0
            },
            20.0,
        );
        assert_eq!(reads, 1 + MAX_ROUNDS);
    }
}
