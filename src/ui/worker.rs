//! The page's side of its Web Worker (`src/worker.rs`), for every panel that sends it work:
//! the CUDA panel, the kernel view and the trace panel. A handle starts a worker, holds a request until the
//! worker says it listens, hands its answers and its death to the panel, and terminates it
//! when dropped: a busy run is cancelled by dropping its worker, and the next run starts
//! another. The kernel view's worker comes with a second one that keeps its launches' cache
//! model ([`Remote::spawn_paired`]); the two talk through a channel of their own, and go
//! together.
//!
//! The worker is reached through `Reflect` and the `EventTarget` calls the page already
//! imports, not web-sys's `Worker`, `MessageEvent` and `ErrorEvent`: wasm-bindgen puts every
//! import's shim in the first load's glue; those eight cost it 0.1–0.2 KB gzip, measured.

use crate::model::warm::Engine;
use js_sys::{Array, Function, Reflect};
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, EventTarget};

/// One worker and the request it serves.
pub(crate) struct Remote {
    worker: EventTarget,
    /// Whether it has said it listens.
    ready: bool,
    /// Whether a request is posted and not answered (the panel's to say).
    pub(crate) busy: bool,
    /// A request waiting for the worker to listen.
    pending: Option<JsValue>,
    on_message: Closure<dyn FnMut(Event)>,
    on_error: Closure<dyn FnMut(Event)>,
    /// The worker that keeps this one's cache model, when it has one.
    helper: Option<Helper>,
    /// This worker's end of the channel to its helper, posted once it listens.
    port: Option<JsValue>,
}

/// A second worker that keeps the first's cache model (`model::warp::CacheServer`; #26, "split
/// request-level and unique figures across workers: only the cache depends on order"). It
/// talks to the first through a channel of their own; the page only starts it, hands it its
/// end of the channel, hears of its death, and terminates it with the first.
struct Helper {
    worker: EventTarget,
    on_message: Closure<dyn FnMut(Event)>,
    on_error: Closure<dyn FnMut(Event)>,
}

impl Drop for Helper {
    fn drop(&mut self) {
        unlisten(&self.worker, &self.on_message, &self.on_error);
    }
}

impl Remote {
    /// A worker whose first message, "ready", goes to `on_ready` (which calls
    /// [`Remote::started`] on the handle it keeps), its other messages to `on_text`, and its
    /// failure to start, or its death (a trap), to `on_error` with the browser's words.
    /// `None` where the build has no worker or the browser cannot start one.
    pub(crate) fn spawn(
        on_ready: impl Fn() + 'static,
        on_text: impl Fn(&str) + 'static,
        on_error: impl Fn(String) + 'static,
    ) -> Option<Remote> {
        Remote::spawn_with(on_ready, on_text, Rc::new(on_error), false)
    }

    /// [`Remote::spawn`], with a second worker that keeps the first's cache model for its
    /// launches, started beside it; its death goes to `on_error` too. Where the second cannot
    /// start, the first keeps its cache itself.
    pub(crate) fn spawn_paired(
        on_ready: impl Fn() + 'static,
        on_text: impl Fn(&str) + 'static,
        on_error: impl Fn(String) + 'static,
    ) -> Option<Remote> {
        Remote::spawn_with(on_ready, on_text, Rc::new(on_error), true)
    }

    fn spawn_with(
        on_ready: impl Fn() + 'static,
        on_text: impl Fn(&str) + 'static,
        on_error: Rc<dyn Fn(String)>,
        paired: bool,
    ) -> Option<Remote> {
        let url = script()?;
        let worker = new_worker(&url)?;
        let (helper, port) = if paired {
            pair(&url, on_error.clone()).unzip()
        } else {
            (None, None)
        };
        let on_message = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let Some(text) = text_of(&event, "data") else {
                return;
            };
            if text == "ready" {
                on_ready();
            } else {
                on_text(&text);
            }
        });
        let on_error = failure(on_error);
        listen(&worker, &on_message, &on_error)?;
        Some(Remote {
            worker,
            ready: false,
            busy: false,
            pending: None,
            on_message,
            on_error,
            helper,
            port,
        })
    }

    /// Posts `text` now, or once the worker listens.
    pub(crate) fn send(&mut self, text: String) {
        self.send_value(JsValue::from_str(&text));
    }

    /// Posts `message` (anything structured clone takes: a `File` with its text) now, or once
    /// the worker listens.
    pub(crate) fn send_value(&mut self, message: JsValue) {
        if self.ready {
            self.post(&message);
        } else {
            self.pending = Some(message);
        }
    }

    /// The worker says it listens: what waits is posted.
    pub(crate) fn started(&mut self) {
        self.ready = true;
        if let Some(port) = self.port.take() {
            post_port(&self.worker, &port, "engine");
        }
        if let Some(message) = self.pending.take() {
            self.post(&message);
        }
    }

    /// The worker says it listens: what waits is posted, or, when nothing does, the warm-up
    /// of the panel's `engine` (`model::warm`: the engine's code compiled for speed before
    /// the first launch; a launch that waits warms it by itself).
    pub(crate) fn started_warming(&mut self, engine: Engine) {
        let idle = self.pending.is_none();
        self.started();
        if idle {
            self.post(&JsValue::from_str(engine.message()));
        }
    }

    /// Whether the worker has said it listens: one that dies before is one that never started.
    pub(crate) fn is_ready(&self) -> bool {
        self.ready
    }

    fn post(&self, message: &JsValue) {
        call(&self.worker, "postMessage", message);
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        unlisten(&self.worker, &self.on_message, &self.on_error);
        // Its cache worker goes with it.
        drop(self.helper.take());
    }
}

/// The page's handler of a worker's failure to start, or death: the browser's words to
/// `on_error`.
fn failure(on_error: Rc<dyn Fn(String)>) -> Closure<dyn FnMut(Event)> {
    // A script that does not load fires a plain `Event`; an error thrown inside the
    // worker (a trap among them) an `ErrorEvent` with its message.
    Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        event.prevent_default();
        on_error(text_of(&event, "message").unwrap_or_else(|| "the worker did not start".into()));
    })
}

fn listen(
    worker: &EventTarget,
    on_message: &Closure<dyn FnMut(Event)>,
    on_error: &Closure<dyn FnMut(Event)>,
) -> Option<()> {
    worker
        .add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref())
        .ok()?;
    worker
        .add_event_listener_with_callback("error", on_error.as_ref().unchecked_ref())
        .ok()
}

/// Stops `worker`; no event reaches its closures once they are gone.
fn unlisten(
    worker: &EventTarget,
    on_message: &Closure<dyn FnMut(Event)>,
    on_error: &Closure<dyn FnMut(Event)>,
) {
    let _ =
        worker.remove_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
    let _ = worker.remove_event_listener_with_callback("error", on_error.as_ref().unchecked_ref());
    call(worker, "terminate", &JsValue::UNDEFINED);
}

/// A cache worker from `url` and a channel to it: the helper, which takes its end of the
/// channel once it listens, and the first worker's end. `None` where either cannot be made.
fn pair(url: &str, on_error: Rc<dyn Fn(String)>) -> Option<(Helper, JsValue)> {
    // The same channel `ui::job::soon` makes: its imports are in the first load already.
    let channel = web_sys::MessageChannel::new().ok()?;
    let (mine, theirs) = (
        JsValue::from(channel.port1()),
        JsValue::from(channel.port2()),
    );
    let worker = new_worker(url)?;
    let target = worker.clone();
    let mut theirs = Some(theirs);
    let on_message = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        if text_of(&event, "data").as_deref() == Some("ready") {
            if let Some(port) = theirs.take() {
                post_port(&target, &port, "cache");
                // Its code compiled for speed before the first launch, as the engine's is.
                call(
                    &target,
                    "postMessage",
                    &JsValue::from_str(Engine::Kernel.message()),
                );
            }
        }
    });
    let on_error = failure(on_error);
    listen(&worker, &on_message, &on_error)?;
    Some((Helper { worker, on_message, on_error }, mine))
}

/// Posts `{ cachePort: port, role }` to `worker`, the port transferred.
fn post_port(worker: &JsValue, port: &JsValue, role: &str) {
    let message = js_sys::Object::new();
    let _ = Reflect::set(&message, &JsValue::from_str("cachePort"), port);
    let _ = Reflect::set(
        &message,
        &JsValue::from_str("role"),
        &JsValue::from_str(role),
    );
    let post = Reflect::get(worker, &JsValue::from_str("postMessage"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok());
    if let Some(post) = post {
        let _ = post.call2(worker, &message, &Array::of1(port));
    }
}

/// Where a panel keeps the worker of its runs, idle between them.
pub(crate) type Slot = StoredValue<Option<Remote>, LocalStorage>;

/// The slot's worker has answered its run: it is idle, and takes the next; the run it held
/// is done.
pub(crate) fn settle<T: Send + Sync + 'static>(slot: Slot, held: StoredValue<Option<T>>) {
    held.set_value(None);
    slot.update_value(|r| {
        if let Some(r) = r {
            r.busy = false;
        }
    });
}

/// The slot's worker failed, and goes: whether it had started (it died mid-run) rather than
/// never loaded (the run then belongs on the page's thread).
pub(crate) fn drop_failed(slot: Slot) -> bool {
    let started = slot.with_value(|r| r.as_ref().is_some_and(Remote::is_ready));
    slot.set_value(None);
    started
}

/// What became of a runner's worker that failed.
pub(crate) enum Failed<T> {
    /// It never loaded: the run it was given (still held) belongs on the page's thread.
    NeverStarted,
    /// It died mid-run, with the run it held, taken (`None` when it held none).
    Died(Option<T>),
}

/// The slot's worker failed, and goes; a worker that had started gives up `held`'s run.
pub(crate) fn take_failed<T: Send + Sync + 'static>(
    slot: Slot,
    held: StoredValue<Option<T>>,
) -> Failed<T> {
    if !drop_failed(slot) {
        return Failed::NeverStarted;
    }
    Failed::Died(held.try_update_value(Option::take).flatten())
}

/// Whether this build has a worker (`tools/split.mjs` names it on the shell script's tag).
pub(crate) fn available() -> bool {
    script().is_some()
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

/// The worker's script as this build named it, or `None` where the build has none.
fn script() -> Option<String> {
    let document = web_sys::window()?.document()?;
    let tag = document.query_selector("script[data-cuda-worker]").ok()??;
    tag.get_attribute("data-cuda-worker")
        .filter(|s| !s.is_empty())
}
