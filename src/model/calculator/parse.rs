//! The parsers of the calculator's fields: each reads one field's text against the limits in
//! `inputs` and says what it accepts when it refuses.

pub(super) use super::super::read::keep;
use super::super::read::whole;
use super::inputs::{
    elem_sizes_text, Field, FieldError, ELEM_SIZES, MAX_LINE_BYTES, MAX_SECTOR_BYTES, MAX_WARP,
    MIN_SECTOR_BYTES,
};

/// Parses an unsigned 64-bit byte address: decimal or `0x` hex, surrounding spaces ignored.
///
/// ```
/// use coalescing_lab::model::inputs::parse_address;
/// assert_eq!(parse_address(" 0x100 "), Some(256));
/// assert_eq!(parse_address("18446744073709551615"), Some(u64::MAX));
/// assert_eq!(parse_address("-1"), None);
/// assert_eq!(parse_address(""), None);
/// ```
pub fn parse_address(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (text, 10),
    };
    // from_str_radix accepts a leading '+', which an address field should not.
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// The value of `result`, or `None` after recording its error.
pub(super) fn parse_warp(text: &str) -> Result<u32, FieldError> {
    whole(text)
        .and_then(|v| u32::try_from(v).ok())
        .filter(|v| (1..=MAX_WARP).contains(v))
        .ok_or_else(|| {
            FieldError::new(
                Field::Warp,
                format!(
                    "must be a whole number of lanes from 1 to {MAX_WARP}, found '{}'",
                    text.trim()
                ),
            )
        })
}

pub(super) fn parse_elem(text: &str) -> Result<u64, FieldError> {
    whole(text)
        .filter(|v| ELEM_SIZES.contains(v))
        .ok_or_else(|| {
            FieldError::new(
                Field::Elem,
                format!(
                    "must be {} bytes, found '{}'",
                    elem_sizes_text(),
                    text.trim()
                ),
            )
        })
}

pub(super) fn parse_sector(text: &str) -> Result<u64, FieldError> {
    whole(text)
        .filter(|v| v.is_power_of_two() && (MIN_SECTOR_BYTES..=MAX_SECTOR_BYTES).contains(v))
        .ok_or_else(|| {
            FieldError::new(
                Field::Sector,
                format!(
                    "must be a power of two from {MIN_SECTOR_BYTES} to {MAX_SECTOR_BYTES} bytes, found '{}'",
                    text.trim()
                ),
            )
        })
}

pub(super) fn parse_line(text: &str, sector: Option<u64>) -> Result<u64, FieldError> {
    let smallest = sector.unwrap_or(MIN_SECTOR_BYTES);
    whole(text)
        .filter(|v| v.is_power_of_two() && *v >= smallest && *v <= MAX_LINE_BYTES)
        .ok_or_else(|| {
            let rule = match sector {
                Some(s) => format!("a power-of-two multiple of the sector ({s} bytes)"),
                None => "a power of two".to_string(),
            };
            FieldError::new(
                Field::Line,
                format!(
                    "must be {rule} up to {MAX_LINE_BYTES} bytes, found '{}'",
                    text.trim()
                ),
            )
        })
}

pub(super) fn parse_addrs(text: &str, warp: Option<u32>) -> Result<Vec<Option<u64>>, FieldError> {
    let entries = text
        .split(',')
        .enumerate()
        .map(|(i, entry)| {
            let entry = entry.trim();
            if entry == "-" {
                Ok(None)
            } else {
                parse_address(entry).map(Some).ok_or_else(|| {
                    FieldError::new(
                        Field::Addrs,
                        format!(
                            "entry {} ('{entry}') is not an address; use decimal, 0x hex, or - for an inactive lane",
                            i + 1
                        ),
                    )
                })
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(warp) = warp {
        if entries.len() != warp as usize {
            return Err(FieldError::new(
                Field::Addrs,
                format!(
                    "has {} entr{} but the warp has {warp} lanes; give one address (or -) per lane",
                    entries.len(),
                    if entries.len() == 1 { "y" } else { "ies" }
                ),
            ));
        }
    }
    Ok(entries)
}
