//! Reading the machine mode's text: ceiling and point entries checked one by one, with
//! messages that name what is wrong and what is accepted, and numbers written back as text
//! the fields accept. Knows nothing of the page.

use super::super::exact::{Exact, NumberError};
use super::machine::{
    Ceiling, CeilingKind, MachineChecked, MachinePoint, BW_RANGE, FLOPS_RANGE, MAX_NAME, OI_RANGE,
};
use super::{in_range, range_text, Range};
use std::fmt;

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
fn outside_as_decimal(text: &str, ((lo_n, lo_d), (hi_n, hi_d)): Range) -> bool {
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

/// Why one ceiling or point entry is refused, or (`Undefined`) what was used instead. It names
/// the part at fault; `Display` gives the entry's message, with what would be accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum EntryError {
    /// Not `NAME:VALUE` for a ceiling of `kind`, or not `NAME:I:P[:BW[:PEAK]]` for a point.
    Shape { entry: Entry, text: String },
    /// The name is refused.
    Name { entry: Entry, why: NameError },
    /// A number is refused: which part, its text as typed, and what is wrong with it (`None`:
    /// outside the part's range).
    Number {
        part: Part,
        text: String,
        why: Option<NumberError>,
    },
    /// A ceiling repeats the name of an earlier one of its kind, in slot `first`.
    Repeated {
        kind: CeilingKind,
        name: String,
        first: u8,
    },
    /// A point with no ceilings to be read against.
    NoCeilings,
    /// A point names a ceiling of `kind` that is not defined; the ceiling `using` is read
    /// instead. A note: the point is kept.
    Undefined {
        kind: CeilingKind,
        wanted: String,
        defined: Vec<String>,
        using: String,
    },
}

/// The kind of entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Entry {
    Ceiling(CeilingKind),
    Point,
}

/// The numeric part of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// A ceiling's value.
    Value(CeilingKind),
    /// A point's intensity.
    Intensity,
    /// A point's measured performance.
    Performance,
}

/// What is wrong with a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NameError {
    /// Empty, or longer than [`MAX_NAME`]: its length in characters.
    Length(usize),
    /// `:` or `,`, which separate an entry's parts in the link.
    Separator(char),
    /// A control or text-direction character.
    Control(char),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Length(n) => write!(f, "has a name of {n} characters"),
            NameError::Separator(c) => write!(
                f,
                "has a name with '{c}', which separates the link's entries"
            ),
            NameError::Control(c) => write!(
                f,
                "has a name with the control or text-direction character U+{:04X}",
                u32::from(*c)
            ),
        }
    }
}

impl Part {
    /// (what it is, its unit, its range).
    fn describe(self) -> (&'static str, &'static str, Range) {
        match self {
            Part::Value(kind) => ("a value", kind.unit(), value_range(kind)),
            Part::Intensity => ("an intensity", "FLOP/byte", OI_RANGE),
            Part::Performance => ("a performance", "GFLOP/s", FLOPS_RANGE),
        }
    }

    fn entry(self) -> Entry {
        match self {
            Part::Value(kind) => Entry::Ceiling(kind),
            Part::Intensity | Part::Performance => Entry::Point,
        }
    }
}

fn value_range(kind: CeilingKind) -> Range {
    match kind {
        CeilingKind::Bandwidth => BW_RANGE,
        CeilingKind::Compute => FLOPS_RANGE,
    }
}

/// The entry's syntax, as its messages name it.
fn syntax(entry: Entry) -> &'static str {
    match entry {
        Entry::Ceiling(CeilingKind::Bandwidth) => "NAME:GBps",
        Entry::Ceiling(CeilingKind::Compute) => "NAME:GFLOPs",
        Entry::Point => "NAME:I:P[:BW[:PEAK]]",
    }
}

/// What the entry accepts, closing every message that leaves it out.
struct Accepted(Entry);

impl fmt::Display for Accepted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Entry::Ceiling(kind) => {
                let example = match kind {
                    CeilingKind::Bandwidth => "DRAM:1555",
                    CeilingKind::Compute => "FP32:19500",
                };
                write!(
                    f,
                    "; write {} (a name of 1 to {MAX_NAME} characters, a value from {} {}), such as {example}; left out",
                    syntax(self.0),
                    range_text(value_range(kind)),
                    kind.unit()
                )
            }
            Entry::Point => f.write_str(
                "; write NAME:I:P[:BW[:PEAK]] (I in FLOP/byte, P in GFLOP/s, BW and PEAK \
                 naming ceilings), such as saxpy:0.25:90; left out",
            ),
        }
    }
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryError::Shape { entry, text } => {
                write!(f, "'{text}' is not {}{}", syntax(*entry), Accepted(*entry))
            }
            EntryError::Name { entry, why } => write!(f, "{why}{}", Accepted(*entry)),
            EntryError::Number { part, text, why } => {
                let (what, unit, range) = part.describe();
                match why {
                    None => write!(
                        f,
                        "has {what} '{text}' outside {} {unit}",
                        range_text(range)
                    )?,
                    Some(e) => write!(f, "has {what} '{text}' that {e}")?,
                }
                write!(f, "{}", Accepted(part.entry()))
            }
            EntryError::Repeated { kind, name, first } => write!(
                f,
                "repeats the name '{name}' of {}.{first}; name each ceiling once; left out",
                kind.value()
            ),
            EntryError::NoCeilings => f.write_str(
                "needs at least one bandwidth ceiling (bw.1) and one compute ceiling (peak.1), \
                 or a machine preset; left out",
            ),
            EntryError::Undefined { kind, wanted, defined, using } => {
                let what = match kind {
                    CeilingKind::Bandwidth => "bandwidth",
                    CeilingKind::Compute => "compute",
                };
                write!(
                    f,
                    "names the {what} ceiling '{wanted}', which is not defined ({}); using {using}",
                    defined.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for EntryError {}

/// A number of the machine mode, or what is wrong with it.
fn read_number(text: &str, part: Part) -> Result<Exact, EntryError> {
    let (_, _, range) = part.describe();
    let refused = |why| EntryError::Number { part, text: text.trim().to_string(), why };
    match Exact::read(text) {
        Ok(x) if in_range(x, range) => Ok(x),
        Ok(_) => Err(refused(None)),
        // A number too long to hold exactly may still be plainly out of range (say
        // 126000000000000000000): that is the reason to give, not its digits.
        Err(_) if outside_as_decimal(text, range) => Err(refused(None)),
        Err(e) => Err(refused(Some(e))),
    }
}

fn read_name(name: &str, entry: Entry) -> Result<String, EntryError> {
    let refused = |why| Err(EntryError::Name { entry, why });
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return refused(NameError::Length(name.chars().count()));
    }
    // `:` and `,` separate an entry's parts in the link.
    if let Some(c) = name.chars().find(|&c| c == ':' || c == ',') {
        return refused(NameError::Separator(c));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| c.is_control() || super::super::kernel::is_bidi_control(c))
    {
        return refused(NameError::Control(c));
    }
    Ok(name.to_string())
}

pub(super) fn read_ceiling(
    kind: CeilingKind,
    slot: u8,
    text: &str,
    taken: &[Ceiling],
) -> Result<Ceiling, EntryError> {
    let entry = Entry::Ceiling(kind);
    let Some((name, value)) = text.split_once(':') else {
        return Err(EntryError::Shape { entry, text: text.trim().to_string() });
    };
    let name = read_name(name, entry)?;
    let value = read_number(value, Part::Value(kind))?;
    if let Some(first) = taken.iter().find(|c| c.name == name) {
        return Err(EntryError::Repeated { kind, name, first: first.slot });
    }
    Ok(Ceiling { kind, slot, name, value })
}

/// Reads `NAME:I:P[:BW[:PEAK]]`. A ceiling name that is not defined is noted and the default
/// ceiling used; anything else wrong leaves the point out.
pub(super) fn read_point(
    slot: u8,
    text: &str,
    machine: &MachineChecked,
    notes: &mut Vec<EntryError>,
) -> Result<MachinePoint, EntryError> {
    let parts: Vec<&str> = text.split(':').collect();
    let (name, oi, p, bw, peak) = match parts[..] {
        [n, i, p] => (n, i, p, "", ""),
        [n, i, p, b] => (n, i, p, b, ""),
        [n, i, p, b, k] => (n, i, p, b, k),
        _ => {
            return Err(EntryError::Shape {
                entry: Entry::Point,
                text: text.trim().to_string(),
            })
        }
    };
    let name = read_name(name, Entry::Point)?;
    let oi = read_number(oi, Part::Intensity)?;
    let p = read_number(p, Part::Performance)?;
    let (Some(default_bw), Some(default_peak)) = (machine.default_bw(), machine.default_peak())
    else {
        return Err(EntryError::NoCeilings);
    };
    let pick = |wanted: &str, all: &[Ceiling], default: &Ceiling, kind: CeilingKind| {
        let wanted = wanted.trim();
        if wanted.is_empty() {
            return (default.clone(), None);
        }
        match all.iter().find(|c| c.name == wanted) {
            Some(c) => (c.clone(), None),
            None => (
                default.clone(),
                Some(EntryError::Undefined {
                    kind,
                    wanted: wanted.to_string(),
                    defined: all.iter().map(|c| c.name.clone()).collect(),
                    using: default.name.clone(),
                }),
            ),
        }
    };
    let (bw, bw_note) = pick(bw, &machine.bandwidths, default_bw, CeilingKind::Bandwidth);
    let (peak, peak_note) = pick(peak, &machine.peaks, default_peak, CeilingKind::Compute);
    notes.extend(bw_note);
    notes.extend(peak_note);
    Ok(MachinePoint { slot, name, oi, p, bw, peak })
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
