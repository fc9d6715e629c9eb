//! Distinct sectors over a whole launch, overall and per statement: a paged map from sector
//! index to a byte whose bit `s` says statement `s` touched it.
//!
//! A page covers 4096 consecutive sectors. It starts sparse, a sorted list of the sectors
//! touched in it (4 bytes each), and becomes a dense array of 4096 bytes once it holds 256 of
//! them. So memory follows the distinct sectors, whatever their spread: a launch over 4M
//! consecutive sectors holds about 4 MB, and one whose sectors all lie 4 MiB apart holds tens
//! of bytes per sector (before, every isolated sector cost a 4 KiB page, and 2^20 of them
//! took all of wasm's 4 GiB). Past [`UNIQUE_BUDGET_BYTES`] nothing more is recorded and
//! [`UniqueSectors::over_budget`] says so, so the caller can stop with a message.

use super::cache::LineHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

const PAGE_SHIFT: u32 = 12;
const PAGE_SECTORS: usize = 1 << PAGE_SHIFT;
/// A sparse page becomes dense when it holds this many sectors: 1 KiB of entries, against
/// the dense page's 4 KiB.
const DENSE_AT: usize = 256;
/// Bytes a page costs beside its entries: its slot in the index and in the page list.
const PAGE_OVERHEAD_BYTES: u64 = 48;

/// The most memory the distinct-sector count may hold: 512 MiB. Dense pages need one byte a
/// sector, so 2^28 lane-accesses on consecutive sectors fit in 256 MiB; sectors scattered
/// one or a few per 128 KiB page cost up to 64 bytes each.
pub const UNIQUE_BUDGET_BYTES: u64 = 512 << 20;

#[derive(Clone, Debug)]
enum Page {
    /// `(offset << 8) | statement bits`, sorted by offset.
    Sparse(Vec<u32>),
    Dense(Box<[u8; PAGE_SECTORS]>),
}

/// Distinct sectors touched, overall and by each of up to 8 statements.
#[derive(Clone, Debug, Default)]
pub(crate) struct UniqueSectors {
    pages: Vec<Page>,
    index: HashMap<u64, u32, BuildHasherDefault<LineHasher>>,
    /// The page of the last access and its position in `pages`.
    last: Option<(u64, u32)>,
    /// Bytes held, as counted against the budget.
    bytes: u64,
    /// Whether a sector went unrecorded because the budget was reached.
    over: bool,
    /// Distinct sectors touched by any statement.
    pub(crate) total: u64,
    /// Distinct sectors touched by statement `s` (0-based position in the kernel).
    pub(crate) by_statement: [u64; 8],
}

impl UniqueSectors {
    /// Records that statement `stmt` (0 to 7) touched `sector`. Past the budget, a sector on
    /// a page not yet held, or one that would grow a page, is not recorded, and
    /// [`UniqueSectors::over_budget`] turns true.
    #[inline]
    pub(crate) fn insert(&mut self, sector: u64, stmt: usize) {
        let page = sector >> PAGE_SHIFT;
        let at = match self.last {
            Some((p, at)) if p == page => at,
            _ => {
                let Some(at) = self.page_at(page) else {
                    return;
                };
                self.last = Some((page, at));
                at
            }
        };
        let offset = (sector as usize) & (PAGE_SECTORS - 1);
        let bit = 1u8 << (stmt & 7);
        let Some(page) = self.pages.get_mut(at as usize) else {
            return;
        };
        let before = match page {
            Page::Dense(bytes) => {
                let seen = &mut bytes[offset];
                let before = *seen;
                *seen |= bit;
                before
            }
            Page::Sparse(entries) => {
                let key = (offset as u32) << 8;
                match entries.binary_search_by_key(&key, |e| e & !0xff) {
                    Ok(i) => {
                        let before = (entries[i] & 0xff) as u8;
                        entries[i] |= u32::from(bit);
                        before
                    }
                    Err(i) => {
                        let grows = entries.len() == entries.capacity();
                        if grows
                            && self.bytes + entries.capacity().max(4) as u64 * 4
                                > UNIQUE_BUDGET_BYTES
                        {
                            self.over = true;
                            return;
                        }
                        let old_capacity = entries.capacity();
                        entries.insert(i, key | u32::from(bit));
                        self.bytes += (entries.capacity() - old_capacity) as u64 * 4;
                        if entries.len() >= DENSE_AT {
                            self.densify(at);
                        }
                        0
                    }
                }
            }
        };
        if before & bit == 0 {
            if before == 0 {
                self.total += 1;
            }
            self.by_statement[stmt & 7] += 1;
        }
    }

    /// True when some sector could not be recorded within [`UNIQUE_BUDGET_BYTES`]: the
    /// distinct-sector figures are then incomplete and must not be shown.
    pub(crate) fn over_budget(&self) -> bool {
        self.over
    }

    /// The position of `page` in `pages`, adding it (sparse) on first sight; `None` when a
    /// new page would pass the budget.
    fn page_at(&mut self, page: u64) -> Option<u32> {
        if let Some(&at) = self.index.get(&page) {
            return Some(at);
        }
        if self.bytes + PAGE_OVERHEAD_BYTES > UNIQUE_BUDGET_BYTES {
            self.over = true;
            return None;
        }
        let at = self.pages.len() as u32;
        self.index.insert(page, at);
        self.pages.push(Page::Sparse(Vec::new()));
        self.bytes += PAGE_OVERHEAD_BYTES;
        Some(at)
    }

    /// Turns the sparse page at `at` into a dense one (which the budget allows: its entries
    /// cost more than a quarter of it already, and the freed list is credited back).
    fn densify(&mut self, at: u32) {
        let Some(page) = self.pages.get_mut(at as usize) else {
            return;
        };
        let Page::Sparse(entries) = page else {
            return;
        };
        let mut dense = Box::new([0u8; PAGE_SECTORS]);
        for &e in entries.iter() {
            dense[(e >> 8) as usize & (PAGE_SECTORS - 1)] = (e & 0xff) as u8;
        }
        self.bytes = self.bytes - entries.capacity() as u64 * 4 + PAGE_SECTORS as u64;
        *page = Page::Dense(dense);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolated_sectors_cost_tens_of_bytes_not_a_page() {
        // Regression (hostile pass H2): sectors 4 MiB apart took a 4 KiB page each.
        let mut u = UniqueSectors::default();
        for k in 0..100_000u64 {
            u.insert(k << 17, 0);
        }
        assert_eq!(u.total, 100_000);
        assert!(u.bytes <= 100_000 * 64, "{} bytes", u.bytes);
        assert!(!u.over_budget());
    }

    #[test]
    fn a_page_turns_dense_and_keeps_every_count() {
        let mut u = UniqueSectors::default();
        // Every other sector of one page by statement 0, then all by statement 1.
        for s in (0..PAGE_SECTORS as u64).step_by(2) {
            u.insert(s, 0);
        }
        for s in 0..PAGE_SECTORS as u64 {
            u.insert(s, 1);
        }
        assert_eq!(u.total, PAGE_SECTORS as u64);
        assert_eq!(
            u.by_statement[..2],
            [PAGE_SECTORS as u64 / 2, PAGE_SECTORS as u64]
        );
        assert!(matches!(u.pages[0], Page::Dense(_)));
    }

    #[test]
    fn sparse_and_dense_pages_agree_with_a_set() {
        use std::collections::BTreeSet;
        let mut u = UniqueSectors::default();
        let mut set = BTreeSet::new();
        let mut x = 12345u64;
        for n in 0..50_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // A mix of a dense region and scattered sectors.
            let sector = if n % 3 == 0 {
                x >> 40
            } else {
                (x >> 52) & 0x3fff
            };
            let stmt = (x >> 20) as usize % 3;
            u.insert(sector, stmt);
            set.insert((sector, stmt));
        }
        let distinct: BTreeSet<u64> = set.iter().map(|&(s, _)| s).collect();
        assert_eq!(u.total, distinct.len() as u64);
        for stmt in 0..3 {
            let n = set.iter().filter(|&&(_, s)| s == stmt).count() as u64;
            assert_eq!(u.by_statement[stmt], n);
        }
    }
}
