//! The probe's fields as typed (`strides`, `n`) and their checks: every error names its field
//! and says what is accepted.

use super::{DEFAULT_STRIDES, MAX_N, MAX_STRIDE, MAX_STRIDES, MIN_N};
use crate::model::error::{FieldError, FieldName};

/// The probe's fields as typed, one string per URL parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeInputs {
    /// `strides`: comma-separated lane strides in bytes.
    pub strides: String,
    /// `n`: useful floats per dispatch; empty means as many as the device allows.
    pub n: String,
}

impl Default for ProbeInputs {
    fn default() -> ProbeInputs {
        ProbeInputs {
            strides: DEFAULT_STRIDES.into(),
            n: String::new(),
        }
    }
}

/// One field of the probe, named by its URL parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeField {
    /// The `strides` field: comma-separated lane strides in bytes.
    Strides,
    /// The `n` field: useful floats per dispatch.
    N,
}

impl ProbeField {
    /// The URL parameter: a public contract.
    pub fn param(self) -> &'static str {
        match self {
            ProbeField::Strides => "strides",
            ProbeField::N => "n",
        }
    }
}

/// A problem with one probe field; its messages are whole sentences.
pub type ProbeError = FieldError<ProbeField>;

impl FieldName for ProbeField {
    fn param(self) -> impl std::fmt::Display {
        ProbeField::param(self)
    }

    const SENTENCES: bool = true;
}

/// The probe's checked configuration: strides ascending without repeats, and `n` if given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Lane strides in bytes, ascending without repeats, each 4 to 4096 and a multiple of 4.
    pub strides: Vec<u32>,
    /// Useful floats per dispatch; `None` lets the plan take the most the device allows.
    pub n: Option<u32>,
}

impl ProbeInputs {
    /// Checks both fields; every error names its field.
    ///
    /// ```
    /// use coalescing_lab::model::probe::ProbeInputs;
    /// let ok = ProbeInputs { strides: "128, 4,32,32".into(), n: "4096".into() }.check().unwrap();
    /// assert_eq!((ok.strides, ok.n), (vec![4, 32, 128], Some(4096)));
    /// let bad = ProbeInputs { strides: "4,6".into(), n: "lots".into() }.check().unwrap_err();
    /// assert_eq!(bad[0].to_string(), "strides: 6 is not a multiple of 4 bytes; each stride must be 4 to 4096, a multiple of 4.");
    /// assert!(bad[1].to_string().starts_with("n: "));
    /// ```
    pub fn check(&self) -> Result<Config, Vec<ProbeError>> {
        let strides = parse_strides(&self.strides);
        let n = parse_n(&self.n);
        match (strides, n) {
            (Ok(strides), Ok(n)) => Ok(Config { strides, n }),
            (strides, n) => Err([strides.err(), n.err()].into_iter().flatten().collect()),
        }
    }
}

const STRIDE_RULE: &str = "each stride must be 4 to 4096, a multiple of 4";

fn parse_strides(text: &str) -> Result<Vec<u32>, ProbeError> {
    let error = |message: String| ProbeError::new(ProbeField::Strides, message);
    let mut strides = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let digits = item.strip_suffix('B').unwrap_or(item).trim();
        let Some(stride) = digits
            .parse::<u32>()
            .ok()
            .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
        else {
            return Err(error(format!(
                "'{}' is not a whole number of bytes; {STRIDE_RULE}",
                shorten(item)
            )));
        };
        if !(4..=MAX_STRIDE).contains(&stride) {
            return Err(error(format!("{stride} is out of range; {STRIDE_RULE}")));
        }
        if stride % 4 != 0 {
            return Err(error(format!(
                "{stride} is not a multiple of 4 bytes; {STRIDE_RULE}"
            )));
        }
        strides.push(stride);
    }
    strides.sort_unstable();
    strides.dedup();
    if strides.is_empty() {
        return Err(error(format!(
            "give at least one stride, e.g. {DEFAULT_STRIDES}; {STRIDE_RULE}"
        )));
    }
    if strides.len() > MAX_STRIDES {
        return Err(error(format!(
            "{} strides is too many; give at most {MAX_STRIDES}",
            strides.len()
        )));
    }
    Ok(strides)
}

fn parse_n(text: &str) -> Result<Option<u32>, ProbeError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u32>() {
        Ok(n) if (MIN_N..=MAX_N).contains(&n) && text.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Some(n))
        }
        _ => Err(ProbeError::new(ProbeField::N, format!(
                "'{}' is not a whole number from {MIN_N} to {MAX_N} (2^20); leave it empty for as many as the device allows",
                shorten(text)
            ))),
    }
}

/// At most 24 characters of what was typed, for quoting it back.
fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(24).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}
