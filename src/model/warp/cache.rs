//! The cache model: fully associative, least recently used over `line`-byte lines, filled and
//! counted per `sector`.
//!
//! Each resident line remembers, per sector, whether it is absent, present and clean, or
//! present and dirty, and for a dirty sector which statement first dirtied it in this stay
//! (the one that pays its write-back). The list is an index-based arena: nodes in a `Vec`
//! linked by `u32` indices, found through a map from line number to node. Knows nothing of
//! warps, statements' fields or DRAM totals; callers count.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A sector's state byte: absent, present clean, or dirtied by statement `state − DIRTY`.
const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;
/// "No node": the end of the list.
const NIL: u32 = u32::MAX;
/// Entries of the direct-mapped memo of recently touched lines (a power of two).
const RECENT: usize = 4096;

/// A resident line, as [`SectorCache::touch`] returns it: valid until the next `touch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSlot(u32);

#[derive(Clone, Copy, Debug)]
struct Node {
    line: u64,
    /// Towards the most recently used end.
    prev: u32,
    /// Towards the least recently used end.
    next: u32,
}

/// A fully associative LRU cache of lines, with per-sector presence and dirtiness.
///
/// ```
/// use coalescing_lab::model::warp::SectorCache;
/// // Two lines of four sectors.
/// let mut cache = SectorCache::new(2, 4);
/// let mut write_backs = Vec::new();
/// let a = cache.touch(10, |stmt| write_backs.push(stmt));
/// assert!(!cache.load(a, 0), "cold miss");
/// assert!(cache.load(a, 0), "then a hit");
/// let b = cache.touch(11, |stmt| write_backs.push(stmt));
/// assert!(!cache.store(b, 3, 7), "a store to an absent sector misses, without a fetch");
/// cache.touch(12, |stmt| write_backs.push(stmt)); // evicts line 10, which is clean
/// cache.touch(13, |stmt| write_backs.push(stmt)); // evicts line 11, dirtied by statement 7
/// assert_eq!(write_backs, [7]);
/// // Degenerate input: a flush of a clean cache writes nothing back.
/// let mut flushed = 0;
/// SectorCache::new(1, 1).flush(|_| flushed += 1);
/// assert_eq!(flushed, 0);
/// ```
#[derive(Clone, Debug)]
pub struct SectorCache {
    capacity: usize,
    sectors_per_line: usize,
    nodes: Vec<Node>,
    /// `sectors_per_line` state bytes per node.
    states: Vec<u8>,
    map: HashMap<u64, u32, BuildHasherDefault<LineHasher>>,
    /// A direct-mapped memo in front of `map`: `recent[line % RECENT]` is the node that last
    /// held a line there. Checked against the node's line, so a stale entry is only a miss;
    /// warps of one block touch the same lines again and again, and skip the hash.
    recent: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used: the next victim.
    tail: u32,
}

impl SectorCache {
    /// An empty cache of `capacity_lines` lines (at least 1) of `sectors_per_line` sectors.
    pub fn new(capacity_lines: usize, sectors_per_line: usize) -> SectorCache {
        SectorCache {
            capacity: capacity_lines.max(1),
            sectors_per_line: sectors_per_line.max(1),
            nodes: Vec::new(),
            states: Vec::new(),
            map: HashMap::default(),
            recent: vec![NIL; RECENT],
            head: NIL,
            tail: NIL,
        }
    }

    /// Lines resident now.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no line is resident.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Makes `line` the most recently used, allocating it with every sector absent when it is
    /// not resident. A full cache first evicts its least recently used line, calling
    /// `write_back(stmt)` once per dirty sector of it with the statement that pays.
    pub fn touch(&mut self, line: u64, write_back: impl FnMut(u8)) -> LineSlot {
        let memo = (line as usize) & (RECENT - 1);
        let remembered = self.recent[memo];
        if self
            .nodes
            .get(remembered as usize)
            .is_some_and(|n| n.line == line)
        {
            return self.use_node(memo, remembered);
        }
        // One probe finds the line or its place; the victim is known before the map is
        // touched (the tail), so a miss costs this probe and the victim's removal.
        let full = self.nodes.len() >= self.capacity;
        let node = if full {
            self.tail
        } else {
            self.nodes.len() as u32
        };
        match self.map.entry(line) {
            Entry::Occupied(found) => {
                let node = *found.get();
                return self.use_node(memo, node);
            }
            Entry::Vacant(place) => {
                place.insert(node);
            }
        }
        if full {
            self.unlink(node);
            let old = self.nodes[node as usize].line;
            self.map.remove(&old);
            self.drain(node, write_back);
            self.nodes[node as usize].line = line;
        } else {
            self.nodes.push(Node { line, prev: NIL, next: NIL });
            self.states
                .resize(self.states.len() + self.sectors_per_line, ABSENT);
        }
        self.recent[memo] = node;
        self.push_front(node);
        LineSlot(node)
    }

    /// A resident line found at `node`: remembered in the memo and made the most recent.
    #[inline]
    fn use_node(&mut self, memo: usize, node: u32) -> LineSlot {
        self.recent[memo] = node;
        if self.head != node {
            self.unlink(node);
            self.push_front(node);
        }
        LineSlot(node)
    }

    /// A load of sector `sector` (within the line) of `slot`: true on a hit; on a miss the
    /// sector is fetched and becomes present and clean.
    // Always inlined: it runs once per sector, and the kernel view, the trace panel and the
    // CUDA panel call it from different chunks, where a call crosses modules (README, "First
    // load: the split"; `opt-level = "z"` ignores a plain `#[inline]`).
    #[inline(always)]
    pub fn load(&mut self, slot: LineSlot, sector: usize) -> bool {
        let state = &mut self.states[slot.0 as usize * self.sectors_per_line + sector];
        let hit = *state != ABSENT;
        if !hit {
            *state = CLEAN;
        }
        hit
    }

    /// A store to sector `sector` of `slot` by statement `stmt` (0 to 253): true when the
    /// sector was present. Either way it becomes present and dirty, without a fetch; a
    /// sector already dirty keeps the statement that dirtied it first.
    #[inline(always)] // once per sector, from several chunks: see `load`
    pub fn store(&mut self, slot: LineSlot, sector: usize, stmt: u8) -> bool {
        let state = &mut self.states[slot.0 as usize * self.sectors_per_line + sector];
        let hit = *state != ABSENT;
        if *state < DIRTY {
            *state = DIRTY.saturating_add(stmt);
        }
        hit
    }

    /// Writes back every dirty sector, as at the end of a launch: `write_back(stmt)` once
    /// per dirty sector. Lines stay resident and become clean.
    pub fn flush(&mut self, mut write_back: impl FnMut(u8)) {
        for state in &mut self.states {
            if *state >= DIRTY {
                write_back(*state - DIRTY);
                *state = CLEAN;
            }
        }
    }

    /// Empties node `node`'s sectors, reporting its dirty ones.
    fn drain(&mut self, node: u32, mut write_back: impl FnMut(u8)) {
        let start = node as usize * self.sectors_per_line;
        for state in &mut self.states[start..start + self.sectors_per_line] {
            if *state >= DIRTY {
                write_back(*state - DIRTY);
            }
            *state = ABSENT;
        }
    }

    fn unlink(&mut self, node: u32) {
        let Node { prev, next, .. } = self.nodes[node as usize];
        match prev {
            NIL => self.head = next,
            p => self.nodes[p as usize].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.nodes[n as usize].prev = prev,
        }
    }

    fn push_front(&mut self, node: u32) {
        let old = self.head;
        self.nodes[node as usize].prev = NIL;
        self.nodes[node as usize].next = old;
        match old {
            NIL => self.tail = node,
            o => self.nodes[o as usize].prev = node,
        }
        self.head = node;
    }
}

/// A fast hasher for line and page numbers: a full 64-bit mix (splitmix64's finaliser), so
/// strided numbers, which share their low bits, still spread over the table. SipHash would
/// cost more than the rest of a sector access.
#[derive(Default)]
pub(crate) struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}
