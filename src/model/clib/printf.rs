//! `printf`'s formatting as glibc does it (`stdio-common/vfprintf-internal.c`, and the C
//! standard's §7.21.6.1 for what each flag means), for the conversions that teaching programs
//! use: `d i u o x X c s p f F e E g G %`, with the flags `- + space # 0`, a width and a
//! precision (each a number or `*`), and the length modifiers `hh h l ll j z t L`.
//!
//! - An integer argument is the bits of the 64-bit register that carries it, as on x86-64
//!   Linux: the length modifier says how many of them the conversion reads, and whether
//!   signed (`%d` of `-1L` prints `-1`; `%hhu` of `300` prints `44`).
//! - A floating argument is a `double`. Its digits are the exact binary value rounded to
//!   nearest, ties to even, as glibc rounds in the default rounding mode.
//! - glibc's words for what C leaves open: `(null)` for `%s` of a null pointer (nothing when
//!   the precision is under 6), `(nil)` for `%p` of one, `inf`, `nan` and `-nan`.
//! - An argument the caller does not know ([`Arg::Unknown`]) prints as `?` in its field.
//!
//! A conversion this does not know (`%a`, `%n`, `%ls`), a missing argument, and an argument
//! of the wrong kind (a `double` for `%d`) are errors that name the conversion: glibc would
//! print whatever the registers held, and the page never makes a value up.

use std::fmt;

/// One argument as `printf` receives it, after C's default argument promotions.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// An integer of any width, signed or not (`char`, `bool` and enums promoted): the bits
    /// of the register that carries it, a negative value sign-extended.
    Int(u64),
    /// A `double` (a `float` is promoted to one).
    Double(f64),
    /// A string's bytes up to its terminating zero, for `%s`; `None` for a null pointer.
    Str(Option<Vec<u8>>),
    /// A pointer's address, for `%p`.
    Ptr(u64),
    /// A value the caller does not know (the page's model of a device value it cannot
    /// compute): any conversion prints `?` in its field, never a made-up value.
    Unknown,
}

impl Arg {
    /// What kind of argument this is, in a message.
    fn kind(&self) -> &'static str {
        match self {
            Arg::Int(_) => "an integer",
            Arg::Double(_) => "a double",
            Arg::Str(_) => "a string",
            Arg::Ptr(_) => "a pointer",
            Arg::Unknown => "unknown",
        }
    }
}

/// Why a format cannot be printed: at which conversion (its byte offset in the format and
/// its text), and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintfError {
    /// The byte offset of the conversion's `%` in the format.
    pub at: usize,
    /// The conversion as written, `%` to its letter (or to the format's end).
    pub conversion: String,
    /// What is wrong.
    pub kind: PrintfErrorKind,
}

/// What is wrong with a conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrintfErrorKind {
    /// The format ends inside a conversion.
    Incomplete,
    /// A conversion this does not print.
    Unsupported,
    /// A width or precision past [`MAX_FIELD`]: glibc refuses one past `INT_MAX` (`EOVERFLOW`)
    /// and would print up to 2 GiB for one below it; this page prints at most a mebibyte a
    /// field.
    TooWide {
        /// The width or precision asked for.
        asked: u64,
    },
    /// Argument `index` (from 1, after the format) is missing.
    Missing {
        /// Which argument.
        index: usize,
    },
    /// Argument `index` is of the wrong kind.
    Type {
        /// Which argument (from 1, after the format).
        index: usize,
        /// What the conversion takes.
        takes: &'static str,
        /// What was given.
        given: &'static str,
    },
}

impl fmt::Display for PrintfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.conversion;
        match &self.kind {
            PrintfErrorKind::Incomplete => {
                write!(f, "the format ends inside the conversion {c}")
            }
            PrintfErrorKind::Unsupported => {
                write!(f, "the conversion {c} is not one this page prints")
            }
            PrintfErrorKind::TooWide { asked } => write!(
                f,
                "the conversion {c} asks for a field of {asked} bytes; a field here is at most \
                 {MAX_FIELD}"
            ),
            PrintfErrorKind::Missing { index } => {
                write!(
                    f,
                    "the conversion {c} needs argument {index}, which is not given"
                )
            }
            PrintfErrorKind::Type { index, takes, given } => {
                write!(
                    f,
                    "the conversion {c} takes {takes}, but argument {index} is {given}"
                )
            }
        }
    }
}

impl std::error::Error for PrintfError {}

/// The widest field (width or precision) a conversion may ask for: 1 MiB.
pub const MAX_FIELD: usize = 1 << 20;

/// One conversion's flags, width and precision.
#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// How many bits of an integer argument a length modifier reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    Char,
    Short,
    Int,
    Long,
    LongDouble,
}

/// `format` with `args`, as glibc's `printf` prints it: the bytes written.
///
/// ```
/// use coalescing_lab::model::clib::printf::{sprintf, Arg};
/// let out = sprintf(b"%5.2f|%-4d|%x|%s\n", &[
///     Arg::Double(3.14159),
///     Arg::Int(42),
///     Arg::Int(255),
///     Arg::Str(Some(b"ok".to_vec())),
/// ]);
/// assert_eq!(out.unwrap(), b" 3.14|42  |ff|ok\n");
/// ```
pub fn sprintf(format: &[u8], args: &[Arg]) -> Result<Vec<u8>, PrintfError> {
    let mut out = Vec::with_capacity(format.len() + 16);
    let mut next = 0usize;
    let mut k = 0usize;
    while k < format.len() {
        let c = format[k];
        if c != b'%' {
            out.push(c);
            k += 1;
            continue;
        }
        let start = k;
        k += 1;
        let err = |end: usize, kind: PrintfErrorKind| PrintfError {
            at: start,
            conversion: String::from_utf8_lossy(&format[start..end.min(format.len())]).into_owned(),
            kind,
        };
        let mut spec = Spec::default();
        // Flags.
        while let Some(&f) = format.get(k) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                // Thousands' grouping: none in the C locale.
                b'\'' => {}
                _ => break,
            }
            k += 1;
        }
        // Width.
        if format.get(k) == Some(&b'*') {
            k += 1;
            let w = int_arg(args, &mut next).map_err(|kind| err(k, kind))? as u32 as i32;
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
        } else {
            spec.width = digits(format, &mut k);
        }
        if spec.width > MAX_FIELD {
            return Err(err(
                k,
                PrintfErrorKind::TooWide { asked: spec.width as u64 },
            ));
        }
        // Precision.
        if format.get(k) == Some(&b'.') {
            k += 1;
            if format.get(k) == Some(&b'*') {
                k += 1;
                let p = int_arg(args, &mut next).map_err(|kind| err(k, kind))? as u32 as i32;
                spec.precision = usize::try_from(p).ok();
            } else {
                spec.precision = Some(digits(format, &mut k));
            }
            if let Some(p) = spec.precision.filter(|p| *p > MAX_FIELD) {
                return Err(err(k, PrintfErrorKind::TooWide { asked: p as u64 }));
            }
        }
        // Length.
        let mut length = Length::Int;
        match format.get(k) {
            Some(b'h') if format.get(k + 1) == Some(&b'h') => {
                length = Length::Char;
                k += 2;
            }
            Some(b'h') => {
                length = Length::Short;
                k += 1;
            }
            Some(b'l') if format.get(k + 1) == Some(&b'l') => {
                length = Length::Long;
                k += 2;
            }
            Some(b'l' | b'j' | b'z' | b't' | b'q') => {
                length = Length::Long;
                k += 1;
            }
            Some(b'L') => {
                length = Length::LongDouble;
                k += 1;
            }
            _ => {}
        }
        let Some(&conv) = format.get(k) else {
            return Err(err(k, PrintfErrorKind::Incomplete));
        };
        k += 1;
        let arg = |next: &mut usize| -> Result<&Arg, PrintfError> {
            let index = *next;
            *next += 1;
            args.get(index)
                .ok_or_else(|| err(k, PrintfErrorKind::Missing { index: index + 1 }))
        };
        let wrong = |index: usize, takes: &'static str, given: &Arg| {
            err(
                k,
                PrintfErrorKind::Type {
                    index: index + 1,
                    takes,
                    given: given.kind(),
                },
            )
        };
        if conv != b'%' && matches!(args.get(next), Some(Arg::Unknown)) {
            if !matches!(
                conv,
                b'd' | b'i'
                    | b'u'
                    | b'o'
                    | b'x'
                    | b'X'
                    | b'c'
                    | b's'
                    | b'p'
                    | b'f'
                    | b'F'
                    | b'e'
                    | b'E'
                    | b'g'
                    | b'G'
            ) {
                return Err(err(k, PrintfErrorKind::Unsupported));
            }
            next += 1;
            let spec = Spec { zero: false, ..spec };
            out.extend(pad(&spec, Vec::new(), b"?".to_vec(), false));
            continue;
        }
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                let index = next;
                let bits = match arg(&mut next)? {
                    Arg::Int(v) | Arg::Ptr(v) => *v,
                    other => return Err(wrong(index, "an integer", other)),
                };
                integer(conv, length, bits, &spec)
            }
            b'c' if length != Length::Long => {
                let index = next;
                let byte = match arg(&mut next)? {
                    Arg::Int(v) => *v as u8,
                    other => return Err(wrong(index, "an integer", other)),
                };
                pad(&spec, Vec::new(), vec![byte], false)
            }
            b's' if length != Length::Long => {
                let index = next;
                let text = match arg(&mut next)? {
                    Arg::Str(Some(s)) => s.clone(),
                    // glibc prints "(null)" whole, or nothing when the precision cuts it.
                    Arg::Str(None) | Arg::Ptr(0) => match spec.precision {
                        Some(p) if p < 6 => Vec::new(),
                        _ => b"(null)".to_vec(),
                    },
                    other => return Err(wrong(index, "a string", other)),
                };
                let n = spec.precision.map_or(text.len(), |p| p.min(text.len()));
                pad(&spec, Vec::new(), text[..n].to_vec(), false)
            }
            b'p' => {
                let index = next;
                let addr = match arg(&mut next)? {
                    Arg::Ptr(v) | Arg::Int(v) => *v,
                    Arg::Str(None) => 0,
                    other => return Err(wrong(index, "a pointer", other)),
                };
                if addr == 0 {
                    pad(
                        &Spec { zero: false, ..spec },
                        Vec::new(),
                        b"(nil)".to_vec(),
                        false,
                    )
                } else {
                    let spec = Spec { alt: true, ..spec };
                    integer(b'x', Length::Long, addr, &spec)
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                let index = next;
                let v = match arg(&mut next)? {
                    Arg::Double(v) => *v,
                    other => return Err(wrong(index, "a double", other)),
                };
                floating(conv, v, &spec)
            }
            _ => return Err(err(k, PrintfErrorKind::Unsupported)),
        };
        out.extend_from_slice(&body);
    }
    Ok(out)
}

/// The next argument as an integer, for a `*` width or precision.
fn int_arg(args: &[Arg], next: &mut usize) -> Result<u64, PrintfErrorKind> {
    let index = *next;
    *next += 1;
    match args.get(index) {
        Some(Arg::Int(v)) => Ok(*v),
        Some(other) => Err(PrintfErrorKind::Type {
            index: index + 1,
            takes: "an int (for '*')",
            given: other.kind(),
        }),
        None => Err(PrintfErrorKind::Missing { index: index + 1 }),
    }
}

/// A run of decimal digits at `k`, as a number (saturating), moving `k` past them.
fn digits(format: &[u8], k: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(d) = format.get(*k).filter(|d| d.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
        *k += 1;
    }
    n
}

/// `prefix` (a sign, `0x`) and `digits` laid out in the field: left-justified, or padded on
/// the left with spaces, or with zeros after the prefix when `zeros` holds.
fn pad(spec: &Spec, prefix: Vec<u8>, digits: Vec<u8>, zeros: bool) -> Vec<u8> {
    let len = prefix.len() + digits.len();
    let fill = spec.width.saturating_sub(len);
    let mut out = Vec::with_capacity(len + fill);
    if spec.left {
        out.extend(prefix);
        out.extend(digits);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if zeros {
        out.extend(prefix);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend(digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend(prefix);
        out.extend(digits);
    }
    out
}

/// The sign a value prints with: `-`, or `+` or a space as the flags ask.
fn sign(negative: bool, spec: &Spec) -> Vec<u8> {
    if negative {
        b"-".to_vec()
    } else if spec.plus {
        b"+".to_vec()
    } else if spec.space {
        b" ".to_vec()
    } else {
        Vec::new()
    }
}

/// An integer conversion of the register bits `bits`.
fn integer(conv: u8, length: Length, bits: u64, spec: &Spec) -> Vec<u8> {
    let signed = matches!(conv, b'd' | b'i');
    let (negative, magnitude) = if signed {
        let v: i64 = match length {
            Length::Char => i64::from(bits as i8),
            Length::Short => i64::from(bits as i16),
            Length::Int | Length::LongDouble => i64::from(bits as i32),
            Length::Long => bits as i64,
        };
        (v < 0, v.unsigned_abs())
    } else {
        let v: u64 = match length {
            Length::Char => u64::from(bits as u8),
            Length::Short => u64::from(bits as u16),
            Length::Int | Length::LongDouble => u64::from(bits as u32),
            Length::Long => bits,
        };
        (false, v)
    };
    let mut text = match conv {
        b'o' => format!("{magnitude:o}"),
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    }
    .into_bytes();
    // The precision is the least number of digits; 0 printed with precision 0 is nothing.
    let precision = spec.precision.unwrap_or(1);
    if magnitude == 0 && precision == 0 {
        text.clear();
    }
    if text.len() < precision {
        let mut z = vec![b'0'; precision - text.len()];
        z.extend(text);
        text = z;
    }
    let mut prefix = if signed {
        sign(negative, spec)
    } else {
        Vec::new()
    };
    if spec.alt {
        match conv {
            // `#o`: the first digit is a zero.
            b'o' if text.first() != Some(&b'0') => text.insert(0, b'0'),
            b'x' if magnitude != 0 => prefix.extend(b"0x"),
            b'X' if magnitude != 0 => prefix.extend(b"0X"),
            _ => {}
        }
    }
    let zeros = spec.zero && !spec.left && spec.precision.is_none();
    pad(spec, prefix, text, zeros)
}

/// A floating conversion of `v`.
fn floating(conv: u8, v: f64, spec: &Spec) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let negative = v.is_sign_negative();
    let prefix = sign(negative, spec);
    if !v.is_finite() {
        let word = match (v.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        return pad(spec, prefix, word.as_bytes().to_vec(), false);
    }
    let a = v.abs();
    let precision = spec.precision.unwrap_or(6);
    let text = match conv.to_ascii_lowercase() {
        b'f' => fixed(a, precision, spec.alt),
        b'e' => exponent(a, precision, spec.alt, upper),
        _ => general(a, precision, spec.alt, upper),
    };
    let zeros = spec.zero && !spec.left;
    pad(spec, prefix, text.into_bytes(), zeros)
}

/// Digits past which a `double`'s exact decimal expansion is all zeros: it has at most 1074
/// digits after the point and 767 significant ones. Rust's formatter takes a precision of at
/// most 65535, glibc any: past this many the digits are zeros, appended.
const EXACT_DIGITS: usize = 1100;

/// `s`, formatted with at most [`EXACT_DIGITS`] of `precision`, with the zeros that stand for
/// the rest appended to its digits (before any exponent).
fn with_zeros(precision: usize, f: impl FnOnce(usize) -> String) -> String {
    let shown = precision.min(EXACT_DIGITS);
    let mut s = f(shown);
    if precision > shown {
        let zeros = "0".repeat(precision - shown);
        match s.find('e') {
            Some(i) => s.insert_str(i, &zeros),
            None => s.push_str(&zeros),
        }
    }
    s
}

/// `%f` of a non-negative finite `a`: `precision` digits after the point.
fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let mut s = with_zeros(precision, |p| format!("{a:.p$}"));
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// `%e` of a non-negative finite `a`: one digit, the point, `precision` digits, and an
/// exponent of at least two digits.
fn exponent(a: f64, precision: usize, alt: bool, upper: bool) -> String {
    let (mantissa, exp) = scientific(a, precision);
    let mut s = mantissa;
    if alt && precision == 0 {
        s.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{s}{e}{sign}{:02}", exp.unsigned_abs())
}

/// `a` rounded to `precision` digits after the first, as Rust's exact formatting gives it:
/// the digits and the decimal exponent.
fn scientific(a: f64, precision: usize) -> (String, i32) {
    let s = with_zeros(precision, |p| format!("{a:.p$e}"));
    match s.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse().unwrap_or(0)),
        None => (s, 0),
    }
}

/// `%g` of a non-negative finite `a`: `%e` or `%f` by the exponent `%e` would print, at
/// `precision` significant digits, trailing zeros removed unless `alt`.
fn general(a: f64, precision: usize, alt: bool, upper: bool) -> String {
    let p = precision.max(1);
    let (_, x) = scientific(a, p - 1);
    let x = if a == 0.0 { 0 } else { x };
    let p = p as i64;
    let x64 = i64::from(x);
    let mut s = if p > x64 && x64 >= -4 {
        fixed(a, (p - 1 - x64) as usize, alt)
    } else {
        exponent(a, (p - 1) as usize, alt, upper)
    };
    if !alt {
        let (digits, rest) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let digits = if digits.contains('.') {
            digits
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            digits
        };
        s = digits + &rest;
    }
    s
}
