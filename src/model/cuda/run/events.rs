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
        let Event::Access {
            site,
            kind,
            space,
            elem,
            mask,
            at,
            ..
        } = *self.list.get(k)?
        else {
            return None;
        };
        let compact = self.addresses.get(at..at + mask.count_ones() as usize)?;
        Some(Recorded {
            site,
            kind,
            space,
            elem,
            mask,
            compact,
        })
    }
}

/// One access a warp recorded, with its active lanes' addresses, lowest lane first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded<'a> {
    pub(crate) site: u32,
    pub(crate) kind: SiteKind,
    space: Space,
    elem: u64,
    pub(crate) mask: u64,
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
            site: self.site as usize,
            kind: access_kind(self.kind),
            space: self.space,
            elem: self.elem,
            block,
            warp,
            mask: self.mask,
            addresses: lanes,
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
            site: self.site as usize,
            block,
            warp,
            pass,
            mask: self.mask,
            addresses: self.compact.to_vec(),
            cost,
        }
    }
}

/// One event of a warp.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// A memory access: its site, and where its lanes' addresses begin. `same_value`: a
    /// store whose lanes all store one known value.
    Access {
        site: u32,
        kind: SiteKind,
        space: Space,
        elem: u64,
        mask: u64,
        at: usize,
        same_value: bool,
    },
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
