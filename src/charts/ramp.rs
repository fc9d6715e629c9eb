//! The address ramp: lane id across, byte address up, one dot per active lane, with the
//! regime its slope shows written on the chart.

use super::Theme;
use crate::model::ramp::Regime;
use crate::model::sectors::Analysis;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Draws the ramp of `analysis`, naming `regime` in the plot's corner.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    analysis: &Analysis,
    regime: Regime,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let font =
        |size: f64, color: RGBColor| ("sans-serif", theme.px(size)).into_font().color(&color);
    let points: Vec<(f64, f64)> = analysis
        .lanes
        .iter()
        .filter_map(|l| {
            l.access
                .as_ref()
                .map(|a| (f64::from(l.lane), a.address as f64))
        })
        .collect();
    let (low, high) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    let (low, high) = if points.is_empty() {
        (0.0, 1.0)
    } else if high - low < 1.0 {
        (low - 4.0, high + 4.0)
    } else {
        let pad = (high - low) * 0.08;
        (low - pad, high + pad)
    };
    let hex = high >= 1e6;
    let lanes = f64::from(analysis.warp.max(1));
    let mut chart = ChartBuilder::on(area)
        .margin(theme.px_u32(12.0))
        .margin_right(theme.px_u32(20.0))
        .x_label_area_size(theme.px_u32(40.0))
        .y_label_area_size(theme.px_u32(if hex { 110.0 } else { 72.0 }))
        .build_cartesian_2d(-0.5..lanes - 0.5, low..high)?;
    let address_label = |v: &f64| {
        if hex {
            format!("{:#x}", v.max(0.0) as u64)
        } else {
            format!("{v:.0}")
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(9)
        .y_labels(6)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&address_label)
        .x_desc("Lane t")
        .y_desc("Address A(t) (bytes)");
    super::style_axes(&mut mesh, theme);
    mesh.draw()?;
    if points.len() > 1 {
        chart.draw_series(LineSeries::new(
            points.iter().copied(),
            theme.accent.mix(0.4).stroke_width(theme.px_u32(1.0)),
        ))?;
    }
    chart.draw_series(
        points
            .iter()
            .map(|p| Circle::new(*p, theme.px(3.5), theme.accent.filled())),
    )?;
    let (x, y) = (theme.px(90.0) as i32, theme.px(18.0) as i32);
    let (x, y) = (x.max(0), y.max(0));
    area.draw(&Text::new(
        regime.name().to_string(),
        (x, y),
        font(14.0, theme.warn).pos(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    area.present()
}
