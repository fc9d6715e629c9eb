//! The launch as a resumable job: the walk's warp instructions (`walk`, the execution order),
//! through the warp core's tally, into a [`KernelAnalysis`]. What is the kernel view's own is
//! the barrier rule: warp 0 decides whether a block reaches a barrier, and every thread must
//! agree. [`Job::step`] does a bounded amount of work, so the page can run it in slices and
//! cancel it by dropping the job.

use super::super::warp::{Measure, Tally, TallyOptions, UNIQUE_BUDGET_BYTES};
use super::analysis::{KernelAnalysis, StatementFigures, WarpRow};
use super::inputs::{AccessKind, Kernel, KernelError, KernelField, StmtField};
use super::launch::{thread_error, unexpected_address, warp_row};
use super::walk::{internal, Step, Walk};

/// A launch being analysed, resumable in slices.
///
/// ```
/// use coalescing_lab::model::kernel::{Job, KernelInputs, Machine};
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// let mut job = Job::new(&kernel);
/// while !job.step(1).unwrap() {}
/// assert_eq!(job.progress(), (1, 1));
/// let analysis = job.finish().unwrap();
/// assert_eq!((analysis.total.requests, analysis.total.sectors), (1, 4));
/// ```
#[derive(Clone, Debug)]
pub struct Job {
    kernel: Kernel,
    walk: Walk,
    tally: Tally<WarpRow>,
    /// Whether the block reaches the barrier under the cursor, as its warp 0 decided.
    barrier_reached: bool,
    finished: bool,
    failed: Option<KernelError>,
}

impl Job {
    /// A job that will run `kernel` from its first warp instruction.
    pub fn new(kernel: &Kernel) -> Job {
        let walk = Walk::new(kernel);
        let tally = Tally::new(TallyOptions {
            machine: kernel.machine,
            cache_bytes: kernel.cache_bytes,
            unique_sites: Some(kernel.statements.len()),
            heat: Some((kernel.blocks(), walk.warps.len() as u32)),
            worst: true,
        });
        Job {
            kernel: kernel.clone(),
            walk,
            tally,
            barrier_reached: false,
            finished: false,
            failed: None,
        }
    }

    /// Warp instructions done, and in all.
    pub fn progress(&self) -> (u64, u64) {
        self.walk.progress()
    }

    /// Runs up to `budget` more warp instructions (at least one). True when the launch is
    /// complete; an error stops the job for good, and every later call returns it again.
    pub fn step(&mut self, budget: u64) -> Result<bool, KernelError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        for _ in 0..budget.max(1) {
            let Some(step) = self.walk.next(&self.kernel) else {
                break;
            };
            if let Err(error) = step.and_then(|step| self.one(step)) {
                self.failed = Some(error.clone());
                return Err(error);
            }
        }
        let (done, total) = self.walk.progress();
        if done >= total && !self.finished {
            self.finished = true;
            self.tally.finish();
        }
        Ok(self.finished)
    }

    /// Hands the cache model to a [`crate::model::warp::CacheServer`] on another thread,
    /// before the first step: see [`Tally::hand_off_cache`]. False with no cache.
    pub fn hand_off_cache(&mut self) -> bool {
        self.tally.hand_off_cache()
    }

    /// The words for the cache server written since the last call; `end` after the last
    /// step. See [`Tally::cache_words`].
    pub fn cache_words(&mut self, end: bool) -> Vec<u32> {
        self.tally.cache_words(end)
    }

    /// Adds the cache server's answer to the figures, before [`Job::finish`].
    pub fn absorb_cache(&mut self, answer: &[u32]) -> Result<(), KernelError> {
        self.tally
            .absorb_cache(answer)
            .map_err(|e| KernelError::new(KernelField::Grid, e.to_string()))
    }

    /// Runs what is left and returns the analysis.
    pub fn finish(mut self) -> Result<KernelAnalysis, KernelError> {
        while !self.step(u64::MAX)? {}
        Ok(self.analysis())
    }

    /// Counts one evaluated warp instruction.
    #[inline]
    fn one(&mut self, step: Step) -> Result<(), KernelError> {
        let Step { cursor: c, site, instruction, present } = step;
        let Some(stmt) = self.kernel.statements.get(c.stmt) else {
            return Err(internal(c.stmt));
        };
        if stmt.kind == AccessKind::Sync {
            return self.barrier(step, present);
        }
        let evaluator = &self.walk.evaluator;
        let access = evaluator.access(stmt, &instruction, c.stmt, c.block, c.warp);
        let (number, sector_bytes) = (stmt.number, self.kernel.machine.sector_bytes);
        let counted = self.tally.access(&access, |cost| {
            warp_row(
                c.block,
                c.iteration,
                site,
                number,
                instruction,
                cost,
                sector_bytes,
            )
        });
        if let Err(e) = counted {
            return Err(unexpected_address(&self.kernel, stmt, site, e));
        }
        if self.tally.over_budget() {
            return Err(KernelError::new(
                KernelField::Grid,
                unique_budget_message(self.tally.unique_total()),
            ));
        }
        Ok(())
    }

    /// A `__syncthreads()`: warp 0 decides whether the block reaches it (with no guard, it
    /// does), and counts the barrier; every thread of every other warp must agree.
    fn barrier(&mut self, step: Step, present: u64) -> Result<(), KernelError> {
        let (c, site) = (step.cursor, step.site);
        let kernel = &self.kernel;
        let Some(stmt) = kernel.statements.get(c.stmt) else {
            return Err(internal(c.stmt));
        };
        let mask = self.walk.evaluator.mask;
        // Thread (0,0,0), lane 0 of warp 0, decides for the block.
        let reached = if c.warp == 0 {
            mask & 1 != 0
        } else {
            self.barrier_reached
        };
        // The first thread that disagrees with the block's decision.
        let odd = if reached { present & !mask } else { mask };
        if odd != 0 {
            let lane = odd.trailing_zeros();
            let reason = if reached {
                "does not reach __syncthreads() when thread (0,0,0) does; every thread of \
                 a block must reach a barrier, or none"
            } else {
                "reaches __syncthreads() when thread (0,0,0) does not; every thread of a \
                 block must reach a barrier, or none"
            };
            return Err(thread_error(
                kernel,
                stmt,
                StmtField::Active,
                site,
                lane,
                reason,
            ));
        }
        if c.warp == 0 {
            self.barrier_reached = reached;
            if reached {
                self.tally.barrier(c.stmt);
            }
        }
        Ok(())
    }

    fn analysis(&self) -> KernelAnalysis {
        let k = &self.kernel;
        let statements: Vec<StatementFigures> = k
            .statements
            .iter()
            .enumerate()
            .map(|(n, stmt)| StatementFigures {
                number: stmt.number,
                name: stmt.name.clone(),
                kind: stmt.kind,
                space: stmt.space,
                figures: self.tally.figures(n),
            })
            .collect();
        let total = self.tally.total();
        let thread_iterations =
            u128::from(k.blocks() * k.threads_per_block()) * u128::from(k.loop_range.iterations);
        let total_flops = k
            .flops_per_thread
            .times_ratio(thread_iterations, 1)
            .unwrap_or(k.flops_per_thread);
        KernelAnalysis {
            machine: k.machine,
            cache_bytes: k.cache_bytes,
            total,
            statements,
            worst: self.tally.worst(Measure::Sectors),
            worst_other: [
                self.tally.worst(Measure::Excess),
                self.tally.worst(Measure::Wavefronts),
                self.tally.worst(Measure::Conflicts),
            ],
            heat: self
                .tally
                .heat()
                .cloned()
                .unwrap_or_else(|| super::super::warp::HeatMap::new(0, 1)),
            total_flops,
            notes: k.notes.clone(),
        }
    }
}

/// The floor `make bench` measures the engine against (#26): the same walk over the launch and
/// the same evaluation of every warp instruction's lanes, each active lane's address and its
/// sector number, and nothing else (no de-duplication, no cache, no figures). Returns a
/// checksum of the sector numbers, so that the work is not optimised away.
#[doc(hidden)]
pub fn address_pass(kernel: &Kernel) -> Result<u64, KernelError> {
    let mut walk = Walk::new(kernel);
    let shift = kernel.machine.sector_bytes.trailing_zeros();
    let mut sum = 0u64;
    while let Some(step) = walk.next(kernel) {
        step?;
        let e = &walk.evaluator;
        let mut mask = e.mask;
        while mask != 0 {
            let t = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            sum = sum.wrapping_add(e.addresses.get(t).copied().unwrap_or(0) >> shift);
        }
    }
    Ok(sum)
}

/// Runs `kernel` to the end in one go: [`Job::new`] then [`Job::finish`].
pub fn analyze_kernel(kernel: &Kernel) -> Result<KernelAnalysis, KernelError> {
    Job::new(kernel).finish()
}

/// Why a run stopped at the distinct-sector count's memory budget, after `recorded` sectors.
fn unique_budget_message(recorded: u64) -> String {
    format!(
        "the launch touches more distinct sectors, spread more thinly, than the count of \
         distinct sectors can hold in its {} MiB (stopped after {recorded}); a smaller grid \
         or a denser pattern is counted exactly",
        UNIQUE_BUDGET_BYTES >> 20
    )
}
