//! Any text as an index expression: parsing never panics, and a parsed expression evaluates
//! for any lane without panicking, overflowing silently or recursing without bound; all 64
//! lanes at once agree with one lane at a time, values and first error alike.
#![no_main]

use coalescing_lab::model::expr::Expr;
use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::sectors::analyze;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Expr::parse(&text) {
        Ok(expr) => {
            for lane in [0, 1, 31, 63, -1, i64::MAX, i64::MIN] {
                let _ = expr.eval(lane).map_err(|e| e.to_string());
            }
            let mut out = [0i64; 64];
            let together = expr.eval_lanes(u64::MAX, &mut out);
            let mut first_error = None;
            for t in 0..64 {
                match expr.eval(t) {
                    Ok(v) if first_error.is_none() => assert_eq!(out[t as usize], v),
                    Ok(_) => {}
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            match first_error {
                Some(e) => assert_eq!(together, Err(e)),
                None => assert!(together.is_ok()),
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    // The same text through the calculator: every error names its field.
    let inputs = Inputs { idx: text.to_string(), active: text.to_string(), ..Inputs::default() };
    if let Err(errors) = analyze(&inputs) {
        for e in errors {
            assert!(e.to_string().starts_with(&format!("{}: ", e.field.param())));
        }
    }
});
