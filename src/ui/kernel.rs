//! The kernel view: a whole launch's warps, a loop and up to 8 statements, through the cache
//! model. The analysis runs as a job in slices of a few tens of milliseconds, with progress and
//! Cancel; a new input cancels the running job and starts another. The view shows the last
//! finished analysis while a job runs.

use super::canvas::{ChartCanvas, Shape};
use super::share::download_text;
use super::widgets::{ErrorNote, ReadoutList, TextField};
use super::{url, AppState};
use crate::charts::{kernel as chart, Theme};
use crate::model::inputs::Inputs;
use crate::model::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use crate::model::kernel::view::{
    assumptions, bars_description, heat_description, lane0_text, readouts, repair, statement_csv,
    statement_rows, warp_csv, EXECUTION_ORDER,
};
use crate::model::kernel::{
    calculator_addrs, warp_rows, Job, Kernel, KernelAnalysis, KernelError, KernelField,
    KernelInputs, Machine, Pick, StmtField, StmtInputs, WarpRow, MAX_STATEMENTS,
};
use crate::model::permalink::{self, State, Tab};
use crate::model::sectors::analyze_repaired;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;
use std::time::Duration;

/// The longest slice of work between two chances for the page to respond, in milliseconds.
const SLICE_MS: f64 = 40.0;
/// Launches up to this many warp instructions run at once, in the task of the edit, so that
/// small kernels show their results without a flicker; bigger ones start in a task of their own.
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

fn param_of(field: KernelField) -> &'static str {
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

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Field errors, and the run's error on the statement it names.
#[derive(Clone, Copy)]
struct Errors {
    fields: Memo<Vec<KernelError>>,
    run: Signal<Option<KernelError>>,
}

impl Errors {
    fn of(self, field: KernelField) -> Signal<Option<String>> {
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

/// Where the current job stands.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    /// Nothing to run: a field is in error and no earlier analysis exists.
    Idle,
    Running {
        done: u64,
        total: u64,
    },
    Done,
    Cancelled,
    Failed(KernelError),
}

#[component]
pub fn KernelPanel(state: AppState) -> impl IntoView {
    let inputs = state.kernel;
    // The machine is the calculator's, as it shows it (bad fields at their defaults).
    let machine = Memo::new(move |_| {
        let a = state.calc.with(analyze_repaired);
        Machine {
            warp: a.warp,
            sector_bytes: a.sector_bytes,
            line_bytes: a.line_bytes,
        }
    });
    let checked = Memo::new(move |_| inputs.with(|i| i.kernel(machine.get())));
    let errors =
        Memo::new(move |_| checked.with(|c| c.as_ref().err().cloned().unwrap_or_default()));
    // The kernel to run: the checked one; while a field is in error, the last one (or, for a
    // bad first link, the kernel with its bad fields at their defaults).
    let target = Memo::new(move |previous: Option<&Option<Kernel>>| {
        checked.with(|c| match (c, previous) {
            (Ok(kernel), _) => Some(kernel.clone()),
            (Err(_), Some(previous)) => previous.clone(),
            (Err(_), None) => inputs.with_untracked(|i| repair(i, machine.get_untracked()).0),
        })
    });
    let analysis = RwSignal::new(None::<KernelAnalysis>);
    let analysed = RwSignal::new(None::<Kernel>);
    let status = RwSignal::new(Status::Idle);
    let generation = StoredValue::new(0u64);
    let job = StoredValue::new_local(None::<Job>);

    // One slice of the job: runs until SLICE_MS has passed, then yields to the page.
    fn slice(
        ticket: u64,
        generation: StoredValue<u64>,
        job: StoredValue<Option<Job>, LocalStorage>,
        status: RwSignal<Status>,
        analysis: RwSignal<Option<KernelAnalysis>>,
        analysed: RwSignal<Option<Kernel>>,
        kernel: Kernel,
    ) {
        if generation.try_get_value() != Some(ticket) {
            return;
        }
        let start = now_ms();
        let mut budget = 64u64;
        let outcome = job
            .try_update_value(|slot| {
                let job = slot.as_mut()?;
                loop {
                    let before = now_ms();
                    match job.step(budget) {
                        Ok(true) => return Some(Ok(true)),
                        Ok(false) => {}
                        Err(e) => return Some(Err(e)),
                    }
                    let after = now_ms();
                    if after - start >= SLICE_MS {
                        return Some(Ok(false));
                    }
                    // Grow the chunk while it is cheap, so the clock is read rarely.
                    if after - before < 2.0 {
                        budget = budget.saturating_mul(2).min(1 << 20);
                    }
                }
            })
            .flatten();
        match outcome {
            Some(Ok(true)) => {
                let finished = job
                    .try_update_value(Option::take)
                    .flatten()
                    .map(Job::finish);
                let show = move || match finished {
                    Some(Ok(result)) => {
                        analysis.set(Some(result));
                        analysed.set(Some(kernel));
                        status.set(Status::Done);
                    }
                    Some(Err(e)) => status.set(Status::Failed(e)),
                    None => {}
                };
                // After a long slice, drawing the results gets a task of its own.
                if now_ms() - start > SLICE_MS / 2.0 {
                    set_timeout(
                        move || {
                            if generation.try_get_value() == Some(ticket) {
                                show();
                            }
                        },
                        Duration::from_millis(0),
                    );
                } else {
                    show();
                }
            }
            Some(Ok(false)) => {
                if let Some((done, total)) = job.with_value(|j| j.as_ref().map(Job::progress)) {
                    status.set(Status::Running { done, total });
                }
                set_timeout(
                    move || slice(ticket, generation, job, status, analysis, analysed, kernel),
                    Duration::from_millis(0),
                );
            }
            Some(Err(e)) => {
                job.set_value(None);
                status.set(Status::Failed(e));
            }
            None => {}
        }
    }

    // The error the last run stopped on, kept on its field until the inputs change.
    let run_error = RwSignal::new(None::<KernelError>);
    // The inputs of the last repair run, so repairs build on each other and never repeat.
    let repairing = StoredValue::new(None::<KernelInputs>);
    // Starts a job for `kernel`, cancelling the one running.
    let start = move |kernel: Kernel| {
        let ticket = generation.get_value() + 1;
        generation.set_value(ticket);
        let fresh = Job::new(&kernel);
        let (done, total) = fresh.progress();
        job.set_value(Some(fresh));
        status.set(Status::Running { done, total });
        if total <= AT_ONCE {
            slice(ticket, generation, job, status, analysis, analysed, kernel);
        } else {
            set_timeout(
                move || slice(ticket, generation, job, status, analysis, analysed, kernel),
                Duration::from_millis(0),
            );
        }
    };
    // A new kernel cancels the running job and starts its own.
    Effect::new(move |_| {
        let Some(kernel) = target.get() else {
            status.set(Status::Idle);
            return;
        };
        if analysed.with_untracked(|a| a.as_ref() == Some(&kernel)) {
            return;
        }
        run_error.set(None);
        repairing.set_value(None);
        start(kernel);
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
        let default = match error.field {
            KernelField::Stmt(..) => StmtInputs::default_for(error.field),
            field => KernelInputs::default().get(field),
        };
        if repaired.get(error.field) == default {
            // Already at its default: nothing left to try.
            return;
        }
        repaired.set(error.field, default);
        let kernel = repaired.kernel(machine.get_untracked()).ok();
        repairing.set_value(Some(repaired));
        if let Some(kernel) = kernel {
            start(kernel);
        }
    });
    let cancel = move |_| {
        generation.update_value(|g| *g += 1);
        job.set_value(None);
        status.set(Status::Cancelled);
    };
    let running = move || status.with(|s| matches!(s, Status::Running { .. }));
    let error_for = Errors {
        fields: errors,
        run: run_error.into(),
    };
    let stale = Signal::derive(move || {
        errors.with(|e| !e.is_empty()) || run_error.with(Option::is_some) || running()
    });
    let preset = move || inputs.with(KernelPreset::matching).map_or("", |p| p.id);
    let pick_preset = move |ev: leptos::ev::Event| {
        if let Some(p) = KernelPreset::by_id(&event_target_value(&ev)) {
            inputs.set(p.inputs());
        }
    };
    let explanation = move || inputs.with(KernelPreset::matching).map(|p| p.explanation);
    let visible = Signal::derive(move || state.tab.get() == Tab::Kernel);

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
                <select id="kernel-preset" data-testid="kernel-preset" on:change=pick_preset prop:value=preset>
                    <option value="">"Custom kernel"</option>
                    {KERNEL_PRESETS
                        .iter()
                        .map(|p| view! { <option value=p.id>{p.name}</option> })
                        .collect_view()}
                </select>
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
                        <Show when=running>
                            <div class="kernel-run" data-testid="kernel-progress">
                                <progress
                                    max=move || status.with(|s| match s { Status::Running { total, .. } => *total, _ => 1 }).to_string()
                                    value=move || status.with(|s| match s { Status::Running { done, .. } => *done, _ => 0 }).to_string()
                                    aria-label="Kernel analysis progress"
                                ></progress>
                                <span class="hint">
                                    {move || status.with(|s| match s {
                                        Status::Running { done, total } => format!("{done} of {total} warp instructions"),
                                        _ => String::new(),
                                    })}
                                </span>
                                <button type="button" data-testid="kernel-cancel" on:click=cancel>"Cancel"</button>
                            </div>
                        </Show>
                        <p class="visually-hidden" role="status" data-testid="kernel-status" data-value=move || status.with(|s| match s {
                            Status::Idle => "idle",
                            Status::Running { .. } => "running",
                            Status::Done => "done",
                            Status::Cancelled => "cancelled",
                            Status::Failed(_) => "failed",
                        })>
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
                        <Show
                            when=move || analysis.with(Option::is_some)
                            fallback=|| view! { <p class="hint">"Results appear when the launch has been analysed."</p> }
                        >
                            <Results state=state analysis=analysis stale=stale visible=visible />
                        </Show>
                        <p class="hint">{move || assumptions(machine.get(), target.with(|k| k.as_ref().map_or(0, |k| k.cache_bytes)))}</p>
                        <details class="order">
                            <summary>"Execution order the cache model assumes"</summary>
                            <ol>{EXECUTION_ORDER.iter().map(|s| view! { <li>{*s}</li> }).collect_view()}</ol>
                        </details>
                    </div>
                </div>
            </div>
            <Show when=move || analysis.with(Option::is_some)>
                <Warps state=state analysis=analysis analysed=analysed />
            </Show>
        </section>
    }
}

/// Grid, block, loop, cache and FLOPs.
#[component]
fn LaunchFields(inputs: RwSignal<KernelInputs>, error_for: Errors) -> impl IntoView {
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
            "START:END[:STEP] over i; empty for one pass with i = 0",
            "e.g. 0:4",
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
            "per thread per iteration, for the Roofline lab",
            "0",
        ),
    ];
    specs
        .into_iter()
        .map(|(field, label, hint, placeholder)| {
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
        })
        .collect_view()
}

/// The statements, each in its own group, with Add and Remove.
#[component]
fn Statements(inputs: RwSignal<KernelInputs>, error_for: Errors) -> impl IntoView {
    let present = move || {
        inputs.with(|i| {
            i.statements
                .iter()
                .enumerate()
                .filter(|(_, s)| s.is_some())
                .map(|(k, _)| k as u8 + 1)
                .collect::<Vec<u8>>()
        })
    };
    let add = move |_| {
        inputs.update(|i| {
            if let Some(slot) = i.statements.iter_mut().find(|s| s.is_none()) {
                *slot = Some(StmtInputs::default());
            }
        })
    };
    let full = move || inputs.with(|i| i.statements.iter().all(Option::is_some));
    view! {
        {move || {
            let shown = present();
            let last = shown.len() == 1;
            shown
                .into_iter()
                .map(|n| view! { <StatementFields inputs=inputs n=n error_for=error_for removable=!last /> })
                .collect_view()
        }}
        <button type="button" data-testid="kernel-add-statement" on:click=add disabled=full>
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
    let text = move |f: StmtField, label: &'static str, hint: &'static str| {
        let kf = field(f);
        let param = param_of(kf);
        view! {
            <TextField
                testid=format!("input-{param}")
                param=param
                label=label
                tag=param
                hint=hint
                value=Signal::derive(move || inputs.with(|i| i.get(kf)))
                on_input=Callback::new(move |t| inputs.update(|i| i.set(kf, t)))
                error=error_for.of(kf)
            />
        }
    };
    view! {
        <fieldset class="statement" data-testid=format!("statement-a{n}")>
            <legend>{format!("Statement a{n}")}</legend>
            <div class="pair">
                {select(StmtField::Kind, &[("load", "load"), ("store", "store")])}
                {select(StmtField::Space, &[("global", "global"), ("shared", "shared (not yet)")])}
            </div>
            {text(StmtField::Idx, "Element index", "e.g. blockIdx.x * blockDim.x + threadIdx.x")}
            {text(StmtField::Elem, "Bytes per access", "1, 2, 4, 8 or 16")}
            {text(StmtField::Base, "Array base address", "bytes, decimal or 0x hex")}
            {text(StmtField::Active, "Guard", "optional: non-zero = the thread accesses")}
            {text(StmtField::Name, "Name", "a short label, e.g. in or out")}
            <Show when=move || removable>
                <button type="button" class="secondary" data-testid=format!("kernel-remove-a{n}") on:click=remove>
                    {format!("Remove a{n}")}
                </button>
            </Show>
        </fieldset>
    }
}

/// The finished analysis: totals, the statement table, the pictures and the hand-off.
#[component]
fn Results(
    state: AppState,
    analysis: RwSignal<Option<KernelAnalysis>>,
    stale: Signal<bool>,
    visible: Signal<bool>,
) -> impl IntoView {
    let with = move |f: &dyn Fn(&KernelAnalysis) -> String| {
        analysis.with(|a| a.as_ref().map(f).unwrap_or_default())
    };
    let hand_off = Memo::new(move |_| {
        analysis.with(|a| {
            let a = a.as_ref()?;
            let counted = format!(
                "{} FLOPs over {} DRAM bytes",
                a.total_flops,
                a.total.dram_bytes()
            );
            Some(
                state
                    .lab
                    .with(|lab| lab.with_kernel_intensity(a.intensity_flop_per_byte, &counted)),
            )
        })
    });
    let to_roofline = move |_| {
        if let Some(Ok((lab, note))) = hand_off.get_untracked() {
            state.lab.set(lab);
            state.lab_note.set(Some(note));
            state.tab.set(Tab::Roofline);
        }
    };
    let export = move |_| {
        let text = analysis.with_untracked(|a| a.as_ref().map(statement_csv).unwrap_or_default());
        download_text(
            &format!("{}-statements.csv", stem(state)),
            "text/csv",
            &text,
        );
    };
    let draw_heat = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        analysis
            .with(|a| a.as_ref().map(|a| chart::draw_heat(area, &a.heat, theme)))
            .unwrap_or(Ok(()))
            .map_err(|e| e.to_string())
    };
    let svg_heat = move |theme: &Theme, size: (u32, u32)| {
        let mut text = String::new();
        analysis
            .with(|a| {
                a.as_ref().map(|a| {
                    chart::draw_heat(
                        &SVGBackend::with_string(&mut text, size).into_drawing_area(),
                        &a.heat,
                        theme,
                    )
                })
            })
            .unwrap_or(Ok(()))
            .map_err(|e| e.to_string())?;
        Ok(text)
    };
    let draw_bars = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        analysis
            .with(|a| a.as_ref().map(|a| chart::draw_bars(area, a, theme)))
            .unwrap_or(Ok(()))
            .map_err(|e| e.to_string())
    };
    let svg_bars = move |theme: &Theme, size: (u32, u32)| {
        let mut text = String::new();
        analysis
            .with(|a| {
                a.as_ref().map(|a| {
                    chart::draw_bars(
                        &SVGBackend::with_string(&mut text, size).into_drawing_area(),
                        a,
                        theme,
                    )
                })
            })
            .unwrap_or(Ok(()))
            .map_err(|e| e.to_string())?;
        Ok(text)
    };
    view! {
        <ReadoutList readouts=Signal::derive(move || analysis.with(|a| a.as_ref().map(readouts).unwrap_or_default())) stale=stale />
        {move || analysis.with(|a| a.as_ref().map(|a| a.notes.clone()).unwrap_or_default())
            .into_iter()
            .map(|note| view! { <p class="note warning" data-testid="kernel-note">{note}</p> })
            .collect_view()}
        <p class="use-efficiency">
            <button
                type="button"
                class="secondary"
                data-testid="kernel-to-roofline"
                on:click=to_roofline
                disabled=move || !matches!(hand_off.get(), Some(Ok(_)))
                aria-describedby="kernel-to-roofline-why"
            >
                "Use this kernel in the Roofline lab"
            </button>
            <span class="hint" id="kernel-to-roofline-why" data-testid="kernel-to-roofline-why">
                {move || match hand_off.get() {
                    Some(Err(why)) => format!(" Not available: {why}"),
                    _ => " I = total FLOPs ÷ DRAM bytes.".to_string(),
                }}
            </span>
        </p>
        <div class="lane-table" role="region" aria-labelledby="kernel-stmt-title" tabindex="0">
            <table>
                <caption id="kernel-stmt-title">"Per statement"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Statement"</th>
                        <th scope="col">"Requests"</th>
                        <th scope="col">"Requested"</th>
                        <th scope="col">"Sectors"</th>
                        <th scope="col">"Per request"</th>
                        <th scope="col">"Useful"</th>
                        <th scope="col">"Unique"</th>
                        <th scope="col">"DRAM bytes"</th>
                        <th scope="col">"Hit rate"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        analysis.with(|a| a.as_ref().map(statement_rows).unwrap_or_default())
                            .into_iter()
                            .map(|r| view! {
                                <tr
                                    data-testid="kernel-stmt"
                                    data-stmt=r.stmt
                                    data-requests=r.requests
                                    data-requested-bytes=r.requested_bytes
                                    data-sectors=r.sectors
                                    data-unique-sectors=r.unique_sectors
                                    data-dram-bytes=r.dram_bytes
                                >
                                    <th scope="row">{format!("{} ({})", r.name, r.kind)}</th>
                                    <td class="mono">{r.requests}</td>
                                    <td class="mono">{format!("{} B", r.requested_bytes)}</td>
                                    <td class="mono">{r.sectors}</td>
                                    <td class="mono">{r.sectors_per_request}</td>
                                    <td class="mono">{r.useful}</td>
                                    <td class="mono">{r.unique_sectors}</td>
                                    <td class="mono">{r.dram_bytes}</td>
                                    <td class="mono">{r.hit_rate}</td>
                                </tr>
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
        </div>
        <div class="buttons exports">
            <button type="button" data-testid="kernel-stmt-csv" on:click=export>"Download statements (CSV)"</button>
        </div>
        <figure class="chart-box">
            <ChartCanvas
                draw=draw_heat
                svg=svg_heat
                file_stem=Signal::derive(move || format!("{}-heat-map", stem(state)))
                shape=Shape::PLOT
                visible=visible
                testid="kernel-heat"
                label="Heat map of sectors per warp"
                described_by="kernel-heat-description"
            />
            <figcaption id="kernel-heat-description" data-testid="kernel-heat-description">
                {move || with(&heat_description)}
            </figcaption>
        </figure>
        <figure class="chart-box">
            <ChartCanvas
                draw=draw_bars
                svg=svg_bars
                file_stem=Signal::derive(move || format!("{}-bytes", stem(state)))
                shape=Shape::LOW_PLOT
                visible=visible
                testid="kernel-bars"
                label="Bytes per statement"
                described_by="kernel-bars-description"
            />
            <figcaption id="kernel-bars-description" data-testid="kernel-bars-description">
                {move || with(&bars_description)}
            </figcaption>
        </figure>
    }
}

/// The exports' file stem: the preset's id, or `custom`.
fn stem(state: AppState) -> String {
    let what = state
        .kernel
        .with_untracked(KernelPreset::matching)
        .map_or("custom", |p| p.id);
    format!("coalescing-kernel-{what}")
}

/// The worst warp instructions of the launch, and every warp of one chosen instruction.
#[component]
fn Warps(
    state: AppState,
    analysis: RwSignal<Option<KernelAnalysis>>,
    analysed: RwSignal<Option<Kernel>>,
) -> impl IntoView {
    let stmt = RwSignal::new(String::new());
    let iteration = RwSignal::new("0".to_string());
    let block = RwSignal::new("0".to_string());
    let first_stmt = move || {
        analysed.with(|k| {
            k.as_ref()
                .and_then(|k| k.statements.first().map(|s| s.number))
                .unwrap_or(1)
        })
    };
    let picked = Memo::new(move |_| {
        let kernel = analysed.get()?;
        let stmt = stmt
            .with(|s| s.parse::<u8>().ok())
            .unwrap_or_else(first_stmt);
        let parse = |text: &str, what: &str| {
            text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "{what}: enter a whole number from 0, found '{}'",
                    text.trim()
                )
            })
        };
        let pick = (|| {
            Ok::<_, String>(Pick {
                stmt,
                iteration: parse(&iteration.get(), "iteration")?,
                block: parse(&block.get(), "block")?,
            })
        })();
        Some(pick.and_then(|pick| {
            warp_rows(&kernel, pick)
                .map(|rows| (pick, rows))
                .map_err(|e| e.message().to_string())
        }))
    });
    let export = move |_| {
        let text = picked.with_untracked(|p| match p {
            Some(Ok((_, rows))) => warp_csv(rows),
            _ => String::new(),
        });
        download_text(&format!("{}-warps.csv", stem(state)), "text/csv", &text);
    };
    let worst = move || analysis.with(|a| a.as_ref().map(|a| a.worst.clone()).unwrap_or_default());
    let stmts = move || {
        analysed.with(|k| {
            k.as_ref()
                .map(|k| {
                    k.statements
                        .iter()
                        .map(|s| (s.number, s.name.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    view! {
        <section class="kernel-warps" aria-labelledby="kernel-worst-title">
            <h3 id="kernel-worst-title">"Worst warp instructions"</h3>
            <p class="hint">"The 10 warp instructions with the most sectors, ties in execution order. Each opens in the calculator."</p>
            <WarpTable rows=Signal::derive(worst) testid="kernel-worst" state=state analysed=analysed caption="The 10 worst warp instructions" />
            <h3 id="kernel-warp-title">"Every warp of one instruction"</h3>
            <div class="pick">
                <div class="field">
                    <label for="kernel-pick-stmt">"Statement"</label>
                    <select
                        id="kernel-pick-stmt"
                        data-testid="kernel-pick-stmt"
                        prop:value=move || stmt.with(|s| if s.is_empty() { first_stmt().to_string() } else { s.clone() })
                        on:change=move |ev| stmt.set(event_target_value(&ev))
                    >
                        {move || stmts().into_iter().map(|(n, name)| view! { <option value=n.to_string()>{format!("a{n}: {name}")}</option> }).collect_view()}
                    </select>
                </div>
                <TextField
                    testid="kernel-pick-iteration".to_string()
                    param="iteration"
                    label="Iteration"
                    tag="(from 0)"
                    hint="the loop's n-th pass"
                    inputmode="numeric"
                    value=iteration
                    on_input=Callback::new(move |t| iteration.set(t))
                    error=Signal::derive(move || picked.with(|p| match p { Some(Err(e)) if e.starts_with("iteration") || e.contains("iteration") => Some(e.clone()), _ => None }))
                />
                <TextField
                    testid="kernel-pick-block".to_string()
                    param="block-number"
                    label="Block"
                    tag="(linear number)"
                    hint="bx + by·Gx + bz·Gx·Gy"
                    inputmode="numeric"
                    value=block
                    on_input=Callback::new(move |t| block.set(t))
                    error=Signal::derive(move || picked.with(|p| match p { Some(Err(e)) if !e.contains("iteration") => Some(e.clone()), _ => None }))
                />
            </div>
            <WarpTable
                rows=Signal::derive(move || picked.with(|p| match p { Some(Ok((_, rows))) => rows.clone(), _ => Vec::new() }))
                testid="kernel-warp"
                state=state
                analysed=analysed
                caption="Every warp of the chosen instruction"
            />
            <div class="buttons exports">
                <button type="button" data-testid="kernel-warp-csv" on:click=export>"Download these warps (CSV)"</button>
            </div>
        </section>
    }
}

#[component]
fn WarpTable(
    rows: Signal<Vec<WarpRow>>,
    testid: &'static str,
    state: AppState,
    analysed: RwSignal<Option<Kernel>>,
    caption: &'static str,
) -> impl IntoView {
    // The calculator scenario of one warp instruction: its addresses, the statement's elem,
    // and the machine the kernel shares with the calculator.
    let scenario = move |row: &WarpRow| -> Option<Inputs> {
        analysed.with_untracked(|k| {
            let k = k.as_ref()?;
            let pick = Pick {
                stmt: row.stmt,
                iteration: row.iteration,
                block: row.block,
            };
            let addrs = calculator_addrs(k, pick, row.warp).ok()?;
            let elem = k.statements.iter().find(|s| s.number == row.stmt)?.elem;
            Some(Inputs {
                addrs,
                elem: elem.to_string(),
                active: String::new(),
                ..state.calc.get_untracked()
            })
        })
    };
    view! {
        <div class="lane-table" role="region" aria-label=caption tabindex="0">
            <table>
                <caption>{caption}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Block"</th>
                        <th scope="col">"(x,y,z)"</th>
                        <th scope="col">"Warp"</th>
                        <th scope="col">"Statement"</th>
                        <th scope="col">"i"</th>
                        <th scope="col">"Lane 0 address"</th>
                        <th scope="col">"Active"</th>
                        <th scope="col">"Sectors"</th>
                        <th scope="col">"Useful"</th>
                        <th scope="col">"Calculator"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || rows.get().into_iter().map(|row| {
                        let open = scenario(&row);
                        let href = open.clone().map(|calc| {
                            permalink::link(&url::page(), &State { tab: Tab::Calculator, calc, ..State::default() })
                        });
                        let go = move |ev: leptos::ev::MouseEvent| {
                            if let Some(calc) = open.clone() {
                                ev.prevent_default();
                                state.calc.set(calc);
                                state.tab.set(Tab::Calculator);
                            }
                        };
                        let [x, y, z] = row.block_idx;
                        view! {
                            <tr
                                data-testid=testid
                                data-block=row.block
                                data-warp=row.warp
                                data-stmt=row.stmt
                                data-iter=row.iter
                                data-lane0-address=row.lane0_address.map_or(String::new(), |a| a.to_string())
                                data-sectors=row.sectors
                            >
                                <td class="mono">{row.block}</td>
                                <td class="mono">{format!("({x},{y},{z})")}</td>
                                <td class="mono">{row.warp}</td>
                                <td class="mono">{format!("a{}", row.stmt)}</td>
                                <td class="mono">{row.iter}</td>
                                <td class="mono">{lane0_text(&row)}</td>
                                <td class="mono">{row.active_lanes}</td>
                                <td class="mono">{row.sectors}</td>
                                <td class="mono">{crate::model::format::percent(row.useful_fraction())}</td>
                                <td>
                                    <a href=href data-testid=format!("{testid}-open") on:click=go>
                                        {format!("Open block {} warp {}", row.block, row.warp)}
                                    </a>
                                </td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
