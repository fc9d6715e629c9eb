//! Exact non-negative rationals for numbers a learner types: decimals (`2.5`, `.5`) and
//! fractions (`1/64`, `3/0.5`), kept as `numerator / denominator` so that a boundary such as
//! I × B = 1000 is decided exactly, never by floating-point luck.
//!
//! Reading says precisely what is wrong with a number (its syntax, an exponent, a sign, too
//! many digits), so callers can add the field and the accepted range. Knows nothing of fields.

use std::cmp::Ordering;
use std::fmt;

/// A non-negative number kept exactly as `numerator / denominator`, in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exact {
    numerator: u128,
    denominator: u128,
}

/// Most significant digits kept in lowest terms, so products of two stay exact in 128 bits.
pub const MAX_DIGITS: u32 = 15;
/// Most digits accepted in one written part, before reducing: `u128` holds 38.
const MAX_WRITTEN_DIGITS: usize = 36;

/// Why a text is not a number the page accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberError {
    /// Nothing but spaces.
    Empty,
    /// `-2`: quantities here are never negative.
    Negative,
    /// `1e2`: exponents are not accepted.
    Exponent,
    /// `1/0`.
    ZeroDenominator,
    /// More digits than the page keeps exactly, even in lowest terms.
    TooLong,
    /// Anything else that is not a decimal or a fraction.
    Syntax,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberError::Empty => "is empty",
            NumberError::Negative => "is negative",
            NumberError::Exponent => "has an exponent; write the number out (100, not 1e2)",
            NumberError::ZeroDenominator => "divides by zero",
            NumberError::TooLong => "has more than 15 significant digits",
            NumberError::Syntax => "is not a decimal or a fraction such as 1/8",
        })
    }
}

impl std::error::Error for NumberError {}

impl Exact {
    /// Zero.
    pub const ZERO: Exact = Exact { numerator: 0, denominator: 1 };

    /// One.
    pub const ONE: Exact = Exact { numerator: 1, denominator: 1 };

    /// Parses a plain decimal (`2`, `0.5`, `.5`) or a fraction of two decimals (`1/64`,
    /// `3/0.5`), or says what is wrong with the text.
    ///
    /// ```
    /// use coalescing_lab::model::exact::{Exact, NumberError};
    /// assert_eq!(Exact::read("3/0.5").unwrap().to_string(), "6");
    /// // Long, but 1 in lowest terms: accepted.
    /// let ones = "99999999999999999999999999999/99999999999999999999999999999";
    /// assert_eq!(Exact::read(ones), Ok(Exact::ONE));
    /// assert_eq!(Exact::read("1e2"), Err(NumberError::Exponent));
    /// assert_eq!(Exact::read("1234567890123456.5"), Err(NumberError::TooLong));
    /// // Degenerate input.
    /// assert_eq!(Exact::read("  "), Err(NumberError::Empty));
    /// ```
    pub fn read(text: &str) -> Result<Exact, NumberError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(NumberError::Empty);
        }
        let (top, bottom) = match text.split_once('/') {
            Some((top, bottom)) => (decimal(top.trim())?, Some(decimal(bottom.trim())?)),
            None => (decimal(text)?, None),
        };
        let value = match bottom {
            None => top,
            Some(bottom) if bottom.numerator == 0 => return Err(NumberError::ZeroDenominator),
            Some(bottom) => Exact::reduced(
                top.numerator.checked_mul(bottom.denominator),
                top.denominator.checked_mul(bottom.numerator),
            )?,
        };
        let limit = 10u128.pow(MAX_DIGITS);
        if value.numerator >= limit || value.denominator >= limit {
            return Err(NumberError::TooLong);
        }
        Ok(value)
    }

    /// [`Exact::read`] without the reason.
    ///
    /// ```
    /// use coalescing_lab::model::exact::Exact;
    /// assert_eq!(Exact::parse("1/64").unwrap().value(), 0.015625);
    /// assert_eq!(Exact::parse(" 2.50 ").unwrap().value(), 2.5);
    /// // Degenerate inputs: no sign, exponent, infinity or division by zero.
    /// for bad in ["", "-1", "1e3", "inf", "NaN", "1/0", "1..2", "."] {
    ///     assert_eq!(Exact::parse(bad), None, "{bad}");
    /// }
    /// ```
    pub fn parse(text: &str) -> Option<Exact> {
        Exact::read(text).ok()
    }

    /// `numerator / denominator` in lowest terms; the denominator must not be zero.
    pub(crate) fn new(numerator: u128, denominator: u128) -> Exact {
        let g = gcd(numerator, denominator).max(1);
        Exact {
            numerator: numerator / g,
            denominator: denominator / g,
        }
    }

    fn reduced(numerator: Option<u128>, denominator: Option<u128>) -> Result<Exact, NumberError> {
        match (numerator, denominator) {
            (Some(n), Some(d)) => Ok(Exact::new(n, d)),
            _ => Err(NumberError::TooLong),
        }
    }

    /// `self × numerator ÷ denominator`, exact; `None` when the denominator is 0 or the
    /// product does not fit in 128 bits.
    ///
    /// ```
    /// use coalescing_lab::model::exact::Exact;
    /// let half = Exact::parse("0.5").unwrap();
    /// assert_eq!(half.times_ratio(3, 4).map(|e| e.to_string()), Some("0.375".to_string()));
    /// assert_eq!(half.times_ratio(3, 0), None);
    /// ```
    pub fn times_ratio(self, numerator: u128, denominator: u128) -> Option<Exact> {
        let n = self.numerator.checked_mul(numerator)?;
        let d = self.denominator.checked_mul(denominator)?;
        (d > 0).then(|| Exact::new(n, d))
    }

    /// The nearest float.
    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }

    /// The exact product. Both factors have at most 15 digits in lowest terms, as
    /// [`Exact::read`] guarantees, so it cannot overflow.
    pub(crate) fn times(self, other: Exact) -> Exact {
        Exact::new(
            self.numerator * other.numerator,
            self.denominator * other.denominator,
        )
    }

    /// `(numerator, denominator)` in lowest terms.
    pub(crate) fn parts(self) -> (u128, u128) {
        (self.numerator, self.denominator)
    }

    /// Written back as text that parses to the same value: a decimal when it terminates
    /// within 15 places (so a number typed as a decimal reads back as typed, less trailing
    /// zeros), otherwise a reduced fraction.
    fn text(self) -> String {
        for places in 0..=MAX_DIGITS {
            let scale = 10u128.pow(places);
            let Some(shifted) = self.numerator.checked_mul(scale) else {
                break;
            };
            if shifted % self.denominator == 0 {
                let scaled = shifted / self.denominator;
                let int = scaled / scale;
                let frac = scaled % scale;
                return if places == 0 {
                    int.to_string()
                } else {
                    format!("{int}.{frac:0width$}", width = places as usize)
                };
            }
        }
        format!("{}/{}", self.numerator, self.denominator)
    }
}

/// The one exact order of the page's numbers: `a/b` against `c/d` as `a·d` against `c·b`, each
/// product carried in full 256 bits, so no pair of parts can overflow (a product of two
/// numbers as typed, against a third, needs up to 150 bits).
///
/// ```
/// use coalescing_lab::model::exact::Exact;
/// let third = Exact::parse("1/3").unwrap();
/// assert!(Exact::parse("0.33333333333333").unwrap() < third);
/// assert_eq!(third.max(Exact::ONE), Exact::ONE);
/// // Degenerate input: zero is below every positive number.
/// assert!(Exact::ZERO < Exact::parse("1/999999999999999").unwrap());
/// ```
impl Ord for Exact {
    fn cmp(&self, other: &Exact) -> Ordering {
        wide_mul(self.numerator, other.denominator)
            .cmp(&wide_mul(other.numerator, self.denominator))
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Exact) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The full 256-bit product as (high, low) halves.
pub(crate) fn wide_mul(a: u128, b: u128) -> (u128, u128) {
    const LOW: u128 = u64::MAX as u128;
    let (a1, a0, b1, b0) = (a >> 64, a & LOW, b >> 64, b & LOW);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 64) + (p01 & LOW) + (p10 & LOW);
    let low = (p00 & LOW) | (mid << 64);
    let high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (high, low)
}

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// A plain decimal: digits, at most one point, at least one digit.
fn decimal(text: &str) -> Result<Exact, NumberError> {
    if text.starts_with('-') {
        return Err(NumberError::Negative);
    }
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let plain = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if !plain(int) || !plain(frac) || int.len() + frac.len() == 0 {
        let exponent = text.contains(['e', 'E'])
            && text.split(['e', 'E']).all(|p| {
                !p.is_empty()
                    && p.trim_start_matches(['+', '-'])
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.')
            });
        return Err(if exponent {
            NumberError::Exponent
        } else {
            NumberError::Syntax
        });
    }
    let digits = format!("{int}{frac}");
    let significant = digits.trim_start_matches('0');
    if significant.len() > MAX_WRITTEN_DIGITS || frac.len() > MAX_WRITTEN_DIGITS {
        return Err(NumberError::TooLong);
    }
    let numerator: u128 = if significant.is_empty() {
        0
    } else {
        significant.parse().map_err(|_| NumberError::TooLong)?
    };
    Ok(Exact::new(numerator, 10u128.pow(frac.len() as u32)))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_are_written_back_as_text_that_parses_to_them() {
        let text = |s: &str| Exact::parse(s).unwrap().to_string();
        assert_eq!(text("2/4"), "0.5");
        assert_eq!(text("8/18"), "4/9");
        assert_eq!(text("0"), "0");
        assert_eq!(text("1/64"), "0.015625");
        assert_eq!(text("007.50"), "7.5");
        // Regression: shown as 1600000000001/10000000000 instead of as typed.
        assert_eq!(text("160.0000000001"), "160.0000000001");
        let huge = Exact::new(u128::MAX / 3, 7);
        assert!(huge.to_string().contains('/'), "no overflow when scaling");
    }

    #[test]
    fn the_order_holds_where_products_need_more_than_128_bits() {
        // 10^30 / 1 against (10^30 + 1) / (10^15 + 1): cross products near 10^45.
        let big = Exact::new(10u128.pow(30), 1);
        let near = Exact::new(10u128.pow(30) + 1, 10u128.pow(15) + 1);
        assert_eq!(big.cmp(&near), Ordering::Greater);
        assert_eq!(near.cmp(&big), Ordering::Less);
        assert_eq!(big.cmp(&big), Ordering::Equal);
        let huge = Exact::new(u128::MAX, 1);
        assert!(Exact::new(u128::MAX - 1, 1) < huge);
        assert!(Exact::new(u128::MAX, u128::MAX - 1) > Exact::ONE);
    }

    #[test]
    fn wide_products_match_exact_halves() {
        assert_eq!(wide_mul(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
        assert_eq!(wide_mul(1 << 64, 1 << 64), (1, 0));
        assert_eq!(wide_mul(0, u128::MAX), (0, 0));
    }

    #[test]
    fn each_kind_of_bad_number_is_named() {
        let read = |s: &str| Exact::read(s).unwrap_err();
        assert_eq!(read("-1"), NumberError::Negative);
        assert_eq!(read("1e2"), NumberError::Exponent);
        assert_eq!(read("2.5E-3"), NumberError::Exponent);
        assert_eq!(read("1/0"), NumberError::ZeroDenominator);
        assert_eq!(read("1/0.0"), NumberError::ZeroDenominator);
        assert_eq!(read("abc"), NumberError::Syntax);
        assert_eq!(read("1..2"), NumberError::Syntax);
        assert_eq!(read("."), NumberError::Syntax);
        assert_eq!(read("1/2/3"), NumberError::Syntax);
        assert_eq!(read("inf"), NumberError::Syntax);
        assert_eq!(read("1234567890123456"), NumberError::TooLong);
        assert_eq!(read(&"9".repeat(40)), NumberError::TooLong);
        assert_eq!(read(&format!("1/{}", "7".repeat(16))), NumberError::TooLong);
        // Leading zeros are not significant.
        assert_eq!(Exact::read("0000000000000000002"), Ok(Exact::new(2, 1)));
    }
}
