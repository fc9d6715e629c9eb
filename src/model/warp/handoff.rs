//! The cache model's half of a tally, on its own: [`CacheModel`] meets one global access's
//! distinct sectors with the LRU cache. A [`Tally`](super::Tally) keeps one itself, or hands
//! its cache to a second Web Worker (#26's lever: "split request-level and unique figures
//! across workers: only the cache depends on order"): the tally then writes each access the
//! cache must see into a stream of `u32` words, and a [`CacheServer`] on the other thread
//! meets them in the same order with the same model and answers, at the end, each site's hits,
//! DRAM reads and write-backs, which the tally adds to its own counts
//! ([`Tally::absorb_cache`](super::Tally::absorb_cache)). The figures are the same either way
//! (`a_cache_handed_off_counts_as_the_one_kept` in `tests/warp.rs`).
//!
//! The stream is a sequence of records, each starting with a header word: bits 0–1 the
//! record's kind, 2–3 the access's (a load, a store, an atomic), 4–11 its runs' count.
//!
//! - a start: the header, sectors per line, and the capacity in lines (two words);
//! - an access: the header, the site, then either a base sector (two words) and one word per
//!   run (its offset from the base above 6 bits, its length − 1 below), or, where a run does
//!   not fit that, four words per run (its first sector and its length, two words each);
//! - the end: the header alone. The server then writes back what is dirty and answers.
//!
//! The answer is the sites' count, then six words per site: hits, reads, write-backs, each
//! low word first.

use super::super::calculator::inputs::MAX_LINE_BYTES;
use super::super::error::WireError;
use super::super::machine::AccessKind;
use super::super::span::Span;
use super::cache::SectorCache;
use super::tally::POOLED_AFTER;

const ACCESS: u32 = 0;
const WIDE: u32 = 1;
const START: u32 = 2;
const END: u32 = 3;
/// Runs of at most this many sectors, starting under 2^26 sectors past the access's first,
/// take one word.
const SHORT_RUN: u64 = 64;
const NEAR: u64 = 1 << 26;
/// The most sectors one access may cover, far past what the kernel view hands off (a warp's 64
/// lanes of 16 bytes reach 1024 sectors of one byte): a stream that claims more is refused, so
/// that no stream keeps the server counting for ever.
const MAX_ACCESS_SECTORS: u64 = 1 << 16;
/// The most sites a stream may name: the server keeps a count for each up to the highest.
const MAX_SITE: usize = 1 << 20;

/// One access met by the cache: what its site counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Met {
    /// Sector accesses that found their sector.
    pub hits: u64,
    /// Sectors fetched from DRAM.
    pub reads: u64,
    /// Lines the access touched.
    pub lines: u64,
}

/// The LRU sector cache with the rule for meeting one access's distinct sectors: in ascending
/// order, a store that misses allocates without a fetch, an atomic fetches then dirties.
#[derive(Clone, Debug)]
pub(super) struct CacheModel {
    cache: SectorCache,
    /// log2 of sectors per line.
    line_shift: u32,
}

impl CacheModel {
    /// A cache of `capacity_lines` lines of `sectors_per_line` sectors (a power of two).
    pub(super) fn new(capacity_lines: usize, sectors_per_line: u64) -> CacheModel {
        CacheModel {
            cache: SectorCache::new(capacity_lines, sectors_per_line as usize),
            line_shift: sectors_per_line.max(1).trailing_zeros(),
        }
    }

    /// Lines it holds when full.
    pub(super) fn capacity(&self) -> usize {
        self.cache.capacity()
    }

    /// Meets `runs` (ascending, disjoint) of an access at `owner`'s site (`kind` `None` for
    /// an atomic); `write_back(owner)` once for each dirty sector an eviction writes back.
    #[inline]
    pub(super) fn meet(
        &mut self,
        kind: Option<AccessKind>,
        owner: u8,
        runs: &[Span],
        mut write_back: impl FnMut(u8),
    ) -> Met {
        let store = kind == Some(AccessKind::Store);
        let atomic = kind.is_none();
        let line_shift = self.line_shift;
        let cache = &mut self.cache;
        let mut met = Met::default();
        let mut line_slot = None;
        for run in runs {
            for sector in run.first..=run.last {
                let line = sector >> line_shift;
                let slot = match line_slot {
                    Some((l, slot)) if l == line => slot,
                    _ => {
                        let slot = cache.touch(line, &mut write_back);
                        line_slot = Some((line, slot));
                        met.lines += 1;
                        slot
                    }
                };
                let within = (sector & ((1 << line_shift) - 1)) as usize;
                let hit = if store {
                    cache.store(slot, within, owner)
                } else if atomic {
                    // A read-modify-write at the cache: a miss fetches, and the sector is
                    // dirty after.
                    let hit = cache.load(slot, within);
                    cache.store(slot, within, owner);
                    hit
                } else {
                    cache.load(slot, within)
                };
                if hit {
                    met.hits += 1;
                } else if !store {
                    met.reads += 1;
                }
            }
        }
        met
    }

    /// Writes back every dirty sector, as at the end of a launch.
    pub(super) fn flush(&mut self, write_back: impl FnMut(u8)) {
        self.cache.flush(write_back);
    }
}

/// Lines that `runs` (ascending, disjoint) touch, as [`CacheModel::meet`] counts them.
pub(super) fn lines_of(runs: &[Span], line_shift: u32) -> u64 {
    let mut lines = 0;
    let mut last_line = None;
    for run in runs {
        let (first, last) = (run.first >> line_shift, run.last >> line_shift);
        let shared = u64::from(last_line == Some(first));
        lines += last - first + 1 - shared;
        last_line = Some(last);
    }
    lines
}

/// The tally's side: the accesses its cache must see, as words for a [`CacheServer`].
#[derive(Clone, Debug)]
pub(super) struct CacheFeed {
    words: Vec<u32>,
    /// The cache's capacity, in lines.
    pub capacity: u64,
    /// log2 of sectors per line.
    pub line_shift: u32,
}

impl CacheFeed {
    /// A feed whose first record starts a cache of `capacity_lines` lines of
    /// `sectors_per_line` sectors.
    pub(super) fn new(capacity_lines: u64, sectors_per_line: u64) -> CacheFeed {
        let capacity = capacity_lines.max(1);
        let (low, high) = split(capacity);
        CacheFeed {
            words: vec![START, sectors_per_line as u32, low, high],
            capacity,
            line_shift: sectors_per_line.max(1).trailing_zeros(),
        }
    }

    /// Writes an access of `runs` (ascending, disjoint, 1 to 255 of them) at `site`.
    #[inline]
    pub(super) fn push(&mut self, site: usize, kind: Option<AccessKind>, runs: &[Span]) {
        let kind_bits = match kind {
            Some(AccessKind::Load) => 0,
            Some(AccessKind::Store) => 1,
            _ => 2,
        };
        let Some(base) = runs.first().map(|r| r.first) else {
            return;
        };
        let near = runs
            .iter()
            .all(|r| r.first - base < NEAR && r.last - r.first < SHORT_RUN);
        let header = |record: u32| record | kind_bits << 2 | (runs.len() as u32 & 0xff) << 4;
        let words = &mut self.words;
        if near {
            let (low, high) = split(base);
            words.extend_from_slice(&[header(ACCESS), site as u32, low, high]);
            words.extend(
                runs.iter()
                    .map(|r| ((r.first - base) << 6 | (r.last - r.first)) as u32),
            );
        } else {
            words.extend_from_slice(&[header(WIDE), site as u32]);
            for r in runs {
                let ((a, b), (c, d)) = (split(r.first), split(r.len()));
                words.extend_from_slice(&[a, b, c, d]);
            }
        }
    }

    /// Words written since the last take, with the end's record after them when `end`.
    pub(super) fn take(&mut self, end: bool) -> Vec<u32> {
        if end {
            self.words.push(END);
        }
        // The next take is likely as long: no growing from nothing again.
        let room = if end { 0 } else { self.words.len() };
        std::mem::replace(&mut self.words, Vec::with_capacity(room))
    }
}

/// One site's figures from a cache kept elsewhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct CacheCounts {
    pub hits: u64,
    pub reads: u64,
    pub writes: u64,
}

/// The other thread's side: meets a [`CacheFeed`]'s records, as they come, with its own
/// [`CacheModel`], and answers each site's counts at the end.
///
/// ```
/// use coalescing_lab::model::warp::CacheServer;
/// let mut server = CacheServer::default();
/// // A start (a line of 4 sectors, 2 lines), a load of sectors 8–11 at site 0, the end.
/// let answer = server.receive(&[2, 4, 2, 0, 0 | 1 << 4, 0, 8, 0, 3, 3]).unwrap().unwrap();
/// // One site: no hits, 4 reads, no write-backs.
/// assert_eq!(answer, [1, 0, 0, 4, 0, 0, 0]);
/// // Degenerate input: words that are no record are refused, and nothing panics.
/// assert!(CacheServer::default().receive(&[0 | 9 << 4, 1]).is_err());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CacheServer {
    model: Option<CacheModel>,
    sites: Vec<CacheCounts>,
    runs: Vec<Span>,
}

impl CacheServer {
    /// Meets the records in `words`; after the end's record, answers the sites' counts (and
    /// is ready for the next start). An error names what the words got wrong; the server is
    /// then reset.
    pub fn receive(&mut self, words: &[u32]) -> Result<Option<Vec<u32>>, WireError> {
        let answer = self.records(words);
        if answer.is_err() {
            *self = CacheServer::default();
        }
        answer
    }

    fn records(&mut self, mut words: &[u32]) -> Result<Option<Vec<u32>>, WireError> {
        let bad = |what: &str| WireError(format!("the cache stream {what}"));
        while let Some((&header, rest)) = words.split_first() {
            words = rest;
            let record = header & 3;
            let count = (header >> 4 & 0xff) as usize;
            let kind = match header >> 2 & 3 {
                0 => Some(AccessKind::Load),
                1 => Some(AccessKind::Store),
                _ => None,
            };
            match record {
                START => {
                    let [per_line, low, high] =
                        take(&mut words).ok_or_else(|| bad("ends early"))?;
                    if !per_line.is_power_of_two() || u64::from(per_line) > MAX_LINE_BYTES {
                        return Err(bad("starts a line that is not a power of two sectors"));
                    }
                    let capacity = usize::try_from(join(low, high))
                        .map_err(|_| bad("starts too large a cache"))?;
                    self.model = Some(CacheModel::new(capacity, u64::from(per_line)));
                    self.sites.clear();
                }
                END => {
                    let Some(model) = self.model.as_mut() else {
                        return Err(bad("ends a run it never started"));
                    };
                    let sites = &mut self.sites;
                    model.flush(|owner| charge(sites, owner));
                    let answer = self.answer();
                    self.model = None;
                    return Ok(Some(answer));
                }
                _ => {
                    let [site] = take(&mut words).ok_or_else(|| bad("ends early"))?;
                    self.runs.clear();
                    if record == ACCESS {
                        let [low, high] = take(&mut words).ok_or_else(|| bad("ends early"))?;
                        let base = join(low, high);
                        let (runs, rest) =
                            split_at(words, count).ok_or_else(|| bad("ends early"))?;
                        words = rest;
                        for &w in runs {
                            let first = base.saturating_add(u64::from(w >> 6));
                            let last = first.saturating_add(u64::from(w & 63));
                            self.runs.push(Span { first, last });
                        }
                    } else {
                        for _ in 0..count {
                            let [a, b, c, d] = take(&mut words).ok_or_else(|| bad("ends early"))?;
                            let (first, len) = (join(a, b), join(c, d));
                            let last = first.saturating_add(len.max(1) - 1);
                            self.runs.push(Span { first, last });
                        }
                    }
                    if count == 0 || !self.runs.windows(2).all(|w| w[0].last < w[1].first) {
                        return Err(bad("holds an access whose runs are not in order"));
                    }
                    let sectors = self
                        .runs
                        .iter()
                        .map(|r| r.len())
                        .fold(0, u64::saturating_add);
                    if sectors > MAX_ACCESS_SECTORS {
                        return Err(bad("holds an access of more sectors than a warp reaches"));
                    }
                    let Some(model) = self.model.as_mut() else {
                        return Err(bad("holds an access before its start"));
                    };
                    let site = site as usize;
                    if site > MAX_SITE {
                        return Err(bad("names a site past any a launch has"));
                    }
                    if self.sites.len() <= site {
                        self.sites.resize(site + 1, CacheCounts::default());
                    }
                    let owner = site.min(POOLED_AFTER) as u8;
                    let sites = &mut self.sites;
                    let met = model.meet(kind, owner, &self.runs, |o| charge(sites, o));
                    if let Some(k) = self.sites.get_mut(site) {
                        k.hits += met.hits;
                        k.reads += met.reads;
                    }
                }
            }
        }
        Ok(None)
    }

    /// The sites' count, then each site's hits, reads and write-backs.
    fn answer(&self) -> Vec<u32> {
        let mut words = vec![self.sites.len() as u32];
        for k in &self.sites {
            for v in [k.hits, k.reads, k.writes] {
                let (low, high) = split(v);
                words.extend_from_slice(&[low, high]);
            }
        }
        words
    }
}

/// Reads a [`CacheServer`]'s answer.
pub(super) fn decode_counts(words: &[u32]) -> Result<Vec<CacheCounts>, WireError> {
    let bad = || WireError("the cache worker's answer is not one".into());
    let (&sites, rest) = words.split_first().ok_or_else(bad)?;
    if rest.len() != sites as usize * 6 {
        return Err(bad());
    }
    Ok(rest
        .chunks_exact(6)
        .map(|w| CacheCounts {
            hits: join(w[0], w[1]),
            reads: join(w[2], w[3]),
            writes: join(w[4], w[5]),
        })
        .collect())
}

/// Charges one written-back sector to the site that owns it.
fn charge(sites: &mut Vec<CacheCounts>, owner: u8) {
    let owner = usize::from(owner);
    if sites.len() <= owner {
        sites.resize(owner + 1, CacheCounts::default());
    }
    if let Some(k) = sites.get_mut(owner) {
        k.writes += 1;
    }
}

fn split(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

fn join(low: u32, high: u32) -> u64 {
    u64::from(low) | u64::from(high) << 32
}

/// The next `N` words, taken off the front.
fn take<const N: usize>(words: &mut &[u32]) -> Option<[u32; N]> {
    let (head, rest) = split_at(words, N)?;
    let head = head.try_into().ok()?;
    *words = rest;
    Some(head)
}

fn split_at(words: &[u32], n: usize) -> Option<(&[u32], &[u32])> {
    (words.len() >= n).then(|| words.split_at(n))
}
