//! A lane's address and the last byte it requests, with the one typed error every front end
//! reports when they leave the address space. The error names no lane, thread or field: the
//! caller knows whose address it is and says so.

use super::mul::checked_mul_u64;
use std::fmt;

/// Why a lane has no valid address: the arithmetic, as data. Its text is the same in every
/// panel ("address 0 + 4 × -1 = -4 is negative").
///
/// ```
/// use coalescing_lab::model::{lane_address, last_byte, AccessError};
/// assert_eq!(lane_address(0, 4, -1).unwrap_err().to_string(), "address 0 + 4 × -1 = -4 is negative");
/// assert_eq!(last_byte(u64::MAX, 4), Err(AccessError::BytesPastEnd { address: u64::MAX, elem: 4 }));
/// // Degenerate input: one byte at the last address fits.
/// assert_eq!(last_byte(u64::MAX, 1), Ok(u64::MAX));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// `base + elem × idx` is below 0.
    Negative {
        /// The array's byte address.
        base: u64,
        /// Bytes per element.
        elem: u64,
        /// The element index.
        idx: i64,
        /// The exact `base + elem × idx`, below 0.
        address: i128,
    },
    /// `base + elem × idx` is 2^64 or more.
    PastEnd {
        /// The array's byte address.
        base: u64,
        /// Bytes per element.
        elem: u64,
        /// The element index.
        idx: i64,
        /// The exact `base + elem × idx`, 2^64 or more.
        address: i128,
    },
    /// The first byte is valid, the last of the `elem` bytes is not.
    BytesPastEnd {
        /// The lane's first byte, a valid address.
        address: u64,
        /// Bytes requested from it; `address + elem − 1` passes 2^64 − 1.
        elem: u64,
    },
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AccessError::Negative { base, elem, idx, address } => {
                write!(f, "address {base} + {elem} × {idx} = {address} is negative")
            }
            AccessError::PastEnd { base, elem, idx, address } => write!(
                f,
                "address {base} + {elem} × {idx} = {address} is past 2^64"
            ),
            AccessError::BytesPastEnd { address, elem } => {
                write!(f, "{elem} bytes at address {address} run past 2^64")
            }
        }
    }
}

impl std::error::Error for AccessError {}

/// `base + elem × idx` as a start address, or why it is none. Shared by the calculator, the
/// kernel view and the warp core, so that every panel refuses the same addresses with the
/// same words.
// The usual cases are inlined: the kernel view calls these once per lane access from its own
// wasm chunk, where a call into the main module goes through the function table.
#[inline(always)]
pub fn lane_address(base: u64, elem: u64, idx: i64) -> Result<u64, AccessError> {
    // The usual case in 64 bits; 128-bit arithmetic only to word an error exactly.
    match u64::try_from(idx)
        .ok()
        .and_then(|i| checked_mul_u64(elem, i))
        .and_then(|offset| base.checked_add(offset))
    {
        Some(address) => Ok(address),
        None => lane_address_wide(base, elem, idx),
    }
}

/// [`lane_address`] when a negative index or an overflow needs 128 bits.
#[cold]
#[inline(never)]
fn lane_address_wide(base: u64, elem: u64, idx: i64) -> Result<u64, AccessError> {
    let address = i128::from(base) + i128::from(elem) * i128::from(idx);
    if address < 0 {
        return Err(AccessError::Negative { base, elem, idx, address });
    }
    u64::try_from(address).map_err(|_| AccessError::PastEnd { base, elem, idx, address })
}

/// The last byte of `elem` (≥ 1) bytes from `address`, or why they run past 2^64.
#[inline(always)]
pub fn last_byte(address: u64, elem: u64) -> Result<u64, AccessError> {
    match address.checked_add(elem - 1) {
        Some(last) => Ok(last),
        None => Err(AccessError::BytesPastEnd { address, elem }),
    }
}
