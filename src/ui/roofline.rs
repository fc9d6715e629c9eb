//! The Roofline lab panel: intensity and bandwidth against the fixed, synthetic 1000 GFLOP/s
//! roof. Predict, then Step to reveal; Reset starts over. The Machine mode switch replaces the
//! course's roof with a machine's named ceilings and points (`roofline_machine`).

use super::canvas::{svg_text, ChartCanvas};
use super::widgets::{ReadoutList, TextField};
use super::AppState;
use crate::charts::roofline as chart;
use crate::charts::Theme;
use crate::model::exact::Exact;
use crate::model::permalink::Tab;
use crate::model::roofline::{
    chart_description, step_readouts, trail_rows, Checked, Knob, Lab, LabNote, MachineInputs,
    OiSlider, MAX_TRAIL, PEAK_GFLOPS,
};
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use plotters_canvas::CanvasBackend;

/// The course's two runs: "Reset, set I = 2 and B = 80, predict, Step"; then I = 1.
const COURSE_RUNS: [(&str, &str, &str); 2] = [
    ("Course run 1: I = 2, B = 80", "2", "80"),
    ("Course run 2: I = 1, B = 80", "1", "80"),
];

#[component]
pub fn RooflineLab(state: AppState) -> impl IntoView {
    let lab = state.lab;
    let checked = Memo::new(move |_| lab.with(Lab::check));
    let latest = Memo::new(move |_| checked.with(|c| c.trail.last().copied()));
    // The roof follows the bandwidth being typed; while it is invalid the last valid one stays.
    let roof_bw = Memo::new(move |previous: Option<&Exact>| {
        checked.with(|c| {
            c.current
                .map(|p| p.bw)
                .or(previous.copied())
                .or_else(|| c.trail.last().map(|p| p.bw))
                .unwrap_or_else(|| Exact::parse(&Lab::default().bw).unwrap_or(Exact::ONE))
        })
    });
    let can_step = move || checked.with(|c| c.current.is_some());
    let step = move || {
        lab.update(|l| {
            if l.step() {
                l.prediction.clear();
            }
        });
    };
    let reset = move |_| lab.update(Lab::reset);
    let clear_previous = move |_| lab.update(|l| l.previous.clear());
    let has_previous = move || checked.with(|c| !c.previous.is_empty());
    let visible = Signal::derive(move || state.tab.get() == Tab::Roofline);
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        render(area, checked, roof_bw, theme)
    };
    let svg = move |theme: &Theme, size: (u32, u32)| {
        svg_text(size, |area| render(area, checked, roof_bw, theme))
    };

    // A memo: the machine view is rebuilt only when the mode changes, not on every edit.
    let custom = Memo::new(move |_| state.roofs.with(|m| m.custom));
    let switch = move |ev| {
        let on = event_target_checked(&ev);
        state.roofs.update(|m| {
            if on && *m == MachineInputs::default() {
                *m = lab.with_untracked(MachineInputs::from_course);
            }
            m.custom = on;
        });
    };

    view! {
        <section class="roofline" aria-labelledby="roofline-title">
            <h2 id="roofline-title">"Roofline lab"</h2>
            <div class="field check mode-switch">
                <input type="checkbox" id="roofs-mode" data-testid="roofs-mode" prop:checked=custom on:change=switch />
                <label for="roofs-mode">"Machine mode " <span class="param" aria-hidden="true">"roofs=custom"</span></label>
                <p class="hint">
                    "Your machine's named bandwidth and compute ceilings, GPU presets and named points, instead of the course's fixed roof."
                </p>
            </div>
            {move || custom.get().then(|| view! { <super::roofline_machine::MachineMode state=state /> })}
            <div class="course" hidden=custom>
            <p class="lead">
                "Attainable performance is " <code>"P = min(1000, I × B)"</code>
                ": operational intensity I (FLOP per byte moved) times bandwidth B (GB/s), capped by the compute roof. "
                "Set I and B, predict P, then Step to reveal it. Reset starts over."
            </p>
            <p class="note synthetic">
                "The compute ceiling is fixed at " <strong>{PEAK_GFLOPS} " GFLOP/s"</strong>
                ": a synthetic model. It does not count sectors or benchmark a GPU. "
                "A lower intensity stands for more bottleneck bytes at the same useful arithmetic."
            </p>
            {move || {
                state
                    .lab_note
                    .with(|note| {
                        note.as_ref().and_then(|n: &LabNote| lab.with(|l| n.text_for(l).map(str::to_string)))
                    })
                    .map(|note| view! { <p class="note broadcast" data-testid="lab-note">{note}</p> })
            }}
            <div class="layout">
                <form
                    class="scenario" aria-label="Roofline inputs"
                    on:submit=move |ev| {
                        // Enter in a field Steps, as the Step button does.
                        ev.prevent_default();
                        step();
                    }
                >
                    <div class="field">
                        <span class="label">"Course runs"</span>
                        <div class="buttons">
                            {COURSE_RUNS
                                .into_iter()
                                .map(|(label, oi, bw)| {
                                    view! {
                                        <button
                                            type="button" class="secondary"
                                            on:click=move |_| lab.update(|l| l.start_run(oi, bw))
                                        >
                                            {label}
                                        </button>
                                    }
                                })
                                .collect_view()}
                        </div>
                    </div>
                    <LabField
                        lab=lab checked=checked knob=Knob::Oi label="Operational intensity I"
                        unit="(FLOP/byte)"
                    />
                    <OiRange lab=lab checked=checked />
                    <LabField lab=lab checked=checked knob=Knob::Bw label="Bandwidth B" unit="(GB/s)" />
                    <div class="field">
                        <span class="label">"Compute ceiling"</span>
                        <p class="fixed" data-testid="peak" data-value=PEAK_GFLOPS.to_string()>
                            {PEAK_GFLOPS} " GFLOP/s " <span class="hint">"(fixed: a synthetic model, not editable)"</span>
                        </p>
                    </div>
                    <LabField
                        lab=lab checked=checked knob=Knob::Prediction label="Your prediction of P"
                        unit="(GFLOP/s)"
                    />
                    <div class="buttons">
                        <button type="submit" class="primary" data-testid="step" disabled=Signal::derive(move || !can_step())>
                            "Step"
                        </button>
                        <button type="button" data-testid="reset" on:click=reset title="Start a new run; this run stays on the chart, dimmed">
                            "Reset"
                        </button>
                        <Show when=has_previous>
                            <button type="button" data-testid="clear-previous" on:click=clear_previous>
                                "Clear previous run"
                            </button>
                        </Show>
                    </div>
                </form>
                <div class="outputs">
                    <div class="results">
                        <h3>"Result of the latest Step"</h3>
                        <ReadoutList readouts=Signal::derive(move || step_readouts(latest.get().as_ref())) />
                        <p class="verdict" data-testid="prediction-verdict">
                            {Signal::derive(move || latest.get().and_then(|p| p.prediction_verdict()).unwrap_or_default())}
                        </p>
                        <p class="visually-hidden" aria-live="polite" data-testid="announcement">
                            {Signal::derive(move || checked.with(|c| c.trail.last().map(|p| p.announcement(c.trail.len())).unwrap_or_default()))}
                        </p>
                    </div>
                    <figure class="chart-box">
                        <ChartCanvas
                            draw=draw svg=svg file_stem="coalescing-roofline".to_string()
                            visible=visible testid="roofline-chart" label="Roofline chart"
                            described_by="roofline-description"
                        />
                        <figcaption id="roofline-description" data-testid="roofline-description">
                            {Signal::derive(move || checked.with(|c| chart_description(roof_bw.get(), &c.trail)))}
                        </figcaption>
                    </figure>
                    <TrailTable checked=checked />
                </div>
            </div>
            </div>
        </section>
    }
}

/// Draws the lab's chart on any backend: the current roof and the stepped trail.
fn render<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    checked: Memo<Checked>,
    roof_bw: Memo<Exact>,
    theme: &Theme,
) -> Result<(), String> {
    let bw = roof_bw.get().value();
    checked
        .with(|c| chart::draw(area, bw, &c.trail, &c.previous, theme))
        .map_err(|e| e.to_string())
}

/// A text field of the lab with its error.
#[component]
fn LabField(
    lab: RwSignal<Lab>,
    checked: Memo<Checked>,
    knob: Knob,
    label: &'static str,
    unit: &'static str,
) -> impl IntoView {
    let error = Signal::derive(move || {
        checked.with(|c| {
            c.errors
                .iter()
                .find(|e| e.field == knob)
                .map(|e| e.to_string())
        })
    });
    view! {
        <TextField
            testid=format!("{}-input", knob.param()) param=knob.param() label=label tag=unit
            hint=knob.hint() inputmode="decimal"
            value=Signal::derive(move || lab.with(|l| l.get(knob).to_string()))
            on_input=Callback::new(move |text| lab.update(|l| l.set(knob, text))) error=error
        />
    }
}

/// The intensity slider: powers of two from 1/64 to 1024, in step with the number field.
#[component]
fn OiRange(lab: RwSignal<Lab>, checked: Memo<Checked>) -> impl IntoView {
    let position = move || lab.with(|l| OiSlider::position(&l.oi));
    // Say the slider's own value; while the field is invalid, say so instead of echoing it.
    let value_text = move || {
        let at = OiSlider::text(position());
        if checked.with(|c| c.errors.iter().any(|e| e.field == Knob::Oi)) {
            format!("{at} FLOP/byte; the typed intensity is not valid")
        } else {
            lab.with(|l| format!("{} FLOP/byte", l.oi.trim()))
        }
    };
    view! {
        <div class="field slider">
            <label for="oi-slider">"Intensity slider " <span class="param">"(powers of two)"</span></label>
            <input
                id="oi-slider" type="range" min=OiSlider::MIN max=OiSlider::MAX step="1"
                data-testid="oi-slider" prop:value=Signal::derive(move || position().to_string())
                aria-valuetext=value_text
                on:input=move |ev| {
                    if let Ok(p) = event_target_value(&ev).parse::<i32>() {
                        lab.update(|l| l.oi = OiSlider::text(p));
                    }
                }
            />
        </div>
    }
}

/// The stepped points as a table: the chart's trail, for everyone.
#[component]
fn TrailTable(checked: Memo<Checked>) -> impl IntoView {
    // Entries left out of the trail (malformed, or past the cap), said under the table.
    let trail_notes = Memo::new(move |_| {
        checked.with(|c| {
            let mut notes: Vec<String> = c
                .errors
                .iter()
                .filter(|e| matches!(e.field, Knob::Trail | Knob::Previous))
                .map(|e| format!("{e}; it was left out."))
                .collect();
            if c.dropped > 0 {
                notes.push(format!(
                    "The trail keeps its latest {MAX_TRAIL} points; {} older ones were left out.",
                    c.dropped
                ));
            }
            notes
        })
    });
    view! {
        <div class="lane-table trail" role="region" aria-labelledby="trail-title" tabindex="0">
            <table>
                <caption id="trail-title">"Trail: every Step so far"</caption>
                <thead>
                    <tr>
                        <th scope="col">"#"</th>
                        <th scope="col">"I (FLOP/byte)"</th>
                        <th scope="col">"B (GB/s)"</th>
                        <th scope="col">"P (GFLOP/s)"</th>
                        <th scope="col">"Bound"</th>
                        <th scope="col">"Ridge"</th>
                        <th scope="col" class="left">"Prediction"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        checked
                            .with(|c| trail_rows(&c.trail))
                            .into_iter()
                            .map(|row| {
                                let value = row.attainable_value.clone();
                                view! {
                                    <tr data-testid="trail-row" data-step=row.step data-value=value>
                                        <th scope="row">{row.step}</th>
                                        <td class="mono">{row.oi}</td>
                                        <td class="mono">{row.bw}</td>
                                        <td class="mono">{row.attainable}</td>
                                        <td>{row.bound}</td>
                                        <td class="mono">{row.ridge}</td>
                                        <td class="left">{row.verdict}</td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
            {move || {
                trail_notes
                    .get()
                    .into_iter()
                    .map(|message| {
                        view! {
                            <p class="error pad" data-testid="input-error" data-field="trail" role="alert">
                                {message}
                            </p>
                        }
                    })
                    .collect_view()
            }}
        </div>
    }
}
