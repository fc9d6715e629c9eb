//! The figures: the sector map and the address ramp, each with its text alternative and
//! exports.

use crate::charts::{bank_map, ramp, sector_map, Theme};
use crate::model::bank_map as bank_layout;
use crate::model::inputs::Inputs;
use crate::model::inputs::Space;
use crate::model::permalink::Tab;
use crate::model::presets::Preset;
use crate::model::ramp::regime;
use crate::model::sector_map::{describe, layout, step_lane};
use crate::model::sectors::Analysis;
use crate::ui::canvas::{svg_text, ChartCanvas, Shape};
use crate::ui::AppState;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::DrawingArea;
use plotters_canvas::CanvasBackend;

/// The file stem of a figure's exports: the scenario's name, its side in the comparison
/// (`a.` → `-a`), then the figure, e.g. `ex8a-column-b-sector-map`.
pub(super) fn figure_stem(
    inputs: RwSignal<Inputs>,
    prefix: &'static str,
    figure: &'static str,
) -> Signal<String> {
    let side = prefix.trim_end_matches('.');
    Signal::derive(move || {
        let stem = inputs.with(Preset::file_stem);
        if side.is_empty() {
            format!("{stem}-{figure}")
        } else {
            format!("{stem}-{side}-{figure}")
        }
    })
}

/// The id of a calculator figure's text alternative, e.g. `b.ramp-description`.
fn description_id(prefix: &str, figure: &str) -> String {
    format!("{prefix}{figure}-description")
}

/// A calculator figure's chart: `figure` (after `prefix`) is its test id, names its exports
/// after the scenario and its text alternative ([`description_id`]); it draws while the
/// calculator's tab is open.
#[component]
fn CalculatorCanvas<F, S>(
    /// The figure's short name, e.g. `sector-map`.
    figure: &'static str,
    /// Accessible name of the picture.
    label: &'static str,
    shape: Shape,
    draw: F,
    svg: S,
    /// The scenario drawn, which names the exported files.
    inputs: RwSignal<Inputs>,
    state: AppState,
    /// Put before test ids and element ids: `a.` or `b.` in the comparison.
    prefix: &'static str,
    #[prop(optional)] on_pointer: Option<Callback<Option<(f64, f64)>>>,
    #[prop(optional)] on_key: Option<Callback<String>>,
    #[prop(optional)] natural_height: Option<super::super::canvas::NaturalHeight>,
) -> impl IntoView
where
    F: Fn(&DrawingArea<CanvasBackend, Shift>, &Theme) -> Result<(), String> + 'static,
    S: Fn(&Theme, (u32, u32)) -> Result<String, String> + 'static,
{
    view! {
        <ChartCanvas
            draw=draw
            svg=svg
            file_stem=figure_stem(inputs, prefix, figure)
            shape=shape
            nostrip:natural_height=natural_height
            nostrip:on_pointer=on_pointer
            nostrip:on_key=on_key
            visible=Signal::derive(move || state.tab.get() == Tab::Calculator)
            testid=format!("{prefix}{figure}")
            label=label
            described_by=description_id(prefix, figure)
        />
    }
}

/// What a map figure draws and where: [`MapFigure`]'s props, handed on to the map it picks.
#[derive(Clone, Copy)]
struct MapScene {
    shown: Memo<Analysis>,
    /// The scenario drawn, which names the exported files.
    inputs: RwSignal<Inputs>,
    state: AppState,
    highlighted: RwSignal<Option<u32>>,
    /// Put before test ids and element ids: `a.` or `b.` in the comparison.
    prefix: &'static str,
}

/// The sector map with its text alternative and exports.
#[component]
fn SectorMapFigure(scene: MapScene) -> impl IntoView {
    let description = description_id(scene.prefix, "sector-map");
    let map = Memo::new(move |_| scene.shown.with(layout));
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        map.with(|m| sector_map::draw(area, m, scene.highlighted.get(), theme))
            .map_err(|e| e.to_string())
    };
    let point = Callback::new(move |at: Option<(f64, f64)>| {
        scene.highlighted.set(at.and_then(|(x, width)| {
            map.with_untracked(|m| sector_map::lane_at(m, width, &Theme::LIGHT, x))
        }));
    });
    let key = Callback::new(move |key: String| {
        let lanes: Vec<u32> = map.with_untracked(|m| m.lanes.iter().map(|l| l.lane).collect());
        let now = scene.highlighted.get_untracked();
        let next = match key.as_str() {
            "ArrowRight" => step_lane(&lanes, now, true),
            "ArrowLeft" => step_lane(&lanes, now, false),
            "Escape" => None,
            _ => return,
        };
        scene.highlighted.set(next);
    });
    let svg = move |theme: &Theme, size: (u32, u32)| {
        svg_text(size, |area| {
            map.with(|m| sector_map::draw(area, m, None, theme))
        })
    };
    view! {
        <figure class="chart-box">
            <CalculatorCanvas figure="sector-map" label="Sector map" shape=Shape::STRIP draw=draw svg=svg
                inputs=scene.inputs state=scene.state prefix=scene.prefix on_pointer=point on_key=key />
            <figcaption id=description.clone() data-testid=description>
                {Signal::derive(move || map.with(describe))}
            </figcaption>
        </figure>
    }
}

/// The map that fits the instruction's memory: the sector map for global memory, the bank
/// map for shared memory.
#[component]
pub(super) fn MapFigure(
    shown: Memo<Analysis>,
    inputs: RwSignal<Inputs>,
    state: AppState,
    highlighted: RwSignal<Option<u32>>,
    #[prop(default = "")] prefix: &'static str,
) -> impl IntoView {
    let scene = MapScene {
        shown,
        inputs,
        state,
        highlighted,
        prefix,
    };
    let shared = Memo::new(move |_| shown.with(|a| a.space == Space::Shared));
    view! {
        <Show when=move || shared.get() fallback=move || view! { <SectorMapFigure scene=scene /> }>
            <BankMapFigure scene=scene />
        </Show>
    }
}

/// The bank map with its text alternative and exports.
#[component]
fn BankMapFigure(scene: MapScene) -> impl IntoView {
    let description = description_id(scene.prefix, "bank-map");
    let map = Memo::new(move |_| scene.shown.with(bank_layout::layout));
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        map.with(|m| match m {
            Some(m) => {
                bank_map::draw(area, m, scene.highlighted.get(), theme).map_err(|e| e.to_string())
            }
            None => Ok(()),
        })
    };
    let svg = move |theme: &Theme, size: (u32, u32)| {
        svg_text(size, |area| {
            map.with(|m| match m {
                Some(m) => bank_map::draw(area, m, None, theme),
                None => Ok(()),
            })
        })
    };
    view! {
        <figure class="chart-box">
            <CalculatorCanvas figure="bank-map" label="Bank map" shape=Shape::GRID draw=draw svg=svg
                inputs=scene.inputs state=scene.state prefix=scene.prefix
                natural_height=std::rc::Rc::new(move |width: f64| {
                    map.with(|m| m.as_ref().map(|m| bank_map::natural_height(m, width)))
                }) />
            <figcaption
                id=description.clone()
                data-testid=description
                data-busiest-bank=Signal::derive(move || {
                    map.with(|m| {
                        m.as_ref()
                            .and_then(|m| m.busiest)
                            .map(|(_, bank, _)| bank.to_string())
                            .unwrap_or_default()
                    })
                })
            >
                {Signal::derive(move || map.with(|m| m.as_ref().map(bank_layout::describe).unwrap_or_default()))}
            </figcaption>
            <p class="hint" data-testid=format!("{}bank-model", scene.prefix)>{crate::model::banks::RULE}</p>
        </figure>
    }
}

/// The address ramp with the regime named, its text alternative and exports.
#[component]
pub(super) fn RampFigure(
    shown: Memo<Analysis>,
    /// The scenario drawn, which names the exported files.
    inputs: RwSignal<Inputs>,
    state: AppState,
    /// Put before test ids and element ids: `a.` or `b.` in the comparison.
    #[prop(default = "")]
    prefix: &'static str,
) -> impl IntoView {
    let description = description_id(prefix, "ramp");
    let found = Memo::new(move |_| shown.with(regime));
    let draw = move |area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme| {
        shown
            .with(|a| ramp::draw(area, a, found.get(), theme))
            .map_err(|e| e.to_string())
    };
    let svg = move |theme: &Theme, size: (u32, u32)| {
        svg_text(size, |area| {
            shown.with(|a| ramp::draw(area, a, found.get(), theme))
        })
    };
    view! {
        <figure class="chart-box">
            <CalculatorCanvas figure="ramp" label="Address ramp" shape=Shape::LOW_PLOT draw=draw svg=svg
                inputs=inputs state=state prefix=prefix />
            <figcaption
                id=description.clone()
                data-testid=description
                data-value=Signal::derive(move || found.get().name().to_string())
            >
                {Signal::derive(move || format!("Address ramp, {}.", found.get()))}
            </figcaption>
        </figure>
    }
}
