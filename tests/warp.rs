//! The warp core's invariants (architecture review §4.3): the calculator equals a tally of one
//! access; any front end's figures are the tally's; round robin is the kernel view's order
//! for warps that run the same instructions; and a tally agrees with a brute-force oracle
//! that walks every byte through an LRU cache of its own.

use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::sectors::analyze;
use coalescing_lab::model::warp::{
    CacheServer, Measure, RoundRobin, Tally, TallyOptions, WarpAccess,
};
use coalescing_lab::model::{AccessKind, Machine, Space, LANES};
use proptest::prelude::*;
use std::collections::{BTreeSet, VecDeque};

/// A warp's addresses: a strided pattern, a few addresses near one base (repeats), or
/// anything; and which lanes take part.
fn lanes() -> impl Strategy<Value = (Vec<u64>, u64)> {
    lanes_below(1 << 20)
}

/// [`lanes`] with bases below `top`: a small `top` makes accesses meet again in the cache.
fn lanes_below(top: u64) -> impl Strategy<Value = (Vec<u64>, u64)> {
    let strided = (0u64..top, 0u64..300)
        .prop_map(|(base, stride)| (0..32u64).map(|t| base + stride * t).collect::<Vec<_>>());
    let clustered = (0u64..top, proptest::collection::vec(0u64..64, 32))
        .prop_map(|(base, offsets)| offsets.into_iter().map(|o| base + o).collect());
    let anything = proptest::collection::vec(0u64..top << 20, 32);
    (
        prop_oneof![strided, clustered, anything],
        any::<u32>().prop_map(u64::from),
    )
}

fn elem() -> impl Strategy<Value = u64> {
    prop_oneof![Just(1u64), Just(2), Just(4), Just(8), Just(16)]
}

/// The calculator's inputs for the same warp: explicit addresses, `-` where a lane is out.
fn calculator(addresses: &[u64], mask: u64, elem: u64, space: Space) -> Inputs {
    let addrs: Vec<String> = addresses
        .iter()
        .enumerate()
        .map(|(t, a)| {
            if mask & (1 << t) != 0 {
                a.to_string()
            } else {
                "-".into()
            }
        })
        .collect();
    Inputs {
        space: space.name().into(),
        elem: elem.to_string(),
        addrs: addrs.join(","),
        ..Inputs::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The calculator is a tally of one access: the same sectors, the same ideal
    /// (⌈distinct bytes ÷ sector⌉), the same wavefronts and conflicts.
    #[test]
    fn the_calculator_is_a_tally_of_one_access(
        (addresses, mask) in lanes(),
        elem in elem(),
        shared in any::<bool>(),
    ) {
        let space = if shared { Space::Shared } else { Space::Global };
        let analysis = analyze(&calculator(&addresses, mask, elem, space)).unwrap();
        let mut tally: Tally = Tally::new(TallyOptions::new(Machine::default(), 0));
        let access = warp_access(0, AccessKind::Load, space, elem, mask, &addresses);
        let cost = tally.access(&access, |_| ()).unwrap();
        tally.finish();
        let f = tally.total();
        prop_assert_eq!(u64::from(cost.active_lanes), u64::from(analysis.totals.active_lanes));
        prop_assert_eq!(f.requested_bytes, if mask == 0 { 0 } else { analysis.totals.requested_bytes });
        match &analysis.banks {
            Some(banks) => {
                let wavefronts = if mask == 0 { 0 } else { banks.totals.wavefronts };
                prop_assert_eq!(f.wavefronts, wavefronts);
                prop_assert_eq!(f.bank_conflicts(), banks.totals.conflicts());
                prop_assert_eq!(f.sectors, 0);
            }
            None => {
                prop_assert_eq!(f.sectors, analysis.totals.sectors);
                prop_assert_eq!(f.ideal_sectors, analysis.totals.distinct_bytes.div_ceil(32));
                prop_assert_eq!(f.unique_sectors, analysis.totals.sectors);
                prop_assert_eq!(f.dram_read_bytes, analysis.totals.transferred_bytes);
            }
        }
    }

    /// A stream of accesses through the tally against an oracle that walks every byte: the
    /// sectors of each access as a set, a line-granular LRU cache of per-sector states, the
    /// distinct sectors per site as sets, and the worst list by sectors. Many accesses repeat
    /// the one before (its addresses, and often its site), as the next warp of a block does,
    /// so the tally's repeat path meets loads, stores and atomics after each other, caches
    /// smaller than the repeated lines, and the same sectors at another site.
    #[test]
    fn a_tally_agrees_with_a_byte_walking_oracle(
        stream in proptest::collection::vec(
            (lanes_below(2048), elem(), 0usize..12, 0u8..3, 0u8..4), 1..40),
        cache_lines in 0u64..8,
    ) {
        let machine = Machine::default();
        let cache_bytes = cache_lines * machine.line_bytes;
        let mut tally: Tally<usize> = Tally::new(TallyOptions {
            unique_sites: Some(12),
            worst: true,
            ..TallyOptions::new(machine, cache_bytes)
        });
        let mut oracle = Oracle::new(cache_lines as usize, 12);
        let mut costs = Vec::new();
        let mut before: Option<(&Lanes, u64, usize)> = None;
        for (n, (lanes, elem, site, kind, repeat)) in stream.iter().enumerate() {
            // 2: the addresses of the access before; 3: its site too.
            let (chosen, elem, site) = match (before, repeat) {
                (Some((l, e, _)), 2) => (l, e, *site),
                (Some(b), 3) => b,
                _ => (lanes, *elem, *site),
            };
            before = Some((chosen, elem, site));
            let (addresses, mask) = chosen;
            let kind = [Kind::Load, Kind::Store, Kind::Atomic][usize::from(*kind)];
            let stored = if kind == Kind::Load { AccessKind::Load } else { AccessKind::Store };
            let access = warp_access(site, stored, Space::Global, elem, *mask, addresses);
            let cost = if kind == Kind::Atomic {
                tally.atomic(&access, |_| n).unwrap()
            } else {
                tally.access(&access, |_| n).unwrap()
            };
            let sectors = oracle.access(addresses, *mask, elem, site, kind);
            prop_assert_eq!(cost.sectors, sectors);
            costs.push(sectors);
        }
        tally.finish();
        oracle.flush();
        let f = tally.total();
        prop_assert_eq!(f.sectors, costs.iter().sum::<u64>());
        prop_assert_eq!(f.unique_sectors, oracle.all.len() as u64);
        prop_assert_eq!(f.dram_read_bytes, oracle.reads * 32);
        prop_assert_eq!(f.dram_write_bytes, oracle.writes.iter().sum::<u64>() * 32);
        prop_assert_eq!(f.hits, (cache_lines > 0).then_some(oracle.hits));
        for site in 0..12 {
            prop_assert_eq!(tally.figures(site).unique_sectors, oracle.by_site[site].len() as u64);
            prop_assert_eq!(tally.figures(site).dram_write_bytes, oracle.writes[site] * 32);
        }
        // The worst list: the 10 most sectors, ties in the order they ran.
        let mut ranked: Vec<usize> = (0..costs.len()).filter(|&n| costs[n] > 0).collect();
        ranked.sort_by_key(|&n| std::cmp::Reverse(costs[n]));
        ranked.truncate(10);
        prop_assert_eq!(tally.worst(Measure::Sectors), ranked);
    }

    /// A cache handed to a [`CacheServer`] (the kernel view's and the CUDA panel's second
    /// worker) counts as the one a tally keeps: the same stream through both, the handed-off
    /// one's words taken at random points and met by the server as they come, gives every
    /// site the same counts and the stream the same figures. The stream mixes repeats, loads,
    /// stores and atomics, caches of 1 to 8 lines, sites past the pooled write-back account
    /// (253), sectors far apart, and runs longer than a word's 64 sectors.
    #[test]
    fn a_cache_handed_off_counts_as_the_one_kept(
        stream in proptest::collection::vec(
            (lanes_below(2048), prop_oneof![elem(), Just(4096u64)], 0usize..300, 0u8..3, 0u8..4,
             any::<bool>(), any::<bool>()), 1..40),
        cache_lines in 1u64..8,
    ) {
        let machine = Machine::default();
        let options = TallyOptions {
            unique_sites: Some(300),
            ..TallyOptions::new(machine, cache_lines * machine.line_bytes)
        };
        let mut kept: Tally = Tally::new(options);
        let mut away: Tally = Tally::new(options);
        prop_assert!(away.hand_off_cache());
        let mut server = CacheServer::default();
        let mut before: Option<(Vec<u64>, u64, u64, usize)> = None;
        for (lanes, elem, site, kind, repeat, far, cut) in &stream {
            let (mut addresses, mask) = lanes.clone();
            if *far {
                // Sectors 2^26 apart and more: the words' wide form.
                for (t, a) in addresses.iter_mut().enumerate() {
                    *a = a.wrapping_add((t as u64) << 40) % (1 << 60);
                }
            }
            let (addresses, mask, elem, site) = match (&before, repeat) {
                (Some((a, m, e, _)), 2) => (a.clone(), *m, *e, *site),
                (Some(b), 3) => b.clone(),
                _ => (addresses, mask, *elem, *site),
            };
            before = Some((addresses.clone(), mask, elem, site));
            let stored = if *kind == 1 { AccessKind::Store } else { AccessKind::Load };
            let access = warp_access(site, stored, Space::Global, elem, mask, &addresses);
            for tally in [&mut kept, &mut away] {
                if *kind == 2 {
                    tally.atomic(&access, |_| ()).unwrap();
                } else {
                    tally.access(&access, |_| ()).unwrap();
                }
            }
            if *cut {
                prop_assert_eq!(server.receive(&away.cache_words(false)), Ok(None));
            }
        }
        kept.finish();
        away.finish();
        let answer = server.receive(&away.cache_words(true)).unwrap();
        prop_assert!(answer.is_some());
        away.absorb_cache(&answer.unwrap()).unwrap();
        prop_assert_eq!(kept.sites(), away.sites());
        for site in 0..kept.sites() {
            prop_assert_eq!(kept.counts(site), away.counts(site), "site {}", site);
        }
        prop_assert_eq!(kept.total(), away.total());
    }

    /// Round robin hands over every item once, each warp's in its own order, the k-th of
    /// every warp before any warp's (k+1)-th.
    #[test]
    fn round_robin_is_the_kernel_views_order(items in proptest::collection::vec(0usize..6, 0..60)) {
        let mut order = RoundRobin::default();
        let mut seq = [0usize; 6];
        for &warp in &items {
            order.push(warp, (warp, seq[warp]));
            seq[warp] += 1;
        }
        let mut seen = Vec::new();
        order.drain(|item| seen.push(item));
        let mut expected: Vec<(usize, usize)> = (0..6).flat_map(|w| (0..seq[w]).map(move |k| (w, k))).collect();
        expected.sort_by_key(|&(w, k)| (k, w));
        prop_assert_eq!(seen, expected);
    }
}

/// A warp's addresses and the mask of the lanes that take part.
type Lanes = (Vec<u64>, u64);

/// Warp 0 of block 0 running `kind` at `site`, with no word on its lanes' stride.
fn warp_access(
    site: usize,
    kind: AccessKind,
    space: Space,
    elem: u64,
    mask: u64,
    addresses: &[u64],
) -> WarpAccess<'_> {
    WarpAccess {
        site,
        kind,
        space,
        elem,
        block: 0,
        warp: 0,
        mask,
        addresses,
        stride: None,
    }
}

/// An access's kind in the oracle's streams.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Load,
    Store,
    /// A read-modify-write: a miss is fetched, and the sector is dirty after.
    Atomic,
}

/// Per-sector cache state in the oracle: clean, or dirtied by a site.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Clean,
    Dirty(usize),
}

/// The byte-walking reference: sets and a list, nothing clever.
struct Oracle {
    capacity: usize,
    /// Most recent first: (line, the state of each of its 4 sectors).
    lines: VecDeque<(u64, [Option<State>; 4])>,
    reads: u64,
    hits: u64,
    writes: Vec<u64>,
    all: BTreeSet<u64>,
    by_site: Vec<BTreeSet<u64>>,
}

impl Oracle {
    fn new(capacity: usize, sites: usize) -> Oracle {
        Oracle {
            capacity,
            lines: VecDeque::new(),
            reads: 0,
            hits: 0,
            writes: vec![0; sites],
            all: BTreeSet::new(),
            by_site: vec![BTreeSet::new(); sites],
        }
    }

    /// One access: its sectors from every byte, in ascending order through the cache.
    fn access(&mut self, addresses: &[u64], mask: u64, elem: u64, site: usize, kind: Kind) -> u64 {
        let mut sectors = BTreeSet::new();
        for (t, &a) in addresses.iter().enumerate().take(LANES) {
            if mask & (1 << t) != 0 {
                for byte in a..a + elem {
                    sectors.insert(byte / 32);
                }
            }
        }
        for &sector in &sectors {
            self.all.insert(sector);
            self.by_site[site].insert(sector);
            if self.capacity == 0 {
                if kind != Kind::Load {
                    self.writes[site] += 1;
                }
                if kind != Kind::Store {
                    self.reads += 1;
                }
                continue;
            }
            let (line, within) = (sector / 4, (sector % 4) as usize);
            let mut entry = match self.lines.iter().position(|(l, _)| *l == line) {
                Some(at) => self.lines.remove(at).unwrap(),
                None => {
                    if self.lines.len() == self.capacity {
                        let (_, states) = self.lines.pop_back().unwrap();
                        self.write_back(&states);
                    }
                    (line, [None; 4])
                }
            };
            let state = &mut entry.1[within];
            if state.is_some() {
                self.hits += 1;
            } else if kind != Kind::Store {
                self.reads += 1;
            }
            match (*state, kind) {
                (_, Kind::Load) => *state = state.or(Some(State::Clean)),
                (Some(State::Dirty(_)), _) => {}
                _ => *state = Some(State::Dirty(site)),
            }
            self.lines.push_front(entry);
        }
        sectors.len() as u64
    }

    fn write_back(&mut self, states: &[Option<State>; 4]) {
        for state in states.iter().flatten() {
            if let State::Dirty(site) = state {
                self.writes[*site] += 1;
            }
        }
    }

    fn flush(&mut self) {
        while let Some((_, states)) = self.lines.pop_back() {
            self.write_back(&states);
        }
    }
}

/// Bases anywhere up to the top of the address space, for the fast paths' strategies.
fn bases() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..1 << 20,
        (u64::MAX - (1 << 16))..=u64::MAX,
        any::<u64>()
    ]
}

/// Strides between lanes that make one run, a run per lane, or spans that touch and merge;
/// zero, negative, and any.
fn strides() -> impl Strategy<Value = i64> {
    prop_oneof![
        prop::sample::select(vec![
            0i64, 1, 4, 8, 16, 31, 32, 33, 63, 64, 65, 95, 96, 128, 4096, 16384, -4, -32, -33, -64,
            -65, -4096
        ]),
        -600i64..600,
        any::<i64>(),
    ]
}

/// Masks of 32 lanes: all, a run of consecutive lanes (the fast paths'), or any.
fn masks() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(u64::from(u32::MAX)),
        (0u32..32, 1u32..=32).prop_map(|(from, n)| {
            let n = n.min(32 - from);
            (((1u64 << n) - 1) << from) & u64::from(u32::MAX)
        }),
        any::<u32>().prop_map(u64::from),
    ]
}

/// 32 lanes' addresses `base + stride × t`, wrapping.
fn on_line(base: u64, stride: i64) -> Vec<u64> {
    (0..32u64)
        .map(|t| base.wrapping_add((stride as u64).wrapping_mul(t)))
        .collect()
}

/// A warp's addresses for the fast path (#26): on a line from any base with any stride, on any
/// mask, and sometimes one lane moved off the line, which the fast path must notice.
fn affine_lanes() -> impl Strategy<Value = (Vec<u64>, u64)> {
    let moved = prop::option::of((0usize..32, any::<u64>()));
    (bases(), strides(), masks(), moved).prop_map(|(base, stride, mask, moved)| {
        let mut addresses = on_line(base, stride);
        if let Some((lane, to)) = moved {
            addresses[lane] = to;
        }
        (addresses, mask)
    })
}

/// One global load of `addresses` on `mask` (with the front end's word `stride`, if any),
/// measured by the fast paths and lane by lane: the same cost, the same error for bytes past
/// 2^64, and the same runs of sectors.
fn fast_agrees_with_general(
    addresses: &[u64],
    mask: u64,
    elem: u64,
    sector_shift: u32,
    stride: Option<i64>,
) -> Result<(), TestCaseError> {
    use coalescing_lab::model::warp::Scratch;
    let access = WarpAccess {
        stride,
        ..warp_access(0, AccessKind::Load, Space::Global, elem, mask, addresses)
    };
    let (mut fast, mut general) = (Scratch::default(), Scratch::default());
    let a = fast.measure(&access, sector_shift);
    let b = general.measure_lane_by_lane(&access, sector_shift);
    prop_assert_eq!(a, b);
    if a.is_ok() {
        prop_assert_eq!(fast.runs(), general.runs());
    }
    Ok(())
}

/// A warp's addresses with the front end's word (#26, `WarpAccess::stride`): on a line from
/// any base with any stride, on any mask; the test gives the word only where it holds, as the
/// kernel view's evaluator gives it (every lane's bytes within 2^64, the stride an i64).
fn told_lanes() -> impl Strategy<Value = (Vec<u64>, u64, i64)> {
    (bases(), strides(), masks())
        .prop_map(|(base, stride, mask)| (on_line(base, stride), mask, stride))
}

/// Whether the word holds: every lane of `mask` at `base + stride × t` exactly, its `elem`
/// bytes within 2^64.
fn word_holds(base: u64, stride: i64, mask: u64, elem: u64) -> bool {
    (0..32).filter(|t| mask >> t & 1 == 1).all(|t| {
        let at = i128::from(base) + i128::from(stride) * i128::from(t);
        at >= 0 && at + i128::from(elem) - 1 <= i128::from(u64::MAX)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The fast path of a warp access (affine addresses on consecutive lanes: one run, or
    /// spans merged without a sort) gives what the general path gives, lane by lane: the same
    /// cost, the same runs of sectors, the same error for bytes past 2^64.
    #[test]
    fn every_fast_path_agrees_with_the_general_path(
        (addresses, mask) in affine_lanes(),
        elem in prop_oneof![Just(1u64), Just(4), Just(8), Just(16), Just(64), 1u64..200],
        sector_shift in 3u32..8,
    ) {
        fast_agrees_with_general(&addresses, mask, elem, sector_shift, None)?;
    }

    /// The front end's fast path (its word that the lanes are affine) gives what the general
    /// path gives, lane by lane: the same cost and the same runs of sectors.
    #[test]
    fn the_front_ends_word_agrees_with_the_general_path(
        (addresses, mask, stride) in told_lanes(),
        elem in prop_oneof![Just(1u64), Just(4), Just(8), Just(16), Just(64), 1u64..200],
        sector_shift in 3u32..8,
    ) {
        // The word only where it holds (most draws); elsewhere the access goes unvouched.
        let stride = word_holds(addresses[0], stride, mask, elem).then_some(stride);
        fast_agrees_with_general(&addresses, mask, elem, sector_shift, stride)?;
    }
}
