//! Output: aligned text, CSV, Markdown and JSON for the subcommands' tables and readouts.

use crate::cli::Style;
use coalescing_lab::model::readouts::Readout;

/// A table in `style` (text columns, CSV or Markdown).
pub(crate) fn table(
    style: Style,
    header: &[&str],
    rows: impl Iterator<Item = Vec<String>>,
) -> String {
    let rows: Vec<Vec<String>> = rows.collect();
    match style {
        Style::Csv => {
            let mut csv = coalescing_lab::model::csv::Csv::default();
            csv.row(header.iter().map(|h| h.to_string()));
            for r in rows {
                csv.row(r);
            }
            csv.finish()
        }
        Style::Markdown | Style::Json => {
            let cell = |s: &str| s.replace('|', "\\|");
            let mut s = format!(
                "\n| {} |\n|{}\n",
                header.join(" | "),
                "---|".repeat(header.len())
            );
            for r in rows {
                s.push_str(&format!(
                    "| {} |\n",
                    r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
                ));
            }
            s
        }
        Style::Text => {
            let widths: Vec<usize> = (0..header.len())
                .map(|c| {
                    rows.iter()
                        .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                        .chain([header[c].chars().count()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: Vec<String>| {
                cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
            };
            let mut s = format!(
                "\n{}\n",
                line(header.iter().map(|h| h.to_string()).collect())
            );
            for r in rows {
                s.push_str(&line(r));
                s.push('\n');
            }
            s
        }
    }
}

pub(crate) fn text_readouts(r: &[Readout]) -> String {
    r.iter()
        .map(|r| format!("{:<22} {:<16} {}\n", r.label, r.text, r.detail))
        .collect()
}

pub(crate) fn markdown_readouts(r: &[Readout]) -> String {
    let mut s = String::from("| result | value | how |\n|---|---|---|\n");
    for r in r {
        s.push_str(&format!("| {} | {} | {} |\n", r.label, r.text, r.detail));
    }
    s
}

/// The readouts as a JSON object keyed by their `data-testid`: numbers plainly, `null` when
/// undefined.
pub(crate) fn json_readouts(r: &[Readout]) -> String {
    let fields: Vec<String> = r
        .iter()
        .map(|r| format!("{}:{}", json_string(r.id), json_value(&r.value)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

fn json_value(value: &str) -> String {
    let numeric = !value.is_empty()
        && value.parse::<f64>().is_ok_and(f64::is_finite)
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+'))
        && !value.starts_with('.')
        && !value.starts_with('+');
    if value.is_empty() {
        "null".into()
    } else if numeric {
        value.to_string()
    } else {
        json_string(value)
    }
}

pub(crate) fn json_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| json_string(s))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// `text` as a JSON string literal.
pub(crate) fn json_string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}
