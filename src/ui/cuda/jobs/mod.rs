//! The CUDA panel's jobs: a run on the page in slices (or at once when small), or in the
//! panel's Web Worker (`remote`) when it is big, with the generation that makes a stale
//! answer count for nothing; the failure, which takes the default kernel's figures down; the
//! source as last read, which a launch or cache edit reuses; and the first
//! analysis drawn a part a task. The panel (`super`) only starts, halts and cancels, and reads
//! the signals.

mod remote;

use crate::model::cuda::ast::Unit;
use crate::model::cuda::files::Headers;
use crate::model::cuda::parse_defines;
use crate::model::cuda::run::{read_files, CudaAnalysis, CudaFailure, CudaJob, RunErrorKind};
use crate::model::cuda_view::wire::page_sources;
use crate::model::cuda_view::CudaInputs;
use crate::model::job::{Slice, Slicer, SLICE_MS};
use crate::model::kernel::Machine;
use crate::ui::job::{now_ms, soon};
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;

/// Launches of up to this many warps first run in the task of the edit, so that small kernels
/// show their figures without a flicker; bigger ones go to the worker (`remote`).
const AT_ONCE: u64 = 256;

/// The parts of the results built after the first analysis is shown ([`Jobs::built`]): the
/// access sites (the line picked, one warp's executions, the table and its CSV), then the
/// figures per warp.
pub(in crate::ui::cuda) const SITES: u8 = 1;
pub(in crate::ui::cuda) const PER_WARP: u8 = 2;

/// How long a slice of the panel's first run lasts, in milliseconds: under 50 ms on a phone
/// whose CPU is four times slower than a laptop's, as Lighthouse's mobile profile assumes.
const FIRST_SLICE_MS: f64 = 10.0;

/// Loop iterations a warp may run in the edit's task, when a worker can take the run over: a
/// warp that loops longer (about 20 ms of the page's time at this count) goes to the worker,
/// so the edit's task stays short whatever the kernel does.
pub(in crate::ui::cuda) const IN_PAGE_ITERATIONS: u64 = 1 << 13;

/// Sources longer than this many bytes are read only by the worker, never on the page's
/// thread, when a worker can take the run. Reading the tiled transpose repeated to 28–452 KB
/// took 0.39–0.56 ms per KB natively on a loaded 2-core machine, so 32 KB is about 15 ms there
/// and within a slice in the page. (Macros are bounded apart: every expansion counts toward
/// the preprocessor's 2^21.)
pub(in crate::ui::cuda) const PAGE_READ_BYTES: usize = 32 * 1024;

/// A source read on the page, with its headers, `__CUDA_ARCH__` and defines, and what reading
/// it gave.
type ReadSource = (String, Headers, u32, String, Result<Rc<Unit>, CudaFailure>);

/// One run: what the job was made from.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::ui::cuda) struct Run {
    pub(in crate::ui::cuda) inputs: CudaInputs,
    pub(in crate::ui::cuda) machine: Machine,
    pub(in crate::ui::cuda) cache_bytes: u64,
    pub(in crate::ui::cuda) arch: u32,
    /// The defines given beside the source, as typed.
    pub(in crate::ui::cuda) defines: String,
}

/// Where the current job stands; idle when the launch is empty. A failure's words are in the
/// panel's error, beside its field.
pub(in crate::ui::cuda) type Status = crate::ui::job::Status<()>;

/// The panel's job state, shared by its parts.
#[derive(Clone, Copy)]
pub(in crate::ui::cuda) struct Jobs {
    generation: StoredValue<u64>,
    job: StoredValue<Option<CudaJob>, LocalStorage>,
    /// The job of the analysis on show, kept after its run for the drill-down into one warp
    /// (`CudaJob::warp_executions` runs that warp again on the finished job's sites).
    pub(in crate::ui::cuda) kept: StoredValue<Option<CudaJob>, LocalStorage>,
    pub(in crate::ui::cuda) status: RwSignal<Status>,
    /// The last finished analysis, and the run it is of.
    pub(in crate::ui::cuda) analysis: RwSignal<Option<(Run, CudaAnalysis)>>,
    /// How much of the results below the source view is built ([`SITES`], then [`PER_WARP`]):
    /// none until the first analysis is shown, then one part a task, so that the first result
    /// is drawn in three short tasks, not one long one.
    pub(in crate::ui::cuda) built: RwSignal<u8>,
    /// Why the current inputs do not run, with their run.
    pub(in crate::ui::cuda) failure: RwSignal<Option<(Run, CudaFailure)>>,
    /// The worker, while there is one.
    remote: crate::ui::worker::Slot,
    /// The run posted to the worker: its ticket, itself, and whether it is a repair.
    remote_run: StoredValue<Option<(u64, Run, bool)>>,
    /// Whether a worker failed to start: runs then stay on the page's thread.
    remote_broken: StoredValue<bool>,
    /// The drill-down into a warp too long for the page's thread, asked of a worker.
    pub(in crate::ui::cuda) drilled: RwSignal<remote::Drilled>,
    /// That worker, while it runs.
    drill_worker: StoredValue<Option<remote::DrillWorker>, LocalStorage>,
    /// The last source read on the page: an edit of the launch or the cache reuses it.
    read: StoredValue<Option<ReadSource>, LocalStorage>,
}

impl Jobs {
    /// A panel's job state: nothing run, nothing shown.
    pub(in crate::ui::cuda) fn new() -> Jobs {
        Jobs {
            generation: StoredValue::new(0),
            job: StoredValue::new_local(None),
            kept: StoredValue::new_local(None),
            status: RwSignal::new(Status::Idle),
            analysis: RwSignal::new(None),
            built: RwSignal::new(0),
            failure: RwSignal::new(None),
            remote: StoredValue::new_local(None),
            remote_run: StoredValue::new(None),
            remote_broken: StoredValue::new(false),
            drilled: RwSignal::new(None),
            drill_worker: StoredValue::new_local(None),
            read: StoredValue::new_local(None),
        }
    }

    /// `source` read for `arch` with `defines`: the last reading when it is of the same text,
    /// else read now on the page's thread, unless it is longer than [`PAGE_READ_BYTES`] and a
    /// worker can read it instead (`None`).
    pub(in crate::ui::cuda) fn read(
        self,
        inputs: &CudaInputs,
        arch: u32,
        defines: &str,
    ) -> Option<Result<Rc<Unit>, CudaFailure>> {
        let (source, headers) = (&inputs.source, &inputs.headers);
        let known = self
            .read
            .try_with_value(|r| {
                r.as_ref()
                    .filter(|(s, h, a, d, _)| {
                        *a == arch && s == source && d == defines && h == headers
                    })
                    .map(|(_, _, _, _, unit)| unit.clone())
            })
            .flatten();
        if known.is_some() {
            return known;
        }
        let bytes = source.len() + headers.0.iter().map(|h| h.text.len()).sum::<usize>();
        if bytes > PAGE_READ_BYTES && self.remote_available() {
            return None;
        }
        let unit = parse_defines(defines)
            .map_err(CudaFailure::Defines)
            .and_then(|d| read_files(source, arch, &d, page_sources(headers)));
        self.read.set_value(Some((
            source.to_string(),
            headers.clone(),
            arch,
            defines.to_string(),
            unit.clone(),
        )));
        count_read();
        Some(unit)
    }

    /// Starts a job for `run`, cancelling the one running. A repair (the default kernel, run
    /// while the launch is empty) keeps the failure on show.
    pub(in crate::ui::cuda) fn start(self, run: Run, repair: bool) {
        let ticket = self.generation.get_value() + 1;
        self.generation.set_value(ticket);
        self.halt_remote();
        if !repair {
            self.failure.set(None);
        }
        if self.analysis.with_untracked(Option::is_none) {
            // The panel's first run: reading the source waits for a task after the mount's.
            set_timeout(
                move || {
                    if self.generation.try_get_value() == Some(ticket) {
                        self.begin(ticket, run, repair);
                    }
                },
                Duration::from_millis(0),
            );
        } else {
            self.begin(ticket, run, repair);
        }
    }

    /// Reads the source and the launch of `run` and runs the job `ticket`: in this task when
    /// it is small, in slices or in the worker when it is not.
    fn begin(self, ticket: u64, run: Run, repair: bool) {
        let Some(unit) = self.read(&run.inputs, run.arch, &run.defines) else {
            // Too long to read on the page's thread: the worker reads it.
            self.job.set_value(None);
            self.status.set(Status::Running { done: 0, total: 1 });
            return self.remote(ticket, run, repair);
        };
        let fresh = unit.and_then(|unit| {
            CudaJob::of_unit(unit, &run.inputs.launch, run.machine, run.cache_bytes)
        });
        let fresh = match fresh {
            Ok(job) => job,
            Err(e) => {
                self.job.set_value(None);
                self.fail(run, e, repair);
                return;
            }
        };
        let (done, total) = fresh.progress();
        self.status.set(Status::Running { done, total });
        let remote = self.remote_available();
        if remote && total > AT_ONCE {
            self.job.set_value(None);
            return self.remote(ticket, run, repair);
        }
        let mut fresh = fresh;
        if remote {
            // What does not finish in the edit's task goes to the worker (`slice`).
            fresh.iteration_budget(IN_PAGE_ITERATIONS);
        }
        self.job.set_value(Some(fresh));
        // Nothing on show yet (the panel's first run): nothing can flicker, so the run gets
        // short tasks of its own instead of the edit's (or the mount's) task.
        let first = self.analysis.with_untracked(Option::is_none);
        if total <= AT_ONCE && !first {
            self.slice(ticket, run, repair);
        } else {
            set_timeout(
                move || self.slice(ticket, run, repair),
                Duration::from_millis(0),
            );
        }
    }

    /// A run that stopped, its failure kept on its field. The default kernel's figures on show
    /// are taken down: an engineer reads any figure on screen as the source's own, and these
    /// are not (an earlier run of the user's own inputs stays, marked as such).
    fn fail(self, run: Run, e: CudaFailure, repair: bool) {
        self.status.set(Status::Failed(()));
        if repair {
            return;
        }
        self.failure.set(Some((run.clone(), e)));
        let default = CudaInputs::default();
        let shows_default = self
            .analysis
            .with_untracked(|a| a.as_ref().is_some_and(|(r, _)| r.inputs == default));
        if shows_default && run.inputs != default {
            self.kept.set_value(None);
            self.analysis.set(None);
        }
    }

    /// One slice of the job: runs until SLICE_MS has passed, then yields to the page. A stale
    /// `ticket` (a newer job started) does nothing.
    fn slice(self, ticket: u64, run: Run, repair: bool) {
        if self.generation.try_get_value() != Some(ticket) {
            return;
        }
        let start = now_ms();
        // The panel's first run (nothing on show yet, as on a cold `tab=cuda` link) runs in
        // short slices on the page, whose tasks stay under what a phone's CPU makes long.
        let first = self.analysis.with_untracked(Option::is_none);
        let slice_ms = if first { FIRST_SLICE_MS } else { SLICE_MS };
        let outcome = self
            .job
            .try_update_value(|slot| {
                // A warp at a time at first: one warp's loop may take the slice.
                let mut slicer = Slicer::new(slice_ms).first_chunk(1);
                Some(slicer.run(slot.as_mut()?, &mut now_ms))
            })
            .flatten();
        match outcome {
            Some(Ok(Slice::Done)) => {
                let finished = self.job.try_update_value(Option::take).flatten();
                let Some(result) = finished.as_ref().map(CudaJob::finish) else {
                    return;
                };
                // After a long slice, or on the first run, drawing the figures gets a task of
                // its own.
                if first || now_ms() - start > SLICE_MS / 2.0 {
                    set_timeout(
                        move || {
                            if self.generation.try_get_value() == Some(ticket) {
                                self.show(ticket, run, result, finished);
                            }
                        },
                        Duration::from_millis(0),
                    );
                } else {
                    self.show(ticket, run, result, finished);
                }
            }
            Some(Ok(Slice::Yield)) if first && self.remote_available() && self.small() => {
                self.running();
                soon(move || self.slice(ticket, run, repair));
            }
            Some(Ok(Slice::Yield)) if self.remote_available() => {
                // The edit's task is spent: the worker runs it again from the start.
                self.job.set_value(None);
                self.remote(ticket, run, repair);
            }
            Some(Err(e)) if self.remote_available() && in_page_budget(&e) => {
                self.job.set_value(None);
                self.remote(ticket, run, repair);
            }
            Some(Ok(Slice::Yield)) => {
                self.running();
                soon(move || self.slice(ticket, run, repair));
            }
            Some(Err(e)) => {
                self.job.set_value(None);
                self.fail(run, e, repair);
            }
            None => {}
        }
    }

    /// Shows a finished analysis. The first one is drawn a part a task ([`Jobs::built`]): the
    /// readouts, the checks and the source view in this one, the access sites and the figures
    /// per warp in the next two; the status says the run is done after the last, unless a newer
    /// job started meanwhile.
    fn show(self, ticket: u64, run: Run, result: CudaAnalysis, finished: Option<CudaJob>) {
        self.kept.set_value(finished);
        self.analysis.set(Some((run, result)));
        self.warm_up();
        if self.built.get_untracked() >= PER_WARP {
            self.status.set(Status::Done);
        } else {
            self.build_next(ticket);
        }
    }

    /// Builds the next part of the results in a task of its own, and the rest after it.
    fn build_next(self, ticket: u64) {
        set_timeout(
            move || {
                let Some(part) = self.built.try_get_untracked() else {
                    return;
                };
                self.built.set(part + 1);
                if part + 1 < PER_WARP {
                    self.build_next(ticket);
                } else if self.generation.try_get_value() == Some(ticket) {
                    self.status.set(Status::Done);
                }
            },
            Duration::from_millis(0),
        );
    }

    /// Shows `analysis`, a launch of a whole program (`super::program`), as the results of
    /// `run`: no job is kept, so the drill-down into one warp is not offered for it.
    pub(in crate::ui::cuda) fn show_program(self, run: Run, analysis: CudaAnalysis) {
        self.halt();
        self.failure.set(None);
        let ticket = self.generation.get_value();
        self.show(ticket, run, analysis, None);
    }

    /// The job's progress on show.
    fn running(self) {
        if let Some((done, total)) = self.job.with_value(|j| j.as_ref().map(CudaJob::progress)) {
            self.status.set(Status::Running { done, total });
        }
    }

    /// Whether the job on the page is small enough to finish there in slices
    /// ([`AT_ONCE`] warps at most) rather than in the worker.
    fn small(self) -> bool {
        self.job
            .with_value(|j| j.as_ref().map(|j| j.progress().1))
            .is_some_and(|total| total <= AT_ONCE)
    }

    pub(in crate::ui::cuda) fn cancel(self) {
        self.halt();
        self.status.set(Status::Cancelled);
    }

    /// Stops the running job, on the page or in the worker: its answers no longer count.
    pub(in crate::ui::cuda) fn halt(self) {
        self.generation.update_value(|g| *g += 1);
        self.job.set_value(None);
        self.halt_remote();
    }
}

/// Counts a reading of a source on the page's thread in the panel's `data-source-reads`, which
/// the browser tests read: a launch or cache edit must not add one.
fn count_read() {
    let Some(panel) = document().query_selector("section.cuda").ok().flatten() else {
        return;
    };
    let reads = panel
        .get_attribute("data-source-reads")
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    let _ = panel.set_attribute("data-source-reads", &(reads + 1).to_string());
}

/// Whether a failure is the edit's task's own iteration budget ([`IN_PAGE_ITERATIONS`]), not
/// the kernel's: the worker then runs it with the whole budget.
fn in_page_budget(failure: &CudaFailure) -> bool {
    matches!(failure, CudaFailure::Run(e)
        if matches!(*e.kind, RunErrorKind::WarpIterations { limit } if limit == IN_PAGE_ITERATIONS))
}
