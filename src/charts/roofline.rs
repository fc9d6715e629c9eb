//! The roofline chart: log–log axes, the bandwidth diagonal up to the ridge, the flat
//! compute roof after it, and the stepped trail, latest point strongest.

use super::Theme;
use crate::model::format::number;
use crate::model::roofline::{Point, PEAK_GFLOPS};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Intensity axis, FLOP/byte: covers 1/64 … 1024 and every ridge 1000/B for B in 1 … 100000;
/// a hair past the decades 0.01 and 10000, so both end labels are drawn.
pub const I_AXIS: (f64, f64) = (0.0099, 10_100.0);
/// Performance axis, GFLOP/s: covers 1/64 GFLOP/s up to the roof, with room above it.
pub const P_AXIS: (f64, f64) = (0.0099, 10_100.0);

/// Points that carry their step number; earlier ones are plain dots, so labels never pile up.
pub const LABELLED_POINTS: usize = 8;

/// Draws the roofs for bandwidth `bw_gbps` and the stepped `trail` (oldest first; the last is
/// drawn strongest, earlier ones fainter, and only the latest [`LABELLED_POINTS`] numbered),
/// and the `previous` run's points as hollow, muted rings. With an empty trail only the roofs
/// (and the previous run) are drawn, so nothing gives the answer away before the first Step.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bw_gbps: f64,
    trail: &[Point],
    previous: &[Point],
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font =
        |size: f64, color: RGBColor| ("sans-serif", theme.px(size)).into_font().color(&color);
    let mut chart = log_log_frame(area, theme, (I_AXIS, P_AXIS), 7, "Attainable P (GFLOP/s)")?;

    // Earlier bandwidths' roofs, faint, so earlier points sit on a visible line.
    let mut earlier: Vec<f64> = trail
        .iter()
        .chain(previous)
        .map(|p| p.bw.value())
        .filter(|bw| *bw != bw_gbps)
        .collect();
    earlier.sort_by(f64::total_cmp);
    earlier.dedup();
    for bw in earlier {
        chart.draw_series(LineSeries::new(
            roof(bw),
            theme.muted.mix(0.35).stroke_width(theme.px_u32(1.0)),
        ))?;
    }

    let peak = PEAK_GFLOPS as f64;
    let ridge = peak / bw_gbps;
    chart.draw_series(LineSeries::new(
        roof(bw_gbps),
        theme.accent.stroke_width(theme.px_u32(2.5)),
    ))?;
    // On a narrow chart the labels are short, and the ridge's label goes to the side with
    // more room, so it never runs past the plot's edge.
    let narrow = f64::from(area.dim_in_pixel().0) < theme.px(600.0);
    let along = (ridge / I_AXIS.0).ln() / (I_AXIS.1 / I_AXIS.0).ln();
    let ridge_left = if narrow { along > 0.5 } else { ridge > 300.0 };
    let ridge_label = if narrow {
        format!("ridge {}", number(ridge))
    } else {
        format!("ridge {} FLOP/byte", number(ridge))
    };
    chart.draw_series(std::iter::once(
        EmptyElement::at((ridge, peak))
            + Circle::new((0, 0), theme.px(5.0), theme.accent.filled())
            + Text::new(
                ridge_label,
                (
                    theme.px(if ridge_left { -8.0 } else { 8.0 }) as i32,
                    theme.px(8.0) as i32,
                ),
                font(12.0, theme.text).pos(Pos::new(
                    if ridge_left { HPos::Right } else { HPos::Left },
                    VPos::Top,
                )),
            ),
    ))?;
    // Roof labels: the flat roof says it is synthetic; the diagonal names its bandwidth.
    // The roof's label stands clear above the line, so it never runs through the ridge's dot.
    let roof_label = if narrow {
        format!("{PEAK_GFLOPS} GFLOP/s (synthetic)")
    } else {
        format!("compute roof {PEAK_GFLOPS} GFLOP/s (synthetic)")
    };
    chart.draw_series(std::iter::once(
        EmptyElement::at((I_AXIS.1 / 1.5, peak))
            + Text::new(
                roof_label,
                (0, -(theme.px(7.0) as i32)),
                font(12.0, theme.text).pos(Pos::new(HPos::Right, VPos::Bottom)),
            ),
    ))?;
    // The bandwidth label sits just below-right of the diagonal, a decade and a half before
    // the ridge, so it never covers the line or the points near the ridge.
    let diagonal_at = (ridge / 30.0)
        .max(P_AXIS.0 * 3.0 / bw_gbps)
        .max(I_AXIS.0 * 1.5);
    chart.draw_series(std::iter::once(
        EmptyElement::at((diagonal_at, diagonal_at * bw_gbps))
            + Text::new(
                format!("B = {} GB/s", number(bw_gbps)),
                (theme.px(10.0) as i32, theme.px(2.0) as i32),
                font(12.0, theme.accent).pos(Pos::new(HPos::Left, VPos::Top)),
            ),
    ))?;

    // The previous run: hollow muted rings, behind the current run.
    for point in previous {
        chart.draw_series(std::iter::once(Circle::new(
            (point.oi.value(), point.attainable_gflops()),
            theme.px(5.0),
            theme.muted.stroke_width(theme.px_u32(1.5)),
        )))?;
    }
    if let Some(first) = previous.first() {
        chart.draw_series(std::iter::once(
            EmptyElement::at((first.oi.value(), first.attainable_gflops()))
                + Text::new(
                    "previous run",
                    (theme.px(8.0) as i32, theme.px(6.0) as i32),
                    font(12.0, theme.muted).pos(Pos::new(HPos::Left, VPos::Top)),
                ),
        ))?;
    }

    let last = trail.len().saturating_sub(1);
    let first_labelled = trail.len().saturating_sub(LABELLED_POINTS);
    for (i, point) in trail.iter().enumerate() {
        let latest = i == last;
        let color = if latest {
            theme.warn.to_rgba()
        } else {
            theme.warn.mix(0.4)
        };
        let at = (point.oi.value(), point.attainable_gflops());
        let label = if i >= first_labelled {
            (i + 1).to_string()
        } else {
            String::new()
        };
        chart.draw_series(std::iter::once(
            EmptyElement::at(at)
                + Circle::new(
                    (0, 0),
                    theme.px(if latest { 6.0 } else { 4.5 }),
                    color.filled(),
                )
                + Text::new(
                    label,
                    (-(theme.px(8.0) as i32), -(theme.px(8.0) as i32)),
                    font(12.0, if latest { theme.warn } else { theme.muted })
                        .pos(Pos::new(HPos::Right, VPos::Bottom)),
                ),
        ))?;
    }
    area.present()
}

/// The log–log chart both of the lab's modes draw on.
pub(crate) type LogLog<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// The frame both of the lab's modes draw in: the background, then log–log axes over
/// intensity × performance (`ranges`), `labels` decade labels a side, and the axis titles.
pub(crate) fn log_log_frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    theme: &Theme,
    (oi, p): ((f64, f64), (f64, f64)),
    labels: usize,
    y_desc: &str,
) -> Result<LogLog<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let mut chart = ChartBuilder::on(area)
        .margin(theme.px_u32(14.0))
        .margin_right(theme.px_u32(24.0))
        .x_label_area_size(theme.px_u32(48.0))
        .y_label_area_size(theme.px_u32(72.0))
        .build_cartesian_2d((oi.0..oi.1).log_scale(), (p.0..p.1).log_scale())?;
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(labels)
        .y_labels(labels)
        .x_label_formatter(&|v| decade_label(*v))
        .y_label_formatter(&|v| decade_label(*v))
        .x_desc("Operational intensity I (FLOP/byte)")
        .y_desc(y_desc);
    super::style_axes(&mut mesh, theme);
    mesh.draw()?;
    Ok(chart)
}

/// The roof for one bandwidth: the diagonal from the axis floor up to the ridge, then flat.
fn roof(bw_gbps: f64) -> Vec<(f64, f64)> {
    let peak = PEAK_GFLOPS as f64;
    let ridge = peak / bw_gbps;
    let start = I_AXIS.0.max(P_AXIS.0 / bw_gbps);
    if ridge <= start {
        return vec![(I_AXIS.0, peak), (I_AXIS.1, peak)];
    }
    vec![(start, start * bw_gbps), (ridge, peak), (I_AXIS.1, peak)]
}

/// Labels decades only: 0.01, 0.1, 1, 10, 100, 1000, 10000.
pub(crate) fn decade_label(value: f64) -> String {
    let exponent = value.log10().round() as i32;
    let decade = 10f64.powi(exponent);
    if (value - decade).abs() > decade * 1e-6 {
        return String::new();
    }
    if exponent >= 0 {
        format!("{decade:.0}")
    } else {
        format!("{decade:.prec$}", prec = (-exponent) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_are_labelled_plainly() {
        let labels: Vec<String> = [
            0.01,
            0.1,
            1.0,
            10.0,
            100.0,
            1000.0,
            10000.0,
            0.999_999_9,
            2.0,
        ]
        .map(decade_label)
        .to_vec();
        assert_eq!(
            labels,
            ["0.01", "0.1", "1", "10", "100", "1000", "10000", "1", ""]
        );
    }

    #[test]
    fn the_roof_bends_at_the_ridge() {
        assert_eq!(
            roof(80.0),
            [(0.0099, 0.0099 * 80.0), (12.5, 1000.0), (I_AXIS.1, 1000.0)]
        );
        // 100000 GB/s: the ridge at 0.01 is just inside the axis floor.
        assert_eq!(roof(100_000.0)[1..], [(0.01, 1000.0), (I_AXIS.1, 1000.0)]);
        // 1 GB/s: the diagonal starts where P reaches the axis floor.
        assert_eq!(roof(1.0)[0], (0.0099, 0.0099));
    }
}
