//! Field validation and lane-level errors: every message names its field and what is accepted.

use coalescing_lab::model::inputs::{Field, Inputs};
use coalescing_lab::model::sectors::{analyze, analyze_repaired};

fn errors(edit: impl FnOnce(&mut Inputs)) -> Vec<String> {
    let mut inputs = Inputs::default();
    edit(&mut inputs);
    analyze(&inputs)
        .expect_err("should be refused")
        .iter()
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn out_of_range_fields_say_what_is_accepted() {
    assert_eq!(
        errors(|i| i.warp = "65".into()),
        ["warp: must be a whole number of lanes from 1 to 64, found '65'"]
    );
    assert_eq!(
        errors(|i| i.warp = "0".into()),
        ["warp: must be a whole number of lanes from 1 to 64, found '0'"]
    );
    assert_eq!(
        errors(|i| i.elem = "3".into()),
        ["elem: must be 1, 2, 4, 8 or 16 bytes, found '3'"]
    );
    assert_eq!(
        errors(|i| i.base = "-8".into()),
        ["base: must be a byte address from 0 to 2^64−1, decimal or 0x hex, found '-8'"]
    );
    assert_eq!(
        errors(|i| i.base = "18446744073709551616".into()),
        ["base: must be a byte address from 0 to 2^64−1, decimal or 0x hex, found '18446744073709551616'"]
    );
    assert_eq!(
        errors(|i| i.sector = "48".into()),
        ["sector: must be a power of two from 8 to 1024 bytes, found '48'"]
    );
    assert_eq!(
        errors(|i| i.sector = "2048".into()),
        ["sector: must be a power of two from 8 to 1024 bytes, found '2048'"]
    );
    assert_eq!(
        errors(|i| i.line = "16".into()),
        ["line: must be a power-of-two multiple of the sector (32 bytes) up to 4096 bytes, found '16'"]
    );
    assert_eq!(
        errors(|i| i.line = "8192".into()),
        ["line: must be a power-of-two multiple of the sector (32 bytes) up to 4096 bytes, found '8192'"]
    );
    assert_eq!(
        errors(|i| i.idx = "t +".into()),
        ["idx: expected a number, t, a function or '(', found end of input"]
    );
    assert_eq!(
        errors(|i| i.active = "t $".into()),
        ["active: unexpected character '$' at column 3"]
    );
}

#[test]
fn every_bad_field_is_reported_at_once_in_form_order() {
    let fields: Vec<Field> = {
        let i = Inputs {
            line: "3".into(),
            warp: "x".into(),
            idx: "(".into(),
            ..Inputs::default()
        };
        analyze(&i).unwrap_err().iter().map(|e| e.field).collect()
    };
    assert_eq!(fields, [Field::Warp, Field::Idx, Field::Line]);
}

#[test]
fn addresses_must_stay_within_zero_and_two_to_the_64() {
    assert_eq!(
        errors(|i| i.idx = "t - 3".into()),
        ["idx: lane 0: address 0 + 4 × -3 = -12 is negative"]
    );
    assert_eq!(
        errors(|i| {
            i.base = "0xFFFFFFFFFFFFFFF0".into();
            i.idx = "t".into();
        }),
        ["idx: lane 4: address 18446744073709551600 + 4 × 4 = 18446744073709551616 is past 2^64"]
    );
    assert_eq!(
        errors(|i| {
            i.base = "18446744073709551614".into();
            i.idx = "0".into();
        }),
        ["idx: lane 0: 4 bytes at address 18446744073709551614 run past 2^64"]
    );
    // The last four bytes of the address space are a legal access.
    let mut last = Inputs {
        base: "18446744073709551612".into(),
        idx: "0".into(),
        ..Inputs::default()
    };
    assert_eq!(analyze(&last).unwrap().totals.sectors, 1);
    last.addrs = format!("{}", u64::MAX - 1);
    last.warp = "1".into();
    assert_eq!(
        analyze(&last).unwrap_err()[0].to_string(),
        "addrs: lane 0: 4 bytes at address 18446744073709551614 run past 2^64"
    );
}

#[test]
fn lane_errors_name_the_field_that_failed() {
    assert_eq!(
        errors(|i| i.idx = "100 / (3 - t)".into()),
        ["idx: lane 3: division by zero in 100 / 0 (column 5)"]
    );
    assert_eq!(
        errors(|i| i.active = "1 / (t - 7)".into()),
        ["active: lane 7: division by zero in 1 / 0 (column 3)"]
    );
}

#[test]
fn inactive_lanes_are_not_evaluated_like_a_branch_not_taken() {
    let inputs = Inputs {
        idx: "abs(100 / (t - 3))".into(),
        active: "t != 3".into(),
        ..Inputs::default()
    };
    let a = analyze(&inputs).unwrap();
    assert_eq!(a.totals.active_lanes, 31);
    assert!(a.lanes[3].access.is_none());
}

#[test]
fn address_list_gives_one_entry_per_lane() {
    let four = Inputs {
        warp: "4".into(),
        addrs: "0, 0x20, -, 100".into(),
        ..Inputs::default()
    };
    let a = analyze(&four).unwrap();
    let addresses: Vec<Option<u64>> = a
        .lanes
        .iter()
        .map(|l| l.access.as_ref().map(|x| x.address))
        .collect();
    assert_eq!(addresses, [Some(0), Some(32), None, Some(100)]);
    assert_eq!((a.totals.active_lanes, a.totals.sectors), (3, 3));
    // idx is ignored, even when it would not parse, while the list is in use.
    assert!(analyze(&Inputs { idx: "(".into(), ..four.clone() }).is_ok());

    let short = Inputs { addrs: "0,4".into(), ..Inputs::default() };
    assert_eq!(
        analyze(&short).unwrap_err()[0].to_string(),
        "addrs: has 2 entries but the warp has 32 lanes; give one address (or -) per lane"
    );
    let bad = Inputs {
        warp: "2".into(),
        addrs: "0,x".into(),
        ..Inputs::default()
    };
    assert_eq!(
        analyze(&bad).unwrap_err()[0].to_string(),
        "addrs: entry 2 ('x') is not an address; use decimal, 0x hex, or - for an inactive lane"
    );
}

#[test]
fn misaligned_lanes_are_counted() {
    let doubles = Inputs {
        elem: "8".into(),
        base: "4".into(),
        ..Inputs::default()
    };
    let t = analyze(&doubles).unwrap().totals;
    assert_eq!(t.misaligned_lanes, 32);
    // 32 × 8 bytes from 4 span bytes 4…259: sectors 0…8.
    assert_eq!((t.sectors, t.straddling_lanes), (9, 8));
}

#[test]
fn a_sixteen_byte_access_can_touch_three_small_sectors() {
    let inputs = Inputs {
        warp: "1".into(),
        elem: "16".into(),
        base: "4".into(),
        sector: "8".into(),
        line: "8".into(),
        ..Inputs::default()
    };
    let a = analyze(&inputs).unwrap();
    let access = a.lanes[0].access.as_ref().unwrap();
    assert_eq!((access.sectors.first, access.sectors.last), (0, 2));
    assert_eq!((a.totals.sectors, a.totals.lines), (3, 3));
}

#[test]
fn a_bad_first_link_still_shows_results_with_that_field_at_its_default() {
    let bad = Inputs {
        base: "8".into(),
        elem: "3".into(),
        idx: "10/(t-1)".into(),
        ..Inputs::default()
    };
    let a = analyze_repaired(&bad);
    // elem falls back first, then idx once it fails at lane 1; base 8 is kept: Ex2's 5 sectors.
    assert_eq!((a.elem, a.totals.sectors), (4, 5));
}

/// The form's hints and the checks read the same limits: the largest value a hint names is
/// accepted, and the next one refused.
#[test]
fn hints_name_the_limits_the_checks_enforce() {
    use coalescing_lab::model::inputs::{MAX_LINE_BYTES, MAX_SECTOR_BYTES, MAX_WARP};
    let accepts = |field: Field, value: String| {
        let mut inputs = Inputs::default();
        inputs.set(field, value);
        if field == Field::Sector {
            inputs.set(Field::Line, MAX_LINE_BYTES.to_string());
        }
        inputs.scenario().is_ok()
    };
    assert_eq!(Field::Warp.hint(), "1 to 64 (NVIDIA: 32, AMD wave64: 64)");
    assert!(accepts(Field::Warp, MAX_WARP.to_string()));
    assert!(!accepts(Field::Warp, (MAX_WARP + 1).to_string()));
    assert_eq!(
        Field::Sector.hint(),
        "the serviced unit: a power of two from 8 to 1024"
    );
    assert!(accepts(Field::Sector, MAX_SECTOR_BYTES.to_string()));
    assert!(!accepts(Field::Sector, (MAX_SECTOR_BYTES * 2).to_string()));
    assert_eq!(
        Field::Line.hint(),
        "a power-of-two multiple of the sector, up to 4096"
    );
    assert!(accepts(Field::Line, MAX_LINE_BYTES.to_string()));
    assert!(!accepts(Field::Line, (MAX_LINE_BYTES * 2).to_string()));
    assert_eq!(
        Field::Elem.hint(),
        "1, 2, 4, 8 or 16 (float: 4, double: 8, float4: 16)"
    );
}
