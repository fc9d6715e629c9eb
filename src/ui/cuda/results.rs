//! The figures of the last finished run: the whole-kernel readouts, the notes, the hand-off to
//! the Roofline lab, the source view (each line with its sectors per request, excess sectors
//! and bank conflicts, coloured by its share of the kernel's excess; a line picked lists its
//! accesses) and the table per access site; then the launch per warp (`warps`).

use super::super::roofline_handoffs::KernelToRoofline;
use super::super::share::download_text;
use super::super::widgets::{ColumnHeads, ReadoutList, RegionTable};
use super::super::AppState;
use super::jobs::{Jobs, Run, Status, PER_WARP, SITES};
use super::warps::{OneWarp, PerWarp};
use crate::model::cuda::files::{file_name, split};
use crate::model::cuda::run::{CudaAnalysis, CudaFailure};
use crate::model::cuda_view::{
    access_csv, access_summary, assumed_note, checks_summary, failure_field, line_label,
    matching_preset, notes, oob_rows, race_rows, readouts, results_of, site_rows, source_lines_in,
    source_view, stopped_note, times, uninit_items_html, uninit_summary, work, Band, CudaInputs,
    OobRow, RaceRow, SiteRow, SourceLine, SourceRow, COUNTED_ANYWAY, EXECUTION_ORDER,
};
use crate::model::exact::Exact;
use crate::model::flops::CUDA_FLOPS;
use crate::model::format::bytes_text;
use crate::model::kernel::view::assumptions;
use crate::model::kernel::Machine;
use leptos::prelude::*;

/// What the source view shows: the source of the last finished analysis with its figures, or,
/// when the inputs stop on a line of their source, that source with the line marked.
#[derive(Clone, Debug, PartialEq)]
struct SourceShown {
    lines: Vec<SourceRow>,
    error_line: Option<u32>,
}

#[component]
pub(super) fn Results(
    state: AppState,
    jobs: Jobs,
    target: Memo<Run>,
    failure: Memo<Option<CudaFailure>>,
    error_line: Signal<Option<u32>>,
    machine: Memo<Machine>,
    /// The cache field is in error: the figures are of the last valid cache, not the field's.
    cache_invalid: Signal<bool>,
) -> impl IntoView {
    let analysis = jobs.analysis;
    let shown_other = Memo::new(move |_| {
        analysis.with(|a| {
            let (run, _) = a.as_ref()?;
            if cache_invalid.get() {
                return Some((false, None));
            }
            target.with(|t| {
                (run != t).then(|| {
                    let default_kernel =
                        run.inputs == CudaInputs::default() && t.inputs != CudaInputs::default();
                    let failed = failure.with(|f| f.as_ref().map(failure_field));
                    (
                        default_kernel && (failed.is_some() || t.inputs.launch.trim().is_empty()),
                        failed,
                    )
                })
            })
        })
    });
    let stale = Signal::derive(move || {
        shown_other.with(Option::is_some)
            || jobs
                .status
                .with(|s| matches!(s, Status::Running { .. } | Status::Failed(())))
    });
    let figures = Signal::derive(move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|(run, a)| readouts(a, run.machine, run.cache_bytes))
                .unwrap_or_default()
        })
    });
    let source = Memo::new(move |_| {
        if let Some(line) = error_line.get() {
            // A line of a header: the headers as far as it, named as the run found them.
            let files: Vec<String> = (1..=split(line).0)
                .map(|k| file_name(k).unwrap_or_default())
                .collect();
            let lines = target.with(|t| {
                let i = &t.inputs;
                source_view(
                    source_lines_in(&i.source, &i.headers.0, &files, None),
                    Some(line),
                )
            });
            return SourceShown { lines, error_line: Some(line) };
        }
        analysis.with(|a| SourceShown {
            lines: a
                .as_ref()
                .map(|(run, a)| {
                    let i = &run.inputs;
                    source_view(
                        source_lines_in(&i.source, &i.headers.0, &a.files, Some(a)),
                        None,
                    )
                })
                .unwrap_or_default(),
            error_line: None,
        })
    });
    let sites = Memo::new(move |_| {
        analysis.with(|a| a.as_ref().map(|(_, a)| site_rows(a)).unwrap_or_default())
    });
    let picked = RwSignal::new(None::<u32>);
    // The CSV the command line's `cuda --format csv` writes, named after the preset on show.
    let export = move |_| {
        let file = analysis.with_untracked(|a| {
            a.as_ref().map(|(run, a)| {
                let what = matching_preset(&run.inputs).map_or("custom", |p| p.id);
                (format!("coalescing-cuda-{what}-sites.csv"), access_csv(a))
            })
        });
        if let Some((name, text)) = file {
            download_text(&name, "text/csv", &text);
        }
    };
    let cache = move || target.with(|t| t.cache_bytes);
    // The hand-off counts `cflops` for every thread; a bad count is none (its error is beside
    // the field), as a field in error stands at its default.
    let work = Memo::new(move |_| {
        let per_thread = state
            .cuda_flops
            .with(|t| CUDA_FLOPS.read(t))
            .unwrap_or(Exact::ZERO);
        analysis.with(|a| a.as_ref().map(|(_, a)| work(a, per_thread)))
    });
    view! {
        {move || shown_other.get().map(|(default_kernel, failed)| view! {
            <p class="stale" data-testid="cuda-results-of" data-value=if default_kernel { "default" } else { "earlier" }>
                {results_of(default_kernel, failed)}
            </p>
        })}
        <Show
            when=move || analysis.with(Option::is_some)
            fallback=|| view! { <p class="hint">"Figures appear when the launch has run."</p> }
        >
            <ReadoutList readouts=figures stale=stale />
        </Show>
        {move || analysis.with(|a| a.as_ref().map(|(_, a)| notes(a)).unwrap_or_default())
            .into_iter()
            .map(|note| view! { <p class="note" data-testid="cuda-note">{note}</p> })
            .collect_view()}
        // A program's console shows what its launches printed, where the program flushed it.
        {move || analysis.with(|a| {
            let (_, a) = a.as_ref()?;
            let program = state.cuda_pick.with(|p| !p.is_empty());
            (!a.output.is_empty() && !program).then(|| {
                let state = move || jobs.status.with(|s| match s {
                    Status::Running { .. } => "running",
                    Status::Failed(()) => "failed",
                    _ => "done",
                });
                view! {
                    <section class="cuda-console" aria-labelledby="cuda-console-title">
                        <h3 id="cuda-console-title">"What printf printed"</h3>
                        <pre data-testid="cuda-console" data-state=state class:stale=stale tabindex="0"
                            aria-labelledby="cuda-console-title">{a.output.clone()}</pre>
                    </section>
                }
            })
        })}
        {move || analysis.with(|a| {
            let (_, a) = a.as_ref()?;
            let note = assumed_note(&a.assumed)?;
            let lines = a.assumed.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
            Some(view! { <p class="note warning" data-testid="cuda-assumed" data-lines=lines>{note}</p> })
        })}
        <KernelToRoofline state=state work=work testid="cuda-to-roofline" />
        <Checks analysis=analysis />
        <p class="hint">{move || assumptions(machine.get(), cache())}</p>
        <details class="order">
            <summary>"Execution order the cache model assumes"</summary>
            <ol>{EXECUTION_ORDER.iter().map(|s| view! { <li>{*s}</li> }).collect_view()}</ol>
        </details>
        <SourceView source=source picked=picked />
        // Built a task after the first analysis is shown (`Jobs::built`).
        <Show when=move || { jobs.built.get() >= SITES }>
            <Picked sites=sites picked=picked />
            <OneWarp state=state jobs=jobs sites=sites picked=picked />
            <SiteTable sites=sites />
            <Show when=move || sites.with(|s| !s.is_empty())>
                <div class="buttons exports">
                    <button type="button" data-testid="cuda-csv" on:click=export>"Download the access sites (CSV)"</button>
                </div>
            </Show>
        </Show>
        // A program's launches summed have no figures per warp.
        <Show when=move || { jobs.built.get() >= PER_WARP && analysis.with(|a| a.as_ref().is_some_and(|(_, a)| a.shape.0 > 0)) }>
            <PerWarp state=state analysis=analysis />
        </Show>
    }
}

/// The race and bounds reports of the last finished run: a row per race (same-value stores
/// as notes) and per access out of bounds, each with the model's sentence, and what the
/// figures make of them; or that the checks found none.
#[component]
fn Checks(analysis: RwSignal<Option<(Run, CudaAnalysis)>>) -> impl IntoView {
    move || {
        let reports = analysis.with(|a| {
            a.as_ref().map(|(_, a)| {
                (
                    race_rows(a),
                    oob_rows(a),
                    a.uninitialized.len(),
                    uninit_items_html(a),
                )
            })
        });
        reports.map(|(races, oob, n_uninit, uninit)| {
            let (notes, races): (Vec<RaceRow>, Vec<RaceRow>) =
                races.into_iter().partition(|r| r.note);
            let problems = !races.is_empty() || !oob.is_empty() || n_uninit > 0;
            let (n_races, n_oob) = (races.len(), oob.len());
            let summary = match uninit_summary(n_uninit) {
                // A finding of initcheck's: the clean report's caveat does not apply.
                Some(more) if n_races + n_oob + notes.len() == 0 => {
                    format!("No race and no access out of bounds. {more}")
                }
                Some(more) => format!("{} {more}", checks_summary(n_races, n_oob, notes.len())),
                None => checks_summary(n_races, n_oob, notes.len()),
            };
            view! {
                <section class="cuda-checks" aria-labelledby="cuda-checks-title" data-testid="cuda-checks" data-races=n_races data-oob=n_oob data-uninit=n_uninit>
                    <h3 id="cuda-checks-title">"Races and out-of-bounds accesses"</h3>
                    <p class:stale=problems data-testid="cuda-checks-summary">{summary}</p>
                    <ul class="cuda-reports">
                        {races.into_iter().chain(notes).map(race_item).collect_view()}
                        {oob.into_iter().map(oob_item).collect_view()}
                    </ul>
                    <ul class="cuda-reports" inner_html=uninit hidden=n_uninit == 0></ul>
                    {problems.then(|| view! { <p class="note warning" data-testid="cuda-counted-anyway">{COUNTED_ANYWAY}</p> })}
                </section>
            }
        })
    }
}

fn xyz(v: [u64; 3]) -> String {
    format!("{},{},{}", v[0], v[1], v[2])
}

fn race_item(r: RaceRow) -> impl IntoView {
    view! {
        <li
            class=if r.note { "cuda-race-note" } else { "cuda-race" }
            data-testid=if r.note { "cuda-race-note" } else { "cuda-race" } data-scope=r.scope
            data-line-a=r.line_a data-line-b=r.line_b data-kind-a=r.kind_a data-kind-b=r.kind_b
            data-block=xyz(r.block) data-warp-a=r.warp_a data-warp-b=r.warp_b
            data-word=r.word.clone() data-occurrences=r.occurrences
        >
            <strong>{r.what}</strong>": "
            <span class="sentence">{r.sentence.clone()}</span>
            {times(r.occurrences)}
        </li>
    }
}

fn oob_item(o: OobRow) -> impl IntoView {
    view! {
        <li
            class="cuda-oob" data-testid="cuda-oob" data-line=o.line data-block=xyz(o.report.block)
            data-thread=xyz(o.report.thread) data-array=o.report.array.clone()
            data-index=o.report.index.to_string() data-count=o.report.count
            data-address=format!("{:#x}", o.report.address)
            data-occurrences=o.report.occurrences data-space=o.space
        >
            <strong>"Out of bounds"</strong>": "
            <span class="sentence">{o.sentence.clone()}</span>
        </li>
    }
}

/// The source, read-only, as Nsight Compute's source view shows it: a gutter per line with
/// its sectors per request, excess sectors and bank conflicts, the line coloured by its share
/// of the kernel's excess sectors. A line with accesses is a button that lists them.
#[component]
fn SourceView(source: Memo<SourceShown>, picked: RwSignal<Option<u32>>) -> impl IntoView {
    view! {
        <h3 id="cuda-source-title">"Source view"</h3>
        <p class="hint" id="cuda-source-hint">
            "Per line: sectors per global request of each access (\"4 · 32\" for a line whose load takes 4 and whose store takes 32), excess sectors (beyond the ideal) and bank conflicts, summed over the line's accesses. A line's colour is its share of the kernel's excess sectors. Pick a line to list its accesses."
        </p>
        {move || source.with(|s| s.error_line).map(|line| view! {
            <p class="stale" data-testid="cuda-source-stopped" data-line=line>
                {stopped_note(line)}
            </p>
        })}
        <ul class="band-legend" aria-label="Line colours">
            {Band::ALL.iter().map(|b| view! {
                <li><span class=format!("swatch excess-{}", b.0) aria-hidden="true"></span>{b.meaning()}</li>
            }).collect_view()}
        </ul>
        <div class="lane-table cuda-source-view" role="region" aria-labelledby="cuda-source-title" aria-describedby="cuda-source-hint" tabindex="0">
            <table class="cuda-source" data-testid="cuda-source">
                <ColumnHeads names=SOURCE_COLUMNS />
                <tbody>
                    {move || source.with(|s| {
                        let bad = s.error_line;
                        s.lines.iter().map(|r| match r {
                            SourceRow::Line(l) => source_row(l, bad, picked).into_any(),
                            SourceRow::Gap { from, to } => gap_row(*from, *to).into_any(),
                            SourceRow::File { path } => file_row(path).into_any(),
                        }).collect_view()
                    })}
                </tbody>
            </table>
        </div>
    }
}

/// The first row of a header's lines in the source view.
fn file_row(path: &str) -> impl IntoView {
    view! {
        <tr class="cuda-file" data-testid="cuda-source-file" data-file=path.to_string()>
            <th scope="rowgroup" colspan="5" class="mono">{path.to_string()}</th>
        </tr>
    }
}

/// Lines a long source view leaves out.
fn gap_row(from: u32, to: u32) -> impl IntoView {
    let (from, to) = (split(from).1, split(to).1);
    let words = if from == to {
        format!("Line {from}: no accesses, not shown")
    } else {
        format!("Lines {from}–{to}: no accesses, not shown")
    };
    view! {
        <tr class="cuda-gap" data-testid="cuda-source-gap" data-from=from data-to=to>
            <td colspan="5" class="hint">{words}</td>
        </tr>
    }
}

/// One line of the source view.
fn source_row(l: &SourceLine, bad: Option<u32>, picked: RwSignal<Option<u32>>) -> impl IntoView {
    let n = l.number;
    // A header's line shows (and `data-line` holds) its number in the header.
    let shown = split(n).1;
    let error = bad == Some(n);
    let row = l.row.clone();
    let band = row.as_ref().map_or(0, |r| r.band.0);
    let pick = move |_| picked.set(Some(n));
    let number = match &row {
        Some(r) if r.accesses > 0 => {
            let label = line_label(r);
            view! {
                <button
                    type="button" class="line-pick" data-testid="cuda-pick-line" aria-label=label
                    aria-pressed=move || (picked.get() == Some(n)).to_string() on:click=pick
                >
                    {shown}
                </button>
            }
            .into_any()
        }
        _ => shown.into_any(),
    };
    let (per_request, excess, conflicts) = row.as_ref().map_or_else(Default::default, |r| {
        (
            r.sectors_per_request_each.clone(),
            if r.global_requests > 0 {
                r.sums.excess_sectors.to_string()
            } else {
                String::new()
            },
            r.sums
                .shared
                .map_or(String::new(), |(_, _, c)| c.to_string()),
        )
    });
    let shared = row.as_ref().and_then(|r| r.sums.shared);
    // On a phone the three figure columns give way to the code, and their values stand
    // under the line's number instead (hidden elsewhere, so read once): a zero excess or
    // conflict count is left out there.
    let phone = row.as_ref().map(|_| {
        let shown = |value: &String| !value.is_empty() && value != "0";
        let part = |label: &'static str, value: &String, class: &'static str| {
            (!value.is_empty()).then(|| {
                view! {
                    <span class=class>
                        <span class="visually-hidden">{label}</span>
                        {value.clone()}
                    </span>
                }
            })
        };
        view! {
            <span class="phone-figures">
                {part("sectors per request ", &per_request, "pf-per-request")}
                {shown(&excess).then(|| part("excess sectors ", &excess, "pf-excess"))}
                {shown(&conflicts).then(|| view! {
                    <span class="pf-conflicts">
                        {conflicts.clone()}
                        <span class="visually-hidden">" bank"</span>
                        <span class="pf-word">" conflicts"</span>
                    </span>
                })}
            </span>
        }
    });
    view! {
        <tr
            class=format!("cuda-src excess-{band}") class:cuda-line=row.is_some()
            class:error-line=error class:picked=move || picked.get() == Some(n) data-line=shown
            data-file=l.file.clone()
            data-requests=row.as_ref().map(|r| r.sums.requests)
            data-requested-bytes=row.as_ref().map(|r| r.sums.requested_bytes)
            data-sectors=row.as_ref().map(|r| r.sums.sectors)
            data-ideal-sectors=row.as_ref().map(|r| r.sums.ideal_sectors)
            data-excess-sectors=row.as_ref().map(|r| r.sums.excess_sectors)
            data-unique-sectors=row.as_ref().map(|r| r.sums.unique_sectors)
            data-unique-lower-bound=row.as_ref().and_then(|r| r.sums.unique_lower_bound.then_some("true"))
            data-dram-bytes=row.as_ref().map(|r| r.sums.dram_bytes)
            data-barriers=row.as_ref().map(|r| r.barriers) data-wavefronts=shared.map(|s| s.0)
            data-ideal-wavefronts=shared.map(|s| s.1) data-bank-conflicts=shared.map(|s| s.2)
            data-band=row.is_some().then_some(band) data-assumed=l.assumed.then_some("true")
            data-race=l.race.then_some("true") data-oob=l.oob.then_some("true")
            data-error=error.then_some("true") on:click=pick
        >
            <th scope="row" class="mono">
                {number}
                {l.race.then(|| view! {
                    <span class="mark race" title="A shared-memory race: see Races and out-of-bounds accesses">
                        "race"<span class="visually-hidden">" on this line"</span>
                    </span>
                })}
                {l.oob.then(|| view! {
                    <span class="mark oob" title="An access outside its array: see Races and out-of-bounds accesses">
                        "out of bounds"<span class="visually-hidden">" on this line"</span>
                    </span>
                })}
                {phone}
            </th>
            <td class="mono">{per_request}</td>
            <td class="mono">{excess}</td>
            <td class="mono" class:conflicted=shared.is_some_and(|s| s.2 > 0)>{conflicts}</td>
            <td class="code">
                <code>{l.text.clone()}</code>
                {l.assumed.then(|| view! { <span class="badge" title="A condition on this line depends on a value loaded from memory; every lane that reached it was taken to hold it.">"assumed"</span> })}
                {error.then(|| view! { <span class="badge bad">"stops here"</span> })}
            </td>
        </tr>
    }
}

/// The picked line's accesses, under the source view.
#[component]
fn Picked(sites: Memo<Vec<SiteRow>>, picked: RwSignal<Option<u32>>) -> impl IntoView {
    view! {
        <div class="cuda-picked" data-testid="cuda-line-accesses" data-line=move || picked.get() aria-live="polite">
            {move || {
                let line = picked.get()?;
                let mine: Vec<SiteRow> = sites.with(|s| s.iter().filter(|r| r.line == line).cloned().collect());
                if mine.is_empty() {
                    return None;
                }
                Some(view! {
                    <h4>{format!("Line {line}")}</h4>
                    <ul>
                        {mine.iter().map(|r| view! {
                            <li data-testid="cuda-line-access" data-column=r.column data-kind=r.kind>{access_summary(r)}</li>
                        }).collect_view()}
                    </ul>
                })
            }}
        </div>
    }
}

/// One row per access site (barriers are not rows), in order of first execution.
#[component]
fn SiteTable(sites: Memo<Vec<SiteRow>>) -> impl IntoView {
    view! {
        <Show when=move || sites.with(|s| !s.is_empty())>
            <RegionTable caption_id="cuda-sites-title" caption="Per access site, in order of first execution" columns=SITE_COLUMNS>
                {move || sites.get().into_iter().map(site_row).collect_view()}
            </RegionTable>
        </Show>
    }
}

fn site_row(r: SiteRow) -> impl IntoView {
    let shared = r.sums.shared;
    view! {
        <tr
            class="cuda-access" data-testid="cuda-access" data-line=r.number data-file=r.file.clone()
            data-column=r.column
            data-kind=r.kind data-space=r.space data-elem=r.elem
            data-part=(r.part > 0).then_some(r.part) data-requests=r.sums.requests
            data-requested-bytes=r.sums.requested_bytes data-sectors=r.sums.sectors
            data-ideal-sectors=r.sums.ideal_sectors data-excess-sectors=r.sums.excess_sectors
            data-unique-sectors=r.sums.unique_sectors data-dram-bytes=r.sums.dram_bytes
            data-unique-lower-bound=r.sums.unique_lower_bound.then_some("true")
            data-wavefronts=shared.map(|s| s.0) data-ideal-wavefronts=shared.map(|s| s.1)
            data-bank-conflicts=shared.map(|s| s.2)
        >
            <th scope="row" class="mono">{r.name.clone()}</th>
            <td>{r.space}</td>
            <td class="mono">{r.elem}</td>
            <td class="mono">{r.sums.requests}</td>
            <td class="mono" title=format!("{} bytes", r.sums.requested_bytes)>{bytes_text(r.sums.requested_bytes)}</td>
            <td class="mono">{if shared.is_some() { "—".to_string() } else { r.sums.sectors.to_string() }}</td>
            <td class="mono">{r.sectors_per_request.clone()}</td>
            <td class="mono">{if shared.is_some() { "—".to_string() } else { r.sums.ideal_sectors.to_string() }}</td>
            <td class="mono">{if shared.is_some() { "—".to_string() } else { r.sums.excess_sectors.to_string() }}</td>
            <td class="mono">{r.sums.unique_text()}</td>
            <td class="mono" title=format!("{} bytes", r.sums.dram_bytes)>{bytes_text(r.sums.dram_bytes)}</td>
            <td class="mono">{shared.map_or("—".to_string(), |s| s.0.to_string())}</td>
            <td class="mono" class:conflicted=shared.is_some_and(|s| s.2 > 0)>{shared.map_or("—".to_string(), |s| s.2.to_string())}</td>
        </tr>
    }
}

/// The source view's columns.
const SOURCE_COLUMNS: &[&str] = &[
    "Line",
    "Sectors per request",
    "Excess sectors",
    "Bank conflicts",
    "Source",
];

/// The site table's columns.
const SITE_COLUMNS: &[&str] = &[
    "Site",
    "Memory",
    "Bytes",
    "Requests",
    "Requested",
    "Sectors",
    "Per request",
    "Ideal",
    "Excess",
    "Unique",
    "DRAM bytes",
    "Wavefronts",
    "Conflicts",
];
