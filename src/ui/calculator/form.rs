//! The scenario form: worked examples, builders, the architecture picker, one text field per
//! input, the predict-first switch, and the prediction form itself.

use crate::model::arch::{Arch, ARCHES};
use crate::model::inputs::{Field, FieldError, Inputs, Space};
use crate::model::lessons::lesson;
use crate::model::predict::{count_label, read_in, PredictField, Verdict};
use crate::model::presets::{Preset, PRESETS};
use crate::model::sectors::Analysis;
use crate::ui::widgets::{ErrorNote, Select, TextField};
use crate::ui::{builders, AppState};
use leptos::prelude::*;

/// How each field is introduced to a learner.
pub(super) struct FieldSpec {
    field: Field,
    label: &'static str,
    placeholder: &'static str,
    numeric: bool,
}

pub(super) const FIELDS: [FieldSpec; 8] = [
    FieldSpec {
        field: Field::Warp,
        label: "Lanes in the warp",
        placeholder: "32",
        numeric: true,
    },
    FieldSpec {
        field: Field::Elem,
        label: "Bytes per lane (elem)",
        placeholder: "4",
        numeric: true,
    },
    FieldSpec {
        field: Field::Base,
        label: "Base address",
        placeholder: "0",
        numeric: false,
    },
    FieldSpec {
        field: Field::Idx,
        label: "Element index idx(t)",
        placeholder: "t",
        numeric: false,
    },
    FieldSpec {
        field: Field::Active,
        label: "Active lanes",
        placeholder: "every lane, e.g. t % 2 == 0",
        numeric: false,
    },
    FieldSpec {
        field: Field::Addrs,
        label: "Explicit addresses",
        placeholder: "e.g. 0, 4, -, 12",
        numeric: false,
    },
    FieldSpec {
        field: Field::Sector,
        label: "Sector bytes",
        placeholder: "32",
        numeric: true,
    },
    FieldSpec {
        field: Field::Line,
        label: "Cache line bytes",
        placeholder: "128",
        numeric: true,
    },
];

#[component]
pub(super) fn ScenarioForm(
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    state: AppState,
    verdict: RwSignal<Option<Verdict>>,
    /// Whether the results are held back for a prediction: the lesson, which names the
    /// answer, waits too.
    hidden: Signal<bool>,
) -> impl IntoView {
    let preset = Signal::derive(move || {
        inputs
            .with(Preset::matching)
            .map_or("", |p| p.id)
            .to_string()
    });
    let lesson = move || {
        let text = inputs.with(Preset::matching).and_then(|p| lesson(p.id))?;
        Some(if hidden.get() {
            "The lesson of this example appears once you reveal the results."
        } else {
            text
        })
    };
    let pick = Callback::new(move |id: String| {
        if let Some(p) = Preset::by_id(&id) {
            inputs.set(p.inputs());
        }
    });
    view! {
        <form class="scenario" on:submit=|ev| ev.prevent_default() aria-label="Scenario">
            <div class="field">
                <label for="preset">"Worked example"</label>
                <Select
                    id="preset" none="Custom scenario"
                    options={PRESETS.iter().map(|p| (p.id, p.name)).collect::<Vec<_>>()}
                    value=preset on_pick=pick
                />
                {move || lesson().map(|text| view! { <p class="note lesson" data-testid="preset-lesson">{text}</p> })}
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
            <SpaceField inputs=inputs errors=errors />
            {FIELDS
                .iter()
                .map(|spec| view! { <CalcField spec=spec inputs=inputs errors=errors /> })
                .collect_view()}
            <div class="field check">
                <input
                    type="checkbox" id="predict-mode" data-testid="predict-mode"
                    prop:checked=Signal::derive(move || state.predict.get())
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        state.predict.set(on);
                        verdict.set(None);
                        // The page gets shorter as the results hide: bring the prediction's
                        // own field into view, not wherever the scroll position lands.
                        if on {
                            request_animation_frame(|| {
                                if let Some(field) = document().get_element_by_id("predict-ntx") {
                                    // Above the view: align it to the top; below: to the bottom.
                                    let top = field_top(&field);
                                    let height = window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
                                    if top < 0.0 {
                                        field.scroll_into_view_with_bool(true);
                                    } else if top > height {
                                        field.scroll_into_view_with_bool(false);
                                    }
                                }
                            });
                        }
                    }
                />
                <label for="predict-mode">"Predict before revealing " <span class="param" aria-hidden="true">"predict"</span></label>
                <p class="hint">"hides the results until you commit to an N_tx"</p>
            </div>
        </form>
    }
}

#[component]
pub(super) fn CalcField(
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
    let unused_in_shared = Signal::derive(move || {
        matches!(field, Field::Sector | Field::Line)
            && inputs.with(|i| Space::parse(&i.space) == Some(Space::Shared))
    });
    let ignored = Signal::derive(move || {
        (matches!(field, Field::Base | Field::Idx) && inputs.with(Inputs::uses_address_list))
            || unused_in_shared.get()
    });
    let note = Signal::derive(move || {
        inputs.with(|i| {
            if unused_in_shared.get() {
                " (not used in shared memory)".to_string()
            } else if ignored.get() {
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
            testid=format!("input-{param}") param=param label=spec.label tag=param hint=field.hint()
            placeholder=spec.placeholder inputmode=if spec.numeric { "numeric" } else { "text" }
            value=Signal::derive(move || inputs.with(|i| i.get(field).to_string()))
            on_input=Callback::new(move |text| inputs.update(|i| i.set(field, text))) error=error
            note=note dimmed=ignored
        />
    }
}

/// Predict first: N_tx (required) and the efficiency (optional), then Reveal.
#[component]
pub(super) fn PredictPanel(
    shown: Memo<Analysis>,
    inputs: RwSignal<Inputs>,
    verdict: RwSignal<Option<Verdict>>,
) -> impl IntoView {
    let sectors = RwSignal::new(String::new());
    let efficiency = RwSignal::new(String::new());
    let error = RwSignal::new(None);
    let space = Signal::derive(move || shown.with(|a| a.space));
    let shared = Signal::derive(move || space.get() == Space::Shared);
    let reveal = move |_| match read_in(
        space.get_untracked(),
        &sectors.get_untracked(),
        &efficiency.get_untracked(),
    ) {
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
                {move || if shared.get() {
                    "Work out each lane's 4-byte words and their banks, then commit: how many \
                     wavefronts does this warp need?"
                } else {
                    "Work out each lane's address and the aligned sector it falls in, then commit: \
                     how many distinct sectors does this warp touch?"
                }}
            </p>
            <TextField
                testid="predict-ntx".to_string() param="predict-ntx"
                label=Signal::derive(move || -> String {
                    crate::model::format::capitalize(count_label(space.get()))
                })
                tag="(count)" hint="a whole number" inputmode="numeric" value=sectors
                on_input=Callback::new(move |t| sectors.set(t)) error=ntx_error
            />
            <Show when=move || !shared.get()>
            <TextField
                testid="predict-efficiency".to_string() param="predict-efficiency"
                label="Predicted efficiency" tag="(optional)"
                hint="requested ÷ transferred: a ratio (0.8, or 4 for a broadcast) or a percentage (80 %)"
                inputmode="decimal" value=efficiency
                on_input=Callback::new(move |t| efficiency.set(t)) error=eff_error
            />
            </Show>
            <button type="submit" class="primary" data-testid="reveal">"Reveal"</button>
        </form>
    }
}

/// A picker of the calculator: a `<select>` for `field` (scenario B's, `b.`-prefixed, with
/// `b`) under its label and parameter, its hint (the children) under it, then the field's
/// error, which `aria-describedby` names first while there is one.
#[component]
fn FieldPicker(
    field: Field,
    b: bool,
    errors: Memo<Vec<FieldError>>,
    /// The visible label, before the parameter name.
    label: &'static str,
    options: Vec<(&'static str, &'static str)>,
    /// The value shown.
    #[prop(into)]
    value: Signal<String>,
    on_pick: Callback<String>,
    /// `data-testid` of the hint, if it has one.
    #[prop(optional)]
    hint_testid: Option<String>,
    children: Children,
) -> impl IntoView {
    let param = if b { field.b_param() } else { field.param() };
    let id = format!("input-{param}");
    let (hint_id, error_id) = (format!("{id}-hint"), format!("{id}-error"));
    let error = Signal::derive(move || {
        errors.with(|es| es.iter().find(|e| e.field == field).map(|e| e.to_string()))
    });
    let described = {
        let (hint_id, error_id) = (hint_id.clone(), error_id.clone());
        Signal::derive(move || {
            if error.with(Option::is_some) {
                format!("{error_id} {hint_id}")
            } else {
                hint_id.clone()
            }
        })
    };
    view! {
        <div class="field" class:invalid=Signal::derive(move || error.with(Option::is_some))>
            <label for=id.clone()>{label} <span class="param" aria-hidden="true">{param}</span></label>
            <select
                id=id.clone() data-testid=id aria-describedby=described
                on:change=move |ev| on_pick.run(event_target_value(&ev)) prop:value=value
            >
                {options.into_iter().map(|(value, text)| view! { <option value=value>{text}</option> }).collect_view()}
            </select>
            <p class="hint" id=hint_id data-testid=hint_testid>{children()}</p>
            <ErrorNote param=param message=error id=error_id />
        </div>
    }
}

/// The memory the instruction reads: global (sectors and lines) or shared (banks). A bad
/// value from a link shows its error here while the analysis uses global memory.
#[component]
pub(super) fn SpaceField(
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    /// Scenario B's picker: `b.`-prefixed parameter and ids.
    #[prop(default = false)]
    b: bool,
) -> impl IntoView {
    view! {
        <FieldPicker
            field=Field::Space b=b errors=errors label="Memory "
            options=vec![
                ("global", "Global: sectors and cache lines"),
                ("shared", "Shared: 32 banks of 4 bytes"),
            ]
            value=Signal::derive(move || {
                inputs.with(|i| Space::parse(&i.space).unwrap_or_default().name().to_string())
            })
            on_pick=Callback::new(move |space| inputs.update(|i| i.space = space))
        >
            {Field::Space.hint()}
        </FieldPicker>
    }
}

/// The architecture preset: picking one fills warp, sector and line; its assumption and
/// source are stated under it.
#[component]
pub(super) fn ArchField(
    inputs: RwSignal<Inputs>,
    errors: Memo<Vec<FieldError>>,
    /// Scenario B's picker: `b.`-prefixed parameter and ids.
    #[prop(default = false)]
    b: bool,
) -> impl IntoView {
    let pick = Callback::new(move |id: String| {
        if let Some(arch) = Arch::by_id(&id) {
            inputs.update(|i| *i = i.with_arch(arch));
        }
    });
    view! {
        <FieldPicker
            field=Field::Arch b=b errors=errors label="Architecture "
            options=ARCHES.iter().map(|a| (a.id, a.name)).collect()
            value=Signal::derive(move || inputs.with(|i| i.arch.clone())) on_pick=pick
            hint_testid=format!("{}arch-note", if b { "b." } else { "" })
        >
            {Signal::derive(move || inputs.with(|i| i.arch_preset().note.to_string()))}
            " A model: real behaviour depends on the architecture and cache path; confirm it in a profiler."
        </FieldPicker>
    }
}

/// An element's top edge relative to the viewport, in CSS pixels (its page offset less the
/// scroll), without the `DomRect` binding.
fn field_top(element: &web_sys::Element) -> f64 {
    let mut top = 0.0;
    let mut at: Option<web_sys::HtmlElement> =
        wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(element).cloned();
    while let Some(e) = at {
        top += f64::from(e.offset_top());
        at = e
            .offset_parent()
            .and_then(|p| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(p).ok());
    }
    top - window().scroll_y().unwrap_or(0.0)
}
