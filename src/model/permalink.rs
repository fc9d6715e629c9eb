//! Permalinks: the page's state as a URL query string and back.
//!
//! Parameter names are a public contract (README, "Permalinks"): course pages link to them
//! for years. Values travel as the raw text of each field, so a bad value reaches its field
//! and is reported there. Unknown parameters are ignored; a repeated one keeps its last value.
//! Encoding writes only values that differ from the default, in a fixed order.

use super::inputs::{Field, Inputs};
use super::roofline::Lab;

/// The panel on show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tab {
    #[default]
    Calculator,
    Roofline,
}

impl Tab {
    /// The `tab` parameter's value; the calculator is the default and is omitted.
    pub fn param(self) -> &'static str {
        match self {
            Tab::Calculator => "calculator",
            Tab::Roofline => "roofline",
        }
    }
}

/// Everything a permalink carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// `tab`: the panel on show.
    pub tab: Tab,
    /// The sector calculator's inputs.
    pub calc: Inputs,
    /// The Roofline lab: `oi`, `bw` and `trail`. The prediction in progress is not carried;
    /// a stepped prediction travels inside its trail entry.
    pub lab: Lab,
}

/// Reads a query string, with or without its leading `?`. Never fails.
///
/// ```
/// use coalescing_lab::model::permalink::decode;
/// let state = decode("?idx=t%3C16+%3F+t+%3A+0&base=0x8&bogus=1");
/// assert_eq!(state.calc.idx, "t<16 ? t : 0");
/// assert_eq!(state.calc.base, "0x8");
/// // Degenerate input: an empty query is the default state.
/// assert_eq!(decode(""), Default::default());
/// ```
pub fn decode(query: &str) -> State {
    let mut state = State::default();
    for (key, value) in pairs(query) {
        match key.as_str() {
            "tab" if value == Tab::Roofline.param() => state.tab = Tab::Roofline,
            "tab" => state.tab = Tab::Calculator,
            "oi" => state.lab.oi = value,
            "bw" => state.lab.bw = value,
            "trail" => state.lab.trail = value,
            _ => {
                if let Some(field) = Field::from_param(&key) {
                    state.calc.set(field, value);
                }
            }
        }
    }
    state
}

/// Writes the query string (without `?`) for `state`, omitting defaults.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, permalink::{encode, State}};
/// let calc = Inputs { idx: "31-t".into(), base: "8".into(), ..Inputs::default() };
/// assert_eq!(encode(&State { calc, ..State::default() }), "base=8&idx=31-t");
/// assert_eq!(encode(&State::default()), "");
/// ```
pub fn encode(state: &State) -> String {
    let calc_defaults = Inputs::default();
    let lab_defaults = Lab::default();
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if state.tab != Tab::default() {
        pairs.push(("tab", state.tab.param()));
    }
    for field in Field::ALL {
        if state.calc.get(field) != calc_defaults.get(field) {
            pairs.push((field.param(), state.calc.get(field)));
        }
    }
    for (key, value, default) in [
        ("oi", &state.lab.oi, &lab_defaults.oi),
        ("bw", &state.lab.bw, &lab_defaults.bw),
        ("trail", &state.lab.trail, &lab_defaults.trail),
    ] {
        if value != default {
            pairs.push((key, value));
        }
    }
    pairs
        .into_iter()
        .map(|(key, value)| format!("{key}={}", escape(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Splits `a=1&b=2` into decoded pairs, as `application/x-www-form-urlencoded` does.
fn pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query
        .strip_prefix('?')
        .unwrap_or(query)
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (unescape(key), unescape(value))
        })
}

/// Percent-decodes, with `+` as a space; a malformed escape is kept literally.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                if let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) {
                    out.push((hi * 16 + lo) as u8);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            _ => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but characters that read well in a query and mean nothing there.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'-' | b'.' | b'_' | b'~' | b'*' | b'(' | b')' | b',' | b':' | b'/' | b'?' | b'!'
            | b'@' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
