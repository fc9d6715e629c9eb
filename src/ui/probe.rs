//! The probe panel: strided loads on the visitor's own GPU through WebGPU, beside the sector
//! model's prediction. Nothing touches the GPU until the panel is first shown (detection) and
//! nothing runs until the visitor presses Run; a link only fills the fields.
//!
//! Why one file of ~520 lines: one panel, whose view is mostly markup; its computing already
//! lives in `model::probe`.

use super::canvas::{svg_text, ChartCanvas};
use super::share::download_text;
use super::widgets::{RegionTable, TextField};
use super::AppState;
use crate::charts::probe as chart;
use crate::charts::Theme;
use crate::gpu::{self, Detection, Failure, Progress};
use crate::model::format::size_text;
use crate::model::permalink::Tab;
use crate::model::probe::{
    chart_description, pass_floor_ms, plan, preview, AdapterInfo, Limits, Plan, ProbeError,
    ProbeField, Report, RowText, DEFAULT_STRIDES, MAX_N, MAX_STRIDE, MEASURED, SECTOR_BYTES,
    TARGET_PASS_MS, WARMUPS, WARP_LANES,
};
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use plotters_canvas::CanvasBackend;

/// Where the panel stands.
#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Detecting,
    Unavailable(String),
    Ready,
    Running,
    Done,
    Cancelled,
    Lost(String),
    Failed(String),
}

impl Phase {
    /// `data-value` of the status line.
    fn value(&self) -> &'static str {
        match self {
            Phase::Detecting => "detecting",
            Phase::Unavailable(_) => "unavailable",
            Phase::Ready => "ready",
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Cancelled => "cancelled",
            Phase::Lost(_) => "lost",
            Phase::Failed(_) => "error",
        }
    }
}

#[component]
pub fn ProbePanel(state: AppState) -> impl IntoView {
    let inputs = state.probe;
    let visible = Signal::derive(move || state.tab.get() == Tab::Probe);
    let phase = RwSignal::new(Phase::Detecting);
    let adapter = RwSignal::new(None::<(AdapterInfo, Limits)>);
    let progress = RwSignal::new(None::<Progress>);
    let report = RwSignal::new(None::<Report>);
    let cancel = RwSignal::new(false);

    // Detection waits until the panel first shows: other panels never touch WebGPU.
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) || !visible.get() {
            return started.unwrap_or(false);
        }
        leptos::task::spawn_local(async move {
            match gpu::detect().await {
                Detection::Ready { info, limits } => {
                    adapter.set(Some((info, limits)));
                    phase.set(Phase::Ready);
                }
                Detection::Unavailable(why) => phase.set(Phase::Unavailable(why.to_string())),
            }
        });
        true
    });

    let limits = Memo::new(move |_| adapter.with(|a| a.as_ref().map(|(_, l)| *l)));
    let planned = Memo::new(move |_| -> Result<Plan, Vec<ProbeError>> {
        let config = inputs.with(|i| i.check())?;
        plan(&config, &limits.get().unwrap_or(Limits::DEFAULT)).map_err(|e| vec![e])
    });
    let field_error = move |field: ProbeField| {
        Signal::derive(move || {
            planned.with(|p| {
                p.as_ref()
                    .err()
                    .and_then(|errors| errors.iter().find(|e| e.field == field))
                    .map(ToString::to_string)
            })
        })
    };
    let running = move || phase.with(|p| *p == Phase::Running);
    let can_run =
        move || !running() && adapter.with(Option::is_some) && planned.with(|p| p.is_ok());

    let start = move |_| {
        let Ok(plan) = planned.get_untracked() else {
            return;
        };
        cancel.set(false);
        report.set(None);
        progress.set(None);
        phase.set(Phase::Running);
        leptos::task::spawn_local(async move {
            let outcome = gpu::run(&plan, &|p| progress.set(Some(p)), &|| {
                cancel.get_untracked()
            })
            .await;
            match outcome {
                Ok(done) => {
                    let browser = web_sys::window()
                        .and_then(|w| w.navigator().user_agent().ok())
                        .unwrap_or_default();
                    adapter.set(Some((done.info.clone(), done.limits)));
                    report.set(Some(Report::new(
                        plan,
                        done.timer,
                        done.info,
                        done.limits,
                        browser,
                        done.measurements,
                    )));
                    phase.set(Phase::Done);
                }
                Err(Failure::Cancelled) => phase.set(Phase::Cancelled),
                Err(Failure::Lost(why)) => phase.set(Phase::Lost(why)),
                Err(Failure::Error(why)) => phase.set(Phase::Failed(why)),
                Err(why @ Failure::Unavailable(_)) => phase.set(Phase::Failed(why.to_string())),
            }
        });
    };

    let status = move || {
        let strides = planned.with(|p| p.as_ref().map(|p| (p.strides.len(), p.n)).ok());
        match phase.get() {
            Phase::Detecting => "Looking for a WebGPU adapter…".to_string(),
            Phase::Unavailable(_) => "The probe cannot run in this browser.".into(),
            Phase::Ready => match strides {
                Some((k, n)) => format!(
                    "Ready: Run measures {k} stride{}, {n} useful floats each.",
                    crate::model::format::plural(k as u64)
                ),
                None => "Fix the field marked in red to run.".into(),
            },
            Phase::Running => progress.with(|p| match p {
                Some(p) => format!("Running: {}.", p.stage),
                None => "Running: setting up the device and filling the buffer.".into(),
            }),
            Phase::Done => "Done: every stride measured. Run again to repeat.".into(),
            Phase::Cancelled => "Cancelled: nothing was kept. Run starts again.".into(),
            Phase::Lost(why) => format!(
                "The GPU device was lost ({why}). Nothing from that run is shown; press Run to try again."
            ),
            Phase::Failed(why) => format!("The probe stopped: {why}"),
        }
    };

    // The step just finished, for the progress bar's value text and the line under the status.
    let step_text = Signal::derive(move || {
        progress.with(|p| {
            p.as_ref()
                .map(|p| format!("{}: step {} of {}", p.label, p.done, p.total))
                .unwrap_or_default()
        })
    });

    let rows = Memo::new(move |_| -> Vec<RowText> {
        report.with(|r| match r {
            Some(r) => r.rows.iter().map(|row| row.text()).collect(),
            None => planned.with(|p| match p {
                Ok(p) => preview(&p.strides),
                Err(_) => Vec::new(),
            }),
        })
    });

    let draw =
        move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| render(area, report, theme);
    let svg =
        move |theme: &Theme, size: (u32, u32)| svg_text(size, |area| render(area, report, theme));

    view! {
        <section class="probe" aria-labelledby="probe-title">
            <h2 id="probe-title">"GPU probe"</h2>
            <p class="lead">
                "Benchmark a strided load on this device's GPU: each invocation reads one f32 at its lane's stride, "
                "and every stride reads the same number of useful floats. The sector model predicts how much slower the wider strides run; "
                "the probe measures it. Nothing runs until you press Run."
            </p>
            <AdapterLine phase=phase adapter=adapter />
            <div class="layout">
                <form class="scenario" on:submit=|ev| ev.prevent_default() aria-label="Probe settings">
                    <TextField
                        testid="input-strides".to_string() param="strides" label="Lane strides"
                        tag="(bytes, comma-separated)"
                        hint=format!("4 to {MAX_STRIDE}, multiples of 4; 4 is contiguous. Default {DEFAULT_STRIDES}.")
                        value=Signal::derive(move || inputs.with(|i| i.strides.clone()))
                        on_input=Callback::new(move |text| inputs.update(|i| i.strides = text))
                        error=field_error(ProbeField::Strides)
                    />
                    <TextField
                        testid="input-n".to_string() param="n" label="Useful floats per dispatch"
                        tag="(n)"
                        hint=format!("Empty: as many as the device's buffer limits allow, up to {MAX_N} (2^20).")
                        placeholder="auto" inputmode="numeric"
                        value=Signal::derive(move || inputs.with(|i| i.n.clone()))
                        on_input=Callback::new(move |text| inputs.update(|i| i.n = text))
                        error=field_error(ProbeField::N)
                        note=Signal::derive(move || {
                            if limits.get().is_none() {
                                return String::new();
                            }
                            planned.with(|p| match p {
                                Ok(p) if p.n_from_limits => format!(" Now: {} floats, a {} buffer.", p.n, size_text(p.buffer_bytes)),
                                Ok(p) => format!(" Buffer: {}.", size_text(p.buffer_bytes)),
                                Err(_) => String::new(),
                            })
                        })
                    />
                    <div class="buttons">
                        <button
                            type="button" class="primary" data-testid="probe-run" on:click=start
                            disabled=Signal::derive(move || !can_run())
                        >
                            "Run"
                        </button>
                        <button
                            type="button" data-testid="probe-cancel"
                            on:click=move |_| cancel.set(true)
                            disabled=Signal::derive(move || !running())
                        >
                            "Cancel"
                        </button>
                    </div>
                    <progress
                        data-testid="probe-progress" aria-label="Probe progress"
                        aria-valuetext=step_text
                        max=Signal::derive(move || progress.with(|p| p.as_ref().map_or(1, |p| p.total)).to_string())
                        // A finished run has counted every step, so the bar ends full.
                        value=Signal::derive(move || progress.with(|p| p.as_ref().map_or(0, |p| p.done)).to_string())
                        hidden=Signal::derive(move || !running() && !phase.with(|p| *p == Phase::Done))
                    ></progress>
                    <p class="probe-status" data-testid="probe-status" data-value=Signal::derive(move || phase.with(|p| p.value()).to_string()) role="status" aria-live="polite">
                        {status}
                    </p>
                    <p class="hint probe-step" hidden=Signal::derive(move || !running())>
                        {step_text}
                    </p>
                    <p class="hint">
                        {format!(
                            "Per stride: two checked passes (the sums of the values read must match), {WARMUPS} warm-up passes, then {MEASURED} timed passes of about {TARGET_PASS_MS} ms each, every repetition reading memory the previous ones did not. Times are per dispatch of n loads. Default n is up to {MAX_N}."
                        )}
                    </p>
                </form>
                <div class="outputs">
                    <Reading report=report />
                    <Show
                        when=move || report.with(|r| r.as_ref().is_some_and(|r| r.rows.iter().any(|row| row.useful_gbps.is_some())))
                        fallback=|| view! {
                            <p class="note chart-placeholder">"The chart of useful GB/s against stride appears here after a run."</p>
                        }
                    >
                        <figure class="chart-box">
                            <ChartCanvas
                                draw=draw svg=svg file_stem="coalescing-probe".to_string()
                                visible=visible testid="probe-chart"
                                label="Useful bandwidth against stride, measured and predicted"
                                described_by="probe-chart-description"
                            />
                            <figcaption id="probe-chart-description" data-testid="probe-chart-description">
                                {move || report.with(|r| r.as_ref().map(chart_description).unwrap_or_default())}
                            </figcaption>
                        </figure>
                    </Show>
                </div>
            </div>
            <ResultsTable rows=rows report=report />
            <Show when=move || report.with(Option::is_some)>
                <div class="exports buttons">
                    <button type="button" data-testid="probe-export-json" on:click=move |_| {
                        report.with_untracked(|r| if let Some(r) = r {
                            download_text("coalescing-probe.json", "application/json", &r.json());
                        });
                    }>
                        "Download evidence (JSON)"
                    </button>
                    <button type="button" data-testid="probe-export-csv" on:click=move |_| {
                        report.with_untracked(|r| if let Some(r) = r {
                            download_text("coalescing-probe.csv", "text/csv", &r.csv());
                        });
                    }>
                        "Download evidence (CSV)"
                    </button>
                </div>
                <super::roofline_handoffs::AddToRoofline state=state report=report />
            </Show>
            <WarpAddresses planned=planned />
            <p class="note">
                "Why a measurement differs from the model: caches may keep lines between passes or serve less than a whole sector; "
                "the GPU's real warp or subgroup width may not be 32 (the browser does not say how invocations map to hardware lanes); "
                "more requests in flight can hide the extra sectors; and the browser rounds timestamps to about 0.1 ms, "
                {format!("so each timed pass repeats the kernel for at least {} ms. Treat the ratio, not the GB/s, as the finding.", pass_floor_ms())}
            </p>
        </section>
    }
}

fn render<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: RwSignal<Option<Report>>,
    theme: &Theme,
) -> Result<(), String> {
    report.with(|r| match r {
        Some(r) => chart::draw(area, r, theme).map_err(|e| e.to_string()),
        None => Ok(()),
    })
}

/// What WebGPU offers here: the adapter, its timer, and a warning for software adapters;
/// or why there is none.
#[component]
fn AdapterLine(
    phase: RwSignal<Phase>,
    adapter: RwSignal<Option<(AdapterInfo, Limits)>>,
) -> impl IntoView {
    view! {
        {move || match phase.get() {
            Phase::Unavailable(why) => Some(view! {
                <p class="note warning" data-testid="probe-unavailable" role="note">
                    <strong>"WebGPU is not available. "</strong>{why}
                    " The rest of Coalescing Lab works the same without it."
                </p>
            }.into_any()),
            _ => None,
        }}
        {move || adapter.get().map(|(info, limits)| {
            let software = info.is_software();
            let timer = if info.timestamps {
                "timestamp-query: available (GPU timestamps)"
            } else {
                "timestamp-query: not available (times are an upper bound)"
            };
            view! {
                <dl class="adapter" data-testid="probe-adapter" data-fallback=software.to_string() data-timestamps=info.timestamps.to_string()>
                    <div><dt>"Adapter"</dt><dd>{info.name()}</dd></div>
                    <div><dt>"Timer"</dt><dd>{timer}</dd></div>
                    <div><dt>"Software adapter"</dt><dd>{if software { "yes" } else { "no" }}</dd></div>
                    <div><dt>"Largest buffer"</dt><dd>{size_text(limits.largest_buffer())}</dd></div>
                </dl>
                {software.then(|| view! {
                    <p class="note warning strong" data-testid="probe-fallback-warning" role="note">
                        <strong>"This is a software (fallback) adapter. "</strong>
                        "It runs on the CPU, so its numbers say nothing about a GPU: the probe still runs end to end, but read its times as a demonstration only."
                    </p>
                })}
            }.into_any()
        })}
    }
}

/// One row per stride: the model's prediction, then what was measured.
#[component]
fn ResultsTable(rows: Memo<Vec<RowText>>, report: RwSignal<Option<Report>>) -> impl IntoView {
    let caption = move || {
        report.with(|r| match r {
            Some(r) => format!(
                "Results: n = {} useful floats per dispatch; times per dispatch, by {}. Predictions assume {WARP_LANES} lanes per warp and {SECTOR_BYTES} B sectors.",
                r.plan.n,
                r.timer.text()
            ),
            None => format!(
                "The model's prediction per stride, before any run: {WARP_LANES} lanes per warp, {SECTOR_BYTES} B sectors. Run fills in the measurements."
            ),
        })
    };
    view! {
        <p class="hint probe-table-note" data-testid="probe-table-note">{caption}</p>
        <RegionTable caption_id="probe-table-caption" caption="Prediction and measurement per stride" columns=STRIDE_COLUMNS class="probe-table">
            {move || {
                rows.get()
                    .into_iter()
                    .map(|row| {
                        let sectors = row.sectors.clone();
                        view! {
                            <tr
                                data-testid="probe-row" data-stride=row.stride_value
                                data-median-ms=row.median_value data-useful-gbps=row.gbps_value
                                data-predicted-sectors=sectors data-checksum-ok=row.checksum_ok
                            >
                                <th scope="row" class="mono">{row.stride}</th>
                                <td class="mono">{row.useful_bytes}</td>
                                <td class="mono">{row.sectors}</td>
                                <td class="mono">{row.fraction}</td>
                                <td class="mono">{row.median_ms}</td>
                                <td class="mono">{row.spread_ms}</td>
                                <td class="mono">{row.useful_gbps}</td>
                                <td class="mono">{row.implied_gbps}</td>
                                <td class="mono">{row.measured_slowdown}</td>
                                <td class="mono">{row.predicted_slowdown}</td>
                                <td>{row.checksum}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            }}
        </RegionTable>
    }
}

/// The result in sentences.
#[component]
fn Reading(report: RwSignal<Option<Report>>) -> impl IntoView {
    move || {
        report.with(|r| {
            r.as_ref().map(|r| {
                view! {
                    <ul class="reading" data-testid="probe-reading">
                        {r.reading().into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}
                    </ul>
                }
            })
        })
    }
}

/// One warp's addresses and sectors for each stride: the course's "address table for one
/// warp", from the same model.
#[component]
fn WarpAddresses(planned: Memo<Result<Plan, Vec<ProbeError>>>) -> impl IntoView {
    let table = Memo::new(move |_| {
        planned.with(|p| {
            p.as_ref()
                .map(|p| {
                    p.strides
                        .iter()
                        .map(|&s| crate::model::probe::predict(s))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    view! {
        <details class="builders warp-addresses">
            <summary>"Addresses of one warp, per stride"</summary>
            <div class="lane-table" role="region" aria-label="Addresses of one warp" tabindex="0">
                <table>
                    <caption>"Byte offset from the warp's first address, and its 32 B sector, for lanes 0 to 31."</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Lane"</th>
                            {move || table.get().into_iter().map(|p| view! { <th scope="col">{format!("{} B stride", p.stride)}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            let predictions = table.get();
                            (0..WARP_LANES as usize)
                                .map(|lane| {
                                    view! {
                                        <tr>
                                            <th scope="row" class="mono">{lane}</th>
                                            {predictions
                                                .iter()
                                                .map(|p| {
                                                    let address = p.addresses.get(lane).copied().unwrap_or_default();
                                                    view! { <td class="mono">{format!("{address} (s{})", address / SECTOR_BYTES)}</td> }
                                                })
                                                .collect_view()}
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </div>
        </details>
    }
}

/// The probe table's columns.
const STRIDE_COLUMNS: &[&str] = &[
    "Stride",
    "Useful per warp",
    "Predicted sectors per warp",
    "Predicted useful fraction",
    "Median ms",
    "Min – max ms",
    "Useful GB/s",
    "Implied transferred GB/s",
    "Measured slowdown",
    "Predicted slowdown",
    "Checksum",
];
