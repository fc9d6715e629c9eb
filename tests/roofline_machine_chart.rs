//! The machine mode's chart rendered natively to SVG: every ceiling drawn and labelled, labels
//! apart, points named, and a click mapped back to the data it lands on.

use coalescing_lab::charts::roofline_machine::{axes, data_at, draw, plot_rect};
use coalescing_lab::charts::Theme;
use coalescing_lab::model::roofline::MachineInputs;
use plotters::prelude::*;

const SIZE: (u32, u32) = (720, 440);

fn render(m: &MachineInputs) -> String {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&area, &m.check(), Some((1.0, 100.0)), &Theme::LIGHT).expect("drawing succeeds");
    }
    svg
}

/// Every `<text>` with its y position and anchor: (text, y, anchor).
fn texts(svg: &str) -> Vec<(String, f64, String)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let (attrs, rest) = t.split_once('>')?;
            let (text, _) = rest.split_once("</text>")?;
            let attr = |name: &str| {
                attrs
                    .split(&format!(" {name}=\""))
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .unwrap_or("")
                    .to_string()
            };
            Some((
                text.trim().to_string(),
                attr("y").parse().ok()?,
                attr("text-anchor"),
            ))
        })
        .collect()
}

#[test]
fn every_ceiling_and_point_is_labelled() {
    let mut m = MachineInputs::from_preset("A100");
    m.bw[1] = "L2:5000".into();
    m.points[0] = "saxpy:0.125:150".into();
    let all = texts(&render(&m));
    for label in [
        "DRAM 1555 GB/s",
        "L2 5000 GB/s",
        "FP64 9700 GFLOP/s",
        "FP32 19500 GFLOP/s",
        "Tensor 312000 GFLOP/s",
        "saxpy",
        "Operational intensity I (FLOP/byte)",
    ] {
        assert!(
            all.iter().any(|t| t.0 == label),
            "{label} missing in {all:?}"
        );
    }
}

#[test]
fn ceiling_labels_on_one_side_never_overlap() {
    // Close peaks (FP64 = FP32 on the MI250X) and close bandwidths would collide unspread.
    let mut m = MachineInputs::from_preset("MI250X");
    m.bw[1] = "Probe:3100".into();
    m.bw[2] = "L2:3300".into();
    let all = texts(&render(&m));
    for unit in ["GB/s", "GFLOP/s"] {
        let mut ys: Vec<f64> = all
            .iter()
            .filter(|t| t.0.ends_with(unit) && !t.0.starts_with('('))
            .map(|t| t.1)
            .collect();
        ys.sort_by(f64::total_cmp);
        assert!(ys.len() >= 3, "{unit}: {all:?}");
        for pair in ys.windows(2) {
            assert!(pair[1] - pair[0] >= 12.0, "{unit} labels overlap: {ys:?}");
        }
    }
}

#[test]
fn a_click_maps_to_the_data_the_chart_draws_there() {
    let m = MachineInputs::from_preset("V100").check();
    let axes = axes(&m);
    let (l, t, r, b) = plot_rect(SIZE, &Theme::LIGHT);
    // The plot's corners are the axes' ends.
    let low = data_at(&axes, SIZE, &Theme::LIGHT, (l, b)).unwrap();
    let high = data_at(&axes, SIZE, &Theme::LIGHT, (r, t)).unwrap();
    assert!((low.0 / axes.oi.0 - 1.0).abs() < 1e-9 && (low.1 / axes.p.0 - 1.0).abs() < 1e-9);
    assert!((high.0 / axes.oi.1 - 1.0).abs() < 1e-9 && (high.1 / axes.p.1 - 1.0).abs() < 1e-9);
    // And plotters puts the axes' ends there too: the decade labels sit at the rectangle.
    let svg = {
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            let mut chart = ChartBuilder::on(&area)
                .margin(14)
                .margin_right(24)
                .x_label_area_size(48)
                .y_label_area_size(72)
                .build_cartesian_2d(
                    (axes.oi.0..axes.oi.1).log_scale(),
                    (axes.p.0..axes.p.1).log_scale(),
                )
                .unwrap();
            let corner = chart.backend_coord(&(axes.oi.0, axes.p.0));
            assert!((f64::from(corner.0) - l).abs() <= 1.0, "{corner:?} vs {l}");
            assert!((f64::from(corner.1) - b).abs() <= 1.0, "{corner:?} vs {b}");
            chart.configure_mesh().draw().unwrap();
        }
        svg
    };
    assert!(svg.contains("<svg"));
    // The axes hold every ridge of the V100: 7800/900 up to 125000/900.
    assert!(axes.oi.0 < 7800.0 / 900.0 / 10.0 && axes.oi.1 > 125_000.0 / 900.0 * 5.0);
}

#[test]
fn names_from_a_link_are_text_in_the_svg_never_markup() {
    // Regression guard: ceiling and point names come from the URL.
    let mut m = MachineInputs::from_preset("V100");
    m.points[0] = "<b>&x</b>:1:10".into();
    m.bw[1] = "<script>:5000".into();
    let svg = render(&m);
    assert!(!svg.contains("<b>") && !svg.contains("<script>"), "{svg}");
    assert!(
        svg.contains("&lt;b&gt;") || svg.contains("&#60;b&#62;"),
        "the name is still shown"
    );
}

/// Every `<text>`'s box, estimated as the chart estimates it (6.6 px a character, 14 px
/// tall): (text, [left, top, right, bottom]).
fn boxes(svg: &str) -> Vec<(String, [f64; 4])> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let (attrs, rest) = t.split_once('>')?;
            let (text, _) = rest.split_once("</text>")?;
            let attr = |name: &str| {
                attrs
                    .split(&format!(" {name}=\""))
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .unwrap_or("")
                    .to_string()
            };
            let (x, y): (f64, f64) = (attr("x").parse().ok()?, attr("y").parse().ok()?);
            let text = text.trim().to_string();
            let w = 6.6 * text.chars().count() as f64;
            // Ceilings' labels are spaced 14 px tall, points' names 12.
            let h = if text.ends_with("/s") { 14.0 } else { 12.0 };
            let left = match attr("text-anchor").as_str() {
                "end" => x - w,
                "middle" => x - w / 2.0,
                _ => x,
            };
            // plotters' SVG: a top-anchored text has dy 0.76em, a bottom-anchored one -0.5ex,
            // a centred one 0.5ex.
            let top = match attr("dy").as_str() {
                "0.76em" => y,
                "0.5ex" => y - h / 2.0,
                _ => y - h,
            };
            Some((text, [left, top, left + w, top + h]))
        })
        .collect()
}

/// Review finding L12: at 390 px the FP64 label sat across the FP32 line, and `gemm` over the
/// FP32 label. Now a peak's label keeps to a band beside its own line that no other peak line
/// crosses, and a point's name takes the first corner clear of every ceiling's label.
#[test]
fn at_390_px_labels_keep_off_other_lines_and_each_other() {
    let mut m = MachineInputs::from_preset("A100");
    m.bw[1] = "L2:5000".into();
    m.points[0] = "saxpy:0.125:150".into();
    m.points[1] = "gemm:50:15000:DRAM:FP32".into();
    let size = (358, 260);
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&area, &m.check(), None, &Theme::LIGHT).expect("drawing succeeds");
    }
    let axes = axes(&m.check());
    let (_, t, _, b) = plot_rect(size, &Theme::LIGHT);
    // A peak's line, in pixel rows (the chart's log scale).
    let row = |p: f64| t + (b - t) * (axes.p.1.ln() - p.ln()) / (axes.p.1.ln() - axes.p.0.ln());
    let all = boxes(&svg);
    let box_of = |label: &str| {
        all.iter()
            .find(|t| t.0 == label)
            .map(|t| t.1)
            .unwrap_or_else(|| panic!("{label} in {all:?}"))
    };
    let peaks = [
        ("Tensor 312000 GFLOP/s", 312000.0),
        ("FP32 19500 GFLOP/s", 19500.0),
        ("FP64 9700 GFLOP/s", 9700.0),
    ];
    for (label, own) in peaks {
        let [_, top, _, bottom] = box_of(label);
        for (_, other) in peaks.iter().filter(|p| p.1 != own) {
            let line = row(*other);
            assert!(
                line < top || line > bottom,
                "{label} ({top}–{bottom}) crosses the line of {other} at {line}"
            );
        }
    }
    // No two labels overlap: ceilings' and points' names alike.
    let named: Vec<&(String, [f64; 4])> = all
        .iter()
        .filter(|(t, _)| t.ends_with("/s") || t == "gemm" || t == "saxpy")
        .collect();
    assert_eq!(named.len(), 7, "{named:?}");
    for (i, (a, p)) in named.iter().enumerate() {
        for (c, q) in named.iter().skip(i + 1) {
            let apart = p[2] <= q[0] || q[2] <= p[0] || p[3] <= q[1] || q[3] <= p[1];
            assert!(apart, "{a} {p:?} overlaps {c} {q:?}");
        }
    }
}

/// Review finding L12, what was left of it: a point's name took no account of the other
/// points' names, and where every corner of its dot met a ceiling's label it was drawn over
/// the least-covered one ("gemm" over "FP32 19500 GFLOP/s" and "FP64 9700 GFLOP/s" at
/// 390 px); on a narrow chart the highest bandwidth's label sat across a peak's. Now no
/// ceiling label or point name covers another, on every preset, at phone and desktop widths.
#[test]
fn no_ceiling_label_or_point_name_covers_another_at_any_width() {
    let point_sets: [&[&str]; 5] = [
        &["saxpy:0.125:150", "gemm:50:15000:DRAM:FP32"],
        &["gemm:50:9000", "dgemm:40:9500"],
        &["a:1:1000", "b:1.2:1100"],
        &["stencil:0.5:700", "gemm:50:15000", "fft:5:5000"],
        &[
            "a1:1:1000",
            "a2:1.1:1050",
            "a3:1.2:1100",
            "a4:1.3:1150",
            "a5:0.9:950",
        ],
    ];
    // Three peaks and one or two bandwidths on every preset. 288 and 358 px: the chart on a
    // 320 px and a 390 px wide phone; 720 px: a desktop.
    for size in [(288, 260), (358, 260), (720, 446)] {
        for preset in ["V100", "A100", "H100", "RTX4090", "MI250X"] {
            for l2 in [None, Some("L2:5000")] {
                for points in point_sets {
                    let mut m = MachineInputs::from_preset(preset);
                    if let Some(l2) = l2 {
                        m.bw[1] = l2.into();
                    }
                    for (slot, point) in m.points.iter_mut().zip(points) {
                        *slot = (*point).into();
                    }
                    let mut svg = String::new();
                    {
                        let area = SVGBackend::with_string(&mut svg, size).into_drawing_area();
                        draw(&area, &m.check(), None, &Theme::LIGHT).expect("drawing succeeds");
                    }
                    let names: Vec<&str> =
                        points.iter().filter_map(|p| p.split(':').next()).collect();
                    let labels: Vec<(String, [f64; 4])> = boxes(&svg)
                        .into_iter()
                        .filter(|(t, _)| {
                            (t.ends_with(" GB/s") || t.ends_with(" GFLOP/s"))
                                || names.contains(&t.as_str())
                        })
                        .collect();
                    let case = format!("{preset} {l2:?} {points:?} at {size:?}");
                    assert_eq!(
                        labels.len(),
                        names.len() + 4 + usize::from(l2.is_some()),
                        "{case}: {labels:?}"
                    );
                    for (i, (a, p)) in labels.iter().enumerate() {
                        for (c, q) in labels.iter().skip(i + 1) {
                            let apart =
                                p[2] <= q[0] || q[2] <= p[0] || p[3] <= q[1] || q[3] <= p[1];
                            assert!(apart, "{case}: {a} {p:?} overlaps {c} {q:?}");
                        }
                    }
                }
            }
        }
    }
}
