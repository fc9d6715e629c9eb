//! The WebGPU strided-load probe, for wasm32 only. Its whole interface:
//!
//! - [`detect`] asks for an adapter and says what it is, or why there is none;
//! - [`run`] runs a [`Plan`](crate::model::probe::Plan) on a fresh device: fill the buffer on
//!   the GPU, then for each stride one checked pass, the warm-up passes and the timed passes,
//!   reporting progress and stopping when asked.
//!
//! Sizing, predictions, checksums, uniforms and statistics live in `model::probe`; this module
//! only talks to the GPU and reads clocks. It uses web-sys's WebGPU bindings, which need
//! `--cfg=web_sys_unstable_apis` (see `.cargo/config.toml`); web-sys is pinned to an exact
//! version in Cargo.toml because those bindings change without semver.
//!
//! Its parts: `adapter` (finding one, or why not), `bench` (the device, pipelines and
//! buffers of one run, and its passes) and `run` (a run's steps and progress).

mod adapter;
mod bench;
mod run;

pub use adapter::{detect, Detection, Unavailable};
pub use run::{run, Outcome, Progress};

use std::fmt;
use wasm_bindgen::{JsCast, JsValue};

/// Why a run stopped without results.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The visitor pressed Cancel.
    Cancelled,
    /// There was no adapter to run on.
    Unavailable(Unavailable),
    /// The browser took the device away (`device.lost`): driver reset, sleep, or the tab
    /// was throttled.
    Lost(String),
    /// Anything else, worded for people.
    Error(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Cancelled => f.write_str("cancelled"),
            Failure::Unavailable(why) => why.fmt(f),
            Failure::Lost(why) | Failure::Error(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Failure {}

/// A failed WebGPU call, worded as "what was being done: what the browser said".
fn error(context: &str, e: JsValue) -> Failure {
    let text = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    Failure::Error(format!("{context}: {text}"))
}
