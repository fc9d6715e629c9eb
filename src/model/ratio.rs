//! An exact fraction: the vocabulary of efficiencies and useful fractions, shown as a decimal
//! or a percentage by `format`.

/// A fraction kept exact, shown as a decimal or a percentage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    /// The part, e.g. requested or distinct bytes.
    pub numerator: u64,
    /// The whole, e.g. transferred bytes; never 0: with nothing to divide by there is no `Ratio`.
    pub denominator: u64,
}

impl Ratio {
    /// The ratio as a float; the denominator is never zero.
    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}
