//! The closed-form sector analysis against a deliberately simple oracle that enumerates every
//! requested byte, over random scenarios (rangemap's reference-implementation style).

use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::sectors::analyze;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Counts by brute force: every byte of every active lane goes into a set.
struct Oracle {
    active: u64,
    distinct_bytes: u64,
    sectors: u64,
    lines: u64,
    misaligned: u64,
}

fn oracle(addresses: &[Option<u64>], elem: u64, sector: u64, line: u64) -> Oracle {
    let mut bytes = BTreeSet::new();
    for a in addresses.iter().flatten() {
        for b in *a..*a + elem {
            bytes.insert(b);
        }
    }
    Oracle {
        active: addresses.iter().flatten().count() as u64,
        distinct_bytes: bytes.len() as u64,
        sectors: bytes
            .iter()
            .map(|b| b / sector)
            .collect::<BTreeSet<_>>()
            .len() as u64,
        lines: bytes
            .iter()
            .map(|b| b / line)
            .collect::<BTreeSet<_>>()
            .len() as u64,
        misaligned: addresses
            .iter()
            .flatten()
            .filter(|a| *a % elem != 0)
            .count() as u64,
    }
}

fn check(
    addresses: Vec<Option<u64>>,
    elem: u64,
    sector: u64,
    line: u64,
) -> Result<(), TestCaseError> {
    let list: Vec<String> = addresses
        .iter()
        .map(|a| a.map_or("-".to_string(), |a| a.to_string()))
        .collect();
    let inputs = Inputs {
        warp: addresses.len().to_string(),
        elem: elem.to_string(),
        addrs: list.join(","),
        sector: sector.to_string(),
        line: line.to_string(),
        ..Inputs::default()
    };
    let t = analyze(&inputs)
        .map_err(|e| TestCaseError::fail(format!("{e:?}")))?
        .totals;
    let o = oracle(&addresses, elem, sector, line);
    prop_assert_eq!(u64::from(t.active_lanes), o.active);
    prop_assert_eq!(t.requested_bytes, o.active * elem);
    prop_assert_eq!(t.distinct_bytes, o.distinct_bytes);
    prop_assert_eq!(t.sectors, o.sectors);
    prop_assert_eq!(t.transferred_bytes, o.sectors * sector);
    prop_assert_eq!(t.lines, o.lines);
    prop_assert_eq!(u64::from(t.misaligned_lanes), o.misaligned);
    if let Some(d) = t.distinct_efficiency() {
        prop_assert!(d.value() <= 1.0);
    }
    Ok(())
}

fn sizes() -> impl Strategy<Value = (u64, u64, u64)> {
    (0usize..5, 3u32..=10, 0u32..=3).prop_map(|(e, s, l)| {
        let sector = 1u64 << s;
        let line = (sector << l).min(4096);
        ([1, 2, 4, 8, 16][e], sector, line)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Addresses clustered in a small window, so lanes share, straddle and repeat sectors.
    #[test]
    fn clustered_addresses_match_the_byte_oracle(
        (elem, sector, line) in sizes(),
        addresses in prop::collection::vec(prop::option::weighted(0.85, 0u64..600), 1..=64),
    ) {
        check(addresses, elem, sector, line)?;
    }

    /// Addresses anywhere, up to the last bytes of the address space.
    #[test]
    fn scattered_addresses_match_the_byte_oracle(
        (elem, sector, line) in sizes(),
        addresses in prop::collection::vec(prop::option::weighted(0.9, any::<u64>()), 1..=64),
    ) {
        let addresses = addresses.into_iter().map(|a| a.map(|a| a.min(u64::MAX - 15))).collect();
        check(addresses, elem, sector, line)?;
    }

    /// Index expressions agree with the same addresses written out as a list.
    #[test]
    fn strided_expressions_match_their_address_lists(
        stride in -40i64..40, offset in 0i64..200, base in 0u64..4096, warp in 1u32..=64,
        (elem, sector, line) in sizes(),
    ) {
        let idx = format!("{offset} + {stride} * t");
        let expr = Inputs { warp: warp.to_string(), elem: elem.to_string(), base: base.to_string(), idx,
            sector: sector.to_string(), line: line.to_string(), ..Inputs::default() };
        let addresses: Vec<i128> = (0..i128::from(warp))
            .map(|t| i128::from(base) + i128::from(elem) * (i128::from(offset) + i128::from(stride) * t))
            .collect();
        if addresses.iter().any(|a| *a < 0) {
            prop_assert!(analyze(&expr).is_err());
        } else {
            let list = addresses.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(",");
            let listed = Inputs { addrs: list, ..expr.clone() };
            prop_assert_eq!(analyze(&expr).unwrap().totals, analyze(&listed).unwrap().totals);
        }
    }
}
