//! The finished analysis: the whole-kernel figures, the per-statement table and its CSV, the
//! heat map and the byte bars, and the hand-off to the Roofline lab.

use super::super::canvas::{ChartCanvas, Shape};
use super::super::share::download_text;
use super::super::widgets::ReadoutList;
use super::super::AppState;
use crate::charts::{kernel as chart, Theme};
use crate::model::kernel::presets::KernelPreset;
use crate::model::kernel::view::{
    bars_description, heat_description, readouts, statement_csv, statement_rows,
};
use crate::model::kernel::KernelAnalysis;
use crate::model::permalink::Tab;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;

/// The finished analysis: totals, the statement table, the pictures and the hand-off.
#[component]
pub(super) fn Results(
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
pub(super) fn stem(state: AppState) -> String {
    let what = state
        .kernel
        .with_untracked(KernelPreset::matching)
        .map_or("custom", |p| p.id);
    format!("coalescing-kernel-{what}")
}
