//! Where a kernel's launch is counted, and what the view shows while it is: the edit's own
//! task for a small launch, so its figures come without a flicker; the page's Web Worker for a
//! bigger one (`ui::worker`, `model::kernel::wire`), so the page's thread only shows progress,
//! and a launch that exhausts memory or traps ends the worker with a message, never the page;
//! and slices on the page's thread where the build or the browser has no worker.
//!
//! One runner per analysed kernel (the view's, and the comparison's preset). A new launch
//! cancels the one running: a stale slice or answer sees a newer ticket and does nothing, and
//! a busy worker is terminated.

use super::super::job::{now_ms, soon};
use crate::model::job::{Slice, Slicer, SLICE_MS};
use crate::model::kernel::wire::{decode_reply, Reply, Request};
use crate::model::kernel::{Job, Kernel, KernelAnalysis, KernelError, KernelField};
use crate::model::warm::Engine;
use crate::ui::url;
use crate::ui::worker::{self, Failed, Remote};
use leptos::prelude::*;
use std::time::Duration;

/// The longest a worker's run holds the address bar's write back (`url::hold_writes`): the
/// runs it is for take a quarter of a second; a longer one writes the link by then.
const HOLD_URL_MS: u64 = 1000;

/// Where the current job stands; idle when a field is in error and no earlier analysis
/// exists.
pub(super) type Status = crate::ui::job::Status<KernelError>;

/// A kernel's launch, its figures and the job or worker counting them.
#[derive(Clone, Copy)]
pub(super) struct Runner {
    pub(super) status: RwSignal<Status>,
    /// The last finished analysis, and the kernel it is of.
    pub(super) analysis: RwSignal<Option<KernelAnalysis>>,
    pub(super) analysed: RwSignal<Option<Kernel>>,
    /// The worker's memory once it counted the launch on show, in bytes; `None` when the
    /// page's thread counted it.
    pub(super) worker_memory: RwSignal<Option<u64>>,
    generation: StoredValue<u64>,
    job: StoredValue<Option<Job>, LocalStorage>,
    remote: worker::Slot,
    /// The launch the worker counts: its ticket and kernel.
    remote_run: StoredValue<Option<(u64, Kernel)>>,
    /// A worker failed to start: launches stay on the page's thread from then on.
    broken: StoredValue<bool>,
    /// Whether this runner's worker run holds the address bar's write back.
    holding: StoredValue<bool>,
}

impl Runner {
    pub(super) fn new() -> Runner {
        Runner {
            status: RwSignal::new(Status::Idle),
            analysis: RwSignal::new(None),
            analysed: RwSignal::new(None),
            worker_memory: RwSignal::new(None),
            generation: StoredValue::new(0),
            job: StoredValue::new_local(None),
            remote: StoredValue::new_local(None),
            remote_run: StoredValue::new(None),
            broken: StoredValue::new(false),
            holding: StoredValue::new(false),
        }
    }

    /// Starts counting `kernel`, checked from `request`, cancelling the launch running. Up
    /// to `at_once` warp instructions run in the caller's task; more go to the worker, or to
    /// slices of their own where there is none.
    pub(super) fn start(self, request: Request, kernel: Kernel, at_once: u64) {
        let ticket = self.bump();
        let fresh = Job::new(&kernel);
        let (done, total) = fresh.progress();
        self.status.set(Status::Running { done, total });
        if total <= at_once {
            self.job.set_value(Some(fresh));
            return self.slice(ticket, kernel);
        }
        if !self.broken.get_value() && worker::available() {
            return self.remote(ticket, kernel, request);
        }
        self.job.set_value(Some(fresh));
        set_timeout(move || self.slice(ticket, kernel), Duration::from_millis(0));
    }

    /// Stops the launch running, keeping the last figures.
    pub(super) fn cancel(self) {
        self.bump();
        self.status.set(Status::Cancelled);
    }

    /// Forgets the launch running, if any: the figures on show stand.
    pub(super) fn settle(self) {
        self.bump();
    }

    /// Clears everything, as for no kernel at all.
    pub(super) fn clear(self) {
        self.bump();
        self.analysis.set(None);
        self.analysed.set(None);
        self.status.set(Status::Idle);
    }

    /// A new ticket: the running job, slice or worker's run becomes stale.
    fn bump(self) -> u64 {
        self.release_url();
        let ticket = self.generation.get_value() + 1;
        self.generation.set_value(ticket);
        self.job.set_value(None);
        self.remote_run.set_value(None);
        if self
            .remote
            .with_value(|r| r.as_ref().is_some_and(|r| r.busy))
        {
            // Its Drop terminates it.
            self.remote.set_value(None);
        }
        ticket
    }

    fn current(self, ticket: u64) -> bool {
        self.generation.try_get_value() == Some(ticket)
    }

    fn show(
        self,
        result: Result<KernelAnalysis, KernelError>,
        kernel: Kernel,
        memory: Option<u64>,
    ) {
        match result {
            Ok(result) => {
                self.analysis.set(Some(result));
                self.analysed.set(Some(kernel));
                self.worker_memory.set(memory);
                self.status.set(Status::Done);
                self.warm_up();
            }
            Err(e) => self.status.set(Status::Failed(e)),
        }
    }

    /// One slice of the page's job: runs until SLICE_MS has passed, then yields to the page;
    /// on the end, shows the analysis of `kernel`.
    fn slice(self, ticket: u64, kernel: Kernel) {
        if !self.current(ticket) {
            return;
        }
        let start = now_ms();
        let outcome = self
            .job
            .try_update_value(|slot| {
                let job = slot.as_mut()?;
                Some(Slicer::default().run(job, &mut now_ms))
            })
            .flatten();
        match outcome {
            Some(Ok(Slice::Done)) => {
                let Some(finished) = self.job.try_update_value(Option::take).flatten() else {
                    return;
                };
                let result = finished.finish();
                // After a long slice, drawing the results gets a task of its own.
                if now_ms() - start > SLICE_MS / 2.0 {
                    set_timeout(
                        move || {
                            if self.current(ticket) {
                                self.show(result, kernel, None);
                            }
                        },
                        Duration::from_millis(0),
                    );
                } else {
                    self.show(result, kernel, None);
                }
            }
            Some(Ok(Slice::Yield)) => {
                if let Some((done, total)) = self.job.with_value(|j| j.as_ref().map(Job::progress))
                {
                    self.status.set(Status::Running { done, total });
                }
                soon(move || self.slice(ticket, kernel));
            }
            Some(Err(e)) => {
                self.job.set_value(None);
                self.status.set(Status::Failed(e));
            }
            None => {}
        }
    }

    /// Posts the launch to the worker, starting one if none is idle.
    fn remote(self, ticket: u64, kernel: Kernel, request: Request) {
        // The address bar follows when the run ends: its write would take the CPU from the
        // workers (`url::hold_writes`).
        url::hold_writes(HOLD_URL_MS);
        self.holding.set_value(true);
        let text = request.encode();
        self.remote_run.set_value(Some((ticket, kernel)));
        if !self.spawn() {
            return self.in_page_instead();
        }
        self.remote.update_value(|r| {
            if let Some(r) = r {
                r.busy = true;
                r.send(text);
            }
        });
    }

    /// Starts a worker if none is there, idle or busy: whether one is there now.
    fn spawn(self) -> bool {
        if self.remote.with_value(Option::is_some) {
            return true;
        }
        let Some(remote) = Remote::spawn_paired(
            move || {
                self.remote
                    .update_value(|r| r.as_mut().map_or((), |r| r.started_warming(Engine::Kernel)))
            },
            move |text| self.reply(text),
            move |message| self.worker_failed(message),
        ) else {
            return false;
        };
        self.remote.set_value(Some(remote));
        true
    }

    /// Starts the worker ahead of the first launch that needs it, once the page has shown
    /// its first figures: its load and compile (about 100 ms, measured) are then off that
    /// launch's time. Where the build or the browser has no worker, or its script does not
    /// load, nothing changes but that the next big launch goes to slices at once.
    pub(super) fn warm_up(self) {
        if self.broken.get_value() || !worker::available() {
            return;
        }
        set_timeout(
            move || {
                if self.generation.try_get_value().is_some() && !self.spawn() {
                    self.broken.set_value(true);
                }
            },
            Duration::from_millis(0),
        );
    }

    /// One message from the worker.
    fn reply(self, text: &str) {
        // The ticket only: progress comes often, and the kernel is taken once, at the end.
        let Some(ticket) = self.remote_run.with_value(|r| r.as_ref().map(|(t, _)| *t)) else {
            return;
        };
        if !self.current(ticket) {
            return;
        }
        let reply = match decode_reply(text) {
            Ok(reply) => reply,
            Err(why) => {
                self.idle();
                self.release_url();
                return self.status.set(Status::Failed(KernelError::new(
                    KernelField::Grid,
                    why.to_string(),
                )));
            }
        };
        match reply {
            Reply::Progress { done, total } => self.status.set(Status::Running { done, total }),
            Reply::Done { analysis, memory_bytes } => {
                let Some((_, kernel)) = self.remote_run.try_update_value(Option::take).flatten()
                else {
                    return;
                };
                self.idle();
                // Reading a big launch's answer (a heat map of 65,536 cells) is a task's worth of
                // work: drawing its figures gets a task of its own.
                set_timeout(
                    move || {
                        if self.current(ticket) {
                            self.show(Ok(*analysis), kernel, Some(memory_bytes));
                        }
                        // After the figures' own updates.
                        set_timeout(move || self.release_url(), Duration::from_millis(0));
                    },
                    Duration::from_millis(0),
                );
            }
            Reply::Failed(e) => {
                self.idle();
                self.status.set(Status::Failed(e));
                self.release_url();
            }
        }
    }

    /// Ends this runner's hold on the address bar's write, if it holds it (another runner,
    /// the comparison's, starting or stopping, leaves it be).
    fn release_url(self) {
        if self.holding.try_get_value() == Some(true) {
            self.holding.set_value(false);
            url::release_writes();
        }
    }

    fn idle(self) {
        worker::settle(self.remote, self.remote_run);
    }

    /// The worker's script did not load, or the engine trapped inside it.
    fn worker_failed(self, message: String) {
        self.release_url();
        match worker::take_failed(self.remote, self.remote_run) {
            Failed::NeverStarted => self.in_page_instead(),
            Failed::Died(Some((ticket, _))) if self.current(ticket) => {
                let why = format!(
                    "this launch stopped the engine ({message}); the rest of the page keeps \
                     working: a smaller grid or loop may run. Please report this link"
                );
                self.status
                    .set(Status::Failed(KernelError::new(KernelField::Grid, why)));
            }
            Failed::Died(_) => {}
        }
    }

    /// No worker: the launch waiting for one runs in slices on the page's thread.
    fn in_page_instead(self) {
        self.broken.set_value(true);
        self.remote.set_value(None);
        if let Some((ticket, kernel)) = self.remote_run.get_value() {
            self.remote_run.set_value(None);
            if self.current(ticket) {
                self.job.set_value(Some(Job::new(&kernel)));
                set_timeout(move || self.slice(ticket, kernel), Duration::from_millis(0));
            }
        }
    }
}
