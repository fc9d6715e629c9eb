//! The hand-offs into the Roofline lab's machine mode that live on other panels: the probe's
//! "Add my GPU's bandwidth". The model (`roofline::machine_view`) words and computes them.

use super::AppState;
use crate::model::permalink::Tab;
use crate::model::probe::Report;
use crate::model::roofline::{probe_ceiling_name, probe_contiguous_gbps, MachineInputs};
use leptos::prelude::*;

/// "Add my GPU's bandwidth": the contiguous stride's useful GB/s becomes a bandwidth ceiling
/// of the Roofline lab's machine mode, named after the adapter (a software adapter's name says
/// so: it measures the CPU, not a GPU).
#[component]
pub(super) fn AddToRoofline(state: AppState, report: RwSignal<Option<Report>>) -> impl IntoView {
    let ceiling = Memo::new(move |_| -> Result<(String, String, bool), String> {
        report.with(|r| {
            let r = r.as_ref().ok_or_else(String::new)?;
            Ok((
                probe_ceiling_name(&r.adapter),
                probe_contiguous_gbps(r)?,
                r.adapter.is_software(),
            ))
        })
    });
    let add = move |_| {
        let Ok((name, gbps, _)) = ceiling.get_untracked() else {
            return;
        };
        let course = state.lab.with_untracked(MachineInputs::from_course);
        state.roofs.update(|m| {
            if *m == MachineInputs::default() {
                *m = course;
            }
            m.custom = true;
            // Full: the button's note says so, and nothing changes.
            let _ = m.add_bandwidth(&name, &gbps);
        });
        state.tab.set(Tab::Roofline);
    };
    let why = move || {
        match ceiling.get() {
        Ok((name, gbps, software)) => format!(
            " Adds '{name}' at {gbps} GB/s (the 4 B stride's useful bandwidth) to the Roofline lab's machine mode.{}",
            if software { " A software adapter is not a GPU: this is your CPU's memory through an emulator." } else { "" }
        ),
        Err(why) => format!(" Not available: {why}."),
    }
    };
    view! {
        <p class="use-efficiency">
            <button
                type="button"
                class="secondary"
                data-testid="probe-to-roofline"
                on:click=add
                disabled=move || ceiling.with(Result::is_err)
                aria-describedby="probe-to-roofline-why"
            >
                "Add my GPU's bandwidth to the Roofline lab"
            </button>
            <span class="hint" id="probe-to-roofline-why" data-testid="probe-to-roofline-why">{why}</span>
        </p>
    }
}
