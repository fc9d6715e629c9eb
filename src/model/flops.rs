//! The FLOPs a panel counts for the Roofline lab: the kernel view's `flops` (per thread per
//! iteration) and the CUDA panel's `cflops` (per thread). One reader and one wording for both,
//! so that a field, its link notice and the hand-off's refusal say the same thing.
//!
//! Knows nothing of the panels beyond their parameter names.

use super::exact::Exact;
use std::fmt;

/// A FLOPs field: its link parameter and what one FLOP count is per.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlopsField {
    /// The link parameter: `flops` or `cflops`.
    pub param: &'static str,
    /// What the count is per: "per thread per iteration", "per thread".
    pub per: &'static str,
}

/// The kernel view's `flops`: FLOPs per thread per iteration of its loop.
pub const KERNEL_FLOPS: FlopsField = FlopsField {
    param: "flops",
    per: "per thread per iteration",
};

/// The CUDA panel's `cflops`: FLOPs per thread of the launch (its loops are in its source).
pub const CUDA_FLOPS: FlopsField = FlopsField { param: "cflops", per: "per thread" };

/// Why a FLOPs field's text is not a count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlopsError {
    /// The field it is in.
    pub field: FlopsField,
    /// The text, trimmed.
    pub found: String,
}

impl fmt::Display for FlopsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "must be a non-negative number of FLOPs {}, a decimal or a fraction such as 1/4, \
             found '{}'",
            self.field.per, self.found
        )
    }
}

impl std::error::Error for FlopsError {}

impl FlopsField {
    /// The count `text` stands for: empty is none (0), otherwise a non-negative decimal or
    /// fraction, kept exact.
    ///
    /// ```
    /// use coalescing_lab::model::flops::CUDA_FLOPS;
    /// assert_eq!(CUDA_FLOPS.read(" 2.5 ").unwrap().to_string(), "2.5");
    /// assert_eq!(CUDA_FLOPS.read("").unwrap().to_string(), "0");
    /// assert_eq!(
    ///     CUDA_FLOPS.read("-1").unwrap_err().to_string(),
    ///     "must be a non-negative number of FLOPs per thread, a decimal or a fraction such as 1/4, found '-1'"
    /// );
    /// ```
    pub fn read(self, text: &str) -> Result<Exact, FlopsError> {
        if text.trim().is_empty() {
            return Ok(Exact::ZERO);
        }
        Exact::parse(text).ok_or_else(|| FlopsError {
            field: self,
            found: text.trim().to_string(),
        })
    }
}
