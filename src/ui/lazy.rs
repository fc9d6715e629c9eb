//! Panels whose code arrives when they are first opened.
//!
//! Each panel's entry is a `wasm_split` point: the release build (`tools/split.mjs`) cuts
//! the code reachable only from that entry out of the main wasm into a chunk of its own, which
//! the page fetches the first time the entry is called. The entry returns the panel's builder,
//! a plain function pointer, so the panel is built here, under the owner of the view that shows
//! it, and not inside the loader's future.
//!
//! A chunk that fails to load (offline, a server error) leaves the panel saying so with a
//! Retry button; the failure is not cached, so Retry fetches again. The rest of the page keeps
//! working: it never needed that chunk.

use super::AppState;
use crate::model::permalink::Tab;
use leptos::prelude::*;
use leptos::wasm_split::{wasm_split, SplitLoaderError};
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::JsCast;

/// Builds a panel's view; what a panel's chunk hands back once it has loaded.
pub type Build = fn(AppState) -> AnyView;

/// A chunk could not be fetched or instantiated (details are in the browser console).
#[derive(Debug, Clone, Copy)]
pub struct LoadFailed;

impl From<SplitLoaderError> for LoadFailed {
    fn from(_: SplitLoaderError) -> Self {
        LoadFailed
    }
}

/// Loads a panel's chunk, if it is not loaded yet, and hands back the panel's builder.
pub type Loader = fn() -> Pin<Box<dyn Future<Output = Result<Build, LoadFailed>>>>;

#[wasm_split(roofline, fallible, wasm_split_path = ::leptos::wasm_split)]
fn roofline_build() -> Result<Build, LoadFailed> {
    Ok(|state| view! { <super::roofline::RooflineLab state=state /> }.into_any())
}

#[wasm_split(probe, fallible, wasm_split_path = ::leptos::wasm_split)]
fn probe_build() -> Result<Build, LoadFailed> {
    Ok(|state| view! { <super::probe::ProbePanel state=state /> }.into_any())
}

// The trace panel and the kernel view share one chunk: a trace is replayed through the kernel
// view's cache model, and in chunks of their own every cache access crossed modules (through
// the function table, never inlined), which made the kernel view 1.5× slower.
#[wasm_split(kernel_trace, fallible, wasm_split_path = ::leptos::wasm_split)]
fn trace_build() -> Result<Build, LoadFailed> {
    Ok(|state| view! { <super::trace::TracePanel state=state /> }.into_any())
}

#[wasm_split(kernel_trace, fallible, wasm_split_path = ::leptos::wasm_split)]
fn kernel_build() -> Result<Build, LoadFailed> {
    Ok(|state| view! { <super::kernel::KernelPanel state=state /> }.into_any())
}

// The CUDA source panel has a chunk of its own. Measured both ways (gzip): sharing
// `kernel_trace` made opening the kernel view or the trace panel fetch 346 KB instead of
// 176 KB; apart, the CUDA panel adds 225 KB and the warp core's tally and cache move into a
// chunk both use, which made the kernel view's naive transpose about 11 % slower (1.29–1.36 s
// → 1.44–1.55 s; 17 % before the per-sector cache and distinct-sector calls were inlined into
// each chunk). The CUDA run is as fast either way (0.73–0.86 s for the naive transpose).
#[wasm_split(cuda, fallible, wasm_split_path = ::leptos::wasm_split)]
fn cuda_build() -> Result<Build, LoadFailed> {
    Ok(|state| view! { <super::cuda::CudaPanel state=state /> }.into_any())
}

/// The Roofline lab's loader.
pub const ROOFLINE: Loader = || Box::pin(roofline_build());
/// The GPU probe's loader.
pub const PROBE: Loader = || Box::pin(probe_build());
/// The trace panel's loader.
pub const TRACE: Loader = || Box::pin(trace_build());
/// The kernel view's loader.
pub const KERNEL: Loader = || Box::pin(kernel_build());
/// The CUDA source panel's loader.
pub const CUDA: Loader = || Box::pin(cuda_build());

thread_local! {
    /// The static first content's panel section (index.html #shell), kept by [`take_shell`]
    /// for the panel that the first load opens on: `(panel, inner HTML)`.
    static SHELL: std::cell::RefCell<Option<(String, String)>> = const { std::cell::RefCell::new(None) };
}

/// Removes the static first content (index.html #shell, shown by public/shell.js while the
/// wasm arrives) and keeps its panel section, so that a panel whose chunk is still on its way
/// goes on showing the same title and introduction, in the same place, until it is built.
pub fn take_shell() {
    let document = leptos::prelude::document();
    let Some(shell) = document.get_element_by_id("shell") else {
        return;
    };
    let root = document.document_element();
    let panel = root
        .as_ref()
        .and_then(|root| root.get_attribute("data-shell"));
    if let (Some("calculator"), Some(root)) = (panel.as_deref(), root.as_ref()) {
        // The calculator is built over a few tasks (`calculator::Calculator`'s stages), with
        // its copy, which already shows the link's result, on screen until [`built`]: one task
        // that built all of it was the first load's longest (docs/performance.md, "The
        // calculator built in stages").
        if root.set_attribute("data-building", "").is_ok() {
            BUILDING.with(|b| b.set(true));
            return;
        }
    }
    if let Some(panel) = panel {
        // `strip_suffix`, not `trim_end_matches`: a pattern searched from the end pulls 1 KB of
        // core's string searcher into the first load.
        let name = panel.strip_suffix("-custom").unwrap_or(&panel).to_string();
        let section = shell
            .query_selector(&format!("[data-shell=\"{name}\"]"))
            .ok()
            .flatten();
        if let Some(section) = section {
            if panel.ends_with("-custom") {
                // Machine mode shows the title alone, as the shell did.
                if let Ok(Some(lead)) = section.query_selector(".lead") {
                    lead.remove();
                }
            }
            SHELL.with(|s| *s.borrow_mut() = Some((name, section.inner_html())));
        }
    }
    shell.remove();
}

thread_local! {
    /// Whether the first panel, the calculator, is being built behind the first content.
    static BUILDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the first panel (the calculator) is being built behind the first content, which
/// [`built`] then removes.
pub fn building() -> bool {
    BUILDING.with(std::cell::Cell::get)
}

/// Ends the calculator's staged first build: in one task, the first content goes and the app
/// (hidden by the stylesheet while the root element carries `data-building`) shows.
pub fn built() {
    if !BUILDING.with(|b| b.replace(false)) {
        return;
    }
    let document = leptos::prelude::document();
    if let Some(shell) = document.get_element_by_id("shell") {
        shell.remove();
    }
    if let Some(root) = document.document_element() {
        let _ = root.remove_attribute("data-building");
    }
}

/// The kept first content for panel `name`, once: only the first load's panel shows it.
fn shell_for(name: &str) -> Option<String> {
    SHELL.with(|s| {
        let mut kept = s.borrow_mut();
        match kept.as_ref() {
            Some((panel, _)) if panel == name => kept.take().map(|(_, html)| html),
            _ => None,
        }
    })
}

/// Where a panel's code stands.
#[derive(Clone, Copy)]
enum Code {
    Loading,
    Failed,
    Ready(Build),
}

/// A panel whose code is fetched when this component is first built. `name` is the panel's
/// short name (`panel-ready:<name>` is marked in the performance timeline once it is built,
/// for `make bench`); `label` names it in the loading and failure messages.
#[component]
pub fn LazyPanel(
    state: AppState,
    load: Loader,
    name: &'static str,
    label: &'static str,
) -> impl IntoView {
    let code = RwSignal::new(Code::Loading);
    // On the first load, the shell's copy of this panel's title and introduction stays on
    // screen while the chunk arrives (from index.html: static, trusted markup).
    let first_content = shell_for(name);
    let fetch = move || {
        code.set(Code::Loading);
        leptos::task::spawn_local(async move {
            code.set(match load().await {
                Ok(build) => Code::Ready(build),
                Err(LoadFailed) => Code::Failed,
            });
        });
    };
    fetch();
    // Built untracked: the panel's own reads must not rebuild it.
    move || {
        match code.get() {
        Code::Ready(build) => {
            let view = untrack(|| build(state));
            // After this task's mount, which follows this closure.
            queue_microtask(move || mark_ready(name));
            view
        }
        Code::Loading => loading(label, first_content.clone()),
        Code::Failed => view! {
            <div class="notice warning panel-failed" role="alert" data-testid="panel-failed">
                <p>
                    {format!("The {label}'s code did not load (offline, or the server did not answer). ")}
                    "The rest of the page keeps working."
                </p>
                <button type="button" data-testid="panel-retry" on:click=move |_| fetch()>
                    "Retry"
                </button>
            </div>
        }
        .into_any(),
    }
    }
}

/// What a panel shows while its chunk is on its way: the first load's copy of its title and
/// introduction when there is one, or a line that says it is loading.
fn loading(label: &'static str, first_content: Option<String>) -> AnyView {
    match first_content {
        Some(html) => view! {
            <div class="panel-loading" role="status" data-testid="panel-loading">
                <span class="visually-hidden">{format!("Loading the {label}…")}</span>
                <div inner_html=html></div>
            </div>
        }
        .into_any(),
        None => view! {
            <p class="panel-loading" role="status" data-testid="panel-loading">
                {format!("Loading the {label}…")}
            </p>
        }
        .into_any(),
    }
}

/// Marks `panel-ready:<name>`; only `make bench` reads it, so a page without the Performance
/// API works the same.
fn mark_ready(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(&format!("panel-ready:{name}"));
    }
}

/// How long after the first result the prefetching starts, in milliseconds. On a slow phone
/// the first seconds belong to the page on show: its first input should not wait behind the
/// compilation of panels nobody has opened yet.
const PREFETCH_AFTER_MS: i32 = 3000;

/// Starts fetching a panel's chunk when its tab shows intent (pointer over it, focus on it);
/// the panel builds from the same load when it is opened. A failure is left to the panel.
pub fn warm(tab: Tab) {
    let load = match tab {
        Tab::Calculator => return,
        Tab::Roofline => ROOFLINE,
        Tab::Probe => PROBE,
        Tab::Trace => TRACE,
        Tab::Kernel => KERNEL,
        Tab::Cuda => CUDA,
    };
    leptos::task::spawn_local(async move {
        let _ = load().await;
    });
}

/// Fetches every panel's chunk that is not loaded yet, one after another, starting a few
/// seconds after the first result and each when the page is idle; a failure is ignored here
/// (the panel retries when opened).
pub fn prefetch_later() {
    leptos::task::spawn_local(async {
        sleep(PREFETCH_AFTER_MS).await;
        let loaders: &[Loader] = &[KERNEL, TRACE, ROOFLINE, PROBE, CUDA];
        for load in loaders {
            idle().await;
            let _ = load().await;
        }
    });
}

/// Resolves after `ms` milliseconds (at once where there is no window).
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let scheduled = web_sys::window().is_some_and(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
                .is_ok()
        });
        if !scheduled {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Resolves when the browser is idle (`requestIdleCallback`, or a timeout where it is missing).
async fn idle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Some(window) = web_sys::window() else {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            return;
        };
        let idle = js_sys::Reflect::get(&window, &"requestIdleCallback".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let scheduled = match idle {
            Some(request) => request.call1(&window, &resolve).is_ok(),
            None => window
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 200)
                .is_ok(),
        };
        if !scheduled {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
