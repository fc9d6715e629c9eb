//! The bank map: 32 columns, one per shared-memory bank, and one row per 128-byte run of
//! words; each word a lane covers is a filled cell, in the warning colour when its bank must
//! deliver another word to the same group (a conflict). The busiest bank's column is framed
//! and named. Pixel layout on a plain drawing area, generic over the backend.

use super::sector_map::{at, draw_nothing, filled, font, legend_flow, legend_row_top};
use super::Theme;
use crate::model::bank_map::BankMap;
use crate::model::banks::BANKS;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The bank numbers' band above the grid, a row's tallest height, a gap's and a legend row's,
/// in CSS pixels.
const TOP: f64 = 22.0;
const ROW_MAX: f64 = 26.0;
const GAP: f64 = 6.0;
const LEGEND_ROW: f64 = 16.0;

/// What a legend key stands for.
enum Key {
    Busiest,
    Free,
    Shared,
}

/// The legend's keys, the busiest bank first when two or more words share it.
fn legend(map: &BankMap) -> Vec<(Key, String)> {
    let mut keys = vec![
        (Key::Free, "word read, bank free".to_string()),
        (Key::Shared, "bank shared by two or more words".to_string()),
    ];
    if let Some((_, bank, words)) = map.busiest.filter(|b| b.2 > 1) {
        keys.insert(
            0,
            (
                Key::Busiest,
                format!("busiest: bank {bank}, {words} words ({words}-way)"),
            ),
        );
    }
    keys
}

/// A legend key's width: its swatch and its text at 6 px a character, `unit` pixels a CSS pixel.
fn item_width(text: &str, unit: f64) -> f64 {
    unit * (6.0 * text.chars().count() as f64 + 30.0)
}

/// The height in CSS pixels at which `map`, `width` CSS pixels wide, has every row at its
/// tallest and its legend right under the grid, with no spare room below: the page makes the
/// canvas no taller than this, so a short map does not sit above an empty band.
///
/// ```
/// use coalescing_lab::charts::bank_map::natural_height;
/// use coalescing_lab::model::bank_map::layout;
/// use coalescing_lab::model::inputs::Inputs;
/// use coalescing_lab::model::sectors::analyze;
/// let inputs = Inputs { space: "shared".into(), ..Inputs::default() };
/// let map = layout(&analyze(&inputs).unwrap()).unwrap();
/// // One row of 32 words: the numbers' band, one 26 px row, the legend's one row, margins.
/// assert_eq!(map.rows.len(), 1);
/// assert_eq!(natural_height(&map, 800.0), 22.0 + 26.0 + 8.0 + 16.0 + 6.0);
/// ```
pub fn natural_height(map: &BankMap, width: f64) -> f64 {
    let keys = legend(map);
    let flow = legend_flow(keys.iter().map(|(_, t)| t.as_str()), width, 12.0, |t| {
        item_width(t, 1.0)
    });
    let legend_rows = flow.last().map_or(1, |&(_, last)| last + 1) as f64;
    let gaps = map.rows.iter().filter(|r| r.gap).count() as f64;
    TOP + map.rows.len() as f64 * ROW_MAX + gaps * GAP + 8.0 + legend_rows * LEGEND_ROW + 6.0
}

/// Draws `map` to fill `area`, with lane `highlight` (if any) ringed on its words.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &BankMap,
    highlight: Option<u32>,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (width, height) = filled(area, theme)?;
    let left = Pos::new(HPos::Left, VPos::Top);
    let centre = Pos::new(HPos::Center, VPos::Center);
    let right = Pos::new(HPos::Right, VPos::Center);

    if map.rows.is_empty() {
        return draw_nothing(area, "No active lane: no bank delivers anything.", theme);
    }

    // Legend at the bottom, the busiest bank named first.
    let busiest = map.busiest.filter(|b| b.2 > 1);
    let keys: Vec<(Option<RGBColor>, String)> = legend(map)
        .into_iter()
        .map(|(key, text)| {
            let color = match key {
                Key::Busiest => None,
                Key::Free => Some(theme.accent),
                Key::Shared => Some(theme.warn),
            };
            (color, text)
        })
        .collect();
    let pad = theme.px(12.0);
    let flow = legend_flow(
        keys.iter().map(|(_, text)| text.as_str()),
        width,
        pad,
        |text| item_width(text, theme.px(1.0)),
    );
    let legend_rows = flow.last().map_or(1, |&(_, last)| last + 1) as f64;
    let legend_row = theme.px(LEGEND_ROW);
    let legend_top = height - theme.px(6.0) - legend_rows * legend_row;

    // The grid: a row-label column on the left, bank numbers on top.
    let label_width = theme.px(58.0);
    let x0 = label_width;
    let grid_width = (width - x0 - pad).max(theme.px(32.0));
    let column = grid_width / f64::from(BANKS);
    let y0 = theme.px(TOP);
    let gaps = map.rows.iter().filter(|r| r.gap).count() as f64;
    let rows = map.rows.len() as f64;
    let room = legend_top - theme.px(8.0) - y0;
    // The gaps between separated rows give way before a row goes under 3 px, so that a map of
    // many separated rows still ends above its legend, inside the canvas.
    let gap_height = if gaps > 0.0 {
        theme
            .px(GAP)
            .min(((room - rows * theme.px(3.0)) / gaps).max(0.0))
    } else {
        theme.px(GAP)
    };
    let row_height = ((room - gaps * gap_height) / rows).clamp(theme.px(3.0), theme.px(ROW_MAX));

    // Bank numbers: every bank when they fit, else every fourth.
    let every = if column >= theme.px(16.0) { 1 } else { 4 };
    for bank in (0..BANKS).step_by(every) {
        area.draw(&Text::new(
            bank.to_string(),
            at(x0 + column * (f64::from(bank) + 0.5), y0 / 2.0),
            font(theme, 10.0, theme.muted, centre),
        ))?;
    }
    // The busiest bank's column, framed.
    let mut row_tops = Vec::with_capacity(map.rows.len());
    let mut y = y0;
    for row in &map.rows {
        if row.gap {
            y += gap_height;
        }
        row_tops.push(y);
        y += row_height;
    }
    let grid_bottom = y;
    if let Some((_, bank, _)) = busiest {
        let x = x0 + column * f64::from(bank);
        area.draw(&Rectangle::new(
            [
                at(x - theme.px(1.0), y0 - theme.px(2.0)),
                at(x + column + theme.px(1.0), grid_bottom + theme.px(2.0)),
            ],
            theme.warn.stroke_width(theme.px_u32(2.0)),
        ))?;
    }
    let labels_fit = row_height >= theme.px(13.0) && column >= theme.px(14.0);
    let every_row = ((theme.px(12.0) / row_height).ceil() as usize).max(1);
    for (k, (row, &top)) in map.rows.iter().zip(&row_tops).enumerate() {
        // The empty cells of the row, faintly, so the 32 banks read as a grid.
        area.draw(&Rectangle::new(
            [at(x0, top), at(x0 + grid_width, top + row_height)],
            theme.grid.mix(0.35).filled(),
        ))?;
        if row.gap {
            area.draw(&PathElement::new(
                vec![
                    at(x0, top - gap_height / 2.0),
                    at(x0 + grid_width, top - gap_height / 2.0),
                ],
                theme.muted.mix(0.6).stroke_width(1),
            ))?;
        }
        if k % every_row == 0 {
            area.draw(&Text::new(
                format!("+{}", row.row * 128),
                at(x0 - theme.px(4.0), top + row_height / 2.0),
                font(theme, 10.0, theme.muted, right),
            ))?;
        }
        for cell in &row.cells {
            let x = x0 + column * f64::from(cell.bank);
            let color = if cell.conflicted {
                theme.warn
            } else {
                theme.accent
            };
            let inset = if row_height > theme.px(6.0) {
                theme.px(1.0)
            } else {
                0.0
            };
            area.draw(&Rectangle::new(
                [
                    at(x + inset, top + inset),
                    at(x + column - inset, top + row_height - inset),
                ],
                color.filled(),
            ))?;
            if labels_fit {
                let text = match cell.lanes.as_slice() {
                    [one] => one.to_string(),
                    lanes => format!("×{}", lanes.len()),
                };
                area.draw(&Text::new(
                    text,
                    at(x + column / 2.0, top + row_height / 2.0),
                    font(theme, 9.5, theme.background, centre),
                ))?;
            }
            if highlight.is_some_and(|h| cell.lanes.contains(&h)) {
                area.draw(&Rectangle::new(
                    [
                        at(x - theme.px(1.5), top - theme.px(1.5)),
                        at(x + column + theme.px(1.5), top + row_height + theme.px(1.5)),
                    ],
                    theme.text.stroke_width(theme.px_u32(2.5)),
                ))?;
            }
        }
    }
    area.draw(&Text::new(
        "byte",
        at(x0 - theme.px(4.0), y0 / 2.0),
        font(theme, 10.0, theme.muted, right),
    ))?;

    // The legend right under the grid: a short map leaves its spare room below, not inside.
    let first_row_top = (grid_bottom + theme.px(12.0)).min(legend_top);
    let swatch = theme.px(10.0);
    for ((color, text), (lx, key_row)) in keys.into_iter().zip(flow) {
        let ly = legend_row_top(first_row_top, legend_row, key_row);
        match color {
            Some(color) => area.draw(&Rectangle::new(
                [at(lx, ly), at(lx + swatch, ly + swatch)],
                color.filled(),
            ))?,
            None => area.draw(&Rectangle::new(
                [at(lx, ly), at(lx + swatch, ly + swatch)],
                theme.warn.stroke_width(theme.px_u32(2.0)),
            ))?,
        }
        area.draw(&Text::new(
            text,
            at(lx + swatch + theme.px(4.0), ly - theme.px(1.0)),
            font(theme, 11.0, theme.muted, left),
        ))?;
    }
    area.present()
}
