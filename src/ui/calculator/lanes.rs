//! The lane table: every lane's address, sectors and line, with its CSV export.

use crate::model::inputs::Inputs;
use crate::model::presets::Preset;
use crate::model::readouts::{lane_csv, lane_rows};
use crate::model::sector_map::step_lane;
use crate::model::sectors::Analysis;
use crate::ui::share::download_text;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub(super) fn LaneTable(
    shown: Memo<Analysis>,
    inputs: RwSignal<Inputs>,
    /// While a prediction is pending, the sector and line columns keep their answer back.
    hidden: Signal<bool>,
    highlighted: RwSignal<Option<u32>>,
) -> impl IntoView {
    // With the table focused, Up and Down walk the active lanes (ringed on the map too).
    let walk = move |ev: leptos::ev::KeyboardEvent| {
        let lanes: Vec<u32> = shown.with_untracked(|a| {
            a.lanes
                .iter()
                .filter(|l| l.access.is_some())
                .map(|l| l.lane)
                .collect()
        });
        let now = highlighted.get_untracked();
        let next = match ev.key().as_str() {
            "ArrowDown" => step_lane(&lanes, now, true),
            "ArrowUp" => step_lane(&lanes, now, false),
            "Escape" => None,
            _ => return,
        };
        ev.prevent_default();
        highlighted.set(next);
        if let Some(row) = next.and_then(|lane| {
            document()
                .query_selector(&format!("[data-testid=\"lane-row\"][data-lane=\"{lane}\"]"))
                .ok()
                .flatten()
        }) {
            row.scroll_into_view_with_bool(false);
        }
    };
    // The highlighted row is marked from one effect, not by a closure per row: each row's
    // closure subscribed to `highlighted`, which outlives the rows, and every re-render left
    // 64 dead subscriptions behind (wasm memory grew by megabytes over a few thousand edits).
    Effect::new(move |previous: Option<Option<u32>>| {
        let now = highlighted.get();
        shown.track();
        let mark = |lane: Option<u32>, on: bool| {
            let row = lane.and_then(|lane| {
                document()
                    .query_selector(&format!("[data-testid=\"lane-row\"][data-lane=\"{lane}\"]"))
                    .ok()
                    .flatten()
            });
            if let Some(row) = row {
                let classes = row.class_list();
                let _ = if on {
                    classes.add_1("highlight")
                } else {
                    classes.remove_1("highlight")
                };
            }
        };
        if previous.flatten() != now {
            mark(previous.flatten(), false);
        }
        mark(now, true);
        now
    });
    // Hovering a row rings its lane on the map, through one listener on the table rather than
    // two per row: the rows are rebuilt on every edit, and tachys re-attaches a row's handlers
    // each time (128 listeners and their closures per keystroke at 64 lanes).
    let hover = move |ev: leptos::ev::MouseEvent| {
        let lane = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[data-testid=\"lane-row\"]").ok().flatten())
            .filter(|row| row.get_attribute("data-active").as_deref() == Some("true"))
            .and_then(|row| row.get_attribute("data-lane")?.parse().ok());
        if highlighted.get_untracked() != lane {
            highlighted.set(lane);
        }
    };
    let shared = Signal::derive(move || shown.with(|a| a.banks.is_some()));
    let export = move |_| {
        let name = inputs.with_untracked(|i| Preset::file_name(i, "csv"));
        download_text(&name, "text/csv", &shown.with_untracked(lane_csv));
    };
    view! {
        <div class="buttons exports">
            <button
                type="button"
                data-testid="export-csv"
                on:click=export
                disabled=hidden
                aria-describedby=move || hidden.get().then_some("export-csv-why")
            >
                "Download lane table (CSV)"
            </button>
            <Show when=move || hidden.get()>
                <span class="hint" id="export-csv-why" data-testid="export-csv-why">
                    {move || if shared.get() {
                        " Available after Reveal: its word and bank columns are the answer."
                    } else {
                        " Available after Reveal: its sector and line columns are the answer."
                    }}
                </span>
            </Show>
        </div>
        <div
            class="lane-table"
            role="region"
            aria-labelledby="lanes-title"
            tabindex="0"
            on:keydown=walk
            on:mouseover=hover
            on:mouseleave=move |_| highlighted.set(None)
        >
            <table>
                <caption id="lanes-title">
                    {move || if shared.get() {
                        "Every lane's address and the banks its words lie in"
                    } else {
                        "Every lane's address and the sectors its bytes fall in"
                    }}
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"Lane"</th>
                        <th scope="col">"Address (hex)"</th>
                        // The answer's columns come before the decimal repeats, so a phone
                        // sees them without scrolling sideways.
                        <th scope="col">{move || if shared.get() { "Word(s)" } else { "Sector(s)" }}</th>
                        <th scope="col">{move || if shared.get() { "Bank(s)" } else { "Line(s)" }}</th>
                        <th scope="col">"Address"</th>
                        <th scope="col">"Bytes requested"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        let secret = hidden.get();
                        shown
                            .with(lane_rows)
                            .into_iter()
                            .map(|row| if secret { row.withheld() } else { row })
                            .map(|row| {
                                let (address, sectors) = (row.address.clone(), row.sectors.clone());
                                let in_shared = !row.words_text.is_empty();
                                let (first, second) = if in_shared {
                                    let banks = if row.active && !row.banks.is_empty() {
                                        row.banks.replace(',', ", ")
                                    } else {
                                        row.words_text.clone()
                                    };
                                    (row.words_text.clone(), banks)
                                } else {
                                    (row.sectors_text.clone(), row.lines_text.clone())
                                };
                                let bank = in_shared.then(|| row.banks.clone());
                                view! {
                                    <tr
                                        data-testid="lane-row"
                                        data-lane=row.lane
                                        data-active=row.active.to_string()
                                        data-address=address
                                        data-sectors=sectors
                                        data-bank=bank
                                        data-conflicted=in_shared.then(|| row.conflicted.to_string())
                                        class:inactive=!row.active
                                        class:conflicted=row.conflicted
                                        class:misaligned=!row.aligned
                                    >
                                        <th scope="row">{row.lane}</th>
                                        <td class="mono">{row.address_hex}</td>
                                        <td class="mono" class:straddles=row.straddles>{first}</td>
                                        <td class="mono">{second}</td>
                                        <td class="mono">{row.address}</td>
                                        <td class="mono">{row.bytes}</td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
        </div>
    }
}
