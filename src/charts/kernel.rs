//! The kernel view's pictures: a heat map of a chosen measure per warp over the launch (the
//! CUDA panel draws its own launch's with the same function), and per-statement bars of
//! request-level, unique and DRAM bytes, in binary units.

use super::Theme;
use crate::model::format::number;
use crate::model::kernel::KernelAnalysis;
use crate::model::warp::{HeatMap, Measure, HEAT_BANDS};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Draws the heat map of `measure`: one column per warp of a block, one row per block (or per
/// band of blocks, each cell the mean over its blocks), a stronger colour for more. The axis
/// gives the scale; [`crate::model::kernel::view::heat_description`] says the same in words.
/// `heat` is any launch's: the kernel view's or the CUDA panel's.
pub fn draw_heat<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    heat: &HeatMap,
    measure: Measure,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let b = heat.bands(HEAT_BANDS, measure);
    let warps = b.warps.max(1);
    let most = if b.high > 0.0 { b.high } else { 1.0 };
    let y_desc = if b.blocks_per_band == 1 {
        "block".to_string()
    } else {
        format!("blocks, {} per row (mean)", b.blocks_per_band)
    };
    let mut chart = ChartBuilder::on(area)
        .margin(theme.px_u32(10.0))
        .margin_right(theme.px_u32(16.0))
        .x_label_area_size(theme.px_u32(40.0))
        .y_label_area_size(theme.px_u32(64.0))
        .build_cartesian_2d(0u32..warps, 0u64..b.bands)?;
    let block_label = |band: &u64| (band * b.blocks_per_band).to_string();
    let mut mesh = chart.configure_mesh();
    // "Strongest", not "darkest": on a dark background more is brighter. A phone's chart has
    // room for a shorter caption only: the long one ran off both ends at 390 px.
    let x_desc = if f64::from(area.dim_in_pixel().0) < theme.px(480.0) {
        format!("warp; most: {} {}", number(b.high), measure.unit())
    } else {
        format!(
            "warp in block; strongest: {} {} per warp",
            number(b.high),
            measure.unit()
        )
    };
    mesh.disable_mesh()
        .x_labels((warps as usize).min(8))
        .y_labels(6)
        .y_label_formatter(&block_label)
        .x_desc(x_desc)
        .y_desc(y_desc);
    super::style_axes(&mut mesh, theme);
    mesh.draw()?;
    for band in 0..b.bands {
        for warp in 0..warps {
            let value = b
                .mean
                .get((band * u64::from(warps) + u64::from(warp)) as usize)
                .copied()
                .unwrap_or(0.0);
            let share = value / most;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(warp, band), (warp + 1, band + 1)],
                theme.warn.mix(0.08 + 0.92 * share).filled(),
            )))?;
        }
    }
    area.present()
}

/// Draws one group of three bars per statement: request-level bytes, unique bytes (a perfect
/// cache) and DRAM bytes through the cache model, on one linear byte axis.
pub fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    analysis: &KernelAnalysis,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let sector = analysis.machine.sector_bytes;
    let groups: Vec<(String, [u64; 3])> = analysis
        .statements
        .iter()
        .map(|s| {
            let f = &s.figures;
            (
                s.name.clone(),
                [
                    f.transferred_bytes,
                    f.unique_sectors * sector,
                    f.dram_bytes(),
                ],
            )
        })
        .collect();
    let most = groups
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1);
    // The axis in MiB (or GiB, KiB), as the page's sentences and cards write sizes.
    let (unit, scale) = binary_unit(most);
    let n = groups.len().max(1) as u32;
    let mut chart = ChartBuilder::on(area)
        .margin(theme.px_u32(10.0))
        // Room for the three-row legend above the bars: on a phone it covered the top bars.
        .margin_top(theme.px_u32(56.0))
        .margin_right(theme.px_u32(20.0))
        .x_label_area_size(theme.px_u32(40.0))
        .y_label_area_size(theme.px_u32(64.0))
        .build_cartesian_2d(
            0f64..most as f64 / scale * 1.05,
            (0u32..n * 4).into_segmented(),
        )?;
    let names: Vec<String> = groups.iter().map(|(name, _)| name.clone()).collect();
    let name_label = |v: &SegmentValue<u32>| match v {
        SegmentValue::CenterOf(k) if k % 4 == 1 => {
            names.get((k / 4) as usize).cloned().unwrap_or_default()
        }
        _ => String::new(),
    };
    let byte_label = |v: &f64| number(*v);
    let mut mesh = chart.configure_mesh();
    mesh.disable_y_mesh()
        .x_labels(5)
        .x_label_formatter(&byte_label)
        .y_labels((n * 4) as usize)
        .y_label_formatter(&name_label)
        .x_desc(unit);
    super::style_axes(&mut mesh, theme);
    mesh.draw()?;
    let colors = [theme.warn, theme.muted, theme.accent];
    for (g, (_, values)) in groups.iter().enumerate() {
        for (k, value) in values.iter().enumerate() {
            // Request level on top, as in the legend.
            let row = g as u32 * 4 + (2 - k as u32);
            chart.draw_series(std::iter::once(Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(row)),
                    (*value as f64 / scale, SegmentValue::Exact(row + 1)),
                ],
                colors[k].filled(),
            )))?;
        }
    }
    // The legend, along the top right.
    let font = ("sans-serif", theme.px(12.0))
        .into_font()
        .color(&theme.text);
    let right = area.dim_in_pixel().0 as i32 - theme.px(20.0) as i32;
    for (k, label) in ["request level", "unique", "DRAM"].iter().enumerate() {
        let y = theme.px(4.0 + 16.0 * k as f64) as i32;
        area.draw(&Rectangle::new(
            [
                (right - theme.px(112.0) as i32, y + 2),
                (right - theme.px(102.0) as i32, y + theme.px(11.0) as i32),
            ],
            colors[k].filled(),
        ))?;
        area.draw(&Text::new(
            label.to_string(),
            (right - theme.px(96.0) as i32, y),
            font.clone().pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    area.present()
}

/// The binary unit the byte axis counts in, as the page's sentences write sizes (MiB, not
/// MB): the largest that `most` bytes reach, and its size.
fn binary_unit(most: u64) -> (&'static str, f64) {
    for (size, unit) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if most >= size {
            return (unit, size as f64);
        }
    }
    ("bytes", 1.0)
}

#[cfg(test)]
mod tests {
    use super::binary_unit;

    #[test]
    fn the_byte_axis_counts_in_the_units_the_sentences_use() {
        assert_eq!(binary_unit(0), ("bytes", 1.0));
        assert_eq!(binary_unit(2048), ("KiB", 1024.0));
        assert_eq!(binary_unit(512 << 20), ("MiB", 1048576.0));
        assert_eq!(binary_unit(3 << 30), ("GiB", 1073741824.0));
    }
}
