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
//! The worker is reached through `Reflect` and the `EventTarget` calls the page already
//! imports, not web-sys's `Worker`, `MessageEvent` and `ErrorEvent`: wasm-bindgen puts every
//! import's shim in the first load's glue; those eight cost it 0.1–0.2 KB gzip, measured.

use super::{Jobs, Run, Status};
use crate::model::cuda::error::Pos;
use crate::model::cuda::run::CudaJob;
use crate::model::cuda::run::{Placement, WarpExecution};
use crate::model::cuda_view::wire::{decode_reply, Drill, Reply, Reported, Request};
use js_sys::{Array, Function, Reflect};
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, EventTarget};

/// The worker and the run it serves.
pub(super) struct Remote {
    worker: EventTarget,
    /// Whether it has said it listens.
    ready: bool,
    /// Whether a run is posted and not answered.
    busy: bool,
    /// A request waiting for the worker to listen.
    pending: Option<String>,
    on_message: Closure<dyn FnMut(Event)>,
    on_error: Closure<dyn FnMut(Event)>,
}

impl Remote {
    fn post(&self, text: &str) {
        call(&self.worker, "postMessage", &JsValue::from_str(text));
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // No event reaches the closures once they are gone.
        let _ = self.worker.remove_event_listener_with_callback(
            "message",
            self.on_message.as_ref().unchecked_ref(),
        );
        let _ = self
            .worker
            .remove_event_listener_with_callback("error", self.on_error.as_ref().unchecked_ref());
        call(&self.worker, "terminate", &JsValue::UNDEFINED);
    }
}

/// Calls `target.method(arg)`; whether it could.
fn call(target: &JsValue, method: &str, arg: &JsValue) -> bool {
    Reflect::get(target, &JsValue::from_str(method))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .is_some_and(|f| f.call1(target, arg).is_ok())
}

/// `event[key]` as text, if it is text.
fn text_of(event: &Event, key: &str) -> Option<String> {
    Reflect::get(event, &JsValue::from_str(key))
        .ok()?
        .as_string()
}

/// `new Worker(url)`, if the browser has workers and the URL is allowed.
fn new_worker(url: &str) -> Option<EventTarget> {
    let constructor = Reflect::get(&js_sys::global(), &JsValue::from_str("Worker"))
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    Reflect::construct(&constructor, &Array::of1(&JsValue::from_str(url)))
        .ok()?
        .dyn_into::<EventTarget>()
        .ok()
}

/// The worker's script as this build named it (`tools/split.mjs` writes it on the shell
/// script's tag), or `None` where the build has none.
fn script() -> Option<String> {
    let document = web_sys::window()?.document()?;
    let tag = document.query_selector("script[data-cuda-worker]").ok()??;
    tag.get_attribute("data-cuda-worker")
        .filter(|s| !s.is_empty())
}

/// A drill-down into one warp of the run on show, asked of a worker of its own: the run, the
/// block and the warp, and the executions once answered (`None` while it runs).
pub(super) type Drilled = Option<((Run, u64, u32), Option<Result<Vec<WarpExecution>, String>>)>;

/// The one-shot worker of a drill-down, kept until it answers.
pub(super) struct DrillWorker(Remote);

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
    pub(super) fn drill(self, run: &Run, placement: Placement, block: u64, warp: u32) {
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
        worker.pending = Some(text);
        self.drill_worker.set_value(Some(DrillWorker(worker)));
    }

    /// Whether runs can go to a worker: this build has one, and none has failed to start.
    pub(super) fn remote_available(self) -> bool {
        !self.remote_broken.get_value() && script().is_some()
    }

    /// Posts `run` to the worker, starting one if none is idle.
    pub(super) fn remote(self, ticket: u64, run: Run, repair: bool) {
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
                if r.ready {
                    r.post(&request);
                } else {
                    r.pending = Some(request);
                }
            }
        });
    }

    /// Stops the worker's run, if it has one.
    pub(super) fn halt_remote(self) {
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

    /// A worker for `which` whose messages go to `answer`, but for its first, "ready", which
    /// posts what is pending.
    fn spawn_with(self, which: Which, answer: impl Fn(Jobs, &str) + 'static) -> Option<Remote> {
        let worker = new_worker(&script()?)?;
        let on_message = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let Some(text) = text_of(&event, "data") else {
                return;
            };
            if text == "ready" {
                self.ready(which);
            } else {
                answer(self, &text);
            }
        });
        // A script that does not load fires a plain `Event`; an error thrown inside the
        // worker (a trap among them) an `ErrorEvent` with its message.
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            event.prevent_default();
            let message =
                text_of(&event, "message").unwrap_or_else(|| "the worker did not start".into());
            match which {
                Which::Run => self.worker_failed(message),
                Which::Drill => self.drill_failed(message),
            }
        });
        worker
            .add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref())
            .ok()?;
        worker
            .add_event_listener_with_callback("error", on_error.as_ref().unchecked_ref())
            .ok()?;
        Some(Remote {
            worker,
            ready: false,
            busy: false,
            pending: None,
            on_message,
            on_error,
        })
    }

    /// The worker of `which` says it listens: it posts what waits.
    fn ready(self, which: Which) {
        let started = |r: &mut Remote| {
            r.ready = true;
            if let Some(request) = r.pending.take() {
                r.post(&request);
            }
        };
        match which {
            Which::Run => self.remote.update_value(|r| r.as_mut().map_or((), started)),
            Which::Drill => self
                .drill_worker
                .update_value(|d| d.as_mut().map_or((), |DrillWorker(r)| started(r))),
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
            Reply::Done {
                analysis,
                placement,
            } => {
                self.idle();
                // The drill-down's job: read again here (cheap), placed as the worker's run.
                let kept = CudaJob::new(
                    &run.inputs.source,
                    &run.inputs.launch,
                    run.machine,
                    run.cache_bytes,
                    run.arch,
                )
                .ok()
                .map(|mut job| {
                    job.adopt(placement);
                    // A warp that loops longer is drilled into by a worker (`Jobs::drill`).
                    job.iteration_budget(super::IN_PAGE_ITERATIONS);
                    job
                });
                self.kept.set_value(kept);
                self.analysis.set(Some((run, *analysis)));
                self.status.set(Status::Done);
            }
            Reply::Failed(reported) => {
                self.idle();
                self.fail(run, reported.into_failure(), repair);
            }
            // A drill-down's answer comes from its own worker, never this one.
            Reply::Executions(_) => {}
        }
    }

    fn idle(self) {
        self.remote_run.set_value(None);
        self.remote.update_value(|r| {
            if let Some(r) = r {
                r.busy = false;
            }
        });
    }

    /// The worker's script did not load, or the interpreter trapped inside it.
    fn worker_failed(self, message: String) {
        let started = self
            .remote
            .with_value(|r| r.as_ref().is_some_and(|r| r.ready));
        self.remote.set_value(None);
        if !started {
            return self.in_page_instead();
        }
        let Some((ticket, run, repair)) = self.remote_run.get_value() else {
            return;
        };
        self.remote_run.set_value(None);
        if self.generation.get_value() == ticket {
            let what = format!(
                "the interpreter stopped unexpectedly ({message}); the rest of the page keeps \
                 working. Please report this link"
            );
            self.fail(run, words(&what), repair);
        }
    }

    /// Drops the drill-down and its worker.
    pub(super) fn forget_drill(self) {
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
    }
}
