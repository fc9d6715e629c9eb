//! The tally of a stream of warp accesses: request-level sectors and their ideal, distinct
//! sectors, the cache model and its DRAM account, shared-memory wavefronts, barriers, per-site
//! figures, the worst warp accesses and the heat map. Every front end feeds this one loop, in
//! its execution order; only the order is theirs.
//!
//! Within one warp access its distinct sectors meet the cache in ascending address order. A
//! store that misses allocates its sector without a fetch; a dirty sector is written back
//! when its line is evicted, or at the end, and charged to the site whose store first
//! dirtied it in that stay.
//!
//! **A repeat** is a global access whose sectors, as merged runs, are exactly those of the
//! global access just before it, at the same site: the next warp of a block writing the same
//! sectors of a column, or reading the same vector. It adds no distinct sector. When its lines
//! fit in the cache, they are all still resident (they are the most recent ones, in the order
//! this access touches them again), so every sector hits and the LRU order comes out as it
//! was; and its states change only when a store meets a clean sector, so a load, or a store
//! after a store, leaves the cache exactly as it found it. Such a repeat is counted from the
//! previous access's runs without touching the distinct count or the cache
//! (`a_tally_agrees_with_a_byte_walking_oracle` in `tests/warp.rs` runs streams full of
//! repeats against the oracle).

use super::super::banks::Wavefronts;
use super::super::error::WireError;
use super::super::machine::{AccessKind, Machine, Space, LANES};
use super::super::span::Span;
use super::access::{Cost, WarpAccess};
use super::figures::{Figures, HeatMap, Measure};
use super::handoff::{decode_counts, lines_of, CacheFeed, CacheModel, Met};
use super::sectors::{LaneError, Scratch};
use super::unique::UniqueSectors;
use super::worst::WorstLists;

/// Write-backs of sites from this index on share one account: the cache model keeps one
/// byte of state per sector.
pub const POOLED_AFTER: usize = 253;

/// Raw counts for one site.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SiteCounts {
    /// Accesses offered, with an active lane or not.
    pub executions: u64,
    /// Accesses with an active lane (Nsight Compute's requests).
    pub requests: u64,
    /// Active lanes summed over the accesses.
    pub active_lanes: u64,
    /// elem × active lanes, summed over the requests.
    pub requested_bytes: u64,
    /// The requests to shared memory, a part of `requests`.
    pub shared_requests: u64,
    /// Bytes the shared-memory requests asked for, a part of `requested_bytes`.
    pub shared_requested_bytes: u64,
    /// Shared-memory wavefronts and their ideal, summed over the shared requests.
    pub wavefronts: Wavefronts,
    /// Barriers counted at this site.
    pub barriers: u64,
    /// Request-level sectors.
    pub sectors: u64,
    /// ⌈distinct requested bytes ÷ sector⌉, summed over the requests.
    pub ideal_sectors: u64,
    /// Sectors read from DRAM through the cache model (every sector with no cache).
    pub read_sectors: u64,
    /// Sectors written back, charged to this site.
    pub write_sectors: u64,
    /// Sector accesses that found their sector in the cache; 0 with no cache.
    pub hits: u64,
}

impl SiteCounts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &SiteCounts) {
        self.executions += other.executions;
        self.requests += other.requests;
        self.active_lanes += other.active_lanes;
        self.requested_bytes += other.requested_bytes;
        self.shared_requests += other.shared_requests;
        self.shared_requested_bytes += other.shared_requested_bytes;
        self.wavefronts.add(other.wavefronts);
        self.barriers += other.barriers;
        self.sectors += other.sectors;
        self.ideal_sectors += other.ideal_sectors;
        self.read_sectors += other.read_sectors;
        self.write_sectors += other.write_sectors;
        self.hits += other.hits;
    }

    /// Sectors beyond the ideal.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors.saturating_sub(self.ideal_sectors)
    }
}

/// What a tally keeps beside the counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TallyOptions {
    /// Warp width, sector and line sizes the accesses are counted on.
    pub machine: Machine,
    /// 0 for no cache.
    pub cache_bytes: u64,
    /// Distinct sectors per site for this many sites; `None` counts the whole launch only.
    pub unique_sites: Option<usize>,
    /// A heat map of `(blocks, warps per block)`.
    pub heat: Option<(u64, u32)>,
    /// Whether to keep the worst warp accesses.
    pub worst: bool,
}

impl TallyOptions {
    /// A tally of `machine` with a `cache_bytes` cache and nothing kept beside the counts.
    pub fn new(machine: Machine, cache_bytes: u64) -> TallyOptions {
        TallyOptions {
            machine,
            cache_bytes,
            unique_sites: None,
            heat: None,
            worst: false,
        }
    }
}

/// The running count of a stream of warp accesses. `R` is the front end's row for a worst
/// warp access.
///
/// ```
/// use coalescing_lab::model::warp::{Tally, TallyOptions, WarpAccess};
/// use coalescing_lab::model::{AccessKind, Machine, Space};
/// let mut tally: Tally = Tally::new(TallyOptions::new(Machine::default(), 6 << 20));
/// let addresses: Vec<u64> = (0..32).map(|t| 8 * t).collect();
/// let load = WarpAccess { site: 0, kind: AccessKind::Load, space: Space::Global, elem: 4,
///     block: 0, warp: 0, mask: u64::from(u32::MAX), addresses: &addresses, stride: None };
/// // Twice the same floats, 8 bytes apart: 8 sectors where 4 would do, then all hits.
/// tally.access(&load, |_| ()).unwrap();
/// tally.access(&load, |_| ()).unwrap();
/// tally.finish();
/// let f = tally.total();
/// assert_eq!((f.requests, f.sectors, f.ideal_sectors, f.hits), (2, 16, 8, Some(8)));
/// assert_eq!((f.unique_sectors, f.dram_read_bytes), (8, 256));
/// // Degenerate input: an access with no lane taking part is executed but requests nothing.
/// tally.access(&WarpAccess { mask: 0, ..load }, |_| ()).unwrap();
/// assert_eq!((tally.counts(0).executions, tally.total().requests), (3, 2));
/// ```
#[derive(Clone, Debug)]
pub struct Tally<R = ()> {
    machine: Machine,
    sector_shift: u32,
    cache: Cache,
    unique: UniqueSectors,
    scratch: Scratch,
    sites: Vec<SiteCounts>,
    worst: Option<WorstLists<R>>,
    heat: Option<HeatMap>,
    flushed: bool,
    last: LastGlobal,
}

/// Where a tally's cache model is.
#[derive(Clone, Debug)]
enum Cache {
    /// No cache: every sector goes to DRAM.
    Off,
    /// Kept here.
    Here(CacheModel),
    /// Kept by a [`super::CacheServer`] elsewhere, fed the accesses it must see.
    Away(CacheFeed),
}

/// The last global access the tally counted through the distinct count and the cache: what
/// a repeat is checked against.
#[derive(Clone, Debug)]
struct LastGlobal {
    /// Whether `runs` holds an access yet.
    valid: bool,
    site: usize,
    runs: [Span; LANES],
    count: usize,
    /// Lines its runs touch.
    lines: u64,
    /// Whether every one of its sectors is dirty in the cache now (a store or an atomic).
    dirty: bool,
}

impl Default for LastGlobal {
    fn default() -> LastGlobal {
        LastGlobal {
            valid: false,
            site: 0,
            runs: [Span { first: 0, last: 0 }; LANES],
            count: 0,
            lines: 0,
            dirty: false,
        }
    }
}

impl LastGlobal {
    /// Whether `runs` at `site` repeat this access exactly.
    #[inline]
    fn repeats(&self, site: usize, runs: &[Span]) -> bool {
        self.valid && self.site == site && self.runs.get(..self.count) == Some(runs)
    }
}

impl<R: Clone> Tally<R> {
    /// An empty tally.
    pub fn new(options: TallyOptions) -> Tally<R> {
        let m = options.machine;
        let sectors_per_line = (m.line_bytes / m.sector_bytes).max(1);
        Tally {
            machine: m,
            sector_shift: m.sector_bytes.trailing_zeros(),
            cache: if options.cache_bytes > 0 {
                Cache::Here(CacheModel::new(
                    (options.cache_bytes / m.line_bytes) as usize,
                    sectors_per_line,
                ))
            } else {
                Cache::Off
            },
            unique: UniqueSectors::new(options.unique_sites),
            scratch: Scratch::default(),
            sites: vec![
                SiteCounts::default();
                options
                    .unique_sites
                    .unwrap_or(0)
                    .min(super::unique::PRESIZED_SITES)
            ],
            worst: options.worst.then(WorstLists::default),
            heat: options
                .heat
                .map(|(blocks, warps)| HeatMap::new(blocks, warps)),
            flushed: false,
            last: LastGlobal::default(),
        }
    }

    /// The machine counted for.
    pub fn machine(&self) -> Machine {
        self.machine
    }

    /// Hands the cache model to a [`super::CacheServer`], before the first access: from now
    /// on the accesses it must see are written for it ([`Tally::cache_words`]), and its
    /// counts come back at the end ([`Tally::absorb_cache`]). Until then, every site's hits,
    /// DRAM reads and write-backs are only the part counted here. False, and nothing changes,
    /// with no cache.
    pub fn hand_off_cache(&mut self) -> bool {
        let Cache::Here(model) = &self.cache else {
            return false;
        };
        let m = self.machine;
        let sectors_per_line = (m.line_bytes / m.sector_bytes).max(1);
        self.cache = Cache::Away(CacheFeed::new(model.capacity() as u64, sectors_per_line));
        true
    }

    /// The words for the cache server written since the last call (none unless the cache was
    /// handed off); `end` closes the stream, after the last access.
    pub fn cache_words(&mut self, end: bool) -> Vec<u32> {
        match &mut self.cache {
            Cache::Away(feed) => feed.take(end),
            _ => Vec::new(),
        }
    }

    /// Adds the cache server's answer, at the end of a handed-off stream, to the sites'
    /// counts.
    pub fn absorb_cache(&mut self, answer: &[u32]) -> Result<(), WireError> {
        let counts = decode_counts(answer)?;
        if self.sites.len() < counts.len() {
            self.sites.resize(counts.len(), SiteCounts::default());
        }
        for (k, c) in self.sites.iter_mut().zip(&counts) {
            k.hits = k.hits.saturating_add(c.hits);
            k.read_sectors = k.read_sectors.saturating_add(c.reads);
            k.write_sectors = k.write_sectors.saturating_add(c.writes);
        }
        Ok(())
    }

    /// Counts one warp access and returns its cold cost. `row` builds the front end's row
    /// for the worst lists, only when one keeps it. An error names the lowest lane whose
    /// bytes run past 2^64; nothing of the access is counted then.
    #[inline]
    pub fn access(
        &mut self,
        access: &WarpAccess<'_>,
        row: impl FnOnce(&Cost) -> R,
    ) -> Result<Cost, LaneError> {
        self.count(access, false, row)
    }

    /// Counts one atomic read-modify-write (`atomicAdd`, …) of global memory as
    /// [`Tally::access`] counts a store, except that a sector the cache misses is fetched
    /// from DRAM before it is written.
    pub fn atomic(
        &mut self,
        access: &WarpAccess<'_>,
        row: impl FnOnce(&Cost) -> R,
    ) -> Result<Cost, LaneError> {
        self.count(access, true, row)
    }

    #[inline]
    fn count(
        &mut self,
        access: &WarpAccess<'_>,
        atomic: bool,
        row: impl FnOnce(&Cost) -> R,
    ) -> Result<Cost, LaneError> {
        let cost = self.scratch.measure(access, self.sector_shift)?;
        let site = access.site;
        if self.sites.len() <= site {
            self.sites.resize(site + 1, SiteCounts::default());
        }
        // In range: the sites were just grown to hold it.
        let k = &mut self.sites[site];
        k.executions += 1;
        if cost.active_lanes == 0 {
            return Ok(cost);
        }
        k.requests += 1;
        k.active_lanes += u64::from(cost.active_lanes);
        k.requested_bytes += cost.requested_bytes;
        if access.space == Space::Shared {
            k.shared_requests += 1;
            k.shared_requested_bytes += cost.requested_bytes;
            if let Some(w) = cost.wavefronts {
                k.wavefronts.add(w);
            }
        } else {
            k.sectors += cost.sectors;
            k.ideal_sectors += cost.ideal_sectors;
            let kind = if atomic { None } else { Some(access.kind) };
            self.global(site, kind, cost.sectors);
        }
        let measures = cost.measures();
        if let Some(heat) = self.heat.as_mut() {
            heat.add(access.block, access.warp, measures);
        }
        if let Some(worst) = self.worst.as_mut() {
            worst.offer(measures, || row(&cost));
        }
        Ok(cost)
    }

    /// The sectors of the last access measured through the distinct count and the cache.
    /// `kind` is `None` for an atomic.
    #[inline]
    fn global(&mut self, site: usize, kind: Option<AccessKind>, sectors: u64) {
        let store = kind == Some(AccessKind::Store);
        let atomic = kind.is_none();
        let owner = site.min(POOLED_AFTER) as u8;
        let Tally { scratch, cache, unique, sites, last, .. } = self;
        let runs = scratch.runs();
        let repeat = last.repeats(site, runs);
        // A repeat that leaves the cache as it found it: every sector hits (see the module's
        // doc).
        let capacity = match cache {
            Cache::Off => u64::MAX,
            Cache::Here(model) => model.capacity() as u64,
            Cache::Away(feed) => feed.capacity,
        };
        let unchanged =
            repeat && last.lines <= capacity && (kind == Some(AccessKind::Load) || last.dirty);
        let mut met = Met::default();
        if unchanged {
            if !matches!(cache, Cache::Off) {
                met.hits = runs.iter().map(|r| r.len()).sum();
            }
            last.dirty |= store || atomic;
        } else {
            if !repeat {
                for run in runs {
                    for sector in run.first..=run.last {
                        unique.insert(sector, site);
                    }
                }
                last.runs[..runs.len()].copy_from_slice(runs);
                last.count = runs.len();
                last.site = site;
                last.valid = true;
            }
            match cache {
                Cache::Off => {}
                Cache::Here(model) => {
                    met = model.meet(kind, owner, runs, |s| charge_write(sites, s));
                }
                Cache::Away(feed) => {
                    met.lines = lines_of(runs, feed.line_shift);
                    feed.push(site, kind, runs);
                }
            }
            last.lines = met.lines;
            last.dirty = store || atomic;
        }
        let no_cache = matches!(cache, Cache::Off);
        if let Some(k) = sites.get_mut(site) {
            k.hits += met.hits;
            match (no_cache, store) {
                (true, true) => k.write_sectors += sectors,
                (true, false) if atomic => {
                    k.read_sectors += sectors;
                    k.write_sectors += sectors;
                }
                (true, false) => k.read_sectors += sectors,
                (false, _) => k.read_sectors += met.reads,
            }
        }
    }

    /// Counts one barrier reached at `site` (once per block each time).
    pub fn barrier(&mut self, site: usize) {
        if self.sites.len() <= site {
            self.sites.resize(site + 1, SiteCounts::default());
        }
        if let Some(k) = self.sites.get_mut(site) {
            k.barriers += 1;
        }
    }

    /// Writes the dirty sectors back: the end of the stream. Later calls do nothing.
    pub fn finish(&mut self) {
        if std::mem::replace(&mut self.flushed, true) {
            return;
        }
        let Tally { cache, sites, .. } = self;
        if let Cache::Here(model) = cache {
            model.flush(|s| charge_write(sites, s));
        }
    }

    /// True when the distinct-sector count reached its memory budget: the distinct figures
    /// are then lower bounds, and every [`Figures`] of this tally says so.
    pub fn over_budget(&self) -> bool {
        self.unique.over_budget()
    }

    /// Lowers the distinct-sector count's memory budget to `bytes`: for tests of what a
    /// front end shows past it. Call it before the first access.
    #[doc(hidden)]
    pub fn unique_budget(&mut self, bytes: u64) {
        self.unique.set_budget(bytes);
    }

    /// Distinct sectors recorded so far, over every site.
    pub fn unique_total(&self) -> u64 {
        self.unique.total
    }

    /// Sites seen (or declared).
    pub fn sites(&self) -> usize {
        self.sites.len()
    }

    /// Site `site`'s raw counts; zeros for a site never seen.
    pub fn counts(&self, site: usize) -> SiteCounts {
        self.sites.get(site).copied().unwrap_or_default()
    }

    /// Site `site`'s figures. Its distinct sectors are 0 unless the tally counts them per
    /// site ([`TallyOptions::unique_sites`]).
    pub fn figures(&self, site: usize) -> Figures {
        let unique = self.unique.by_site.get(site).copied().unwrap_or(0);
        self.figures_of(&self.counts(site), unique)
    }

    /// The whole stream's figures: the sum of the sites, except the distinct sectors, which
    /// count a sector two sites touched once.
    pub fn total(&self) -> Figures {
        let mut sum = SiteCounts::default();
        for c in &self.sites {
            sum.add(c);
        }
        self.figures_of(&sum, self.unique.total)
    }

    /// The figures of counts the caller summed (a source line's sites, say), with `unique`
    /// distinct sectors, on this tally's machine and cache.
    pub fn figures_of(&self, c: &SiteCounts, unique: u64) -> Figures {
        let s = self.machine.sector_bytes;
        Figures {
            requests: c.requests,
            requested_bytes: c.requested_bytes,
            shared_requests: c.shared_requests,
            shared_requested_bytes: c.shared_requested_bytes,
            wavefronts: c.wavefronts.wavefronts,
            ideal_wavefronts: c.wavefronts.ideal,
            barriers: c.barriers,
            sectors: c.sectors,
            ideal_sectors: c.ideal_sectors,
            transferred_bytes: c.sectors * s,
            unique_sectors: unique,
            unique_lower_bound: self.unique.over_budget(),
            dram_read_bytes: c.read_sectors * s,
            dram_write_bytes: c.write_sectors * s,
            hits: (!matches!(self.cache, Cache::Off)).then_some(c.hits),
        }
    }

    /// The worst warp accesses by `measure`, most first; empty unless kept.
    pub fn worst(&self, measure: Measure) -> Vec<R> {
        self.worst.as_ref().map_or_else(Vec::new, |w| w.by(measure))
    }

    /// The heat map, when kept.
    pub fn heat(&self) -> Option<&HeatMap> {
        self.heat.as_ref()
    }
}

/// Charges one written-back sector to the site that owns it.
fn charge_write(sites: &mut [SiteCounts], owner: u8) {
    if let Some(k) = sites.get_mut(usize::from(owner)) {
        k.write_sectors += 1;
    }
}
