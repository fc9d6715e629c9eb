//! The kernel dialect's fast path changes no value and no error: random index expressions over
//! `threadIdx`, the block's names, `i`, `warp` and constants near i64's limits, evaluated for
//! a whole warp (where affine subtrees are held as base + step × lane) and thread by thread
//! (the oracle, `KernelExpr::eval`), on random masks and `threadIdx` layouts that are affine
//! (a block at least a warp wide), affine with another step, or scattered.

use coalescing_lab::model::expr::kernel::{KernelExpr, ThreadVars, WarpVars};
use proptest::prelude::*;

fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => prop::sample::select(vec![
            "threadIdx.x", "threadIdx.y", "blockIdx.x", "blockDim.x", "i", "warp", "lane",
        ])
        .prop_map(str::to_string),
        2 => (0i64..100).prop_map(|v| v.to_string()),
        1 => prop::sample::select(vec![
            "9223372036854775807", "4611686018427387904", "3074457345618258602", "1048576",
        ])
        .prop_map(str::to_string),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            4 => (inner.clone(), prop::sample::select(vec!["+", "-", "*"]), inner.clone())
                .prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            1 => (inner.clone(), prop::sample::select(vec!["/", "%", "<", "<<"]), inner.clone())
                .prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            1 => inner.prop_map(|a| format!("-{a}")),
        ]
    })
}

/// `threadIdx` of 64 lanes: x affine with step 1 from a base (a wide block), with step 2, or
/// scattered; y and z the same in every lane.
fn layout() -> impl Strategy<Value = [[i64; 64]; 3]> {
    (
        0u8..3,
        0i64..64,
        prop::array::uniform32(0i64..1024),
        0i64..8,
    )
        .prop_map(|(kind, base, scattered, y)| {
            let mut t = [[0i64; 64]; 3];
            for lane in 0..64 {
                t[0][lane] = match kind {
                    0 => base + lane as i64,
                    1 => base + 2 * lane as i64,
                    _ => scattered[lane % 32] + lane as i64 / 32,
                };
                t[1][lane] = y;
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn a_warp_at_once_agrees_with_each_thread(
        text in expression(),
        mask in any::<u64>(),
        thread_idx in layout(),
        block in 0i64..5000,
        i in -3i64..40,
        warp in 0i64..8,
    ) {
        let Ok(expr) = KernelExpr::parse(&text) else { return Ok(()) };
        let vars = WarpVars {
            thread_idx: &thread_idx,
            block_idx: [block, 1, 0],
            block_dim: [128, 2, 1],
            grid_dim: [5000, 2, 1],
            i,
            warp,
        };
        let mut out = [0i64; 64];
        let together = expr.eval_lanes(mask, &vars, &mut out);
        let thread = |t: usize| ThreadVars {
            thread_idx: [thread_idx[0][t], thread_idx[1][t], thread_idx[2][t]],
            block_idx: vars.block_idx,
            block_dim: vars.block_dim,
            grid_dim: vars.grid_dim,
            i,
            lane: t as i64,
            warp,
        };
        let one_by_one: Vec<(usize, Result<i64, _>)> = (0..64)
            .filter(|t| mask & (1 << t) != 0)
            .map(|t| (t, expr.eval(&thread(t))))
            .collect();
        match one_by_one.iter().find(|(_, r)| r.is_err()) {
            Some((_, Err(first))) => prop_assert_eq!(together, Err(first.clone()), "{}", text),
            _ => {
                prop_assert!(together.is_ok(), "{}: {:?}", text, together);
                for (t, r) in one_by_one {
                    prop_assert_eq!(out[t], r.unwrap(), "lane {} of {}", t, text);
                }
            }
        }
    }
}
