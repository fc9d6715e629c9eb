//! The page's first result: the model alone (no Leptos), which writes the link's result into
//! the static first content while the main module is still on its way
//! (`model::calculator::first_result`; public/shell.js loads it). Trunk builds it without the
//! `ui` feature (index.html).

// No panic reaches a user: outside tests, a missing value is handled, never unwrapped.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

#[cfg(all(target_arch = "wasm32", not(feature = "ui")))]
mod page {
    use wasm_bindgen::prelude::wasm_bindgen;

    /// The first content's HTML for the link `query` (`location.search`); empty when the
    /// link opens another panel.
    #[wasm_bindgen]
    pub fn first_result(query: &str) -> String {
        coalescing_lab::model::calculator::first_result::first_result(query)
    }
}

fn main() {
    #[cfg(not(all(target_arch = "wasm32", not(feature = "ui"))))]
    eprintln!("first-result is loaded by the page (public/shell.js): run `make serve`");
}
