//! Checked and widening 64-bit multiplication that stays in 64 bits when both operands fit in
//! 32 (#26). On wasm32, which has no high-half multiply, LLVM lowers an overflow-checked
//! `i64 × i64` or `u64 × u64`, and every `i128` product, to a call of compiler-rt's
//! `__multi3`, whose 128-bit result goes through memory. A profile of the kernel engine's
//! address pass in wasm put 14 % of its time in that function alone. Operands below 2^31
//! (2^32 unsigned) cannot overflow 64 bits, so their product is one native multiply; others
//! take the general path, with the same result.
//!
//! ```
//! use coalescing_lab::model::mul::{checked_mul_i64, checked_mul_u64, wide_mul_i64};
//! assert_eq!(checked_mul_i64(-3, 1 << 20), Some(-3 << 20));
//! assert_eq!(checked_mul_i64(i64::MAX, 2), None);
//! assert_eq!(checked_mul_u64(1 << 32, 1 << 31), Some(1 << 63));
//! assert_eq!(checked_mul_u64(1 << 32, 1 << 32), None);
//! assert_eq!(wide_mul_i64(i64::MIN, -1), 1i128 << 63);
//! // Degenerate input: the most negative i32 times itself is still small enough.
//! let m = i64::from(i32::MIN);
//! assert_eq!(checked_mul_i64(m, m), Some(1 << 62));
//! ```

/// Whether `v` is an `i32`: a product of two such is within `i64`.
#[inline(always)]
fn small(v: i64) -> bool {
    i64::from(v as i32) == v
}

/// `a × b`, or `None` when it overflows `i64`: [`i64::checked_mul`].
#[inline(always)]
pub fn checked_mul_i64(a: i64, b: i64) -> Option<i64> {
    if small(a) && small(b) {
        Some(a * b)
    } else {
        a.checked_mul(b)
    }
}

/// `a × b`, or `None` when it overflows `u64`: [`u64::checked_mul`].
#[inline(always)]
pub fn checked_mul_u64(a: u64, b: u64) -> Option<u64> {
    if (a | b) >> 32 == 0 {
        Some(a * b)
    } else {
        a.checked_mul(b)
    }
}

/// The exact product `a × b` in 128 bits: `i128::from(a) * i128::from(b)`.
#[inline(always)]
pub fn wide_mul_i64(a: i64, b: i64) -> i128 {
    if small(a) && small(b) {
        i128::from(a * b)
    } else {
        i128::from(a) * i128::from(b)
    }
}

/// Whether `v` is an `i32`, as [`small`] asks of an `i64`.
#[inline(always)]
fn small_wide(v: i128) -> bool {
    i128::from(v as i32) == v
}

/// `a × b` in 128 bits: `a * b`, which overflows only as `i128`'s own product does.
#[inline(always)]
pub fn mul_i128(a: i128, b: i128) -> i128 {
    if small_wide(a) && small_wide(b) {
        i128::from((a as i64) * (b as i64))
    } else {
        a * b
    }
}

/// `a × b` modulo 2^128: [`i128::wrapping_mul`].
#[inline(always)]
pub fn wrapping_mul_i128(a: i128, b: i128) -> i128 {
    if small_wide(a) && small_wide(b) {
        i128::from((a as i64) * (b as i64))
    } else {
        a.wrapping_mul(b)
    }
}

/// `a × b`, or `None` when it overflows `i128`: [`i128::checked_mul`].
#[inline(always)]
pub fn checked_mul_i128(a: i128, b: i128) -> Option<i128> {
    if small_wide(a) && small_wide(b) {
        Some(i128::from((a as i64) * (b as i64)))
    } else {
        a.checked_mul(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values on both sides of every boundary the fast paths test.
    const EDGES: [i64; 16] = [
        0,
        1,
        -1,
        2,
        i32::MAX as i64,
        i32::MAX as i64 + 1,
        i32::MIN as i64,
        i32::MIN as i64 - 1,
        u32::MAX as i64,
        u32::MAX as i64 + 1,
        1 << 40,
        -(1 << 40),
        i64::MAX,
        i64::MIN,
        i64::MAX / 3,
        3_037_000_500,
    ];

    #[test]
    fn every_edge_pair_agrees_with_the_general_multiply() {
        for &a in &EDGES {
            for &b in &EDGES {
                assert_eq!(checked_mul_i64(a, b), a.checked_mul(b), "{a} × {b}");
                assert_eq!(
                    wide_mul_i64(a, b),
                    i128::from(a) * i128::from(b),
                    "{a} × {b}"
                );
                let (ua, ub) = (a as u64, b as u64);
                assert_eq!(checked_mul_u64(ua, ub), ua.checked_mul(ub), "{ua} × {ub}");
                let (wa, wb) = (i128::from(a), i128::from(b));
                assert_eq!(mul_i128(wa, wb), wa * wb, "{wa} × {wb}");
                let (ha, hb) = (wa << 60, wb << 3);
                assert_eq!(
                    wrapping_mul_i128(ha, hb),
                    ha.wrapping_mul(hb),
                    "{ha} × {hb}"
                );
                assert_eq!(checked_mul_i128(ha, hb), ha.checked_mul(hb), "{ha} × {hb}");
                assert_eq!(checked_mul_i128(wa, wb), wa.checked_mul(wb), "{wa} × {wb}");
            }
        }
    }
}
