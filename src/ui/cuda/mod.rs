//! The CUDA source panel (`tab=cuda`): a kernel as written, its launch, and the figures of the
//! interpreted run per access site, per line and for the whole kernel, with the source shown
//! as Nsight Compute's source view shows it. The run is a job in slices with progress and
//! Cancel, as in the kernel view: an edit cancels the running job and starts another, and the
//! last finished analysis stays on show while a job runs.
//!
//! - `remote`: the Web Worker that runs a launch too big for the edit's task;
//! - `editor`: the source (line numbers, a file picker, drop), the launch, the cache and the
//!   FLOPs per thread;
//! - `results`: the readouts, the notes, the Roofline hand-off, the source view and the tables;
//! - `warps`: the launch per warp: the measure picker, the heat map, the worst warp executions
//!   and every execution of one warp.

mod editor;
mod remote;
mod results;
mod warps;

use editor::{Inputs, Proposed};
use results::Results;

use super::job::{now_ms, soon};
use super::widgets::Select;
use super::{url, AppState};
use crate::model::cuda::presets::CUDA_PRESETS;
use crate::model::cuda::run::{CudaAnalysis, CudaFailure, CudaJob, RunErrorKind};
use crate::model::cuda_view::{
    caret, cuda_arch, failure_field, failure_pos, matching_preset, preset_inputs, CudaField,
    CudaInputs, CudaLink,
};
use crate::model::job::{Slice, Slicer, SLICE_MS};
use crate::model::kernel::Machine;
use crate::model::DEFAULT_CACHE_BYTES;
use leptos::prelude::*;
use std::time::Duration;

/// Launches of up to this many warps first run in the task of the edit, so that small kernels
/// show their figures without a flicker; bigger ones go to the worker (`remote`).
const AT_ONCE: u64 = 256;

/// The parts of the results built after the first analysis is shown ([`Jobs::built`]): the
/// access sites (the line picked, one warp's executions, the table and its CSV), then the
/// figures per warp.
pub(super) const SITES: u8 = 1;
pub(super) const PER_WARP: u8 = 2;

/// How long a slice of the panel's first run lasts, in milliseconds: under 50 ms on a phone
/// whose CPU is four times slower than a laptop's, as Lighthouse's mobile profile assumes.
const FIRST_SLICE_MS: f64 = 10.0;

/// Loop iterations a warp may run in the edit's task, when a worker can take the run over: a
/// warp that loops longer (about 20 ms of the page's time at this count) goes to the worker,
/// so the edit's task stays short whatever the kernel does.
const IN_PAGE_ITERATIONS: u64 = 1 << 13;

/// How long the fields' link waits for the typing to pause, in milliseconds.
const HOLD_MS: u64 = 250;

/// One run: what the job was made from.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Run {
    pub(super) inputs: CudaInputs,
    pub(super) machine: Machine,
    pub(super) cache_bytes: u64,
    pub(super) arch: u32,
}

/// Where the current job stands; idle when the launch is empty. A failure's words are in the
/// panel's error, beside its field.
pub(super) type Status = crate::ui::job::Status<()>;

/// The panel's job state, shared by its parts.
#[derive(Clone, Copy)]
pub(super) struct Jobs {
    generation: StoredValue<u64>,
    job: StoredValue<Option<CudaJob>, LocalStorage>,
    /// The job of the analysis on show, kept after its run for the drill-down into one warp
    /// (`CudaJob::warp_executions` runs that warp again on the finished job's sites).
    pub(super) kept: StoredValue<Option<CudaJob>, LocalStorage>,
    pub(super) status: RwSignal<Status>,
    /// The last finished analysis, and the run it is of.
    pub(super) analysis: RwSignal<Option<(Run, CudaAnalysis)>>,
    /// How much of the results below the source view is built ([`SITES`], then [`PER_WARP`]):
    /// none until the first analysis is shown, then one part a task, so that the first result
    /// is drawn in three short tasks, not one long one.
    pub(super) built: RwSignal<u8>,
    /// Why the current inputs do not run, with their run.
    pub(super) failure: RwSignal<Option<(Run, CudaFailure)>>,
    /// The worker, while there is one.
    remote: crate::ui::worker::Slot,
    /// The run posted to the worker: its ticket, itself, and whether it is a repair.
    remote_run: StoredValue<Option<(u64, Run, bool)>>,
    /// Whether a worker failed to start: runs then stay on the page's thread.
    remote_broken: StoredValue<bool>,
    /// The drill-down into a warp too long for the page's thread, asked of a worker.
    pub(super) drilled: RwSignal<remote::Drilled>,
    /// That worker, while it runs.
    drill_worker: StoredValue<Option<remote::DrillWorker>, LocalStorage>,
}

impl Jobs {
    /// Starts a job for `run`, cancelling the one running. A repair (the default kernel, run
    /// because a link's own does not) keeps the failure it answers on show.
    fn start(self, run: Run, repair: bool) {
        let ticket = self.generation.get_value() + 1;
        self.generation.set_value(ticket);
        self.halt_remote();
        if !repair {
            self.failure.set(None);
        }
        if self.analysis.with_untracked(Option::is_none) {
            // The panel's first run: reading the source waits for a task after the mount's.
            set_timeout(
                move || {
                    if self.generation.try_get_value() == Some(ticket) {
                        self.begin(ticket, run, repair);
                    }
                },
                Duration::from_millis(0),
            );
        } else {
            self.begin(ticket, run, repair);
        }
    }

    /// Reads the source and the launch of `run` and runs the job `ticket`: in this task when
    /// it is small, in slices or in the worker when it is not.
    fn begin(self, ticket: u64, run: Run, repair: bool) {
        let fresh = CudaJob::new(
            &run.inputs.source,
            &run.inputs.launch,
            run.machine,
            run.cache_bytes,
            run.arch,
        );
        let fresh = match fresh {
            Ok(job) => job,
            Err(e) => {
                self.job.set_value(None);
                self.fail(run, e, repair);
                return;
            }
        };
        let (done, total) = fresh.progress();
        self.status.set(Status::Running { done, total });
        let remote = self.remote_available();
        if remote && total > AT_ONCE {
            self.job.set_value(None);
            return self.remote(ticket, run, repair);
        }
        let mut fresh = fresh;
        if remote {
            // What does not finish in the edit's task goes to the worker (`slice`).
            fresh.iteration_budget(IN_PAGE_ITERATIONS);
        }
        self.job.set_value(Some(fresh));
        // Nothing on show yet (the panel's first run): nothing can flicker, so the run gets
        // short tasks of its own instead of the edit's (or the mount's) task.
        let first = self.analysis.with_untracked(Option::is_none);
        if total <= AT_ONCE && !first {
            self.slice(ticket, run, repair);
        } else {
            set_timeout(
                move || self.slice(ticket, run, repair),
                Duration::from_millis(0),
            );
        }
    }

    /// A run that stopped. When nothing has been shown yet (a link whose source or launch does
    /// not run), the default kernel runs instead, with the failure kept on its field.
    fn fail(self, run: Run, e: CudaFailure, repair: bool) {
        self.status.set(Status::Failed(()));
        if repair {
            return;
        }
        self.failure.set(Some((run.clone(), e)));
        let default = CudaInputs::default();
        if self.analysis.with_untracked(Option::is_none) && run.inputs != default {
            self.start(Run { inputs: default, ..run }, true);
        }
    }

    /// One slice of the job: runs until SLICE_MS has passed, then yields to the page. A stale
    /// `ticket` (a newer job started) does nothing.
    fn slice(self, ticket: u64, run: Run, repair: bool) {
        if self.generation.try_get_value() != Some(ticket) {
            return;
        }
        let start = now_ms();
        // The panel's first run (nothing on show yet, as on a cold `tab=cuda` link) runs in
        // short slices on the page, whose tasks stay under what a phone's CPU makes long.
        let first = self.analysis.with_untracked(Option::is_none);
        let slice_ms = if first { FIRST_SLICE_MS } else { SLICE_MS };
        let outcome = self
            .job
            .try_update_value(|slot| {
                // A warp at a time at first: one warp's loop may take the slice.
                let mut slicer = Slicer::new(slice_ms).first_chunk(1);
                Some(slicer.run(slot.as_mut()?, &mut now_ms))
            })
            .flatten();
        match outcome {
            Some(Ok(Slice::Done)) => {
                let finished = self.job.try_update_value(Option::take).flatten();
                let Some(result) = finished.as_ref().map(CudaJob::finish) else {
                    return;
                };
                // After a long slice, or on the first run, drawing the figures gets a task of
                // its own.
                if first || now_ms() - start > SLICE_MS / 2.0 {
                    set_timeout(
                        move || {
                            if self.generation.try_get_value() == Some(ticket) {
                                self.show(ticket, run, result, finished);
                            }
                        },
                        Duration::from_millis(0),
                    );
                } else {
                    self.show(ticket, run, result, finished);
                }
            }
            Some(Ok(Slice::Yield)) if first && self.remote_available() && self.small() => {
                self.running();
                soon(move || self.slice(ticket, run, repair));
            }
            Some(Ok(Slice::Yield)) if self.remote_available() => {
                // The edit's task is spent: the worker runs it again from the start.
                self.job.set_value(None);
                self.remote(ticket, run, repair);
            }
            Some(Err(e)) if self.remote_available() && in_page_budget(&e) => {
                self.job.set_value(None);
                self.remote(ticket, run, repair);
            }
            Some(Ok(Slice::Yield)) => {
                self.running();
                soon(move || self.slice(ticket, run, repair));
            }
            Some(Err(e)) => {
                self.job.set_value(None);
                self.fail(run, e, repair);
            }
            None => {}
        }
    }

    /// Shows a finished analysis. The first one is drawn a part a task ([`Jobs::built`]): the
    /// readouts, the checks and the source view in this one, the access sites and the figures
    /// per warp in the next two; the status says the run is done after the last, unless a newer
    /// job started meanwhile.
    fn show(self, ticket: u64, run: Run, result: CudaAnalysis, finished: Option<CudaJob>) {
        self.kept.set_value(finished);
        self.analysis.set(Some((run, result)));
        if self.built.get_untracked() >= PER_WARP {
            self.status.set(Status::Done);
        } else {
            self.build_next(ticket);
        }
    }

    /// Builds the next part of the results in a task of its own, and the rest after it.
    fn build_next(self, ticket: u64) {
        set_timeout(
            move || {
                let Some(part) = self.built.try_get_untracked() else {
                    return;
                };
                self.built.set(part + 1);
                if part + 1 < PER_WARP {
                    self.build_next(ticket);
                } else if self.generation.try_get_value() == Some(ticket) {
                    self.status.set(Status::Done);
                }
            },
            Duration::from_millis(0),
        );
    }

    /// The job's progress on show.
    fn running(self) {
        if let Some((done, total)) = self.job.with_value(|j| j.as_ref().map(CudaJob::progress)) {
            self.status.set(Status::Running { done, total });
        }
    }

    /// Whether the job on the page is small enough to finish there in slices
    /// ([`AT_ONCE`] warps at most) rather than in the worker.
    fn small(self) -> bool {
        self.job
            .with_value(|j| j.as_ref().map(|j| j.progress().1))
            .is_some_and(|total| total <= AT_ONCE)
    }

    fn cancel(self) {
        self.halt();
        self.status.set(Status::Cancelled);
    }

    /// Stops the running job, on the page or in the worker: its answers no longer count.
    fn halt(self) {
        self.generation.update_value(|g| *g += 1);
        self.job.set_value(None);
        self.halt_remote();
    }
}

/// Whether a failure is the edit's task's own iteration budget ([`IN_PAGE_ITERATIONS`]), not
/// the kernel's: the worker then runs it with the whole budget.
fn in_page_budget(failure: &CudaFailure) -> bool {
    matches!(failure, CudaFailure::Run(e)
        if matches!(*e.kind, RunErrorKind::WarpIterations { limit } if limit == IN_PAGE_ITERATIONS))
}

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
        let CudaLink { preset, src, srcz, launch } = link;
        for (signal, value) in [
            (state.cuda_preset, preset),
            (state.cuda_src, src),
            (state.cuda_srcz, srcz),
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
            inputs.set(picked);
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
    });
    let jobs = Jobs {
        generation: StoredValue::new(0),
        job: StoredValue::new_local(None),
        kept: StoredValue::new_local(None),
        status: RwSignal::new(Status::Idle),
        analysis: RwSignal::new(None),
        built: RwSignal::new(0),
        failure: RwSignal::new(None),
        remote: StoredValue::new_local(None),
        remote_run: StoredValue::new(None),
        remote_broken: StoredValue::new(false),
        drilled: RwSignal::new(None),
        drill_worker: StoredValue::new_local(None),
    };
    // A new run cancels the running job and starts its own; an empty launch waits for one.
    Effect::new(move |_| {
        let run = target.get();
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
                jobs.start(Run { inputs: CudaInputs::default(), ..run }, true);
            }
            return;
        }
        jobs.start(run, false);
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
        let text = inputs.with_untracked(|i| caret(&i.source, pos));
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
        inputs.with(|i| {
            crate::model::cuda::run::propose_launch(&i.source, arch)
                .ok()
                .flatten()
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
                "A kernel as you wrote it, and its launch as host code writes it. Every thread runs the source as the GPU's SIMT model runs it, a warp at a time under its active mask; each load, store and atomic becomes a warp memory instruction, counted as the calculator counts one, per access site, per line and for the whole kernel."
            </p>
            <div class="field">
                <label for="cuda-preset">"Kernel"</label>
                <Select
                    id="cuda-preset"
                    none="Your own kernel"
                    options={CUDA_PRESETS.iter().map(|p| (p.id, p.title)).collect::<Vec<_>>()}
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
                        />
                        <Proposed inputs=inputs proposal=proposal />
                    </form>
                </Show>
                <div class="outputs">
                    <div class="results" aria-labelledby="cuda-results-title">
                        <Show when=move || outputs.get()>
                            <h3 id="cuda-results-title">"Whole kernel"</h3>
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
                                    Status::Cancelled => "Cancelled: showing the last finished results.",
                                    Status::Failed(()) => "The run stopped.",
                                    _ => "",
                                })}
                            </p>
                            {move || (jobs.status.get() == Status::Cancelled).then(|| view! {
                                <p class="stale" data-testid="cuda-cancelled">"Cancelled: showing the last finished results. Edit a field to run again."</p>
                            })}
                            <Results state=state jobs=jobs target=target failure=failure error_line=Signal::from(error_line) machine=machine />
                        </Show>
                    </div>
                </div>
            </div>
        </section>
    }
}
