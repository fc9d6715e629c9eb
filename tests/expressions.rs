//! The index-expression language: C semantics on signed 64-bit integers, and every error
//! case with its message tested to the letter.

use coalescing_lab::model::expr::Expr;

fn eval(text: &str, lane: i64) -> i64 {
    Expr::parse(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .eval(lane)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn parse_error(text: &str) -> String {
    Expr::parse(text).expect_err(text).to_string()
}

fn eval_error(text: &str, lane: i64) -> String {
    Expr::parse(text)
        .unwrap()
        .eval(lane)
        .expect_err(text)
        .to_string()
}

#[test]
fn values_follow_c_semantics() {
    #[rustfmt::skip]
    let cases: &[(&str, i64, i64)] = &[
        ("t", 7, 7), ("lane", 7, 7), ("0x1F", 0, 31), ("0X10 + t", 1, 17),
        ("-7 / 2", 0, -3), ("7 / -2", 0, -3), ("-7 % 2", 0, -1), ("7 % -2", 0, 1),
        ("2 + 3 * 4", 0, 14), ("(2 + 3) * 4", 0, 20), ("10 - 4 - 3", 0, 3), ("64 / 4 / 2", 0, 8),
        ("1 << 4 + 1", 0, 32), ("-16 >> 2", 0, -4), ("-1 << 3", 0, -8),
        ("1 < 2 == 1", 0, 1), ("3 & 6 ^ 1 | 8", 0, 11), ("6 & 3 == 3", 0, 0),
        ("!t", 0, 1), ("!t", 5, 0), ("~t", 0, -1), ("-t", 3, -3), ("+t", 3, 3), ("- -t", 3, 3),
        ("t > 3 && t < 8", 5, 1), ("t > 3 && t < 8", 9, 0), ("t == 0 || t == 31", 31, 1),
        ("t < 16 ? t : 1000 + 64 * (t - 16)", 20, 1256), ("t ? 1 : 2 ? 3 : 4", 0, 3),
        ("1 ? 2 : 3 ? 4 : 5", 0, 2), ("t % 2 == 0 ? t / 2 : 100 + t / 2", 7, 103),
        ("min(t, 4)", 9, 4), ("max(t, 4)", 9, 9), ("abs(3 - t)", 9, 6), ("min(max(t, 2), 5)", 0, 2),
        ("t <= 3", 3, 1), ("t >= 3", 2, 0), ("t != 3", 3, 0),
        ("9223372036854775807", 0, i64::MAX), ("-9223372036854775807 - 1", 0, i64::MIN),
    ];
    for &(text, lane, want) in cases {
        assert_eq!(eval(text, lane), want, "{text} at lane {lane}");
    }
}

#[test]
fn short_circuit_and_conditional_skip_the_untaken_side() {
    assert_eq!(eval("t != 0 && 10 / t > 1", 0), 0);
    assert_eq!(eval("t == 0 || 10 / t > 1", 0), 1);
    assert_eq!(eval("t == 0 ? 0 : 10 / t", 0), 0);
}

#[test]
fn arithmetic_errors_name_the_lane_the_values_and_the_column() {
    assert_eq!(
        eval_error("10 / (t - 5)", 5),
        "lane 5: division by zero in 10 / 0 (column 4)"
    );
    assert_eq!(
        eval_error("t % 0", 2),
        "lane 2: division by zero in 2 % 0 (column 3)"
    );
    assert_eq!(
        eval_error("9223372036854775807 + t", 1),
        "lane 1: 9223372036854775807 + 1 overflows signed 64 bits (column 21)"
    );
    assert_eq!(
        eval_error("t * 4611686018427387904", 2),
        "lane 2: 2 * 4611686018427387904 overflows signed 64 bits (column 3)"
    );
    assert_eq!(
        eval_error("(-9223372036854775807 - 1) / -t", 1),
        "lane 1: -9223372036854775808 / -1 overflows signed 64 bits (column 28)"
    );
    assert_eq!(
        eval_error("-(-9223372036854775807 - t)", 1),
        "lane 1: -(-9223372036854775808) overflows signed 64 bits (column 1)"
    );
    assert_eq!(
        eval_error("abs(-9223372036854775807 - t)", 1),
        "lane 1: abs(-9223372036854775808) overflows signed 64 bits (column 1)"
    );
    assert_eq!(
        eval_error("1 << t", 64),
        "lane 64: shift << 64 is outside 0 to 63 (column 3)"
    );
    assert_eq!(
        eval_error("1 >> -t", 1),
        "lane 1: shift >> -1 is outside 0 to 63 (column 3)"
    );
    assert_eq!(
        eval_error("t << 62", 2),
        "lane 2: 2 << 62 overflows signed 64 bits (column 3)"
    );
}

#[test]
fn parse_errors_name_the_column() {
    assert_eq!(parse_error(""), "expression is empty");
    assert_eq!(parse_error("t $ 2"), "unexpected character '$' at column 3");
    assert_eq!(
        parse_error("t + * 2"),
        "expected a number, t, a function or '(' at column 5, found '*'"
    );
    assert_eq!(parse_error("(t + 2"), "expected ')', found end of input");
    assert_eq!(
        parse_error("t + 2)"),
        "expected an operator or the end of the expression at column 6, found ')'"
    );
    assert_eq!(
        parse_error("t +"),
        "expected a number, t, a function or '(', found end of input"
    );
    assert_eq!(
        parse_error("x * 2"),
        "unknown name 'x' at column 1; use t (or lane), min, max or abs"
    );
    assert_eq!(
        parse_error("2 * threadIdx"),
        "unknown name 'threadIdx' at column 5; use t (or lane), min, max or abs"
    );
    assert_eq!(
        parse_error("t ? 1"),
        "expected ':' of a conditional, found end of input"
    );
    assert_eq!(
        parse_error("min(t)"),
        "min() at column 1 takes 2 arguments, found 1"
    );
    assert_eq!(
        parse_error("abs(t, 1)"),
        "abs() at column 1 takes 1 argument, found 2"
    );
    assert_eq!(
        parse_error("max"),
        "expected '(' after a function name, found end of input"
    );
    assert_eq!(
        parse_error("1.5 * t"),
        "unexpected character '.' at column 2"
    );
    assert_eq!(
        parse_error("0x * t"),
        "expected an integer (decimal or 0x hex) at column 1, found '0x'"
    );
    assert_eq!(
        parse_error("12ab"),
        "expected an integer (decimal or 0x hex) at column 1, found '12ab'"
    );
    assert_eq!(
        parse_error("t + 9223372036854775808"),
        "integer 9223372036854775808 at column 5 does not fit in signed 64 bits"
    );
    assert_eq!(parse_error("é + t"), "unexpected character 'é' at column 1");
    assert_eq!(parse_error("t + é"), "unexpected character 'é' at column 5");
}

#[test]
fn long_and_deep_expressions_are_refused() {
    let long = format!("t{}", " + 1".repeat(64)); // 257 characters
    assert_eq!(long.chars().count(), 257);
    assert_eq!(
        parse_error(&long),
        "expression is 257 characters long; at most 256 are accepted"
    );
    // The limit itself: 256 characters are accepted, 257 refused.
    let just_fits = format!("t{}+11", "+1".repeat(126));
    assert_eq!(just_fits.chars().count(), 256);
    assert!(Expr::parse(&just_fits).is_ok());
    let one_over = format!("{just_fits}1");
    assert_eq!(one_over.chars().count(), 257);
    assert_eq!(
        parse_error(&one_over),
        "expression is 257 characters long; at most 256 are accepted"
    );

    let nested = |depth: usize| format!("{}t{}", "(".repeat(depth), ")".repeat(depth));
    assert!(Expr::parse(&nested(32)).is_ok());
    assert_eq!(
        parse_error(&nested(33)),
        "expression nests deeper than 32 levels at column 33"
    );
    assert_eq!(
        parse_error(&"-".repeat(40)),
        "expression nests deeper than 32 levels at column 33"
    );
    let ternaries = "t ? ".repeat(40);
    assert_eq!(
        parse_error(&ternaries),
        "expression nests deeper than 32 levels at column 131"
    );
}

mod no_panic {
    use coalescing_lab::model::expr::Expr;
    use coalescing_lab::model::inputs::Inputs;
    use coalescing_lab::model::sectors::analyze;
    use proptest::prelude::*;

    fn expression_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[-+*/%<>=!&|^~?:(), t0-9x]{0,60}",
            "(t|lane|min|max|abs|[0-9]{1,20}|0x[0-9a-f]{1,17}|[-+*/%<>=!&|^~?:(),]{1,2}| ){0,40}",
            any::<String>(),
        ]
    }

    /// Expressions that mostly parse: lane-dependent arithmetic, comparisons, conditionals,
    /// short circuits and functions, with operands that can overflow or divide by zero.
    fn well_formed() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("t".to_string()),
            (0i64..70).prop_map(|v| v.to_string()),
            Just("9223372036854775807".to_string()),
            Just("(t-31)".to_string()),
        ];
        leaf.prop_recursive(5, 40, 3, |inner| {
            let op = prop::sample::select(vec![
                "+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^",
                "|", "&&", "||",
            ]);
            prop_oneof![
                (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("min({a}, {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("max({a}, {b})")),
                inner.clone().prop_map(|a| format!("abs({a})")),
                (prop::sample::select(vec!["-", "!", "~", "+"]), inner)
                    .prop_map(|(o, a)| format!("{o}{a}")),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Evaluating all lanes at once gives exactly the lane-by-lane values, and on failure
        /// the lane-by-lane error of the lowest failing lane.
        #[test]
        fn all_lanes_at_once_agree_with_one_lane_at_a_time(text in well_formed(), mask in any::<u64>()) {
            let Ok(expr) = Expr::parse(&text) else { return Ok(()) };
            let mut out = [0i64; 64];
            let together = expr.eval_lanes(mask, &mut out);
            let one_by_one: Vec<(usize, Result<i64, _>)> = (0..64)
                .filter(|t| mask & (1 << t) != 0)
                .map(|t| (t, expr.eval(t as i64)))
                .collect();
            match one_by_one.iter().find(|(_, r)| r.is_err()) {
                Some((_, Err(first))) => prop_assert_eq!(together, Err(first.clone()), "{}", text),
                _ => {
                    prop_assert!(together.is_ok(), "{}", text);
                    for (t, r) in one_by_one {
                        prop_assert_eq!(out[t], r.unwrap(), "lane {} of {}", t, text);
                    }
                }
            }
        }

        /// The fast version of the `expression` fuzz target (fuzz/): no panic, and every
        /// error the calculator reports names its field.
        #[test]
        fn any_text_parses_or_errors_and_evaluates_without_panicking(text in expression_text()) {
            if let Ok(expr) = Expr::parse(&text) {
                for lane in [0, 1, 31, 63, -1, i64::MAX, i64::MIN] {
                    let _ = expr.eval(lane);
                }
            }
            let inputs = Inputs { idx: text.clone(), active: text, ..Inputs::default() };
            if let Err(errors) = analyze(&inputs) {
                for e in errors {
                    // The whole message: the parameter once, then a message that does not
                    // repeat it (the "oi: oi:" bug of #16).
                    let prefix = format!("{}: ", e.field.param());
                    prop_assert_eq!(e.to_string(), format!("{prefix}{}", e.message()));
                    prop_assert!(!e.message().is_empty() && !e.message().starts_with(&prefix));
                }
            }
        }
    }
}
