//! The boundary every front end crosses: one warp's execution of one memory access site, and
//! what it cost. The kernel view, a trace and CUDA source all speak it; the tally counts it.

use super::super::banks::Wavefronts;
use super::super::machine::{AccessKind, Space};
use serde::{Deserialize, Serialize};

/// One execution of access site `site` by one warp: the lanes that take part (`mask`, bit `t`
/// for lane `t`) and each one's first byte (`addresses[t]`, meaningless for a lane not in the
/// mask; a lane past the slice does not take part).
#[derive(Clone, Copy, Debug)]
pub struct WarpAccess<'a> {
    /// The front end's site: a statement, a static instruction, a source access.
    pub site: usize,
    /// A load or a store; a barrier is not an access ([`super::Tally::barrier`]).
    pub kind: AccessKind,
    /// Global memory (sectors and the cache) or shared memory (banks and wavefronts).
    pub space: Space,
    /// Bytes per lane, at least 1.
    pub elem: u64,
    /// The block's number in the front end's order (the linear block id).
    pub block: u64,
    /// The warp within its block.
    pub warp: u32,
    /// Active lanes: bit `t` set means lane `t` takes part; at most 64 lanes.
    pub mask: u64,
    /// Each lane's first byte address, indexed by lane.
    pub addresses: &'a [u64],
    /// The front end's word that the addresses are affine in the lane: every lane `t` of
    /// `mask` is at `addresses[f] + stride × (t − f)` exactly, `f` the mask's lowest lane, and
    /// no lane's bytes run past 2^64. The tally then takes the lanes' sectors from the ends
    /// and the stride without checking each lane (#26). `None`: no word, and the tally finds
    /// out for itself; a front end that cannot vouch for it must give `None`.
    pub stride: Option<i64>,
}

/// What one warp access cost, cold: the request-level figures the tally sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Lanes that took part; 0 makes no request.
    pub active_lanes: u32,
    /// elem × active lanes.
    pub requested_bytes: u64,
    /// Distinct sectors (global memory); 0 in shared memory.
    pub sectors: u64,
    /// ⌈distinct requested bytes ÷ sector⌉ (global memory); 0 in shared memory.
    pub ideal_sectors: u64,
    /// Wavefronts and their ideal, in shared memory only.
    pub wavefronts: Option<Wavefronts>,
}

impl Cost {
    /// Sectors beyond the ideal.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors.saturating_sub(self.ideal_sectors)
    }

    /// The cost by each [`super::Measure`], in its order: sectors, excess, wavefronts,
    /// conflicts.
    pub fn measures(&self) -> [u64; 4] {
        let (w, c) = self
            .wavefronts
            .map_or((0, 0), |w| (w.wavefronts, w.conflicts()));
        [self.sectors, self.excess_sectors(), w, c]
    }
}
