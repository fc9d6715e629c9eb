//! Reading a trace as it arrives, for the page and for its Web Worker alike: a picked file's
//! stream or a fetched response's body, fed to the model's importer a chunk at a time, so that
//! the file is never held whole. The caller paces it: after each piece of [`PIECE_BYTES`] it
//! is asked whether to go on, and may take a turn first (the page's thread) or post progress
//! (the worker).

use crate::model::trace::Importer;
use js_sys::{Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStream, ReadableStreamDefaultReader, Response};

/// Bytes fed to the importer between two looks at the clock: a few milliseconds of work.
pub const PIECE_BYTES: usize = 64 * 1024;

/// The browser's words for a failure.
pub fn js_error(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "the browser could not read it".into())
}

/// The body of the response `fetch` promises for `path`, and its length when the host says.
pub async fn fetched(fetch: Promise, path: &str) -> Result<(ReadableStream, Option<f64>), String> {
    let response: Response = JsFuture::from(fetch)
        .await
        .map_err(js_error)?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("{path}: the site answered {}", response.status()));
    }
    let length = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|l| l.parse::<f64>().ok());
    let body = response
        .body()
        .ok_or_else(|| format!("{path}: the response has no body"))?;
    Ok((body, length))
}

/// Feeds `stream` to `importer` to its end. After each piece, `go_on(bytes read)` resolves to
/// whether to read on; `Ok(false)` when it said no (the stream is then cancelled).
pub async fn feed<F, Fut>(
    stream: ReadableStream,
    importer: &mut Importer,
    mut go_on: F,
) -> Result<bool, String>
where
    F: FnMut(u64) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut buffer = Vec::new();
    loop {
        let result = JsFuture::from(reader.read()).await.map_err(js_error)?;
        let done = Reflect::get(&result, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(true);
        }
        let Ok(value) = Reflect::get(&result, &"value".into()) else {
            return Ok(true);
        };
        let chunk: Uint8Array = value.unchecked_into();
        buffer.resize(chunk.length() as usize, 0);
        chunk.copy_to(&mut buffer);
        // A browser may hand over megabytes at once: fed in pieces.
        for piece in buffer.chunks(PIECE_BYTES) {
            importer.feed(piece);
            if !go_on(importer.bytes()).await {
                let _ = reader.cancel();
                return Ok(false);
            }
        }
    }
}
