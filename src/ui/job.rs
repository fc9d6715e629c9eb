//! The page's side of a long job, for every panel that runs one: the clock the model's
//! `job::Slicer` reads, and a turn for the page between slices. How much runs per slice is the
//! model's rule (`model::job`); this file only supplies what needs a browser.

use leptos::prelude::*;
use std::time::Duration;

/// Where a panel's long job stands (the kernel view's, the CUDA panel's); a failure carries
/// `F`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Status<F> {
    /// Nothing to run.
    Idle,
    /// Units done, of all.
    Running {
        done: u64,
        total: u64,
    },
    Done,
    Cancelled,
    Failed(F),
}

impl<F> Status<F> {
    /// As the status element's `data-value` says it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Running { .. } => "running",
            Status::Done => "done",
            Status::Cancelled => "cancelled",
            Status::Failed(_) => "failed",
        }
    }

    /// Units done and in all, while running.
    pub(crate) fn progress(&self) -> Option<(u64, u64)> {
        match *self {
            Status::Running { done, total } => Some((done, total)),
            _ => None,
        }
    }
}

/// `performance.now()`, in milliseconds; 0 without a window.
pub(crate) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Runs `f` in a task of its own as soon as the page has had its turn: a message to ourselves,
/// which browsers do not clamp to 4 ms after a few nested calls as they clamp a zero timeout
/// (that clamp alone cost about a tenth of a long run).
pub(crate) fn soon(f: impl FnOnce() + 'static) {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        set_timeout(f, Duration::from_millis(0));
        return;
    };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    channel
        .port1()
        .set_onmessage(Some(wasm_bindgen::JsCast::unchecked_ref(&callback)));
    // Posting `null` cannot fail: it is always cloneable.
    let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
}

/// A future that resolves after the page has had its turn, through [`soon`]: for jobs written
/// as `async` loops (reading a file).
pub(crate) async fn next_turn() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        soon(move || {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        });
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
