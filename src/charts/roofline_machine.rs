//! The machine mode's roofline: log–log axes that fit the machine, every bandwidth diagonal
//! and every compute ceiling, each labelled with labels pushed apart so none overlap, the
//! named points, and the keyboard cursor. Also maps a pixel back to (I, P) for clicks.

use super::labels::{overlap, place_names, Rect};
use super::roofline::log_log_frame;
use super::Theme;
use crate::model::format::number;
use crate::model::roofline::MachineChecked;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The ranges shown: intensity (FLOP/byte) and performance (GFLOP/s), both log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axes {
    /// Intensity from, to: FLOP/byte.
    pub oi: (f64, f64),
    /// Performance from, to: GFLOP/s.
    pub p: (f64, f64),
}

/// Axes that hold every ridge with room on both sides, every point and every ceiling,
/// widened to whole decades (a hair past them, so both end labels draw).
pub fn axes(machine: &MachineChecked) -> Axes {
    let values = |all: &[crate::model::roofline::Ceiling]| -> Vec<f64> {
        all.iter().map(|c| c.value.value()).collect()
    };
    let (bws, peaks) = (values(&machine.bandwidths), values(&machine.peaks));
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut ridges = Vec::new();
    for b in &bws {
        for p in &peaks {
            ridges.push(p / b);
        }
    }
    let ois: Vec<f64> = machine.points.iter().map(|p| p.oi.value()).collect();
    let ps: Vec<f64> = machine.points.iter().map(|p| p.p.value()).collect();
    let lo = |x: f64| 10f64.powf(x.log10().floor()) * 0.99;
    let hi = |x: f64| 10f64.powf(x.log10().ceil()) * 1.01;
    let oi_lo = min(&ridges).min(1.0) / 30.0;
    let oi_lo = lo(oi_lo.min(min(&ois)));
    let oi_hi = hi((max(&ridges).max(1.0) * 10.0).max(max(&ois) * 1.5));
    let p_hi = hi((max(&peaks).max(1.0) * 3.0).max(max(&ps) * 1.5));
    let floor = if bws.is_empty() {
        p_hi / 1e4
    } else {
        min(&bws) * oi_lo * 3.0
    };
    let p_lo = lo(floor.max(p_hi / 1e9).min(min(&ps) / 1.5));
    Axes { oi: (oi_lo, oi_hi), p: (p_lo, p_hi) }
}

/// The plotting rectangle inside a chart of `size` backend pixels: left, top, right, bottom.
pub fn plot_rect(size: (u32, u32), theme: &Theme) -> (f64, f64, f64, f64) {
    let m = f64::from(theme.px_u32(14.0));
    (
        m + f64::from(theme.px_u32(72.0)),
        m,
        f64::from(size.0) - f64::from(theme.px_u32(24.0)),
        f64::from(size.1) - m - f64::from(theme.px_u32(48.0)),
    )
}

/// The (I, P) under a pixel of a chart of `size`, or `None` outside the plot.
///
/// ```
/// use coalescing_lab::charts::{roofline_machine::{data_at, plot_rect, Axes}, Theme};
/// let axes = Axes { oi: (0.01, 100.0), p: (1.0, 10000.0) };
/// let (l, t, r, b) = plot_rect((800, 500), &Theme::LIGHT);
/// let (i, p) = data_at(&axes, (800, 500), &Theme::LIGHT, ((l + r) / 2.0, (t + b) / 2.0)).unwrap();
/// assert!((i - 1.0).abs() < 1e-9 && (p - 100.0).abs() < 1e-9);
/// // Degenerate input: the axis labels are not the plot.
/// assert_eq!(data_at(&axes, (800, 500), &Theme::LIGHT, (1.0, 1.0)), None);
/// ```
pub fn data_at(axes: &Axes, size: (u32, u32), theme: &Theme, at: (f64, f64)) -> Option<(f64, f64)> {
    let (l, t, r, b) = plot_rect(size, theme);
    if at.0 < l || at.0 > r || at.1 < t || at.1 > b || r <= l || b <= t {
        return None;
    }
    let along = |v: f64, from: f64, to: f64, (lo, hi): (f64, f64)| {
        lo * (hi / lo).powf((v - from) / (to - from))
    };
    Some((along(at.0, l, r, axes.oi), along(at.1, b, t, axes.p)))
}

/// Moves label positions apart so that neighbours are at least `gap` apart, each moving only
/// away from its own line: `upward` labels (above their lines) only up, the others only down;
/// then back inside `lo ..= hi` when there is room. The order of `ys` is kept.
///
/// ```
/// use coalescing_lab::charts::roofline_machine::spread;
/// let mut below = [100.0, 104.0, 300.0];
/// spread(&mut below, 14.0, 0.0, 400.0, false);
/// assert_eq!(below, [100.0, 114.0, 300.0]);
/// let mut above = [100.0, 104.0, 300.0];
/// spread(&mut above, 14.0, 0.0, 400.0, true);
/// assert_eq!(above, [90.0, 104.0, 300.0]);
/// // Degenerate input: no room at all keeps them in order from `lo`.
/// let mut tight = [5.0, 5.0];
/// spread(&mut tight, 14.0, 0.0, 10.0, false);
/// assert_eq!(tight, [0.0, 14.0]);
/// ```
pub fn spread(ys: &mut [f64], gap: f64, lo: f64, hi: f64, upward: bool) {
    // A handful of labels: an insertion sort, rather than another copy of the library's sort.
    let mut order: Vec<usize> = Vec::with_capacity(ys.len());
    for i in 0..ys.len() {
        let at = order
            .iter()
            .position(|&j| ys[j] > ys[i])
            .unwrap_or(order.len());
        order.insert(at, i);
    }
    if upward {
        order.reverse();
    }
    let step = if upward { -gap } else { gap };
    // Push apart in the allowed direction, then pull back from the far edge, then the near.
    for k in 1..order.len() {
        let (before, now) = (ys[order[k - 1]], ys[order[k]]);
        if (now - before) * step.signum() < gap {
            ys[order[k]] = before + step;
        }
    }
    let (near, far) = if upward { (hi, lo) } else { (lo, hi) };
    let mut limit = far;
    for &i in order.iter().rev() {
        ys[i] = if upward {
            ys[i].max(limit)
        } else {
            ys[i].min(limit)
        };
        limit = ys[i] - step;
    }
    let mut limit = near;
    for &i in &order {
        ys[i] = if upward {
            ys[i].min(limit)
        } else {
            ys[i].max(limit)
        };
        limit = ys[i] + step;
    }
}

/// A ceiling's label: its text, its anchor point, its colour, and how it hangs from the point.
type Label = (String, (f64, f64), RGBColor, HPos, VPos);

/// The top of each peak's label, `height` tall, for horizontal lines at `lines` (pixel rows,
/// in any order): above its own line, `clearance` off it, when no other line and no label
/// placed so far crosses that band; else below its line; within `lo ..= hi`. Lines are taken
/// from the top down. When some label has neither band (lines closer than a label), every
/// label goes above its line and they are pushed apart upward, as before.
///
/// ```
/// use coalescing_lab::charts::roofline_machine::peak_label_tops;
/// // Lines 40 px apart: each label above its own line.
/// assert_eq!(peak_label_tops(&[100.0, 140.0], 14.0, 2.0, 0.0, 400.0), [84.0, 124.0]);
/// // Lines 12 px apart (FP32 and FP64 at 390 px): the lower one's label goes below its line,
/// // rather than across the upper line.
/// assert_eq!(peak_label_tops(&[100.0, 112.0], 14.0, 2.0, 0.0, 400.0), [84.0, 114.0]);
/// ```
pub fn peak_label_tops(lines: &[f64], height: f64, clearance: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| lines[a].total_cmp(&lines[b]));
    let mut tops = vec![0.0; lines.len()];
    let mut placed: Vec<f64> = Vec::new();
    let mut all_fit = true;
    for &i in &order {
        let y = lines[i];
        let free = |top: f64| {
            top >= lo
                && top + height <= hi
                && lines
                    .iter()
                    .enumerate()
                    .all(|(j, &l)| j == i || l < top - 1.0 || l > top + height + 1.0)
                && placed
                    .iter()
                    .all(|&t| t + height <= top || t >= top + height)
        };
        let (above, below) = (y - clearance - height, y + clearance);
        let top = if free(above) {
            above
        } else if free(below) {
            below
        } else {
            all_fit = false;
            above
        };
        tops[i] = top;
        placed.push(top);
    }
    if !all_fit {
        let mut ys: Vec<f64> = lines.iter().map(|y| y - clearance - height).collect();
        spread(&mut ys, height + 1.0, lo, hi - height, true);
        return ys;
    }
    tops
}

/// Draws the machine's roofline: each bandwidth diagonal up to the highest peak, each peak
/// from its ridge with the highest bandwidth, their labels, the points with their names, and
/// the keyboard cursor at (I, P) if any.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    machine: &MachineChecked,
    cursor: Option<(f64, f64)>,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let axes = axes(machine);
    let font =
        |size: f64, color: RGBColor| ("sans-serif", theme.px(size)).into_font().color(&color);
    let mut chart = log_log_frame(area, theme, (axes.oi, axes.p), 8, "Performance P (GFLOP/s)")?;

    let top_peak = machine.default_peak().map(|c| c.value.value());
    let top_bw = machine
        .bandwidths
        .iter()
        .map(|c| c.value.value())
        .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))));
    let stroke = theme.px_u32(2.0);
    let (_, plot_top, plot_right, plot_bottom) = plot_rect(area.dim_in_pixel(), theme);
    let (plot_left, ..) = plot_rect(area.dim_in_pixel(), theme);
    let label_height = theme.px(14.0);
    let width_of = |text: &str| theme.px(6.6) * text.chars().count() as f64;
    // Peaks first, though drawn after the diagonals: the highest bandwidth's label must keep
    // off theirs. Each in a band beside its own line that no other line or label crosses.
    let lines: Vec<f64> = machine
        .peaks
        .iter()
        .map(|c| f64::from(chart.backend_coord(&(axes.oi.1, c.value.value())).1))
        .collect();
    let tops = peak_label_tops(
        &lines,
        label_height,
        theme.px(2.0),
        plot_top + theme.px(2.0),
        plot_bottom - theme.px(2.0),
    );
    let peak_labels: Vec<Label> = machine
        .peaks
        .iter()
        .zip(tops)
        .map(|(c, top)| {
            (
                format!("{} {} GFLOP/s", c.name, number(c.value.value())),
                (plot_right - theme.px(6.0), top),
                theme.text,
                HPos::Right,
                VPos::Top,
            )
        })
        .collect();
    let box_of = |(text, (x, y), _, h, v): &Label| -> Rect {
        // The text is drawn at whole pixels, so its box is taken there too.
        let (x, y, w) = (x.trunc(), y.trunc(), width_of(text));
        let left = if matches!(h, HPos::Right) { x - w } else { x };
        let top = if matches!(v, VPos::Bottom) {
            y - label_height
        } else {
            y
        };
        [left, top, left + w, top + label_height]
    };
    let peak_boxes: Vec<Rect> = peak_labels.iter().map(box_of).collect();
    let mut labels: Vec<Label> = Vec::new();
    // Bandwidths: the highest one's label above-left of its diagonal, where the chart is empty,
    // unless a peak's label is there (a narrow chart); the others' below-right of theirs,
    // pushed apart downward.
    let mut below: Vec<(String, (f64, f64))> = Vec::new();
    for c in &machine.bandwidths {
        let b = c.value.value();
        let start = axes.oi.0.max(axes.p.0 / b);
        let end = top_peak.map_or(axes.oi.1, |p| (p / b).min(axes.oi.1));
        if end > start {
            chart.draw_series(LineSeries::new(
                [(start, start * b), (end, end * b)],
                theme.accent.stroke_width(stroke),
            ))?;
        }
        let text = format!("{} {} GB/s", c.name, number(b));
        let pixel = |oi: f64| {
            let (x, y) = chart.backend_coord(&(oi, oi * b));
            (f64::from(x), f64::from(y))
        };
        if Some(b) == top_bw && machine.bandwidths.len() > 1 && end > start {
            // Right-anchored at the point of the line where the text just fits inside the plot.
            let (x0, y0) = pixel(start);
            let (x1, y1) = pixel(end);
            let x = plot_left + theme.px(4.0) + width_of(&text) + theme.px(4.0);
            if x > x0 && x < x1 {
                let y = y0 + (y1 - y0) * (x - x0) / (x1 - x0);
                let label = (
                    text.clone(),
                    (x - theme.px(4.0), y - theme.px(4.0)),
                    theme.accent,
                    HPos::Right,
                    VPos::Bottom,
                );
                if peak_boxes
                    .iter()
                    .all(|p| overlap(&box_of(&label), p) == 0.0)
                {
                    labels.push(label);
                    continue;
                }
            }
        }
        let (x, y) = pixel((start * 1.6).min(end));
        below.push((text, (x + theme.px(8.0), y + theme.px(2.0))));
    }
    let mut ys: Vec<f64> = below.iter().map(|l| l.1 .1).collect();
    spread(
        &mut ys,
        theme.px(15.0),
        plot_top + theme.px(2.0),
        plot_bottom - theme.px(16.0),
        false,
    );
    for ((text, (x, _)), y) in below.into_iter().zip(ys) {
        labels.push((text, (x, y), theme.accent, HPos::Left, VPos::Top));
    }
    for c in &machine.peaks {
        let p = c.value.value();
        let start = top_bw.map_or(axes.oi.0, |b| (p / b).max(axes.oi.0));
        chart.draw_series(LineSeries::new(
            [(start, p), (axes.oi.1, p)],
            theme.text.stroke_width(stroke),
        ))?;
    }
    labels.extend(peak_labels);
    // Each ceiling label's box, for the points' names to keep clear of.
    let boxes: Vec<Rect> = labels.iter().map(box_of).collect();
    for (text, (x, y), color, h, v) in labels {
        area.draw(&Text::new(
            text,
            (x as i32, y as i32),
            font(12.0, color).pos(Pos::new(h, v)),
        ))?;
    }

    // The points' names: each clear of the ceilings' labels, of the names before it and of
    // every other dot (charts::labels).
    let dots: Vec<(f64, f64)> = machine
        .points
        .iter()
        .map(|point| {
            let (x, y) = chart.backend_coord(&(point.oi.value(), point.p.value()));
            (f64::from(x), f64::from(y))
        })
        .collect();
    let sizes: Vec<(f64, f64)> = machine
        .points
        .iter()
        .map(|point| (width_of(&point.name), theme.px(12.0)))
        .collect();
    let names = place_names(
        &dots,
        &sizes,
        theme.px(7.0),
        theme.px(5.0),
        &boxes,
        [plot_left, plot_top, plot_right, plot_bottom],
    );
    for (point, name) in machine.points.iter().zip(names) {
        chart.draw_series(std::iter::once(Circle::new(
            (point.oi.value(), point.p.value()),
            theme.px(5.0),
            theme.warn.filled(),
        )))?;
        area.draw(&Text::new(
            point.name.clone(),
            (name[0] as i32, name[1] as i32),
            font(12.0, theme.warn).pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    if let Some((oi, p)) = cursor {
        let faint = theme.muted.stroke_width(theme.px_u32(1.0));
        chart.draw_series(LineSeries::new([(oi, axes.p.0), (oi, axes.p.1)], faint))?;
        chart.draw_series(LineSeries::new([(axes.oi.0, p), (axes.oi.1, p)], faint))?;
        chart.draw_series(std::iter::once(Circle::new(
            (oi, p),
            theme.px(7.0),
            theme.warn.stroke_width(theme.px_u32(2.0)),
        )))?;
    }
    area.present()
}
