//! Markup the page writes whole, as text. The calculator's lane table has up to 64 rows that
//! change on every keystroke and carry no handler of their own (the table's one listener serves
//! them all), so one `innerHTML` builds them instead of a few hundred DOM calls from the wasm.
//! Pure: std only, every text escaped here, tested natively (`tests/markup.rs`).

use crate::model::readouts::LaneRow;

/// Appends `text` to `out`, escaped for an HTML text node or a double-quoted attribute value.
///
/// ```
/// let mut out = String::new();
/// coalescing_lab::markup::escape("a<b & \"c\" 'd'>", &mut out);
/// assert_eq!(out, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
/// ```
pub fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// Appends ` name="value"` to `out`, the value escaped.
fn attribute(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    escape(value, out);
    out.push('"');
}

/// Appends `<td class="…">text</td>` to `out`.
fn cell(out: &mut String, class: &str, text: &str) {
    out.push_str("<td class=\"");
    out.push_str(class);
    out.push_str("\">");
    escape(text, out);
    out.push_str("</td>");
}

/// The lane table's rows (`data-testid="lane-row"`), in order: a row a lane with its
/// `data-lane`, `data-active`, `data-address` and `data-sectors`, and in shared memory
/// `data-bank` and `data-conflicted`; the classes `inactive`, `conflicted` and `misaligned`;
/// then the lane, the hex address, the sectors (or words) and lines (or banks), the decimal
/// address and the bytes requested.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, readouts::lane_rows, sectors::analyze};
/// let two = Inputs { warp: "2".into(), addrs: "30, -".into(), ..Inputs::default() };
/// let html = coalescing_lab::markup::lane_rows(&lane_rows(&analyze(&two).unwrap()));
/// assert!(html.starts_with(
///     "<tr data-testid=\"lane-row\" data-lane=\"0\" data-active=\"true\" data-address=\"30\" \
///      data-sectors=\"0,1\" class=\"misaligned\"><th scope=\"row\">0</th>"
/// ));
/// assert!(html.contains("<td class=\"mono straddles\">0, 1</td>"));
/// assert!(html.ends_with("<td class=\"mono\">—</td></tr>"));
/// ```
pub fn lane_rows(rows: &[LaneRow]) -> String {
    let mut out = String::with_capacity(rows.len() * 320);
    for row in rows {
        let in_shared = !row.words_text.is_empty();
        out.push_str("<tr data-testid=\"lane-row\"");
        attribute(&mut out, "data-lane", &row.lane.to_string());
        attribute(
            &mut out,
            "data-active",
            if row.active { "true" } else { "false" },
        );
        attribute(&mut out, "data-address", &row.address);
        attribute(&mut out, "data-sectors", &row.sectors);
        if in_shared {
            attribute(&mut out, "data-bank", &row.banks);
            attribute(
                &mut out,
                "data-conflicted",
                if row.conflicted { "true" } else { "false" },
            );
        }
        let classes: Vec<&str> = [
            (!row.active, "inactive"),
            (row.conflicted, "conflicted"),
            (!row.aligned, "misaligned"),
        ]
        .into_iter()
        .filter_map(|(on, class)| on.then_some(class))
        .collect();
        if !classes.is_empty() {
            attribute(&mut out, "class", &classes.join(" "));
        }
        out.push_str("><th scope=\"row\">");
        out.push_str(&row.lane.to_string());
        out.push_str("</th>");
        let (first, second) = if in_shared {
            let banks = if row.active && !row.banks.is_empty() {
                row.banks.replace(',', ", ")
            } else {
                row.words_text.clone()
            };
            (row.words_text.clone(), banks)
        } else {
            (row.sectors_text.clone(), row.lines_text.clone())
        };
        cell(&mut out, "mono", &row.address_hex);
        cell(
            &mut out,
            if row.straddles {
                "mono straddles"
            } else {
                "mono"
            },
            &first,
        );
        cell(&mut out, "mono", &second);
        cell(&mut out, "mono", &row.address);
        cell(&mut out, "mono", &row.bytes);
        out.push_str("</tr>");
    }
    out
}
