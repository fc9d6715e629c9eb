//! `model::mul`'s fast paths (#26) against the standard library's multiplications, on random
//! operands drawn around the 32-bit boundary where the fast path stops, and anywhere.

use coalescing_lab::model::mul::{
    checked_mul_i128, checked_mul_i64, checked_mul_u64, mul_i128, wide_mul_i64, wrapping_mul_i128,
};
use proptest::prelude::*;

/// An i64 near the i32 and u32 boundaries, small, or anything.
fn operand() -> impl Strategy<Value = i64> {
    prop_oneof![
        -70_000i64..70_000,
        (-4i64..4).prop_map(|d| i64::from(i32::MAX) + d),
        (-4i64..4).prop_map(|d| i64::from(i32::MIN) + d),
        (-4i64..4).prop_map(|d| i64::from(u32::MAX) + d),
        any::<i32>().prop_map(i64::from),
        any::<i64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn the_fast_paths_agree_with_std(a in operand(), b in operand(), shift in 0u32..80) {
        prop_assert_eq!(checked_mul_i64(a, b), a.checked_mul(b));
        prop_assert_eq!(wide_mul_i64(a, b), i128::from(a) * i128::from(b));
        let (ua, ub) = (a as u64, b as u64);
        prop_assert_eq!(checked_mul_u64(ua, ub), ua.checked_mul(ub));
        let (wa, wb) = (i128::from(a), i128::from(b));
        prop_assert_eq!(mul_i128(wa, wb), wa * wb);
        // Operands past 64 bits: the general path, and its overflow.
        let ha = wa << (shift % 64);
        prop_assert_eq!(wrapping_mul_i128(ha, wb), ha.wrapping_mul(wb));
        prop_assert_eq!(checked_mul_i128(ha, wb << 16), ha.checked_mul(wb << 16));
        prop_assert_eq!(checked_mul_i128(wa, wb), wa.checked_mul(wb));
    }
}
