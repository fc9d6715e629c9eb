//! Drawing functions rendered natively to SVG, with assertions on what was drawn.

use coalescing_lab::charts::{roofline, Theme};
use coalescing_lab::model::roofline::{parse_trail, Point};
use plotters::prelude::*;

fn render(bw: f64, trail: &[Point]) -> String {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (720, 440)).into_drawing_area();
        roofline::draw(&area, bw, trail, &Theme::LIGHT).expect("drawing succeeds");
    }
    svg
}

/// The text of every `<text>` element, in drawing order.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>')
                .and_then(|(_, rest)| rest.split_once("</text>"))
        })
        .map(|(text, _)| text.trim().to_string())
        .collect()
}

#[test]
fn the_chart_has_decade_labels_units_roofs_and_the_ridge() {
    let svg = render(80.0, &[]);
    let texts = texts(&svg);
    for label in ["0.01", "0.1", "1", "10", "100", "1000", "10000"] {
        assert!(
            texts.iter().filter(|t| *t == label).count() >= 2,
            "{label} labels both axes: {texts:?}"
        );
    }
    for expected in [
        "Operational intensity I (FLOP/byte)",
        "Attainable P (GFLOP/s)",
        "ridge 12.5 FLOP/byte",
        "compute roof 1000 GFLOP/s (synthetic)",
        "B = 80 GB/s",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "missing {expected:?} in {texts:?}"
        );
    }
}

#[test]
fn before_the_first_step_no_point_gives_the_answer_away() {
    let svg = render(80.0, &[]);
    let numbered = texts(&svg).into_iter().filter(|t| t == "1").count();
    let with_one = texts(&render(80.0, &parse_trail("2:80").unwrap()))
        .into_iter()
        .filter(|t| t == "1")
        .count();
    assert_eq!(with_one, numbered + 1, "a Step adds its numbered point");
    let circles = |svg: &str| svg.matches("<circle").count();
    assert_eq!(
        circles(&render(80.0, &parse_trail("2:80,1:80").unwrap())),
        circles(&svg) + 2
    );
}

#[test]
fn the_roof_is_one_polyline_through_the_ridge() {
    let svg = render(80.0, &[]);
    let roofs: Vec<&str> = svg
        .split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke=\"#1D4ED8\"") || p.contains("stroke=\"#1d4ed8\""))
        .collect();
    assert_eq!(roofs.len(), 1, "one accent roof line: {svg}");
    let points = roofs[0]
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let vertices: Vec<(f64, f64)> = points
        .split_whitespace()
        .map(|xy| {
            let (x, y) = xy.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert_eq!(vertices.len(), 3, "floor → ridge → right edge");
    let (start, ridge, end) = (vertices[0], vertices[1], vertices[2]);
    assert!(
        start.1 > ridge.1,
        "the diagonal rises (SVG y grows downwards)"
    );
    assert_eq!(ridge.1, end.1, "flat after the ridge");
    assert!(start.0 < ridge.0 && ridge.0 < end.0);
}

#[test]
fn earlier_bandwidths_keep_a_faint_roof() {
    let one_roof = render(80.0, &parse_trail("2:80").unwrap())
        .matches("<polyline")
        .count();
    let two_roofs = render(80.0, &parse_trail("2:40,2:80").unwrap())
        .matches("<polyline")
        .count();
    assert_eq!(two_roofs, one_roof + 1);
}

#[test]
fn a_narrow_chart_shortens_the_roof_label_so_it_clears_the_ridge() {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (400, 300)).into_drawing_area();
        roofline::draw(&area, 80.0, &[], &Theme::LIGHT).expect("drawing succeeds");
    }
    let texts = texts(&svg);
    assert!(
        texts.iter().any(|t| t == "1000 GFLOP/s (synthetic)"),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.starts_with("compute roof")));
}
