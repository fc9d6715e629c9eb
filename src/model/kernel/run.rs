//! The launch as a resumable job: every warp instruction in execution order, through the cache
//! model, into a [`KernelAnalysis`].
//!
//! Execution order, as the page states it: blocks in linear order, one block at a time; in a
//! block, each iteration `i`; in an iteration, each statement in order; for a statement, each
//! warp in order. Within one warp instruction its distinct sectors meet the cache in
//! ascending address order. [`Job::step`] does a bounded amount of that work, so the page can
//! run it in slices and cancel it by dropping the job.

use super::super::banks::{BankCounter, Wavefronts};
use super::super::inputs::Space;
use super::analysis::{Figures, HeatMap, KernelAnalysis, Measure, StatementFigures, WarpRow};
use super::cache::SectorCache;
use super::inputs::{AccessKind, Kernel, KernelError, KernelField, StmtField};
use super::launch::{
    block_idx, thread_error, warps_of_block, Evaluator, Instruction, Site, WarpLanes,
};
use super::unique::{UniqueSectors, UNIQUE_BUDGET_BYTES};

/// How many of the worst warp instructions are kept.
const WORST: usize = 10;

/// Raw counts for one statement.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    requests: u64,
    requested_bytes: u64,
    shared_requests: u64,
    shared_requested_bytes: u64,
    wavefronts: Wavefronts,
    barriers: u64,
    sectors: u64,
    read_sectors: u64,
    write_sectors: u64,
    hits: u64,
}

/// Where the job is: the next warp instruction to run.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    block: u64,
    iteration: u64,
    stmt: usize,
    warp: u32,
}

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
    warps: Vec<WarpLanes>,
    evaluator: Evaluator,
    cache: Option<SectorCache>,
    unique: UniqueSectors,
    banks: BankCounter,
    /// Whether the block reaches the barrier under the cursor, as its warp 0 decided.
    barrier_reached: bool,
    counts: Vec<Counts>,
    /// The worst warp instructions by each [`Measure`], in its order.
    worst: [Vec<WarpRow>; 4],
    heat: HeatMap,
    cursor: Cursor,
    done: u64,
    total: u64,
    finished: bool,
    failed: Option<KernelError>,
    /// log2 of sectors per line.
    line_shift: u32,
}

impl Job {
    /// A job that will run `kernel` from its first warp instruction.
    pub fn new(kernel: &Kernel) -> Job {
        let m = kernel.machine;
        let sectors_per_line = (m.line_bytes / m.sector_bytes).max(1);
        let cache = (kernel.cache_bytes > 0).then(|| {
            SectorCache::new(
                (kernel.cache_bytes / m.line_bytes) as usize,
                sectors_per_line as usize,
            )
        });
        let warps = warps_of_block(kernel);
        let total = kernel.blocks()
            * kernel.loop_range.iterations
            * kernel.statements.len() as u64
            * warps.len() as u64;
        Job {
            kernel: kernel.clone(),
            heat: HeatMap::new(kernel.blocks(), warps.len() as u32),
            warps,
            evaluator: Evaluator::new(),
            cache,
            unique: UniqueSectors::default(),
            banks: BankCounter::default(),
            barrier_reached: false,
            counts: vec![Counts::default(); kernel.statements.len()],
            worst: std::array::from_fn(|_| Vec::with_capacity(WORST + 1)),
            cursor: Cursor::default(),
            done: 0,
            total,
            finished: false,
            failed: None,
            line_shift: sectors_per_line.trailing_zeros(),
        }
    }

    /// Warp instructions done, and in all.
    pub fn progress(&self) -> (u64, u64) {
        (self.done, self.total)
    }

    /// Runs up to `budget` more warp instructions (at least one). True when the launch is
    /// complete; an error stops the job for good, and every later call returns it again.
    pub fn step(&mut self, budget: u64) -> Result<bool, KernelError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut left = budget.max(1);
        while self.done < self.total && left > 0 {
            if let Err(error) = self.one() {
                self.failed = Some(error.clone());
                return Err(error);
            }
            self.done += 1;
            left -= 1;
        }
        if self.done >= self.total && !self.finished {
            self.finished = true;
            let Job { cache, counts, .. } = self;
            if let Some(cache) = cache {
                cache.flush(|stmt| charge_write(counts, stmt));
            }
        }
        Ok(self.finished)
    }

    /// Runs what is left and returns the analysis.
    pub fn finish(mut self) -> Result<KernelAnalysis, KernelError> {
        while !self.step(u64::MAX)? {}
        Ok(self.analysis())
    }

    /// The warp instruction under the cursor, then the cursor moves on.
    fn one(&mut self) -> Result<(), KernelError> {
        let c = self.cursor;
        let kernel = &self.kernel;
        let Some(lanes) = self.warps.get(c.warp as usize) else {
            return Ok(());
        };
        let site = Site {
            block_idx: block_idx(kernel, c.block),
            i: kernel.loop_range.value(c.iteration),
            stmt: c.stmt,
            warp: c.warp,
        };
        let instruction = self.evaluator.run(kernel, lanes, site)?;
        match kernel.statements.get(c.stmt).map(|s| (s.kind, s.space)) {
            Some((AccessKind::Sync, _)) => self.barrier(c, site, lanes.mask)?,
            Some((_, Space::Shared)) => self.account_shared(c, site, instruction),
            _ => {
                self.account(c, site, instruction);
                if self.unique.over_budget() {
                    return Err(KernelError::new(
                        KernelField::Grid,
                        unique_budget_message(self.unique.total),
                    ));
                }
            }
        }
        self.advance();
        Ok(())
    }

    /// A `__syncthreads()`: warp 0 decides whether the block reaches it (with no guard, it
    /// does), and counts the barrier; every thread of every other warp must agree.
    fn barrier(&mut self, c: Cursor, site: Site, present: u64) -> Result<(), KernelError> {
        let kernel = &self.kernel;
        let Some(stmt) = kernel.statements.get(c.stmt) else {
            return Ok(());
        };
        let mask = self.evaluator.mask;
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
            if let (true, Some(k)) = (reached, self.counts.get_mut(c.stmt)) {
                k.barriers += 1;
            }
        }
        Ok(())
    }

    /// A shared-memory request: wavefronts by the bank model, no sector, cache or DRAM.
    fn account_shared(&mut self, c: Cursor, site: Site, instruction: Instruction) {
        let Some(stmt) = self.kernel.statements.get(c.stmt) else {
            return;
        };
        if instruction.active_lanes == 0 {
            return;
        }
        let elem = stmt.elem;
        let wavefronts = self.banks.count(elem, self.evaluator.lane_words(elem));
        let requested = u64::from(instruction.active_lanes) * elem;
        if let Some(k) = self.counts.get_mut(c.stmt) {
            k.requests += 1;
            k.requested_bytes += requested;
            k.shared_requests += 1;
            k.shared_requested_bytes += requested;
            k.wavefronts.add(wavefronts);
        }
        let number = stmt.number;
        let costs = [0, 0, wavefronts.wavefronts, wavefronts.conflicts()];
        self.offer(c, costs, || WarpRow {
            wavefronts: Some(wavefronts),
            ..warp_row(c, site, number, &instruction, requested)
        });
    }

    /// Counts a warp instruction into the heat map, and into each worst list it qualifies
    /// for: more of that measure than the last row kept, and some of it. The row is built
    /// only when it is kept, which is rare after the first few instructions.
    #[inline]
    fn offer(&mut self, c: Cursor, costs: [u64; 4], row: impl FnOnce() -> WarpRow) {
        self.heat.add(c.block, c.warp, costs);
        let qualifies = |list: &Vec<WarpRow>, cost: u64, measure: Measure| {
            cost > 0 && (list.len() < WORST || list.last().is_some_and(|w| cost > w.cost(measure)))
        };
        if !self
            .worst
            .iter()
            .zip(costs)
            .zip(Measure::ALL)
            .any(|((list, cost), m)| qualifies(list, cost, m))
        {
            return;
        }
        let row = row();
        for ((list, cost), measure) in self.worst.iter_mut().zip(costs).zip(Measure::ALL) {
            if qualifies(list, cost, measure) {
                // After every row with at least as much: ties keep execution order.
                let at = list.partition_point(|w| w.cost(measure) >= cost);
                list.insert(at, row);
                list.truncate(WORST);
            }
        }
    }

    fn account(&mut self, c: Cursor, site: Site, instruction: Instruction) {
        let Some(stmt) = self.kernel.statements.get(c.stmt) else {
            return;
        };
        if instruction.active_lanes == 0 {
            return;
        }
        let sector_bytes = self.kernel.machine.sector_bytes;
        let requested_bytes = u64::from(instruction.active_lanes) * stmt.elem;
        let store = stmt.kind == AccessKind::Store;
        let line_shift = self.line_shift;
        let Job {
            evaluator,
            cache,
            unique,
            counts,
            ..
        } = self;
        let mut hits = 0;
        let mut line_slot = None;
        for run in evaluator.runs() {
            for sector in run.first..=run.last {
                unique.insert(sector, c.stmt);
                let Some(cache) = cache.as_mut() else {
                    continue;
                };
                let line = sector >> line_shift;
                let slot = match line_slot {
                    Some((l, slot)) if l == line => slot,
                    _ => {
                        let slot = cache.touch(line, |s| charge_write(counts, s));
                        line_slot = Some((line, slot));
                        slot
                    }
                };
                let within = (sector & ((1 << line_shift) - 1)) as usize;
                let hit = if store {
                    cache.store(slot, within, c.stmt as u8)
                } else {
                    cache.load(slot, within)
                };
                if hit {
                    hits += 1;
                } else if !store {
                    if let Some(k) = counts.get_mut(c.stmt) {
                        k.read_sectors += 1;
                    }
                }
            }
        }
        let no_cache = cache.is_none();
        if let Some(k) = counts.get_mut(c.stmt) {
            k.requests += 1;
            k.requested_bytes += requested_bytes;
            k.sectors += instruction.sectors;
            k.hits += hits;
            if no_cache {
                if store {
                    k.write_sectors += instruction.sectors;
                } else {
                    k.read_sectors += instruction.sectors;
                }
            }
        }
        let ideal_sectors = evaluator.distinct_bytes(stmt.elem).div_ceil(sector_bytes);
        let number = stmt.number;
        let excess = instruction.sectors.saturating_sub(ideal_sectors);
        self.offer(c, [instruction.sectors, excess, 0, 0], || WarpRow {
            sectors: instruction.sectors,
            ideal_sectors,
            transferred_bytes: instruction.sectors * sector_bytes,
            ..warp_row(c, site, number, &instruction, requested_bytes)
        });
    }

    fn advance(&mut self) {
        let c = &mut self.cursor;
        c.warp += 1;
        if c.warp as usize >= self.warps.len() {
            c.warp = 0;
            c.stmt += 1;
            if c.stmt >= self.kernel.statements.len() {
                c.stmt = 0;
                c.iteration += 1;
                if c.iteration >= self.kernel.loop_range.iterations {
                    c.iteration = 0;
                    c.block += 1;
                }
            }
        }
    }

    fn analysis(&self) -> KernelAnalysis {
        let k = &self.kernel;
        let s = k.machine.sector_bytes;
        let cached = self.cache.is_some();
        let figures = |c: &Counts, unique: u64| Figures {
            requests: c.requests,
            requested_bytes: c.requested_bytes,
            shared_requests: c.shared_requests,
            shared_requested_bytes: c.shared_requested_bytes,
            wavefronts: c.wavefronts.wavefronts,
            ideal_wavefronts: c.wavefronts.ideal,
            barriers: c.barriers,
            sectors: c.sectors,
            transferred_bytes: c.sectors * s,
            unique_sectors: unique,
            dram_read_bytes: c.read_sectors * s,
            dram_write_bytes: c.write_sectors * s,
            hits: cached.then_some(c.hits),
        };
        let statements: Vec<StatementFigures> = k
            .statements
            .iter()
            .zip(&self.counts)
            .enumerate()
            .map(|(n, (stmt, c))| StatementFigures {
                number: stmt.number,
                name: stmt.name.clone(),
                kind: stmt.kind,
                space: stmt.space,
                figures: figures(c, self.unique.by_statement.get(n).copied().unwrap_or(0)),
            })
            .collect();
        let sum = self.counts.iter().fold(Counts::default(), |a, c| Counts {
            requests: a.requests + c.requests,
            requested_bytes: a.requested_bytes + c.requested_bytes,
            shared_requests: a.shared_requests + c.shared_requests,
            shared_requested_bytes: a.shared_requested_bytes + c.shared_requested_bytes,
            wavefronts: Wavefronts {
                wavefronts: a.wavefronts.wavefronts + c.wavefronts.wavefronts,
                ideal: a.wavefronts.ideal + c.wavefronts.ideal,
            },
            barriers: a.barriers + c.barriers,
            sectors: a.sectors + c.sectors,
            read_sectors: a.read_sectors + c.read_sectors,
            write_sectors: a.write_sectors + c.write_sectors,
            hits: a.hits + c.hits,
        });
        let total = figures(&sum, self.unique.total);
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
            worst: self.worst[0].clone(),
            worst_other: [
                self.worst[1].clone(),
                self.worst[2].clone(),
                self.worst[3].clone(),
            ],
            heat: self.heat.clone(),
            intensity_flop_per_byte: total_flops.times_ratio(1, u128::from(total.dram_bytes())),
            total_flops,
            notes: k.notes.clone(),
        }
    }
}

/// The row of the warp instruction under cursor `c`, with no sector and no wavefront: the
/// callers fill in their memory's figures.
fn warp_row(
    c: Cursor,
    site: Site,
    stmt: u8,
    instruction: &Instruction,
    requested_bytes: u64,
) -> WarpRow {
    WarpRow {
        block: c.block,
        block_idx: site.block_idx,
        warp: c.warp,
        stmt,
        iteration: c.iteration,
        iter: site.i,
        lane0_address: instruction.lane0,
        active_lanes: instruction.active_lanes,
        sectors: 0,
        ideal_sectors: 0,
        requested_bytes,
        transferred_bytes: 0,
        wavefronts: None,
    }
}

/// Charges one written-back sector to statement `stmt` (its position in the kernel).
fn charge_write(counts: &mut [Counts], stmt: u8) {
    if let Some(k) = counts.get_mut(usize::from(stmt)) {
        k.write_sectors += 1;
    }
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
