//! The sector map's layout, in sectors and bytes: which sectors to draw, in what order, where
//! the address axis breaks over untouched space, which bytes of each sector a lane asked
//! for, and where each lane sits. Drawing turns this into pixels (`charts::sector_map`).

use super::super::span::Span;
use super::sectors::Analysis;

/// One touched sector, in address order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Sector index k: bytes `[k·S, (k+1)·S)`.
    pub sector: u64,
    /// Requested byte ranges inside the sector, as offsets `[start, end)` from its first byte.
    pub used: Vec<(u64, u64)>,
    /// Untouched bytes skipped since the previous slot, when the axis breaks before this one.
    pub gap_bytes: Option<u64>,
    /// Whether a cache line starts at this sector's first byte.
    pub line_start: bool,
    /// Active lanes with a byte in this sector, ascending.
    pub lanes: Vec<u32>,
}

impl Slot {
    /// Bytes of the sector some lane asked for.
    pub fn used_bytes(&self) -> u64 {
        self.used.iter().map(|(a, b)| b - a).sum()
    }
}

/// Where a lane's first byte sits on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneMark {
    /// The active lane, 0 to warp − 1.
    pub lane: u32,
    /// Index into [`SectorMap::slots`].
    pub slot: usize,
    /// Offset of the lane's first byte inside that sector.
    pub offset: u64,
}

/// The whole map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectorMap {
    /// Bytes in a sector: the width of every slot.
    pub sector_bytes: u64,
    /// Bytes in a cache line; slots whose sector starts a line are marked.
    pub line_bytes: u64,
    /// The touched sectors, ascending, with axis breaks over untouched space.
    pub slots: Vec<Slot>,
    /// Each active lane's place, in lane order.
    pub lanes: Vec<LaneMark>,
    /// Lanes that take no part, ascending.
    pub inactive: Vec<u32>,
}

/// Lays out the sectors `analysis` touches. Untouched runs between touched sectors become a
/// break on the axis, so 32 lanes 4 KiB apart still fit.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, sector_map::layout, sectors::analyze};
/// let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
/// let map = layout(&analyze(&ex2).unwrap());
/// assert_eq!(map.slots.len(), 5);
/// assert_eq!(map.slots[0].used, [(8, 32)]);
/// assert_eq!(map.slots[4].used, [(0, 8)]);
/// assert!(map.slots[4].line_start, "byte 128 starts line 1");
/// // Degenerate input: with no active lane the map is empty.
/// let idle = Inputs { active: "0".into(), ..Inputs::default() };
/// assert!(layout(&analyze(&idle).unwrap()).slots.is_empty());
/// ```
pub fn layout(a: &Analysis) -> SectorMap {
    let s = a.sector_bytes.max(1);
    let mut slots: Vec<Slot> = Vec::new();
    for run in &a.sector_runs {
        for sector in run.first..=run.last {
            let gap_bytes = slots
                .last()
                .filter(|prev| sector > prev.sector + 1)
                .map(|prev| (sector - prev.sector - 1) * s);
            slots.push(Slot {
                sector,
                used: Vec::new(),
                gap_bytes,
                line_start: (u128::from(sector) * u128::from(s)) % u128::from(a.line_bytes.max(1))
                    == 0,
                lanes: Vec::new(),
            });
        }
    }
    let slot_of =
        |slots: &[Slot], sector: u64| slots.binary_search_by_key(&sector, |slot| slot.sector).ok();
    // Byte ranges per sector, from the union of the lanes' bytes.
    let mut spans: Vec<Span> = Vec::new();
    let mut marks = Vec::new();
    let mut inactive = Vec::new();
    for lane in &a.lanes {
        let Some(access) = &lane.access else {
            inactive.push(lane.lane);
            continue;
        };
        spans.push(Span {
            first: access.address,
            last: access.address + (a.elem - 1),
        });
        if let Some(slot) = slot_of(&slots, access.sectors.first) {
            marks.push(LaneMark {
                lane: lane.lane,
                slot,
                offset: access.address % s,
            });
        }
    }
    spans.sort_unstable();
    let mut bytes: Vec<Span> = Vec::new();
    for span in spans {
        match bytes.last_mut() {
            Some(run) if span.first <= run.last.saturating_add(1) => {
                run.last = run.last.max(span.last)
            }
            _ => bytes.push(span),
        }
    }
    for run in bytes {
        let mut first = run.first;
        loop {
            let sector = first / s;
            let sector_end = sector.saturating_mul(s).saturating_add(s - 1);
            let last = run.last.min(sector_end);
            if let Some(i) = slot_of(&slots, sector) {
                slots[i]
                    .used
                    .push((first - sector * s, last - sector * s + 1));
            }
            if last >= run.last {
                break;
            }
            first = last + 1;
        }
    }
    for lane in &a.lanes {
        let Some(access) = &lane.access else { continue };
        for sector in access.sectors.first..=access.sectors.last {
            if let Some(i) = slot_of(&slots, sector) {
                slots[i].lanes.push(lane.lane);
            }
        }
    }
    SectorMap {
        sector_bytes: s,
        line_bytes: a.line_bytes,
        slots,
        lanes: marks,
        inactive,
    }
}

/// The map's text alternative, in a sentence or two: how many sectors, which lanes share
/// them, and how full each is.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, sector_map::{describe, layout}, sectors::analyze};
/// let ex2 = Inputs { base: "8".into(), ..Inputs::default() };
/// assert_eq!(
///     describe(&layout(&analyze(&ex2).unwrap())),
///     "5 sectors of 32 B. Sector 0: lanes 0–5, 24 of 32 bytes used. Sector 1: lanes 6–13, \
///      32 of 32 bytes used. Sector 2: lanes 14–21, 32 of 32 bytes used. Sector 3: lanes \
///      22–29, 32 of 32 bytes used. Sector 4: lanes 30–31, 8 of 32 bytes used."
/// );
/// ```
pub fn describe(map: &SectorMap) -> String {
    const MOST: usize = 8;
    if map.slots.is_empty() {
        return "No sector: no lane is active.".to_string();
    }
    let mut text = format!(
        "{} sector{} of {} B.",
        map.slots.len(),
        if map.slots.len() == 1 { "" } else { "s" },
        map.sector_bytes
    );
    for slot in map.slots.iter().take(MOST) {
        let who = match slot.lanes.as_slice() {
            [one] => format!("lane {one}"),
            lanes => format!("lanes {}", lane_list(lanes)),
        };
        if let Some(gap) = slot.gap_bytes {
            text.push_str(&format!(" Then {gap} untouched bytes."));
        }
        text.push_str(&format!(
            " Sector {}: {who}, {} of {} bytes used.",
            slot.sector,
            slot.used_bytes(),
            map.sector_bytes
        ));
    }
    if map.slots.len() > MOST {
        text.push_str(&format!(" And {} more sectors.", map.slots.len() - MOST));
    }
    if !map.inactive.is_empty() {
        let n = map.inactive.len() as u64;
        text.push_str(&format!(
            " {n} lane{} inactive.",
            super::super::format::plural(n)
        ));
    }
    text
}

/// The inactive lanes for the map's legend, e.g. "inactive: lanes 1, 3, 5, 7, …"; empty
/// when every lane takes part.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, sector_map::{inactive_text, layout}, sectors::analyze};
/// let half = Inputs { active: "t < 24".into(), ..Inputs::default() };
/// assert_eq!(inactive_text(&layout(&analyze(&half).unwrap())), "inactive: lanes 24–31");
/// // One lane reads as a lane id, never as a count.
/// let one = Inputs { active: "t != 0".into(), ..Inputs::default() };
/// assert_eq!(inactive_text(&layout(&analyze(&one).unwrap())), "inactive: lane 0");
/// assert_eq!(inactive_text(&layout(&analyze(&Inputs::default()).unwrap())), "");
/// ```
pub fn inactive_text(map: &SectorMap) -> String {
    if map.inactive.is_empty() {
        String::new()
    } else {
        let lanes = if map.inactive.len() == 1 {
            "lane"
        } else {
            "lanes"
        };
        format!("inactive: {lanes} {}", lane_list(&map.inactive))
    }
}

/// Ascending lane ids as runs, e.g. "0–5, 9, 12–13", at most four runs and then "…".
pub(crate) fn lane_list(lanes: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &lane in lanes {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == lane => run.1 = lane,
            _ => runs.push((lane, lane)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .take(4)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    if runs.len() > 4 {
        parts.push("…".into());
    }
    parts.join(", ")
}

/// The lane a keyboard step lands on: the next (or previous) of `lanes` after `now`, the
/// first (or last) when nothing is highlighted, staying put at either end.
///
/// ```
/// use coalescing_lab::model::sector_map::step_lane;
/// let lanes = [0, 2, 4];
/// assert_eq!(step_lane(&lanes, None, true), Some(0));
/// assert_eq!(step_lane(&lanes, Some(2), true), Some(4));
/// assert_eq!(step_lane(&lanes, Some(4), true), Some(4));
/// assert_eq!(step_lane(&lanes, Some(0), false), Some(0));
/// assert_eq!(step_lane(&lanes, None, false), Some(4));
/// // Degenerate input: no active lane, nothing to land on.
/// assert_eq!(step_lane(&[], None, true), None);
/// ```
pub fn step_lane(lanes: &[u32], now: Option<u32>, forward: bool) -> Option<u32> {
    let position = now.and_then(|h| lanes.iter().position(|l| *l == h));
    match (forward, position) {
        (true, None) => lanes.first().copied(),
        (true, Some(i)) => lanes.get(i + 1).or(lanes.last()).copied(),
        (false, None) => lanes.last().copied(),
        (false, Some(i)) => lanes.get(i.saturating_sub(1)).copied(),
    }
}
