//! The trace panel: a memory trace from a real GPU run (NVBit `mem_trace` or Accel-Sim
//! `.traceg`), read on this machine from a picked file or a same-origin `trace=` path, streamed
//! chunk by chunk through the model's importer with progress and Cancel, and shown as the
//! kernel view's figures plus one row per static instruction, a hundred at a time.
//!
//! - `reader`: where the trace is read (the page's worker, or the page's thread) and what the
//!   panel shows while it is.

mod reader;

use super::AppState;
use crate::model::kernel::view::figure_readouts;
use crate::model::kernel::Machine;
use crate::model::trace::view::{instruction_row, InstructionRow};
use crate::model::trace::{worst_addrs, Format, Instruction, TraceAnalysis, TraceOptions};
use crate::ui::widgets::{CalculatorLink, ReadoutList, RegionTable, Select};
use leptos::prelude::*;
use reader::{Reader, Status};

/// Table rows shown at first, and added by each "Show more".
const TABLE_ROWS: usize = 100;

/// Where the trace comes from.
#[derive(Clone)]
enum Source {
    File(web_sys::File),
    Path(String),
}

#[component]
pub fn TracePanel(state: AppState) -> impl IntoView {
    let reader = Reader::new();
    let Reader { analysis, statics, reads, status, .. } = reader;
    let source = StoredValue::new_local(None::<Source>);
    let widths = RwSignal::new(Vec::<(String, u64)>::new());
    let machine = Memo::new(move |_| state.calc.with(Machine::shown_by));
    let start = move |from: Source| {
        source.set_value(Some(from.clone()));
        let options = TraceOptions {
            format: state.trace_format.get_untracked(),
            widths: widths.get_untracked(),
            machine: machine.get_untracked(),
            ..TraceOptions::default()
        };
        reader.start(from, options);
    };
    // A `trace=` link loads once, when the panel is built.
    if let Some(path) = state
        .trace
        .with_untracked(|p| (!p.is_empty()).then(|| p.clone()))
    {
        start(Source::Path(path));
    }
    let rerun = move || {
        if let Some(from) = source.get_value() {
            start(from);
        }
    };
    // The format override and the machine re-read the same source.
    Effect::new(move |first: Option<()>| {
        state.trace_format.track();
        machine.track();
        if first.is_some() {
            rerun();
        }
    });
    let pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            state.trace.set(String::new());
            start(Source::File(file));
        }
    };
    let cancel = move |_| reader.cancel();
    let set_width = move |opcode: String, bytes: u64| {
        widths.update(|w| {
            w.retain(|(op, _)| *op != opcode);
            w.push((opcode, bytes));
        });
        rerun();
    };
    let export = move |_| reader.csv();
    let readouts = Signal::derive(move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| figure_readouts(&a.total, a.machine, a.cache_bytes))
                .unwrap_or_default()
        })
    });
    let reading = move || status.with(|s| matches!(s, Status::Reading(..)));
    // Rows of the table on show: a trace may have 10^6 static instructions, and a row each
    // froze and then crashed the page. A new analysis starts at the first page again.
    let shown_rows = RwSignal::new(TABLE_ROWS);
    Effect::new(move |_| {
        reads.track();
        shown_rows.set(TABLE_ROWS);
    });
    view! {
        <section class="trace" aria-labelledby="trace-title">
            <h2 id="trace-title">"Trace"</h2>
            <p class="lead">
                "A memory trace from a real GPU run: NVBit's " <code>"mem_trace"</code>
                " output or an Accel-Sim " <code>".traceg"</code>
                ". Every warp memory instruction it recorded is counted as the calculator counts one, per static instruction and for the whole kernel, through the kernel view's cache model in trace order."
            </p>
            <p class="note" data-testid="trace-privacy">
                "The file is read here, in this page, and never leaves your machine: nothing is uploaded."
            </p>
            <div class="trace-source">
                <div class="field">
                    <label for="trace-file">"Trace file"</label>
                    <input type="file" id="trace-file" data-testid="trace-file" on:change=pick />
                    <p class="hint">
                        "NVBit: a lane printed as 0 is taken as inactive, so the trace must come from a build that zeroes inactive lanes (the stock tool leaves them undefined). "
                        "Samples made by this project's model (synthetic, not from a GPU): "
                        <a href="?tab=trace&trace=samples/synthetic-transpose-naive.nvbit.txt" data-testid="trace-sample-nvbit">"naive transpose (NVBit)"</a>
                        ", "
                        <a href="?tab=trace&trace=samples/synthetic-transpose-tiled.traceg" data-testid="trace-sample-accelsim">"tiled transpose (Accel-Sim)"</a>
                        "."
                    </p>
                </div>
                <Select
                    id="trace-format" label="Format" none="Detect from the content" options=FORMATS
                    value=Signal::derive(move || state.trace_format.get().map_or("", Format::name).to_string())
                    on_pick=Callback::new(move |name: String| state.trace_format.set(Format::parse(&name)))
                />
            </div>
            <Show when=reading>
                <div class="kernel-run" data-testid="trace-progress">
                    <progress
                        max=move || status.with(|s| match s { Status::Reading(_, Some(t)) => t.to_string(), _ => "1".into() })
                        value=move || status.with(|s| match s { Status::Reading(b, Some(_)) => b.to_string(), _ => "0".into() })
                        aria-label="Trace reading progress"
                    ></progress>
                    <span class="hint">{move || status.with(|s| match s {
                        Status::Reading(b, _) => format!("{} read", crate::model::format::size_text(*b as u64)),
                        _ => String::new(),
                    })}</span>
                    <button type="button" class="secondary" data-testid="trace-cancel" on:click=cancel>"Cancel"</button>
                </div>
            </Show>
            <p class="visually-hidden" role="status" data-testid="trace-status" data-worker=move || { reads.track(); reader.served().then_some("1") } data-worker-memory=move || reader.worker_memory.get().map(|m| m.to_string()) data-value=move || status.with(|s| match s {
                Status::Idle => "idle",
                Status::Reading(..) => "reading",
                Status::Done => "done",
                Status::Cancelled => "cancelled",
                Status::Failed(_) => "failed",
            })>
                {move || status.with(|s| match s {
                    Status::Done if analysis.with(|a| a.as_ref().is_some_and(|a| a.format.is_none())) => {
                        "No trace found: no line of the file is NVBit or Accel-Sim output.".to_string()
                    }
                    Status::Done => "Trace read.".to_string(),
                    Status::Cancelled => "Cancelled.".to_string(),
                    Status::Failed(e) => format!("Could not read the trace: {e}"),
                    _ => String::new(),
                })}
            </p>
            {move || status.with(|s| match s {
                Status::Failed(e) => Some(view! { <p class="error" data-testid="trace-failed" role="alert">{format!("Could not read the trace: {e}")}</p> }.into_any()),
                Status::Cancelled => Some(view! { <p class="stale" data-testid="trace-cancelled">"Cancelled: pick the file again to read it."</p> }.into_any()),
                _ => None,
            })}
            {move || analysis.with(|a| a.as_ref().map(|a| summary(a, statics.get())))}
            <ReadoutList readouts=readouts stale=Signal::derive(reading) />
            <Show when=move || analysis.with(Option::is_some)>
                <RegionTable caption_id="trace-table-title" caption="Per static instruction, the most excess sectors first" columns=INSTRUCTION_COLUMNS>
                    {move || analysis.with(|a| a.as_ref().map(|a| {
                        let s = a.machine.sector_bytes;
                        a.instructions
                            .iter()
                            .take(shown_rows.get())
                            .map(|i| row(i, instruction_row(i, s), state, set_width))
                            .collect_view()
                    }))}
                </RegionTable>
                {move || {
                    let all = statics.get();
                    let here = analysis.with(|a| a.as_ref().map_or(0, |a| a.instructions.len()));
                    let shown = shown_rows.get().min(here);
                    (all > TABLE_ROWS).then(|| view! {
                        <p class="hint" data-testid="trace-rows-shown" data-value=shown data-total=all>
                            {format!(
                                "The table shows the first {shown} of {all} static instructions, the most excess first; the CSV has them all."
                            )}
                            " "
                            <Show when=move || { shown < all }>
                                <button type="button" class="secondary" data-testid="trace-more" on:click=move |_| {
                                    let more = shown + TABLE_ROWS;
                                    reader.rows_up_to(more);
                                    shown_rows.set(more);
                                }>
                                    {format!("Show {} more", TABLE_ROWS.min(all - shown))}
                                </button>
                            </Show>
                        </p>
                    })
                }}
                <div class="buttons exports">
                    <button type="button" data-testid="trace-csv" on:click=export>"Download the table (CSV)"</button>
                </div>
            </Show>
        </section>
    }
}

/// Lines, executions, the `statics` static instructions, malformed lines (the first few with
/// their numbers) and notes.
fn summary(a: &TraceAnalysis, statics: usize) -> impl IntoView {
    let format = a.format.map_or("no recognised format", |f| match f {
        Format::Nvbit => "NVBit mem_trace",
        Format::AccelSim => "Accel-Sim .traceg",
    });
    use crate::model::format::plural;
    let statics = statics as u64;
    let head = format!(
        "{format}: {} line{}, {} memory-instruction execution{}, {statics} static instruction{}{}{}.",
        a.lines,
        plural(a.lines),
        a.executions,
        plural(a.executions),
        plural(statics),
        if a.other_lines > 0 {
            format!(
                ", {} other line{} (e.g. the program's own output)",
                a.other_lines,
                plural(a.other_lines)
            )
        } else {
            String::new()
        },
        if a.kernels > 1 {
            format!(
                "; {} kernel launches, counted together as one, with the cache kept from one to the next",
                a.kernels
            )
        } else {
            String::new()
        }
    );
    let malformed = (a.malformed > 0).then(|| {
        let shown: Vec<String> = a
            .first_malformed
            .iter()
            .map(|(line, why)| format!("line {line}: {why}"))
            .collect();
        view! {
            <p class="note warning" data-testid="trace-malformed" data-value=a.malformed>
                {format!(
                    "{} malformed line{} skipped; the rest loaded. {}",
                    a.malformed,
                    crate::model::format::plural(a.malformed),
                    shown.join("; ")
                )}
            </p>
        }
    });
    let notes = a.notes.join(" ");
    view! {
        <p class="hint" data-testid="trace-summary">{head}</p>
        {malformed}
        {(!notes.is_empty()).then(|| view! { <p class="hint">{notes}</p> })}
    }
}

/// Instruction `i`'s row `r`, with its worst execution's way into the calculator.
fn row(
    i: &Instruction,
    r: InstructionRow,
    state: AppState,
    set_width: impl Fn(String, u64) + Copy + 'static,
) -> impl IntoView {
    let calc = worst_addrs(i).map(|addrs| crate::model::inputs::Inputs {
        addrs,
        warp: "32".into(),
        elem: i.elem.to_string(),
        space: i.space.space().name().to_string(),
        active: String::new(),
        ..state.calc.get_untracked()
    });
    let opcode = r.opcode.clone();
    let label = format!("Bytes per lane of {}", r.opcode);
    view! {
        <tr
            data-testid="trace-instr" data-opcode=r.opcode data-pc=r.pc_hex data-space=r.space
            data-executions=r.executions data-requests=r.requests data-sectors=r.sectors
            data-ideal-sectors=r.ideal_sectors data-elem=r.elem data-wavefronts=r.wavefronts
            data-bank-conflicts=r.bank_conflicts
        >
            <th scope="row" class="mono">{r.name}</th>
            <td>
                <select
                    aria-label=label data-testid="trace-width" prop:value=r.elem.to_string()
                    on:change=move |ev| {
                        if let Ok(bytes) = event_target_value(&ev).parse::<u64>() {
                            set_width(opcode.clone(), bytes);
                        }
                    }
                >
                    {crate::model::inputs::ELEM_SIZES.map(|b| view! { <option value=b.to_string()>{b.to_string()}</option> }).collect_view()}
                </select>
            </td>
            <td class="mono">{r.executions_requests}</td>
            <td class="mono">{r.active_lanes}</td>
            <td class="mono" title=format!("{} bytes", r.requested_bytes)>{r.requested}</td>
            <td class="mono">{r.sectors_cell}</td>
            <td class="mono">{r.sectors_per_request}</td>
            <td class="mono">{r.ideal_per_request}</td>
            <td class="mono">{r.excess_cell}</td>
            <td class="mono">{r.useful}</td>
            <td class="mono" title=format!("{} bytes", r.dram_bytes)>{r.dram}</td>
            <td>
                <CalculatorLink state=state calc=calc testid="trace-open" text="Open in the calculator" />
            </td>
        </tr>
    }
}

/// The formats the picker names, after "Detect from the content": value, then text.
const FORMATS: &[(&str, &str)] = &[
    ("nvbit", "NVBit mem_trace"),
    ("accelsim", "Accel-Sim .traceg"),
];

/// The trace table's columns.
const INSTRUCTION_COLUMNS: &[&str] = &[
    "Instruction",
    "Bytes per lane",
    "Executions (requests)",
    "Active lanes",
    "Requested",
    "Sectors",
    "Per request",
    "Ideal per request",
    "Excess",
    "Useful",
    "DRAM bytes",
    "Worst execution",
];
