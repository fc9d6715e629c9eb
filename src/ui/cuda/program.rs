//! A whole program on the CUDA panel: Run, the program's arguments, the console as it
//! prints, a row per launch, and the launch picked (`pick`), whose figures the results below
//! show as a launch field's run shows its own.
//!
//! The program runs in a Web Worker of its own (`model::cuda_view::wire::ProgramServer`),
//! which streams the console while it runs and keeps the run for the page's asks for another
//! launch; Cancel, or a new run, terminates it. Only the worker holds host code's
//! interpreter: the page's chunk links none of it. The panel is in program mode while the link
//! has a `pick`: pressing Run sets it to `all`, and typing a launch, or "Run one launch
//! instead", clears it.

use super::super::share::download_text;
use super::super::widgets::{ColumnHeads, TextField};
use super::super::AppState;
use super::jobs::{Jobs, Run};
use crate::model::cuda::files::Headers;
use crate::model::cuda::run::program::Printed;
use crate::model::cuda::run::{CudaAnalysis, CudaFailure};
use crate::model::cuda_view::wire::{
    decode_reply, encode_pick, ProgramReply, ProgramRequest, Reply,
};
use crate::model::cuda_view::{
    console_html, launch_options_html, launch_rows_html, launches_csv, program_notes_html,
    CudaInputs, LaunchRow, Pick, ProgramStage, MAX_LAUNCH_ROWS,
};
use crate::model::kernel::Machine;
use crate::ui::worker::{self, Remote};
use leptos::prelude::*;
use std::rc::Rc;

/// The launches table's column heads, in `LaunchRow::cells`' order.
const LAUNCH_COLUMNS: [&str; 14] = [
    "#",
    "Kernel",
    "Line",
    "Grid",
    "Block",
    "Shared bytes",
    "Requests",
    "Sectors",
    "Ideal sectors",
    "Unique sectors",
    "DRAM bytes",
    "Wavefronts",
    "Bank conflicts",
    "Barriers",
];

/// The DRAM bandwidth `cudaEventElapsedTime` counts at, in GB/s: V100's, the page's machine.
const BANDWIDTH_GB_S: f64 = 900.0;

/// What a program's run is made from: a change of any reruns it.
#[derive(Clone, Debug, PartialEq)]
struct Key {
    source: String,
    headers: Headers,
    defines: String,
    argv: String,
    machine: Machine,
    cache_bytes: u64,
    arch: u32,
}

/// Where the program's run stands (`model::cuda_view::ProgramStage`).
type Stage = ProgramStage;

/// The program's state on the panel.
#[derive(Clone, Copy)]
pub(in crate::ui::cuda) struct Program {
    stage: RwSignal<Stage>,
    console: RwSignal<Vec<Printed>>,
    exit_code: RwSignal<Option<u8>>,
    launches: RwSignal<Vec<LaunchRow>>,
    notes: RwSignal<Vec<String>>,
    /// The run on show (or running), and the pick its analysis is of.
    ran: StoredValue<Option<(Key, Option<Pick>)>>,
    worker: StoredValue<Option<Remote>, LocalStorage>,
}

impl Program {
    pub(in crate::ui::cuda) fn new() -> Program {
        Program {
            stage: RwSignal::new(Stage::Idle),
            console: RwSignal::new(Vec::new()),
            exit_code: RwSignal::new(None),
            launches: RwSignal::new(Vec::new()),
            notes: RwSignal::new(Vec::new()),
            ran: StoredValue::new(None),
            worker: StoredValue::new_local(None),
        }
    }

    /// Whether a program runs now.
    pub(in crate::ui::cuda) fn running(self) -> bool {
        self.stage.with(|s| matches!(s, Stage::Running(..)))
    }

    /// Stops a running program; its worker goes.
    fn cancel(self) {
        self.worker.set_value(None);
        if self.running() {
            self.stage.set(Stage::Cancelled);
        }
        self.ran.set_value(None);
    }

    /// Leaves program mode: nothing of the program stays on show.
    pub(in crate::ui::cuda) fn clear(self) {
        self.worker.set_value(None);
        self.ran.set_value(None);
        self.stage.set(Stage::Idle);
        self.console.set(Vec::new());
        self.launches.set(Vec::new());
        self.notes.set(Vec::new());
        self.exit_code.set(None);
    }
}

/// The inputs a program's run is made from, as the panel holds them.
#[derive(Clone, Copy)]
pub(in crate::ui::cuda) struct Sources {
    pub(in crate::ui::cuda) state: AppState,
    pub(in crate::ui::cuda) inputs: RwSignal<CudaInputs>,
    pub(in crate::ui::cuda) target: Memo<Run>,
    pub(in crate::ui::cuda) jobs: Jobs,
}

/// The panel's program mode: runs the program when the link has a `pick` and the inputs
/// change, asks for another launch when only the pick does, and leaves the mode when a launch
/// is typed.
pub(in crate::ui::cuda) fn drive(program: Program, from: Sources) {
    let Sources { state, inputs, target, jobs } = from;
    Effect::new(move |_| {
        let pick = state.cuda_pick.with(|p| Pick::parse(p));
        let Some(pick) = pick else {
            if program.ran.with_value(Option::is_some)
                || program.stage.with_untracked(|s| *s != Stage::Idle)
            {
                program.clear();
            }
            return;
        };
        let run = target.get();
        let key = Key {
            source: run.inputs.source.clone(),
            headers: run.inputs.headers.clone(),
            defines: run.defines.clone(),
            argv: state.cuda_argv.get(),
            machine: run.machine,
            cache_bytes: run.cache_bytes,
            arch: run.arch,
        };
        let same = program
            .ran
            .with_value(|r| r.as_ref().map(|(k, p)| (*k == key, *p == Some(pick))));
        match same {
            Some((true, true)) => {}
            Some((true, false)) if !program.running() => ask_pick(program, jobs, target, pick),
            _ => start(program, jobs, target, key, pick),
        }
    });
    // A launch typed (or proposed and taken, or a kernel's preset) leaves program mode: the
    // launch runs. An emptied launch (a program's preset) does not.
    Effect::new(move |previous: Option<String>| {
        let launch = inputs.with(|i| i.launch.clone());
        if previous.is_some_and(|p| p != launch)
            && !launch.trim().is_empty()
            && state.cuda_pick.with_untracked(|p| !p.is_empty())
        {
            state.cuda_pick.set(String::new());
        }
        launch
    });
}

/// Runs the program of `key`, showing `pick`'s analysis at its end.
fn start(program: Program, jobs: Jobs, target: Memo<Run>, key: Key, pick: Pick) {
    program.worker.set_value(None);
    jobs.halt();
    // An earlier run's refusal is not this run's.
    jobs.failure.set(None);
    program.ran.set_value(Some((key.clone(), None)));
    program.stage.set(Stage::Running(0, None));
    program.console.set(Vec::new());
    program.launches.set(Vec::new());
    program.notes.set(Vec::new());
    program.exit_code.set(None);
    let request = ProgramRequest {
        source: key.source.clone(),
        defines: key.defines.clone(),
        argv: key.argv.split_whitespace().map(str::to_string).collect(),
        machine: key.machine,
        cache_bytes: key.cache_bytes,
        arch: key.arch,
        bandwidth_gb_s: BANDWIDTH_GB_S,
        pick,
        headers: key.headers.clone(),
    }
    .encode();
    let answer = move |text: &str| reply(program, jobs, target, &key, text);
    let spawned = worker::available()
        .then(|| {
            let answer = answer.clone();
            Remote::spawn(
                move || {
                    program
                        .worker
                        .update_value(|w| w.as_mut().map_or((), Remote::started))
                },
                move |text| answer(text),
                move |message| died(program, jobs, target, &message),
            )
        })
        .flatten();
    match spawned {
        Some(mut remote) => {
            remote.send(request);
            program.worker.set_value(Some(remote));
        }
        // Programs run only in the worker: the page's thread holds no copy of host code's
        // interpreter, and a long program never holds the page.
        None => died(
            program,
            jobs,
            target,
            "this browser did not start the page's worker",
        ),
    }
}

/// Asks the program run last for `pick`'s analysis.
fn ask_pick(program: Program, jobs: Jobs, target: Memo<Run>, pick: Pick) {
    let Some((key, _)) = program.ran.get_value() else {
        return;
    };
    program.ran.set_value(Some((key.clone(), Some(pick))));
    let text = encode_pick(pick);
    if program.worker.with_value(Option::is_some) {
        program.worker.update_value(|w| {
            if let Some(w) = w {
                w.send(text);
            }
        });
    } else {
        // The run's worker is gone (cancelled): run it again.
        start(program, jobs, target, key, pick);
    }
}

/// One message of the program's worker, for the run of `key`.
fn reply(program: Program, jobs: Jobs, target: Memo<Run>, key: &Key, text: &str) {
    if program
        .ran
        .with_value(|r| r.as_ref().map(|(k, _)| k) != Some(key))
    {
        return;
    }
    let Ok(reply) = decode_reply(text) else {
        return died(program, jobs, target, "an answer the page cannot read");
    };
    match reply {
        Reply::Console { pieces, launches, launch } => {
            program.console.update(|c| {
                for piece in pieces {
                    match c.last_mut() {
                        Some(last) if last.stream == piece.stream => {
                            last.text.push_str(&piece.text)
                        }
                        _ => c.push(piece),
                    }
                }
            });
            program.stage.set(Stage::Running(launches, launch));
        }
        Reply::Program(done) => {
            let ProgramReply {
                console,
                exit_code,
                launches,
                error,
                notes,
                pick,
            } = *done;
            program.console.set(console);
            program.exit_code.set(exit_code);
            program.launches.set(launches);
            program.notes.set(notes);
            program.ran.set_value(Some((key.clone(), Some(pick))));
            match error {
                Some(e) => program.stage.set(Stage::Stopped(e.words)),
                None => program.stage.set(Stage::Done),
            }
        }
        // The launch asked for last, or that the program made no such launch.
        Reply::Done { analysis, .. } => show(jobs, target, Some(*analysis)),
        Reply::Picked { .. } => show(jobs, target, None),
        Reply::Failed(reported) => {
            // The source, the defines or main() itself does not read: said beside its field.
            program.stage.set(Stage::Stopped(reported.words.clone()));
            program.worker.set_value(None);
            let run = target.get_untracked();
            jobs.analysis.set(None);
            jobs.failure.set(Some((run, reported.into_failure())));
        }
        Reply::Progress { .. } | Reply::Executions(_) => {}
    }
}

/// Shows the picked launch's analysis as the results; with none (a program that made no
/// launch, or an index past the last), none.
fn show(jobs: Jobs, target: Memo<Run>, analysis: Option<CudaAnalysis>) {
    match analysis {
        Some(a) => jobs.show_program(target.get_untracked(), a),
        None => {
            jobs.halt();
            jobs.analysis.set(None);
        }
    }
}

/// The worker died or never started.
fn died(program: Program, jobs: Jobs, target: Memo<Run>, message: &str) {
    program.worker.set_value(None);
    let words = format!(
        "the program's interpreter stopped unexpectedly ({message}); the rest of the page keeps \
         working. Please report this link"
    );
    program.stage.set(Stage::Stopped(words));
    let _ = (jobs, target);
}

/// Whether a source has a `main()` the page can run: as read on the page, or, for a source too
/// long to read there, as its text says.
pub(in crate::ui::cuda) fn has_main(
    read: Option<Result<Rc<crate::model::cuda::ast::Unit>, CudaFailure>>,
    source: &str,
) -> bool {
    match read {
        Some(Ok(unit)) => {
            unit.host.iter().any(|f| f.name == "main")
                || unit.host_unread.iter().any(|(n, _)| n == "main")
        }
        Some(Err(_)) => false,
        None => source.contains("main("),
    }
}

/// Run, and the program's arguments: shown for a source with a `main()`.
#[component]
pub(in crate::ui::cuda) fn ProgramFields(
    state: AppState,
    program: Program,
    #[prop(into)] runnable: Signal<bool>,
) -> impl IntoView {
    let mode = move || state.cuda_pick.with(|p| !p.is_empty());
    let run = move |_| {
        if mode() {
            // Run again: the same inputs run afresh.
            program.ran.set_value(None);
            let pick = state.cuda_pick.get_untracked();
            state.cuda_pick.set(String::new());
            state.cuda_pick.set(pick);
        } else {
            state.cuda_pick.set("all".into());
        }
    };
    view! {
        <Show when=move || runnable.get() || mode()>
            <div class="program-run" data-testid="cuda-program-fields">
                <p class="hint">"This file has a " <code>"main()"</code> ": run the whole program, as " <code>"./a.out"</code> " would on a GPU, and see what it prints and every launch it makes."</p>
                <TextField
                    testid="cuda-argv".to_string() param="argv" label="Arguments" tag="argv"
                    hint="the program's arguments after its name, separated by spaces (argv[1], argv[2], …)"
                    placeholder="-n 1024" value=state.cuda_argv
                    on_input=Callback::new(move |text| state.cuda_argv.set(text))
                    error=Signal::stored(None::<String>)
                />
                <div class="buttons">
                    <button type="button" data-testid="cuda-run" on:click=run disabled=move || program.running()>
                        {move || if mode() { "Run the program again" } else { "Run the program" }}
                    </button>
                    <Show when=mode>
                        <button type="button" class="secondary" data-testid="cuda-program-exit" on:click=move |_| state.cuda_pick.set(String::new())>
                            "Run one launch instead"
                        </button>
                    </Show>
                </div>
            </div>
        </Show>
    }
}

/// The console text, both streams interleaved as printed.
fn console_text(console: &[Printed]) -> String {
    console.iter().map(|p| p.text.as_str()).collect()
}

/// The console, each launch's row and the pick: shown in program mode. The console, the rows
/// and the picker's options are written as markup (`model::cuda_view::console_html` and its
/// siblings), each by one effect: a view per row and per piece weighed tens of KB in the
/// panel's chunk.
#[component]
pub(in crate::ui::cuda) fn ProgramOutput(state: AppState, program: Program) -> impl IntoView {
    let mode = move || state.cuda_pick.with(|p| !p.is_empty());
    let data_state = move || program.stage.with(Stage::data_state);
    let progress = move || program.stage.with(Stage::progress);
    let csv = move |_| {
        let text = program.launches.with_untracked(|r| launches_csv(r));
        download_text("coalescing-program-launches.csv", "text/csv", &text);
    };
    let console_file = move |_| {
        let text = program.console.with_untracked(|c| console_text(c));
        download_text("coalescing-program-console.txt", "text/plain", &text);
    };
    let has_launches = move || program.launches.with(|l| !l.is_empty());
    let picked = move || state.cuda_pick.with(|p| p.parse::<usize>().ok());
    view! {
        <Show when=mode>
            <section class="cuda-program" aria-labelledby="cuda-program-title" data-testid="cuda-program">
                <h3 id="cuda-program-title">"The program"</h3>
                {move || progress().map(|(text, launch)| view! {
                    <div class="kernel-run" data-testid="cuda-program-progress">
                        <progress
                            max=launch.map(|l| l.1.to_string())
                            value=launch.map(|l| l.0.to_string())
                            aria-label="The program's progress"
                        ></progress>
                        <span class="hint">{text}</span>
                        <button type="button" class="secondary" data-testid="cuda-program-cancel" on:click=move |_| program.cancel()>"Cancel"</button>
                    </div>
                })}
                <p class="visually-hidden" role="status" data-testid="cuda-program-status">
                    {move || program.stage.with(Stage::status_words)}
                </p>
                <h4 id="cuda-console-title">"Console"</h4>
                <pre class="console" data-testid="cuda-console" data-state=data_state
                    data-exit-code=move || program.exit_code.get().map(|c| c.to_string())
                    tabindex="0" aria-labelledby="cuda-console-title"
                    inner_html=move || program.console.with(|c| console_html(c))
                ></pre>
                <p class="program-end" data-testid="cuda-program-end">
                    {move || program.stage.with(|s| s.end_words(program.exit_code.get()))}
                </p>
                <div inner_html=move || program.notes.with(|n| program_notes_html(n))></div>
                <div class="field" hidden=move || !has_launches()>
                    <label for="cuda-launch-pick">"Launch shown below"</label>
                    <select id="cuda-launch-pick" data-testid="cuda-launch-pick"
                        inner_html=move || program.launches.with(|l| launch_options_html(l))
                        prop:value=move || { program.launches.track(); state.cuda_pick.get() }
                        on:change=move |ev| state.cuda_pick.set(event_target_value(&ev))
                    ></select>
                </div>
                <div class="lane-table cuda-launches" role="region" aria-labelledby="cuda-launches-caption" tabindex="0" hidden=move || !has_launches()>
                    <table>
                        <caption id="cuda-launches-caption">"Every launch, in the order the program made them"</caption>
                        <ColumnHeads names=&LAUNCH_COLUMNS />
                        <tbody inner_html=move || program.launches.with(|l| launch_rows_html(l, picked()))></tbody>
                    </table>
                </div>
                <p class="hint" hidden=move || program.launches.with(|l| l.len() <= MAX_LAUNCH_ROWS)>
                    {move || format!("The first {MAX_LAUNCH_ROWS} of {} launches are shown; the CSV holds them all.", program.launches.with(Vec::len))}
                </p>
                <div class="buttons exports">
                    <button type="button" data-testid="cuda-console-download" on:click=console_file>"Download the console (text)"</button>
                    <button type="button" data-testid="cuda-launches-csv" on:click=csv hidden=move || !has_launches()>"Download the launches (CSV)"</button>
                </div>
            </section>
        </Show>
    }
}
