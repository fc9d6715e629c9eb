//! The page's Web Worker: the CUDA interpreter, the kernel view's engine and the trace reader
//! off the page's thread, so that a warp that loops for seconds, a launch that takes seconds or
//! a 200 MB trace never holds the page. Each message is a run (`model::cuda_view::wire::Request`,
//! a kernel view's `model::kernel::wire::Request`) or a trace panel's ask
//! (`model::trace::wire::Ask`, a read with its `File` or address beside it); the worker answers
//! with progress, then the figures or the failure, and keeps the trace it read last for the
//! page's asks for rows and the CSV. The page cancels a run by terminating the worker.
//!
//! The worker is its own small wasm (`src/bin/cuda-worker.rs`, built without the `ui`
//! feature): it never touches the DOM, and a trap inside it ends the worker, not the page.

use crate::model::cuda_view::wire::answer;
use crate::model::kernel::wire as kernel;
use crate::model::trace::wire::{Ask, Reply, Served};
use crate::model::trace::Importer;
use crate::model::warm::{warm_up, Engine};
use js_sys::Reflect;
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, ReadableStream};

/// The worker's own time between two progress replies of a trace read, in milliseconds.
const PROGRESS_MS: f64 = 50.0;

/// How long the worker warms an engine up when its panel asks (`model::warm`), in
/// milliseconds: long enough for the engine's hot functions to be queued for the optimising
/// compiler, and short beside the launches that need a worker (a slice is 35 ms).
const WARM_UP_MS: f64 = 20.0;

thread_local! {
    /// The trace read last, for the trace panel's asks for rows and the CSV.
    static SERVED: RefCell<Served> = RefCell::new(Served::default());
}

/// Answers the page's messages for as long as the worker lives.
pub fn listen() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let mut post = |reply: String| {
            let _ = replies.post_message(&JsValue::from_str(&reply));
        };
        // A trace to read comes as `{ text, source }`, the source a `File` or an address.
        let Some(text) = data.as_string() else {
            let text = Reflect::get(&data, &"text".into())
                .ok()
                .and_then(|t| t.as_string());
            let source = Reflect::get(&data, &"source".into()).unwrap_or(JsValue::UNDEFINED);
            if let Some(Ask::Read(options)) = text.as_deref().and_then(Ask::decode) {
                let scope = replies.clone();
                wasm_bindgen_futures::spawn_local(read_trace(scope, source, options));
            }
            return;
        };
        if let Some(engine) = Engine::decode(&text) {
            warm_up(engine, &mut js_sys::Date::now, WARM_UP_MS);
        } else if let Some(ask) = Ask::decode(&text) {
            if let Some(reply) = SERVED.with(|s| s.borrow().answer(&ask)) {
                post(reply.encode());
            }
        } else if kernel::Request::is_one(&text) {
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

/// Reads the trace at `source` (a `File`, or an address on the page's site) by `options`,
/// posting progress every [`PROGRESS_MS`], then the figures, or why not.
async fn read_trace(
    scope: DedicatedWorkerGlobalScope,
    source: JsValue,
    options: crate::model::trace::TraceOptions,
) {
    let post = |reply: Reply| {
        let _ = scope.post_message(&JsValue::from_str(&reply.encode()));
    };
    let opened = match source.as_string() {
        Some(address) => crate::stream::fetched(scope.fetch_with_str(&address), &address).await,
        None => match source.dyn_into::<web_sys::File>() {
            Ok(file) => Ok((file.stream(), Some(file.size()))),
            Err(_) => Err("the page sent no file to read".to_string()),
        },
    };
    let (stream, total): (ReadableStream, Option<f64>) = match opened {
        Ok(opened) => opened,
        Err(why) => return post(Reply::Failed(why)),
    };
    let total = total.map(|t| t as u64);
    let mut importer = Importer::new(options);
    let mut last = js_sys::Date::now();
    let read = crate::stream::feed(stream, &mut importer, |bytes| {
        let now = js_sys::Date::now();
        if now - last >= PROGRESS_MS {
            last = now;
            post(Reply::Progress { bytes, total });
        }
        std::future::ready(true)
    })
    .await;
    match read {
        Ok(_) => {
            let analysis = importer.finish();
            let reply = SERVED.with(|s| s.borrow_mut().done(analysis, memory_bytes()));
            post(reply);
        }
        Err(why) => post(Reply::Failed(why)),
    }
}
