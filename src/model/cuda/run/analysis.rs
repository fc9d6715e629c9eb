//! A run's figures: each access site, each line and the whole launch as the tally counted
//! them, the checks' reports, the worst warp executions, the heat map, and one warp's accesses
//! for the drill-down.

use super::*;
use crate::model::cuda::files::Line;
use serde::{Deserialize, Serialize};

/// What a site does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// A source's figures: per access site, per line, and for the whole launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// A program's loads of device memory that nothing wrote (initcheck), one per site.
    #[serde(default)]
    pub uninitialized: Vec<check::Uninit>,
    /// The worst warp executions by each measure, in [`Measure::ALL`]'s order, most first.
    pub worst: Vec<Vec<WarpExecution>>,
    /// Each measure per (block, warp), summed over the warp's accesses, binned for big grids.
    pub heat: HeatMap,
    /// The launched kernel's name.
    pub kernel: String,
    /// What device `printf` printed, in the order the calls ran (blocks in order; in a block,
    /// warps in order between barriers; in a call, lanes in order), as the host prints it.
    #[serde(default)]
    pub output: String,
    /// The paths of the files the source included, file `k` (from 1) of
    /// `model::cuda::files` at `k - 1`: lines past the main file's are theirs.
    #[serde(default)]
    pub files: Vec<String>,
}

impl CudaAnalysis {
    /// Where `line` (as the analysis keys lines) is: its file's path, `None` for the main
    /// file, and its number in that file.
    pub fn place(&self, line: u32) -> (Option<&str>, u32) {
        let (k, n) = crate::model::cuda::files::split(line);
        match k {
            0 => (None, n),
            k => (self.files.get(k - 1).map(String::as_str).or(Some("?")), n),
        }
    }

    /// `line` as a table shows it: `12` in the main file, `utils.cuh:6` in an included one.
    pub fn line_label(&self, line: u32) -> String {
        match self.place(line) {
            (None, n) => n.to_string(),
            (Some(path), n) => format!("{path}:{n}"),
        }
    }

    /// The worst warp executions by `measure`, most first.
    pub fn worst_by(&self, measure: Measure) -> &[WarpExecution] {
        let k = Measure::ALL.iter().position(|m| *m == measure).unwrap_or(0);
        self.worst.get(k).map_or(&[], Vec::as_slice)
    }
}

impl CudaJob {
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
                Skipped::Host { name, line } => Some(format!("{name} ({})", Line(*line))),
                Skipped::HostDecl { line } => Some(format!("a host declaration ({})", Line(*line))),
                Skipped::Unread { .. } => None,
            })
            .collect();
        if !host.is_empty() || !self.program.unit.includes.is_empty() {
            let includes: Vec<String> = self
                .program
                .unit
                .includes
                .iter()
                .map(|(line, name)| format!("#include {name} ({})", Line(*line)))
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
        if self.tally.over_budget() {
            notes.push(format!(
                "Unique sectors are a lower bound: the count of distinct sectors reached its {} \
                 MiB budget and recorded no more. The other figures are exact; a smaller launch \
                 (a smaller #define, a define, or a smaller grid) counts them all.",
                crate::model::warp::UNIQUE_BUDGET_BYTES >> 20
            ));
        }
        if !self.program.unit.replaced.is_empty() {
            let replaced: Vec<String> = self
                .program
                .unit
                .replaced
                .iter()
                .map(ToString::to_string)
                .collect();
            notes.push(format!("Defines: {}.", replaced.join("; ")));
        }
        if self.shared.constant_reads {
            notes.push(
                "Reads of __constant__ memory are not counted: they go through the constant \
                 cache, not the sectors of global memory."
                    .into(),
            );
        }
        if self.program.launch.stream {
            notes.push(
                "The launch's stream is set aside: the figures are the same on any stream, and \
                 this page runs launches one after another."
                    .into(),
            );
        }
        let out = &self.shared.output;
        if out.lost > 0 {
            notes.push(format!(
                "printf: the first {} calls' output is lost: CUDA's printf buffer holds 1 MiB \
                 (cudaLimitPrintfFifoSize) and keeps the latest, and so does this page, counted \
                 in the text printed rather than in the buffer's own records.",
                out.lost
            ));
        }
        if let Some(line) = out.unread {
            notes.push(format!(
                "printf at {}: its format is not a string literal, so it printed \
                 nothing here.",
                Line(line)
            ));
        }
        if self.shared.output_unknown {
            notes.push(
                "printf: a ? stands for a value this model does not know (one loaded from bytes \
                 the launch did not store)."
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
            uninitialized: self.shared.checks.uninit.values().cloned().collect(),
            worst: Measure::ALL.iter().map(|m| self.tally.worst(*m)).collect(),
            heat: self
                .tally
                .heat()
                .cloned()
                .unwrap_or_else(|| HeatMap::new(self.blocks, self.warps_per_block)),
            kernel: self.kernel().name.clone(),
            output: self.shared.output.text(),
            files: self
                .program
                .unit
                .files
                .iter()
                .map(|f| f.path.clone())
                .collect(),
        }
    }

    /// Every access warp `warp` of block `block` (linear) makes, in its order: for the page's
    /// drill-down into one execution. While no load has read a known value from memory, warps
    /// never influence each other, and the warp runs on its own, barrier by barrier; once one
    /// has, the launch runs again up to and through its block, so that the warp reads what it
    /// read in the run. Either way, this is what the launch saw.
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
        if self.shared.values_read {
            let (events, sites) = self.replayed(block, warp)?;
            return Ok(self.executions(block, warp, &events, sites));
        }
        let mut shared = self.shared.clone();
        // Memory as the run began it: every load the warp made there gave an unknown value.
        shared.global = Rc::clone(&self.start.global);
        shared.shared_memory.clear();
        let mut events = Events::default();
        // Barrier by barrier, as in the block, with no other warp between.
        let (mut parked, mut room) = (None, MAX_BLOCK_LANE_ACCESSES);
        loop {
            let (ran, made) = warp::run_warp(
                &self.program,
                &mut shared,
                block,
                warp,
                &mut events,
                room,
                parked,
            )?;
            room -= made;
            match ran {
                warp::Ran::Done => break,
                warp::Ran::Parked(p) => parked = Some(p),
            }
        }
        Ok(self.executions(block, warp, &events, shared.sites.len()))
    }

    /// Warp `warp`'s events in block `block` of the launch run again from its start, with the
    /// sites this job has found: the events and how many sites there are.
    fn replayed(&self, block: u64, warp: u32) -> Result<(Events, usize), RunError> {
        // A job bounded for the page's thread ([`CudaJob::iteration_budget`]) does not run a
        // whole launch again there: past its first block, it answers as a warp that loops too
        // long does, and the page asks its worker, whose job is not bounded.
        let budget = self.shared.iteration_budget;
        if budget != 0 && block > 0 {
            return Err(RunError::at(
                Pos::default(),
                RunErrorKind::WarpIterations { limit: budget },
            ));
        }
        let mut job = CudaJob::start(
            self.program.clone(),
            self.start.clone(),
            TallyOptions::new(self.program.machine, 0),
        );
        job.adopt(self.placement());
        job.shared.iteration_budget = budget;
        job.shared.general_only = self.shared.general_only;
        job.shared.whole_warps = self.shared.whole_warps;
        while job.block <= block {
            job.step(64).map_err(|e| match e {
                CudaFailure::Run(e) => e,
                other => RunError::at(Pos::default(), RunErrorKind::Type(other.to_string())),
            })?;
        }
        let events = job.events.get(warp as usize).cloned().unwrap_or_default();
        Ok((events, job.shared.sites.len()))
    }

    /// The executions of `events`, warp `warp`'s in block `block`.
    fn executions(
        &self,
        block: u64,
        warp: u32,
        events: &Events,
        sites: usize,
    ) -> Vec<WarpExecution> {
        let machine = self.program.machine;
        let mut scratch = crate::model::warp::Scratch::default();
        let shift = machine.sector_bytes.trailing_zeros();
        let block_idx = warp::block_index(&self.program, block);
        let mut out = Vec::new();
        let width = (machine.warp as usize).min(crate::model::LANES);
        let mut passes = vec![0u32; sites];
        for k in 0..events.list.len() {
            let Some(r) = events.access(k) else {
                continue;
            };
            let lanes = spread(r.access.mask, r.compact);
            let access = r.warp_access(block, warp, &lanes[..width]);
            let cost = scratch.measure(&access, shift).unwrap_or_default();
            let pass = passes.get_mut(r.access.site as usize).map_or(1, |n| {
                *n += 1;
                *n
            });
            out.push(r.execution(block_idx, warp, pass, cost));
        }
        out
    }
}

/// Where a run put what it found as it went: its access sites in order of first execution and
/// its static shared arrays' offsets. A job made afresh from the same source and launch that
/// adopts it ([`CudaJob::adopt`]) drills into a warp exactly as the finished job would: the
/// page's Web Worker runs the launch and hands this back with the figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The sites, by first execution.
    pub sites: Vec<Site>,
    /// Each static shared array's offset, by its declarator's position.
    pub shared_offsets: Vec<(Pos, u64)>,
    /// Bytes of static shared memory laid out.
    pub shared_bytes: u64,
    /// Whether the kernel's static shared arrays were laid out.
    pub laid_out: bool,
    /// Whether a load read a known value from memory: a drill-down then runs the launch again
    /// up to its block.
    #[serde(default)]
    pub values_read: bool,
}

impl CudaJob {
    /// Where this job's run put its sites and shared arrays, for [`CudaJob::adopt`].
    pub fn placement(&self) -> Placement {
        let mut shared_offsets: Vec<(Pos, u64)> = self
            .shared
            .shared_offsets
            .iter()
            .map(|(p, o)| (*p, *o))
            .collect();
        shared_offsets.sort_unstable();
        Placement {
            sites: self.shared.sites.clone(),
            shared_offsets,
            shared_bytes: self.shared.shared_bytes,
            laid_out: self.shared.shared_laid_out,
            values_read: self.shared.values_read,
        }
    }

    /// Takes a finished run's placement, so that [`CudaJob::warp_executions`] on this job (made
    /// from the same source and launch, and not run) numbers sites and places shared arrays
    /// as that run did.
    pub fn adopt(&mut self, placement: Placement) {
        for s in &placement.sites {
            self.shared.site(s.pos, s.kind, s.space, s.elem, s.part);
        }
        self.shared.shared_offsets.extend(placement.shared_offsets);
        self.shared.shared_bytes = placement.shared_bytes;
        self.shared.shared_laid_out = placement.laid_out;
        self.shared.values_read |= placement.values_read;
    }
}
