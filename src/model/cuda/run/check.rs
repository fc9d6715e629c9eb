//! What a lockstep count would bless but a GPU would not: shared-memory races between warps,
//! across the lanes of one warp and within one instruction, and accesses outside every shared
//! array or global allocation (below its start as well as past its end). The figures still
//! count these accesses; these reports say that they would fault or corrupt on a GPU.
//!
//! One idea, compute-sanitizer's checks over one launch, in one file: the races and the bounds
//! share the checks' state (the shared arrays both read) and are fed by the same events; the
//! words for people are apart (`words`).

use super::super::error::Pos;
use super::{Access, Event, Events, SiteKind};
use crate::model::machine::Space;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::super::parse::launch::ALLOCATION_STRIDE;

mod words;

/// A shared array: where it starts in the block's shared memory, its extents and element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedArray {
    /// Its name.
    pub name: String,
    /// Its first byte.
    pub start: u64,
    /// Its extents, outermost first (one for a flat array).
    pub dims: Vec<u64>,
    /// Bytes per element.
    pub elem: u64,
    /// Where it is declared.
    pub pos: Pos,
    /// Its elements in all.
    pub count: u64,
}

impl SharedArray {
    #[inline]
    fn bytes(&self) -> u64 {
        self.count * self.elem
    }

    /// `name[i][j]` for the element holding byte `offset` of the array.
    fn element(&self, offset: u64) -> String {
        let mut k = offset / self.elem.max(1);
        let mut idx = Vec::new();
        for d in self.dims.iter().rev() {
            idx.push(k % d.max(&1));
            k /= d.max(&1);
        }
        idx.reverse();
        let mut s = self.name.clone();
        for i in idx {
            s.push_str(&format!("[{i}]"));
        }
        s
    }
}

/// A global allocation of the launch (a pointer argument) or a `__device__` variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    /// The allocation's name.
    pub name: String,
    /// Its base address.
    pub base: u64,
    /// Its length in elements, when declared (`name[COUNT]`); without it, the allocation is
    /// taken to reach the next allocation's base, at most [`ALLOCATION_STRIDE`] bytes.
    pub count: Option<u64>,
    /// Bytes per element, from the kernel parameter's type.
    pub elem: u64,
}

/// How far from an allocation of undeclared length an address outside every allocation may
/// lie and still be named as an index of it.
const NEAR_UNDECLARED_BYTES: i128 = 1 << 20;

/// An access outside its array: the first occurrence in full, and how many there were.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutOfBounds {
    /// The access site (an index into the analysis's sites).
    pub site: usize,
    /// Global or shared.
    pub space: Space,
    /// The first occurrence's block and thread.
    pub block: [u64; 3],
    /// The first occurrence's thread.
    pub thread: [u64; 3],
    /// The first occurrence's byte address (in the block's shared memory, for a shared one).
    pub address: u64,
    /// The array or allocation the address ran off: the nearest one, when the address lies
    /// within that one's own length of it; `None` when it lies far from every one.
    pub array: Option<String>,
    /// The element index it reached in `array` (negative below the start).
    pub index: i128,
    /// Elements in bounds: indices 0 to `count` − 1, when the length is declared.
    pub count: Option<u64>,
    /// Lane-accesses out of bounds at this site.
    pub occurrences: u64,
}

/// A load of device memory that nothing has written (compute-sanitizer's initcheck): the first
/// occurrence at a site in full, and how many there were. Only a program's launches have
/// findings: there, every byte of device memory was written by a copy, a memset or a store,
/// or by nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uninit {
    /// The access site (an index into the analysis's sites).
    pub site: usize,
    /// The first occurrence's block.
    pub block: [u64; 3],
    /// The first occurrence's thread.
    pub thread: [u64; 3],
    /// The first occurrence's byte address.
    pub address: u64,
    /// The allocation it lies in.
    pub array: Option<String>,
    /// The element index it reached in that allocation.
    pub index: i128,
    /// Lane-accesses at this site that read bytes nothing wrote.
    pub occurrences: u64,
}

/// One array or allocation as the bounds check sees it: bytes `[start, end)`, signed, so that
/// an address below the lowest one stays below it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    /// Its index among the shared arrays or the global extents.
    owner: usize,
    start: i128,
    end: i128,
    elem: u64,
    count: Option<u64>,
}

/// Where an access outside every region is reported: `None` when `[a, a + elem)` lies inside
/// one of `regions` (sorted by start; pinned ones may overlap), else the nearest region's
/// owner, the element index reached in it and its length, when the address lies near it
/// (within its own length, or [`NEAR_UNDECLARED_BYTES`] when that is not declared).
#[allow(clippy::type_complexity, reason = "the report's three fields")]
fn locate(regions: &[Region], a: i128, elem: u64) -> Option<Option<(usize, i128, Option<u64>)>> {
    let k = regions.partition_point(|r| r.start <= a);
    let below = k.checked_sub(1).and_then(|k| regions.get(k));
    let inside = |r: &Region| a >= r.start && a + i128::from(elem) <= r.end;
    if below.is_some_and(inside) || regions.iter().any(inside) {
        return None;
    }
    let above = regions.get(k);
    // Bytes between the access and each neighbour: past the end of the one below, before the
    // start of the one above.
    let past = below.map(|r| (a + i128::from(elem) - r.end, r));
    let before = above.map(|r| (r.start - a, r));
    let nearest = match (past, before) {
        (Some(p), Some(b)) => Some(if b.0 <= p.0 { b } else { p }),
        (p, b) => p.or(b),
    };
    Some(nearest.and_then(|(distance, r)| {
        let reach = match r.count {
            Some(n) => i128::from(n).saturating_mul(i128::from(r.elem)),
            None => NEAR_UNDECLARED_BYTES,
        };
        (distance <= reach.max(i128::from(r.elem))).then(|| {
            let index = (a - r.start).div_euclid(i128::from(r.elem.max(1)));
            (r.owner, index, r.count)
        })
    }))
}

/// How far apart the two accesses of a race are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RaceScope {
    /// Two warps of a block, between two barriers.
    Block,
    /// Two lanes of one warp, at two instructions with no `__syncwarp()` between.
    Warp,
    /// Two lanes of one store instruction.
    Instruction,
}

impl RaceScope {
    /// Its name in the page's `data-scope`.
    pub fn name(self) -> &'static str {
        match self {
            RaceScope::Block => "block",
            RaceScope::Warp => "warp",
            RaceScope::Instruction => "instruction",
        }
    }
}

/// A pair of accesses to one shared word with nothing ordering them, one of them a write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Race {
    /// Block, warp or instruction.
    pub scope: RaceScope,
    /// The earlier access's site (the write, when one is a read).
    pub site_a: usize,
    /// The later access's site.
    pub site_b: usize,
    /// The access a barrier belongs after: the one of the two that runs first between two
    /// barriers. For a write that races with a read of the loop's previous iteration, that is
    /// the read, at the end of the loop, not the write.
    pub fix_after: usize,
    /// The first occurrence's block.
    pub block: [u64; 3],
    /// The warp of the first access (the same as `warp_b` within a warp).
    pub warp_a: u32,
    /// The warp of the second.
    pub warp_b: u32,
    /// The lanes, for a race within a warp or an instruction.
    pub lanes: (u32, u32),
    /// The word, as its array and index: `tile[3][0]`.
    pub word: String,
    /// Times a pair of accesses met this way.
    pub occurrences: u64,
    /// For an instruction's race: the lanes stored the same known value (harmless).
    pub same_value: bool,
}

/// The checks' state across a launch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Checks {
    pub(crate) arrays: Vec<SharedArray>,
    /// The global allocations, by base (see [`Checks::set_extents`]).
    extents: Vec<Extent>,
    /// Their regions, by base.
    global: Vec<Region>,
    /// The shared arrays' regions, by start.
    shared: Vec<Region>,
    pub(crate) oob: BTreeMap<usize, OutOfBounds>,
    /// Loads of device memory nothing wrote, by site.
    pub(crate) uninit: BTreeMap<usize, Uninit>,
    pub(crate) races: BTreeMap<(RaceScope, usize, usize), Race>,
    /// Buffers reused from block to block.
    scratch: RaceScratch,
}

/// The race check's buffers: one entry per shared word, cleared lazily by stamps.
#[derive(Clone, Debug, Default)]
struct RaceScratch {
    words: Vec<WordTouches>,
    written: Vec<Written>,
    touched: Vec<u32>,
    lanes: Vec<(u32, u64)>,
    by_word: Vec<(u64, u32)>,
    segment: u64,
    stamp: u64,
}

/// The distinct touches of one word in the current segment.
#[derive(Clone, Copy, Debug)]
struct WordTouches {
    segment: u64,
    len: u8,
    touches: [Touch; TOUCHES_PER_WORD],
}

impl Default for WordTouches {
    fn default() -> WordTouches {
        WordTouches {
            segment: 0,
            len: 0,
            touches: [Touch {
                warp: 0,
                lane: 0,
                site: 0,
                kind: SiteKind::Load,
                order: 0,
            }; TOUCHES_PER_WORD],
        }
    }
}

/// The last write to a word by the current warp since its last `__syncwarp()`.
#[derive(Clone, Copy, Debug, Default)]
struct Written {
    stamp: u64,
    lane: u32,
    site: u32,
    event: u32,
}

/// One touch of a shared word in a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Touch {
    warp: u32,
    lane: u32,
    site: u32,
    kind: SiteKind,
    /// Its warp's events since the segment began, at this touch.
    order: u32,
}

/// Distinct touches kept per word and segment; more add nothing new to report.
const TOUCHES_PER_WORD: usize = 16;

impl Checks {
    /// Registers a shared array laid out at `start`.
    pub(crate) fn shared_array(&mut self, name: &str, start: u64, ty: &super::ty::Ty, pos: Pos) {
        if self.arrays.iter().any(|a| a.pos == pos && a.start == start) {
            return;
        }
        let mut dims = Vec::new();
        let mut t = ty;
        while let super::ty::Ty::Array(e, n) = t {
            dims.push(*n);
            t = e;
        }
        if dims.is_empty() {
            dims.push(1);
        }
        let count = dims.iter().product();
        self.arrays.push(SharedArray {
            name: name.to_string(),
            start,
            dims,
            elem: t.size().max(1),
            pos,
            count,
        });
        self.arrays.sort_by_key(|a| a.start);
        self.shared = self
            .arrays
            .iter()
            .enumerate()
            .map(|(owner, a)| Region {
                owner,
                start: i128::from(a.start),
                end: i128::from(a.start) + i128::from(a.bytes()),
                elem: a.elem.max(1),
                count: Some(a.count),
            })
            .collect();
    }

    /// The shared array holding byte `addr`, or the one it ran off (the nearest below).
    fn array_at(&self, addr: u64) -> Option<&SharedArray> {
        let k = self.arrays.partition_point(|a| a.start <= addr);
        match k {
            0 => self.arrays.first(),
            k => self.arrays.get(k - 1),
        }
    }

    /// `word` rendered as its array's element.
    fn word_name(&self, word: u64) -> String {
        let addr = word * 4;
        match self.array_at(addr) {
            Some(a) if addr >= a.start && addr < a.start + a.bytes() => a.element(addr - a.start),
            _ => format!("the shared word at byte {addr}"),
        }
    }

    /// Sets the global allocations, and their regions by base: a declared length ends one;
    /// without it, one reaches the next base, at most [`ALLOCATION_STRIDE`] bytes.
    pub(crate) fn set_extents(&mut self, mut extents: Vec<Extent>) {
        extents.sort_by_key(|e| e.base);
        self.global = (0..extents.len())
            .filter_map(|k| {
                let e = extents.get(k)?;
                let start = i128::from(e.base);
                let end = match e.count {
                    Some(n) => {
                        start.saturating_add(i128::from(n).saturating_mul(i128::from(e.elem)))
                    }
                    None => {
                        let next = extents.get(k + 1).map_or(i128::MAX, |n| i128::from(n.base));
                        next.min(start + i128::from(ALLOCATION_STRIDE))
                    }
                };
                Some(Region {
                    owner: k,
                    start,
                    end,
                    elem: e.elem.max(1),
                    count: e.count,
                })
            })
            .collect();
        self.extents = extents;
    }

    /// Checks one access's lanes against the shared arrays or the global allocations, and
    /// records the first occurrence out of bounds. `thread` gives lane `t`'s thread. A shared
    /// address is read as signed, so that one below the first array stays below it.
    #[allow(clippy::too_many_arguments, reason = "one access's fields")]
    pub(crate) fn bounds(
        &mut self,
        site: usize,
        space: Space,
        elem: u64,
        mask: u64,
        addr: impl Fn(usize) -> u64,
        block: [u64; 3],
        thread: impl Fn(usize) -> [u64; 3],
    ) {
        let regions = match space {
            Space::Shared => &self.shared,
            Space::Global => &self.global,
        };
        if regions.is_empty() {
            return;
        }
        let signed = |a: u64| match space {
            Space::Shared => i128::from(a as i64),
            Space::Global => i128::from(a),
        };
        // Most accesses stay in the region of the last lane checked.
        let mut last = 0;
        let mut found = None;
        let mut occurrences = 0;
        let mut rest = mask;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let a = addr(t);
            let s = signed(a);
            if regions
                .get(last)
                .is_some_and(|r| s >= r.start && s + i128::from(elem) <= r.end)
            {
                continue;
            }
            match locate(regions, s, elem) {
                None => last = regions.partition_point(|r| r.start <= s).saturating_sub(1),
                Some(reach) => {
                    occurrences += 1;
                    found.get_or_insert((t, a, reach));
                }
            }
        }
        let Some((t, address, reach)) = found else {
            return;
        };
        let name = |owner: usize| match space {
            Space::Shared => self.arrays.get(owner).map(|a| a.name.clone()),
            Space::Global => self.extents.get(owner).map(|e| e.name.clone()),
        };
        let (array, index, count) = match reach {
            Some((owner, index, count)) => (name(owner), index, count),
            None => (None, signed(address), None),
        };
        self.oob
            .entry(site)
            .and_modify(|o| o.occurrences += occurrences)
            .or_insert(OutOfBounds {
                site,
                space,
                block,
                thread: thread(t),
                address,
                array,
                index,
                count,
                occurrences,
            });
    }

    /// Checks one global load's lanes for bytes nothing wrote (`unwritten(address)`), and
    /// records the first occurrence. A lane outside every allocation is the bounds check's,
    /// not this one's.
    #[allow(clippy::too_many_arguments, reason = "one access's fields")]
    pub(crate) fn uninit(
        &mut self,
        site: usize,
        elem: u64,
        mask: u64,
        addr: impl Fn(usize) -> u64,
        unwritten: impl Fn(u64) -> bool,
        block: [u64; 3],
        thread: impl Fn(usize) -> [u64; 3],
    ) {
        let mut found = None;
        let mut occurrences = 0;
        let mut rest = mask;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let a = addr(t);
            if !unwritten(a) {
                continue;
            }
            // Inside an allocation: the region whose span holds the access.
            let s = i128::from(a);
            let k = self.global.partition_point(|r| r.start <= s);
            let Some(r) = k
                .checked_sub(1)
                .and_then(|k| self.global.get(k))
                .filter(|r| s + i128::from(elem) <= r.end)
            else {
                continue;
            };
            occurrences += 1;
            let index = (s - r.start).div_euclid(i128::from(r.elem.max(1)));
            found.get_or_insert((t, a, r.owner, index));
        }
        let Some((t, address, owner, index)) = found else {
            return;
        };
        let array = self.extents.get(owner).map(|e| e.name.clone());
        self.uninit
            .entry(site)
            .and_modify(|u| u.occurrences += occurrences)
            .or_insert(Uninit {
                site,
                block,
                thread: thread(t),
                address,
                array,
                index,
                occurrences,
            });
    }

    /// The races of one block, from its warps' events.
    pub(crate) fn races(&mut self, events: &[Events], block: [u64; 3]) {
        let words = self
            .arrays
            .iter()
            .map(|a| (a.start + a.bytes()).div_ceil(4))
            .max()
            .unwrap_or(0) as usize;
        let mut scratch = std::mem::take(&mut self.scratch);
        if scratch.words.len() < words {
            scratch.words.resize_with(words, WordTouches::default);
            scratch.written.resize(words, Written::default());
        }
        let mut cursors = vec![0usize; events.len()];
        loop {
            scratch.segment += 1;
            let segment = scratch.segment;
            scratch.touched.clear();
            let mut more = false;
            for (w, e) in events.iter().enumerate() {
                // `written` entries of this warp and segment carry this stamp; a __syncwarp()
                // moves to a fresh one.
                scratch.stamp += 1;
                let mut stamp = scratch.stamp;
                let c = &mut cursors[w];
                let mut k = 0u32;
                while let Some(ev) = e.list.get(*c) {
                    *c += 1;
                    k += 1;
                    match *ev {
                        Event::Barrier { .. } => {
                            more = true;
                            break;
                        }
                        Event::SyncWarp => {
                            scratch.stamp += 1;
                            stamp = scratch.stamp;
                        }
                        Event::Access(a) if a.space == Space::Shared => {
                            let Access {
                                site, kind, elem, mask, at, same_value, ..
                            } = a;
                            let n = mask.count_ones() as usize;
                            let Some(addrs) = e.addresses.get(at..at + n) else {
                                continue;
                            };
                            scratch.lanes.clear();
                            let mut rest = mask;
                            for a in addrs {
                                scratch.lanes.push((rest.trailing_zeros(), *a));
                                rest &= rest - 1;
                            }
                            let lanes = std::mem::take(&mut scratch.lanes);
                            let span = elem.div_ceil(4).max(1);
                            // Within the instruction: two lanes storing to one word.
                            if kind == SiteKind::Store && n > 1 {
                                let mut by_word = std::mem::take(&mut scratch.by_word);
                                by_word.clear();
                                by_word.extend(lanes.iter().map(|&(t, a)| (a / 4, t)));
                                by_word.sort_unstable();
                                for pair in by_word.windows(2) {
                                    if pair[0].0 == pair[1].0 {
                                        self.race(
                                            RaceScope::Instruction,
                                            (site, site, site),
                                            block,
                                            (w as u32, w as u32),
                                            (pair[0].1, pair[1].1),
                                            pair[0].0,
                                            same_value,
                                        );
                                    }
                                }
                                scratch.by_word = by_word;
                            }
                            for &(t, a) in &lanes {
                                for word in a / 4..a / 4 + span {
                                    let Some(slot) = scratch.written.get_mut(word as usize) else {
                                        continue;
                                    };
                                    // Within the warp: a word another lane wrote earlier.
                                    if slot.stamp == stamp
                                        && slot.lane != t
                                        && slot.event < k
                                        && kind != SiteKind::Atomic
                                    {
                                        let (lane, wsite) = (slot.lane, slot.site);
                                        self.race(
                                            RaceScope::Warp,
                                            (wsite, site, wsite),
                                            block,
                                            (w as u32, w as u32),
                                            (lane, t),
                                            word,
                                            false,
                                        );
                                    }
                                }
                            }
                            for &(t, a) in &lanes {
                                for word in a / 4..a / 4 + span {
                                    let Some(wt) = scratch.words.get_mut(word as usize) else {
                                        continue;
                                    };
                                    if kind != SiteKind::Load {
                                        if let Some(slot) = scratch.written.get_mut(word as usize) {
                                            *slot = Written { stamp, lane: t, site, event: k };
                                        }
                                    }
                                    if wt.segment != segment {
                                        wt.segment = segment;
                                        wt.len = 0;
                                        scratch.touched.push(word as u32);
                                    }
                                    let touch = Touch {
                                        warp: w as u32,
                                        lane: t,
                                        site,
                                        kind,
                                        order: k,
                                    };
                                    let held = &wt.touches[..usize::from(wt.len)];
                                    let seen = held.iter().any(|x| {
                                        x.warp == touch.warp
                                            && x.site == touch.site
                                            && x.kind == touch.kind
                                    });
                                    if !seen && usize::from(wt.len) < TOUCHES_PER_WORD {
                                        wt.touches[usize::from(wt.len)] = touch;
                                        wt.len += 1;
                                    }
                                }
                            }
                            scratch.lanes = lanes;
                        }
                        Event::Access(_) => {}
                    }
                }
            }
            // Between warps: a write and another warp's access, not both atomic.
            scratch.touched.sort_unstable();
            for &word in &scratch.touched {
                let Some(wt) = scratch.words.get(word as usize) else {
                    continue;
                };
                let touches = &wt.touches[..usize::from(wt.len)];
                if !touches.iter().any(|x| x.kind != SiteKind::Load) {
                    continue;
                }
                for (i, x) in touches.iter().enumerate() {
                    for y in &touches[i + 1..] {
                        if x.warp == y.warp {
                            continue;
                        }
                        let writes = x.kind != SiteKind::Load || y.kind != SiteKind::Load;
                        let both_atomic = x.kind == SiteKind::Atomic && y.kind == SiteKind::Atomic;
                        if !writes || both_atomic {
                            continue;
                        }
                        // The write first, when one is a read.
                        let (a, b) = if x.kind == SiteKind::Load {
                            (y, x)
                        } else {
                            (x, y)
                        };
                        let first = if a.order <= b.order { a } else { b };
                        self.race(
                            RaceScope::Block,
                            (a.site, b.site, first.site),
                            block,
                            (a.warp, b.warp),
                            (a.lane, b.lane),
                            u64::from(word),
                            false,
                        );
                    }
                }
            }
            if !more {
                break;
            }
        }
        self.scratch = scratch;
    }

    #[allow(clippy::too_many_arguments, reason = "one race's fields")]
    fn race(
        &mut self,
        scope: RaceScope,
        sites: (u32, u32, u32),
        block: [u64; 3],
        warps: (u32, u32),
        lanes: (u32, u32),
        word: u64,
        same_value: bool,
    ) {
        let key = (scope, sites.0 as usize, sites.1 as usize);
        if let Some(r) = self.races.get_mut(&key) {
            r.occurrences += 1;
            r.same_value &= same_value;
            return;
        }
        let word = self.word_name(word);
        self.races.insert(
            key,
            Race {
                scope,
                site_a: sites.0 as usize,
                site_b: sites.1 as usize,
                fix_after: sites.2 as usize,
                block,
                warp_a: warps.0,
                warp_b: warps.1,
                lanes,
                word,
                occurrences: 1,
                same_value,
            },
        );
    }
}
