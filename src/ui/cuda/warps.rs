//! The launch per warp: the measure picker, the heat map of that measure per warp (the kernel
//! view's chart, through the same figure and chart function) with its exports, the worst warp
//! executions by the same measure, and every execution one warp makes of a picked line. Each
//! execution row names its pass (a loop's passes over one access are told apart) and opens in
//! the calculator.

use super::super::canvas::Shape;
use super::super::figure::{AnalysisFigure, Drawn};
use super::super::widgets::{CalculatorLink, RegionTable, TextField};
use super::super::AppState;
use super::jobs::{Jobs, Run};
use crate::charts::{kernel as chart, Theme};
use crate::model::cuda::run::{CudaAnalysis, CudaJob, RunErrorKind};
use crate::model::cuda_view::{
    calculator_inputs, default_measure, execution_rows, heat_words, matching_preset, on_line,
    pick_warp, ExecutionRow, PickField, SiteRow,
};
use crate::model::permalink::Tab;
use crate::model::warp::Measure;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;

/// The measure picker, the heat map and the worst warp executions of the last finished run,
/// as the kernel view shows its own: bank conflicts at first when the kernel has any, sectors
/// otherwise.
#[component]
pub(super) fn PerWarp(
    state: AppState,
    analysis: RwSignal<Option<(Run, CudaAnalysis)>>,
) -> impl IntoView {
    // The link's `cmeasure`, as the kernel view's `kmeasure`.
    let chosen = state.cuda_measure;
    let measure = Signal::derive(move || {
        chosen.get().unwrap_or_else(|| {
            analysis.with(|a| {
                a.as_ref()
                    .map_or(Measure::Sectors, |(_, a)| default_measure(a))
            })
        })
    });
    let rows = Signal::derive(move || {
        let m = measure.get();
        analysis.with(|a| {
            a.as_ref()
                .map(|(run, a)| execution_rows(a, a.worst_by(m), run.machine.warp))
                .unwrap_or_default()
        })
    });
    let visible = Signal::derive(move || state.tab.get() == Tab::Cuda);
    let file = Signal::derive(move || {
        analysis.with(|a| {
            let what = a
                .as_ref()
                .and_then(|(run, _)| matching_preset(&run.inputs))
                .map_or("custom", |p| p.id);
            format!("coalescing-cuda-{what}-heat-map")
        })
    });
    view! {
        <Show when=move || analysis.with(Option::is_some)>
            <section class="cuda-worst" aria-labelledby="cuda-worst-title">
                <h3 id="cuda-worst-title">"Per warp"</h3>
                <div class="field measure">
                    <label for="cuda-measure">"Heat map and worst warps by"</label>
                    <select
                        id="cuda-measure" data-testid="cuda-measure"
                        prop:value=move || measure.get().name()
                        on:change=move |ev| chosen.set(Measure::parse(&event_target_value(&ev)))
                    >
                        {Measure::ALL.map(|m| view! { <option value=m.name()>{m.unit()}</option> }).collect_view()}
                    </select>
                    <p class="hint">"Bank conflicts at first when the kernel has any, sectors otherwise."</p>
                </div>
                <AnalysisFigure
                    analysis=analysis visible=visible measure=measure testid="cuda-heat"
                    label="Heat map per warp" file=file shape=Shape::PLOT canvas=heat_on_canvas
                    svg=heat_in_svg describe=heat_text
                />
                <h4 id="cuda-worst-list">"Worst warp executions"</h4>
                <p class="hint">{move || format!("The 10 warp executions with the most {}, ties in execution order. A warp that runs an access in a loop has a row per pass, numbered from 1. Each opens in the calculator with its own addresses.", measure.get().unit())}</p>
                <ExecutionTable rows=rows testid="kernel-worst" state=state caption="The 10 worst warp executions" />
            </section>
        </Show>
    }
}

fn heat_text(run: &(Run, CudaAnalysis), measure: Measure) -> String {
    heat_words(&run.1, measure)
}

fn heat_on_canvas(
    area: &DrawingArea<CanvasBackend, Shift>,
    run: &(Run, CudaAnalysis),
    measure: Measure,
    theme: &Theme,
) -> Drawn<CanvasBackend> {
    chart::draw_heat(area, &run.1.heat, measure, theme)
}

fn heat_in_svg(
    area: &DrawingArea<SVGBackend, Shift>,
    run: &(Run, CudaAnalysis),
    measure: Measure,
    theme: &Theme,
) -> Drawn<SVGBackend<'static>> {
    chart::draw_heat(area, &run.1.heat, measure, theme)
}

/// Every execution one warp makes of the picked line's accesses: a block and a warp picked by
/// number, the rows from the kept job (`CudaJob::warp_executions`), each opening in the
/// calculator.
#[component]
pub(super) fn OneWarp(
    state: AppState,
    jobs: Jobs,
    sites: Memo<Vec<SiteRow>>,
    picked: RwSignal<Option<u32>>,
) -> impl IntoView {
    let block = RwSignal::new("0".to_string());
    let warp = RwSignal::new("0".to_string());
    // The warp runs on the page's thread within the edit's task's budget of loop iterations;
    // one that loops longer is asked of a worker (`Jobs::drill`), and its rows come when it
    // answers.
    let executions = Memo::new(move |_| {
        // A line without accesses (a row of the source view is clickable as a whole) has none.
        let line = picked
            .get()
            .filter(|line| sites.with(|s| s.iter().any(|r| r.line == *line)))?;
        let (block, warp) = (block.get(), warp.get());
        jobs.analysis.with(|a| {
            let (run, a) = a.as_ref()?;
            let width = run.machine.warp;
            let (b, w) = match pick_warp(a, &block, &warp) {
                Ok(pick) => pick,
                Err(e) => return Some(Pick::Rows(Err(e))),
            };
            let key = (run.clone(), b, w);
            let answered = jobs.drilled.with(|d| match d {
                Some((k, answer)) if *k == key => Some(answer.clone()),
                _ => None,
            });
            let all = match answered {
                Some(None) => return Some(Pick::Rows(Ok(Vec::new()))),
                Some(Some(answer)) => answer.map_err(|m| (PickField::Block, m)),
                None => match jobs
                    .kept
                    .with_value(|job| job.as_ref().map(|j| j.warp_executions(b, w)))?
                {
                    Err(e) if loops_too_long(&e) && jobs.remote_available() => {
                        return Some(Pick::Worker(run.clone(), b, w));
                    }
                    all => all.map_err(|e| (PickField::Block, e.to_string())),
                },
            };
            Some(Pick::Rows(
                all.map(|all| execution_rows(a, &on_line(a, all, line), width)),
            ))
        })
    });
    // A warp too long for the page's thread goes to a worker of its own; its answer lands in
    // `jobs.drilled`, which the pick above reads.
    Effect::new(move |_| {
        if let Some(Pick::Worker(run, b, w)) = executions.get() {
            if let Some(placement) = jobs.kept.with_value(|j| j.as_ref().map(CudaJob::placement)) {
                jobs.drill(&run, placement, b, w);
            }
        }
    });
    // Another run on show: a drill-down of the last one no longer counts.
    Effect::new(move |first: Option<()>| {
        jobs.analysis.track();
        if first.is_some() {
            jobs.forget_drill();
        }
    });
    let drilling = move || jobs.drilled.with(|d| matches!(d, Some((_, None))));
    let error_of = move |field: PickField| {
        Signal::derive(move || {
            executions.with(|e| match e {
                Some(Pick::Rows(Err((f, m)))) if *f == field => Some(m.clone()),
                _ => None,
            })
        })
    };
    let rows = Signal::derive(move || {
        executions.with(|e| match e {
            Some(Pick::Rows(Ok(rows))) => rows.clone(),
            _ => Vec::new(),
        })
    });
    view! {
        <Show when=move || executions.with(Option::is_some)>
            <section class="cuda-one-warp" aria-labelledby="cuda-warp-title" data-testid="cuda-one-warp" data-line=move || picked.get()>
                <h4 id="cuda-warp-title">{move || format!("Line {}: every execution of one warp", picked.get().unwrap_or_default())}</h4>
                <p class="hint">"These are the accesses this warp made in the launch, in its order. Each opens in the calculator."</p>
                <div class="pick">
                    <TextField
                        testid="cuda-pick-block".to_string() param="block-number" label="Block"
                        tag="(linear number)" hint="x + y·Gx + z·Gx·Gy" inputmode="numeric"
                        value=block on_input=Callback::new(move |t| block.set(t))
                        error=error_of(PickField::Block)
                    />
                    <TextField
                        testid="cuda-pick-warp".to_string() param="warp-number" label="Warp"
                        tag="(in the block)" hint="from 0" inputmode="numeric" value=warp
                        on_input=Callback::new(move |t| warp.set(t)) error=error_of(PickField::Warp)
                    />
                </div>
                <Show when=drilling>
                    <p class="hint" role="status" data-testid="cuda-warp-drilling">"This warp loops too long to run here: it runs in the worker, and its executions follow."</p>
                </Show>
                <ExecutionTable rows=rows testid="cuda-warp" state=state caption="Every execution of the chosen warp on this line" />
            </section>
        </Show>
    }
}

/// Warp executions, each a row that opens in the calculator as the kernel view's hand-off
/// does: its addresses as `addrs`, the site's `elem` and `space`, the calculator's machine.
#[component]
fn ExecutionTable(
    rows: Signal<Vec<ExecutionRow>>,
    testid: &'static str,
    state: AppState,
    caption: &'static str,
) -> impl IntoView {
    view! {
        <RegionTable caption=caption columns=EXECUTION_COLUMNS>
            {move || rows.get().into_iter().map(|row| {
                let calc = calculator_inputs(&row, &state.calc.get_untracked());
                let [x, y, z] = row.block;
                let shared = row.wavefronts;
                view! {
                    <tr
                        data-testid=testid data-line=row.line data-column=row.column
                        data-kind=row.kind data-space=row.space data-block=format!("{x},{y},{z}")
                        data-warp=row.warp data-pass=row.pass data-active=row.active_lanes
                        // A shared row's cost is wavefronts: it has no sectors.
                        data-sectors=shared.is_none().then_some(row.sectors)
                        data-ideal-sectors=shared.is_none().then_some(row.ideal_sectors)
                        data-excess-sectors=shared.is_none().then_some(row.excess_sectors)
                        data-wavefronts=shared.map(|s| s.0) data-bank-conflicts=shared.map(|s| s.1)
                        data-addrs=row.addrs.clone()
                    >
                        <th scope="row" class="mono">{row.site.clone()}</th>
                        <td class="mono">{format!("({x},{y},{z})")}</td>
                        <td class="mono">{row.warp}</td>
                        <td class="mono">{row.pass}</td>
                        <td class="mono">{row.active_lanes}</td>
                        <td class="mono">{row.cost.clone()}</td>
                        <td>
                            <CalculatorLink state=state calc=Some(calc) testid=format!("{testid}-open") text=format!("Open block ({x},{y},{z}) warp {}, pass {}", row.warp, row.pass) />
                        </td>
                    </tr>
                }
            }).collect_view()}
        </RegionTable>
    }
}

/// The columns of a table of warp executions.
const EXECUTION_COLUMNS: &[&str] = &[
    "Site",
    "Block (x,y,z)",
    "Warp",
    "Pass",
    "Active lanes",
    "Sectors (excess) or wavefronts",
    "Calculator",
];

/// What the pick shows: its rows (or why not), or a warp to run in a worker first.
#[derive(Clone, PartialEq)]
enum Pick {
    Rows(Result<Vec<ExecutionRow>, (PickField, String)>),
    Worker(Run, u64, u32),
}

/// Whether a drill-down stopped on the page's budget of loop iterations, not the kernel's.
fn loops_too_long(e: &crate::model::cuda::run::RunError) -> bool {
    matches!(*e.kind, RunErrorKind::WarpIterations { limit } if limit == super::jobs::IN_PAGE_ITERATIONS)
}
