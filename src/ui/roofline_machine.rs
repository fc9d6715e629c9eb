//! The Roofline lab's machine mode: a GPU preset with its sources, named bandwidth and compute
//! ceilings, named points added by the form, by a click on the chart or by the keyboard, and
//! their tables. The model (`roofline::machine`) computes; this file wires.

use super::canvas::{svg_text, ChartCanvas};
use super::widgets::{ErrorNote, TextField};
use super::AppState;
use crate::charts::roofline_machine as chart;
use crate::charts::Theme;
use crate::model::permalink::Tab;
use crate::model::roofline::{
    ceiling_rows, machine_description, point_rows, short_decimal, CeilingKind, MachineChecked,
    MachineField, MachineInputs, GPU_PRESETS, MAX_BW, MAX_PEAK,
};
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use plotters_canvas::CanvasBackend;

/// `data-field` values of the ceiling slots (the widgets want static text).
const BW_PARAMS: [&str; MAX_BW] = ["bw.1", "bw.2", "bw.3", "bw.4", "bw.5", "bw.6"];
const PEAK_PARAMS: [&str; MAX_PEAK] = ["peak.1", "peak.2", "peak.3", "peak.4", "peak.5", "peak.6"];

/// The keyboard cursor moves in tenths of a decade: I = 10^(x/10), P = 10^(y/10).
fn cursor_value(steps: i32) -> f64 {
    10f64.powf(f64::from(steps) / 10.0)
}

#[component]
pub fn MachineMode(state: AppState) -> impl IntoView {
    let roofs = state.roofs;
    let checked = Memo::new(move |_| roofs.with(MachineInputs::check));
    let error_of = move |field: MachineField| {
        Signal::derive(move || {
            checked.with(|c| {
                c.errors
                    .iter()
                    .find(|e| e.field == field)
                    .map(|e| e.to_string())
            })
        })
    };
    // The keyboard cursor, in tenths of a decade; `None` until the chart gets a key.
    let cursor = RwSignal::new(None::<(i32, i32)>);
    let cursor_at = Signal::derive(move || {
        cursor
            .get()
            .map(|(x, y)| (cursor_value(x), cursor_value(y)))
    });
    let added = RwSignal::new(String::new());
    let add_at = move |(oi, p): (f64, f64)| {
        roofs.update(|m| {
            let name = m.fresh_point_name();
            let text = format!("{name}:{}:{}", short_decimal(oi), short_decimal(p));
            added.set(match m.add_point(text) {
                Ok(slot) => format!("Added point {name} as pt.{slot}."),
                Err(why) => format!("Not added: {why}."),
            });
        });
    };
    let on_key = Callback::new(move |key: String| {
        let (x, y) = cursor.get_untracked().unwrap_or((0, 20));
        // The cursor stays on the chart's axes: past them it would be drawn nowhere and
        // name a point that could not be added.
        let axes = checked.with_untracked(chart::axes);
        let bounds = |(lo, hi): (f64, f64)| {
            let (lo, hi) = ((10.0 * lo.log10()).ceil(), (10.0 * hi.log10()).floor());
            (lo as i32, (hi as i32).max(lo as i32))
        };
        let ((x_lo, x_hi), (y_lo, y_hi)) = (bounds(axes.oi), bounds(axes.p));
        let clamp = |(x, y): (i32, i32)| (x.clamp(x_lo, x_hi), y.clamp(y_lo, y_hi));
        let (x, y) = clamp((x, y));
        let next = match key.as_str() {
            "ArrowLeft" => (x - 1, y),
            "ArrowRight" => (x + 1, y),
            "ArrowUp" => (x, y + 1),
            "ArrowDown" => (x, y - 1),
            "Enter" | " " => {
                add_at((cursor_value(x), cursor_value(y)));
                (x, y)
            }
            "Escape" => {
                cursor.set(None);
                return;
            }
            _ => return,
        };
        cursor.set(Some(clamp(next)));
    });
    let cursor_text = move || {
        cursor_at.get().map_or_else(String::new, |(oi, p)| {
            format!(
                "Cursor at I = {} FLOP/byte, P = {} GFLOP/s; Enter adds a point there, Escape hides the cursor.",
                short_decimal(oi),
                short_decimal(p)
            )
        })
    };
    let visible = Signal::derive(move || state.tab.get() == Tab::Roofline);
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        render(area, checked, cursor_at, theme)
    };
    let svg = move |theme: &Theme, size: (u32, u32)| {
        svg_text(size, |area| render(area, checked, cursor_at, theme))
    };
    // A click lands where the pointer is, read against the axes the chart draws now.
    let click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        else {
            return;
        };
        if target.tag_name() != "CANVAS" {
            return;
        }
        let size = (target.client_width() as u32, target.client_height() as u32);
        let axes = checked.with_untracked(chart::axes);
        let at = (ev.offset_x(), ev.offset_y());
        // CSS pixels at scale 1: the drawing's layout scales with the backing store.
        if let Some(point) = chart::data_at(&axes, size, &Theme::LIGHT, at) {
            add_at(point);
        }
    };
    // Arrows and Enter on the chart move and place the cursor, not the page.
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        if matches!(ev.key().as_str(), "ArrowUp" | "ArrowDown" | "Enter" | " ") {
            ev.prevent_default();
        }
    };
    let preset_source = move || {
        checked.with(|c| {
            c.preset
                .map(|p| format!("{}: data-sheet peaks (dense), from {}", p.label, p.source))
        })
    };
    let override_note = move || {
        checked.with(|c| match c.preset {
            Some(p) if !c.overrides.is_empty() => Some(format!(
                "Explicit values override the {} preset: {}.",
                p.id,
                c.overrides.join(", ")
            )),
            _ => None,
        })
    };

    view! {
        <div class="layout machine" data-testid="machine-mode">
            <div class="scenario">
                <div class="field">
                    <label for="machine-preset">"GPU preset " <span class="param" aria-hidden="true">"machine"</span></label>
                    <select
                        id="machine-preset"
                        data-testid="machine-preset"
                        prop:value=move || roofs.with(|m| m.preset.clone())
                        on:change=move |ev| roofs.update(|m| m.set_preset(&event_target_value(&ev)))
                    >
                        <option value="">"Your own ceilings"</option>
                        {GPU_PRESETS
                            .iter()
                            .map(|p| view! { <option value=p.id>{p.label}</option> })
                            .collect_view()}
                    </select>
                    <ErrorNote param="machine" message=error_of(MachineField::Preset) id="machine-preset-error" />
                    {move || preset_source().map(|s| view! { <p class="hint" data-testid="machine-source">{s}</p> })}
                    {move || override_note().map(|s| view! { <p class="note" data-testid="machine-override">{s}</p> })}
                    {move || checked.with(|c| c.bandwidths.iter().any(|b| b.name.ends_with("(software)"))).then(|| view! {
                        <p class="note warning" data-testid="machine-software-note">
                            "A ceiling marked (software) comes from a software adapter: it measures your CPU's memory through an emulator, not a GPU."
                        </p>
                    })}
                </div>
                <CeilingFields roofs=roofs checked=checked kind=CeilingKind::Bandwidth />
                <CeilingFields roofs=roofs checked=checked kind=CeilingKind::Compute />
                <PointForm roofs=roofs added=added />
            </div>
            <div class="outputs">
                <figure class="chart-box" on:click=click on:keydown=keys>
                    <ChartCanvas
                        draw=draw
                        svg=svg
                        file_stem="coalescing-roofline-machine".to_string()
                        visible=visible
                        testid="roofline-machine-chart"
                        label="Roofline chart of the machine; arrow keys move a cursor, Enter adds a point"
                        described_by="roofline-machine-description"
                        on_key=on_key
                    />
                    <figcaption id="roofline-machine-description" data-testid="roofline-machine-description">
                        {move || checked.with(machine_description)}
                    </figcaption>
                </figure>
                <p class="visually-hidden" aria-live="polite" data-testid="roofline-cursor">{cursor_text}</p>
                <p class="note" aria-live="polite" data-testid="point-added">{move || added.get()}</p>
                <Tables roofs=roofs checked=checked />
            </div>
        </div>
    }
}

fn render<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    checked: Memo<MachineChecked>,
    cursor: Signal<Option<(f64, f64)>>,
    theme: &Theme,
) -> Result<(), String> {
    let cursor = cursor.get();
    checked
        .with(|c| chart::draw(area, c, cursor, theme))
        .map_err(|e| e.to_string())
}

/// The fields of one kind of ceiling: every slot in use, and the first free one.
#[component]
fn CeilingFields(
    roofs: RwSignal<MachineInputs>,
    checked: Memo<MachineChecked>,
    kind: CeilingKind,
) -> impl IntoView {
    let (params, field, label, hint): (&[&'static str], fn(u8) -> MachineField, _, _) = match kind {
        CeilingKind::Bandwidth => (
            &BW_PARAMS,
            MachineField::Bw,
            "Bandwidth ceiling",
            "NAME:GBps, such as DRAM:1555 or L2:5000; empty for none",
        ),
        CeilingKind::Compute => (
            &PEAK_PARAMS,
            MachineField::Peak,
            "Compute ceiling",
            "NAME:GFLOPs, such as FP32:19500; empty for none",
        ),
    };
    let shown = move || {
        roofs.with(|m| {
            let texts = match kind {
                CeilingKind::Bandwidth => &m.bw[..],
                CeilingKind::Compute => &m.peak[..],
            };
            let free = texts.iter().position(|t| t.is_empty());
            (0..texts.len())
                .filter(|&i| !texts[i].is_empty() || Some(i) == free)
                .collect::<Vec<_>>()
        })
    };
    view! {
        <fieldset class="ceilings">
            <legend>{label} "s"</legend>
            <For each=shown key=|i| *i let:i>
                {
                    let f = field(i as u8 + 1);
                    view! {
                        <TextField
                            testid=format!("input-{}", params[i])
                            param=params[i]
                            label=format!("{label} {}", i + 1)
                            tag=params[i]
                            hint=hint
                            value=Signal::derive(move || roofs.with(|m| m.get(f).to_string()))
                            on_input=Callback::new(move |text| roofs.update(|m| m.set(f, text)))
                            error=Signal::derive(move || checked.with(|c| c.errors.iter().find(|e| e.field == f).map(|e| e.to_string())))
                        />
                    }
                }
            </For>
        </fieldset>
    }
}

/// "Add a point": a name, I, P and the two ceilings, checked as the link would be.
#[component]
fn PointForm(roofs: RwSignal<MachineInputs>, added: RwSignal<String>) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let oi = RwSignal::new(String::new());
    let p = RwSignal::new(String::new());
    let bw = RwSignal::new(String::new());
    let peak = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut text = format!(
            "{}:{}:{}:{}:{}",
            name.get_untracked().trim(),
            oi.get_untracked().trim(),
            p.get_untracked().trim(),
            bw.get_untracked().trim(),
            peak.get_untracked().trim()
        );
        if name.get_untracked().trim().is_empty() {
            text = format!(
                "{}{text}",
                roofs.with_untracked(MachineInputs::fresh_point_name)
            );
        }
        let text = text.trim_end_matches(':').to_string();
        let mut trial = roofs.get_untracked();
        match trial.add_point(text) {
            Ok(slot) => {
                let problem = trial
                    .check()
                    .errors
                    .into_iter()
                    .find(|e| e.field == MachineField::Point(slot));
                match problem {
                    Some(e) => error.set(Some(format!("point: {}", e.message()))),
                    None => {
                        error.set(None);
                        roofs.set(trial);
                        added.set(format!("Added pt.{slot}."));
                        name.set(String::new());
                    }
                }
            }
            Err(why) => error.set(Some(format!("point: {why}"))),
        }
    };
    let field = move |id: &'static str,
                      label: &'static str,
                      hint: &'static str,
                      value: RwSignal<String>| {
        view! {
            <TextField
                testid=id.to_string()
                param="point"
                label=label.to_string()
                tag=""
                hint=hint
                inputmode="decimal"
                value=Signal::derive(move || value.get())
                on_input=Callback::new(move |t| value.set(t))
                error=Signal::derive(|| None::<String>)
            />
        }
    };
    view! {
        <form class="point-form" aria-label="Add a point" on:submit=submit>
            <fieldset>
                // The how-to sits under the legend, not in it: a long legend wraps over the
                // fieldset's border on a phone (hostile pass L20).
                <legend>"Add a point"</legend>
                <p class="hint">"Or click the chart; on the chart, arrow keys and Enter."</p>
                {field("point-name", "Name", "empty: P1, P2, …", name)}
                {field("point-oi", "Intensity I (FLOP/byte)", "against the traffic of the bandwidth below", oi)}
                {field("point-p", "Measured P (GFLOP/s)", "what the kernel achieved", p)}
                {field("point-bw", "Bandwidth ceiling it is read against", "a bandwidth ceiling's name; empty: the lowest", bw)}
                {field("point-peak", "Compute ceiling it can use", "a compute ceiling's name; empty: the highest", peak)}
                <ErrorNote param="point" message=error id="point-form-error" />
                <button type="submit" class="primary" data-testid="point-add">"Add point"</button>
            </fieldset>
        </form>
    }
}

/// The ceilings, the ridges and the points as tables: the chart, for everyone.
#[component]
fn Tables(roofs: RwSignal<MachineInputs>, checked: Memo<MachineChecked>) -> impl IntoView {
    let point_errors = move || {
        checked.with(|c| {
            c.errors
                .iter()
                .filter(|e| matches!(e.field, MachineField::Point(_)))
                .map(|e| (e.field.param(), e.to_string()))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="lane-table" role="region" aria-labelledby="roofs-title" tabindex="0">
            <table>
                <caption id="roofs-title">"Ceilings"</caption>
                <thead><tr><th scope="col">"Kind"</th><th scope="col">"Name"</th><th scope="col">"Value"</th></tr></thead>
                <tbody>
                    {move || checked.with(ceiling_rows).into_iter().map(|r| {
                        let (name, value) = (r.name.clone(), r.value);
                        view! {
                            <tr data-testid="roof" data-kind=r.kind data-name=name data-value=value>
                                <td>{if r.kind == "bw" { "bandwidth" } else { "compute" }} " " <span class="param">{r.param}</span></td>
                                <th scope="row">{r.name}</th>
                                <td class="mono">{r.text}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <div class="lane-table" role="region" aria-labelledby="points-title" tabindex="0">
            <table>
                <caption id="points-title">"Points"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Name"</th><th scope="col">"I (FLOP/byte)"</th><th scope="col">"P (GFLOP/s)"</th>
                        <th scope="col">"Roof, bound by (ceilings)"</th><th scope="col">"Of roof"</th><th scope="col">"Ridge"</th>
                        <th scope="col"><span class="visually-hidden">"Remove"</span></th>
                    </tr>
                </thead>
                <tbody>
                    {move || checked.with(point_rows).into_iter().map(|r| {
                        let slot = r.param.trim_start_matches("pt.").parse::<u8>().unwrap_or(0);
                        let remove = move |_| roofs.update(|m| m.set(MachineField::Point(slot), String::new()));
                        let (name, oi, p, by) = (r.name.clone(), r.oi.clone(), r.p.clone(), r.bound_by.clone());
                        let (attainable, fraction) = (r.attainable.clone(), r.fraction.clone());
                        view! {
                            <tr data-testid="roof-point" data-name=name data-oi=oi data-p=p
                                data-bound-by=by data-bound=r.bound data-attainable=attainable
                                data-fraction=fraction>
                                <th scope="row">{r.name.clone()}</th>
                                <td class="mono">{r.oi}</td>
                                <td class="mono">{r.p}</td>
                                <td>{r.roof_text}</td>
                                <td class="mono">{r.fraction_text}</td>
                                <td class="mono">{r.ridge}</td>
                                <td>
                                    <button type="button" data-testid=format!("remove-{}", r.param) aria-label=format!("Remove point {}", r.name) on:click=remove>"Remove"</button>
                                </td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            {move || point_errors().into_iter().map(|(field, m)| view! {
                <p class="error pad" data-testid="input-error" data-field=field role="alert">{m}</p>
            }).collect_view()}
        </div>
    }
}
