//! The sector calculator panel: inputs, totals, derivation and the lane table.

use super::canvas::{ChartCanvas, Shape};
use super::share::download_text;
use super::widgets::{ErrorNote, ReadoutList, TextField};
use super::{builders, AppState};
use crate::charts::{ramp, sector_map, Theme};
use crate::model::arch::{Arch, ARCHES};
use crate::model::compare::{pair_for, pairs, sentence};
use crate::model::derivation::derive;
use crate::model::inputs::{Field, FieldError, Inputs};
use crate::model::permalink::Tab;
use crate::model::predict::{read, PredictField, Verdict};
use crate::model::presets::{Preset, PRESETS};
use crate::model::ramp::regime;
use crate::model::readouts::{
    alignment_note, broadcast_note, lane_csv, lane_rows, readouts, summary,
};
use crate::model::sector_map::{describe, layout, step_lane};
use crate::model::sectors::{analyze, analyze_repaired, Analysis, Ratio};
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;

/// How each field is introduced to a learner.
struct FieldSpec {
    field: Field,
    label: &'static str,
    hint: &'static str,
    placeholder: &'static str,
    numeric: bool,
}

const FIELDS: [FieldSpec; 8] = [
    FieldSpec {
        field: Field::Warp,
        label: "Lanes in the warp",
        hint: "1 to 64 (NVIDIA: 32, AMD wave64: 64)",
        placeholder: "32",
        numeric: true,
    },
    FieldSpec {
        field: Field::Elem,
        label: "Bytes per lane (elem)",
        hint: "1, 2, 4, 8 or 16 (float: 4, double: 8, float4: 16)",
        placeholder: "4",
        numeric: true,
    },
    FieldSpec {
        field: Field::Base,
        label: "Base address",
        hint: "byte address of element 0, decimal or 0x hex",
        placeholder: "0",
        numeric: false,
    },
    FieldSpec {
        field: Field::Idx,
        label: "Element index idx(t)",
        hint: "C expression in lane id t, e.g. 2*t, 31-t, t<16 ? t : 64*t",
        placeholder: "t",
        numeric: false,
    },
    FieldSpec {
        field: Field::Active,
        label: "Active lanes",
        hint: "C expression, non-zero = active; empty = every lane",
        placeholder: "every lane, e.g. t % 2 == 0",
        numeric: false,
    },
    FieldSpec {
        field: Field::Addrs,
        label: "Explicit addresses",
        hint: "optional: one byte address per lane, comma separated, - for inactive; replaces base and idx",
        placeholder: "e.g. 0, 4, -, 12",
        numeric: false,
    },
    FieldSpec {
        field: Field::Sector,
        label: "Sector bytes",
        hint: "the serviced unit: a power of two from 8 to 1024",
        placeholder: "32",
        numeric: true,
    },
    FieldSpec {
        field: Field::Line,
        label: "Cache line bytes",
        hint: "a power-of-two multiple of the sector, up to 4096",
        placeholder: "128",
        numeric: true,
    },
];

/// One scenario's inputs and what is derived from them.
#[derive(Clone, Copy)]
struct Tracked {
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    /// The analysis on show: the last valid one while a field is in error; for a bad first
    /// link, the scenario with its bad fields at their defaults.
    shown: Memo<Analysis>,
}

fn track(inputs: RwSignal<Inputs>) -> Tracked {
    let checked = Memo::new(move |_| inputs.with(analyze));
    let errors =
        Memo::new(move |_| checked.with(|c| c.as_ref().err().cloned().unwrap_or_default()));
    let shown = Memo::new(move |previous: Option<&Analysis>| {
        checked.with(|c| match (c, previous) {
            (Ok(analysis), _) => analysis.clone(),
            (Err(_), Some(previous)) => previous.clone(),
            (Err(_), None) => inputs.with_untracked(analyze_repaired),
        })
    });
    Tracked {
        inputs,
        errors,
        shown,
    }
}

/// The calculator for the scenario in the page's state.
#[component]
pub fn Calculator(state: AppState) -> impl IntoView {
    let a = track(state.calc);
    let Tracked {
        inputs,
        errors,
        shown,
    } = a;

    // predict=1: results stay hidden until the learner commits to an N_tx and reveals. The
    // verdict belongs to its scenario: any change of the inputs retires it, which hides the
    // results again and asks for a new prediction.
    let verdict = RwSignal::new(None::<Verdict>);
    let feedback = Memo::new(move |_| {
        verdict.with(|v| {
            v.as_ref()
                .and_then(|v| inputs.with(|i| v.feedback_for(i).map(str::to_string)))
        })
    });
    let hidden = Signal::derive(move || state.predict.get() && feedback.with(Option::is_none));
    // The lane under the pointer in the sector map or the lane table: highlighted in both.
    let highlighted = RwSignal::new(None::<u32>);
    view! {
        <section class="calculator" aria-labelledby="calc-title">
            <h2 id="calc-title">"Sector calculator"</h2>
            <p class="lead">
                "One warp memory instruction: each active lane " <i>"t"</i> " reads bytes "
                <code>"[A(t), A(t)+elem)"</code> " with " <code>"A(t) = base + elem·idx(t)"</code>
                ". The memory system moves whole aligned sectors; count them."
            </p>
            // Comparing is one of the calculator's main uses: its bar comes first, not after
            // the lane table.
            <Comparison state=state a=a hidden=hidden />
            <div class="layout">
                <ScenarioForm inputs=inputs errors=errors state=state verdict=verdict />
                <div class="outputs">
                    <Show
                        when=move || !hidden.get()
                        fallback=move || {
                            view! { <PredictPanel shown=shown inputs=inputs verdict=verdict /> }
                        }
                    >
                        <Results
                            shown=shown
                            errors=errors
                            state=state
                            verdict=verdict
                            feedback=feedback
                            highlighted=highlighted
                        />
                    </Show>
                    <LaneTable shown=shown inputs=inputs hidden=hidden highlighted=highlighted />
                </div>
            </div>
        </section>
    }
}

#[component]
fn ScenarioForm(
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    state: AppState,
    verdict: RwSignal<Option<Verdict>>,
) -> impl IntoView {
    let preset = move || inputs.with(Preset::matching).map(|p| p.id).unwrap_or("");
    let pick = move |ev: leptos::ev::Event| {
        if let Some(p) = Preset::by_id(&event_target_value(&ev)) {
            inputs.set(p.inputs());
        }
    };
    view! {
        <form class="scenario" on:submit=|ev| ev.prevent_default() aria-label="Scenario">
            <div class="field">
                <label for="preset">"Worked example"</label>
                <select id="preset" data-testid="preset" on:change=pick prop:value=preset>
                    <option value="">"Custom scenario"</option>
                    {PRESETS
                        .iter()
                        .map(|p| view! { <option value=p.id>{p.name}</option> })
                        .collect_view()}
                </select>
            </div>
            <builders::Builders
                inputs=inputs
                compare=Callback::new(move |(a, b): (Inputs, Inputs)| {
                    inputs.set(a);
                    state.b.set(b);
                    state.comparing.set(true);
                })
            />
            <ArchField inputs=inputs errors=errors />
            {FIELDS
                .iter()
                .map(|spec| view! { <CalcField spec=spec inputs=inputs errors=errors /> })
                .collect_view()}
            <div class="field check">
                <input
                    type="checkbox"
                    id="predict-mode"
                    data-testid="predict-mode"
                    prop:checked=Signal::derive(move || state.predict.get())
                    on:change=move |ev| {
                        state.predict.set(event_target_checked(&ev));
                        verdict.set(None);
                    }
                />
                <label for="predict-mode">"Predict before revealing " <span class="param" aria-hidden="true">"predict"</span></label>
                <p class="hint">"hides the results until you commit to an N_tx"</p>
            </div>
        </form>
    }
}

#[component]
fn CalcField(
    spec: &'static FieldSpec,
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    /// Scenario B's field: `b.`-prefixed parameter and test id.
    #[prop(default = false)]
    b: bool,
) -> impl IntoView {
    let field = spec.field;
    let param = if b { field.b_param() } else { field.param() };
    let error = Signal::derive(move || {
        errors.with(|es| es.iter().find(|e| e.field == field).map(|e| e.to_string()))
    });
    let ignored = Signal::derive(move || {
        matches!(field, Field::Base | Field::Idx) && inputs.with(Inputs::uses_address_list)
    });
    let note = Signal::derive(move || {
        inputs.with(|i| {
            if ignored.get() {
                " (ignored while explicit addresses are set)".to_string()
            } else if i.overrides().contains(&field) {
                format!(
                    " (overrides {}: {})",
                    i.arch_preset().name,
                    i.preset_value(field)
                )
            } else {
                String::new()
            }
        })
    });
    view! {
        <TextField
            testid=format!("input-{param}")
            param=param
            label=spec.label
            tag=param
            hint=spec.hint
            placeholder=spec.placeholder
            inputmode=if spec.numeric { "numeric" } else { "text" }
            value=Signal::derive(move || inputs.with(|i| i.get(field).to_string()))
            on_input=Callback::new(move |text| inputs.update(|i| i.set(field, text)))
            error=error
            note=note
            dimmed=ignored
        />
    }
}

#[component]
fn Results(
    shown: Memo<Analysis>,
    errors: Memo<Vec<FieldError>>,
    state: AppState,
    verdict: RwSignal<Option<Verdict>>,
    feedback: Memo<Option<String>>,
    highlighted: RwSignal<Option<u32>>,
) -> impl IntoView {
    let stale = move || errors.with(|e| !e.is_empty());
    let predict_again = move |_| verdict.set(None);
    view! {
        <div class="results" aria-labelledby="results-title">
            <h3 id="results-title">"Results"</h3>
            <Show when=move || state.predict.get() && feedback.with(Option::is_some)>
                <div class="note broadcast feedback">
                    <p data-testid="prediction-feedback" aria-live="polite">
                        {move || feedback.get().unwrap_or_default()}
                    </p>
                    <button type="button" data-testid="predict-again" on:click=predict_again>
                        "Predict again"
                    </button>
                </div>
            </Show>
            {move || {
                stale()
                    .then(|| {
                        view! {
                            <p class="stale" data-testid="stale">
                                "Showing the last valid results: fix the field marked in red."
                            </p>
                        }
                    })
            }}
            <ReadoutList readouts=Signal::derive(move || shown.with(readouts)) stale=Signal::derive(stale) />
            <p class="visually-hidden" aria-live="polite" data-testid="summary">
                {Signal::derive(move || shown.with(summary))}
            </p>
            {move || {
                shown
                    .with(broadcast_note)
                    .map(|note| {
                        view! {
                            <p class="note broadcast" data-testid="broadcast-note">
                                <strong>"Why above 100 %? "</strong>
                                {note}
                            </p>
                        }
                    })
            }}
            {move || {
                shown
                    .with(alignment_note)
                    .map(|note| {
                        view! {
                            <p class="note warning" data-testid="alignment-warning" role="note">
                                <strong>"Misaligned: "</strong>
                                {note}
                            </p>
                        }
                    })
            }}
            <SectorMapFigure shown=shown inputs=state.calc state=state highlighted=highlighted />
            <RampFigure shown=shown inputs=state.calc state=state />
            <UseInRoofline shown=shown errors=errors state=state />
            <h3 id="derivation-title">"Derivation"</h3>
            <ol class="derivation" data-testid="derivation" aria-labelledby="derivation-title">
                {move || {
                    shown
                        .with(derive)
                        .into_iter()
                        .map(|step| view! { <li>{step}</li> })
                        .collect_view()
                }}
            </ol>
        </div>
    }
}

#[component]
fn LaneTable(
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
                    " Available after Reveal: its sector and line columns are the answer."
                </span>
            </Show>
        </div>
        <div
            class="lane-table"
            role="region"
            aria-labelledby="lanes-title"
            tabindex="0"
            on:keydown=walk
        >
            <table>
                <caption id="lanes-title">"Every lane's address and the sectors its bytes fall in"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Lane"</th>
                        <th scope="col">"Address (hex)"</th>
                        <th scope="col">"Address"</th>
                        <th scope="col">"Bytes requested"</th>
                        <th scope="col">"Sector(s)"</th>
                        <th scope="col">"Line(s)"</th>
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
                                let (lane, active) = (row.lane, row.active);
                                view! {
                                    <tr
                                        data-testid="lane-row"
                                        data-lane=row.lane
                                        data-active=row.active.to_string()
                                        data-address=address
                                        data-sectors=sectors
                                        class:inactive=!row.active
                                        class:misaligned=!row.aligned
                                        on:mouseenter=move |_| highlighted.set(Some(lane).filter(|_| active))
                                        on:mouseleave=move |_| highlighted.set(None)
                                    >
                                        <th scope="row">{row.lane}</th>
                                        <td class="mono">{row.address_hex}</td>
                                        <td class="mono">{row.address}</td>
                                        <td class="mono">{row.bytes}</td>
                                        <td class="mono" class:straddles=row.straddles>{row.sectors_text}</td>
                                        <td class="mono">{row.lines_text}</td>
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

/// "Use this efficiency": opens the Roofline lab with its intensity scaled by this scenario's
/// useful fraction, and says why in words. Enabled only when both sides are valid; otherwise
/// it says why not.
#[component]
fn UseInRoofline(
    shown: Memo<Analysis>,
    errors: Memo<Vec<FieldError>>,
    state: AppState,
) -> impl IntoView {
    let hand_off = Memo::new(move |_| {
        let useful = errors
            .with(Vec::is_empty)
            .then(|| shown.with(|a| a.totals.efficiency()))
            .map(|e| {
                e.unwrap_or(Ratio {
                    numerator: 0,
                    denominator: 1,
                })
            });
        state.lab.with(|lab| lab.hand_off(useful))
    });
    let apply = move |_| {
        let Ok((scaled, note)) = hand_off.get_untracked() else {
            return;
        };
        state.lab.set(scaled);
        state.lab_note.set(Some(note));
        state.tab.set(Tab::Roofline);
    };
    let refusal = move || hand_off.with(|h| h.as_ref().err().map(ToString::to_string));
    view! {
        <p class="use-efficiency">
            <button
                type="button"
                class="secondary"
                data-testid="use-efficiency"
                on:click=apply
                disabled=Signal::derive(move || hand_off.with(Result::is_err))
                aria-describedby="use-efficiency-why"
            >
                "Use this efficiency in the Roofline lab"
            </button>
            <span class="hint" id="use-efficiency-why" data-testid="use-efficiency-why">
                {move || {
                    refusal()
                        .map(|why| format!(" Not available: {why}"))
                        .unwrap_or_else(|| " Scales the lab's intensity by the useful fraction: bytes ÷ e at fixed FLOPs.".to_string())
                }}
            </span>
        </p>
    }
}

/// The file stem of a figure's exports: the scenario's name, its side in the comparison
/// (`a.` → `-a`), then the figure, e.g. `ex8a-column-b-sector-map`.
fn figure_stem(
    inputs: RwSignal<Inputs>,
    prefix: &'static str,
    figure: &'static str,
) -> Signal<String> {
    let side = prefix.trim_end_matches('.');
    Signal::derive(move || {
        let stem = inputs.with(Preset::file_stem);
        if side.is_empty() {
            format!("{stem}-{figure}")
        } else {
            format!("{stem}-{side}-{figure}")
        }
    })
}

/// The sector map with its text alternative and exports.
#[component]
fn SectorMapFigure(
    shown: Memo<Analysis>,
    /// The scenario drawn, which names the exported files.
    inputs: RwSignal<Inputs>,
    state: AppState,
    highlighted: RwSignal<Option<u32>>,
    /// Put before test ids and element ids: `a.` or `b.` in the comparison.
    #[prop(default = "")]
    prefix: &'static str,
) -> impl IntoView {
    let description = format!("{prefix}sector-map-description");
    let map = Memo::new(move |_| shown.with(layout));
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        map.with(|m| sector_map::draw(area, m, highlighted.get(), theme))
            .map_err(|e| e.to_string())
    };
    let point = Callback::new(move |at: Option<(f64, f64)>| {
        highlighted.set(at.and_then(|(x, width)| {
            map.with_untracked(|m| sector_map::lane_at(m, width, &Theme::LIGHT, x))
        }));
    });
    let key = Callback::new(move |key: String| {
        let lanes: Vec<u32> = map.with_untracked(|m| m.lanes.iter().map(|l| l.lane).collect());
        let now = highlighted.get_untracked();
        let next = match key.as_str() {
            "ArrowRight" => step_lane(&lanes, now, true),
            "ArrowLeft" => step_lane(&lanes, now, false),
            "Escape" => None,
            _ => return,
        };
        highlighted.set(next);
    });
    let svg = move |theme: &Theme, size: (u32, u32)| {
        let mut text = String::new();
        map.with(|m| {
            sector_map::draw(
                &SVGBackend::with_string(&mut text, size).into_drawing_area(),
                m,
                None,
                theme,
            )
        })
        .map_err(|e| e.to_string())?;
        Ok(text)
    };
    let stem = figure_stem(inputs, prefix, "sector-map");
    view! {
        <figure class="chart-box">
            <ChartCanvas
                draw=draw
                svg=svg
                file_stem=stem
                shape=Shape::STRIP
                on_pointer=point
                on_key=key
                visible=Signal::derive(move || state.tab.get() == Tab::Calculator)
                testid=format!("{prefix}sector-map")
                label="Sector map"
                described_by=description.clone()
            />
            <figcaption id=description.clone() data-testid=description>
                {Signal::derive(move || map.with(describe))}
            </figcaption>
        </figure>
    }
}

/// Predict first: N_tx (required) and the efficiency (optional), then Reveal.
#[component]
fn PredictPanel(
    shown: Memo<Analysis>,
    inputs: RwSignal<Inputs>,
    verdict: RwSignal<Option<Verdict>>,
) -> impl IntoView {
    let sectors = RwSignal::new(String::new());
    let efficiency = RwSignal::new(String::new());
    let error = RwSignal::new(None);
    let reveal = move |_| match read(&sectors.get_untracked(), &efficiency.get_untracked()) {
        Ok(prediction) => {
            error.set(None);
            verdict.set(Some(inputs.with_untracked(|i| {
                shown.with_untracked(|a| Verdict::new(i, a, prediction))
            })));
        }
        Err(e) => error.set(Some(e)),
    };
    let error_on = move |field: PredictField| {
        Signal::derive(move || {
            error.with(|e: &Option<crate::model::predict::PredictError>| {
                e.as_ref()
                    .filter(|e| e.field == field)
                    .map(|e| e.to_string())
            })
        })
    };
    let ntx_error = error_on(PredictField::Sectors);
    let eff_error = error_on(PredictField::Efficiency);
    view! {
        <form class="results predict" aria-labelledby="predict-title" on:submit=move |ev| {
            ev.prevent_default();
            reveal(());
        }>
            <h3 id="predict-title">"Predict first"</h3>
            <p>
                "Work out each lane's address and the aligned sector it falls in, then commit: "
                "how many distinct sectors does this warp touch?"
            </p>
            <TextField
                testid="predict-ntx".to_string()
                param="predict-ntx"
                label="Predicted N_tx"
                tag="(sectors)"
                hint="a whole number"
                inputmode="numeric"
                value=sectors
                on_input=Callback::new(move |t| sectors.set(t))
                error=ntx_error
            />
            <TextField
                testid="predict-efficiency".to_string()
                param="predict-efficiency"
                label="Predicted efficiency"
                tag="(optional)"
                hint="requested ÷ transferred: a ratio (0.8, or 4 for a broadcast) or a percentage (80 %)"
                inputmode="decimal"
                value=efficiency
                on_input=Callback::new(move |t| efficiency.set(t))
                error=eff_error
            />
            <button type="submit" class="primary" data-testid="reveal">"Reveal"</button>
        </form>
    }
}

/// The architecture preset: picking one fills warp, sector and line; its assumption and
/// source are stated under it.
#[component]
fn ArchField(
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    /// Scenario B's picker: `b.`-prefixed parameter and ids.
    #[prop(default = false)]
    b: bool,
) -> impl IntoView {
    let param = if b {
        Field::Arch.b_param()
    } else {
        Field::Arch.param()
    };
    let id = format!("input-{param}");
    let (hint_id, error_id) = (format!("{id}-hint"), format!("{id}-error"));
    let error = Signal::derive(move || {
        errors.with(|es| {
            es.iter()
                .find(|e| e.field == Field::Arch)
                .map(|e| e.to_string())
        })
    });
    let pick = move |ev: leptos::ev::Event| {
        if let Some(arch) = Arch::by_id(&event_target_value(&ev)) {
            inputs.update(|i| *i = i.with_arch(arch));
        }
    };
    view! {
        <div class="field" class:invalid=Signal::derive(move || error.with(Option::is_some))>
            <label for=id.clone()>"Architecture " <span class="param" aria-hidden="true">{param}</span></label>
            <select
                id=id.clone()
                data-testid=id.clone()
                aria-describedby={
                    let (hint_id, error_id) = (hint_id.clone(), error_id.clone());
                    Signal::derive(move || {
                        if error.with(Option::is_some) {
                            format!("{error_id} {hint_id}")
                        } else {
                            hint_id.clone()
                        }
                    })
                }
                on:change=pick
                prop:value=Signal::derive(move || inputs.with(|i| i.arch.clone()))
            >
                {ARCHES
                    .iter()
                    .map(|a| view! { <option value=a.id>{a.name}</option> })
                    .collect_view()}
            </select>
            <p class="hint" id=hint_id data-testid=format!("{}arch-note", if b { "b." } else { "" })>
                {Signal::derive(move || inputs.with(|i| i.arch_preset().note.to_string()))}
                " A model: real behaviour depends on the architecture and cache path; confirm it in a profiler."
            </p>
            <ErrorNote param=param message=error id=error_id />
        </div>
    }
}

/// The address ramp with the regime named, its text alternative and exports.
#[component]
fn RampFigure(
    shown: Memo<Analysis>,
    /// The scenario drawn, which names the exported files.
    inputs: RwSignal<Inputs>,
    state: AppState,
    /// Put before test ids and element ids: `a.` or `b.` in the comparison.
    #[prop(default = "")]
    prefix: &'static str,
) -> impl IntoView {
    let description = format!("{prefix}ramp-description");
    let found = Memo::new(move |_| shown.with(regime));
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        shown
            .with(|a| ramp::draw(area, a, found.get(), theme))
            .map_err(|e| e.to_string())
    };
    let svg = move |theme: &Theme, size: (u32, u32)| {
        let mut text = String::new();
        shown
            .with(|a| {
                ramp::draw(
                    &SVGBackend::with_string(&mut text, size).into_drawing_area(),
                    a,
                    found.get(),
                    theme,
                )
            })
            .map_err(|e| e.to_string())?;
        Ok(text)
    };
    view! {
        <figure class="chart-box">
            <ChartCanvas
                draw=draw
                svg=svg
                file_stem=figure_stem(inputs, prefix, "ramp")
                shape=Shape::LOW_PLOT
                visible=Signal::derive(move || state.tab.get() == Tab::Calculator)
                testid=format!("{prefix}ramp")
                label="Address ramp"
                described_by=description.clone()
            />
            <figcaption
                id=description.clone()
                data-testid=description
                data-value=Signal::derive(move || found.get().name().to_string())
            >
                {Signal::derive(move || format!("Address ramp, {}.", found.get()))}
            </figcaption>
        </figure>
    }
}

/// Scenario B beside A: the course's pairs, B's inputs, both sides' totals and pictures, and
/// how many times more (or fewer) bytes and sectors B moves.
#[component]
fn Comparison(
    state: AppState,
    a: Tracked,
    /// While a prediction is pending, both sides keep their answers back, like the results.
    hidden: Signal<bool>,
) -> impl IntoView {
    let b = track(state.b);
    let all = pairs();
    // The course pair the two scenarios are, if they still are one: it names the sides.
    let current = {
        let all = all.clone();
        Memo::new(move |_| {
            state.calc.with(|a| {
                state
                    .b
                    .with(|b| pair_for(&all, a, b).map(|p| (p.id, p.a_name, p.b_name)))
            })
        })
    };
    let names = Signal::derive(move || {
        current
            .get()
            .map_or(("scenario A", "scenario B"), |(_, a, b)| (a, b))
    });
    let picked = Signal::derive(move || {
        current
            .get()
            .filter(|_| state.comparing.get())
            .map_or("", |(id, _, _)| id)
            .to_string()
    });
    let pick = {
        let all = all.clone();
        move |ev: leptos::ev::Event| {
            if let Some(pair) = all.iter().find(|p| p.id == event_target_value(&ev)) {
                state.calc.set(pair.a.clone());
                state.b.set(pair.b.clone());
                state.comparing.set(true);
            }
        }
    };
    let toggle = move |_| {
        if !state.comparing.get_untracked() && state.b.with_untracked(|b| *b == Inputs::default()) {
            state.b.set(state.calc.get_untracked());
        }
        state.comparing.update(|on| *on = !*on);
    };
    let ratio = Signal::derive(move || {
        let (a_name, b_name) = names.get();
        a.shown
            .with(|x| b.shown.with(|y| sentence(a_name, x, b_name, y)))
    });
    let unused = RwSignal::new(None::<u32>);
    view! {
        <div class="compare-bar">
            <label for="pair">"Compare two scenarios"</label>
            <select id="pair" data-testid="pair" on:change=pick prop:value=picked>
                <option value="">"Pick a course pair…"</option>
                {all.iter().map(|p| view! { <option value=p.id>{p.name}</option> }).collect_view()}
            </select>
            <button
                type="button"
                data-testid="compare"
                aria-pressed=Signal::derive(move || state.comparing.get().to_string())
                on:click=toggle
            >
                {move || if state.comparing.get() { "Stop comparing" } else { "Compare with a scenario B" }}
            </button>
        </div>
        <Show when=move || state.comparing.get()>
            <section class="comparison" aria-labelledby="comparison-title">
                <h3 id="comparison-title">"Side by side"</h3>
                <Show
                    when=move || !hidden.get()
                    fallback=|| view! {
                        <p class="note" data-testid="comparison-withheld">
                            "Both sides' totals and pictures appear once you reveal your prediction above."
                        </p>
                    }
                >
                    <p class="note broadcast" data-testid="comparison" aria-live="polite">{ratio}</p>
                </Show>
                <div class="sides">
                    <div class="side">
                        <h4>"A: " {move || names.get().0}</h4>
                        <Show when=move || !hidden.get()>
                            <ReadoutList readouts=Signal::derive(move || a.shown.with(readouts)) prefix="a." />
                            <SectorMapFigure shown=a.shown inputs=a.inputs state=state highlighted=unused prefix="a." />
                            <RampFigure shown=a.shown inputs=a.inputs state=state prefix="a." />
                        </Show>
                    </div>
                    <div class="side">
                        <h4>"B: " {move || names.get().1}</h4>
                        <Show when=move || !hidden.get()>
                            <ReadoutList readouts=Signal::derive(move || b.shown.with(readouts)) prefix="b." />
                            <SectorMapFigure shown=b.shown inputs=b.inputs state=state highlighted=unused prefix="b." />
                            <RampFigure shown=b.shown inputs=b.inputs state=state prefix="b." />
                        </Show>
                        <details class="b-inputs" open>
                            <summary>"Scenario B's inputs"</summary>
                            <ArchField inputs=b.inputs errors=b.errors b=true />
                            {FIELDS
                                .iter()
                                .map(|spec| view! { <CalcField spec=spec inputs=b.inputs errors=b.errors b=true /> })
                                .collect_view()}
                        </details>
                    </div>
                </div>
            </section>
        </Show>
    }
}
