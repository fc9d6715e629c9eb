//! The finished analysis: the whole-kernel figures, the per-statement table and its CSV, the
//! heat map and the byte bars, and the hand-off to the Roofline lab.

use super::super::canvas::Shape;
use super::super::figure::{AnalysisFigure, Drawn};
use super::super::roofline_handoffs::KernelToRoofline;
use super::super::share::download_text;
use super::super::widgets::{ReadoutList, RegionTable};
use super::super::AppState;
use crate::charts::{kernel as chart, Theme};
use crate::model::kernel::presets::KernelPreset;
use crate::model::kernel::view::{
    bars_description, heat_description, readouts, statement_csv, statement_rows, KERNEL_HEAT_OVER,
};
use crate::model::kernel::{KernelAnalysis, Measure};
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;

/// The finished analysis: totals, the statement table, the pictures and the hand-off.
#[component]
pub(super) fn Results(
    state: AppState,
    analysis: RwSignal<Option<KernelAnalysis>>,
    stale: Signal<bool>,
    visible: Signal<bool>,
    /// What the heat map colours by (and the worst list ranks by), and the user's pick.
    measure: Signal<Measure>,
    chosen: RwSignal<Option<Measure>>,
) -> impl IntoView {
    let export = move |_| {
        let text = analysis.with_untracked(|a| a.as_ref().map(statement_csv).unwrap_or_default());
        download_text(
            &format!("{}-statements.csv", stem(state)),
            "text/csv",
            &text,
        );
    };
    view! {
        <ReadoutList readouts=Signal::derive(move || analysis.with(|a| a.as_ref().map(readouts).unwrap_or_default())) stale=stale />
        {move || analysis.with(|a| a.as_ref().map(|a| a.notes.clone()).unwrap_or_default())
            .into_iter()
            .map(|note| view! { <p class="note warning" data-testid="kernel-note">{note}</p> })
            .collect_view()}
        <KernelToRoofline
            state=state
            work=Memo::new(move |_| analysis.with(|a| a.as_ref().map(KernelAnalysis::work)))
            testid="kernel-to-roofline"
        />
        <RegionTable caption_id="kernel-stmt-title" caption="Per statement" columns=STATEMENT_COLUMNS>
            {move || {
                analysis.with(|a| a.as_ref().map(statement_rows).unwrap_or_default())
                    .into_iter()
                    .map(|r| view! {
                        <tr
                            data-testid="kernel-stmt" data-stmt=r.stmt data-requests=r.requests
                            data-requested-bytes=r.requested_bytes data-sectors=r.sectors
                            data-unique-sectors=r.unique_sectors data-dram-bytes=r.dram_bytes
                            data-space=r.space data-wavefronts=r.wavefronts
                            data-bank-conflicts=r.bank_conflicts data-barriers=r.barriers
                        >
                            <th scope="row">
                                {if r.space == "shared" {
                                    format!("{} (shared {})", r.name, r.kind)
                                } else {
                                    format!("{} ({})", r.name, r.kind)
                                }}
                            </th>
                            <td class="mono">{r.requests}</td>
                            <td class="mono" title=format!("{} bytes", r.requested_bytes)>{crate::model::format::bytes_text(r.requested_bytes)}</td>
                            <td class="mono">{r.sectors}</td>
                            <td class="mono">{r.sectors_per_request}</td>
                            <td class="mono">{r.useful}</td>
                            <td class="mono">{r.unique_sectors}</td>
                            <td class="mono" title=format!("{} bytes", r.dram_bytes)>{crate::model::format::bytes_text(r.dram_bytes)}</td>
                            <td class="mono">{r.hit_rate}</td>
                            <td class="mono">{r.wavefronts}</td>
                            <td class="mono" class:conflicted=r.bank_conflicts != 0>{r.bank_conflicts}</td>
                            <td class="mono">{r.barriers}</td>
                        </tr>
                    })
                    .collect_view()
            }}
        </RegionTable>
        <div class="buttons exports">
            <button type="button" data-testid="kernel-stmt-csv" on:click=export>"Download statements (CSV)"</button>
        </div>
        <div class="field measure">
            <label for="kernel-measure">"Heat map and worst warps by"</label>
            <select
                id="kernel-measure" data-testid="kernel-measure"
                prop:value=move || measure.get().name()
                on:change=move |ev| chosen.set(Measure::parse(&event_target_value(&ev)))
            >
                {Measure::ALL.map(|m| view! { <option value=m.name()>{m.unit()}</option> }).collect_view()}
            </select>
            <p class="hint">"Bank conflicts at first when the kernel has any (the tiled lessons), sectors otherwise."</p>
        </div>
        <AnalysisFigure
            analysis=analysis visible=visible measure=measure testid="kernel-heat"
            label="Heat map per warp"
            file=Signal::derive(move || format!("{}-heat-map", stem(state))) shape=Shape::PLOT
            canvas=heat_on_canvas svg=heat_in_svg describe=heat_words
        />
        <AnalysisFigure
            analysis=analysis visible=visible measure=measure testid="kernel-bars"
            label="Bytes per statement"
            file=Signal::derive(move || format!("{}-bytes", stem(state))) shape=Shape::LOW_PLOT
            canvas=bars_on_canvas svg=bars_in_svg describe=bars_words
        />
    }
}

fn heat_words(a: &KernelAnalysis, measure: Measure) -> String {
    heat_description(&a.heat, measure, KERNEL_HEAT_OVER)
}

fn bars_words(a: &KernelAnalysis, _: Measure) -> String {
    bars_description(a)
}

fn heat_on_canvas(
    area: &DrawingArea<CanvasBackend, Shift>,
    a: &KernelAnalysis,
    measure: Measure,
    theme: &Theme,
) -> Drawn<CanvasBackend> {
    chart::draw_heat(area, &a.heat, measure, theme)
}

fn heat_in_svg(
    area: &DrawingArea<SVGBackend, Shift>,
    a: &KernelAnalysis,
    measure: Measure,
    theme: &Theme,
) -> Drawn<SVGBackend<'static>> {
    chart::draw_heat(area, &a.heat, measure, theme)
}

fn bars_on_canvas(
    area: &DrawingArea<CanvasBackend, Shift>,
    a: &KernelAnalysis,
    _: Measure,
    theme: &Theme,
) -> Drawn<CanvasBackend> {
    chart::draw_bars(area, a, theme)
}

fn bars_in_svg(
    area: &DrawingArea<SVGBackend, Shift>,
    a: &KernelAnalysis,
    _: Measure,
    theme: &Theme,
) -> Drawn<SVGBackend<'static>> {
    chart::draw_bars(area, a, theme)
}

/// The exports' file stem: the preset's id, or `custom`.
pub(super) fn stem(state: AppState) -> String {
    let what = state
        .kernel
        .with_untracked(KernelPreset::matching)
        .map_or("custom", |p| p.id);
    format!("coalescing-kernel-{what}")
}

/// The columns of the table per statement.
const STATEMENT_COLUMNS: &[&str] = &[
    "Statement",
    "Requests",
    "Requested",
    "Sectors",
    "Per request",
    "Useful",
    "Unique",
    "DRAM bytes",
    "Hit rate",
    "Wavefronts",
    "Bank conflicts",
    "Barriers",
];
