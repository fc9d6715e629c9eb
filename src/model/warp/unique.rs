//! Distinct sectors over a whole launch, overall and per access site: a paged map from sector
//! index to a byte whose bit `b` says site `8g + b` of the page's group `g` touched it.
//!
//! A page covers 4096 consecutive sectors. It starts sparse, a sorted list of the sectors
//! touched in it (4 bytes each), and becomes a dense array of 4096 bytes once it holds 256 of
//! them. So memory follows the distinct sectors, whatever their spread: a launch over 4M
//! consecutive sectors holds about 4 MB, and one whose sectors all lie 4 MiB apart holds tens
//! of bytes per sector. Past [`UNIQUE_BUDGET_BYTES`] nothing more is recorded and
//! [`UniqueSectors::over_budget`] says so, so the caller can stop with a message.
//!
//! Up to 8 sites share one set of pages, and the whole-launch count reads the same bytes. With
//! more sites, each group of 8 has its own pages and the whole-launch count its own: no site
//! aliases another, however many there are.

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
/// A page key is `group << GROUP_SHIFT | page`: sectors are at least 8 bytes, so a page
/// number is below 2^49.
const GROUP_SHIFT: u32 = 49;
/// Sites counted one by one; a site past them is counted in the whole-launch figure only.
pub(crate) const MAX_COUNTED_SITES: usize = 8 << (64 - GROUP_SHIFT - 1);

/// Entries of the memo of recently used pages (a power of two).
const RECENT_PAGES: usize = 256;
/// A key no page has: a group number is below 2^15.
const NO_KEY: u64 = u64::MAX;

/// Sites whose counters exist from the start; more are added as they come.
pub(crate) const PRESIZED_SITES: usize = 256;

/// The most memory the distinct-sector count may hold: 512 MiB. Dense pages need one byte a
/// sector, so 2^28 lane-accesses on consecutive sectors fit in 256 MiB; sectors scattered
/// one or a few per 128 KiB page cost up to 64 bytes each.
pub const UNIQUE_BUDGET_BYTES: u64 = 512 << 20;

#[derive(Clone, Debug)]
enum Page {
    /// `(offset << 8) | site bits`, sorted by offset.
    Sparse(Vec<u32>),
    Dense(Box<[u8; PAGE_SECTORS]>),
}

/// Which figures are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// The whole-launch count only.
    Total,
    /// Up to 8 sites, in the bits of one set of pages.
    Narrow,
    /// More sites: group 0 holds the whole-launch count, group `1 + s / 8` site `s`.
    Wide,
}

/// Distinct sectors touched, overall and by each site.
#[derive(Clone, Debug)]
pub(crate) struct UniqueSectors {
    layout: Layout,
    pages: Vec<Page>,
    index: HashMap<u64, u32, BuildHasherDefault<LineHasher>>,
    /// A direct-mapped memo in front of `index`: `recent[key % RECENT_PAGES]` is the key and
    /// position of the last page looked up there. A strided warp moves between a few pages
    /// from one lane to the next, and the warps after it between the same ones.
    recent: Box<[(u64, u32); RECENT_PAGES]>,
    /// The key of the last page marked and its position in `pages`, for each of the two
    /// keys a wide insert marks.
    last: [Option<(u64, u32)>; 2],
    /// Bytes held, as counted against the budget.
    bytes: u64,
    /// The budget: [`UNIQUE_BUDGET_BYTES`], or less for a test.
    budget: u64,
    /// Whether a sector went unrecorded because the budget was reached.
    over: bool,
    /// Distinct sectors touched by any site.
    pub(crate) total: u64,
    /// Distinct sectors touched by site `s`; empty when only the total is kept. Grows as
    /// sites come, up to `counted`.
    pub(crate) by_site: Vec<u64>,
    /// Sites counted one by one.
    counted: usize,
}

impl Default for UniqueSectors {
    /// The whole-launch count only.
    fn default() -> UniqueSectors {
        UniqueSectors::new(None)
    }
}

impl UniqueSectors {
    /// A count of the whole launch, and of each of `sites` sites when given (at most
    /// [`MAX_COUNTED_SITES`] of them are counted one by one).
    pub(crate) fn new(sites: Option<usize>) -> UniqueSectors {
        let (layout, counted) = match sites {
            None => (Layout::Total, 0),
            Some(n) if n <= 8 => (Layout::Narrow, n),
            Some(n) => (Layout::Wide, n.min(MAX_COUNTED_SITES)),
        };
        UniqueSectors {
            layout,
            pages: Vec::new(),
            index: HashMap::default(),
            recent: Box::new([(NO_KEY, 0); RECENT_PAGES]),
            last: [None; 2],
            bytes: 0,
            budget: UNIQUE_BUDGET_BYTES,
            over: false,
            total: 0,
            by_site: vec![0; counted.min(PRESIZED_SITES)],
            counted,
        }
    }

    /// Records that site `site` touched `sector`. Past the budget, a sector on a page not
    /// yet held, or one that would grow a page, is not recorded, and
    /// [`UniqueSectors::over_budget`] turns true.
    // Always inlined, with `mark`: once per sector, called from several chunks, where a call
    // crosses modules (as `SectorCache::load`).
    #[inline(always)]
    pub(crate) fn insert(&mut self, sector: u64, site: usize) {
        let page = sector >> PAGE_SHIFT;
        let offset = (sector as usize) & (PAGE_SECTORS - 1);
        match self.layout {
            Layout::Total => {
                if self.mark(0, page, offset, 1) == Some(0) {
                    self.total += 1;
                }
            }
            Layout::Narrow => {
                let bit = 1u8 << (site & 7);
                let Some(before) = self.mark(0, page, offset, bit) else {
                    return;
                };
                if before & bit == 0 {
                    if before == 0 {
                        self.total += 1;
                    }
                    if let Some(n) = self.by_site.get_mut(site) {
                        *n += 1;
                    }
                }
            }
            Layout::Wide => {
                if self.mark(0, page, offset, 1) == Some(0) {
                    self.total += 1;
                }
                if site >= self.counted {
                    return;
                }
                if site >= self.by_site.len() {
                    self.by_site.resize(site + 1, 0);
                }
                let key = ((1 + (site >> 3)) as u64) << GROUP_SHIFT | page;
                let bit = 1u8 << (site & 7);
                if self.mark(1, key, offset, bit).is_some_and(|b| b & bit == 0) {
                    if let Some(n) = self.by_site.get_mut(site) {
                        *n += 1;
                    }
                }
            }
        }
    }

    /// Sets `bit` for sector `offset` of the page keyed `key`, and returns the bits it had;
    /// `None` when the budget kept it from being recorded. `memo` picks the last-page memo.
    #[inline(always)] // once per sector: see `insert`
    fn mark(&mut self, memo: usize, key: u64, offset: usize, bit: u8) -> Option<u8> {
        let at = match self.last[memo & 1] {
            Some((k, at)) if k == key => at,
            _ => {
                let at = self.page_at(key)?;
                self.last[memo & 1] = Some((key, at));
                at
            }
        };
        let page = self.pages.get_mut(at as usize)?;
        match page {
            Page::Dense(bytes) => {
                let seen = &mut bytes[offset];
                let before = *seen;
                *seen |= bit;
                Some(before)
            }
            Page::Sparse(entries) => {
                let key = (offset as u32) << 8;
                match entries.binary_search_by_key(&key, |e| e & !0xff) {
                    Ok(i) => {
                        let before = (entries[i] & 0xff) as u8;
                        entries[i] |= u32::from(bit);
                        Some(before)
                    }
                    Err(i) => {
                        let grows = entries.len() == entries.capacity();
                        if grows && self.bytes + entries.capacity().max(4) as u64 * 4 > self.budget
                        {
                            self.over = true;
                            return None;
                        }
                        let old_capacity = entries.capacity();
                        entries.insert(i, key | u32::from(bit));
                        self.bytes += (entries.capacity() - old_capacity) as u64 * 4;
                        if entries.len() >= DENSE_AT {
                            self.densify(at);
                        }
                        Some(0)
                    }
                }
            }
        }
    }

    /// Lowers the memory the count may hold from [`UNIQUE_BUDGET_BYTES`] to `bytes`: for
    /// tests of what a front end shows past the budget, which the full budget reaches only
    /// with hundreds of MiB.
    pub(crate) fn set_budget(&mut self, bytes: u64) {
        self.budget = bytes.min(UNIQUE_BUDGET_BYTES);
    }

    /// True when some sector could not be recorded within [`UNIQUE_BUDGET_BYTES`]: the
    /// distinct-sector figures are then incomplete and must not be shown.
    pub(crate) fn over_budget(&self) -> bool {
        self.over
    }

    /// The position of the page keyed `key` in `pages`, adding it (sparse) on first sight;
    /// `None` when a new page would pass the budget.
    fn page_at(&mut self, key: u64) -> Option<u32> {
        let memo = (key as usize) & (RECENT_PAGES - 1);
        if self.recent[memo].0 == key {
            return Some(self.recent[memo].1);
        }
        if let Some(&at) = self.index.get(&key) {
            self.recent[memo] = (key, at);
            return Some(at);
        }
        if self.bytes + PAGE_OVERHEAD_BYTES > self.budget {
            self.over = true;
            return None;
        }
        let at = self.pages.len() as u32;
        self.index.insert(key, at);
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
        let mut u = UniqueSectors::new(Some(8));
        for k in 0..100_000u64 {
            u.insert(k << 17, 0);
        }
        assert_eq!(u.total, 100_000);
        assert!(u.bytes <= 100_000 * 64, "{} bytes", u.bytes);
        assert!(!u.over_budget());
    }

    #[test]
    fn a_page_turns_dense_and_keeps_every_count() {
        let mut u = UniqueSectors::new(Some(8));
        // Every other sector of one page by statement 0, then all by statement 1.
        for s in (0..PAGE_SECTORS as u64).step_by(2) {
            u.insert(s, 0);
        }
        for s in 0..PAGE_SECTORS as u64 {
            u.insert(s, 1);
        }
        assert_eq!(u.total, PAGE_SECTORS as u64);
        assert_eq!(
            u.by_site[..2],
            [PAGE_SECTORS as u64 / 2, PAGE_SECTORS as u64]
        );
        assert!(matches!(u.pages[0], Page::Dense(_)));
    }

    #[test]
    fn sparse_and_dense_pages_agree_with_a_set() {
        use std::collections::BTreeSet;
        let mut u = UniqueSectors::new(Some(8));
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
            assert_eq!(u.by_site[stmt], n);
        }
    }

    #[test]
    fn many_sites_never_alias_and_agree_with_a_set() {
        // Regression: with `& 7`, site 9 was counted as site 1.
        use std::collections::BTreeSet;
        let mut u = UniqueSectors::new(Some(20));
        let mut set = BTreeSet::new();
        let mut x = 99u64;
        for _ in 0..30_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let sector = (x >> 50) & 0x1fff;
            let site = (x >> 20) as usize % 20;
            u.insert(sector, site);
            set.insert((sector, site));
        }
        let distinct: BTreeSet<u64> = set.iter().map(|&(s, _)| s).collect();
        assert_eq!(u.total, distinct.len() as u64);
        for site in 0..20 {
            let n = set.iter().filter(|&&(_, s)| s == site).count() as u64;
            assert_eq!(u.by_site[site], n, "site {site}");
        }
        // The whole-launch count alone agrees too.
        let mut t = UniqueSectors::default();
        for &(sector, site) in &set {
            t.insert(sector, site);
        }
        assert_eq!((t.total, t.by_site.len()), (distinct.len() as u64, 0));
    }
}
