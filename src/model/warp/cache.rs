//! The cache model: fully associative, least recently used over `line`-byte lines, filled and
//! counted per `sector`.
//!
//! Each resident line remembers, per sector, whether it is absent, present and clean, or
//! present and dirty, and for a dirty sector which statement first dirtied it in this stay
//! (the one that pays its write-back). The list is an index-based arena: nodes in a `Vec`
//! linked by `u32` indices, found through a table of chains threaded through the nodes
//! themselves (a line's bucket holds the first node of its chain, and each node the next), so
//! a lookup reads the bucket and the node it wants, where a general map would read its control
//! bytes, its entry and then the node. Knows nothing of warps, statements' fields or DRAM
//! totals; callers count.

use std::hash::Hasher;

/// A sector's state byte: absent, present clean, or dirtied by statement `state − DIRTY`.
const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;
/// "No node": the end of the list.
const NIL: u32 = u32::MAX;
/// Entries of the direct-mapped memo of recently touched lines (a power of two).
const RECENT: usize = 4096;
/// Buckets of the chain table to start with (a power of two); it doubles while it holds
/// more than half as many lines as buckets, up to twice the capacity.
const FIRST_BUCKETS: usize = 64;

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
    /// The next node in this line's bucket.
    chain: u32,
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
    /// The first node of each bucket's chain; a line's bucket is its Fibonacci hash.
    buckets: Vec<u32>,
    /// 64 − log2 of the bucket count: the hash's top bits pick the bucket.
    bucket_shift: u32,
    /// A direct-mapped memo in front of the table: `recent[line % RECENT]` is the node that last
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
            buckets: vec![NIL; FIRST_BUCKETS],
            bucket_shift: 64 - FIRST_BUCKETS.trailing_zeros(),
            recent: vec![NIL; RECENT],
            head: NIL,
            tail: NIL,
        }
    }

    /// Lines it holds when full.
    pub fn capacity(&self) -> usize {
        self.capacity
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
        let mut at = self.buckets[self.bucket(line)];
        while at != NIL {
            let node = &self.nodes[at as usize];
            if node.line == line {
                return self.use_node(memo, at);
            }
            at = node.chain;
        }
        // A miss: a full cache reuses its least recently used node.
        let node = if self.nodes.len() >= self.capacity {
            let victim = self.tail;
            self.unlink(victim);
            self.unchain(victim);
            self.drain(victim, write_back);
            self.nodes[victim as usize].line = line;
            victim
        } else {
            if (self.nodes.len() + 1) * 2 > self.buckets.len()
                && self.buckets.len() < self.capacity.saturating_mul(2)
            {
                self.grow();
            }
            let node = self.nodes.len() as u32;
            self.nodes
                .push(Node { line, prev: NIL, next: NIL, chain: NIL });
            self.states
                .resize(self.states.len() + self.sectors_per_line, ABSENT);
            node
        };
        let bucket = self.bucket(line);
        self.nodes[node as usize].chain = self.buckets[bucket];
        self.buckets[bucket] = node;
        self.recent[memo] = node;
        self.push_front(node);
        LineSlot(node)
    }

    /// The bucket of `line`: the top bits of its Fibonacci hash, which spreads strided line
    /// numbers (the usual pattern) evenly.
    #[inline]
    fn bucket(&self, line: u64) -> usize {
        (line.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.bucket_shift) as usize
    }

    /// Takes node `node` out of its bucket's chain.
    fn unchain(&mut self, node: u32) {
        let bucket = self.bucket(self.nodes[node as usize].line);
        let after = self.nodes[node as usize].chain;
        let mut at = self.buckets[bucket];
        if at == node {
            self.buckets[bucket] = after;
            return;
        }
        while at != NIL {
            let next = self.nodes[at as usize].chain;
            if next == node {
                self.nodes[at as usize].chain = after;
                return;
            }
            at = next;
        }
    }

    /// Doubles the bucket table and chains every node again.
    fn grow(&mut self) {
        let buckets = self.buckets.len() * 2;
        self.buckets.clear();
        self.buckets.resize(buckets, NIL);
        self.bucket_shift = 64 - buckets.trailing_zeros();
        for at in 0..self.nodes.len() {
            let bucket = self.bucket(self.nodes[at].line);
            self.nodes[at].chain = self.buckets[bucket];
            self.buckets[bucket] = at as u32;
        }
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
    // CUDA panel call it from different chunks, where a call crosses modules
    // (docs/performance.md, "First load: the split"; `opt-level = "z"` ignores a plain
    // `#[inline]`).
    #[inline(always)]
    pub fn load(&mut self, slot: LineSlot, sector: usize) -> bool {
        let state = &mut self.line_states(slot.0)[sector];
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
        let state = &mut self.line_states(slot.0)[sector];
        let hit = *state != ABSENT;
        if *state < DIRTY {
            *state = DIRTY.saturating_add(stmt);
        }
        hit
    }

    /// Writes back every dirty sector, as at the end of a launch: `write_back(stmt)` once
    /// per dirty sector. Lines stay resident and become clean.
    pub fn flush(&mut self, mut write_back: impl FnMut(u8)) {
        for node in 0..self.nodes.len() as u32 {
            for state in self.line_states(node) {
                if *state >= DIRTY {
                    write_back(*state - DIRTY);
                    *state = CLEAN;
                }
            }
        }
    }

    /// Empties node `node`'s sectors, reporting its dirty ones.
    fn drain(&mut self, node: u32, mut write_back: impl FnMut(u8)) {
        for state in self.line_states(node) {
            if *state >= DIRTY {
                write_back(*state - DIRTY);
            }
            *state = ABSENT;
        }
    }

    /// The states of node `node`'s sectors.
    #[inline(always)] // once per sector: see `load`
    fn line_states(&mut self, node: u32) -> &mut [u8] {
        let n = self.sectors_per_line;
        let start = node as usize * n;
        &mut self.states[start..start + n]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A list in most-recently-used order, each line with its sectors' states: the plainest
    /// LRU there is.
    struct Oracle {
        capacity: usize,
        lines: Vec<(u64, Vec<u8>)>,
        write_backs: Vec<u8>,
    }

    impl Oracle {
        fn touch(&mut self, line: u64, sectors: usize) {
            if let Some(i) = self.lines.iter().position(|(l, _)| *l == line) {
                let found = self.lines.remove(i);
                self.lines.insert(0, found);
                return;
            }
            if self.lines.len() == self.capacity {
                if let Some((_, states)) = self.lines.pop() {
                    self.write_backs
                        .extend(states.iter().filter(|&&s| s >= DIRTY).map(|s| s - DIRTY));
                }
            }
            self.lines.insert(0, (line, vec![ABSENT; sectors]));
        }
    }

    #[test]
    fn the_chained_table_is_an_exact_lru() {
        let mut x = 7u64;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for (capacity, sectors, spread, stride) in [
            (1, 4, 4, 1),
            (3, 4, 8, 1),
            (50, 4, 80, 128),
            (700, 2, 1000, 4096),
            (2000, 8, 2600, 1 << 40),
            (300, 16, 400, 3),
        ] {
            let mut cache = SectorCache::new(capacity, sectors);
            let mut oracle = Oracle {
                capacity,
                lines: Vec::new(),
                write_backs: Vec::new(),
            };
            let mut write_backs = Vec::new();
            for _ in 0..40_000 {
                let r = next();
                // Lines that share their low bits (the memo's index) and their buckets.
                let line = (r % spread).wrapping_mul(stride);
                let sector = (r >> 20) as usize % sectors;
                let stmt = (r >> 24) as u8 % 5;
                let slot = cache.touch(line, |s| write_backs.push(s));
                oracle.touch(line, sectors);
                let state = &mut oracle.lines[0].1[sector];
                let hit = *state != ABSENT;
                if r & 1 == 0 {
                    assert_eq!(cache.store(slot, sector, stmt), hit);
                    if *state < DIRTY {
                        *state = DIRTY + stmt;
                    }
                } else {
                    assert_eq!(cache.load(slot, sector), hit);
                    if !hit {
                        *state = CLEAN;
                    }
                }
                assert_eq!(cache.len(), oracle.lines.len());
            }
            assert_eq!(write_backs, oracle.write_backs, "capacity {capacity}");
            assert!(cache.buckets.len() <= (2 * capacity).next_power_of_two().max(FIRST_BUCKETS));
        }
    }
}
