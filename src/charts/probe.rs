//! The probe's chart: useful GB/s against lane stride (a log₂ axis), measured points joined
//! by a line, and the sector model's prediction scaled from the reference measurement.

use super::Theme;
use crate::model::probe::{chart_points, Report};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Draws `report`'s measured and predicted useful bandwidth per stride.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let font =
        |size: f64, color: RGBColor| ("sans-serif", theme.px(size)).into_font().color(&color);
    let (measured, model) = chart_points(report);
    let log2 = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
        points.iter().map(|&(s, g)| (s.log2(), g)).collect()
    };
    let (measured, model) = (log2(&measured), log2(&model));
    let xs = || measured.iter().chain(&model).map(|p| p.0);
    let (low, high) = xs().fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (low, high) = if low > high {
        (2.0, 7.0)
    } else {
        (low.floor() - 0.5, high.ceil() + 0.5)
    };
    let top = measured
        .iter()
        .chain(&model)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let top = if top > 0.0 { top * 1.18 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(theme.px_u32(14.0))
        .margin_right(theme.px_u32(24.0))
        .x_label_area_size(theme.px_u32(48.0))
        .y_label_area_size(theme.px_u32(72.0))
        .build_cartesian_2d(low..high, 0.0..top)?;
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(((high - low).ceil() as usize + 1).max(2))
        .y_labels(6)
        .x_label_formatter(&|v| stride_label(*v))
        .y_label_formatter(&|v| gbps_label(*v))
        .x_desc("Lane stride (bytes, log scale)")
        .y_desc("Useful GB/s");
    super::style_axes(&mut mesh, theme);
    mesh.draw()?;
    chart.draw_series(LineSeries::new(
        model.clone(),
        theme.muted.stroke_width(theme.px_u32(1.5)),
    ))?;
    chart.draw_series(model.iter().map(|&p| {
        Rectangle::new(
            [
                (p.0 - 0.06, p.1 - top * 0.012),
                (p.0 + 0.06, p.1 + top * 0.012),
            ],
            theme.muted.filled(),
        )
    }))?;
    chart.draw_series(LineSeries::new(
        measured.clone(),
        theme.accent.stroke_width(theme.px_u32(2.5)),
    ))?;
    chart.draw_series(
        measured
            .iter()
            .map(|&p| Circle::new(p, theme.px(5.0), theme.accent.filled())),
    )?;
    // The legend, top right, in words as well as colours.
    let (width, _) = area.dim_in_pixel();
    let right = i32::try_from(width).unwrap_or(i32::MAX) - theme.px(40.0) as i32;
    let line = theme.px(18.0) as i32;
    for (i, (label, color)) in [
        ("measured", theme.accent),
        ("sector model, scaled from the first stride", theme.muted),
    ]
    .into_iter()
    .enumerate()
    {
        let y = theme.px(24.0) as i32 + line * i as i32;
        area.draw(&Text::new(
            label,
            (right, y),
            font(12.0, color).pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
        area.draw(&Circle::new(
            (right + theme.px(10.0) as i32, y),
            theme.px(4.0),
            color.filled(),
        ))?;
    }
    area.present()
}

/// Labels whole powers of two as bytes, nothing in between.
fn stride_label(log2: f64) -> String {
    let whole = log2.round();
    if (log2 - whole).abs() > 1e-6 || !(0.0..=20.0).contains(&whole) {
        return String::new();
    }
    format!("{} B", 1u64 << whole as u32)
}

/// GB/s without trailing noise.
fn gbps_label(value: f64) -> String {
    if value >= 10.0 || value == 0.0 {
        format!("{value:.0}")
    } else if value >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_are_labelled_at_powers_of_two_only() {
        let labels: Vec<String> = [2.0, 5.0, 7.0, 2.5, 12.0].map(stride_label).to_vec();
        assert_eq!(labels, ["4 B", "32 B", "128 B", "", "4096 B"]);
        assert_eq!(gbps_label(1234.5), "1234");
        assert_eq!(gbps_label(2.25), "2.2");
        assert_eq!(gbps_label(0.125), "0.12");
    }
}
