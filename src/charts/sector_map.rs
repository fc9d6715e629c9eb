//! The sector map: touched sectors as boxes along the address axis, each split into the bytes
//! some lane asked for and the bytes fetched but unused; lanes sit above their first byte,
//! tied to it by a line; cache-line boundaries are marked; untouched space is cut out with a
//! visible break. Pixel layout on a plain drawing area, generic over the backend.
//!
//! The bank map is laid out the same way and borrows this map's text style, empty message
//! and legend flow.

use super::Theme;
use crate::model::sector_map::{inactive_text, SectorMap};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Where the boxes go across a map `width` backend pixels wide.
struct Columns {
    /// Left edge of each slot's box.
    xs: Vec<f64>,
    slot_width: f64,
    break_width: f64,
}

fn columns(map: &SectorMap, width: f64, theme: &Theme) -> Columns {
    let pad = theme.px(16.0);
    let breaks = map.slots.iter().filter(|s| s.gap_bytes.is_some()).count() as f64;
    let slots = (map.slots.len() as f64).max(1.0);
    // A break is at most 28 px and at most 60 % of a box, so everything fits the width.
    let break_width = theme
        .px(28.0)
        .min((width - 2.0 * pad) / (slots + breaks) * 0.6);
    let usable = (width - 2.0 * pad - breaks * break_width).max(slots);
    let slot_width = (usable / slots).min(theme.px(140.0));
    let mut xs = Vec::with_capacity(map.slots.len());
    let mut x = pad;
    for slot in &map.slots {
        if slot.gap_bytes.is_some() {
            x += break_width;
        }
        xs.push(x);
        x += slot_width;
    }
    Columns { xs, slot_width, break_width }
}

/// Each active lane's x position on a map `width` pixels wide, in lane order.
pub fn lane_positions(map: &SectorMap, width: f64, theme: &Theme) -> Vec<(u32, f64)> {
    let c = columns(map, width, theme);
    let s = map.sector_bytes as f64;
    map.lanes
        .iter()
        .filter_map(|m| {
            let x = c.xs.get(m.slot)?;
            Some((m.lane, x + c.slot_width * (m.offset as f64 + 0.5) / s))
        })
        .collect()
}

/// The lane nearest to `x` on a map `width` pixels wide, if one is within reach of the
/// pointer (8 px); lanes sharing a position resolve to the lowest id.
///
/// ```
/// use coalescing_lab::charts::{sector_map::lane_at, Theme};
/// use coalescing_lab::model::{inputs::Inputs, sector_map::layout, sectors::analyze};
/// let map = layout(&analyze(&Inputs::default()).unwrap());
/// assert_eq!(lane_at(&map, 720.0, &Theme::LIGHT, 16.0 + 2.0), Some(0));
/// assert_eq!(lane_at(&map, 720.0, &Theme::LIGHT, 719.0), None);
/// ```
pub fn lane_at(map: &SectorMap, width: f64, theme: &Theme, x: f64) -> Option<u32> {
    lane_positions(map, width, theme)
        .into_iter()
        .map(|(lane, at)| (lane, (at - x).abs()))
        .filter(|(_, distance)| *distance <= theme.px(8.0))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(lane, _)| lane)
}

/// The maps' text: sans-serif at `size` CSS pixels.
pub(super) fn font(theme: &Theme, size: f64, color: RGBColor, pos: Pos) -> TextStyle<'static> {
    ("sans-serif", theme.px(size))
        .into_font()
        .color(&color)
        .pos(pos)
}

/// Fills `area` with the theme's background and gives its size in backend pixels.
pub(super) fn filled<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    theme: &Theme,
) -> Result<(f64, f64), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let (width, height) = area.dim_in_pixel();
    Ok((f64::from(width), f64::from(height)))
}

/// A point in backend pixels, rounded to the nearest pixel.
pub(super) fn at(x: f64, y: f64) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// Says at the top left of `area` why a map has nothing to draw.
pub(super) fn draw_nothing<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    message: &str,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let left = Pos::new(HPos::Left, VPos::Top);
    area.draw(&Text::new(
        message,
        at(theme.px(16.0), theme.px(16.0)),
        font(theme, 13.0, theme.muted, left),
    ))?;
    area.present()
}

/// Where a legend's items go when they flow left to right from `pad` across `width`, each
/// `item_width(text)` wide, starting a new row when the next would cross the right pad:
/// each item's left edge and row (from 0), in order. The rows it takes are the last row + 1.
pub(super) fn legend_flow<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    width: f64,
    pad: f64,
    item_width: impl Fn(&str) -> f64,
) -> Vec<(f64, usize)> {
    let (mut row, mut x) = (0, pad);
    texts
        .into_iter()
        .map(|text| {
            let w = item_width(text);
            if x > pad && x + w > width - pad {
                row += 1;
                x = pad;
            }
            let placed = (x, row);
            x += w;
            placed
        })
        .collect()
}

/// The top of legend row `row` below `top`, added up row by row as the legend is drawn.
pub(super) fn legend_row_top(top: f64, row_height: f64, row: usize) -> f64 {
    (0..row).fold(top, |y, _| y + row_height)
}

/// Draws `map` to fill `area`, with lane `highlight` (if any) ringed and labelled.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &SectorMap,
    highlight: Option<u32>,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (width, height) = filled(area, theme)?;
    let left = Pos::new(HPos::Left, VPos::Top);
    let centre = Pos::new(HPos::Center, VPos::Top);

    if map.slots.is_empty() {
        return draw_nothing(
            area,
            "No active lane: nothing is requested and no sector moves.",
            theme,
        );
    }

    // Horizontal layout: equal boxes, with a fixed-width break wherever untouched space was cut.
    let pad = theme.px(16.0);
    let breaks = map.slots.iter().filter(|s| s.gap_bytes.is_some()).count() as f64;
    let Columns { xs, slot_width, break_width } = columns(map, width, theme);

    // Legend, flowing onto a second row on a narrow map.
    enum Key {
        Swatch(RGBColor),
        Boundary,
        Break,
        Plain,
    }
    let mut keys = vec![
        (Key::Swatch(theme.accent), "requested bytes".to_string()),
        (Key::Swatch(theme.grid), "fetched, unused".to_string()),
        (
            Key::Boundary,
            format!("cache-line boundary ({} B lines)", map.line_bytes),
        ),
    ];
    if breaks > 0.0 {
        keys.push((Key::Break, "untouched bytes cut out".to_string()));
    }
    if !map.inactive.is_empty() {
        keys.push((Key::Plain, inactive_text(map)));
    }
    let swatch = theme.px(10.0);
    let row = theme.px(16.0);
    // The rows the legend takes, counted by the same greedy flow that draws it, so the last
    // line is never clipped and the legend never runs into the sector indices.
    let item_width = |text: &str| theme.px(6.0) * text.chars().count() as f64 + theme.px(34.0);
    let flow = legend_flow(
        keys.iter().map(|(_, text)| text.as_str()),
        width,
        pad,
        item_width,
    );
    let rows_needed = flow.last().map_or(1, |&(_, last)| last + 1) as f64;
    let legend_top = height - theme.px(8.0) - rows_needed * row;
    // Vertical layout: lane labels, lane dots, connectors, the sector bar, indices, legend.
    // The bar moves up when a tall legend needs the room below it.
    let y_label = theme.px(8.0);
    let y_dot = theme.px(30.0);
    let bar_height = theme.px(36.0);
    let y_bar = (height * 0.42)
        .min(legend_top - theme.px(26.0) - bar_height)
        .max(theme.px(56.0));
    let y_index = y_bar + bar_height + theme.px(6.0);
    let s = map.sector_bytes as f64;

    // Sectors: fetched bytes in a pale fill, requested bytes in the accent colour.
    for (slot, &x) in map.slots.iter().zip(&xs) {
        let gap = if slot_width > theme.px(6.0) {
            theme.px(1.0)
        } else {
            0.0
        };
        area.draw(&Rectangle::new(
            [
                at(x + gap, y_bar),
                at(x + slot_width - gap, y_bar + bar_height),
            ],
            theme.grid.filled(),
        ))?;
        for &(start, end) in &slot.used {
            let x0 = x + gap + (slot_width - 2.0 * gap) * start as f64 / s;
            let x1 = x + gap + (slot_width - 2.0 * gap) * end as f64 / s;
            area.draw(&Rectangle::new(
                [at(x0, y_bar), at(x1.max(x0 + 1.0), y_bar + bar_height)],
                theme.accent.filled(),
            ))?;
        }
        if slot.line_start {
            area.draw(&PathElement::new(
                vec![
                    at(x, y_bar - theme.px(8.0)),
                    at(x, y_bar + bar_height + theme.px(8.0)),
                ],
                theme.text.stroke_width(theme.px_u32(2.0)),
            ))?;
        }
    }
    // Sector indices, as many as fit without overlapping.
    let mut last_index_end = f64::MIN;
    for (slot, &x) in map.slots.iter().zip(&xs) {
        let label = slot.sector.to_string();
        let centre_x = x + slot_width / 2.0;
        let half = theme.px(3.1) * label.len() as f64;
        if centre_x - half > last_index_end + theme.px(4.0) {
            area.draw(&Text::new(
                label,
                at(centre_x, y_index),
                font(theme, 11.0, theme.muted, centre),
            ))?;
            last_index_end = centre_x + half;
        }
    }
    // Breaks over untouched address space.
    for (slot, &x) in map.slots.iter().zip(&xs) {
        if let Some(gap) = slot.gap_bytes {
            let mid = x - break_width / 2.0;
            let lean = (break_width / 6.0).min(theme.px(3.0));
            for dx in [-lean, lean] {
                area.draw(&PathElement::new(
                    vec![
                        at(mid + dx - lean, y_bar + bar_height + theme.px(4.0)),
                        at(mid + dx + lean, y_bar - theme.px(4.0)),
                    ],
                    theme.muted.stroke_width(theme.px_u32(1.5)),
                ))?;
            }
            if break_width >= theme.px(24.0) && gap < 1 << 40 {
                area.draw(&Text::new(
                    format!("+{}", short_bytes(gap)),
                    at(mid, y_bar - theme.px(20.0)),
                    font(theme, 9.0, theme.muted, centre),
                ))?;
            }
        }
    }
    // Lanes above their first byte, tied to it; labels where they fit.
    let mut last_label_end = f64::MIN;
    for mark in &map.lanes {
        let Some(&x) = xs.get(mark.slot) else {
            continue;
        };
        let lane_x = x + slot_width * (mark.offset as f64 + 0.5) / s;
        area.draw(&PathElement::new(
            vec![at(lane_x, y_dot), at(lane_x, y_bar)],
            theme.accent.mix(0.45).stroke_width(theme.px_u32(1.0)),
        ))?;
        area.draw(&Circle::new(
            at(lane_x, y_dot),
            theme.px(3.0),
            theme.accent.filled(),
        ))?;
        let label = mark.lane.to_string();
        let half = theme.px(3.1) * label.len() as f64;
        if lane_x - half > last_label_end + theme.px(2.0) {
            area.draw(&Text::new(
                label,
                at(lane_x, y_label),
                font(theme, 11.0, theme.text, centre),
            ))?;
            last_label_end = lane_x + half;
        }
    }
    if let Some((lane, lane_x)) = highlight.and_then(|h| {
        lane_positions(map, width, theme)
            .into_iter()
            .find(|(lane, _)| *lane == h)
    }) {
        area.draw(&PathElement::new(
            vec![at(lane_x, y_dot), at(lane_x, y_bar + bar_height)],
            theme.warn.stroke_width(theme.px_u32(2.0)),
        ))?;
        area.draw(&Circle::new(
            at(lane_x, y_dot),
            theme.px(6.0),
            theme.warn.stroke_width(theme.px_u32(2.0)),
        ))?;
        area.draw(&Text::new(
            format!("lane {lane}"),
            at(lane_x, y_bar + bar_height + theme.px(20.0)),
            font(theme, 12.0, theme.warn, centre),
        ))?;
    }
    for ((key, text), (lx, key_row)) in keys.into_iter().zip(flow) {
        let ly = legend_row_top(legend_top, row, key_row);
        match key {
            Key::Swatch(color) => {
                area.draw(&Rectangle::new(
                    [at(lx, ly), at(lx + swatch, ly + swatch)],
                    color.filled(),
                ))?;
            }
            Key::Boundary => {
                area.draw(&PathElement::new(
                    vec![
                        at(lx + swatch / 2.0, ly - theme.px(2.0)),
                        at(lx + swatch / 2.0, ly + swatch + theme.px(2.0)),
                    ],
                    theme.text.stroke_width(theme.px_u32(2.0)),
                ))?;
            }
            Key::Break => {
                for dx in [-2.0, 2.0] {
                    let x = lx + swatch / 2.0 + theme.px(dx);
                    area.draw(&PathElement::new(
                        vec![
                            at(x - theme.px(2.0), ly + swatch),
                            at(x + theme.px(2.0), ly),
                        ],
                        theme.muted.stroke_width(theme.px_u32(1.5)),
                    ))?;
                }
            }
            Key::Plain => {}
        }
        area.draw(&Text::new(
            text,
            at(lx + swatch + theme.px(4.0), ly - theme.px(1.0)),
            font(theme, 11.0, theme.muted, left),
        ))?;
    }
    area.present()
}

/// A byte count for a break label: 4064 B, 31.9 KiB, 1.0 MiB.
fn short_bytes(bytes: u64) -> String {
    match bytes {
        0..=9_999 => format!("{bytes} B"),
        10_000..=10_485_759 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::short_bytes;

    #[test]
    fn break_labels_stay_short() {
        assert_eq!(short_bytes(4064), "4064 B");
        assert_eq!(short_bytes(32_704), "31.9 KiB");
        assert_eq!(short_bytes(3 << 20), "3072.0 KiB");
        assert_eq!(short_bytes(30 << 20), "30.0 MiB");
    }
}
