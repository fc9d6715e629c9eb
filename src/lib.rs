//! Coalescing Lab: a page that teaches GPU global-memory coalescing.
//!
//! - `model`: pure Rust, the numbers and the words (std and serde only).
//! - `charts`: drawing functions generic over plotters' DrawingBackend.
//! - `gpu`: the WebGPU strided-load probe (wasm32 only).
//! - `ui`: Leptos components that wire signals to the model (wasm32 and the `ui` feature).
//! - `stream`: a trace read as it arrives, for the page and its worker (wasm32).
//! - `worker`: the page's Web Worker: the CUDA interpreter, the kernel engine and the trace
//!   reader off the page's thread (wasm32 without the `ui` feature: the worker's own build).

// No panic reaches a user: outside tests, a missing value is handled, never unwrapped.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod charts;
pub mod model;

#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub mod gpu;
#[cfg(target_arch = "wasm32")]
pub mod stream;
#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub mod ui;
// Not in the page's build: its bindings would cost the first load's glue.
#[cfg(all(target_arch = "wasm32", not(feature = "ui")))]
pub mod worker;
