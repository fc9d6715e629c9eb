//! The CUDA source panel (`tab=cuda`): a kernel as written, its launch, and the figures of the
//! interpreted run per access site, per line and for the whole kernel, with the source shown
//! as Nsight Compute's source view shows it. The run is a job in slices with progress and
//! Cancel, as in the kernel view: an edit cancels the running job and starts another, and the
//! last finished analysis stays on show while a job runs.
//!
//! - `jobs`: the run, on the page in slices or in the Web Worker (`jobs::remote`) for a launch
//!   too big for the edit's task, and the first analysis drawn a part a task;
//! - `editor`: the source (line numbers, a file picker, drop), the launch, the cache and the
//!   FLOPs per thread;
//! - `results`: the readouts, the notes, the Roofline hand-off, the source view and the tables;
//! - `program`: a whole program (a file with a `main()`): Run, its arguments, the console, a
//!   row per launch and the launch picked, whose figures the results show;
//! - `warps`: the launch per warp: the measure picker, the heat map, the worst warp executions
//!   and every execution of one warp.

mod editor;
mod jobs;
mod program;
mod results;
mod warps;

use editor::{Inputs, Proposed};
use jobs::{Jobs, Run, Status};
use results::Results;

use super::widgets::Select;
use super::{url, AppState};
use crate::model::cuda::presets::{CUDA_PRESETS, PROGRAM_PRESETS};
use crate::model::cuda::run::{CudaFailure, RunErrorKind};
use crate::model::cuda_view::{
    caret_in, cuda_arch, failure_field, failure_pos, matching_preset, preset_inputs, results_title,
    CudaField, CudaInputs, CudaLink,
};
use crate::model::kernel::Machine;
use crate::model::DEFAULT_CACHE_BYTES;
use leptos::prelude::*;
use std::time::Duration;

/// How long the fields' link waits for the typing to pause, in milliseconds.
const HOLD_MS: u64 = 250;

/// Whether a failure says the launch names a kernel the file does not have: the page then
/// proposes a launch for the file's kernel, as for an empty launch.
fn names_no_kernel(failure: &CudaFailure) -> bool {
    matches!(failure, CudaFailure::Run(e) if matches!(*e.kind, RunErrorKind::NoKernel { .. }))
}

/// The panel's link as the page's state holds it.
fn link_of(state: AppState) -> CudaLink {
    CudaLink {
        preset: state.cuda_preset.get(),
        src: state.cuda_src.get(),
        srcz: state.cuda_srcz.get(),
        launch: state.cuda_launch.get(),
        hdrz: state.cuda_hdrz.get(),
    }
}

/// Moves the focus to the source view (a scrollable region that takes the focus).
fn focus_source_view() {
    if let Some(view) = document()
        .query_selector(".cuda-source-view")
        .ok()
        .flatten()
    {
        let view: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(view);
        let _ = view.focus();
        view.scroll_into_view();
    }
}

/// Shows the calculator's primer and glossary, open, with the focus on its summary.
fn open_primer(state: AppState) {
    url::settle();
    state.tab.set(crate::model::permalink::Tab::Calculator);
    set_timeout(|| focus_primer(40), Duration::ZERO);
}

/// Opens the primer and focuses its summary, once the calculator is built: a panel not shown
/// yet is built in a later task, so this looks again every 50 ms, `tries` times at most.
fn focus_primer(tries: u32) {
    let found = document()
        .query_selector("[data-testid=intro]")
        .ok()
        .flatten();
    let Some(intro) = found else {
        if tries > 0 {
            set_timeout(move || focus_primer(tries - 1), Duration::from_millis(50));
        }
        return;
    };
    let _ = intro.set_attribute("open", "");
    if let Some(summary) = intro.query_selector("summary").ok().flatten() {
        let summary: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(summary);
        let _ = summary.focus();
        summary.scroll_into_view();
    }
}

#[component]
pub fn CudaPanel(state: AppState) -> impl IntoView {
    // The fields' text. The link holds it as a preset (`cpreset`), the source as typed (`src`)
    // or packed (`srcz`), and `launch`, each empty where it is what an empty value stands for;
    // the fields keep what was typed, even an emptied source.
    // A `srcz` that does not unpack is named beside the source until the next edit: only this
    // chunk can inflate it, so the link notice of the first load cannot.
    let (opening, notice) = untrack(|| link_of(state)).inputs();
    let link_notice = RwSignal::new(notice);
    let inputs = RwSignal::new(opening);
    // The link last written from the fields, so that the link's own echo is not read back,
    // and the fields it was written from.
    let written = StoredValue::new(CudaLink::default());
    let written_from = StoredValue::new(None::<CudaInputs>);
    // Writing the link packs a long source (deflate, then base64url): more than a keystroke
    // should cost. So the fields' link is written once the typing has paused for HOLD_MS, and
    // at once when something reads the link (Copy link, a tab switch, the page hidden).
    let waiting = StoredValue::new(None::<TimeoutHandle>);
    let write_link = move || {
        if let Some(handle) = waiting.try_update_value(Option::take).flatten() {
            handle.clear();
        }
        let Some(fields) = inputs.try_get_untracked() else {
            return;
        };
        let link = CudaLink::of(&fields);
        written.set_value(link.clone());
        written_from.set_value(Some(fields));
        let CudaLink { preset, src, srcz, launch, hdrz } = link;
        for (signal, value) in [
            (state.cuda_preset, preset),
            (state.cuda_src, src),
            (state.cuda_srcz, srcz),
            (state.cuda_hdrz, hdrz),
            (state.cuda_launch, launch),
        ] {
            if signal.with_untracked(|s| *s != value) {
                signal.set(value);
            }
        }
    };
    Effect::new(move |first: Option<()>| {
        inputs.track();
        // The link as opened is written back at once (a long `src` becomes `srcz`).
        if first.is_none() {
            write_link();
            return;
        }
        if let Some(handle) = waiting.try_update_value(Option::take).flatten() {
            handle.clear();
        }
        let handle = set_timeout_with_handle(write_link, Duration::from_millis(HOLD_MS)).ok();
        waiting.set_value(handle);
    });
    // Read at once: the fields as they are now, even an edit of this very task whose timer is
    // not set yet.
    url::hold_edits(move || {
        let changed = inputs
            .try_with_untracked(|i| written_from.with_value(|w| w.as_ref() != Some(i)))
            .unwrap_or(false);
        if changed {
            write_link();
        }
    });
    // A link loaded again (Back) that says otherwise than the fields.
    Effect::new(move |_| {
        let link = link_of(state);
        if written.with_value(|w| *w == link) {
            return;
        }
        let (loaded, _) = link.inputs();
        if inputs.with_untracked(|i| *i != loaded) {
            inputs.set(loaded);
        }
    });
    let preset = Signal::derive(move || {
        inputs
            .with(matching_preset)
            .map_or("", |p| p.id)
            .to_string()
    });
    let pick_preset = Callback::new(move |id: String| {
        if let Some(picked) = preset_inputs(&id) {
            // A whole program runs as a whole; a kernel's launch leaves the program.
            let program = picked.launch.is_empty();
            inputs.set(picked);
            if program {
                state.cuda_pick.set("all".into());
            }
        }
    });
    let lesson = move || inputs.with(matching_preset).map(|p| p.lesson);
    // The machine is the calculator's, as it shows it (bad fields at their defaults).
    let machine = Memo::new(move |_| state.calc.with(Machine::shown_by));
    let arch = Memo::new(move |_| state.calc.with(|c| cuda_arch(&c.arch)));
    // The cache is the kernel view's `cache`; while it is in error, the last good value.
    let cache_checked = Memo::new(move |_| {
        let m = machine.get();
        state.kernel.with(|k| k.cache_bytes(m))
    });
    let cache_bytes = Memo::new(move |previous: Option<&u64>| match cache_checked.get() {
        Ok(bytes) => bytes,
        Err(_) => previous.copied().unwrap_or(DEFAULT_CACHE_BYTES),
    });
    let target = Memo::new(move |_| Run {
        inputs: inputs.get(),
        machine: machine.get(),
        cache_bytes: cache_bytes.get(),
        arch: arch.get(),
        defines: state.cuda_defines.get(),
    });
    let jobs = Jobs::new();
    let program = program::Program::new();
    // Whether a program's launch was on show at the last run: its figures then go.
    let was_program = StoredValue::new(false);
    // A new run cancels the running job and starts its own; an empty launch waits for one.
    Effect::new(move |_| {
        let run = target.get();
        // A whole program's launches are on show: the program runs them (`program`).
        if state.cuda_pick.with(|p| !p.is_empty()) {
            was_program.set_value(true);
            return;
        }
        if was_program.get_value() {
            was_program.set_value(false);
            jobs.halt();
            jobs.analysis.set(None);
        }
        let shown = jobs
            .analysis
            .with_untracked(|a| a.as_ref().is_some_and(|(r, _)| *r == run));
        if shown {
            // Back to the run on show (an edit undone): its figures stand.
            jobs.halt();
            jobs.failure.set(None);
            jobs.status.set(Status::Done);
            return;
        }
        if run.inputs.launch.trim().is_empty() {
            jobs.halt();
            jobs.failure.set(None);
            jobs.status.set(Status::Idle);
            // A page with nothing shown yet shows the default kernel meanwhile.
            if jobs.analysis.with_untracked(Option::is_none) {
                jobs.start(
                    Run {
                        inputs: CudaInputs::default(),
                        defines: String::new(),
                        ..run
                    },
                    true,
                );
            }
            return;
        }
        jobs.start(run, false);
    });
    program::drive(program, program::Sources { state, inputs, target, jobs });
    // Whether the source has a main() to run, as the jobs last read it.
    let runnable = Memo::new(move |_| {
        let arch = arch.get();
        inputs.with(|i| {
            let read = jobs.read(i, arch, &state.cuda_defines.get());
            program::has_main(read, &i.source)
        })
    });
    // The failure of the inputs on show, with the field it names.
    let failure = Memo::new(move |_| {
        jobs.failure.with(|f| {
            f.as_ref()
                .filter(|(run, _)| target.with(|t| t == run))
                .map(|(_, e)| e.clone())
        })
    });
    let field_in_error = Memo::new(move |_| failure.with(|f| f.as_ref().map(failure_field)));
    let error_line =
        Memo::new(move |_| failure.with(|f| f.as_ref().and_then(failure_pos).map(|p| p.line)));
    let message = Memo::new(move |_| failure.with(|f| f.as_ref().map(ToString::to_string)));
    let excerpt = Memo::new(move |_| {
        let pos = failure.with(|f| f.as_ref().and_then(failure_pos))?;
        let text = inputs.with_untracked(|i| caret_in(&i.source, &i.headers, pos));
        (!text.is_empty()).then_some(text)
    });
    // The launch to propose: for an empty launch, or one that names no kernel of the file.
    let wants_proposal = Memo::new(move |_| {
        inputs.with(|i| i.launch.trim().is_empty())
            || failure.with(|f| f.as_ref().is_some_and(names_no_kernel))
    });
    let proposal = Memo::new(move |_| {
        if !wants_proposal.get() {
            return None;
        }
        let arch = arch.get();
        // On the source as the jobs last read it: a launch keystroke never reads it again.
        inputs.with(|i| {
            jobs.read(i, arch, &state.cuda_defines.get())
                .and_then(Result::ok)
                .and_then(|unit| crate::model::cuda::run::propose_for(&unit))
        })
    });
    // A file that could not be read says so until the next edit.
    let file_error = RwSignal::new(None::<String>);
    Effect::new(move |first: Option<()>| {
        inputs.track();
        if first.is_some() {
            file_error.set(None);
            link_notice.set(None);
        }
    });
    let error = Signal::derive(move || {
        file_error
            .get()
            .map(|m| (CudaField::Source, m))
            .or_else(|| field_in_error.get().zip(message.get()))
    });

    // Whether any run's figures are on show (a cancel says which).
    let shown = move || jobs.analysis.with(Option::is_some);
    // The results column waits for a task of its own after the panel's: the first load's
    // panel task on a phone stays short. The first run waits for one too (`Jobs::start`).
    let (form, outputs) = (RwSignal::new(false), RwSignal::new(false));
    for stage in [form, outputs] {
        set_timeout(
            move || {
                let _ = stage.try_set(true);
            },
            Duration::from_millis(0),
        );
    }
    view! {
        <section class="cuda" aria-labelledby="cuda-title" data-staging=move || (!outputs.get()).then_some("true")>
            <h2 id="cuda-title">"CUDA source"</h2>
            <p class="lead">
                "How well a kernel's memory accesses coalesce, from the kernel as you wrote it and its launch as host code writes it. Every thread runs the source as the GPU's SIMT model runs it, a warp at a time under its active mask; each load, store and atomic becomes a warp memory instruction, counted as the calculator counts one (how many 32-byte sectors its lanes' addresses touch), per access site, per line and for the whole kernel."
            </p>
            <p class="hint">
                <button type="button" class="link" data-testid="cuda-primer" on:click=move |_| open_primer(state)>
                    "New to coalescing? Read the primer and the glossary"
                </button>
                " (in the calculator), or pick a worked kernel below: each comes with its lesson."
            </p>
            <div class="field">
                <label for="cuda-preset">"Worked kernel"</label>
                <Select
                    id="cuda-preset"
                    none="Your own kernel"
                    options={CUDA_PRESETS.iter().chain(PROGRAM_PRESETS.iter()).map(|p| (p.id, p.title)).collect::<Vec<_>>()}
                    value=preset
                    on_pick=pick_preset
                />
                {move || lesson().map(|text| view! { <p class="note broadcast" data-testid="cuda-lesson">{text}</p> })}
            </div>
            <div class="layout">
                // The fields, then the results column, each in a task after the panel's own: on
                // a phone the first load's panel task stays short.
                <Show when=move || form.get()>
                    <form class="scenario" on:submit=|ev| ev.prevent_default() aria-label="CUDA kernel and launch">
                        <Inputs
                            state=state
                            inputs=inputs
                            error=error
                            error_line=Signal::from(error_line)
                            excerpt=Signal::from(excerpt)
                            cache_error=Signal::derive(move || cache_checked.with(|c| c.as_ref().err().map(ToString::to_string)))
                            file_error=file_error
                            link_notice=link_notice
                        >
                            <program::ProgramFields state=state program=program runnable=runnable />
                        </Inputs>
                        // A program runs its own launches: no launch to propose.
                        <Show when=move || state.cuda_pick.with(String::is_empty)>
                            <Proposed inputs=inputs proposal=proposal />
                        </Show>
                    </form>
                </Show>
                <div class="outputs">
                    <Show when=move || outputs.get()>
                        <program::ProgramOutput state=state program=program />
                    </Show>
                    <div class="results" aria-labelledby="cuda-results-title">
                        <Show when=move || outputs.get()>
                            <h3 id="cuda-results-title">
                                {move || state.cuda_pick.with(|p| results_title(p))}
                            </h3>
                            // The readouts are a dozen tab stops: the source view is one away.
                            <button type="button" class="link skip" data-testid="cuda-skip-source" on:click=|_| focus_source_view()>
                                "Skip to the source view"
                            </button>
                            <Show when=move || jobs.status.with(|s| s.progress().is_some())>
                                <div class="kernel-run" data-testid="cuda-progress">
                                    <progress
                                        max=move || jobs.status.with(|s| s.progress().map_or(1, |p| p.1)).to_string()
                                        value=move || jobs.status.with(|s| s.progress().map_or(0, |p| p.0)).to_string()
                                        aria-label="CUDA run progress"
                                    ></progress>
                                    <span class="hint">
                                        {move || jobs.status.with(|s| s.progress().map(|(done, total)| format!("{done} of {total} warps")).unwrap_or_default())}
                                    </span>
                                    <button type="button" class="secondary" data-testid="cuda-cancel" on:click=move |_| jobs.cancel()>"Cancel"</button>
                                </div>
                            </Show>
                            <p class="visually-hidden" role="status" data-testid="cuda-status" data-value=move || jobs.status.with(Status::name)>
                                {move || jobs.status.with(|s| match s {
                                    Status::Done => "Kernel run.",
                                    Status::Cancelled if shown() => "Cancelled: showing the last finished results.",
                                    Status::Cancelled => "Cancelled: nothing has finished yet.",
                                    Status::Failed(()) => "The run stopped.",
                                    _ => "",
                                })}
                            </p>
                            {move || (jobs.status.get() == Status::Cancelled).then(|| view! {
                                <p class="stale" data-testid="cuda-cancelled">
                                    {if shown() {
                                        "Cancelled: showing the last finished results. Edit a field to run again."
                                    } else {
                                        "Cancelled before any run finished: there are no figures to show. Edit a field to run again."
                                    }}
                                </p>
                            })}
                            <Results
                                state=state jobs=jobs target=target failure=failure error_line=Signal::from(error_line) machine=machine
                                cache_invalid=Signal::derive(move || cache_checked.with(Result::is_err))
                            />
                        </Show>
                    </div>
                </div>
            </div>
        </section>
    }
}
