//! Drawing functions: pure, generic over plotters' `DrawingBackend`, so the page hands them a
//! canvas and native tests hand them an SVG backend. They read the model and a [`Theme`];
//! they know nothing of the DOM.

pub mod bank_map;
pub mod kernel;
pub mod labels;
pub mod probe;
pub mod ramp;
pub mod roofline;
pub mod roofline_machine;
pub mod sector_map;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::Ranged;
use plotters::prelude::{Color, DrawingBackend, IntoFont};
use plotters::style::RGBColor;

/// Colours and scale for one rendering, taken from the page's CSS custom properties.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    /// Plot-area fill; the page reads CSS `--surface`.
    pub background: RGBColor,
    /// Axis descriptions and titles; CSS `--text`.
    pub text: RGBColor,
    /// Tick labels, axes and secondary marks; CSS `--muted`.
    pub muted: RGBColor,
    /// Grid lines; CSS `--border`.
    pub grid: RGBColor,
    /// The main series (requested bytes, the roof); CSS `--accent`.
    pub accent: RGBColor,
    /// What needs attention: bank conflicts, heat, the picked lane, the points; CSS `--warn`.
    pub warn: RGBColor,
    /// Backend pixels per CSS pixel (devicePixelRatio on a canvas, 1 for SVG).
    pub scale: f64,
}

impl Theme {
    /// The light palette of style/main.css, at 1×.
    pub const LIGHT: Theme = Theme {
        background: RGBColor(0xff, 0xff, 0xff),
        text: RGBColor(0x1b, 0x1f, 0x24),
        muted: RGBColor(0x4d, 0x55, 0x61),
        grid: RGBColor(0xd5, 0xda, 0xe1),
        accent: RGBColor(0x1d, 0x4e, 0xd8),
        warn: RGBColor(0x8a, 0x4b, 0x00),
        scale: 1.0,
    };

    /// A CSS pixel size in backend pixels.
    pub fn px(&self, css: f64) -> f64 {
        css * self.scale
    }

    /// A CSS pixel size in whole backend pixels, at least 1.
    pub fn px_u32(&self, css: f64) -> u32 {
        self.px(css).round().max(1.0) as u32
    }
}

/// Gives a chart's axes the look every chart shares: muted labels, plain descriptions, the
/// grid in the border colour, no minor lines.
pub(crate) fn style_axes<'a, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
    mesh: &mut MeshStyle<'a, 'b, X, Y, DB>,
    theme: &Theme,
) {
    let font =
        |size: f64, color: RGBColor| ("sans-serif", theme.px(size)).into_font().color(&color);
    mesh.label_style(font(12.0, theme.muted))
        .axis_desc_style(font(13.0, theme.text))
        .bold_line_style(theme.grid.stroke_width(theme.px_u32(1.0)))
        .light_line_style(theme.background.stroke_width(0))
        .axis_style(theme.muted.stroke_width(theme.px_u32(1.0)));
}

/// Parses `#rrggbb` (or `#rgb`), as getComputedStyle returns custom properties.
///
/// ```
/// use coalescing_lab::charts::parse_hex;
/// use plotters::style::RGBColor;
/// assert_eq!(parse_hex(" #1d4ed8"), Some(RGBColor(0x1d, 0x4e, 0xd8)));
/// assert_eq!(parse_hex("#fff"), Some(RGBColor(255, 255, 255)));
/// assert_eq!(parse_hex("blue"), None);
/// ```
pub fn parse_hex(text: &str) -> Option<RGBColor> {
    let hex = text.trim().strip_prefix('#')?;
    let digit = |i: usize, len: usize| u8::from_str_radix(hex.get(i..i + len)?, 16).ok();
    match hex.len() {
        6 => Some(RGBColor(digit(0, 2)?, digit(2, 2)?, digit(4, 2)?)),
        3 => {
            let d = |i| digit(i, 1).map(|v| v * 17);
            Some(RGBColor(d(0)?, d(1)?, d(2)?))
        }
        _ => None,
    }
}
