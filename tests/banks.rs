//! The shared-memory bank model against a brute-force oracle that walks every byte of every
//! active lane, plus the properties the rule implies.

use coalescing_lab::model::banks::{bank_of, group_lanes, words, BankCounter, BANKS};
use coalescing_lab::model::sectors::Span;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Wavefronts and ideal, byte by byte: in each group, the distinct words each bank must
/// deliver, the busiest bank's count summed over the groups.
fn oracle(elem: u64, lanes: &[(u32, u64)]) -> (u64, u64) {
    // The guide's groups, written out here rather than taken from the model.
    let size = match elem {
        8 => 16,
        16 => 8,
        _ => 32,
    };
    let groups: BTreeSet<u32> = lanes.iter().map(|&(t, _)| t / size).collect();
    let mut wavefronts = 0;
    for &g in &groups {
        let mut words_in: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); BANKS as usize];
        for &(_, address) in lanes.iter().filter(|&&(t, _)| t / size == g) {
            for byte in address..address + elem {
                let word = byte / 4;
                words_in[(word % 32) as usize].insert(word);
            }
        }
        wavefronts += words_in.iter().map(|w| w.len() as u64).max().unwrap_or(0);
    }
    (wavefronts, groups.len() as u64)
}

fn spans(elem: u64, lanes: &[(u32, u64)]) -> impl Iterator<Item = (u32, Span)> + '_ {
    lanes.iter().map(move |&(t, a)| (t, words(a, a + elem - 1)))
}

fn lanes_of(addresses: &[Option<u64>]) -> Vec<(u32, u64)> {
    addresses
        .iter()
        .enumerate()
        .filter_map(|(t, a)| a.map(|a| (t as u32, a)))
        .collect()
}

/// A warp of 1 to 64 lanes, an access size, and each lane's address or inactivity. Lanes
/// mix a strided pattern (lane × stride, the common case), a few addresses near one base (so
/// that words repeat and banks collide), arbitrary addresses and inactive lanes.
fn warp_request() -> impl Strategy<Value = (u64, Vec<Option<u64>>)> {
    let elem = prop::sample::select(vec![1u64, 2, 4, 8, 16]);
    let lane = (0u8..4, 0u64..8, 0u64..2048);
    (
        elem,
        0u64..4096,
        0u64..300,
        prop::collection::vec(lane, 1..=64),
    )
        .prop_map(|(elem, base, stride, lanes)| {
            let addresses = lanes
                .iter()
                .enumerate()
                .map(|(t, &(kind, k, anywhere))| match kind {
                    0 => Some(base + t as u64 * stride),
                    1 => Some(base + k * stride),
                    2 => Some(anywhere),
                    _ => None,
                })
                .collect();
            (elem, addresses)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn wavefronts_match_the_byte_by_byte_oracle((elem, addresses) in warp_request()) {
        let lanes = lanes_of(&addresses);
        let got = BankCounter::default().count(elem, spans(elem, &lanes));
        prop_assert_eq!((got.wavefronts, got.ideal), oracle(elem, &lanes));
        let report = BankCounter::default().report(addresses.len() as u32, elem, spans(elem, &lanes));
        prop_assert_eq!(report.totals, got);
        prop_assert_eq!(report.groups.iter().map(|g| u64::from(g.wavefronts)).sum::<u64>(), got.wavefronts);
    }

    #[test]
    fn the_rule_s_bounds_hold((elem, addresses) in warp_request()) {
        let lanes = lanes_of(&addresses);
        let w = BankCounter::default().count(elem, spans(elem, &lanes));
        // At least one wavefront per active group, and never more than the distinct words.
        prop_assert!(w.wavefronts >= w.ideal);
        let distinct: BTreeSet<u64> = spans(elem, &lanes).flat_map(|(_, s)| s.first..=s.last).collect();
        prop_assert!(w.wavefronts <= distinct.len() as u64);
        prop_assert_eq!(w.ideal == 0, lanes.is_empty());
        // Moving the whole request by a multiple of 128 bytes keeps every bank.
        let moved: Vec<(u32, u64)> = lanes.iter().map(|&(t, a)| (t, a + 128 * 7)).collect();
        prop_assert_eq!(BankCounter::default().count(elem, spans(elem, &moved)), w);
        // A lane that repeats another lane's address adds no wavefront (broadcast).
        if let Some(&(t0, a0)) = lanes.first() {
            let size = group_lanes(elem);
            let mut repeated = lanes.clone();
            for l in repeated.iter_mut().filter(|(t, _)| t / size == t0 / size) {
                l.1 = a0;
            }
            let one = BankCounter::default().count(elem, spans(elem, &repeated));
            prop_assert!(one.wavefronts <= w.wavefronts);
        }
    }

    #[test]
    fn a_lane_is_marked_conflicted_exactly_when_one_of_its_banks_is_shared(
        (elem, addresses) in warp_request()
    ) {
        let lanes = lanes_of(&addresses);
        let report = BankCounter::default().report(addresses.len() as u32, elem, spans(elem, &lanes));
        let size = group_lanes(elem);
        for (t, span) in spans(elem, &lanes) {
            let mut others: BTreeSet<u64> = BTreeSet::new();
            for (_, s) in spans(elem, &lanes).filter(|(u, _)| u / size == t / size) {
                others.extend(s.first..=s.last);
            }
            let shared = (span.first..=span.last).any(|w| {
                others.iter().filter(|&&o| bank_of(o) == bank_of(w)).count() > 1
            });
            prop_assert_eq!(report.conflicted(t, span), shared);
        }
    }
}

#[test]
fn the_issue_s_examples_have_the_stated_counts() {
    let count = |elem: u64, idx: &dyn Fn(u64) -> u64| {
        let lanes: Vec<(u32, u64)> = (0..32).map(|t| (t as u32, elem * idx(t))).collect();
        BankCounter::default().count(elem, spans(elem, &lanes))
    };
    // Column of a 32×32 float tile: word 32t, all in bank 0: 32 wavefronts, 31 conflicts.
    let w = count(4, &|t| 32 * t);
    assert_eq!((w.wavefronts, w.conflicts()), (32, 31));
    // Padded to 33: word 33t, bank t: one wavefront.
    assert_eq!(count(4, &|t| 33 * t).wavefronts, 1);
    // Broadcast: every lane the same word.
    assert_eq!(count(4, &|_| 5).wavefronts, 1);
    // Stride 2 floats: words 2t, banks 0, 2, …, 30 twice each: 2-way.
    assert_eq!(count(4, &|t| 2 * t).wavefronts, 2);
    // float2 along a row: two groups of 16 lanes, 128 bytes each: 2 wavefronts, no conflict.
    let w = count(8, &|t| t);
    assert_eq!((w.wavefronts, w.ideal, w.conflicts()), (2, 2, 0));
    // double down a padded column: 264t bytes, words 66t and 66t+1, banks 2t and 2t+1 mod 32;
    // each group of 16 lanes covers all 32 banks once.
    let w = count(8, &|t| 33 * t);
    assert_eq!((w.wavefronts, w.conflicts()), (2, 0));
    // float4 along a row: four groups of 8 lanes, 128 bytes each.
    let w = count(16, &|t| t);
    assert_eq!((w.wavefronts, w.conflicts()), (4, 0));
}
