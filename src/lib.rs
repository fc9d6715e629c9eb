//! Coalescing Lab: a page that teaches GPU global-memory coalescing.
//!
//! - `model`: pure Rust, the numbers and the words (std and serde only).
//! - `charts`: drawing functions generic over plotters' DrawingBackend.
//! - `gpu`: the WebGPU strided-load probe (wasm32 only).
//! - `ui`: Leptos components that wire signals to the model (wasm32 only).

// No panic reaches a user: outside tests, a missing value is handled, never unwrapped.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod charts;
pub mod model;

#[cfg(target_arch = "wasm32")]
pub mod gpu;
#[cfg(target_arch = "wasm32")]
pub mod ui;
