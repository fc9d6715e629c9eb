//! Two kernels side by side: the view's own kernel (A) and a preset (B, `kcompare`), each
//! analysed on the same machine, with their key figures and one sentence of ratios, as the
//! calculator compares two scenarios. B runs as a job of its own, in slices, with progress.

use super::runner::Runner;
use crate::model::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use crate::model::kernel::view::{compare_sentence, side_by_side};
use crate::model::kernel::wire::Request;
use crate::model::kernel::{KernelAnalysis, Machine};
use crate::ui::widgets::{ReadoutList, Select};
use crate::ui::AppState;
use leptos::prelude::*;

#[component]
pub(super) fn Compare(
    state: AppState,
    machine: Memo<Machine>,
    /// Kernel A's last finished analysis.
    analysis: RwSignal<Option<KernelAnalysis>>,
) -> impl IntoView {
    let picked = state.kernel_compare;
    let runner = Runner::new();
    let Runner { status, analysis: b_analysis, .. } = runner;
    let target = Memo::new(move |_| {
        picked.get().and_then(|p| {
            let inputs = p.inputs();
            let machine = machine.get();
            let kernel = inputs.kernel(machine).ok()?;
            Some((Request { inputs, machine }, kernel))
        })
    });
    Effect::new(move |_| match target.get() {
        // B starts after the page has drawn the pick (in the worker, or in slices of its own
        // that A's job, if any, shares).
        Some((request, kernel)) => runner.start(request, kernel, 0),
        None => runner.clear(),
    });
    let pick = Callback::new(move |id: String| picked.set(KernelPreset::by_id(&id)));
    let name = move || picked.get().map_or("", |p| p.name);
    let sentence = move || {
        analysis.with(|a| {
            b_analysis.with(|b| match (a, b) {
                (Some(a), Some(b)) => compare_sentence("kernel A", a, "kernel B", b),
                _ => String::new(),
            })
        })
    };
    view! {
        <div class="compare-bar">
            <label for="kernel-compare">"Compare with a preset"</label>
            <Select
                id="kernel-compare"
                none="Nothing"
                options={KERNEL_PRESETS.iter().map(|p| (p.id, p.name)).collect::<Vec<_>>()}
                value=Signal::derive(move || picked.get().map_or("", |p| p.id).to_string())
                on_pick=pick
            />
        </div>
        <Show when=move || picked.with(Option::is_some)>
            <section class="comparison" aria-labelledby="kernel-comparison-title">
                <h3 id="kernel-comparison-title">"Side by side"</h3>
                <Show when=move || status.with(|s| s.progress().is_some())>
                    <div class="kernel-run" data-testid="kernel-compare-progress">
                        <progress
                            max=move || status.with(|s| s.progress().map_or(1, |p| p.1)).to_string()
                            value=move || status.with(|s| s.progress().map_or(0, |p| p.0)).to_string()
                            aria-label="Kernel B analysis progress"
                        ></progress>
                        <button type="button" data-testid="kernel-compare-cancel" on:click=move |_| picked.set(None)>"Cancel"</button>
                    </div>
                </Show>
                <p class="note broadcast" data-testid="kernel-comparison" aria-live="polite">{sentence}</p>
                <div class="sides">
                    <div class="side">
                        <h4>"A: this kernel"</h4>
                        <ReadoutList readouts=Signal::derive(move || analysis.with(|a| a.as_ref().map(side_by_side).unwrap_or_default())) prefix="a." />
                    </div>
                    <div class="side">
                        <h4>"B: " {name}</h4>
                        <ReadoutList readouts=Signal::derive(move || b_analysis.with(|b| b.as_ref().map(side_by_side).unwrap_or_default())) prefix="b." />
                    </div>
                </div>
            </section>
        </Show>
    }
}
