//! The machine and the words every front end shares: the warp's width bound, the memory
//! spaces, what an access does, and the machine's warp, sector and line. Leaf vocabulary: it
//! imports nothing of the panels but the calculator's checked scenario, to read a machine
//! from it.

use super::inputs::Scenario;
use serde::{Deserialize, Serialize};

/// The widest warp any machine has (AMD's wave64): lane arrays are this long, and a lane mask
/// is a `u64`.
pub const LANES: usize = 64;

/// The cache the kernel view and the trace import model unless told otherwise: V100's L2,
/// 6 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 6 << 20;

/// The machine the kernel runs on: the calculator's `warp`, `sector` and `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// Lanes per warp, 1 to 64.
    pub warp: u32,
    /// Bytes per sector, a power of two from 8 to 1024.
    pub sector_bytes: u64,
    /// Bytes per cache line, a power-of-two multiple of the sector up to 4096.
    pub line_bytes: u64,
}

impl Machine {
    /// The machine of a checked calculator scenario.
    pub fn of(scenario: &Scenario) -> Machine {
        Machine {
            warp: scenario.warp,
            sector_bytes: scenario.sector_bytes,
            line_bytes: scenario.line_bytes,
        }
    }
}

impl Default for Machine {
    /// NVIDIA Volta and newer: 32 lanes, 32-byte sectors, 128-byte lines.
    fn default() -> Machine {
        Machine {
            warp: 32,
            sector_bytes: 32,
            line_bytes: 128,
        }
    }
}

/// The memory one instruction reads or writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Space {
    /// Device memory through the caches: sectors and lines.
    #[default]
    Global,
    /// On-chip shared memory: banks and wavefronts.
    Shared,
}

impl Space {
    /// The space named `text` (surrounding spaces ignored), if any.
    ///
    /// ```
    /// use coalescing_lab::model::inputs::Space;
    /// assert_eq!(Space::parse(" shared "), Some(Space::Shared));
    /// assert_eq!(Space::parse("local"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Space> {
        match text.trim() {
            "global" => Some(Space::Global),
            "shared" => Some(Space::Shared),
            _ => None,
        }
    }

    /// Its name in links and forms.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }
}

/// What a statement does: read, write, or wait at a barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AccessKind {
    /// Reads `elem` bytes per active lane; a miss fetches its sector from DRAM.
    Load,
    /// Writes `elem` bytes per active lane; a miss allocates its sector without fetching it.
    Store,
    /// `__syncthreads()`: no memory access; counted as one barrier per block each time the
    /// block reaches it.
    Sync,
}
