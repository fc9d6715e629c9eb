//! The kernel view: a whole launch's warps, a loop and up to 8 statements, through the cache
//! model. The analysis runs as a job in slices of a few tens of milliseconds, with progress and
//! Cancel; a new input cancels the running job and starts another. The view shows the last
//! finished analysis while a job runs.
//!
//! - `form`: the launch's and the statements' fields;
//! - `results`: the whole-kernel figures, the statement table, the pictures, the hand-off;
//! - `warps`: the worst warp instructions and every warp of one, each opening in the calculator;
//! - `compare`: a preset beside the kernel, with the ratios between them.

mod compare;
mod form;
mod results;
mod runner;
mod warps;

use compare::Compare;
use form::{LaunchFields, Statements};
use results::Results;
use runner::{Runner, Status};
use warps::Warps;

use super::widgets::Select;
use super::AppState;
use crate::model::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use crate::model::kernel::view::{assumptions, kernel_label, repair_inputs, EXECUTION_ORDER};
use crate::model::kernel::wire::Request;
use crate::model::kernel::{
    Kernel, KernelAnalysis, KernelError, KernelField, KernelInputs, Machine, Measure, StmtField,
    MAX_STATEMENTS,
};
use crate::model::permalink::Tab;
use leptos::prelude::*;

/// Launches up to this many warp instructions run at once, in the task of the edit, so that
/// small kernels show their results without a flicker; bigger ones go to the page's worker
/// (`runner`), or start in a task of their own where there is none.
const AT_ONCE: u64 = 4096;

/// Statement parameters as static strings, for the fields' names and error notes.
const STMT_PARAMS: [[&str; 7]; MAX_STATEMENTS] = [
    [
        "a1.kind",
        "a1.space",
        "a1.elem",
        "a1.base",
        "a1.idx",
        "a1.active",
        "a1.name",
    ],
    [
        "a2.kind",
        "a2.space",
        "a2.elem",
        "a2.base",
        "a2.idx",
        "a2.active",
        "a2.name",
    ],
    [
        "a3.kind",
        "a3.space",
        "a3.elem",
        "a3.base",
        "a3.idx",
        "a3.active",
        "a3.name",
    ],
    [
        "a4.kind",
        "a4.space",
        "a4.elem",
        "a4.base",
        "a4.idx",
        "a4.active",
        "a4.name",
    ],
    [
        "a5.kind",
        "a5.space",
        "a5.elem",
        "a5.base",
        "a5.idx",
        "a5.active",
        "a5.name",
    ],
    [
        "a6.kind",
        "a6.space",
        "a6.elem",
        "a6.base",
        "a6.idx",
        "a6.active",
        "a6.name",
    ],
    [
        "a7.kind",
        "a7.space",
        "a7.elem",
        "a7.base",
        "a7.idx",
        "a7.active",
        "a7.name",
    ],
    [
        "a8.kind",
        "a8.space",
        "a8.elem",
        "a8.base",
        "a8.idx",
        "a8.active",
        "a8.name",
    ],
];

pub(super) fn param_of(field: KernelField) -> &'static str {
    match field {
        KernelField::Grid => "grid",
        KernelField::Block => "block",
        KernelField::Loop => "loop",
        KernelField::Cache => "cache",
        KernelField::Flops => "flops",
        KernelField::Stmt(n, f) => {
            let at = StmtField::ALL.iter().position(|x| *x == f).unwrap_or(0);
            STMT_PARAMS
                .get(usize::from(n).wrapping_sub(1))
                .map_or("", |row| row[at])
        }
    }
}

/// Field errors, and the run's error on the statement it names.
#[derive(Clone, Copy)]
pub(super) struct Errors {
    fields: Memo<Vec<KernelError>>,
    run: Signal<Option<KernelError>>,
}

impl Errors {
    pub(super) fn of(self, field: KernelField) -> Signal<Option<String>> {
        Signal::derive(move || {
            self.fields
                .with(|es| {
                    es.iter()
                        .find(|e| e.field == field)
                        .map(ToString::to_string)
                })
                .or_else(|| {
                    self.run
                        .get()
                        .filter(|e| e.field == field)
                        .map(|e| e.to_string())
                })
        })
    }
}

#[component]
pub fn KernelPanel(state: AppState) -> impl IntoView {
    let inputs = state.kernel;
    // The machine is the calculator's, as it shows it (bad fields at their defaults).
    let machine = Memo::new(move |_| state.calc.with(Machine::shown_by));
    let checked = Memo::new(move |_| {
        inputs.with(|i| i.kernel(machine.get()).map(|kernel| (i.clone(), kernel)))
    });
    let errors =
        Memo::new(move |_| checked.with(|c| c.as_ref().err().cloned().unwrap_or_default()));
    // The kernel to run, with the inputs it was checked from: the checked one; while a field
    // is in error, the last one (or, for a bad first link, the kernel with its bad fields at
    // their defaults).
    let targeted = Memo::new(move |previous: Option<&Option<(KernelInputs, Kernel)>>| {
        checked.with(|c| match (c, previous) {
            (Ok(checked), _) => Some(checked.clone()),
            (Err(_), Some(previous)) => previous.clone(),
            (Err(_), None) => {
                inputs.with_untracked(|i| repair_inputs(i, machine.get_untracked()).0)
            }
        })
    });
    let target = Memo::new(move |_| targeted.with(|t| t.as_ref().map(|(_, k)| k.clone())));
    let runner = Runner::new();
    let Runner { status, analysis, analysed, .. } = runner;

    // The error the last run stopped on, kept on its field until the inputs change.
    let run_error = RwSignal::new(None::<KernelError>);
    // The inputs of the last repair run, so repairs build on each other and never repeat.
    let repairing = StoredValue::new(None::<KernelInputs>);
    // Starts a job for `kernel`, checked from `inputs`, cancelling the one running.
    let start = move |inputs: KernelInputs, kernel: Kernel| {
        let machine = kernel.machine;
        runner.start(Request { inputs, machine }, kernel, AT_ONCE);
    };
    // A new kernel cancels the running job and starts its own.
    Effect::new(move |_| {
        let Some((checked_from, kernel)) = targeted.get() else {
            runner.settle();
            status.set(Status::Idle);
            return;
        };
        if analysed.with_untracked(|a| a.as_ref() == Some(&kernel)) {
            // Back to the kernel on show (e.g. an edit undone after a failed run): its results
            // stand, and the run that failed is gone.
            runner.settle();
            run_error.set(None);
            status.set(Status::Done);
            return;
        }
        run_error.set(None);
        repairing.set_value(None);
        start(checked_from, kernel);
    });
    // A run that stops on an error keeps it on its field. When nothing has been shown yet (a
    // link whose expression fails as it runs), the kernel runs again with that field at its
    // default, as a bad link's field is elsewhere.
    Effect::new(move |_| {
        let Status::Failed(error) = status.get() else {
            return;
        };
        run_error.set(Some(error.clone()));
        if analysis.with_untracked(Option::is_some) {
            return;
        }
        let mut repaired = repairing
            .get_value()
            .unwrap_or_else(|| inputs.get_untracked());
        let default = KernelInputs::default_for(error.field);
        if repaired.get(error.field) == default {
            // Already at its default: nothing left to try.
            return;
        }
        repaired.set(error.field, default);
        let kernel = repaired.kernel(machine.get_untracked()).ok();
        repairing.set_value(Some(repaired.clone()));
        if let Some(kernel) = kernel {
            start(repaired, kernel);
        }
    });
    let running = move || status.with(|s| matches!(s, Status::Running { .. }));
    let error_for = Errors { fields: errors, run: run_error.into() };
    let stale = Signal::derive(move || {
        errors.with(|e| !e.is_empty()) || run_error.with(Option::is_some) || running()
    });
    let preset = Signal::derive(move || {
        inputs
            .with(KernelPreset::matching)
            .map_or("", |p| p.id)
            .to_string()
    });
    let pick_preset = Callback::new(move |id: String| {
        if let Some(p) = KernelPreset::by_id(&id) {
            inputs.set(p.inputs());
        }
    });
    let explanation = move || inputs.with(KernelPreset::matching).map(|p| p.explanation);
    let visible = Signal::derive(move || state.tab.get() == Tab::Kernel);
    // The heat map's and the worst list's measure: the user's pick, else the analysis's own
    // default (conflicts for a kernel with bank conflicts).
    let chosen_measure = state.kernel_measure;
    let measure = Signal::derive(move || {
        chosen_measure.get().unwrap_or_else(|| {
            analysis.with(|a| {
                a.as_ref()
                    .map_or(Measure::Sectors, KernelAnalysis::default_measure)
            })
        })
    });

    view! {
        <section class="kernel" aria-labelledby="kernel-title">
            <h2 id="kernel-title">"Kernel view"</h2>
            <p class="lead">
                "Every warp of a launch: the grid and block shape, a loop over " <code>"i"</code>
                ", and up to 8 memory statements in CUDA's index names ("
                <code>"threadIdx"</code> ", " <code>"blockIdx"</code> ", " <code>"blockDim"</code> ", "
                <code>"gridDim"</code> ", " <code>"i"</code> ", " <code>"lane"</code> ", " <code>"warp"</code>
                "). Each warp instruction's sectors are counted as the calculator counts one; a cache model then says what reaches DRAM."
            </p>
            <div class="field">
                <label for="kernel-preset">"Kernel"</label>
                <Select
                    id="kernel-preset"
                    none="Custom kernel"
                    options={KERNEL_PRESETS.iter().map(|p| (p.id, p.name)).collect::<Vec<_>>()}
                    value=preset
                    on_pick=pick_preset
                />
                {move || explanation().map(|text| view! { <p class="note broadcast" data-testid="kernel-explanation">{text}</p> })}
            </div>
            <div class="layout">
                <form class="scenario" on:submit=|ev| ev.prevent_default() aria-label="Kernel">
                    <LaunchFields inputs=inputs error_for=error_for />
                    <Statements inputs=inputs error_for=error_for />
                </form>
                <div class="outputs">
                    <div class="results" aria-labelledby="kernel-results-title">
                        <h3 id="kernel-results-title">"Whole kernel"</h3>
                        <Show when=move || status.with(|s| s.progress().is_some())>
                            <div class="kernel-run" data-testid="kernel-progress">
                                <progress
                                    max=move || status.with(|s| s.progress().map_or(1, |p| p.1)).to_string()
                                    value=move || status.with(|s| s.progress().map_or(0, |p| p.0)).to_string()
                                    aria-label="Kernel analysis progress"
                                ></progress>
                                <span class="hint">
                                    {move || status.with(|s| s.progress().map(|(done, total)| format!("{done} of {total} warp instructions")).unwrap_or_default())}
                                </span>
                                <button type="button" class="secondary" data-testid="kernel-cancel" on:click=move |_| runner.cancel()>"Cancel"</button>
                            </div>
                        </Show>
                        <p class="visually-hidden" role="status" data-testid="kernel-status" data-worker-memory=move || runner.worker_memory.get().map(|m| m.to_string()) data-value=move || status.with(Status::name)>
                            {move || status.with(|s| match s {
                                Status::Done => "Kernel analysed.".to_string(),
                                Status::Cancelled => "Cancelled: showing the last finished results.".to_string(),
                                Status::Failed(e) => format!("Stopped: {e}"),
                                _ => String::new(),
                            })}
                        </p>
                        {move || status.with(|s| match s {
                            Status::Cancelled => Some(view! { <p class="stale" data-testid="kernel-cancelled">"Cancelled: showing the last finished results. Edit a field to run again."</p> }.into_any()),
                            Status::Failed(e) => Some(view! { <p class="stale" data-testid="kernel-failed">{format!("The launch stopped: {e}")}</p> }.into_any()),
                            _ => None,
                        })}
                        // Figures that are not the fields' kernel's say whose they are.
                        {move || {
                            let other = analysed.with(|shown| {
                                shown.as_ref().filter(|k| target.with(|t| t.as_ref() != Some(*k))).map(kernel_label)
                            })?;
                            Some(view! {
                                <p class="stale" data-testid="kernel-results-of" data-value=other.clone()>
                                    {format!("The figures below are the last finished run's, of another kernel: {other}.")}
                                </p>
                            })
                        }}
                        <Show
                            when=move || analysis.with(Option::is_some)
                            fallback=|| view! { <p class="hint">"Results appear when the launch has been analysed."</p> }
                        >
                            <Results state=state analysis=analysis stale=stale visible=visible measure=measure chosen=chosen_measure />
                        </Show>
                        <p class="hint">{move || assumptions(machine.get(), target.with(|k| k.as_ref().map_or(0, |k| k.cache_bytes)))}</p>
                        <Show when=move || target.with(|k| k.as_ref().is_some_and(|k| k.statements.iter().any(|s| s.space == crate::model::inputs::Space::Shared)))>
                            <p class="hint" data-testid="kernel-bank-model">{crate::model::banks::RULE}</p>
                        </Show>
                        <details class="order">
                            <summary>"Execution order the cache model assumes"</summary>
                            <ol>{EXECUTION_ORDER.iter().map(|s| view! { <li>{*s}</li> }).collect_view()}</ol>
                        </details>
                    </div>
                    <Compare state=state machine=machine analysis=analysis />
                </div>
            </div>
            <Show when=move || analysis.with(Option::is_some)>
                <Warps state=state analysis=analysis analysed=analysed measure=measure />
            </Show>
        </section>
    }
}
