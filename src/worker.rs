//! The page's Web Worker: the CUDA interpreter and the kernel view's engine off the page's
//! thread, so that a warp that loops for seconds, or a launch that takes seconds, never holds
//! the page. Each message is a run (`model::cuda_view::wire::Request`, or a kernel view's
//! `model::kernel::wire::Request`); the worker answers with progress after every slice, then
//! the figures or the failure. The page cancels a run by terminating the worker.
//!
//! The worker is its own small wasm (`src/bin/cuda-worker.rs`, built without the `ui`
//! feature): it never touches the DOM, and a trap inside it ends the worker, not the page.

use crate::model::cuda_view::wire::answer;
use crate::model::kernel::wire as kernel;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Answers the page's messages for as long as the worker lives.
pub fn listen() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let Some(text) = event.data().as_string() else {
            return;
        };
        let mut post = |reply: String| {
            let _ = replies.post_message(&JsValue::from_str(&reply));
        };
        if kernel::Request::is_one(&text) {
            kernel::answer(&text, &mut js_sys::Date::now, &mut memory_bytes, &mut post);
        } else {
            answer(&text, &mut js_sys::Date::now, &mut post);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // The page holds its first request until the worker says it listens.
    let _ = scope.post_message(&JsValue::from_str("ready"));
}

/// The worker's wasm memory, in bytes: it only grows, so at a run's end it is the most that
/// run needed.
fn memory_bytes() -> u64 {
    (core::arch::wasm32::memory_size::<0>() as u64) * 65536
}
