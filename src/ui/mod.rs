//! The Leptos components. They read signals, call the model and lay out what it returns;
//! arithmetic and wording belong in `crate::model`.
//!
//! Data flows one way: URL query → `State` → derived results → DOM. Input events write the
//! state's signals, and one effect mirrors them back to the URL with `history.replaceState`.

mod builders;
mod calculator;
mod canvas;
mod cuda;
mod figure;
mod job;
mod kernel;
mod lazy;
mod panic;
mod probe;
mod roofline;
mod roofline_handoffs;
mod roofline_machine;
mod share;
mod trace;
mod url;
mod widgets;
mod worker;

use crate::model::inputs::Inputs;
use crate::model::permalink::{self, State, Tab};
use crate::model::roofline::LabNote;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

pub use lazy::take_shell;
pub use panic::install_panic_hook;

/// Writes [`AppState`] from the list of [`State`]'s parts (`permalink::state_parts!`), so
/// that a new part of the state needs no edit here.
macro_rules! app_state {
    ($($(#[$doc:meta])* $part:ident: $type:ty,)*) => {
        /// The page's state, one signal per part of [`State`], handed to the panels as a prop.
        #[derive(Clone, Copy)]
        struct AppState {
            $($(#[$doc])* $part: RwSignal<$type>,)*
            /// Why the lab's intensity just changed, when the calculator sent it; not part of
            /// the URL. It retires itself once the lab's intensity or bandwidth changes.
            lab_note: RwSignal<Option<LabNote>>,
            /// `compare=1`: scenario B is shown beside A.
            comparing: RwSignal<bool>,
            /// Scenario B's inputs (`b.` parameters); kept while not comparing, written only
            /// while comparing.
            b: RwSignal<Inputs>,
        }

        impl AppState {
            /// One signal per part, holding `state`.
            fn new(state: State) -> AppState {
                AppState {
                    $($part: RwSignal::new(state.$part),)*
                    lab_note: RwSignal::new(None),
                    comparing: RwSignal::new(state.compare.is_some()),
                    b: RwSignal::new(state.compare.unwrap_or_default()),
                }
            }

            /// Loads `state` into the signals, e.g. when Back restores an earlier tab.
            fn load(&self, state: State) {
                $(self.$part.set(state.$part);)*
                self.comparing.set(state.compare.is_some());
                self.b.set(state.compare.unwrap_or_default());
            }

            /// The state the signals hold; `embed` is the page's, fixed when it loaded.
            fn current(&self, embed: bool) -> State {
                State {
                    $($part: self.$part.get(),)*
                    embed,
                    compare: self.comparing.get().then(|| self.b.get()),
                }
            }
        }
    };
}
permalink::state_parts!(app_state);

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let opening = url::query();
    let initial = permalink::decode(&opening);
    let embed = initial.embed;
    let state = AppState::new(initial);
    // A memo, so the readers (the URL, the share bar, the full-page link) share one copy.
    let current = Memo::new(move |_| state.current(embed));
    // Every change rewrites the URL in place; a tab switch gets its own history entry.
    Effect::new(move |previous_tab: Option<Tab>| {
        let now = current.get();
        let push = previous_tab.is_some_and(|t| t != now.tab);
        url::write_query(&permalink::encode(&now), push);
        now.tab
    });
    let back = window_event_listener(leptos::ev::popstate, move |_| {
        url::forget_pending();
        state.load(permalink::decode(&url::query()));
    });
    on_cleanup(move || back.remove());
    url::settle_before_leaving(move || permalink::encode(&current.get_untracked()));
    if embed {
        share::post_height_to_parent();
    }
    // The head's script guessed the calculator from the link (public/start.js) and the app
    // decodes another first panel: the first content goes now, in the mount's task, or the
    // app would stay hidden behind it (no calculator is built to end its stages).
    if state.tab.get_untracked() != Tab::Calculator {
        lazy::built();
    }
    // A panel is built when it is first shown, and kept after: the first load mounts only the
    // panel on screen, so its code runs before the others' (less work before the first result,
    // and no long task for panels nobody opened).
    let visited = RwSignal::new(tab_bit(state.tab.get_untracked()));
    Effect::new(move |_| {
        let bit = tab_bit(state.tab.get());
        if visited.get_untracked() & bit == 0 {
            visited.update(|v| *v |= bit);
        }
    });
    // Effects run after the first render, so the results are in the DOM by now:
    // `make bench` reads this mark as "time to first result".
    // A calculator built in stages marks it when its last stage is in (`lazy::built`).
    Effect::new(|_| {
        if !lazy::building() {
            app_ready();
        }
    });
    let full_page = Signal::derive(move || current.with(|s| permalink::link(&url::page(), s)));
    view! {
        <Show when=move || !embed>
            <header class="site">
                <h1>"Coalescing Lab"</h1>
                <p class="tagline">"How many sectors does one warp memory instruction really move?"</p>
                <ThemeToggle />
            </header>
        </Show>
        <main id="main" class:embedded=embed>
            <share::LinkNotice warnings=permalink::warnings(&opening) />
            <Show
                when=move || !embed
                fallback=move || {
                    view! {
                        <h1 class="visually-hidden">"Coalescing Lab"</h1>
                        <p class="open-full">
                            <a href=full_page target="_blank" rel="noopener" data-testid="open-full-page">
                                "Open full page ↗"
                            </a>
                        </p>
                    }
                }
            >
                <Tabs tab=state.tab />
                <share::ShareBar state=current />
            </Show>
            <TabPanel tab=Tab::Calculator current=state.tab visited=visited>
                <calculator::Calculator state=state />
            </TabPanel>
            {LAZY_PANELS
                .iter()
                .map(|&(tab, load, name, label)| view! {
                    <TabPanel tab=tab current=state.tab visited=visited>
                        <lazy::LazyPanel state=state load=load name=name label=label />
                    </TabPanel>
                })
                .collect_view()}
        </main>
        <Show when=move || !embed>
            <footer class="site">
                <p>
                    "A model, not a measurement: real behaviour depends on the architecture and cache path. "
                    "Confirm with a profiler (e.g. Nsight Compute's sectors per request)."
                </p>
            </footer>
        </Show>
    }
}

/// The first panel is built and on show: marks `app-ready` (`make bench` reads it as the time
/// to the first result, and the browser tests wait for it), then fetches the other panels'
/// code a little later, when the page is idle, so that they open at once and keep working
/// offline.
fn app_ready() {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        // Only the bench and the tests read the mark; the page works without it.
        let _ = performance.mark("app-ready");
    }
    lazy::prefetch_later();
}

/// A panel's bit in the set of panels shown so far.
fn tab_bit(tab: Tab) -> u8 {
    match tab {
        Tab::Calculator => 1,
        Tab::Roofline => 2,
        Tab::Probe => 4,
        Tab::Kernel => 8,
        Tab::Trace => 16,
        Tab::Cuda => 32,
    }
}

/// A tab's panel, hidden while another tab is on show, and built the first time its tab is
/// (then kept).
#[component]
fn TabPanel<C>(
    tab: Tab,
    current: RwSignal<Tab>,
    visited: RwSignal<u8>,
    children: TypedChildrenFn<C>,
) -> impl IntoView
where
    C: IntoView + 'static,
{
    let name = tab.param();
    let children = children.into_inner();
    view! {
        <div
            id=format!("panel-{name}")
            role="tabpanel"
            aria-labelledby=format!("tab-{name}")
            hidden=Signal::derive(move || current.get() != tab)
        >
            <Show when=move || visited.get() & tab_bit(tab) != 0>{children()}</Show>
        </div>
    }
}

/// The panels whose code is fetched when first opened, in page order: tab, loader, short
/// name and the label of their loading and failure messages (see [`lazy::LazyPanel`]).
const LAZY_PANELS: &[(Tab, lazy::Loader, &str, &str)] = &[
    (Tab::Roofline, lazy::ROOFLINE, "roofline", "Roofline lab"),
    (Tab::Probe, lazy::PROBE, "probe", "GPU probe"),
    (Tab::Kernel, lazy::KERNEL, "kernel", "kernel view"),
    (Tab::Trace, lazy::TRACE, "trace", "trace panel"),
    (Tab::Cuda, lazy::CUDA, "cuda", "CUDA source panel"),
];

/// The tabs, in order: id, test id, label.
const TABS: &[(Tab, &str, &str)] = &[
    (Tab::Calculator, "tab-calculator", "Sector calculator"),
    (Tab::Kernel, "tab-kernel", "Kernel view"),
    (Tab::Trace, "tab-trace", "Trace"),
    (Tab::Roofline, "tab-roofline", "Roofline lab"),
    (Tab::Probe, "tab-probe", "GPU probe"),
    (Tab::Cuda, "tab-cuda", "CUDA source"),
];

/// The tab list: click, or arrow keys as the ARIA tabs pattern describes.
#[component]
fn Tabs(tab: RwSignal<Tab>) -> impl IntoView {
    let on_key = move |ev: KeyboardEvent| {
        // Arrows move to the neighbouring tab, wrapping; Home and End go to the ends.
        let at = TABS.iter().position(|t| t.0 == tab.get()).unwrap_or(0);
        let count = TABS.len();
        let index = match ev.key().as_str() {
            "ArrowRight" => (at + 1) % count,
            "ArrowLeft" => (at + count - 1) % count,
            "Home" => 0,
            "End" => count - 1,
            _ => return,
        };
        let next = TABS[index].0;
        ev.prevent_default();
        url::settle();
        tab.set(next);
        let id = TABS.iter().find(|t| t.0 == next).map_or("", |t| t.1);
        if let Some(button) = document().get_element_by_id(id) {
            let _ = wasm_bindgen::JsCast::unchecked_ref::<web_sys::HtmlElement>(&button).focus();
        }
    };
    view! {
        <div class="tabs" role="tablist" aria-label="Panels" on:keydown=on_key>
            {TABS
                .iter()
                .map(|&(which, id, label)| {
                    let selected = move || tab.get() == which;
                    view! {
                        <button
                            type="button"
                            role="tab"
                            id=id
                            data-testid=id
                            aria-controls=format!("panel-{}", which.param())
                            aria-selected=Signal::derive(move || selected().to_string())
                            tabindex=Signal::derive(move || if selected() { "0" } else { "-1" }.to_string())
                            on:click=move |_| {
                                if tab.get_untracked() != which {
                                    // The entry being left gets the edits a panel holds back.
                                    url::settle();
                                }
                                tab.set(which);
                            }
                            // A pointer over a tab, or focus on it, is intent: its code starts
                            // to arrive before the click.
                            on:pointerenter=move |_| lazy::warm(which)
                            on:focus=move |_| lazy::warm(which)
                        >
                            {label}
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}

/// The colour theme: follow the system, or force light or dark. Not part of the link: it is
/// the reader's preference, not the scenario's, so it is remembered in this browser's
/// `localStorage` instead (where storage is blocked, e.g. in a sandboxed frame, it is simply
/// not remembered).
#[component]
fn ThemeToggle() -> impl IntoView {
    const THEMES: [(&str, &str); 3] = [
        ("auto", "Theme: auto"),
        ("light", "Theme: light"),
        ("dark", "Theme: dark"),
    ];
    const KEY: &str = "coalescing-lab:theme";
    let storage = || window().local_storage().ok().flatten();
    let apply = |index: usize| {
        let (name, _) = THEMES[index % THEMES.len()];
        if let Some(root) = document().document_element() {
            let _ = if name == "auto" {
                root.remove_attribute("data-theme")
            } else {
                root.set_attribute("data-theme", name)
            };
        }
    };
    let saved = storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .and_then(|name| THEMES.iter().position(|t| t.0 == name))
        .unwrap_or(0);
    apply(saved);
    let chosen = RwSignal::new(saved);
    let next = move |_| {
        chosen.update(|i| *i = (*i + 1) % THEMES.len());
        let index = chosen.get_untracked();
        apply(index);
        if let Some(storage) = storage() {
            let _ = if index == 0 {
                storage.remove_item(KEY)
            } else {
                storage.set_item(KEY, THEMES[index].0)
            };
        }
        canvas::theme_changed();
    };
    view! {
        <button
            type="button"
            class="theme-toggle"
            data-testid="theme-toggle"
            title="Switch between the system's colours, light and dark"
            on:click=next
        >
            {move || THEMES[chosen.get()].1}
        </button>
    }
}
