//! The figures every front end reports, for one site or a whole launch, the measures the
//! worst lists rank by, and the heat map of a measure per (block, warp). Plain data with the
//! derived ratios as methods; the tally fills them.

use super::super::ratio::Ratio;
use serde::{Deserialize, Serialize};

/// Traffic figures, for one statement or the whole kernel.
///
/// Requests and requested bytes count every memory instruction, global and shared; the
/// sector, cache and DRAM figures count global memory only, and the wavefronts shared memory
/// only. The ratios per request divide by the requests of their own memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    /// Warp instructions with at least one active lane (NCU's requests), global and shared.
    pub requests: u64,
    /// elem × active lanes, summed over the requests.
    pub requested_bytes: u64,
    /// The requests to shared memory, a part of `requests`.
    pub shared_requests: u64,
    /// The requested bytes of shared memory, a part of `requested_bytes`.
    pub shared_requested_bytes: u64,
    /// Shared-memory wavefronts (the bank model's), summed over the shared requests.
    pub wavefronts: u64,
    /// Their ideal: one per group of lanes with an active lane.
    pub ideal_wavefronts: u64,
    /// `__syncthreads()` reached, one per block each time.
    pub barriers: u64,
    /// Request-level sectors: each warp instruction's distinct sectors, counted cold.
    pub sectors: u64,
    /// ⌈distinct requested bytes ÷ sector⌉ summed over the global requests: the fewest
    /// sectors that could have carried the bytes (Nsight Compute's ideal).
    pub ideal_sectors: u64,
    /// sectors × sector size; 0 for a shared-memory statement.
    pub transferred_bytes: u64,
    /// Distinct sectors over the whole launch: the traffic with a perfect cache.
    pub unique_sectors: u64,
    /// Whether `unique_sectors` is a lower bound: the distinct-sector count reached its
    /// memory budget ([`super::UNIQUE_BUDGET_BYTES`]) and recorded no more. Every view that
    /// shows the figure says so.
    #[serde(default)]
    pub unique_lower_bound: bool,
    /// Sectors read from DRAM through the cache model, in bytes.
    pub dram_read_bytes: u64,
    /// Sectors written back to DRAM, in bytes, charged to the statement whose store first
    /// dirtied each one in its stay in the cache.
    pub dram_write_bytes: u64,
    /// Request-level sectors that found their sector present; `None` with no cache.
    pub hits: Option<u64>,
}

impl Figures {
    /// Read plus written DRAM bytes.
    pub fn dram_bytes(&self) -> u64 {
        self.dram_read_bytes + self.dram_write_bytes
    }

    /// Requests to global memory.
    pub fn global_requests(&self) -> u64 {
        self.requests - self.shared_requests
    }

    /// Sectors per global request; `None` with no global request.
    pub fn sectors_per_request(&self) -> Option<Ratio> {
        ratio(self.sectors, self.global_requests())
    }

    /// Global requested ÷ transferred bytes; `None` when nothing moved. Above 1 only when
    /// lanes repeat bytes.
    pub fn useful_fraction(&self) -> Option<Ratio> {
        ratio(
            self.requested_bytes - self.shared_requested_bytes,
            self.transferred_bytes,
        )
    }

    /// Sectors beyond the ideal: where the waste is.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors.saturating_sub(self.ideal_sectors)
    }

    /// Shared-memory bank conflicts: wavefronts beyond the ideal.
    pub fn bank_conflicts(&self) -> u64 {
        self.wavefronts - self.ideal_wavefronts
    }

    /// Hits ÷ request-level sectors; `None` with no cache or no sector access.
    pub fn hit_rate(&self) -> Option<Ratio> {
        ratio(self.hits?, self.sectors)
    }
}

fn ratio(numerator: u64, denominator: u64) -> Option<Ratio> {
    (denominator > 0).then_some(Ratio { numerator, denominator })
}

/// What the worst-warp lists and the heat map rank and colour by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Measure {
    /// Request-level sectors (global memory).
    Sectors,
    /// Sectors beyond the ideal ⌈distinct requested bytes ÷ sector⌉ (global memory).
    Excess,
    /// Shared-memory wavefronts.
    Wavefronts,
    /// Shared-memory bank conflicts: wavefronts beyond the ideal.
    Conflicts,
}

impl Measure {
    /// Every measure, in the order the page offers them.
    pub const ALL: [Measure; 4] = [
        Measure::Sectors,
        Measure::Excess,
        Measure::Wavefronts,
        Measure::Conflicts,
    ];

    /// The name in `data-` attributes: `sectors`, `excess`, `wavefronts`, `conflicts`.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Sectors => "sectors",
            Measure::Excess => "excess",
            Measure::Wavefronts => "wavefronts",
            Measure::Conflicts => "conflicts",
        }
    }

    /// The measure named `text`, if any.
    pub fn parse(text: &str) -> Option<Measure> {
        Measure::ALL.into_iter().find(|m| m.name() == text.trim())
    }

    /// What the figure counts, plural, for people: "sectors", "excess sectors", …
    pub fn unit(self) -> &'static str {
        match self {
            Measure::Sectors => "sectors",
            Measure::Excess => "excess sectors",
            Measure::Wavefronts => "wavefronts",
            Measure::Conflicts => "bank conflicts",
        }
    }

    pub(crate) fn at(self) -> usize {
        self as usize
    }
}

/// Each measure per (block, warp), summed over statements and iterations. Consecutive blocks
/// share a row when the launch is too big to show one row per block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeatMap {
    /// Blocks in the launch.
    pub blocks: u64,
    /// Blocks summed into each row: 1, or more for big grids; the last row may hold fewer.
    pub blocks_per_row: u64,
    /// Rows: blocks ÷ blocks_per_row, rounded up.
    pub rows: u64,
    /// Columns: warps per block.
    pub warps: u32,
    /// `cells[row × warps + warp][measure]`. Posted between the worker and the page as runs
    /// of equal cells ([`runs`]): a regular launch's 65,536 cells are one run.
    #[serde(with = "runs")]
    cells: Vec<[u64; 4]>,
}

/// Most cells a heat map holds before blocks are binned.
pub const MAX_HEAT_CELLS: u64 = 65_536;
/// Most bands of rows the heat map is drawn and described in: taller maps average
/// neighbouring rows into one.
pub const HEAT_BANDS: u64 = 96;

/// A heat map as drawn and described: rows of blocks in bands, each cell the mean over the
/// band's blocks, so that a band with fewer blocks (the last) is not drawn paler.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatBands {
    /// Which figure the cells hold: sectors, excess sectors, wavefronts or conflicts.
    pub measure: Measure,
    /// Blocks in each band; the last may hold fewer.
    pub blocks_per_band: u64,
    /// Bands drawn, at most [`HEAT_BANDS`].
    pub bands: u64,
    /// Columns: warps per block.
    pub warps: u32,
    /// `mean[band × warps + warp]`: the measure per warp, averaged over the band's blocks.
    pub mean: Vec<f64>,
    /// The least and the most cell.
    pub low: f64,
    /// The greatest cell mean; 0 for a map with no cells.
    pub high: f64,
}

impl HeatMap {
    /// An empty map of `blocks` blocks of `warps` warps, binned to [`MAX_HEAT_CELLS`].
    pub fn new(blocks: u64, warps: u32) -> HeatMap {
        let warps = warps.max(1);
        let rows_fit = (MAX_HEAT_CELLS / u64::from(warps)).max(1);
        let blocks_per_row = blocks.div_ceil(rows_fit).max(1);
        let rows = blocks.div_ceil(blocks_per_row);
        HeatMap {
            blocks,
            blocks_per_row,
            rows,
            warps,
            cells: vec![[0; 4]; (rows * u64::from(warps)) as usize],
        }
    }

    /// Adds one warp instruction's figures, by [`Measure`] order.
    #[inline]
    pub fn add(&mut self, block: u64, warp: u32, costs: [u64; 4]) {
        let cell = (block / self.blocks_per_row) * u64::from(self.warps) + u64::from(warp);
        if let Some(c) = self.cells.get_mut(cell as usize) {
            for (sum, cost) in c.iter_mut().zip(costs) {
                *sum += cost;
            }
        }
    }

    /// The cell of `row` and `warp` for `measure`, 0 outside the map.
    pub fn at(&self, row: u64, warp: u32, measure: Measure) -> u64 {
        let cell = row * u64::from(self.warps) + u64::from(warp);
        self.cells.get(cell as usize).map_or(0, |c| c[measure.at()])
    }

    /// Whether any cell has a non-zero `measure`.
    pub fn has(&self, measure: Measure) -> bool {
        self.cells.iter().any(|c| c[measure.at()] > 0)
    }

    /// The map in at most `max_bands` bands of rows, each cell the mean per block.
    ///
    /// ```
    /// use coalescing_lab::model::kernel::{analyze_kernel, KernelInputs, Machine, Measure};
    /// let mut inputs = KernelInputs::default();
    /// inputs.grid = "3".into();
    /// let a = analyze_kernel(&inputs.kernel(Machine::default()).unwrap()).unwrap();
    /// // Three blocks in bands of two: the last band holds one block, and its mean is the same.
    /// let bands = a.heat.bands(2, Measure::Sectors);
    /// assert_eq!((bands.bands, bands.blocks_per_band), (2, 2));
    /// assert_eq!(bands.mean, [4.0, 4.0]);
    /// assert_eq!((bands.low, bands.high), (4.0, 4.0));
    /// ```
    pub fn bands(&self, max_bands: u64, measure: Measure) -> HeatBands {
        let rows_per_band = self.rows.div_ceil(max_bands.max(1)).max(1);
        let bands = self.rows.div_ceil(rows_per_band).max(1);
        let blocks_per_band = self.blocks_per_row * rows_per_band;
        let warps = self.warps.max(1);
        let mut mean = Vec::with_capacity((bands * u64::from(warps)) as usize);
        for band in 0..bands {
            let first_block = band * blocks_per_band;
            let blocks = self
                .blocks
                .min(first_block + blocks_per_band)
                .saturating_sub(first_block)
                .max(1);
            let rows = band * rows_per_band..((band + 1) * rows_per_band).min(self.rows);
            for warp in 0..warps {
                let sum: u64 = rows.clone().map(|r| self.at(r, warp, measure)).sum();
                mean.push(sum as f64 / blocks as f64);
            }
        }
        let low = mean.iter().copied().fold(f64::INFINITY, f64::min);
        let high = mean.iter().copied().fold(0.0, f64::max);
        HeatBands {
            measure,
            blocks_per_band,
            bands,
            warps,
            low: if low.is_finite() { low } else { 0.0 },
            high,
            mean,
        }
    }
}

/// The heat map's cells as text for the worker's answer: runs of equal consecutive cells,
/// `a,b,c,d` for one cell and `a,b,c,d*k` for `k`, joined by `;`.
///
/// As a JSON array of arrays, the 4096² transposes' maps were 923 KB that the worker wrote
/// and the page read back (14.6 ms of the page's task, measured in a trace), though every cell
/// of them is the same; as runs they are a few bytes. A map with no two equal neighbours is
/// about the size it was.
mod runs {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Write as _;

    /// Most cells a text may expand to: more than any map holds ([`super::MAX_HEAT_CELLS`], or
    /// one row of a block wider than that), so that a bad count cannot ask for the memory.
    const MOST_CELLS: u64 = 1 << 24;

    pub(super) fn serialize<S: Serializer>(cells: &[[u64; 4]], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&encode(cells))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<[u64; 4]>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        decode(&text).map_err(D::Error::custom)
    }

    pub(super) fn encode(cells: &[[u64; 4]]) -> String {
        let mut text = String::new();
        for run in cells.chunk_by(|x, y| x == y) {
            if !text.is_empty() {
                text.push(';');
            }
            let [a, b, c, d] = run[0];
            let _ = write!(text, "{a},{b},{c},{d}");
            if run.len() > 1 {
                let _ = write!(text, "*{}", run.len());
            }
        }
        text
    }

    pub(super) fn decode(text: &str) -> Result<Vec<[u64; 4]>, String> {
        let mut cells = Vec::new();
        if text.is_empty() {
            return Ok(cells);
        }
        let number = |t: &str| {
            t.parse::<u64>()
                .map_err(|_| format!("the heat map's cell {t:?} is not a count"))
        };
        for run in text.split(';') {
            let (cell, k) = match run.split_once('*') {
                Some((cell, k)) => (cell, number(k)?),
                None => (run, 1),
            };
            let mut values = cell.split(',');
            let mut next = || number(values.next().unwrap_or_default());
            let one = [next()?, next()?, next()?, next()?];
            if values.next().is_some() {
                return Err(format!(
                    "the heat map's cell {cell:?} has more than 4 figures"
                ));
            }
            if k == 0 || cells.len() as u64 + k > MOST_CELLS {
                return Err(format!("the heat map's run of {k} cells does not fit"));
            }
            cells.extend(std::iter::repeat_n(one, k as usize));
        }
        Ok(cells)
    }
}

#[cfg(test)]
mod tests {
    use super::runs::{decode, encode};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any cells come back as they went, runs or not, up to the largest counts.
        #[test]
        fn cells_come_back_from_their_runs(
            cells in proptest::collection::vec(
                prop_oneof![
                    4 => (0u64..3, 0u64..2, 0u64..2, 0u64..2).prop_map(|(a, b, c, d)| [a, b, c, d]),
                    1 => any::<[u64; 4]>(),
                ],
                0..300,
            )
        ) {
            let text = encode(&cells);
            prop_assert_eq!(decode(&text), Ok(cells.clone()));
            // The text never holds more cells than there are.
            prop_assert!(text.split(';').filter(|r| !r.is_empty()).count() <= cells.len());
        }

        /// Any text decodes or is refused, and never panics or expands past the bound.
        #[test]
        fn any_text_decodes_or_is_refused(text in "[0-9,;*]{0,40}") {
            if let Ok(cells) = decode(&text) {
                prop_assert!(cells.len() as u64 <= 1 << 24);
            }
        }
    }

    /// A regular launch's map is one run; a whole heat map crosses JSON unchanged.
    #[test]
    fn a_regular_map_is_one_run() {
        let mut map = HeatMap::new(16_384, 8);
        for block in 0..16_384 {
            for warp in 0..8 {
                map.add(block, warp, [16, 0, 0, 0]);
            }
        }
        // 8,192 rows of two blocks each.
        assert_eq!(encode(&map.cells), "32,0,0,0*65536");
        let json = serde_json::to_string(&map).unwrap();
        assert!(json.len() < 200, "{json}");
        assert_eq!(serde_json::from_str::<HeatMap>(&json).unwrap(), map);
    }

    /// Bad texts are refused with the field named: a figure missing or extra, a count that is
    /// not one, a run of none or of more cells than any map holds.
    #[test]
    fn bad_runs_are_refused() {
        for bad in [
            "1,2,3",
            "1,2,3,4,5",
            "1,2,3,x",
            "1,2,3,-4",
            "1,2,3,4*0",
            "1,2,3,4*",
            "1,2,3,4*16777217",
            "1,2,3,4*99999999999999999999",
            ";",
            "1,2,3,4;",
        ] {
            let why = decode(bad).unwrap_err();
            assert!(why.starts_with("the heat map's"), "{bad}: {why}");
        }
        assert_eq!(decode(""), Ok(Vec::new()));
    }
}
