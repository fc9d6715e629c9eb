//! How numbers are written: on screen for people, in `data-value` for scripts.
//!
//! Machine values are plain: integers in decimal, ratios as the shortest decimal that
//! round-trips an f64 (so 0.8, never 80 %), and an empty string when undefined.

use super::sectors::Ratio;

/// A ratio for `data-value`: the shortest round-tripping decimal, or empty when undefined.
///
/// ```
/// use coalescing_lab::model::{format::ratio_value, sectors::Ratio};
/// assert_eq!(ratio_value(Some(Ratio { numerator: 128, denominator: 160 })), "0.8");
/// assert_eq!(ratio_value(Some(Ratio { numerator: 128, denominator: 576 })), "0.2222222222222222");
/// assert_eq!(ratio_value(None), "");
/// ```
pub fn ratio_value(ratio: Option<Ratio>) -> String {
    ratio.map(|r| r.value().to_string()).unwrap_or_default()
}

/// A ratio for people: a percentage with at most one decimal, or "n/a" when undefined.
///
/// ```
/// use coalescing_lab::model::{format::percent, sectors::Ratio};
/// assert_eq!(percent(Some(Ratio { numerator: 128, denominator: 32 })), "400 %");
/// assert_eq!(percent(Some(Ratio { numerator: 128, denominator: 384 })), "33.3 %");
/// assert_eq!(percent(None), "n/a");
/// ```
pub fn percent(ratio: Option<Ratio>) -> String {
    let Some(r) = ratio else {
        return "n/a".to_string();
    };
    let tenths = (r.value() * 1000.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0} %")
    } else {
        format!("{tenths:.1} %")
    }
}

/// An address in hex, as a debugger shows it.
///
/// ```
/// use coalescing_lab::model::format::hex;
/// assert_eq!(hex(4000), "0xfa0");
/// assert_eq!(hex(0), "0x0");
/// ```
pub fn hex(address: u64) -> String {
    format!("{address:#x}")
}

/// A list of indices as ranges, e.g. "0…3, 31, 62…63", giving at most `most` runs.
///
/// ```
/// use coalescing_lab::model::{format::runs, sectors::Span};
/// let spans = [Span { first: 0, last: 3 }, Span { first: 31, last: 31 }];
/// assert_eq!(runs(&spans, 8), "0…3, 31");
/// assert_eq!(runs(&spans, 1), "0…3, …");
/// assert_eq!(runs(&[], 8), "");
/// ```
pub fn runs(spans: &[super::sectors::Span], most: usize) -> String {
    let mut parts: Vec<String> = spans
        .iter()
        .take(most)
        .map(|s| {
            if s.first == s.last {
                s.first.to_string()
            } else {
                format!("{}…{}", s.first, s.last)
            }
        })
        .collect();
    if spans.len() > most {
        parts.push("…".to_string());
    }
    parts.join(", ")
}

/// Items joined as a sentence does: "a", "a and b", "a, b and c".
///
/// ```
/// use coalescing_lab::model::format::list_and;
/// assert_eq!(list_and(&["idx=t".to_string(), "warp=1".to_string()]), "idx=t and warp=1");
/// assert_eq!(list_and(&["a".into(), "b".into(), "c".into()]), "a, b and c");
/// assert_eq!(list_and(&[]), "");
/// ```
pub fn list_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The plural ending for a count: "" for 1, "s" otherwise ("1 lane", "2 lanes", "0 lanes").
///
/// ```
/// use coalescing_lab::model::format::plural;
/// assert_eq!((plural(1), plural(0), plural(2)), ("", "s", "s"));
/// ```
pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
