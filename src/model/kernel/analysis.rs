//! What a finished launch reports: per-statement figures, the worst warp instructions, and the
//! FLOPs for the Roofline lab. The figures, the measures and the heat map are the warp
//! core's (`model::warp`), shared with every front end.
//!
//! Plain data with the derived ratios as methods, so the panel only displays. Knows nothing of
//! how the figures were counted (`run`) or drawn.

use super::super::exact::Exact;
use super::super::flops::KERNEL_FLOPS;
use super::super::ratio::Ratio;
use super::super::roofline::Work;
pub use super::super::warp::{Figures, HeatBands, HeatMap, Measure, HEAT_BANDS, MAX_HEAT_CELLS};
use super::inputs::{AccessKind, Machine};
use serde::{Deserialize, Serialize};

/// One statement's row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatementFigures {
    /// N in `aN`.
    pub number: u8,
    /// The label: the typed name or `aN`.
    pub name: String,
    /// Load, store or barrier.
    pub kind: AccessKind,
    /// The memory it accesses; global for a barrier.
    pub space: super::super::inputs::Space,
    /// Its figures over every warp and iteration; `unique_sectors` counts each of its sectors once.
    pub figures: Figures,
}

/// One warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpRow {
    /// The block's linear number, `bx + by·Gx + bz·Gx·Gy`.
    pub block: u64,
    /// The block's `(x, y, z)`.
    pub block_idx: [u32; 3],
    /// The warp within its block.
    pub warp: u32,
    /// N in `aN`.
    pub stmt: u8,
    /// The iteration, counting from 0.
    pub iteration: u64,
    /// The value of `i` in that iteration.
    pub iter: i64,
    /// Lane 0's address; `None` when lane 0 is inactive.
    pub lane0_address: Option<u64>,
    /// Lanes of the warp that took part, 0 to the warp width.
    pub active_lanes: u32,
    /// Distinct sectors, counted cold; 0 for a shared-memory statement, which moves none.
    pub sectors: u64,
    /// ⌈distinct requested bytes ÷ sector⌉: the fewest sectors that could carry the bytes;
    /// 0 for a shared-memory statement.
    pub ideal_sectors: u64,
    /// elem × active lanes.
    pub requested_bytes: u64,
    /// sectors × sector size; 0 for a shared-memory statement.
    pub transferred_bytes: u64,
    /// Wavefronts and their ideal for a shared-memory statement; `None` for global memory,
    /// whose sectors are the figure (a shared statement's sectors are not traffic).
    pub wavefronts: Option<super::super::banks::Wavefronts>,
}

impl WarpRow {
    /// requested ÷ transferred; `None` when no lane is active.
    pub fn useful_fraction(&self) -> Option<Ratio> {
        (self.transferred_bytes > 0).then_some(Ratio {
            numerator: self.requested_bytes,
            denominator: self.transferred_bytes,
        })
    }

    /// Sectors beyond the ideal.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors.saturating_sub(self.ideal_sectors)
    }

    /// The row's figure for `measure`: 0 where it does not apply (wavefronts of a global
    /// access, sectors of a shared one).
    pub fn cost(&self, measure: Measure) -> u64 {
        match measure {
            Measure::Sectors => self.sectors,
            Measure::Excess => self.excess_sectors(),
            Measure::Wavefronts => self.wavefronts.map_or(0, |w| w.wavefronts),
            Measure::Conflicts => self.wavefronts.map_or(0, |w| w.conflicts()),
        }
    }
}

/// Everything the kernel view shows for one launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelAnalysis {
    /// Warp width, sector and line sizes the launch was counted on.
    pub machine: Machine,
    /// 0 for no cache.
    pub cache_bytes: u64,
    /// The whole kernel: the sum of the statements, except `unique_sectors`, which counts a
    /// sector touched by two statements once.
    pub total: Figures,
    /// One row per statement, in order.
    pub statements: Vec<StatementFigures>,
    /// The 10 warp instructions with the most sectors, most first; ties in execution order.
    pub worst: Vec<WarpRow>,
    /// The same for excess sectors, wavefronts and bank conflicts: see [`KernelAnalysis::worst_by`].
    pub(crate) worst_other: [Vec<WarpRow>; 3],
    /// Sectors, excess, wavefronts and conflicts per (block, warp), binned for big grids.
    pub heat: HeatMap,
    /// FLOPs per thread per iteration × every thread of the launch × iterations: inactive
    /// threads are counted too, since a guard usually skips the memory access only.
    pub total_flops: Exact,
    /// Remarks to show beside the figures.
    pub notes: Vec<String>,
}

impl KernelAnalysis {
    /// What "Use this kernel in the Roofline lab" hands over: the total FLOPs over the
    /// launch's DRAM and request-level bytes, as the points named `kernel`.
    pub fn work(&self) -> Work {
        Work {
            flops: self.total_flops,
            dram_bytes: self.total.dram_bytes(),
            request_bytes: self.total.transferred_bytes,
            name: "kernel".into(),
            field: KERNEL_FLOPS,
        }
    }

    /// The 10 warp instructions with the most `measure`, most first; ties in execution order.
    /// Instructions with none of it are not listed.
    pub fn worst_by(&self, measure: Measure) -> &[WarpRow] {
        match measure {
            Measure::Sectors => &self.worst,
            Measure::Excess => &self.worst_other[0],
            Measure::Wavefronts => &self.worst_other[1],
            Measure::Conflicts => &self.worst_other[2],
        }
    }

    /// What the page ranks by at first: bank conflicts when the kernel has any (the tiled
    /// lessons), sectors otherwise.
    pub fn default_measure(&self) -> Measure {
        if self.total.bank_conflicts() > 0 {
            Measure::Conflicts
        } else {
            Measure::Sectors
        }
    }
}
