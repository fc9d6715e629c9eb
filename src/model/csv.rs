//! The one CSV dialect every export writes: RFC 4180 (comma separated, CRLF line ends, a field
//! quoted when it holds a comma, a quote or a line break, quotes inside doubled), optionally
//! preceded by `# key: value` comment lines that spreadsheets and scripts can skip.
//!
//! Knows nothing of what the columns mean: the exports (lane table, probe evidence) do.

use std::borrow::Cow;

/// A CSV document being written, row by row.
///
/// ```
/// use coalescing_lab::model::csv::Csv;
/// let mut csv = Csv::default();
/// csv.comment("adapter", "a\nb");
/// csv.row(["lane", "sectors"]);
/// csv.row(["0", "0,1"]);
/// assert_eq!(csv.finish(), "# adapter: a b\r\nlane,sectors\r\n0,\"0,1\"\r\n");
/// assert_eq!(Csv::default().finish(), "");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Csv {
    out: String,
}

impl Csv {
    /// A `# key: value` comment line; line breaks in the value become spaces, so a comment is
    /// always one line.
    pub fn comment(&mut self, key: &str, value: &str) {
        self.out.push_str("# ");
        self.out.push_str(key);
        self.out.push_str(": ");
        self.out.push_str(&value.replace(['\n', '\r'], " "));
        self.out.push_str("\r\n");
    }

    /// One record: the fields, each quoted only where it must be.
    pub fn row<S: AsRef<str>>(&mut self, fields: impl IntoIterator<Item = S>) {
        for (i, value) in fields.into_iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push_str(&field(value.as_ref()));
        }
        self.out.push_str("\r\n");
    }

    /// The document.
    pub fn finish(self) -> String {
        self.out
    }
}

/// One field as RFC 4180 writes it: as is, or quoted with inner quotes doubled when it holds a
/// comma, a quote or a line break.
///
/// ```
/// use coalescing_lab::model::csv::field;
/// assert_eq!(field("12"), "12");
/// assert_eq!(field("0,1"), "\"0,1\"");
/// assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
/// assert_eq!(field(""), "");
/// ```
pub fn field(text: &str) -> Cow<'_, str> {
    let text = neutralised(text);
    if text.contains([',', '"', '\r', '\n']) {
        Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")))
    } else {
        text
    }
}

/// A field a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or
/// a carriage return) gets a leading `'`, as OWASP's "CSV Injection" page advises; a number
/// such as `-4` is left as it is, so numeric columns stay numbers.
///
/// ```
/// use coalescing_lab::model::csv::field;
/// assert_eq!(field("=HYPERLINK(\"http://e\")"), "\"'=HYPERLINK(\"\"http://e\"\")\"");
/// assert_eq!(field("@sum"), "'@sum");
/// assert_eq!(field("-4"), "-4");
/// assert_eq!(field("+1.5"), "+1.5");
/// ```
fn neutralised(text: &str) -> Cow<'_, str> {
    let risky = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && !is_decimal(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A signed decimal such as `-4` or `+1.5`: what the exports write in numeric columns. (Not
/// `str::parse::<f64>`, whose float parser would weigh on the first load.)
fn is_decimal(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}
