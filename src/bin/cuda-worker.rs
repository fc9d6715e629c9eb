//! The CUDA source panel's Web Worker: answers the page's runs (`coalescing_lab::worker`).
//! Trunk builds it without the `ui` feature (index.html), so it holds the model only.

// No panic reaches a user: outside tests, a missing value is handled, never unwrapped.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

#[cfg(all(target_arch = "wasm32", not(feature = "ui")))]
fn main() {
    coalescing_lab::worker::listen();
}

#[cfg(not(all(target_arch = "wasm32", not(feature = "ui"))))]
fn main() {
    eprintln!(
        "cuda-worker is the page's Web Worker: run `make serve`, or use coalescing-lab-cli cuda"
    );
}
