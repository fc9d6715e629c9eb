//! One component, one signal, one button: what any Leptos CSR page costs to load.
use leptos::prelude::*;

#[component]
fn Floor() -> impl IntoView {
    let clicks = RwSignal::new(0);
    // Effects run after the first render, so the button is in the DOM by now, as the app's
    // results are when it marks `app-ready`; the bench reads the same mark on both pages.
    Effect::new(|_| {
        if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
            let _ = performance.mark("app-ready");
        }
    });
    view! {
        <button type="button" on:click=move |_| clicks.update(|n| *n += 1)>
            "Clicked " {move || clicks.get()} " times"
        </button>
    }
}

fn main() {
    mount_to_body(Floor);
}
