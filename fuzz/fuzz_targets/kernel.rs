//! Any text as a kernel: as a kernel expression, parsing never panics, and a whole warp at
//! once (with warp-uniform subtrees computed once) agrees with one thread at a time, values and
//! first error alike; as a kernel view link, checking never panics, and a small launch runs to
//! the end or stops with an error that names its field.
#![no_main]

use coalescing_lab::model::expr::kernel::{KernelExpr, ThreadVars, WarpVars};
use coalescing_lab::model::kernel::{analyze_kernel, Machine};
use coalescing_lab::model::permalink::decode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(expr) = KernelExpr::parse(&text) {
        let mut thread_idx = [[0i64; 64]; 3];
        for t in 0..64 {
            thread_idx[0][t] = t as i64 % 16;
            thread_idx[1][t] = t as i64 / 16;
            thread_idx[2][t] = (t as i64 * 7) % 3;
        }
        for (i, warp, block) in [(0, 0, [0, 0, 0]), (5, 3, [2, 1, 0]), (-7, 1, [i64::MAX, 0, 1])] {
            let vars = WarpVars {
                thread_idx: &thread_idx,
                block_idx: block,
                block_dim: [16, 4, 3],
                grid_dim: [4, 2, 1],
                i,
                warp,
            };
            let mut out = [0i64; 64];
            let together = expr.eval_lanes(u64::MAX, &vars, &mut out);
            let mut first_error = None;
            for t in 0..64usize {
                let one = ThreadVars {
                    thread_idx: [thread_idx[0][t], thread_idx[1][t], thread_idx[2][t]],
                    block_idx: block,
                    block_dim: [16, 4, 3],
                    grid_dim: [4, 2, 1],
                    i,
                    lane: t as i64,
                    warp,
                };
                match expr.eval(&one) {
                    Ok(v) if first_error.is_none() => assert_eq!(out[t], v),
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
    }
    let state = decode(&text);
    match state.kernel.kernel(Machine::default()) {
        Ok(kernel) if kernel.lane_accesses() <= 1 << 14 => {
            if let Err(e) = analyze_kernel(&kernel) {
                assert!(e.to_string().starts_with(&format!("{}: ", e.field.param())));
            }
        }
        Ok(_) => {}
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in errors {
                assert!(e.to_string().starts_with(&format!("{}: ", e.field.param())));
            }
        }
    }
});
