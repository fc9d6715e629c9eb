//! The pattern builders panel: describe a data layout, Apply, and the calculator's `elem`,
//! `base` and `idx` show the expression it stands for.

use super::widgets::{ErrorNote, Select, TextField};
use crate::model::builders::{BuilderError, BuilderForm, ELEMENT_TYPES};
use crate::model::inputs::Inputs;
use leptos::prelude::*;

/// A text field of the builder form: its name (the error's field, and `builder-{name}`), label
/// and unit, and how to read and write the form's text of it.
type Field = (
    &'static str,
    &'static str,
    &'static str,
    fn(&BuilderForm) -> String,
    fn(&mut BuilderForm, String),
);

/// A strided array's fields.
#[rustfmt::skip]
const STRIDED: &[Field] = &[
    ("stride", "Stride", "(elements)", |f| f.stride.clone(), |f, t| f.stride = t),
    ("offset", "Starting offset", "(elements)", |f| f.offset.clone(), |f, t| f.offset = t),
];

/// A matrix's size and row pitch.
#[rustfmt::skip]
const MATRIX: &[Field] = &[
    ("rows", "Rows", "", |f| f.rows.clone(), |f, t| f.rows = t),
    ("cols", "Columns", "(elements)", |f| f.cols.clone(), |f, t| f.cols = t),
    ("pitch", "Row pitch", "(≥ the row's width)", |f| f.pitch.clone(), |f, t| f.pitch = t),
];

/// Where in the matrix lane 0 starts.
#[rustfmt::skip]
const MATRIX_START: &[Field] = &[
    ("row", "Start row", "", |f| f.row.clone(), |f, t| f.row = t),
    ("col", "Start column", "", |f| f.col.clone(), |f, t| f.col = t),
];

/// An array of structures' fields, in bytes.
#[rustfmt::skip]
const STRUCTURES: &[Field] = &[
    ("struct-bytes", "Structure size", "(bytes)", |f| f.struct_bytes.clone(), |f, t| f.struct_bytes = t),
    ("field-offset", "Field offset", "(bytes)", |f| f.field_offset.clone(), |f, t| f.field_offset = t),
    ("field-bytes", "Field size", "(bytes)", |f| f.field_bytes.clone(), |f, t| f.field_bytes = t),
];

/// The text fields of `fields`, each with the form's live error when it is that field's.
fn fields(
    form: RwSignal<BuilderForm>,
    checked: Memo<Option<BuilderError>>,
    fields: &'static [Field],
) -> impl IntoView {
    fields
        .iter()
        .map(|&(name, label, tag, get, set)| field(form, checked, name, label, tag, get, set))
        .collect_view()
}

/// A text field of the builder form, with the form's live error when it is this field's.
fn field(
    form: RwSignal<BuilderForm>,
    checked: Memo<Option<BuilderError>>,
    name: &'static str,
    label: &'static str,
    tag: &'static str,
    get: fn(&BuilderForm) -> String,
    set: fn(&mut BuilderForm, String),
) -> impl IntoView {
    let error = Signal::derive(move || {
        checked.with(|e| {
            e.as_ref()
                .filter(|e| e.field == name)
                .map(ToString::to_string)
        })
    });
    view! {
        <TextField
            testid=format!("builder-{name}") param=name label=label tag=tag hint=""
            inputmode="numeric" value=Signal::derive(move || form.with(get))
            on_input=Callback::new(move |text| form.update(|f| set(f, text))) error=error
        />
    }
}

/// The layouts a builder describes: value, then text.
const LAYOUTS: &[(&str, &str)] = &[
    ("strided", "Strided array"),
    ("matrix", "Row-major matrix"),
    ("structures", "Array of structures"),
];

/// The units of a matrix's row pitch: value, then text.
const PITCH_UNITS: &[(&str, &str)] = &[
    ("elements", "elements"),
    ("bytes", "bytes (as the course states it)"),
];

/// What lane t + 1 takes after lane t in a matrix: value, then text.
const TRAVERSALS: &[(&str, &str)] = &[
    ("row", "the next column along one row"),
    ("column", "the next row down one column"),
];

/// Builders for a strided array, a row-major matrix and an array of structures.
#[component]
pub fn Builders(
    inputs: RwSignal<Inputs>,
    /// Shows two scenarios side by side: "Compare with the structure of arrays" hands over
    /// the array of structures as A and the structure of arrays as B.
    compare: Callback<(Inputs, Inputs)>,
) -> impl IntoView {
    let form = RwSignal::new(BuilderForm::default());
    let build = move |as_arrays: bool| {
        form.with(|f| f.layout(as_arrays))
            .and_then(|layout| inputs.with(|i| layout.build(i)))
    };
    // Checked while typing, so a field's error shows before Apply.
    let checked = Memo::new(move |_| build(false).err());
    // Errors of the pickers (element type, layout) have no text field to sit under.
    let error = Signal::derive(move || {
        checked.with(|e| {
            e.as_ref()
                .filter(|e| matches!(e.field, "element" | "kind"))
                .map(ToString::to_string)
        })
    });
    let apply = move |_| {
        if let Ok(next) = untrack(|| build(false)) {
            inputs.set(next);
        }
    };
    let compare_soa = move |_| {
        if let (Ok(aos), Ok(soa)) = untrack(|| (build(false), build(true))) {
            compare.run((aos, soa));
        }
    };
    let kind = move || form.with(|f| f.kind.clone());
    view! {
        <details class="builders" data-testid="builders">
            <summary>"Build the pattern from a data layout"</summary>
            <Select
                id="builder-kind" label="Layout" options=LAYOUTS value=Signal::derive(kind)
                on_pick=Callback::new(move |kind| form.update(|f| f.kind = kind))
            />
            <Show when=move || kind() != "structures">
                <div class="field">
                    <label for="builder-element">"Element type"</label>
                    <select
                        id="builder-element" data-testid="builder-element"
                        prop:value=Signal::derive(move || form.with(|f| f.element.clone()))
                        on:change=move |ev| form.update(|f| f.element = event_target_value(&ev))
                    >
                        {ELEMENT_TYPES
                            .iter()
                            .map(|(name, bytes)| view! { <option value=*name>{format!("{name} ({bytes} B)")}</option> })
                            .collect_view()}
                    </select>
                </div>
            </Show>
            <Show when=move || kind() == "strided">
                {fields(form, checked, STRIDED)}
            </Show>
            <Show when=move || kind() == "matrix">
                {fields(form, checked, MATRIX)}
                <Select
                    id="builder-pitch-unit" label="Row pitch in" options=PITCH_UNITS
                    value=Signal::derive(move || if form.with(|f| f.pitch_in_bytes) { "bytes" } else { "elements" }.to_string())
                    on_pick=Callback::new(move |unit: String| form.update(|f| f.pitch_in_bytes = unit == "bytes"))
                />
                <Select
                    id="builder-traversal" label="Lane t takes" options=TRAVERSALS
                    value=Signal::derive(move || if form.with(|f| f.down_column) { "column" } else { "row" }.to_string())
                    on_pick=Callback::new(move |order: String| form.update(|f| f.down_column = order == "column"))
                />
                {fields(form, checked, MATRIX_START)}
            </Show>
            <Show when=move || kind() == "structures">
                {fields(form, checked, STRUCTURES)}
            </Show>
            <div class="buttons">
                <button
                    type="button" class="primary" data-testid="builder-apply" on:click=apply
                    disabled=Signal::derive(move || checked.with(Option::is_some))
                >
                    "Apply"
                </button>
                <Show when=move || kind() == "structures">
                    <button
                        type="button" data-testid="builder-soa" on:click=compare_soa
                        disabled=Signal::derive(move || checked.with(Option::is_some))
                    >
                        "Compare with the structure of arrays"
                    </button>
                </Show>
            </div>
            <ErrorNote param="builder" message=error id="builder-error" />
        </details>
    }
}
