//! Permalinks: every state survives encode → decode, and no string makes decoding panic.

use coalescing_lab::model::inputs::{Field, Inputs};
use coalescing_lab::model::permalink::{decode, encode, State};
use coalescing_lab::model::presets::PRESETS;
use coalescing_lab::model::sectors::{analyze, analyze_repaired};
use proptest::prelude::*;

#[test]
fn course_presets_round_trip_through_short_links() {
    for p in &PRESETS {
        let state = State { calc: p.inputs() };
        let query = encode(&state);
        assert_eq!(decode(&query), state, "{}: {query}", p.id);
    }
    let ex8b = PRESETS.iter().find(|p| p.id == "ex8b-mixed").unwrap();
    assert_eq!(
        encode(&State {
            calc: ex8b.inputs()
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
    fn every_state_survives_encode_then_decode(values in prop::collection::vec(field_text(), 8)) {
        let mut calc = Inputs::default();
        for (field, value) in Field::ALL.into_iter().zip(values) {
            calc.set(field, value);
        }
        let state = State { calc };
        prop_assert_eq!(decode(&encode(&state)), state);
    }

    #[test]
    fn decoding_any_string_never_panics_and_always_yields_results(query in any::<String>()) {
        let state = decode(&query);
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
