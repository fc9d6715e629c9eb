//! The bank map's layout: 32 columns, one per bank, and one row per 128-byte run of words
//! (word `w` sits in row `w / 32`, column `w mod 32`), with each active lane on the words it
//! covers. Drawing turns this into pixels (`charts::bank_map`).

use super::super::banks::{bank_of, BankReport, BANKS, ROW_BYTES};
use super::super::format::plural;
use super::sector_map::lane_list;
use super::sectors::Analysis;

/// Most rows drawn; the rest are counted in [`BankMap::hidden_rows`].
pub const MAX_ROWS: usize = 40;

/// One word some lane covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The word's bank, `word mod 32`: the cell's column.
    pub bank: u32,
    /// Word index: byte address ÷ 4.
    pub word: u64,
    /// Active lanes covering this word, ascending.
    pub lanes: Vec<u32>,
    /// Whether the word's bank delivers another word to a group of these lanes too.
    pub conflicted: bool,
}

/// One 128-byte row of words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Row index: words `32·row` to `32·row + 31`, bytes `[128·row, 128·row + 128)`.
    pub row: u64,
    /// Whether untouched rows were skipped before this one.
    pub gap: bool,
    /// Touched words, by bank.
    pub cells: Vec<Cell>,
}

/// The whole map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankMap {
    /// Touched rows, ascending, at most [`MAX_ROWS`].
    pub rows: Vec<Row>,
    /// Touched rows past [`MAX_ROWS`], not drawn.
    pub hidden_rows: usize,
    /// (group, bank, distinct words) of the busiest bank; `None` with no active lane.
    pub busiest: Option<(usize, u32, u32)>,
    /// Lanes served together.
    pub group_lanes: u32,
    /// Wavefronts the whole request needs.
    pub wavefronts: u64,
    /// The fewest it could need: one per lane group with an active lane.
    pub ideal: u64,
    /// Lanes that take no part, ascending.
    pub inactive: Vec<u32>,
    /// Lanes that take part, drawn or not.
    pub active_lanes: u32,
}

/// Lays out the words a shared-memory analysis touches; `None` for global memory.
///
/// ```
/// use coalescing_lab::model::{bank_map::layout, inputs::Inputs, sectors::analyze};
/// let column = Inputs { space: "shared".into(), idx: "32*t".into(), ..Inputs::default() };
/// let map = layout(&analyze(&column).unwrap()).unwrap();
/// // 32 rows, each with lane t alone in bank 0, every one conflicted.
/// assert_eq!(map.rows.len(), 32);
/// assert!(map.rows.iter().all(|r| r.cells.len() == 1 && r.cells[0].bank == 0 && r.cells[0].conflicted));
/// assert_eq!(map.busiest, Some((0, 0, 32)));
/// ```
pub fn layout(a: &Analysis) -> Option<BankMap> {
    let report: &BankReport = a.banks.as_ref()?;
    let mut cells: Vec<(u64, u32, bool)> = Vec::new();
    let mut inactive = Vec::new();
    for lane in &a.lanes {
        let Some(access) = &lane.access else {
            inactive.push(lane.lane);
            continue;
        };
        let words = a.words(access);
        let conflicted = report.conflicted(lane.lane, words);
        for word in words.first..=words.last {
            cells.push((word, lane.lane, conflicted));
        }
    }
    cells.sort_unstable();
    let mut rows: Vec<Row> = Vec::new();
    let per_row = u64::from(BANKS);
    for (word, lane, conflicted) in cells {
        let row = word / per_row;
        if rows.last().is_none_or(|r| r.row != row) {
            let gap = rows.last().is_some_and(|r| row > r.row + 1);
            rows.push(Row { row, gap, cells: Vec::new() });
        }
        let Some(current) = rows.last_mut() else {
            continue;
        };
        match current.cells.last_mut() {
            Some(cell) if cell.word == word => {
                cell.lanes.push(lane);
                cell.conflicted |= conflicted;
            }
            _ => current.cells.push(Cell {
                bank: bank_of(word),
                word,
                lanes: vec![lane],
                conflicted,
            }),
        }
    }
    let hidden_rows = rows.len().saturating_sub(MAX_ROWS);
    rows.truncate(MAX_ROWS);
    Some(BankMap {
        rows,
        hidden_rows,
        busiest: report.busiest(),
        group_lanes: report.group_lanes,
        wavefronts: report.totals.wavefronts,
        ideal: report.totals.ideal,
        active_lanes: a.totals.active_lanes,
        inactive,
    })
}

/// The map in words, for its caption and screen readers.
///
/// ```
/// use coalescing_lab::model::{bank_map::{describe, layout}, inputs::Inputs, sectors::analyze};
/// let padded = Inputs { space: "shared".into(), idx: "33*t".into(), ..Inputs::default() };
/// assert_eq!(
///     describe(&layout(&analyze(&padded).unwrap()).unwrap()),
///     "Bank map: 32 lanes on 32 rows of 128 B, one group of 32 lanes. \
///      No bank delivers two distinct words to a group: 1 wavefront, the ideal."
/// );
/// ```
pub fn describe(map: &BankMap) -> String {
    // Every active lane, not only those on the drawn rows (hostile pass L1).
    let lanes = map.active_lanes as usize;
    let rows = map.rows.len() + map.hidden_rows;
    let groups = map.ideal;
    let mut text = if lanes == 0 {
        "Bank map: no active lane, so no bank delivers anything.".to_string()
    } else {
        format!(
            "Bank map: {lanes} lane{} on {rows} row{} of {ROW_BYTES} B, {} of {} lanes.",
            plural(lanes as u64),
            plural(rows as u64),
            if groups == 1 {
                "one group".to_string()
            } else {
                format!("{groups} groups")
            },
            map.group_lanes
        )
    };
    match map.busiest {
        Some((group, bank, words)) if words > 1 => {
            // The group's active lanes, not its whole span (hostile pass L2).
            let first = group as u32 * map.group_lanes;
            let warp = map.active_lanes + map.inactive.len() as u32;
            let served: Vec<u32> = (first..(first + map.group_lanes).min(warp))
                .filter(|l| !map.inactive.contains(l))
                .collect();
            text.push_str(&format!(
                " Busiest: bank {bank} delivers {words} distinct words to lane{} {} \
                 ({words}-way conflict): {} wavefronts for an ideal of {}.",
                plural(served.len() as u64),
                lane_list(&served),
                map.wavefronts,
                map.ideal
            ));
        }
        Some(_) => text.push_str(&format!(
            " No bank delivers two distinct words to a group: {} wavefront{}, the ideal.",
            map.wavefronts,
            plural(map.wavefronts)
        )),
        None => {}
    }
    if map.hidden_rows > 0 {
        text.push_str(&format!(
            " The first {MAX_ROWS} rows are drawn; {} more are not.",
            map.hidden_rows
        ));
    }
    if !map.inactive.is_empty() {
        let n = map.inactive.len() as u64;
        text.push_str(&format!(
            " Inactive: lane{} {}.",
            plural(n),
            lane_list(&map.inactive)
        ));
    }
    text
}
