//! Permalinks: every state survives encode → decode, and no string makes decoding panic.

use coalescing_lab::model::inputs::{Field, Inputs};
use coalescing_lab::model::permalink::{decode, encode, warnings, State, Tab};
use coalescing_lab::model::presets::PRESETS;
use coalescing_lab::model::sectors::{analyze, analyze_repaired};
use proptest::prelude::*;

#[test]
fn course_presets_round_trip_through_short_links() {
    for p in &PRESETS {
        let state = State { calc: p.inputs(), ..State::default() };
        let query = encode(&state);
        assert_eq!(decode(&query), state, "{}: {query}", p.id);
    }
    let ex8b = PRESETS.iter().find(|p| p.id == "ex8b-mixed").unwrap();
    assert_eq!(
        encode(&State { calc: ex8b.inputs(), ..State::default() }),
        "v=1&idx=t%3C16%20?%20t%20:%201000%2B64*(t-16)"
    );
}

#[test]
fn parameters_keep_their_contract_names() {
    let state = decode(
        "space=shared&warp=16&elem=8&base=0x10&idx=2*t&active=t%252&addrs=&sector=64&line=256",
    );
    assert_eq!(
        state.calc,
        Inputs {
            arch: "volta".into(),
            space: "shared".into(),
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
    // In shared memory, one group of 16 lanes: lane t (odd) covers words 4 + 4t and 5 + 4t;
    // lanes 1 and 9 meet in bank 8 (words 8 and 40), and so on: 2 wavefronts.
    let banks = analyze(&state.calc).unwrap().banks.unwrap();
    assert_eq!((banks.totals.wavefronts, banks.totals.ideal), (2, 1));
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
    assert_eq!(
        encode(&state),
        "v=1&tab=roofline&oi=2&bw=80&trail=2:80,1:80"
    );
    assert_eq!(decode("tab=nonsense").tab, Tab::Calculator);
}

#[test]
fn a_bad_link_gets_one_plain_warning_per_problem_and_keeps_the_rest() {
    let query = "?v=1&elem=3&idx=2*t&sector=48&tab=roofline&oi=0&trail=2:80,x&colour=red";
    assert_eq!(
        warnings(query),
        [
            "`colour` is not a Coalescing Lab parameter; it was ignored.",
            "`elem=3` must be 1, 2, 4, 8 or 16 bytes, found '3'; using 4.",
            "`sector=48` must be a power of two from 8 to 1024 bytes, found '48'; using 32.",
            "`oi=0` must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '0'; using 1.",
            "`trail` entry 2 ('x') is not I:B (intensity:bandwidth, e.g. 2:80); it was left out.",
        ]
    );
    let state = decode(query);
    assert_eq!(
        (state.calc.idx.as_str(), state.tab),
        ("2*t", Tab::Roofline),
        "valid values are kept"
    );
    assert_eq!(
        analyze_repaired(&state.calc).totals.sectors,
        8,
        "stride 2 with elem and sector at defaults"
    );
}

#[test]
fn versions_and_modes_are_checked() {
    assert_eq!(
        warnings("v=2&idx=t"),
        ["`v=2`: this link comes from a newer Coalescing Lab; it was read as version 1, so some settings may be missing."]
    );
    assert_eq!(
        warnings("v=x"),
        ["`v=x` is not a link version; the link was read as version 1."]
    );
    assert_eq!(
        warnings("tab=gpu"),
        ["`tab=gpu` is not a panel (calculator, kernel, trace, roofline or probe); showing the calculator."]
    );
    assert_eq!(
        warnings("embed=yes"),
        ["`embed=yes` is not 0 or 1; showing the full page."]
    );
    assert!(decode("embed=1").embed);
    assert!(decode("predict=1").predict);
    assert_eq!(
        encode(&decode("predict=1&idx=2*t")),
        "v=1&predict=1&idx=2*t"
    );
    assert_eq!(
        warnings("predict=maybe"),
        ["`predict=maybe` is not 0 or 1; showing the results at once."]
    );
    assert_eq!(encode(&decode("embed=1&base=8")), "v=1&embed=1&base=8");
    // A lane-level error met only after another field falls back is reported too.
    assert_eq!(
        warnings("elem=3&idx=abs(10/(t-1))"),
        [
            "`elem=3` must be 1, 2, 4, 8 or 16 bytes, found '3'; using 4.",
            "`idx=abs(10/(t-1))` lane 1: division by zero in 10 / 0 (column 7); using t.",
        ]
    );
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
        values in prop::collection::vec(field_text(), 9),
        lab in prop::collection::vec(field_text(), 3),
        roofline: bool,
        predict: bool,
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
        state.predict = predict;
        prop_assert_eq!(decode(&encode(&state)), state);
    }

    #[test]
    fn decoding_any_string_never_panics_and_always_yields_results(query in any::<String>()) {
        let state = decode(&query);
        let notes = warnings(&query);
        let analysis = analyze_repaired(&state.calc);
        prop_assert!(analysis.warp >= 1);
        // Every field in error is named in the notice, so nothing fails silently.
        for e in analyze(&state.calc).err().unwrap_or_default() {
            let param = format!("`{}=", e.field.param());
            prop_assert!(notes.iter().any(|n| n.starts_with(&param)), "{} missing in {:?}", param, notes);
        }
        if let Err(errors) = analyze(&state.calc) {
            prop_assert!(!errors.is_empty());
            for e in errors {
                // The whole message: the parameter once, then a message that does not repeat
                // it (the "oi: oi:" bug of #16).
                let prefix = format!("{}: ", e.field.param());
                prop_assert_eq!(e.to_string(), format!("{prefix}{}", e.message()));
                prop_assert!(!e.message().is_empty() && !e.message().starts_with(&prefix));
            }
        }
    }
}

/// Whether every `<` in `html` opens or closes one of the tags the first-result writer uses:
/// nothing from the link reaches the page as markup.
fn only_our_tags(html: &str) -> bool {
    const TAGS: [&str; 8] = ["div", "p", "h3", "dl", "dt", "dd", "span", "strong"];
    html.match_indices('<').all(|(at, _)| {
        let rest = html[at + 1..].trim_start_matches('/');
        TAGS.iter().any(|tag| {
            rest.strip_prefix(tag)
                .is_some_and(|after| after.starts_with([' ', '>']))
        })
    })
}

/// A query string made of the calculator's parameters (and a few others), with values that
/// are sometimes markup.
fn calculator_query() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("idx"),
        Just("base"),
        Just("elem"),
        Just("warp"),
        Just("active"),
        Just("addrs"),
        Just("space"),
        Just("arch"),
        Just("sector"),
        Just("line"),
        Just("predict"),
        Just("tab"),
        Just("embed"),
        Just("compare"),
        Just("b.idx"),
        Just("grid"),
        Just("oi"),
    ];
    let value = prop_oneof![
        field_text(),
        Just("<img src=x onerror=alert(1)>".to_string()),
        Just("\"><script>".to_string()),
        Just("calculator".to_string()),
        Just("1".to_string()),
    ];
    prop::collection::vec((key, value), 0..8).prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(k, v)| format!("{k}={}", coalescing_lab::model::permalink::escape(&v)))
            .collect::<Vec<_>>()
            .join("&")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // The first-result module reads only the calculator's part of a link: it must read it as
    // the app does, and write nothing from the link as markup.
    #[test]
    fn the_first_result_reads_a_link_as_the_app_does(query in prop_oneof![calculator_query(), any::<String>()]) {
        use coalescing_lab::model::calculator::first_result::first_result;
        use coalescing_lab::model::permalink::decode_calculator;
        let (part, whole) = (decode_calculator(&query), decode(&query));
        prop_assert_eq!(
            (part.tab, part.embed, &part.calc, part.predict, &part.compare),
            (whole.tab, whole.embed, &whole.calc, whole.predict, &whole.compare)
        );
        let html = first_result(&query);
        prop_assert!(only_our_tags(&html), "{}", html);
        let calculator = whole.tab == Tab::Calculator;
        prop_assert_eq!(html.contains(r#"<p class="headline-bar""#), calculator, "{}", html);
        prop_assert_eq!(html.contains("data-value"), calculator && whole.compare.is_none() && !whole.predict, "{}", html);
    }
}

// Regression: `warp=1` was valid but dropped, and the notice blamed idx and said "using t"
// although t overflows at that base too; the page showed 32 lanes and 4 sectors unexplained.
#[test]
fn a_default_that_still_fails_keeps_the_valid_fields_and_names_the_combination() {
    use coalescing_lab::model::sectors::analyze_repaired;
    let query = "warp=1&base=18446744073709551615&idx=0";
    assert_eq!(
        warnings(query),
        [
            "`idx=0` lane 0: 4 bytes at address 18446744073709551615 run past 2^64; using t.",
            "`base=18446744073709551615` cannot be evaluated with warp=1 and idx=t (lane 0: 4 bytes at address 18446744073709551615 run past 2^64); using 0.",
        ]
    );
    let shown = analyze_repaired(&decode(query).calc);
    assert_eq!(
        (shown.warp, shown.totals.active_lanes, shown.totals.sectors),
        (1, 1, 1)
    );
    let query = "warp=64&elem=16&base=18446744073709551600";
    assert_eq!(
        warnings(query),
        [
            "`base=18446744073709551600` cannot be evaluated with warp=64, elem=16 and idx=t (lane 1: address 18446744073709551600 + 16 × 1 = 18446744073709551616 is past 2^64); using 0.",
        ]
    );
    let shown = analyze_repaired(&decode(query).calc);
    assert_eq!((shown.warp, shown.elem, shown.totals.sectors), (64, 16, 32));
}

// Regression: thousands of unknown parameters made a notice 72,000 px tall, and `=5` gave
// "`` is not a … parameter" with an empty name.
#[test]
fn unknown_parameters_are_summarised_and_nameless_ones_counted() {
    let many: Vec<String> = (0..2000).map(|i| format!("junk{i}=1")).collect();
    let said = warnings(&many.join("&"));
    assert_eq!(said.len(), 6);
    assert_eq!(
        said[0],
        "`junk0` is not a Coalescing Lab parameter; it was ignored."
    );
    assert_eq!(
        said[5],
        "1995 more parameters are not Coalescing Lab parameters; they were ignored."
    );
    assert_eq!(
        warnings("=5&=6"),
        ["2 parts of the link had no parameter name; ignored."]
    );
}

mod kernel_links {
    use super::*;
    use coalescing_lab::model::kernel::presets::KERNEL_PRESETS;
    use coalescing_lab::model::kernel::{KernelField, KernelInputs, StmtField};

    #[test]
    fn every_kernel_preset_survives_encode_then_decode() {
        for preset in KERNEL_PRESETS {
            let state = State {
                tab: Tab::Kernel,
                kernel: preset.inputs(),
                ..State::default()
            };
            let query = encode(&state);
            assert_eq!(decode(&query), state, "{}: {query}", preset.id);
            assert!(
                warnings(&query).is_empty(),
                "{}: {:?}",
                preset.id,
                warnings(&query)
            );
        }
    }

    #[test]
    fn a_statement_exists_when_any_of_its_fields_is_in_the_link() {
        let state = decode("tab=kernel&a2.kind=store");
        assert_eq!(state.tab, Tab::Kernel);
        assert!(
            state.kernel.statements[0].is_none(),
            "a1 is not in the link"
        );
        let a2 = state.kernel.statements[1].clone().unwrap();
        assert_eq!(
            (a2.kind.as_str(), a2.idx.as_str()),
            ("store", "threadIdx.x")
        );
        // A default statement beside another still comes back.
        let mut two = KernelInputs::default();
        two.set(KernelField::Stmt(2, StmtField::Kind), "load".into());
        let query = encode(&State { kernel: two.clone(), ..State::default() });
        assert_eq!(query, "v=1&a1.kind=load&a2.kind=load");
        assert_eq!(decode(&query).kernel, two);
        assert_eq!(
            encode(&State::default()),
            "",
            "the default kernel writes nothing"
        );
    }

    #[test]
    fn a_bad_kernel_value_gets_a_notice_and_its_default() {
        assert_eq!(
            warnings("tab=kernel&grid=0&a1.space=local"),
            [
                "`grid=0` must be 1 to 3 whole numbers from 1 to 2147483647 separated by commas, e.g. 128,128,1, found '0'; using 1,1,1.",
                "`a1.space=local` must be global or shared, found 'local'; using global.",
            ]
        );
    }
}
