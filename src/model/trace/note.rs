//! What the trace panel says beside the figures, worded once.

use super::{BLOCK_BUFFER, MAX_LAUNCHES_TRACKED, POOLED_AFTER};
use std::fmt;

/// A remark about a whole trace, worded once in its `Display`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// The file is UTF-16, which is not read.
    Utf16,
    /// An Accel-Sim block had more than [`BLOCK_BUFFER`] records: replayed in parts.
    BlockInParts,
    /// The distinct-sector count reached its budget: `unique` is a lower bound.
    UniqueLowerBound {
        /// Distinct sectors recorded before the budget stopped the count.
        unique: u64,
    },
    /// Accesses of several kernel launches, counted together.
    Launches {
        /// Distinct launches seen (up to [`MAX_LAUNCHES_TRACKED`], then "more than").
        count: usize,
    },
    /// More than [`POOLED_AFTER`] instructions: the later ones' write-backs are pooled.
    Pooled {
        /// Static memory instructions in the trace.
        instructions: usize,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Utf16 => f.write_str(
                "The file is UTF-16 text; traces are read as UTF-8 or ASCII: convert it first \
                 (e.g. iconv -f UTF-16 -t UTF-8).",
            ),
            Note::BlockInParts => write!(
                f,
                "A thread block has more than {BLOCK_BUFFER} memory instructions: its warps \
                 were interleaved in parts of that size."
            ),
            Note::UniqueLowerBound { unique } => write!(
                f,
                "The trace touches more distinct sectors, spread more thinly, than their count \
                 can hold in {} MiB: the distinct-sector figure ({unique}) is a lower bound; \
                 every other figure is exact.",
                crate::model::warp::UNIQUE_BUDGET_BYTES >> 20
            ),
            Note::Launches { count } => write!(
                f,
                "The trace holds {}{count} kernel launches (NVBit's grid_launch_id), counted \
                 together: the figures are their sum, and the cache model keeps its contents \
                 from one launch to the next, as an L2 does between back-to-back launches.",
                if *count >= MAX_LAUNCHES_TRACKED {
                    "more than "
                } else {
                    ""
                }
            ),
            Note::Pooled { instructions } => write!(
                f,
                "The trace has {instructions} memory instructions: write-backs of the \
                 instructions after the first {POOLED_AFTER} are charged to the \
                 {POOLED_AFTER}th; the totals are exact."
            ),
        }
    }
}
