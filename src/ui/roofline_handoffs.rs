//! The hand-offs into the Roofline lab, one button for every panel and both of the lab's modes:
//! the calculator's "Use this efficiency", the kernel view's and the CUDA panel's "Use this
//! kernel" and the probe's "Add my GPU's bandwidth". The model (`roofline::HandOff`) decides
//! what each changes and words why it may not; this file wires.

use super::{url, AppState};
use crate::model::inputs::FieldError;
use crate::model::permalink::Tab;
use crate::model::probe::Report;
use crate::model::roofline::{HandOff, Lab, MachineInputs, Work};
use crate::model::sectors::Analysis;
use leptos::prelude::*;

/// "Use this efficiency": opens the Roofline lab with its intensity scaled by this scenario's
/// useful fraction (in machine mode, also as the point `calculator`).
#[component]
pub(super) fn UseInRoofline(
    shown: Memo<Analysis>,
    errors: Memo<Vec<FieldError>>,
    state: AppState,
) -> impl IntoView {
    let hand_off = Memo::new(move |_| {
        let valid = errors.with(Vec::is_empty);
        shown.with(|shown| {
            work_out(state, |lab, roofs| {
                HandOff::calculator(shown, valid, lab, roofs)
            })
        })
    });
    view! {
        <HandOffButton state=state hand_off=hand_off testid="use-efficiency" label="Use this efficiency in the Roofline lab" />
    }
}

/// "Use this kernel": its FLOPs over DRAM bytes become the lab's intensity (in machine mode,
/// two named points). The kernel view and the CUDA panel each hand over their [`Work`], `None`
/// until a run has finished; `testid` is `kernel-to-roofline` or `cuda-to-roofline`.
#[component]
pub(super) fn KernelToRoofline(
    state: AppState,
    #[prop(into)] work: Signal<Option<Work>>,
    testid: &'static str,
) -> impl IntoView {
    let hand_off = Memo::new(move |_| {
        work.with(|w| work_out(state, |lab, roofs| HandOff::kernel(w.as_ref(), lab, roofs)))
    });
    view! {
        <HandOffButton state=state hand_off=hand_off testid=testid label="Use this kernel in the Roofline lab" />
    }
}

/// "Add my GPU's bandwidth": the contiguous stride's useful GB/s becomes a bandwidth ceiling
/// of the lab's machine mode.
#[component]
pub(super) fn AddToRoofline(state: AppState, report: RwSignal<Option<Report>>) -> impl IntoView {
    let hand_off = Memo::new(move |_| {
        report.with(|r| work_out(state, |lab, roofs| HandOff::probe(r.as_ref(), lab, roofs)))
    });
    view! {
        <HandOffButton state=state hand_off=hand_off testid="probe-to-roofline" label="Add my GPU's bandwidth to the Roofline lab" />
    }
}

/// A hand-off worked out against the lab's inputs now, in either mode.
fn work_out(state: AppState, hand_off: impl FnOnce(&Lab, &MachineInputs) -> HandOff) -> HandOff {
    state
        .lab
        .with(|lab| state.roofs.with(|roofs| hand_off(lab, roofs)))
}

/// A hand-off's button and the sentence beside it (`{testid}-why`). Pressing it applies what
/// the model worked out and shows the lab; while it is refused the button is disabled.
#[component]
fn HandOffButton(
    state: AppState,
    hand_off: Memo<HandOff>,
    testid: &'static str,
    label: &'static str,
) -> impl IntoView {
    let apply = move |_| {
        let Some(opened) = hand_off.with_untracked(|h| h.opened.clone()) else {
            return;
        };
        // The entry being left gets the edits a panel holds back (the CUDA panel's typing).
        url::settle();
        if let Some(roofs) = opened.roofs {
            state.roofs.set(roofs);
        }
        if let Some((lab, note)) = opened.lab {
            state.lab.set(lab);
            state.lab_note.set(Some(note));
        }
        state.tab.set(Tab::Roofline);
    };
    let why = format!("{testid}-why");
    view! {
        <p class="use-efficiency">
            <button
                type="button"
                class="secondary"
                data-testid=testid
                on:click=apply
                disabled=move || hand_off.with(|h| h.opened.is_none())
                aria-describedby=why.clone()
            >
                {label}
            </button>
            // The leading space keeps the sentence apart from the button in the text flow.
            <span class="hint" id=why.clone() data-testid=why>
                {move || hand_off.with(|h| format!(" {}", h.hint))}
            </span>
        </p>
    }
}
