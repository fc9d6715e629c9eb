//! How numbers are written: on screen for people, in `data-value` for scripts.
//!
//! Machine values are plain: integers in decimal, ratios as the shortest decimal that
//! round-trips an f64 (so 0.8, never 80 %), and an empty string when undefined.
//!
//! Every rounding, plural and size helper lives here and nowhere else.

use super::ratio::Ratio;

/// [`shortest`] and the percentages' text without core's float formatting, for the first-result
/// module (the `lean-floats` feature).
#[cfg(any(test, feature = "lean-floats"))]
mod lean;

/// A ratio for `data-value`: the shortest round-tripping decimal, or empty when undefined.
///
/// ```
/// use coalescing_lab::model::{format::ratio_value, sectors::Ratio};
/// assert_eq!(ratio_value(Some(Ratio { numerator: 128, denominator: 160 })), "0.8");
/// assert_eq!(ratio_value(Some(Ratio { numerator: 128, denominator: 576 })), "0.2222222222222222");
/// assert_eq!(ratio_value(None), "");
/// ```
pub fn ratio_value(ratio: Option<Ratio>) -> String {
    ratio.map(|r| shortest(r.value())).unwrap_or_default()
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
    format!("{} %", tenths_text(percent_tenths(r.value())))
}

/// `x` as `f64`'s `Display` writes it: the shortest decimal that reads back as `x`, never in
/// exponent form (`0.2222222222222222`, `160`, `0.0000001`, `-0`, `NaN`, `inf`).
///
/// ```
/// use coalescing_lab::model::format::shortest;
/// for x in [0.8, 128.0 / 576.0, 1e-7, 1e21, 5e-324, -0.0, f64::MAX, f64::NAN, f64::NEG_INFINITY] {
///     assert_eq!(shortest(x), x.to_string());
/// }
/// ```
pub fn shortest(x: f64) -> String {
    #[cfg(feature = "lean-floats")]
    return lean::shortest(x);
    #[cfg(not(feature = "lean-floats"))]
    x.to_string()
}

/// A percentage in tenths ([`percent_tenths`] of a ratio of two `u64`s) as `{:.0}` writes it
/// when whole and `{:.1}` otherwise.
fn tenths_text(tenths: f64) -> String {
    #[cfg(feature = "lean-floats")]
    return lean::tenths(tenths);
    #[cfg(not(feature = "lean-floats"))]
    if tenths.fract() == 0.0 {
        format!("{tenths:.0}")
    } else {
        format!("{tenths:.1}")
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
pub fn runs(spans: &[super::span::Span], most: usize) -> String {
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

/// A fraction as a percentage rounded to one decimal: 0.33333 → 33.3.
///
/// ```
/// use coalescing_lab::model::format::percent_tenths;
/// assert_eq!(percent_tenths(1.0 / 3.0), 33.3);
/// assert_eq!(percent_tenths(0.0), 0.0);
/// ```
pub fn percent_tenths(fraction: f64) -> f64 {
    (fraction * 1000.0).round() / 10.0
}

/// A float for people and for `data-value`: the shortest text that round-trips, with at most
/// 6 significant digits for values that don't terminate.
///
/// ```
/// use coalescing_lab::model::format::number;
/// assert_eq!(number(160.0), "160");
/// assert_eq!(number(12.5), "12.5");
/// assert_eq!(number(1000.0 / 3.0), "333.333");
/// ```
pub fn number(value: f64) -> String {
    let short = shortest(value);
    if short.len() <= 10 {
        return short;
    }
    let digits = 6 - (value.abs().log10().floor() as i32 + 1).clamp(-6, 6);
    let fixed = format!("{value:.prec$}", prec = digits.max(0) as usize);
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

/// `value` rounded to `places` decimals, for sentences.
///
/// ```
/// use coalescing_lab::model::format::round_to;
/// assert_eq!(round_to(6.789, 1), 6.8);
/// assert_eq!(round_to(0.0, 2), 0.0);
/// ```
pub fn round_to(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// `value` to `digits` significant digits; zero and non-finite values unchanged.
///
/// ```
/// use coalescing_lab::model::format::round_sig;
/// assert_eq!(round_sig(123.456, 4), 123.5);
/// assert_eq!(round_sig(0.0, 3), 0.0);
/// ```
pub fn round_sig(value: f64, digits: i32) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let magnitude = value.abs().log10().floor() as i32 + 1;
    round_to(value, digits - magnitude)
}

/// Bytes as people read them: `128 MiB`, `4 GiB`, `512 KiB`, or plain bytes.
///
/// ```
/// use coalescing_lab::model::format::size_text;
/// assert_eq!(size_text(128 << 20), "128 MiB");
/// assert_eq!(size_text((4 << 30) + 3840), "4 GiB");
/// assert_eq!(size_text((64 << 20) + 3840), "64 MiB");
/// assert_eq!(size_text(528_128), "515.8 KiB");
/// assert_eq!(size_text(1000), "1000 B");
/// assert_eq!(size_text(0), "0 B");
/// ```
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if bytes >= size {
            return format!("{} {unit}", number(round_to(bytes as f64 / size as f64, 1)));
        }
    }
    format!("{bytes} B")
}

/// Bytes exactly, as people read them: in KiB, MiB or GiB when that unit writes the count
/// exactly (with at most one decimal), otherwise the bytes with their thousands grouped.
///
/// ```
/// use coalescing_lab::model::format::bytes_text;
/// assert_eq!(bytes_text(134_217_728), "128 MiB");
/// assert_eq!(bytes_text(3 << 29), "1.5 GiB");
/// assert_eq!(bytes_text(528_128), "528\u{202f}128 B");
/// assert_eq!(bytes_text(4000), "4000 B");
/// assert_eq!(bytes_text(0), "0 B");
/// ```
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if bytes >= size && (u128::from(bytes) * 10).is_multiple_of(u128::from(size)) {
            let tenths = u128::from(bytes) * 10 / u128::from(size);
            return if tenths.is_multiple_of(10) {
                format!("{} {unit}", tenths / 10)
            } else {
                format!("{}.{} {unit}", tenths / 10, tenths % 10)
            };
        }
    }
    let digits = bytes.to_string();
    if digits.len() <= 4 {
        return format!("{digits} B");
    }
    // Groups of three from the right, joined by a narrow no-break space.
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out + " B"
}

/// `text` with its first letter in capitals, for our own sentences and labels (ASCII: the
/// Unicode case tables would cost the first load 7 KB gzip).
///
/// ```
/// use coalescing_lab::model::format::capitalize;
/// assert_eq!(capitalize("threads per block"), "Threads per block");
/// assert_eq!(capitalize(""), "");
/// ```
pub fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| {
            std::iter::once(first.to_ascii_uppercase())
                .chain(chars)
                .collect()
        })
        .unwrap_or_default()
}

/// Longest word kept whole in a message; longer ones keep their start and say how long they
/// were.
const LONGEST_WORD: usize = 64;

/// `text` with every word (a run without spaces) over 64 characters cut to its first 48 and
/// its length, e.g. an echoed value of 10 000 characters.
///
/// ```
/// use coalescing_lab::model::format::clip_long_words;
/// let long = "x".repeat(10_000);
/// assert_eq!(
///     clip_long_words(&format!("found '{long}'; using 4")),
///     format!("found '{}… (10003 characters) using 4", "x".repeat(47))
/// );
/// assert_eq!(clip_long_words("short words stay"), "short words stay");
/// ```
pub fn clip_long_words(text: &str) -> String {
    if !text.split(' ').any(|w| w.chars().count() > LONGEST_WORD) {
        return text.to_string();
    }
    text.split(' ')
        .map(|word| {
            let n = word.chars().count();
            if n > LONGEST_WORD {
                let start: String = word.chars().take(48).collect();
                format!("{start}… ({n} characters)")
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` as HTML text or attribute value, appended to `html`: `&`, `<`, `>`, `"` and `'`
/// escaped, so that no text can become markup.
///
/// ```
/// use coalescing_lab::model::format::html_escape_into;
/// let mut html = String::new();
/// html_escape_into(&mut html, "<b a='1'>&\"");
/// assert_eq!(html, "&lt;b a=&#39;1&#39;&gt;&amp;&quot;");
/// ```
pub fn html_escape_into(html: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            '\'' => html.push_str("&#39;"),
            c => html.push(c),
        }
    }
}
