//! The lane table's rows as text (`markup::lane_rows`) say what the rows say: read back with a
//! small parser of their own, every row's attributes, classes and cells equal the `LaneRow` they
//! came from, for every course preset in global and shared memory, answered and withheld.

use coalescing_lab::markup::{escape, lane_rows};
use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::presets::PRESETS;
use coalescing_lab::model::readouts::{self, LaneRow};
use coalescing_lab::model::sectors::analyze;
use proptest::prelude::*;

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// One parsed row: its attributes in order, and its cells' (class, text) after the header.
struct Parsed {
    attributes: Vec<(String, String)>,
    header: String,
    cells: Vec<(String, String)>,
}

fn parse(html: &str) -> Vec<Parsed> {
    let mut rows = Vec::new();
    for piece in html.split("</tr>").filter(|p| !p.is_empty()) {
        let open = piece.strip_prefix("<tr").expect("a row opens with <tr");
        let (head, rest) = open.split_once('>').expect("the row's tag closes");
        let mut attributes = Vec::new();
        let mut head = head.trim_start();
        while let Some((name, after)) = head.split_once("=\"") {
            let (value, after) = after.split_once('"').expect("a quoted value");
            attributes.push((name.trim().to_string(), unescape(value)));
            head = after.trim_start();
        }
        assert!(head.is_empty(), "left in the tag: {head}");
        let rest = rest
            .strip_prefix("<th scope=\"row\">")
            .expect("the lane's header cell");
        let (header, mut rest) = rest.split_once("</th>").expect("the header closes");
        let mut cells = Vec::new();
        while let Some(after) = rest.strip_prefix("<td class=\"") {
            let (class, after) = after.split_once("\">").expect("a cell's class");
            let (text, after) = after.split_once("</td>").expect("a cell closes");
            cells.push((class.to_string(), unescape(text)));
            rest = after;
        }
        assert!(rest.is_empty(), "left in the row: {rest}");
        rows.push(Parsed {
            attributes,
            header: header.to_string(),
            cells,
        });
    }
    rows
}

fn check(rows: &[LaneRow]) {
    let parsed = parse(&lane_rows(rows));
    assert_eq!(parsed.len(), rows.len());
    for (row, p) in rows.iter().zip(&parsed) {
        let shared = !row.words_text.is_empty();
        let mut expected = vec![
            ("data-testid".to_string(), "lane-row".to_string()),
            ("data-lane".into(), row.lane.to_string()),
            ("data-active".into(), row.active.to_string()),
            ("data-address".into(), row.address.clone()),
            ("data-sectors".into(), row.sectors.clone()),
        ];
        if shared {
            expected.push(("data-bank".into(), row.banks.clone()));
            expected.push(("data-conflicted".into(), row.conflicted.to_string()));
        }
        let classes: Vec<&str> = [
            (!row.active, "inactive"),
            (row.conflicted, "conflicted"),
            (!row.aligned, "misaligned"),
        ]
        .into_iter()
        .filter_map(|(on, c)| on.then_some(c))
        .collect();
        if !classes.is_empty() {
            expected.push(("class".into(), classes.join(" ")));
        }
        assert_eq!(p.attributes, expected, "lane {}", row.lane);
        assert_eq!(p.header, row.lane.to_string());
        let (first, second) = if shared {
            let banks = if row.active && !row.banks.is_empty() {
                row.banks.replace(',', ", ")
            } else {
                row.words_text.clone()
            };
            (row.words_text.clone(), banks)
        } else {
            (row.sectors_text.clone(), row.lines_text.clone())
        };
        let straddles = if row.straddles {
            "mono straddles"
        } else {
            "mono"
        };
        let expected_cells: Vec<(String, String)> = [
            ("mono", row.address_hex.clone()),
            (straddles, first),
            ("mono", second),
            ("mono", row.address.clone()),
            ("mono", row.bytes.clone()),
        ]
        .into_iter()
        .map(|(c, t)| (c.to_string(), t))
        .collect();
        assert_eq!(p.cells, expected_cells, "lane {}", row.lane);
    }
}

#[test]
fn every_preset_s_rows_read_back_as_its_lane_rows_in_both_spaces_answered_and_withheld() {
    for preset in PRESETS.iter() {
        for space in ["global", "shared"] {
            let inputs = Inputs { space: space.into(), ..preset.inputs() };
            let Ok(analysis) = analyze(&inputs) else {
                continue;
            };
            let rows = readouts::lane_rows(&analysis);
            check(&rows);
            check(&rows.into_iter().map(LaneRow::withheld).collect::<Vec<_>>());
        }
    }
}

#[test]
fn an_inactive_lane_and_a_straddling_one_keep_their_classes() {
    let two = Inputs {
        warp: "2".into(),
        addrs: "30, -".into(),
        ..Inputs::default()
    };
    let rows = readouts::lane_rows(&analyze(&two).unwrap());
    check(&rows);
    let html = lane_rows(&rows);
    assert!(html.contains("class=\"misaligned\""));
    assert!(html.contains("class=\"inactive\""));
    assert!(html.contains("<td class=\"mono straddles\">"));
}

proptest! {
    #[test]
    fn escaped_text_has_no_markup_left_and_reads_back(text in ".{0,200}") {
        let mut out = String::new();
        escape(&text, &mut out);
        prop_assert!(!out.contains(['<', '>', '"', '\'']));
        prop_assert_eq!(unescape(&out), text);
    }
}
