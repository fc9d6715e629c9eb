//! Reading the machine mode's text: ceiling and point entries checked one by one, with
//! messages that name what is wrong and what is accepted, and numbers written back as text
//! the fields accept. Knows nothing of the page.

use super::super::exact::Exact;
use super::machine::{
    Ceiling, CeilingKind, MachineChecked, MachinePoint, BW_RANGE, FLOPS_RANGE, MAX_NAME, OI_RANGE,
};
use super::{in_range, range_text};

/// A name as the URL can carry it: separators replaced, trimmed to [`MAX_NAME`] characters.
///
/// ```
/// use coalescing_lab::model::roofline::clean_name;
/// assert_eq!(clean_name(" SwiftShader: Device, (Subzero) "), "SwiftShader  Device  (Su");
/// assert_eq!(clean_name(""), "unnamed");
/// ```
pub fn clean_name(name: &str) -> String {
    let cleaned: String = name
        .trim()
        .chars()
        .map(|c| if c == ':' || c == ',' { ' ' } else { c })
        .take(MAX_NAME)
        .collect();
    let cleaned = cleaned.trim().to_string();
    if cleaned.is_empty() {
        "unnamed".into()
    } else {
        cleaned
    }
}

/// Whether `text` is a plain decimal (digits and at most one point) whose value lies outside
/// `range`: for numbers too long to hold exactly, such as 126000000000000000000. Exact in
/// 128-bit integers on the leading 36 digits (no float parser, which would weigh on the
/// first load); when neither side fits, it says no and the digit count is the reason given.
fn outside_as_decimal(
    text: &str,
    ((lo_n, lo_d), (hi_n, hi_d)): ((u128, u128), (u128, u128)),
) -> bool {
    use std::cmp::Ordering;
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return false;
    }
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let kept = &digits[..digits.len().min(36)];
    let mut exponent = (digits.len() - kept.len()) as i64 - fraction.len() as i64;
    let mut mantissa: u128 = kept.parse().unwrap_or(0);
    while mantissa != 0 && mantissa.is_multiple_of(10) {
        mantissa /= 10;
        exponent += 1;
    }
    // mantissa × 10^exponent against n ÷ d.
    let compare = |n: u128, d: u128| -> Option<Ordering> {
        let power = 10u128.checked_pow(exponent.unsigned_abs().min(u32::MAX as u64) as u32);
        if exponent >= 0 {
            match power
                .and_then(|p| mantissa.checked_mul(p))
                .and_then(|m| m.checked_mul(d))
            {
                Some(left) => Some(left.cmp(&n)),
                None => Some(Ordering::Greater),
            }
        } else {
            let right = power.and_then(|p| n.checked_mul(p));
            match (mantissa.checked_mul(d), right) {
                (Some(left), Some(right)) => Some(left.cmp(&right)),
                (Some(_), None) => Some(Ordering::Less),
                _ => None,
            }
        }
    };
    compare(lo_n, lo_d) == Some(Ordering::Less) || compare(hi_n, hi_d) == Some(Ordering::Greater)
}

/// A number of the machine mode, or a message naming what it is and what is accepted.
fn read_number(
    text: &str,
    what: &str,
    unit: &str,
    range: ((u128, u128), (u128, u128)),
) -> Result<Exact, String> {
    match Exact::read(text) {
        Ok(x) if in_range(x, range) => Ok(x),
        Ok(_) => Err(format!(
            "has {what} '{}' outside {} {unit}",
            text.trim(),
            range_text(range)
        )),
        // A number too long to hold exactly may still be plainly out of range (say
        // 126000000000000000000): that is the reason to give, not its digits.
        Err(_) if outside_as_decimal(text, range) => Err(format!(
            "has {what} '{}' outside {} {unit}",
            text.trim(),
            range_text(range)
        )),
        Err(e) => Err(format!("has {what} '{}' that {e}", text.trim())),
    }
}

fn read_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(format!("has a name of {} characters", name.chars().count()));
    }
    // `:` and `,` separate an entry's parts in the link.
    if let Some(c) = name.chars().find(|&c| c == ':' || c == ',') {
        return Err(format!(
            "has a name with '{c}', which separates the link's entries"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| c.is_control() || super::super::kernel::is_bidi_control(c))
    {
        return Err(format!(
            "has a name with the control or text-direction character U+{:04X}",
            u32::from(c)
        ));
    }
    Ok(name.to_string())
}

pub(super) fn read_ceiling(
    kind: CeilingKind,
    slot: u8,
    text: &str,
    taken: &[Ceiling],
) -> Result<Ceiling, String> {
    let (syntax, example, range) = match kind {
        CeilingKind::Bandwidth => ("NAME:GBps", "DRAM:1555", BW_RANGE),
        CeilingKind::Compute => ("NAME:GFLOPs", "FP32:19500", FLOPS_RANGE),
    };
    let accepted = format!(
        "; write {syntax} (a name of 1 to {MAX_NAME} characters, a value from {} {}), such as {example}; left out",
        range_text(range),
        kind.unit()
    );
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!("'{}' is not {syntax}{accepted}", text.trim()));
    };
    let name = read_name(name).map_err(|e| e + &accepted)?;
    let value = read_number(value, "a value", kind.unit(), range).map_err(|e| e + &accepted)?;
    if let Some(first) = taken.iter().find(|c| c.name == name) {
        return Err(format!(
            "repeats the name '{name}' of {}.{}; name each ceiling once; left out",
            kind.value(),
            first.slot
        ));
    }
    Ok(Ceiling {
        kind,
        slot,
        name,
        value,
    })
}

/// Reads `NAME:I:P[:BW[:PEAK]]`. A ceiling name that is not defined is noted and the default
/// ceiling used; anything else wrong leaves the point out.
pub(super) fn read_point(
    slot: u8,
    text: &str,
    machine: &MachineChecked,
    notes: &mut Vec<String>,
) -> Result<MachinePoint, String> {
    let accepted = "; write NAME:I:P[:BW[:PEAK]] (I in FLOP/byte, P in GFLOP/s, BW and PEAK \
                    naming ceilings), such as saxpy:0.25:90; left out";
    let parts: Vec<&str> = text.split(':').collect();
    let (name, oi, p, bw, peak) = match parts[..] {
        [n, i, p] => (n, i, p, "", ""),
        [n, i, p, b] => (n, i, p, b, ""),
        [n, i, p, b, k] => (n, i, p, b, k),
        _ => {
            return Err(format!(
                "'{}' is not NAME:I:P[:BW[:PEAK]]{accepted}",
                text.trim()
            ))
        }
    };
    let name = read_name(name).map_err(|e| e + accepted)?;
    let oi = read_number(oi, "an intensity", "FLOP/byte", OI_RANGE).map_err(|e| e + accepted)?;
    let p = read_number(p, "a performance", "GFLOP/s", FLOPS_RANGE).map_err(|e| e + accepted)?;
    let (Some(default_bw), Some(default_peak)) = (machine.default_bw(), machine.default_peak())
    else {
        return Err(
            "needs at least one bandwidth ceiling (bw.1) and one compute ceiling (peak.1), or a machine preset; left out"
                .into(),
        );
    };
    let pick = |wanted: &str, all: &[Ceiling], default: &Ceiling, what: &str| {
        let wanted = wanted.trim();
        if wanted.is_empty() {
            return (default.clone(), None);
        }
        match all.iter().find(|c| c.name == wanted) {
            Some(c) => (c.clone(), None),
            None => (
                default.clone(),
                Some(format!(
                    "names the {what} ceiling '{wanted}', which is not defined ({}); using {}",
                    all.iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    default.name
                )),
            ),
        }
    };
    let (bw, bw_note) = pick(bw, &machine.bandwidths, default_bw, "bandwidth");
    let (peak, peak_note) = pick(peak, &machine.peaks, default_peak, "compute");
    notes.extend(bw_note);
    notes.extend(peak_note);
    Ok(MachinePoint {
        slot,
        name,
        oi,
        p,
        bw,
        peak,
    })
}

/// A positive float as short decimal text the fields accept: 3 significant digits, as a
/// click on the chart or a measurement deserves.
///
/// ```
/// use coalescing_lab::model::roofline::short_decimal;
/// assert_eq!(short_decimal(0.012345), "0.0123");
/// assert_eq!(short_decimal(123456.0), "123000");
/// assert_eq!(short_decimal(2.0), "2");
/// // Degenerate input: not a positive number.
/// assert_eq!(short_decimal(f64::NAN), "0");
/// ```
pub fn short_decimal(x: f64) -> String {
    if !(x.is_finite() && x > 0.0) {
        return "0".into();
    }
    let magnitude = x.log10().floor() as i32;
    let places = (2 - magnitude).max(0) as usize;
    let scale = 10f64.powi(magnitude - 2);
    let rounded = if magnitude >= 2 {
        (x / scale).round() * scale
    } else {
        x
    };
    let text = format!("{rounded:.places$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// An exact value as text the fields accept: as is when it is short enough to type back,
/// otherwise rounded to 3 significant digits.
pub fn typeable(x: Exact) -> String {
    let exact = x.to_string();
    if Exact::read(&exact).is_ok() {
        exact
    } else {
        short_decimal(x.value())
    }
}
