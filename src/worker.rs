//! The page's Web Worker: the CUDA interpreter, the kernel view's engine and the trace reader
//! off the page's thread, so that a warp that loops for seconds, a launch that takes seconds or
//! a 200 MB trace never holds the page. Each message is a run (`model::cuda_view::wire::Request`,
//! a whole program's `ProgramRequest`, a kernel view's `model::kernel::wire::Request`) or a
//! trace panel's ask (`model::trace::wire::Ask`, a read with its `File` or address beside it);
//! the worker answers with progress, then the figures or the failure, and keeps the trace it
//! read last for the page's asks for rows and the CSV, and the program it ran last for the
//! page's asks for another launch's figures. The page cancels a run by terminating the worker.
//!
//! The worker is its own small wasm (`src/bin/cuda-worker.rs`, built without the `ui`
//! feature): it never touches the DOM, and a trap inside it ends the worker, not the page.

use crate::model::cuda_view::wire::{answer, ProgramServer};
use crate::model::kernel::wire as kernel;
use crate::model::trace::wire::{Ask, Reply, Served};
use crate::model::trace::Importer;
use crate::model::warm::{warm_up, Engine};
use crate::model::warp::CacheServer;
use js_sys::{Array, Reflect, Uint32Array};
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, MessagePort, ReadableStream};

/// The worker's own time between two progress replies of a trace read, in milliseconds.
const PROGRESS_MS: f64 = 50.0;

/// How long the worker warms an engine up when its panel asks (`model::warm`), in
/// milliseconds: long enough for the engine's hot functions to be queued for the optimising
/// compiler, and short beside the launches that need a worker (a slice is 35 ms).
const WARM_UP_MS: f64 = 20.0;

thread_local! {
    /// The trace read last, for the trace panel's asks for rows and the CSV.
    static SERVED: RefCell<Served> = RefCell::new(Served::default());
    /// This worker's cache worker, when the page gave it one: the kernel view's launches
    /// hand it their cache model (`model::warp::CacheServer`).
    static CACHE_PORT: RefCell<Option<MessagePort>> = const { RefCell::new(None) };
    /// The launch counted here, waiting for the cache worker's answer.
    static WAITING: RefCell<Option<kernel::Waiting>> = const { RefCell::new(None) };
    /// As a cache worker: the cache model it keeps for another worker.
    static CACHE: RefCell<CacheServer> = RefCell::new(CacheServer::default());
    /// The program run last, for the page's asks for another of its launches.
    static PROGRAMS: RefCell<ProgramServer> = RefCell::new(ProgramServer::default());
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
        // A trace to read comes as `{ text, source }`, the source a `File` or an address; a
        // cache worker's port as `{ cachePort, role }`.
        let Some(text) = data.as_string() else {
            if let Ok(port) = Reflect::get(&data, &"cachePort".into()) {
                if let Ok(port) = port.dyn_into::<MessagePort>() {
                    let role = Reflect::get(&data, &"role".into())
                        .ok()
                        .and_then(|r| r.as_string());
                    return take_port(port, role.as_deref() == Some("cache"), replies.clone());
                }
            }
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
            match CACHE_PORT.with(|p| p.borrow().clone()) {
                Some(port) => {
                    let waiting = kernel::answer_handing_off(
                        &text,
                        &mut js_sys::Date::now,
                        &mut memory_bytes,
                        &mut post,
                        &mut |words| send_words(&port, &words),
                    );
                    WAITING.with(|w| *w.borrow_mut() = waiting);
                }
                None => kernel::answer(&text, &mut js_sys::Date::now, &mut memory_bytes, &mut post),
            }
        } else {
            let scope = replies.clone();
            let post_program = std::rc::Rc::new(move |reply: String| {
                let _ = scope.post_message(&JsValue::from_str(&reply));
            });
            let program = PROGRAMS.with(|p| {
                p.borrow_mut()
                    .answer(&text, js_sys::Date::now, post_program)
            });
            if !program {
                answer(&text, &mut js_sys::Date::now, &mut post);
            }
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // The page holds its first request until the worker says it listens.
    let _ = scope.post_message(&JsValue::from_str("ready"));
}

/// Keeps `port` to the other worker of a pair: as the cache worker (`serves`), meets the
/// words that come through it and answers there at each stream's end; as the engine's, hands
/// its launches' cache model through it, and posts a waiting launch's figures to the page
/// (`scope`) when the answer comes.
fn take_port(port: MessagePort, serves: bool, scope: DedicatedWorkerGlobalScope) {
    let back = port.clone();
    let on_words = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let words = Uint32Array::new(&event.data()).to_vec();
        if serves {
            let answer = CACHE.with(|c| c.borrow_mut().receive(&words));
            match answer {
                Ok(Some(answer)) => send_words(&back, &answer),
                Ok(None) => {}
                // Never from this build's engine; the engine then reports the run failed.
                Err(_) => send_words(&back, &[]),
            }
        } else if let Some(waiting) = WAITING.with(|w| w.borrow_mut().take()) {
            waiting.complete(&words, &mut memory_bytes, &mut |reply: String| {
                let _ = scope.post_message(&JsValue::from_str(&reply));
            });
        }
    });
    port.set_onmessage(Some(on_words.as_ref().unchecked_ref()));
    on_words.forget();
    if !serves {
        CACHE_PORT.with(|p| *p.borrow_mut() = Some(port));
    }
}

/// Posts `words` through `port`, their buffer transferred.
fn send_words(port: &MessagePort, words: &[u32]) {
    let array = Uint32Array::from(words);
    let _ = port.post_message_with_transferable(&array, &Array::of1(&array.buffer()));
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
