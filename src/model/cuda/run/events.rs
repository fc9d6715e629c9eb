//! What one warp records while it runs, for its block's replay: its accesses (each active
//! lane's address) and the barriers it reached, in its own order.

use super::*;

/// The lanes of `mask` given their addresses in order (`compact`), spread to one entry per
/// lane; entries of inactive lanes are 0.
pub(super) fn spread(mask: u64, compact: &[u64]) -> [u64; crate::model::LANES] {
    let mut lanes = [0u64; crate::model::LANES];
    let mut rest = mask;
    for a in compact {
        let t = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if let Some(slot) = lanes.get_mut(t) {
            *slot = *a;
        }
    }
    lanes
}

/// The warp core's access kind for a site's: an atomic is counted as a store (with
/// [`Tally::atomic`] for its fetch).
pub(super) fn access_kind(kind: SiteKind) -> AccessKind {
    if kind == SiteKind::Load {
        AccessKind::Load
    } else {
        AccessKind::Store
    }
}

/// What one warp did, in order: its accesses (the addresses of each one's active lanes in
/// `addresses`, lowest lane first) and the barriers it reached.
#[derive(Clone, Debug, Default)]
pub(crate) struct Events {
    pub(crate) list: Vec<Event>,
    pub(crate) addresses: Vec<u64>,
}

impl Events {
    /// Event `k` when it is an access, with its active lanes' addresses.
    pub(crate) fn access(&self, k: usize) -> Option<Recorded<'_>> {
        let Event::Access(access) = *self.list.get(k)? else {
            return None;
        };
        let compact = self
            .addresses
            .get(access.at..access.at + access.mask.count_ones() as usize)?;
        Some(Recorded { access, compact })
    }
}

/// One access a warp recorded, with its active lanes' addresses, lowest lane first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded<'a> {
    /// The access as the warp recorded it.
    pub(crate) access: Access,
    /// The addresses of its active lanes.
    pub(crate) compact: &'a [u64],
}

impl Recorded<'_> {
    /// The warp core's access of warp `warp` of block `block` (linear), with every lane's
    /// address in `lanes`.
    pub(super) fn warp_access<'l>(
        &self,
        block: u64,
        warp: u32,
        lanes: &'l [u64],
    ) -> WarpAccess<'l> {
        WarpAccess {
            site: self.access.site as usize,
            kind: access_kind(self.access.kind),
            space: self.access.space,
            elem: self.access.elem,
            block,
            warp,
            mask: self.access.mask,
            addresses: lanes,
            stride: None,
        }
    }

    /// The page's row of this execution, the warp's `pass`-th of its site, at its cost.
    pub(super) fn execution(
        &self,
        block: [u64; 3],
        warp: u32,
        pass: u32,
        cost: Cost,
    ) -> WarpExecution {
        WarpExecution {
            site: self.access.site as usize,
            block,
            warp,
            pass,
            mask: self.access.mask,
            addresses: self.compact.to_vec(),
            cost,
        }
    }
}

/// A memory access a warp made: its site, and where its lanes' addresses begin.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub(crate) site: u32,
    pub(crate) kind: SiteKind,
    pub(crate) space: Space,
    pub(crate) elem: u64,
    /// Its active lanes.
    pub(crate) mask: u64,
    /// Where its lanes' addresses begin in [`Events::addresses`].
    pub(crate) at: usize,
    /// A store whose lanes all store one known value.
    pub(crate) same_value: bool,
}

/// One event of a warp.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// A memory access.
    Access(Access),
    /// `__syncwarp()`: orders the lanes of the warp.
    SyncWarp,
    /// `__syncthreads()` reached by the lanes of `mask`.
    Barrier {
        site: u32,
        mask: u64,
        pos: Pos,
        /// The line of the innermost `if` or loop around it, if any.
        branch: Option<u32>,
    },
}
