//! Drawing functions rendered natively to SVG, with assertions on what was drawn.
//!
//! Why one file of ~700 lines: one module per chart (roofline, sector map, ramp, probe, kernel,
//! bank map) sharing the SVG reading helpers at the top.

use coalescing_lab::charts::{roofline, Theme};
use coalescing_lab::model::roofline::{parse_trail, Point};
use plotters::prelude::*;

fn render(bw: f64, trail: &[Point]) -> String {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (720, 440)).into_drawing_area();
        roofline::draw(&area, bw, trail, &[], &Theme::LIGHT).expect("drawing succeeds");
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
        roofline::draw(&area, 80.0, &[], &[], &Theme::LIGHT).expect("drawing succeeds");
    }
    let texts = texts(&svg);
    assert!(
        texts.iter().any(|t| t == "1000 GFLOP/s (synthetic)"),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.starts_with("compute roof")));
}

// Regression: a 1000-point trail piled its labels into an unreadable smear.
#[test]
fn only_the_latest_points_are_numbered() {
    let entries: Vec<String> = (1..=40).map(|b| format!("1:{}", b * 10)).collect();
    let trail = parse_trail(&entries.join(",")).unwrap();
    let texts = texts(&render(80.0, &trail));
    let numbered: Vec<usize> = (1..=40)
        .filter(|n| texts.iter().any(|t| *t == n.to_string() && *n > 10))
        .collect();
    assert_eq!(numbered, (33..=40).collect::<Vec<_>>());
    assert_eq!(roofline::LABELLED_POINTS, 8);
}

#[test]
fn the_previous_run_is_drawn_as_labelled_rings_behind_the_current_one() {
    let previous = parse_trail("2:80:160,1:80").unwrap();
    let mut with_previous = String::new();
    {
        let area = SVGBackend::with_string(&mut with_previous, (720, 440)).into_drawing_area();
        roofline::draw(&area, 80.0, &[], &previous, &Theme::LIGHT).unwrap();
    }
    let without = render(80.0, &[]);
    assert_eq!(
        with_previous.matches("<circle").count(),
        without.matches("<circle").count() + 2
    );
    assert!(texts(&with_previous).iter().any(|t| t == "previous run"));
    assert!(!texts(&without).iter().any(|t| t == "previous run"));
}

// Regression: at 360 px the ridge's label ran past the plot's edge.
#[test]
fn at_360_px_the_ridge_label_is_short_and_turns_toward_the_room() {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (360, 300)).into_drawing_area();
        roofline::draw(&area, 80.0, &[], &[], &Theme::LIGHT).unwrap();
    }
    let ridge = svg
        .split("<text")
        .find(|t| t.contains(">ridge 12.5<") || t.contains(">\nridge 12.5"))
        .or_else(|| svg.split("<text").find(|t| t.contains("ridge 12.5")))
        .expect("a ridge label");
    assert!(ridge.contains("text-anchor=\"end\""), "{ridge}");
    assert!(!texts(&svg)
        .iter()
        .any(|t| t.contains("FLOP/byte") && t.starts_with("ridge")));
}

mod sector_map {
    use super::texts;
    use coalescing_lab::charts::{sector_map, Theme};
    use coalescing_lab::model::inputs::Inputs;
    use coalescing_lab::model::sector_map::layout;
    use coalescing_lab::model::sectors::analyze;
    use plotters::prelude::*;

    fn render(inputs: Inputs, width: u32) -> String {
        let map = layout(&analyze(&inputs).unwrap());
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (width, 240)).into_drawing_area();
            sector_map::draw(&area, &map, None, &Theme::LIGHT).expect("drawing succeeds");
        }
        svg
    }

    /// Rectangles filled with `color` (SVG writes colours in upper-case hex).
    fn boxes(svg: &str, color: &str) -> usize {
        svg.split("<rect")
            .skip(1)
            .filter(|r| r.contains(&format!("fill=\"{color}\"")))
            .count()
    }

    /// Each `<text>`'s content and its y, in drawing order.
    fn texts_at(svg: &str) -> Vec<(String, f64)> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let y = t.split("y=\"").nth(1)?.split('"').next()?.parse().ok()?;
                let (_, rest) = t.split_once('>')?;
                let (text, _) = rest.split_once("</text>")?;
                Some((text.trim().to_string(), y))
            })
            .collect()
    }

    // Regression: at 360 px the legend overprinted the sector indices and its last line was
    // clipped (`?idx=32*t&active=t!=3`, `?warp=64&idx=t*1024`).
    #[test]
    fn at_360_px_the_legend_sits_below_the_indices_and_inside_the_picture() {
        for inputs in [
            Inputs {
                idx: "32*t".into(),
                active: "t!=3".into(),
                ..Inputs::default()
            },
            Inputs {
                warp: "64".into(),
                idx: "t*1024".into(),
                ..Inputs::default()
            },
        ] {
            let map = layout(&analyze(&inputs).unwrap());
            let mut svg = String::new();
            {
                let area = SVGBackend::with_string(&mut svg, (360, 210)).into_drawing_area();
                sector_map::draw(&area, &map, None, &Theme::LIGHT).unwrap();
            }
            let at = texts_at(&svg);
            let legend_top = at
                .iter()
                .filter(|(t, _)| t == "requested bytes")
                .map(|(_, y)| *y)
                .next()
                .expect("a legend");
            let legend_bottom = at
                .iter()
                .filter(|(t, _)| {
                    t.starts_with("inactive")
                        || t.starts_with("untouched")
                        || t.starts_with("cache-line")
                })
                .map(|(_, y)| *y)
                .fold(legend_top, f64::max);
            assert!(
                legend_bottom + 12.0 <= 210.0,
                "last legend line clipped at {legend_bottom}"
            );
            // Sector indices are the numbers drawn under the bar, above the legend.
            let lowest_index = at
                .iter()
                .filter(|(t, y)| t.parse::<u64>().is_ok() && *y > 40.0)
                .map(|(_, y)| *y)
                .fold(0.0, f64::max);
            assert!(
                lowest_index + 12.0 <= legend_top,
                "indices at {lowest_index} run into the legend at {legend_top}"
            );
        }
    }

    #[test]
    fn misaligned_start_shows_five_sectors_with_their_used_bytes_and_every_lane() {
        let svg = render(Inputs { base: "8".into(), ..Inputs::default() }, 720);
        // Five sector boxes (grid colour), and the requested bytes of each (accent colour).
        assert_eq!(
            boxes(&svg, "#D5DAE1"),
            5 + 1,
            "five sectors and the legend swatch"
        );
        assert_eq!(
            boxes(&svg, "#1D4ED8"),
            5 + 1,
            "one requested range per sector and the swatch"
        );
        let texts = texts(&svg);
        for lane in 0..32 {
            assert!(
                texts.contains(&lane.to_string()),
                "lane {lane} is labelled: {texts:?}"
            );
        }
        for legend in [
            "requested bytes",
            "fetched, unused",
            "cache-line boundary (128 B lines)",
        ] {
            assert!(texts.iter().any(|t| t == legend), "{legend}");
        }
        // Lines start at sectors 0 and 4 (bytes 0 and 128): two boundary marks and the legend's.
        assert_eq!(svg.matches("stroke-width=\"2\"").count(), 3);
    }

    #[test]
    fn a_huge_stride_is_cut_with_breaks_that_say_how_much_was_skipped() {
        let svg = render(
            Inputs {
                warp: "8".into(),
                idx: "1024*t".into(),
                ..Inputs::default()
            },
            720,
        );
        let texts = texts(&svg);
        assert_eq!(
            texts.iter().filter(|t| *t == "+4064 B").count(),
            7,
            "one break between each pair"
        );
        assert!(
            texts.iter().any(|t| t == "untouched bytes cut out"),
            "{texts:?}"
        );
        assert_eq!(boxes(&svg, "#D5DAE1"), 8 + 1);
    }

    #[test]
    fn sixty_four_scattered_sectors_still_fit_the_width() {
        let svg = render(
            Inputs {
                warp: "64".into(),
                idx: "1024*t".into(),
                ..Inputs::default()
            },
            720,
        );
        for rect in svg.split("<rect").skip(1) {
            let attr = |name: &str| -> f64 {
                rect.split(&format!(" {name}=\""))
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            assert!(
                attr("x") + attr("width") <= 720.0,
                "a box runs off the right edge: {rect}"
            );
        }
    }

    #[test]
    fn a_highlighted_lane_is_ringed_and_named() {
        let map = layout(&analyze(&Inputs { base: "8".into(), ..Inputs::default() }).unwrap());
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (720, 240)).into_drawing_area();
            sector_map::draw(&area, &map, Some(7), &Theme::LIGHT).expect("drawing succeeds");
        }
        assert!(texts(&svg).iter().any(|t| t == "lane 7"));
        assert_eq!(
            svg.matches("<circle").count(),
            33,
            "32 lane dots and the ring"
        );
    }

    #[test]
    fn inactive_lanes_are_counted_and_an_idle_warp_says_so() {
        let svg = render(
            Inputs {
                active: "t % 2".into(),
                ..Inputs::default()
            },
            720,
        );
        assert!(
            texts(&svg)
                .iter()
                .any(|t| t == "inactive: lanes 0, 2, 4, 6, …"),
            "{:?}",
            texts(&svg)
        );
        let idle = render(Inputs { active: "0".into(), ..Inputs::default() }, 720);
        assert!(texts(&idle).iter().any(|t| t.starts_with("No active lane")));
    }
}

mod ramp {
    use super::texts;
    use coalescing_lab::charts::{ramp, Theme};
    use coalescing_lab::model::inputs::Inputs;
    use coalescing_lab::model::ramp::regime;
    use coalescing_lab::model::sectors::analyze;
    use plotters::prelude::*;

    fn render(inputs: Inputs) -> String {
        let analysis = analyze(&inputs).unwrap();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (720, 300)).into_drawing_area();
            ramp::draw(&area, &analysis, regime(&analysis), &Theme::LIGHT)
                .expect("drawing succeeds");
        }
        svg
    }

    #[test]
    fn the_ramp_has_a_dot_per_active_lane_axes_with_units_and_the_regime_named() {
        let svg = render(Inputs {
            idx: "2*t".into(),
            active: "t < 20".into(),
            ..Inputs::default()
        });
        assert_eq!(svg.matches("<circle").count(), 20);
        let texts = texts(&svg);
        for expected in ["Lane t", "Address A(t) (bytes)", "partial waste"] {
            assert!(
                texts.iter().any(|t| t == expected),
                "{expected} in {texts:?}"
            );
        }
    }

    #[test]
    fn far_addresses_are_labelled_in_hex_and_mixed_patterns_say_so() {
        let svg = render(Inputs {
            base: "0x7f0000000000".into(),
            idx: "t<16 ? t : 1000+64*(t-16)".into(),
            ..Inputs::default()
        });
        let texts = texts(&svg);
        assert!(texts.iter().any(|t| t.starts_with("0x7f")), "{texts:?}");
        assert!(texts.iter().any(|t| t == "mixed"));
    }
}

mod probe_chart {
    use super::texts;
    use coalescing_lab::charts::{probe, Theme};
    use coalescing_lab::model::probe::*;
    use plotters::prelude::*;

    fn report(medians: &[(u32, f64)]) -> Report {
        let strides = medians.iter().map(|m| m.0).collect();
        let plan = plan(&Config { strides, n: Some(1 << 16) }, &Limits::DEFAULT).unwrap();
        let measurements = medians
            .iter()
            .map(|&(stride, ms)| Measurement {
                stride,
                checksum: 1,
                expected: 1,
                reps: 100,
                samples_ms: vec![ms; 7],
            })
            .collect();
        Report::new(
            plan,
            Timer::Timestamps,
            AdapterInfo::default(),
            Limits::DEFAULT,
            String::new(),
            measurements,
        )
    }

    fn render(report: &Report) -> String {
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (720, 440)).into_drawing_area();
            probe::draw(&area, report, &Theme::LIGHT).expect("drawing succeeds");
        }
        svg
    }

    #[test]
    fn measured_points_and_the_scaled_model_are_drawn_with_labelled_axes() {
        let svg = render(&report(&[(4, 0.01), (32, 0.05), (64, 0.06), (128, 0.07)]));
        let texts = texts(&svg);
        for label in [
            "4 B",
            "32 B",
            "128 B",
            "Useful GB/s",
            "Lane stride (bytes, log scale)",
            "measured",
            "sector model, scaled from the first stride",
        ] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        // One filled circle per measured stride plus the two legend dots.
        assert_eq!(svg.matches("<circle").count(), 4 + 2);
        // The model's square markers: one per stride.
        let squares = svg.matches("<rect").count();
        assert!(squares >= 4, "{squares} rects");
        // The model at 32 B is an eighth of the contiguous measurement: 26.2 GB/s → 3.28.
        let description = chart_description(&report(&[(4, 0.01), (32, 0.05)]));
        assert!(
            description.contains("4 B: 26.2 GB/s (model 26.2)"),
            "{description}"
        );
        assert!(
            description.contains("32 B: 5.24 GB/s (model 3.28)"),
            "{description}"
        );
    }

    #[test]
    fn a_report_without_times_still_draws_axes() {
        let mut r = report(&[(4, 0.01)]);
        r.rows[0].useful_gbps = None;
        let svg = render(&r);
        assert!(texts(&svg).iter().any(|t| t == "Useful GB/s"));
        assert_eq!(svg.matches("<circle").count(), 2, "only the legend's dots");
        assert_eq!(
            chart_description(&r),
            "No stride produced a time, so there is nothing to plot."
        );
    }
}

mod kernel {
    use super::texts;
    use coalescing_lab::charts::{kernel, Theme};
    use coalescing_lab::model::kernel::view::{heat_description, KERNEL_HEAT_OVER};
    use coalescing_lab::model::kernel::{
        analyze_kernel, presets::KernelPreset, KernelAnalysis, Machine, Measure, HEAT_BANDS,
    };
    use plotters::prelude::*;

    fn analysis(id: &str) -> KernelAnalysis {
        let kernel = KernelPreset::by_id(id)
            .unwrap()
            .inputs()
            .kernel(Machine::default())
            .unwrap();
        analyze_kernel(&kernel).unwrap()
    }

    fn svg(draw: impl Fn(&DrawingArea<SVGBackend, plotters::coord::Shift>)) -> String {
        let mut text = String::new();
        {
            let area = SVGBackend::with_string(&mut text, (720, 400)).into_drawing_area();
            draw(&area);
        }
        text
    }

    #[test]
    fn the_heat_map_draws_one_cell_per_warp_and_block_and_names_its_scale() {
        // 16×16 blocks: 8 warps in 1 block, 4 sectors each.
        let a = analysis("block16x16");
        let drawn =
            svg(|area| kernel::draw_heat(area, &a.heat, Measure::Sectors, &Theme::LIGHT).unwrap());
        let texts = texts(&drawn);
        assert!(
            texts
                .iter()
                .any(|t| t == "warp in block; strongest: 4 sectors per warp"),
            "{texts:?}"
        );
        // Every cell carries the same sectors, so every cell is drawn in the darkest shade.
        let cells = drawn.matches("<rect").count();
        assert!(cells >= 8, "8 warp cells drawn: {cells}");
    }

    #[test]
    fn big_grids_are_binned_and_say_how_many_blocks_a_row_holds() {
        // Ex8a: 32768 blocks of one warp; the heat map keeps 65536 cells, drawn in 96 bands.
        let a = analysis("ex8a");
        assert_eq!((a.heat.blocks_per_row, a.heat.rows), (1, 32768));
        let drawn =
            svg(|area| kernel::draw_heat(area, &a.heat, Measure::Sectors, &Theme::LIGHT).unwrap());
        let texts = texts(&drawn);
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("blocks, 342 per row (mean)")),
            "{texts:?}"
        );
    }

    #[test]
    fn m3_a_short_last_band_is_not_drawn_paler_and_the_text_agrees_with_the_picture() {
        // The tiled transpose: 16384 blocks, every warp 4 sectors a request in both
        // statements. Summed bands drew the last band (22 rows against 86) pale.
        let a = analysis("transpose-tiled");
        let bands = a.heat.bands(HEAT_BANDS, Measure::Sectors);
        assert!(bands.bands > 1);
        assert_eq!(bands.low, bands.high, "every warp moves the same sectors");
        let drawn =
            svg(|area| kernel::draw_heat(area, &a.heat, Measure::Sectors, &Theme::LIGHT).unwrap());
        let texts = texts(&drawn);
        let high = coalescing_lab::model::format::number(bands.high);
        let caption = format!("warp in block; strongest: {high} sectors per warp");
        assert!(texts.contains(&caption), "{texts:?}");
        let words = heat_description(&a.heat, Measure::Sectors, KERNEL_HEAT_OVER);
        assert!(
            words.contains(&format!(
                "{} rows of {} blocks",
                bands.bands, bands.blocks_per_band
            )),
            "{words}"
        );
        assert!(
            words.contains(&format!("from {high} to {high} sectors per warp")),
            "{words}"
        );
        assert!(
            texts.iter().any(
                |t| t.starts_with(&format!("blocks, {} per row (mean)", bands.blocks_per_band))
            ),
            "{texts:?}"
        );
    }

    /// Each `<text>`'s box, estimated from its anchor, its size and 0.6 em a character:
    /// (content, left, top, right, bottom).
    fn text_boxes(svg: &str) -> Vec<(String, f64, f64, f64, f64)> {
        let attr = |t: &str, name: &str| -> Option<String> {
            Some(
                t.split(&format!(" {name}=\""))
                    .nth(1)?
                    .split('"')
                    .next()?
                    .to_string(),
            )
        };
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let (head, rest) = t.split_once('>')?;
                let text = rest.split_once("</text>")?.0.trim().to_string();
                let x: f64 = attr(head, "x")?.parse().ok()?;
                let y: f64 = attr(head, "y")?.parse().ok()?;
                let size: f64 = attr(head, "font-size")?.parse().ok()?;
                let width = 0.6 * size * text.chars().count() as f64;
                let (from, to) = match attr(head, "text-anchor").as_deref() {
                    Some("end") => (-width, 0.0),
                    Some("middle") => (-width / 2.0, width / 2.0),
                    _ => (0.0, width),
                };
                // The baseline's shift (`dy`, in em or ex), and glyphs from 0.8 em above it to
                // 0.2 em below.
                let dy = attr(head, "dy").map_or(0.0, |d| {
                    let (number, unit) = d.split_at(d.len().saturating_sub(2));
                    let n: f64 = number.parse().unwrap_or(0.0);
                    if unit == "ex" {
                        n * size / 2.0
                    } else {
                        n * size
                    }
                });
                let (above, below) = (dy - 0.8 * size, dy + 0.2 * size);
                Some(if head.contains("rotate(270") {
                    // Turned a quarter: its length runs up the picture, its height across.
                    (text, x + above, y + from, x + below, y + to)
                } else {
                    (text, x + from, y + above, x + to, y + below)
                })
            })
            .collect()
    }

    // L13: on a phone the heat map's y-axis caption was cut off on the left. At a phone's
    // width and a desktop's, every caption, tick and axis label stays inside the picture.
    #[test]
    fn l13_at_phone_width_every_label_of_the_heat_map_is_inside_the_picture() {
        for id in ["transpose-tiled", "ex8a", "block16x16"] {
            let a = analysis(id);
            for (width, height) in [(300, 260), (358, 300), (720, 400)] {
                for measure in [Measure::Sectors, Measure::Excess, Measure::Conflicts] {
                    let mut drawn = String::new();
                    {
                        let area = SVGBackend::with_string(&mut drawn, (width, height))
                            .into_drawing_area();
                        kernel::draw_heat(&area, &a.heat, measure, &Theme::LIGHT).unwrap();
                    }
                    let boxes = text_boxes(&drawn);
                    assert!(boxes.len() > 3, "{id} at {width}: {boxes:?}");
                    for (text, left, top, right, bottom) in boxes {
                        assert!(
                            left >= 0.0
                                && top >= 0.0
                                && right <= f64::from(width)
                                && bottom <= f64::from(height),
                            "{id} at {width}×{height}, {measure:?}: '{text}' spans \
                             {left:.0}..{right:.0} × {top:.0}..{bottom:.0}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn m5_the_tiled_transpose_ranks_by_its_bank_conflicts() {
        let a = analysis("transpose-tiled");
        assert_eq!(a.default_measure(), Measure::Conflicts);
        let worst = a.worst_by(Measure::Conflicts);
        assert_eq!(worst.len(), 10);
        // The tile read: 32 wavefronts where 1 would do.
        assert!(
            worst
                .iter()
                .all(|w| w.wavefronts.map(|f| f.conflicts()) == Some(31)),
            "{worst:?}"
        );
        assert!(a.heat.has(Measure::Conflicts));
        let words = heat_description(&a.heat, Measure::Conflicts, KERNEL_HEAT_OVER);
        assert!(
            words.starts_with("Heat map of bank conflicts per warp"),
            "{words}"
        );
        // The naive transpose has none, and ranks by sectors; its excess is the write's 28.
        let naive = analysis("transpose-naive");
        assert_eq!(naive.default_measure(), Measure::Sectors);
        assert!(naive
            .worst_by(Measure::Excess)
            .iter()
            .all(|w| w.excess_sectors() == 28));
        assert!(naive.worst_by(Measure::Conflicts).is_empty());
    }

    #[test]
    fn the_bars_give_each_statement_its_request_level_unique_and_dram_bytes() {
        let a = analysis("transpose-naive");
        let drawn = svg(|area| kernel::draw_bars(area, &a, &Theme::LIGHT).unwrap());
        let texts = texts(&drawn);
        for label in ["in", "out", "request level", "unique", "DRAM", "MiB"] {
            assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
        }
        // The write's request-level bar (512 MiB) is 8× the read's: the axis, in MiB as the
        // sentences are (hostile pass L9), runs past 400.
        assert!(texts.iter().any(|t| t == "400"), "{texts:?}");
    }
}

/// The CUDA panel's heat map: the kernel view's chart function and words over the CUDA run's
/// own heat map (issue #27: one chart, not a copy per panel).
mod cuda_heat {
    use super::texts;
    use coalescing_lab::charts::{kernel, Theme};
    use coalescing_lab::model::cuda::presets::cuda_preset;
    use coalescing_lab::model::cuda::run::{analyse, CudaAnalysis};
    use coalescing_lab::model::cuda_view::{default_measure, heat_words};
    use coalescing_lab::model::warp::{Measure, HEAT_BANDS};
    use coalescing_lab::model::Machine;
    use plotters::prelude::*;

    fn run(id: &str, launch: Option<&str>) -> CudaAnalysis {
        let p = cuda_preset(id).unwrap();
        analyse(
            p.source,
            launch.unwrap_or(p.launch),
            Machine::default(),
            6 << 20,
            700,
        )
        .unwrap()
    }

    fn svg(a: &CudaAnalysis, measure: Measure) -> String {
        let mut text = String::new();
        {
            let area = SVGBackend::with_string(&mut text, (720, 400)).into_drawing_area();
            kernel::draw_heat(&area, &a.heat, measure, &Theme::LIGHT).unwrap();
        }
        text
    }

    #[test]
    fn the_tiled_transpose_s_conflicts_are_drawn_per_warp_and_said_in_words() {
        let a = run("transpose-tiled", None);
        assert_eq!(default_measure(&a), Measure::Conflicts);
        let bands = a.heat.bands(HEAT_BANDS, Measure::Conflicts);
        // 1024 blocks of 8 warps: 94 bands of 11 blocks; every warp has 4 passes of 31.
        assert_eq!(
            (bands.warps, bands.blocks_per_band, bands.bands),
            (8, 11, 94)
        );
        assert_eq!((bands.low, bands.high), (124.0, 124.0));
        let drawn = svg(&a, Measure::Conflicts);
        let texts = texts(&drawn);
        assert!(
            texts.contains(&"warp in block; strongest: 124 bank conflicts per warp".to_string()),
            "{texts:?}"
        );
        assert!(
            texts.iter().any(|t| t == "blocks, 11 per row (mean)"),
            "{texts:?}"
        );
        assert!(
            drawn.matches("<rect").count() >= 8 * 94,
            "a cell per warp and band"
        );
        assert_eq!(
            heat_words(&a, Measure::Conflicts),
            "Heat map of bank conflicts per warp: 94 rows of 11 blocks, 8 warps per block; \
             from 124 to 124 bank conflicts per warp (summed over the warp's accesses and \
             their loop passes, the mean over a row's blocks)."
        );
    }

    #[test]
    fn on_a_phone_the_caption_is_short_enough_to_fit() {
        let a = run("transpose-tiled", None);
        let mut text = String::new();
        {
            let area = SVGBackend::with_string(&mut text, (340, 300)).into_drawing_area();
            kernel::draw_heat(&area, &a.heat, Measure::Conflicts, &Theme::LIGHT).unwrap();
        }
        let short = texts(&text);
        assert!(
            short.contains(&"warp; most: 124 bank conflicts".to_string()),
            "{short:?}"
        );
        // A phone's canvas at 2×: 800 backend pixels are 400 CSS pixels, still narrow.
        let hi_dpi = Theme { scale: 2.0, ..Theme::LIGHT };
        let mut phone = String::new();
        {
            let area = SVGBackend::with_string(&mut phone, (800, 600)).into_drawing_area();
            kernel::draw_heat(&area, &a.heat, Measure::Conflicts, &hi_dpi).unwrap();
        }
        assert!(texts(&phone).contains(&"warp; most: 124 bank conflicts".to_string()));
    }

    #[test]
    fn a_partial_last_warp_is_drawn_paler_than_the_full_ones() {
        // saxpy over 1000 floats in 4 blocks of 256: the last block's last warp has 8 lanes.
        let a = run("bounds-partial", None);
        let bands = a.heat.bands(HEAT_BANDS, Measure::Sectors);
        assert_eq!((bands.bands, bands.warps), (4, 8));
        let last = bands.mean[(3 * 8 + 7) as usize];
        assert!(last < bands.high, "{:?}", bands.mean);
        let words = heat_words(&a, Measure::Sectors);
        assert!(
            words
                .starts_with("Heat map of sectors per warp: 4 rows of 1 block, 8 warps per block;"),
            "{words}"
        );
        // Another measure, other words and another scale.
        let texts = texts(&svg(&a, Measure::Excess));
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("warp in block; strongest: ")
                    && t.ends_with(" excess sectors per warp")),
            "{texts:?}"
        );
    }
}

mod bank_map {
    use super::texts;
    use coalescing_lab::charts::{bank_map, Theme};
    use coalescing_lab::model::bank_map::layout;
    use coalescing_lab::model::inputs::Inputs;
    use coalescing_lab::model::sectors::analyze;
    use plotters::prelude::*;

    fn render(idx: &str, elem: &str, width: u32) -> String {
        let inputs = Inputs {
            space: "shared".into(),
            idx: idx.into(),
            elem: elem.into(),
            ..Inputs::default()
        };
        let map = layout(&analyze(&inputs).unwrap()).unwrap();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (width, 420)).into_drawing_area();
            bank_map::draw(&area, &map, Some(3), &Theme::LIGHT).expect("drawing succeeds");
        }
        svg
    }

    /// Filled rectangles of `color` (SVG writes colours in upper-case hex).
    fn cells(svg: &str, color: &str) -> usize {
        svg.split("<rect")
            .skip(1)
            .filter(|r| r.contains(&format!("fill=\"{color}\"")))
            .count()
    }

    #[test]
    fn the_column_of_a_tile_is_32_conflicted_cells_in_bank_0_named_busiest() {
        let svg = render("32*t", "4", 720);
        // warn #8A4B00: 32 conflicted words, plus the legend's swatch.
        assert_eq!(cells(&svg, "#8A4B00"), 33);
        assert_eq!(
            cells(&svg, "#1D4ED8"),
            1,
            "only the legend's free-bank swatch"
        );
        let texts = texts(&svg);
        assert!(
            texts
                .iter()
                .any(|t| t == "busiest: bank 0, 32 words (32-way)"),
            "{texts:?}"
        );
        // Rows are labelled by byte offset, every other one when 32 rows share 420 px.
        assert!(texts.iter().any(|t| t == "+3840"), "{texts:?}");
        assert!(!texts.iter().any(|t| t == "+3968"), "{texts:?}");
    }

    #[test]
    fn the_padded_column_is_32_free_cells_one_per_bank_with_lane_labels() {
        let svg = render("33*t", "4", 720);
        assert_eq!(cells(&svg, "#1D4ED8"), 33);
        assert_eq!(cells(&svg, "#8A4B00"), 1, "only the legend's swatch");
        let texts = texts(&svg);
        assert!(!texts.iter().any(|t| t.starts_with("busiest")), "{texts:?}");
        // Lane 31 sits in bank 31 of row 7 (word 1023) and is labelled in its cell.
        assert!(texts.iter().any(|t| t == "31"), "{texts:?}");
    }

    /// Review finding L3, its other side: the canvas is no taller than the grid's shape (280 px
    /// at least), and a map of 32 separated rows (`idx=t*1000`) kept its 6 px gaps under 3 px
    /// rows, so its last rows ran past the canvas's bottom, over its own legend. Now the gaps
    /// give way first: every row ends above the legend, and everything drawn inside the canvas.
    #[test]
    fn a_map_of_many_separated_rows_ends_above_its_legend_inside_the_canvas() {
        let inputs = Inputs {
            space: "shared".into(),
            idx: "t*1000".into(),
            ..Inputs::default()
        };
        let map = layout(&analyze(&inputs).unwrap()).unwrap();
        assert_eq!(map.rows.iter().filter(|r| r.gap).count(), 31);
        for width in [288, 358, 720] {
            let height = 280;
            let mut svg = String::new();
            {
                let area = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
                bank_map::draw(&area, &map, None, &Theme::LIGHT).expect("drawing succeeds");
            }
            let number = |s: &str, name: &str| -> f64 {
                s.split(&format!(" {name}=\""))
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("{name} in {s}"))
            };
            // The legend's first key, top-anchored: its y is the legend's top.
            let legend_top = svg
                .split("<text")
                .find(|t| t.contains("word read, bank free"))
                .map(|t| number(t, "y"))
                .unwrap_or_else(|| panic!("the legend in {svg}"));
            let rects: Vec<&str> = svg.split("<rect").skip(1).collect();
            for rect in &rects {
                let bottom = number(rect, "y") + number(rect, "height");
                assert!(
                    bottom <= f64::from(height),
                    "at {width} px: {rect} ends at {bottom}"
                );
            }
            // The rows' faint backgrounds (the grid colour) all end above the legend.
            let rows: Vec<f64> = rects
                .iter()
                .filter(|r| r.contains("fill=\"#D5DAE1\""))
                .map(|r| number(r, "y") + number(r, "height"))
                .collect();
            assert_eq!(rows.len(), 32, "at {width} px");
            for bottom in rows {
                assert!(
                    bottom <= legend_top,
                    "at {width} px: a row ends at {bottom}, under the legend at {legend_top}"
                );
            }
        }
    }

    #[test]
    fn a_broadcast_is_one_cell_counting_its_lanes_and_fits_at_360_px() {
        let svg = render("0", "4", 360);
        assert_eq!(cells(&svg, "#1D4ED8"), 2);
        let texts = texts(&svg);
        // The bank numbers thin out to every fourth on a narrow map.
        assert!(
            texts.iter().any(|t| t == "28") && !texts.iter().any(|t| t == "27"),
            "{texts:?}"
        );
    }
}
