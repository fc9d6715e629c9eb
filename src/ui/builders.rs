//! The pattern builders panel: describe a data layout, Apply, and the calculator's `elem`,
//! `base` and `idx` show the expression it stands for.

use super::widgets::{ErrorNote, TextField};
use crate::model::builders::{BuilderForm, ELEMENT_TYPES};
use crate::model::inputs::Inputs;
use leptos::prelude::*;

/// A text field of the builder form.
fn field(
    form: RwSignal<BuilderForm>,
    name: &'static str,
    label: &'static str,
    tag: &'static str,
    get: fn(&BuilderForm) -> String,
    set: fn(&mut BuilderForm, String),
) -> impl IntoView {
    view! {
        <TextField
            testid=format!("builder-{name}")
            param=name
            label=label
            tag=tag
            hint=""
            inputmode="numeric"
            value=Signal::derive(move || form.with(get))
            on_input=Callback::new(move |text| form.update(|f| set(f, text)))
            error=Signal::stored(None::<String>)
        />
    }
}

/// Builders for a strided array, a row-major matrix and an array of structures.
#[component]
pub fn Builders(inputs: RwSignal<Inputs>) -> impl IntoView {
    let form = RwSignal::new(BuilderForm::default());
    let error = RwSignal::new(None::<String>);
    let apply = move |as_arrays: bool| {
        let built = form
            .with_untracked(|f| f.layout(as_arrays))
            .and_then(|layout| inputs.with_untracked(|i| layout.build(i)));
        match built {
            Ok(next) => {
                inputs.set(next);
                error.set(None);
            }
            Err(message) => error.set(Some(message)),
        }
    };
    let kind = move || form.with(|f| f.kind.clone());
    view! {
        <details class="builders" data-testid="builders">
            <summary>"Build the pattern from a data layout"</summary>
            <div class="field">
                <label for="builder-kind">"Layout"</label>
                <select
                    id="builder-kind"
                    data-testid="builder-kind"
                    prop:value=Signal::derive(kind)
                    on:change=move |ev| form.update(|f| f.kind = event_target_value(&ev))
                >
                    <option value="strided">"Strided array"</option>
                    <option value="matrix">"Row-major matrix"</option>
                    <option value="structures">"Array of structures"</option>
                </select>
            </div>
            <Show when=move || kind() != "structures">
                <div class="field">
                    <label for="builder-element">"Element type"</label>
                    <select
                        id="builder-element"
                        data-testid="builder-element"
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
                {field(form, "stride", "Stride", "(elements)", |f| f.stride.clone(), |f, t| f.stride = t)}
                {field(form, "offset", "Starting offset", "(elements)", |f| f.offset.clone(), |f, t| f.offset = t)}
            </Show>
            <Show when=move || kind() == "matrix">
                {field(form, "rows", "Rows", "", |f| f.rows.clone(), |f, t| f.rows = t)}
                {field(form, "cols", "Columns", "(elements)", |f| f.cols.clone(), |f, t| f.cols = t)}
                {field(form, "pitch", "Row pitch", "(elements, ≥ columns)", |f| f.pitch.clone(), |f, t| f.pitch = t)}
                <div class="field">
                    <label for="builder-traversal">"Lane t takes"</label>
                    <select
                        id="builder-traversal"
                        data-testid="builder-traversal"
                        prop:value=Signal::derive(move || if form.with(|f| f.down_column) { "column" } else { "row" }.to_string())
                        on:change=move |ev| form.update(|f| f.down_column = event_target_value(&ev) == "column")
                    >
                        <option value="row">"the next column along one row"</option>
                        <option value="column">"the next row down one column"</option>
                    </select>
                </div>
                {field(form, "row", "Start row", "", |f| f.row.clone(), |f, t| f.row = t)}
                {field(form, "col", "Start column", "", |f| f.col.clone(), |f, t| f.col = t)}
            </Show>
            <Show when=move || kind() == "structures">
                {field(form, "struct-bytes", "Structure size", "(bytes)", |f| f.struct_bytes.clone(), |f, t| f.struct_bytes = t)}
                {field(form, "field-offset", "Field offset", "(bytes)", |f| f.field_offset.clone(), |f, t| f.field_offset = t)}
                {field(form, "field-bytes", "Field size", "(bytes)", |f| f.field_bytes.clone(), |f, t| f.field_bytes = t)}
            </Show>
            <div class="buttons">
                <button type="button" class="primary" data-testid="builder-apply" on:click=move |_| apply(false)>
                    "Apply"
                </button>
                <Show when=move || kind() == "structures">
                    <button type="button" data-testid="builder-soa" on:click=move |_| apply(true)>
                        "Read it as a structure of arrays"
                    </button>
                </Show>
            </div>
            <ErrorNote param="builder" message=error id="builder-error" />
        </details>
    }
}
