//! The kernel's fields: the launch (grid, block, loop, cache, FLOPs) and each statement's,
//! with Add and Remove. They write the panel's inputs; the panel checks and runs them.

use super::super::widgets::{ErrorNote, TextField};
use super::{param_of, Errors};
use crate::model::kernel::{KernelField, KernelInputs, StmtField, StmtInputs};
use leptos::prelude::*;

/// Grid, block, loop, cache and FLOPs.
#[component]
pub(super) fn LaunchFields(inputs: RwSignal<KernelInputs>, error_for: Errors) -> impl IntoView {
    let specs: [(KernelField, &'static str, &'static str, &'static str); 5] = [
        (
            KernelField::Grid,
            "Grid",
            "blocks along x,y,z; missing values are 1",
            "1,1,1",
        ),
        (
            KernelField::Block,
            "Block",
            "threads along x,y,z, at most 1024 in all",
            "32,1,1",
        ),
        (
            KernelField::Loop,
            "Loop",
            "START:END[:STEP] over i, e.g. 0:4; empty for one pass with i = 0",
            "",
        ),
        (
            KernelField::Cache,
            "Cache",
            "bytes: 0 for none, or whole lines up to 1 GiB (V100's L2: 6291456)",
            "6291456",
        ),
        (
            KernelField::Flops,
            "FLOPs",
            "per thread per iteration, for the Roofline lab; empty for none",
            "",
        ),
    ];
    specs
        .into_iter()
        .map(|(field, label, hint, placeholder)| {
            text_field(inputs, field, label, hint, placeholder, error_for)
        })
        .collect_view()
}

/// The statements, each in its own group, with Add and Remove.
#[component]
pub(super) fn Statements(inputs: RwSignal<KernelInputs>, error_for: Errors) -> impl IntoView {
    // A memo, so that an edit inside a statement (which changes `inputs`) does not rebuild
    // the statements' views: rebuilt, their fields were re-inserted and the focused one
    // lost focus after each key. Only Add and Remove change this list.
    let present = Memo::new(move |_| {
        inputs.with(|i| {
            i.statements
                .iter()
                .enumerate()
                .filter(|(_, s)| s.is_some())
                .map(|(k, _)| k as u8 + 1)
                .collect::<Vec<u8>>()
        })
    });
    let full = Memo::new(move |_| inputs.with(|i| i.statements.iter().all(Option::is_some)));
    let add = move |_| {
        inputs.update(|i| {
            if let Some(slot) = i.statements.iter_mut().find(|s| s.is_none()) {
                *slot = Some(StmtInputs::default());
            }
        })
    };
    view! {
        {move || {
            let shown = present.get();
            let last = shown.len() == 1;
            shown
                .into_iter()
                .map(|n| view! { <StatementFields inputs=inputs n=n error_for=error_for removable=!last /> })
                .collect_view()
        }}
        <button type="button" class="secondary" data-testid="kernel-add-statement" on:click=add disabled=move || full.get()>
            "Add a statement"
        </button>
    }
}

#[component]
fn StatementFields(
    inputs: RwSignal<KernelInputs>,
    n: u8,
    error_for: Errors,
    removable: bool,
) -> impl IntoView {
    let field = move |f| KernelField::Stmt(n, f);
    let remove = move |_| {
        inputs.update(|i| {
            if let Some(slot) = i.statements.get_mut(usize::from(n) - 1) {
                *slot = None;
            }
        })
    };
    let select = move |f: StmtField, options: &'static [(&'static str, &'static str)]| {
        let kf = field(f);
        let param = param_of(kf);
        let id = format!("input-{param}");
        let error = error_for.of(kf);
        view! {
            <div class="field" class:invalid=move || error.with(Option::is_some)>
                <label for=id.clone()>{if f == StmtField::Kind { "Access" } else { "Memory" }}</label>
                <select
                    id=id.clone()
                    data-testid=id.clone()
                    prop:value=move || inputs.with(|i| i.get(kf).trim().to_string())
                    on:change=move |ev| inputs.update(|i| i.set(kf, event_target_value(&ev)))
                >
                    {options.iter().map(|(value, label)| view! { <option value=*value>{*label}</option> }).collect_view()}
                </select>
                <ErrorNote param=param message=error id=format!("{id}-error") />
            </div>
        }
    };
    let barrier =
        Memo::new(move |_| inputs.with(|i| i.get(field(StmtField::Kind)).trim() == "sync"));
    let text = move |f: StmtField, label: &'static str, hint: &'static str| {
        text_field(inputs, field(f), label, hint, "", error_for)
    };
    view! {
        <fieldset class="statement" data-testid=format!("statement-a{n}")>
            <legend>{format!("Statement a{n}")}</legend>
            <div class="pair">
                {select(StmtField::Kind, &[("load", "load"), ("store", "store"), ("sync", "sync")])}
                <Show when=move || !barrier.get()>
                    {select(StmtField::Space, &[("global", "global"), ("shared", "shared")])}
                </Show>
            </div>
            // A barrier accesses no memory: only its condition and its name apply.
            <Show
                when=move || !barrier.get()
                fallback=move || text(StmtField::Active, "Reached when", "optional: the same for the whole block, e.g. i == 3; non-zero = the block waits here")
            >
                {text(StmtField::Idx, "Element index", "e.g. blockIdx.x * blockDim.x + threadIdx.x")}
                {text(StmtField::Elem, "Bytes per access", "1, 2, 4, 8 or 16")}
                {text(StmtField::Base, "Array base address", "bytes, decimal or 0x hex")}
                {text(StmtField::Active, "Guard", "optional: non-zero = the thread accesses")}
            </Show>
            {text(StmtField::Name, "Name", "a short label, e.g. in or out")}
            <Show when=move || removable>
                <button type="button" class="secondary" data-testid=format!("kernel-remove-a{n}") on:click=remove>
                    {format!("Remove a{n}")}
                </button>
            </Show>
        </fieldset>
    }
}

/// One text field of the kernel, named by its parameter, with its error.
fn text_field(
    inputs: RwSignal<KernelInputs>,
    field: KernelField,
    label: &'static str,
    hint: &'static str,
    placeholder: &'static str,
    error_for: Errors,
) -> impl IntoView {
    let param = param_of(field);
    view! {
        <TextField
            testid=format!("input-{param}")
            param=param
            label=label
            tag=param
            hint=hint
            placeholder=placeholder
            value=Signal::derive(move || inputs.with(|i| i.get(field)))
            on_input=Callback::new(move |text| inputs.update(|i| i.set(field, text)))
            error=error_for.of(field)
        />
    }
}
