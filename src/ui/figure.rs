//! A picture of a finished analysis: one chart function draws it on the canvas and in the SVG
//! export, and its text alternative (`<testid>-description`) stands under it. The kernel view
//! (heat map, byte bars) and the CUDA panel (heat map) show theirs through it, each handing the
//! chart function that reads its own analysis.

use super::canvas::{svg_text, ChartCanvas, Shape};
use crate::charts::Theme;
use crate::model::warp::Measure;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingAreaErrorKind, DrawingBackend, SVGBackend};
use plotters_canvas::CanvasBackend;

/// What a chart function returns on backend `B`.
pub type Drawn<B> = Result<(), DrawingAreaErrorKind<<B as DrawingBackend>::ErrorType>>;
/// A chart of an analysis `T` on backend `B`, by a measure.
pub type DrawFn<B, T> = fn(&DrawingArea<B, Shift>, &T, Measure, &Theme) -> Drawn<B>;

/// A chart of the analysis on show, redrawn when it or the measure changes; nothing is drawn
/// before the first analysis.
#[component]
pub fn AnalysisFigure<T: Send + Sync + 'static>(
    analysis: RwSignal<Option<T>>,
    visible: Signal<bool>,
    measure: Signal<Measure>,
    testid: &'static str,
    label: &'static str,
    file: Signal<String>,
    shape: Shape,
    canvas: DrawFn<CanvasBackend, T>,
    svg: fn(&DrawingArea<SVGBackend, Shift>, &T, Measure, &Theme) -> Drawn<SVGBackend<'static>>,
    describe: fn(&T, Measure) -> String,
) -> impl IntoView {
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        let m = measure.get();
        analysis
            .with(|a| a.as_ref().map(|a| canvas(area, a, m, theme)))
            .unwrap_or(Ok(()))
            .map_err(|e| e.to_string())
    };
    let vector = move |theme: &Theme, size: (u32, u32)| {
        let m = measure.get_untracked();
        svg_text(size, |area| {
            analysis
                .with(|a| a.as_ref().map(|a| svg(area, a, m, theme)))
                .unwrap_or(Ok(()))
        })
    };
    let description = format!("{testid}-description");
    view! {
        <figure class="chart-box">
            <ChartCanvas
                draw=draw
                svg=vector
                file_stem=file
                shape=shape
                visible=visible
                testid=testid
                label=label
                described_by=description.clone()
            />
            <figcaption id=description.clone() data-testid=description>
                {move || {
                    let m = measure.get();
                    analysis.with(|a| a.as_ref().map(|a| describe(a, m)).unwrap_or_default())
                }}
            </figcaption>
        </figure>
    }
}
