//! Permalinks: every state survives encode → decode, and no string makes decoding panic.

use coalescing_lab::model::inputs::{Field, Inputs};
use coalescing_lab::model::permalink::{decode, encode, State, Tab};
use coalescing_lab::model::presets::PRESETS;
use coalescing_lab::model::sectors::{analyze, analyze_repaired};
use proptest::prelude::*;

#[test]
fn course_presets_round_trip_through_short_links() {
    for p in &PRESETS {
        let state = State {
            calc: p.inputs(),
            ..State::default()
        };
        let query = encode(&state);
        assert_eq!(decode(&query), state, "{}: {query}", p.id);
    }
    let ex8b = PRESETS.iter().find(|p| p.id == "ex8b-mixed").unwrap();
    assert_eq!(
        encode(&State {
            calc: ex8b.inputs(),
            ..State::default()
        }),
        "idx=t%3C16%20?%20t%20:%201000%2B64*(t-16)"
    );
}

#[test]
fn parameters_keep_their_contract_names() {
    let state = decode("warp=16&elem=8&base=0x10&idx=2*t&active=t%252&addrs=&sector=64&line=256");
    assert_eq!(
        state.calc,
        Inputs {
            warp: "16".into(),
            elem: "8".into(),
            base: "0x10".into(),
            idx: "2*t".into(),
            active: "t%2".into(),
            addrs: "".into(),
            sector: "64".into(),
            line: "256".into(),
        }
    );
    // Odd lanes 1…15 read 8 bytes at 16 + 16·t = 32, 64, …, 256: 64-byte sectors 0…4.
    assert_eq!(analyze(&state.calc).unwrap().totals.sectors, 5);
}

#[test]
fn form_encoding_details_are_understood() {
    assert_eq!(decode("idx=t+%2B+1").calc.idx, "t + 1");
    assert_eq!(decode("idx=100%").calc.idx, "100%", "a lone % is kept");
    assert_eq!(decode("idx=%E2%88%9A").calc.idx, "√");
    assert_eq!(
        decode("idx=%FF").calc.idx,
        "\u{FFFD}",
        "invalid UTF-8 is replaced, not fatal"
    );
    assert_eq!(decode("idx=1&idx=2").calc.idx, "2", "the last repeat wins");
    assert_eq!(decode("idx").calc.idx, "", "a key without a value is empty");
}

#[test]
fn the_roofline_lab_travels_with_its_tab_and_trail() {
    let state = decode("tab=roofline&oi=2&bw=80&trail=2:80,1:80");
    assert_eq!(state.tab, Tab::Roofline);
    assert_eq!(
        (
            state.lab.oi.as_str(),
            state.lab.bw.as_str(),
            state.lab.trail.as_str()
        ),
        ("2", "80", "2:80,1:80")
    );
    assert_eq!(encode(&state), "tab=roofline&oi=2&bw=80&trail=2:80,1:80");
    assert_eq!(decode("tab=nonsense").tab, Tab::Calculator);
}

fn field_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-z+*/%()<>=!&|^~?:, -]{0,40}",
        any::<String>(),
        Just("0x".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_state_survives_encode_then_decode(
        values in prop::collection::vec(field_text(), 8),
        lab in prop::collection::vec(field_text(), 3),
        roofline: bool,
    ) {
        let mut calc = Inputs::default();
        for (field, value) in Field::ALL.into_iter().zip(values) {
            calc.set(field, value);
        }
        let mut state = State { calc, ..State::default() };
        state.lab.oi = lab[0].clone();
        state.lab.bw = lab[1].clone();
        state.lab.trail = lab[2].clone();
        if roofline {
            state.tab = Tab::Roofline;
        }
        prop_assert_eq!(decode(&encode(&state)), state);
    }

    #[test]
    fn decoding_any_string_never_panics_and_always_yields_results(query in any::<String>()) {
        let state = decode(&query);
        let _ = state.lab.check();
        let analysis = analyze_repaired(&state.calc);
        prop_assert!(analysis.warp >= 1);
        if let Err(errors) = analyze(&state.calc) {
            prop_assert!(!errors.is_empty());
            for e in errors {
                let prefix = format!("{}: ", e.field.param());
                prop_assert!(e.to_string().starts_with(&prefix));
            }
        }
    }
}
