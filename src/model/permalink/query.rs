//! The query string's text: `key=value` pairs split at `&`, percent-encoded. This is the one
//! percent-encoder of the crate: the page's links and the CLI's typed queries both use it.

/// Splits `a=1&b=2` into decoded pairs, as `application/x-www-form-urlencoded` does.
pub(super) fn pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
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

/// Percent-encodes everything but characters that read well in a query and mean nothing there:
/// `&`, `=`, `+`, `%`, `#` and spaces are always encoded, so any text comes back unchanged.
///
/// ```
/// use coalescing_lab::model::permalink::escape;
/// assert_eq!(escape("t<16 ? t : 1000+64*(t-16)"), "t%3C16%20?%20t%20:%201000%2B64*(t-16)");
/// assert_eq!(escape("a=1&b"), "a%3D1%26b");
/// // Degenerate input: nothing to encode.
/// assert_eq!(escape(""), "");
/// ```
pub fn escape(text: &str) -> String {
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
