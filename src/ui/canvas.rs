//! A chart canvas: sizes its backing store to CSS size × devicePixelRatio for crisp hi-DPI
//! output, takes its colours from the page's CSS custom properties, and redraws when its
//! data, its size, the colour scheme or its visibility change. A hidden canvas measures 0×0,
//! so nothing is drawn until it shows.

use super::share::{download_text, download_url};
use crate::charts::{parse_hex, Theme};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// How tall a chart is for its width, in CSS pixels.
#[derive(Clone, Copy)]
pub struct Shape {
    pub aspect: f64,
    pub min_height: f64,
    pub max_height: f64,
}

impl Shape {
    const fn new(aspect: f64, min_height: f64, max_height: f64) -> Shape {
        Shape { aspect, min_height, max_height }
    }

    /// A plot with axes: wide enough to read, never taller than a laptop screen wants.
    pub const PLOT: Shape = Shape::new(0.62, 260.0, 460.0);
    /// A low plot, like the address ramp.
    pub const LOW_PLOT: Shape = Shape::new(0.4, 230.0, 320.0);
    /// A grid of rows, e.g. the bank map's 32 banks by up to 40 rows.
    pub const GRID: Shape = Shape::new(0.55, 280.0, 520.0);
    /// A strip along an axis, like the sector map.
    pub const STRIP: Shape = Shape::new(0.3, 210.0, 260.0);

    fn height_for(self, width: f64) -> f64 {
        (width * self.aspect).clamp(self.min_height, self.max_height)
    }
}

/// The theme the stylesheet applies now, scaled to `dpr` backend pixels per CSS pixel.
fn page_theme(dpr: f64) -> Theme {
    let fallback = Theme { scale: dpr, ..Theme::LIGHT };
    let Some(root) = document().document_element() else {
        return fallback;
    };
    let Ok(Some(style)) = window().get_computed_style(&root) else {
        return fallback;
    };
    let color = |name: &str, default| {
        style
            .get_property_value(name)
            .ok()
            .and_then(|v| parse_hex(&v))
            .unwrap_or(default)
    };
    Theme {
        background: color("--surface", fallback.background),
        text: color("--text", fallback.text),
        muted: color("--muted", fallback.muted),
        grid: color("--border", fallback.grid),
        accent: color("--accent", fallback.accent),
        warn: color("--warn", fallback.warn),
        scale: dpr,
    }
}

/// What `draw` draws on an SVG drawing area `size` backend pixels large, as SVG text: a
/// chart's export.
pub fn svg_text<E: std::fmt::Display>(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), E>,
) -> Result<String, String> {
    let mut text = String::new();
    // The area is dropped at the end of this statement, which finishes the SVG document.
    draw(&SVGBackend::with_string(&mut text, size).into_drawing_area())
        .map_err(|e| e.to_string())?;
    Ok(text)
}

/// The event the theme toggle fires so that charts redraw in the new colours.
const THEME_EVENT: &str = "coalescing-lab:theme";

/// Tells every chart that the page's colours changed.
pub fn theme_changed() {
    if let Ok(event) = web_sys::Event::new(THEME_EVENT) {
        let _ = window().dispatch_event(&event);
    }
}

/// Calls `bump` whenever the visitor's colour scheme changes.
fn on_colour_scheme_change(bump: impl Fn() + 'static) {
    let Ok(Some(query)) = window().match_media("(prefers-color-scheme: dark)") else {
        return;
    };
    let listener = Closure::<dyn Fn()>::new(bump);
    if query
        .add_event_listener_with_callback("change", listener.as_ref().unchecked_ref())
        .is_ok()
    {
        // The listener lives as long as the page: hand it to the JS garbage collector.
        listener.forget();
    }
}

/// A ResizeObserver and the callback it calls, dropped together.
type WidthObserver = (web_sys::ResizeObserver, Closure<dyn Fn()>);

/// Keeps `width` at the element's CSS width. The callback runs after layout, so reading the
/// width there costs nothing extra.
fn observe_width(
    element: web_sys::HtmlCanvasElement,
    width: RwSignal<f64>,
) -> Option<WidthObserver> {
    let measured = element.clone();
    let update = Closure::<dyn Fn()>::new(move || {
        let now = f64::from(measured.client_width());
        if width.try_get_untracked() != Some(now) {
            // Redrawing resizes the canvas; doing that inside this callback would leave the
            // observer a change it cannot deliver ("ResizeObserver loop completed with
            // undelivered notifications"), so the new width lands in the next frame.
            request_animation_frame(move || {
                let _ = width.try_set(now);
            });
        }
    });
    let observer = web_sys::ResizeObserver::new(update.as_ref().unchecked_ref()).ok()?;
    observer.observe(&element);
    Some((observer, update))
}

/// A canvas drawn by `draw`, which may read signals: it redraws when they change. Below it,
/// PNG (at 2×, from a fresh canvas) and SVG (the same drawing through plotters' SVG backend)
/// downloads named `<file_stem>.png` and `.svg`.
#[component]
pub fn ChartCanvas<F, S>(
    /// Draws the chart; an error is logged, and the text alternative still stands.
    draw: F,
    /// Draws the same chart as SVG text at a size in CSS pixels.
    svg: S,
    /// File name of the exports, without extension.
    #[prop(into)]
    file_stem: Signal<String>,
    /// How tall the chart is for its width.
    #[prop(default = Shape::PLOT)]
    shape: Shape,
    /// The height in CSS pixels the drawing needs at a width, when less than `shape` gives:
    /// the canvas is then no taller (a short bank map leaves no empty band). It may read
    /// signals; the chart is sized again when they change.
    #[prop(optional)]
    natural_height: Option<NaturalHeight>,
    /// Pointer position over the chart as (x, width) in CSS pixels; `None` when it leaves.
    #[prop(optional)]
    on_pointer: Option<Callback<Option<(f64, f64)>>>,
    /// Keys pressed while the chart has focus; giving this makes the chart focusable.
    #[prop(optional)]
    on_key: Option<Callback<String>>,
    /// Whether the canvas is on screen; drawing waits until it is.
    #[prop(into)]
    visible: Signal<bool>,
    /// `data-testid` of the canvas.
    #[prop(into)]
    testid: String,
    /// Accessible name of the picture.
    label: &'static str,
    /// Id of the element holding the text alternative.
    #[prop(into)]
    described_by: String,
) -> impl IntoView
where
    F: Fn(&DrawingArea<CanvasBackend, Shift>, &Theme) -> Result<(), String> + 'static,
    S: Fn(&Theme, (u32, u32)) -> Result<String, String> + 'static,
{
    // Everything below is one non-generic function: each chart costs its drawing code only,
    // not another copy of the canvas, its observers and its exports.
    chart_canvas(Props {
        draw: std::rc::Rc::new(draw),
        svg: Box::new(svg),
        file_stem,
        shape,
        natural_height,
        on_pointer,
        on_key,
        visible,
        testid,
        label,
        described_by,
    })
}

/// The drawing function of a chart on the page.
type DrawFn = std::rc::Rc<dyn Fn(&DrawingArea<CanvasBackend, Shift>, &Theme) -> Result<(), String>>;

/// The SVG export of a chart: its text at a size in CSS pixels.
type SvgFn = Box<dyn Fn(&Theme, (u32, u32)) -> Result<String, String>>;

/// The height a chart's drawing needs at a width in CSS pixels, if it knows one.
pub type NaturalHeight = std::rc::Rc<dyn Fn(f64) -> Option<f64>>;

/// The least height a chart is given, whatever its drawing needs.
const LEAST_HEIGHT: f64 = 96.0;

/// [`ChartCanvas`]'s properties with its drawing functions boxed.
struct Props {
    draw: DrawFn,
    svg: SvgFn,
    file_stem: Signal<String>,
    shape: Shape,
    natural_height: Option<NaturalHeight>,
    on_pointer: Option<Callback<Option<(f64, f64)>>>,
    on_key: Option<Callback<String>>,
    visible: Signal<bool>,
    testid: String,
    label: &'static str,
    described_by: String,
}

fn chart_canvas(props: Props) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let redraw = RwSignal::new(0u32);
    let bump = move || redraw.update(|n| *n = n.wrapping_add(1));
    // The canvas's CSS width, kept by a ResizeObserver (which also sees the panel appear):
    // reading clientWidth while drawing would force a synchronous layout on every change.
    let css_width = RwSignal::new(0.0f64);
    let observer = StoredValue::new_local(None::<WidthObserver>);
    Effect::new(move |_| {
        if let Some(element) = canvas.get() {
            let fresh = observe_width(element, css_width);
            observer.update_value(|o| {
                if let Some((previous, _callback)) = std::mem::replace(o, fresh) {
                    previous.disconnect();
                }
            });
        }
    });
    on_cleanup(move || {
        let _ = observer.try_update_value(|o| {
            if let Some((observer, _callback)) = o.take() {
                // Disconnected first, so the callback is never called after it is dropped.
                observer.disconnect();
            }
        });
    });
    on_colour_scheme_change(bump);
    let toggled = window_event_listener_untyped(THEME_EVENT, move |_| bump());
    on_cleanup(move || toggled.remove());
    let natural = props.natural_height.clone();
    let shape = props.shape;
    let height_for = std::rc::Rc::new(move |width: f64| {
        let height = shape.height_for(width);
        match natural.as_ref().and_then(|n| n(width)) {
            Some(n) => height.min(n.max(LEAST_HEIGHT)),
            None => height,
        }
    });
    let css_size = {
        let height_for = height_for.clone();
        std::rc::Rc::new(move || {
            let width = css_width.get_untracked().max(320.0);
            Some((width, untrack(|| height_for(width))))
        })
    };
    let export_png = {
        let draw = props.draw.clone();
        let css_size = css_size.clone();
        move |_| {
            let Some((width, height)) = css_size() else {
                return;
            };
            let Ok(element) = document().create_element("canvas") else {
                return;
            };
            let offscreen: web_sys::HtmlCanvasElement = element.unchecked_into();
            offscreen.set_width((width * 2.0).round() as u32);
            offscreen.set_height((height * 2.0).round() as u32);
            let Some(backend) = CanvasBackend::with_canvas_object(offscreen.clone()) else {
                return;
            };
            if draw(&backend.into_drawing_area(), &page_theme(2.0)).is_ok() {
                if let Ok(data) = offscreen.to_data_url() {
                    download_url(&format!("{}.png", props.file_stem.get_untracked()), &data);
                }
            }
        }
    };
    let export_svg = move |_| {
        let Some((width, height)) = css_size() else {
            return;
        };
        if let Ok(text) = (props.svg)(&page_theme(1.0), (width as u32, height as u32)) {
            download_text(
                &format!("{}.svg", props.file_stem.get_untracked()),
                "image/svg+xml",
                &text,
            );
        }
    };
    let logged = props.testid.clone();
    Effect::new(move |_| {
        redraw.track();
        if !props.visible.get() {
            return;
        }
        let Some(element) = canvas.get() else {
            return;
        };
        let css_width = css_width.get();
        if css_width <= 0.0 {
            return;
        }
        let dpr = window().device_pixel_ratio().max(1.0);
        let css_height = height_for(css_width);
        let (width, height) = (
            (css_width * dpr).round() as u32,
            (css_height * dpr).round() as u32,
        );
        // Only a change of size touches the element: a new CSS height would make the browser
        // lay the page out again, and a new backing store is reallocated (the drawing clears
        // it anyway).
        if (element.width(), element.height()) != (width, height) {
            let _ = web_sys::HtmlElement::style(&element)
                .set_property("height", &format!("{css_height}px"));
            element.set_width(width);
            element.set_height(height);
        }
        let Some(backend) = CanvasBackend::with_canvas_object(element.clone()) else {
            return;
        };
        if let Err(message) = (props.draw)(&backend.into_drawing_area(), &page_theme(dpr)) {
            web_sys::console::error_1(&format!("chart {logged}: {message}").into());
        }
    });
    let pointer = move |ev: leptos::ev::PointerEvent| {
        if let Some(callback) = props.on_pointer {
            // offsetX is a float under web_sys_unstable_apis (CSSOM View).
            callback.run(Some((ev.offset_x(), css_width.get_untracked())));
        }
    };
    let leave = move |_| {
        if let Some(callback) = props.on_pointer {
            callback.run(None);
        }
    };
    let key = move |ev: leptos::ev::KeyboardEvent| {
        if let Some(callback) = props.on_key {
            if matches!(ev.key().as_str(), "ArrowLeft" | "ArrowRight" | "Escape") {
                ev.prevent_default();
            }
            callback.run(ev.key());
        }
    };
    let (png_id, svg_id) = (
        format!("{}-png", props.testid),
        format!("{}-svg", props.testid),
    );
    view! {
        <canvas
            node_ref=canvas
            class="chart"
            data-testid=props.testid
            role="img"
            aria-label=props.label
            aria-describedby=props.described_by
            tabindex=props.on_key.map(|_| "0")
            on:pointermove=pointer
            on:pointerleave=leave
            on:keydown=key
        ></canvas>
        <div class="buttons exports">
            {export_button(png_id, "Download PNG (2×)", props.label, export_png)}
            {export_button(svg_id, "Download SVG", props.label, export_svg)}
        </div>
    }
}

/// A chart's download button: its accessible name starts with the visible `text` and then
/// names the chart, e.g. "Download SVG of the sector map".
fn export_button(
    testid: String,
    text: &'static str,
    chart: &'static str,
    on_click: impl Fn(leptos::ev::MouseEvent) + 'static,
) -> impl IntoView {
    view! {
        <button
            type="button"
            data-testid=testid
            aria-label=format!("{text} of the {}", chart.to_ascii_lowercase())
            on:click=on_click
        >
            {text}
        </button>
    }
}
