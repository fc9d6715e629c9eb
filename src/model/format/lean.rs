//! Ratios' and percentages' text without core's float formatting, for the first-result module
//! (src/bin/first-result.rs, built with the `lean-floats` feature): it writes only these two,
//! and core's float formatting (Grisu with its Dragon fallback, both modes) was 7.6 KB gzip of
//! its 53 KB, where ryu with its small tables and the code below take 4.0 (docs/performance.md,
//! "The first result without core's float formatting or sort"). The modules that format floats
//! elsewhere (the app, the worker) keep core's, which they carry anyway.
//!
//! The text must be core's to the character: the tests below check both functions against it
//! on random bit patterns, random ratios, and the edges. Two differences of method are handled
//! here: ryu breaks a tie between two shortest decimals to the even one where core rounds up,
//! and ryu writes exponents where `Display` never does.

/// `x` as `f64`'s `Display` writes it (see [`super::shortest`]).
pub(super) fn shortest(x: f64) -> String {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format(x);
    if !x.is_finite() {
        return text.to_string();
    }
    // ryu writes `[-]digits[.digits][e[-]exponent]`: its digits, and where the point goes.
    let (negative, text) = text
        .strip_prefix('-')
        .map_or((false, text), |rest| (true, rest));
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let magnitude = exponent
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0i64, |v, b| v * 10 + i64::from(b - b'0'));
    let mut point = if exponent.starts_with('-') {
        -magnitude
    } else {
        magnitude
    };
    point += mantissa.find('.').unwrap_or(mantissa.len()) as i64;
    let mut digits: Vec<u8> = mantissa.bytes().filter(|&b| b != b'.').collect();
    // Leading zeros (`0.001234`) move the point; trailing ones (`1.0`) say nothing.
    let leading = digits.iter().take_while(|&&b| b == b'0').count();
    digits.drain(..leading);
    point -= leading as i64;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    // ryu breaks a tie between two shortest decimals to the even one, core upwards.
    if halfway_above(x, &digits, point) {
        round_up(&mut digits, &mut point);
    }
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    let text = |digits: &[u8]| digits.iter().map(|&b| char::from(b)).collect::<String>();
    let zeros = |n: i64| "0".repeat(n.max(0) as usize);
    if digits.is_empty() {
        out.push('0');
    } else if point <= 0 {
        out += "0.";
        out += &zeros(-point);
        out += &text(&digits);
    } else if point as usize >= digits.len() {
        out += &text(&digits);
        out += &zeros(point - digits.len() as i64);
    } else {
        let (left, right) = digits.split_at(point as usize);
        out += &text(left);
        out.push('.');
        out += &text(right);
    }
    out
}

/// Whether `|x|` lies exactly halfway between `0.digits × 10^point` and the decimal one unit
/// above it in the last digit: `2·m·2^e = (2D + 1)·10^q`, with `x = m·2^e`, `D` the digits
/// (at most 17) and `q = point − digits`. Only an odd `m` times a power of 5 can equal the
/// odd `2D + 1`, which is below 2^58, so a product past `u64` is no tie.
fn halfway_above(x: f64, digits: &[u8], point: i64) -> bool {
    if digits.is_empty() || digits.len() > 17 {
        return false;
    }
    let d = digits
        .iter()
        .fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
    let bits = x.to_bits() & !(1 << 63);
    let (field, fraction) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let (m, e) = if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), field - 1075)
    };
    let twos = i64::from(m.trailing_zeros());
    let odd = m >> twos;
    let q = point - digits.len() as i64;
    // The powers of two must cancel: 2^(twos + e + 1) against 2^q.
    if m == 0 || twos + e + 1 != q {
        return false;
    }
    let five = |k: i64| u32::try_from(k).ok().and_then(|k| 5u64.checked_pow(k));
    let target = 2 * d + 1;
    if q >= 0 {
        five(q).and_then(|p| target.checked_mul(p)) == Some(odd)
    } else {
        five(-q).and_then(|p| odd.checked_mul(p)) == Some(target)
    }
}

/// `digits` plus one in the last place, without trailing zeros; a carry out of the first
/// digit moves `point` on.
fn round_up(digits: &mut Vec<u8>, point: &mut i64) {
    while let Some(last) = digits.pop() {
        if last != b'9' {
            digits.push(last + 1);
            return;
        }
    }
    digits.push(b'1');
    *point += 1;
}

/// A percentage in tenths (`percent_tenths` of a ratio of two `u64`s: a multiple of 0.1 from
/// 0 to below 2^75) as `{:.0}` writes it when whole and `{:.1}` otherwise, from its bits:
/// the exact value rounded half to even, as core's exact mode rounds it.
pub(super) fn tenths(tenths: f64) -> String {
    if tenths.fract() == 0.0 {
        return whole(tenths);
    }
    // Not whole, so below 2^52: its whole part and its fraction, both exact, the fraction
    // in units of 2^-57 (a multiple of 0.1 from 0.1 up has no bit below 2^-56).
    const UNIT: f64 = (1u64 << 57) as f64;
    const HALF: u64 = 1 << 56;
    let whole = tenths.trunc();
    let scaled = ((tenths - whole) * UNIT) as u64 * 10;
    let mut digit = scaled >> 57;
    let rest = scaled & ((1 << 57) - 1);
    if rest > HALF || (rest == HALF && digit % 2 == 1) {
        digit += 1;
    }
    let whole = whole as u64 + u64::from(digit == 10);
    format!("{whole}.{}", digit % 10)
}

/// A whole, non-negative `f64` in full, as `{:.0}` writes it: `m·2^e` doubled `e` times in
/// base 10^9 (`u64` covers the values below 2^64).
fn whole(value: f64) -> String {
    if value < 18_446_744_073_709_551_616.0 {
        return (value as u64).to_string();
    }
    let bits = value.to_bits();
    let (mantissa, shift) = (
        (bits & ((1 << 52) - 1)) | (1 << 52),
        (bits >> 52) as i64 - 1075,
    );
    const BASE: u64 = 1_000_000_000;
    let mut limbs = vec![
        mantissa % BASE,
        mantissa / BASE % BASE,
        mantissa / BASE / BASE,
    ];
    for _ in 0..shift {
        let mut carry = 0;
        for limb in &mut limbs {
            let v = *limb * 2 + carry;
            *limb = v % BASE;
            carry = v / BASE;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut out = String::new();
    for (k, limb) in limbs.iter().rev().enumerate() {
        if k == 0 {
            out += &limb.to_string();
        } else {
            out += &format!("{limb:09}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::percent_tenths;
    use super::*;
    use proptest::prelude::*;

    /// The percentage as core writes it: the oracle.
    fn tenths_by_core(tenths: f64) -> String {
        if tenths.fract() == 0.0 {
            format!("{tenths:.0}")
        } else {
            format!("{tenths:.1}")
        }
    }

    /// Counts as the tally makes them: small, round, powers of two and near them, and any.
    fn count() -> impl Strategy<Value = u64> {
        prop_oneof![
            0u64..5000,
            (0u32..64).prop_map(|k| 1u64 << k),
            (0u32..64, -3i64..=3).prop_map(|(k, d)| (1u64 << k).wrapping_add_signed(d)),
            (1u64..1000, 0u32..16).prop_map(|(m, k)| m * 10u64.pow(k)),
            any::<u64>(),
        ]
    }

    /// Both texts of the ratio `n / d` against core's.
    fn check_ratio(n: u64, d: u64) -> Result<(), TestCaseError> {
        let value = n as f64 / d as f64;
        let t = percent_tenths(value);
        prop_assert_eq!(tenths(t), tenths_by_core(t), "{}/{}", n, d);
        prop_assert_eq!(shortest(value), value.to_string(), "{}/{}", n, d);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn shortest_writes_what_display_writes(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(shortest(x), x.to_string(), "bits {:#x}", bits);
        }

        #[test]
        fn a_ratio_writes_as_core_writes_it(n in count(), d in count()) {
            prop_assume!(d > 0);
            check_ratio(n, d)?;
        }
    }

    /// Values at an edge: zeros, subnormals, the ends of the range, every power of two, powers
    /// of ten where ryu's notation changes, the ties that ryu and core break apart, and the
    /// neighbours of each.
    #[test]
    fn shortest_at_the_edges() {
        let mut values = vec![0.0, f64::MIN_POSITIVE, f64::MAX, f64::EPSILON, f64::NAN];
        values.extend([f64::INFINITY, 1.0 / 3.0, 0.1, 0.3, 9007199254740993.0]);
        // Exactly halfway between two 17-digit decimals: core writes the upper one.
        values.extend([
            2f64.powi(-25),
            1_694_184_995_328_977.0 + 0.25,
            885_895_801_374_212.0 + 0.25,
        ]);
        values.extend((-1074..=1023).map(|k| 2f64.powi(k)));
        for k in -30..=30 {
            let p = 10f64.powi(k);
            values.extend([p, 1.5 * p, 9.999999999999999 * p, 123_456_789.0 * p]);
        }
        let mut checked = 0;
        for x in values {
            for y in [x, -x] {
                let bits = y.to_bits();
                for z in [bits, bits.wrapping_add(1), bits.wrapping_sub(1)].map(f64::from_bits) {
                    assert_eq!(shortest(z), z.to_string(), "bits {:#x}", z.to_bits());
                    checked += 1;
                }
            }
        }
        assert!(checked > 13_000, "{checked}");
    }

    /// Every ratio of small counts, as the course's tables have them, and each small count
    /// against the largest.
    #[test]
    fn every_small_ratio_writes_as_core_writes_it() {
        for n in 0..=1200u64 {
            for d in 1..=300u64 {
                check_ratio(n, d).unwrap();
            }
        }
        for big in [
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 53) + 1,
            10u64.pow(19),
        ] {
            for small in 1..=100u64 {
                check_ratio(big, small).unwrap();
                check_ratio(small, big).unwrap();
            }
        }
    }

    /// Whole tenths past `u64` take the long way, digit for digit.
    #[test]
    fn whole_tenths_past_u64() {
        for k in 64..=74 {
            for x in [
                2f64.powi(k),
                2f64.powi(k) * 1.75,
                2f64.powi(k) * 1.999_999_999,
            ] {
                assert_eq!(tenths(x), format!("{x:.0}"));
            }
        }
    }
}
