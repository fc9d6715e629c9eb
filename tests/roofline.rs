//! The Roofline lab's arithmetic: the course's two runs, the ridge, the exact boundary and
//! the extremes.

use coalescing_lab::model::exact::Exact;
use coalescing_lab::model::format::number;
use coalescing_lab::model::roofline::{
    parse_trail, read_trail, Bound, HandOffRefusal, Lab, Point, MAX_TRAIL,
};
use coalescing_lab::model::sectors::Ratio;

fn point(oi: &str, bw: &str) -> Point {
    Point {
        oi: Exact::parse(oi).unwrap(),
        bw: Exact::parse(bw).unwrap(),
        prediction: None,
    }
}

#[test]
fn the_course_runs_attain_160_then_80_gflops_memory_bound() {
    let first = point("2", "80");
    assert_eq!(
        (first.attainable_gflops(), first.bound()),
        (160.0, Bound::Memory)
    );
    assert_eq!(first.ridge_flop_per_byte(), 12.5);
    let second = point("1", "80");
    assert_eq!(
        (second.attainable_gflops(), second.bound()),
        (80.0, Bound::Memory)
    );
}

#[test]
fn the_course_exercise_by_steps_and_resets() {
    let mut lab = Lab {
        oi: "2".into(),
        bw: "80".into(),
        prediction: "160".into(),
        ..Lab::default()
    };
    assert!(lab.step());
    let trail = lab.check().trail;
    assert_eq!(trail.len(), 1);
    assert_eq!(
        trail[0].prediction_verdict().unwrap(),
        "You predicted 160 GFLOP/s: exactly right."
    );
    lab = Lab::default();
    assert_eq!(
        (lab.oi.as_str(), lab.bw.as_str(), lab.trail.as_str()),
        ("1", "100", "")
    );
    lab.bw = "80".into();
    assert!(lab.step());
    assert_eq!(lab.check().trail[0].attainable_gflops(), 80.0);
}

#[test]
fn the_ridge_belongs_to_the_compute_roof_exactly() {
    for (oi, bw) in [("10", "100"), ("12.5", "80"), ("1/64", "64000")] {
        let p = point(oi, bw);
        assert_eq!(
            (p.bound(), p.attainable_gflops()),
            (Bound::Compute, 1000.0),
            "{oi} × {bw}"
        );
    }
    // Just below the ridge by the smallest step a decimal can type, and floats can't see it.
    let below = point("12.499999999999", "80");
    assert_eq!(below.bound(), Bound::Memory);
    assert!(below.attainable_gflops() < 1000.0);
    // 0.1 × 10000 is exactly 1000 although 0.1 is not exact in binary.
    assert_eq!(point("0.1", "10000").bound(), Bound::Compute);
}

#[test]
fn extreme_values_stay_finite_and_ordered() {
    let lowest = point("1/64", "1");
    assert_eq!(
        (lowest.attainable_gflops(), lowest.bound()),
        (0.015625, Bound::Memory)
    );
    assert_eq!(lowest.ridge_flop_per_byte(), 1000.0);
    let highest = point("1024", "100000");
    assert_eq!(
        (highest.attainable_gflops(), highest.bound()),
        (1000.0, Bound::Compute)
    );
    assert_eq!(highest.ridge_flop_per_byte(), 0.01);
}

#[test]
fn bad_values_name_their_field_and_what_is_accepted() {
    let errors = |lab: Lab| {
        lab.check()
            .errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    };
    let oi = |v: &str| {
        format!("oi: must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '{v}'")
    };
    for bad in ["0", "-1", "1/65", "1025"] {
        assert_eq!(
            errors(Lab { oi: bad.into(), ..Lab::default() }),
            [oi(bad)],
            "{bad}"
        );
    }
    // Regression: syntax errors and long numbers were reported as out of range.
    let enter = "enter an intensity from 1/64 to 1024 FLOP/byte, such as 2 or 1/8";
    for (bad, why) in [
        ("abc", "'abc' is not a decimal or a fraction such as 1/8"),
        ("NaN", "'NaN' is not a decimal or a fraction such as 1/8"),
        ("1/0", "'1/0' divides by zero"),
        (
            "1e2",
            "'1e2' has an exponent; write the number out (100, not 1e2)",
        ),
        (
            "1234567890123456",
            "'1234567890123456' has more than 15 significant digits",
        ),
        ("", "is empty"),
    ] {
        assert_eq!(
            errors(Lab { oi: bad.into(), ..Lab::default() }),
            [format!("oi: {why}; {enter}")],
            "{bad}"
        );
    }
    // What is valid is accepted: a fraction of decimals, and a long fraction that is 1.
    for good in [
        "3/0.5",
        "99999999999999999999999999999/99999999999999999999999999999",
    ] {
        assert!(
            errors(Lab { oi: good.into(), ..Lab::default() }).is_empty(),
            "{good}"
        );
    }
    for bad in ["0", "0.5", "100001", "-80"] {
        assert_eq!(
            errors(Lab { bw: bad.into(), ..Lab::default() }),
            [format!(
                "bw: must be a bandwidth from 1 to 100000 GB/s, found '{bad}'"
            )]
        );
    }
    assert_eq!(
        errors(Lab {
            bw: "8e1".into(),
            ..Lab::default()
        }),
        ["bw: '8e1' has an exponent; write the number out (100, not 1e2); enter a bandwidth from 1 to 100000 GB/s, such as 80"]
    );
    assert_eq!(
        errors(Lab {
            prediction: "lots".into(),
            ..Lab::default()
        }),
        ["prediction: must be empty or a number of GFLOP/s such as 160: 'lots' is not a decimal or a fraction such as 1/8"]
    );
    assert_eq!(
        errors(Lab {
            trail: "2:80,0:80".into(),
            ..Lab::default()
        }),
        ["trail: entry 2 ('0:80') has an intensity outside 1/64 to 1024 FLOP/byte"]
    );
    assert_eq!(
        errors(Lab { trail: "2:80:x".into(), ..Lab::default() }),
        ["trail: entry 1 ('2:80:x') has a prediction that is not a number of GFLOP/s"]
    );
    assert_eq!(
        errors(Lab { trail: "2:0".into(), ..Lab::default() }),
        ["trail: entry 1 ('2:0') has a bandwidth outside 1 to 100000 GB/s"]
    );
    assert!(parse_trail("2:80:1:1").is_err());
}

#[test]
fn step_with_a_bad_input_changes_nothing_and_bad_entries_are_left_out() {
    let mut lab = Lab {
        oi: "x".into(),
        trail: "2:80".into(),
        ..Lab::default()
    };
    assert!(!lab.step());
    assert_eq!(lab.trail, "2:80");
    let mut lab = Lab {
        trail: "garbage".into(),
        ..Lab::default()
    };
    assert!(lab.step());
    assert_eq!(lab.trail, "1:100");
}

// Regression: one bad entry gave "using an empty trail" and dropped the valid ones.
#[test]
fn a_bad_trail_entry_is_named_and_the_valid_ones_are_kept() {
    let trail = read_trail("1/64:1:=1+1,3/7:1000/3:0.5,1024:100000");
    assert_eq!(trail.points.len(), 2);
    assert_eq!(
        trail
            .errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["trail: entry 1 ('1/64:1:=1+1') has a prediction that is not a number of GFLOP/s"]
    );
    assert_eq!(trail.points[0].oi.to_string(), "3/7");
}

// Regression: a 1000-point link cost 400–550 ms at load and 60–140 ms per Step.
#[test]
fn a_long_trail_keeps_its_latest_points_and_step_drops_the_oldest() {
    let long: Vec<String> = (1..=1000).map(|b| format!("1:{b}")).collect();
    let trail = read_trail(&long.join(","));
    assert_eq!(
        (trail.points.len(), trail.dropped),
        (MAX_TRAIL, 1000 - MAX_TRAIL)
    );
    assert_eq!(
        trail.points[0].bw.to_string(),
        (1001 - MAX_TRAIL).to_string()
    );
    let mut lab = Lab {
        trail: long.join(","),
        bw: "7".into(),
        ..Lab::default()
    };
    assert!(lab.step());
    let kept = read_trail(&lab.trail);
    assert_eq!((kept.points.len(), kept.dropped), (MAX_TRAIL, 0));
    assert_eq!(kept.points.last().unwrap().bw.to_string(), "7");
}

// Regression: 160.0000000001 at I = 2, B = 80 was "exactly right" and shown as a fraction.
#[test]
fn exactly_right_means_equal_and_the_prediction_reads_as_typed() {
    let mut p = point("2", "80");
    p.prediction = Exact::parse("160.0000000001");
    let verdict = p.prediction_verdict().unwrap();
    assert!(
        verdict.starts_with("You predicted 160.0000000001 GFLOP/s: "),
        "{verdict}"
    );
    assert!(!verdict.contains("exactly right"), "{verdict}");
    p.prediction = Exact::parse("160.000");
    assert_eq!(
        p.prediction_verdict().unwrap(),
        "You predicted 160 GFLOP/s: exactly right."
    );
}

#[test]
fn calculator_efficiency_scales_intensity_at_fixed_flops() {
    let lab = Lab { oi: "2".into(), ..Lab::default() };
    let scaled = |n, d| {
        let (lab, note) = lab
            .hand_off(Some(Ratio { numerator: n, denominator: d }))
            .unwrap();
        let text = note.text_for(&lab).unwrap().to_string();
        (lab, text)
    };
    assert_eq!(scaled(128, 160).0.oi, "1.6");
    assert_eq!(
        scaled(128, 160).1,
        "80 % useful bytes multiplies the bytes moved by 1.25, so intensity 2 → 1.6 FLOP/byte."
    );
    assert_eq!(scaled(128, 576).0.oi, "4/9");
    assert_eq!(
        scaled(128, 128).1,
        "100 % useful bytes leaves the bytes moved unchanged, so intensity 2 → 2 FLOP/byte."
    );
    let (broadcast, why) = scaled(128, 32);
    assert_eq!(broadcast.oi, "2", "a broadcast's 400 % is capped at 100 %");
    assert!(why.contains("counts as 100 %"), "{why}");
}

// Regression: the hand-off stayed enabled with a broken calculator, wrote intensities the lab
// then rejected, and did nothing without a word when the lab's own intensity was bad.
#[test]
fn the_hand_off_is_refused_with_a_reason_whenever_the_lab_would_not_be_valid() {
    let half = Some(Ratio { numerator: 64, denominator: 128 });
    let refusal = |oi: &str, useful| {
        Lab { oi: oi.into(), ..Lab::default() }
            .hand_off(useful)
            .unwrap_err()
    };
    assert_eq!(refusal("2", None), HandOffRefusal::CalculatorInvalid);
    assert_eq!(
        refusal("2", Some(Ratio { numerator: 0, denominator: 1 })),
        HandOffRefusal::NoActiveLane
    );
    assert_eq!(
        refusal("abc", half).to_string(),
        "The Roofline lab's intensity 'abc' is not valid; fix it in the lab first."
    );
    assert_eq!(
        refusal("1/64", half).to_string(),
        "Intensity 0.015625 would fall to 0.0078125 FLOP/byte, below the lab's floor of 1/64; raise the lab's intensity first."
    );
    // The note retires once the learner types a new bandwidth.
    let (mut lab, note) = Lab::default().hand_off(half).unwrap();
    assert!(note.text_for(&lab).is_some());
    lab.bw = "80".into();
    assert_eq!(note.text_for(&lab), None);
}

#[test]
fn numbers_read_cleanly() {
    assert_eq!(number(0.015625), "0.015625");
    assert_eq!(number(1000.0), "1000");
    assert_eq!(number(2.0 / 3.0), "0.666667");
}
