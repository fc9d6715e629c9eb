//! The page's side of the CUDA worker (`src/worker.rs`): a run too big for the edit's task
//! goes to a Web Worker, so the page's thread only posts the request and shows the progress
//! and the figures as they come back. A warp that loops for seconds then holds the worker,
//! never the page, and a trap in the interpreter ends the worker with a message, never the
//! page.
//!
//! One worker at a time: a new run while it is busy, or Cancel, terminates it and the next
//! run starts another. A worker that cannot start (its script missing, a browser without
//! workers) leaves the page running the job in slices on its own thread, as before.
//!
//! The worker's handle is the page's one (`ui::worker`), shared with the kernel view.

use super::{Jobs, Run, Status};
use crate::model::cuda::error::Pos;
use crate::model::cuda::run::CudaJob;
use crate::model::cuda::run::{Placement, WarpExecution};
use crate::model::cuda_view::wire::{decode_reply, Drill, Reply, Reported, Request};
use crate::model::warm::Engine;
use crate::ui::worker::{self, Failed, Remote};
use leptos::prelude::*;

/// A drill-down into one warp of the run on show, asked of a worker of its own: the run, the
/// block and the warp, and the executions once answered (`None` while it runs).
pub(in crate::ui::cuda) type Drilled =
    Option<((Run, u64, u32), Option<Result<Vec<WarpExecution>, String>>)>;

/// The one-shot worker of a drill-down, kept until it answers.
pub(in crate::ui::cuda) struct DrillWorker(Remote);

/// Which worker a message comes from.
#[derive(Clone, Copy)]
enum Which {
    Run,
    Drill,
}

impl Jobs {
    /// Asks a worker of its own for warp `warp` of block `block` of `run`, the run on show,
    /// placed as `placement`; the answer lands in `drilled`. The same question twice is asked
    /// once; another one terminates the worker of the last.
    pub(in crate::ui::cuda) fn drill(self, run: &Run, placement: Placement, block: u64, warp: u32) {
        let key = (run.clone(), block, warp);
        if self
            .drilled
            .with_untracked(|d| d.as_ref().is_some_and(|(k, _)| *k == key))
        {
            return;
        }
        let text = Drill {
            request: request_of(run),
            placement,
            block,
            warp,
        }
        .encode();
        self.drilled.set(Some((key.clone(), None)));
        self.drill_worker.set_value(None);
        let Some(mut worker) = self.spawn_with(Which::Drill, move |jobs: Jobs, text: &str| {
            if let Ok(Reply::Executions(result)) = decode_reply(text) {
                if jobs
                    .drilled
                    .with_untracked(|d| d.as_ref().is_some_and(|(k, _)| *k == key))
                {
                    jobs.drilled
                        .set(Some((key.clone(), Some(result.map_err(|r| r.words)))));
                }
                jobs.drill_worker.set_value(None);
            }
        }) else {
            self.drilled.set(None);
            return;
        };
        worker.send(text);
        self.drill_worker.set_value(Some(DrillWorker(worker)));
    }

    /// Whether runs can go to a worker: this build has one, and none has failed to start.
    pub(in crate::ui::cuda) fn remote_available(self) -> bool {
        !self.remote_broken.get_value() && worker::available()
    }

    /// Starts the run's worker ahead of the first run that needs it, once the panel has
    /// shown figures: its load and compile (about 100 ms, measured) are then off that run's
    /// time. A worker that does not load sends the runs to slices at once.
    pub(in crate::ui::cuda) fn warm_up(self) {
        if !self.remote_available() {
            return;
        }
        set_timeout(
            move || {
                if self.remote.try_with_value(Option::is_none) != Some(true) {
                    return;
                }
                match self.spawn() {
                    Some(r) => self.remote.set_value(Some(r)),
                    None => self.remote_broken.set_value(true),
                }
            },
            std::time::Duration::from_millis(0),
        );
    }

    /// Posts `run` to the worker, starting one if none is idle.
    pub(in crate::ui::cuda) fn remote(self, ticket: u64, run: Run, repair: bool) {
        let request = request_of(&run).encode();
        self.remote_run.set_value(Some((ticket, run, repair)));
        let idle = self
            .remote
            .with_value(|r| r.as_ref().is_some_and(|r| !r.busy));
        if !idle {
            // Terminates a busy worker (its Drop) before the new one starts.
            self.remote.set_value(None);
            match self.spawn() {
                Some(r) => self.remote.set_value(Some(r)),
                None => return self.in_page_instead(),
            }
        }
        self.remote.update_value(|r| {
            if let Some(r) = r {
                r.busy = true;
                r.send(request);
            }
        });
    }

    /// Stops the worker's run, if it has one.
    pub(in crate::ui::cuda) fn halt_remote(self) {
        self.remote_run.set_value(None);
        if self
            .remote
            .with_value(|r| r.as_ref().is_some_and(|r| r.busy))
        {
            self.remote.set_value(None);
        }
    }

    fn spawn(self) -> Option<Remote> {
        self.spawn_with(Which::Run, |jobs: Jobs, text: &str| jobs.reply(text))
    }

    /// A worker for `which` whose messages go to `answer`.
    fn spawn_with(self, which: Which, answer: impl Fn(Jobs, &str) + 'static) -> Option<Remote> {
        Remote::spawn(
            move || self.ready(which),
            move |text| answer(self, text),
            move |message| match which {
                Which::Run => self.worker_failed(message),
                Which::Drill => self.drill_failed(message),
            },
        )
    }

    /// The worker of `which` says it listens: it posts what waits.
    fn ready(self, which: Which) {
        match which {
            Which::Run => self
                .remote
                .update_value(|r| r.as_mut().map_or((), |r| r.started_warming(Engine::Cuda))),
            Which::Drill => self
                .drill_worker
                .update_value(|d| d.as_mut().map_or((), |DrillWorker(r)| r.started())),
        }
    }

    /// One message from the run's worker.
    fn reply(self, text: &str) {
        let Some((ticket, run, repair)) = self.remote_run.get_value() else {
            return;
        };
        if self.generation.get_value() != ticket {
            return;
        }
        let reply = match decode_reply(text) {
            Ok(reply) => reply,
            Err(e) => {
                self.remote.set_value(None);
                return self.fail(run, words(&e.to_string()), repair);
            }
        };
        match reply {
            Reply::Progress { done, total } => self.status.set(Status::Running { done, total }),
            Reply::Done { analysis, placement } => {
                self.idle();
                // The drill-down's job, placed as the worker's run, on the source as the page
                // last read it (none for a source too long to read on the page).
                let kept = self
                    .read(&run.inputs, run.arch, &run.defines)
                    .and_then(Result::ok)
                    .and_then(|unit| {
                        CudaJob::of_unit(unit, &run.inputs.launch, run.machine, run.cache_bytes)
                            .ok()
                    })
                    .map(|mut job| {
                        job.adopt(placement);
                        // A warp that loops longer is drilled into by a worker (`Jobs::drill`).
                        job.iteration_budget(super::IN_PAGE_ITERATIONS);
                        job
                    });
                self.show(ticket, run, *analysis, kept);
            }
            Reply::Failed(reported) => {
                self.idle();
                self.fail(run, reported.into_failure(), repair);
            }
            // A drill-down's answer comes from its own worker, never this one, and a
            // program's from the program's (`super::super::program`).
            Reply::Executions(_)
            | Reply::Console { .. }
            | Reply::Program(_)
            | Reply::Picked { .. } => {}
        }
    }

    fn idle(self) {
        worker::settle(self.remote, self.remote_run);
    }

    /// The worker's script did not load, or the interpreter trapped inside it.
    fn worker_failed(self, message: String) {
        match worker::take_failed(self.remote, self.remote_run) {
            Failed::NeverStarted => self.in_page_instead(),
            Failed::Died(Some((ticket, run, repair))) if self.generation.get_value() == ticket => {
                let what = format!(
                    "the interpreter stopped unexpectedly ({message}); the rest of the page \
                     keeps working. Please report this link"
                );
                self.fail(run, words(&what), repair);
            }
            Failed::Died(_) => {}
        }
    }

    /// Drops the drill-down and its worker.
    pub(in crate::ui::cuda) fn forget_drill(self) {
        self.drill_worker.set_value(None);
        if self.drilled.with_untracked(Option::is_some) {
            self.drilled.set(None);
        }
    }

    /// The drill-down's worker did not start or died: the pick says so.
    fn drill_failed(self, message: String) {
        self.drill_worker.set_value(None);
        let pending = self.drilled.with_untracked(|d| match d {
            Some((key, None)) => Some(key.clone()),
            _ => None,
        });
        if let Some(key) = pending {
            let why = format!("block: this warp could not be run in the worker ({message})");
            self.drilled.set(Some((key, Some(Err(why)))));
        }
    }

    /// No worker: the run waiting for one runs in slices on the page's thread.
    fn in_page_instead(self) {
        self.remote_broken.set_value(true);
        self.remote.set_value(None);
        if let Some((ticket, run, repair)) = self.remote_run.get_value() {
            self.remote_run.set_value(None);
            if self.generation.get_value() == ticket {
                self.start(run, repair);
            }
        }
    }
}

/// A failure of the worker itself, as the page shows one: in the source field.
fn words(text: &str) -> crate::model::cuda::run::CudaFailure {
    Reported {
        pos: Pos::default(),
        thread: None,
        words: text.to_string(),
        launch: false,
        defines: false,
        file: String::new(),
    }
    .into_failure()
}

/// The run's request, as the worker takes it.
fn request_of(run: &Run) -> Request {
    Request {
        source: run.inputs.source.clone(),
        launch: run.inputs.launch.clone(),
        machine: run.machine,
        cache_bytes: run.cache_bytes,
        arch: run.arch,
        defines: run.defines.clone(),
        headers: run.inputs.headers.clone(),
    }
}
