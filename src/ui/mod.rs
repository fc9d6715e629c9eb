//! The Leptos components. They read signals, call the model and lay out what it returns;
//! arithmetic and wording belong in `crate::model`.
//!
//! Data flows one way: URL query → `State` → `Analysis` → DOM, and input events write
//! `State`, which an effect mirrors back to the URL with `history.replaceState`.

mod calculator;
mod panic;
mod url;

use crate::model::permalink::{self, State};
use leptos::prelude::*;

pub use panic::install_panic_hook;

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let initial = permalink::decode(&url::query());
    let inputs = RwSignal::new(initial.calc);
    Effect::new(move |_| {
        let query = inputs.with(|calc| permalink::encode(&State { calc: calc.clone() }));
        url::replace_query(&query);
    });
    // Effects run after the first render, so the results are in the DOM by now:
    // `make bench` reads this mark as "time to first result".
    Effect::new(|_| {
        if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
            // Only the bench reads the mark; the page works without it.
            let _ = performance.mark("app-ready");
        }
    });
    view! {
        <header class="site">
            <h1>"Coalescing Lab"</h1>
            <p class="tagline">"How many sectors does one warp memory instruction really move?"</p>
        </header>
        <main id="main">
            <calculator::Calculator inputs=inputs />
        </main>
        <footer class="site">
            <p>
                "A model, not a measurement: real behaviour depends on the architecture and cache path. "
                "Confirm with a profiler (e.g. Nsight Compute's sectors per request)."
            </p>
        </footer>
    }
}
