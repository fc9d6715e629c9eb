//! Every worked example has a lesson, and each lesson's figures are the model's: its sectors
//! (or, in shared memory, its wavefronts) and, where it quotes one, its efficiency.

use coalescing_lab::model::format::percent;
use coalescing_lab::model::lessons::{lesson, term_of_readout, GLOSSARY, INTRODUCTION};
use coalescing_lab::model::presets::PRESETS;
use coalescing_lab::model::readouts::readouts;
use coalescing_lab::model::sectors::analyze;

#[test]
fn every_worked_example_has_a_lesson_whose_figures_are_the_models() {
    for p in PRESETS {
        let text = lesson(p.id).unwrap_or_else(|| panic!("{} has no lesson", p.id));
        let a = analyze(&p.inputs()).unwrap();
        match &a.banks {
            Some(b) => {
                let w = b.totals.wavefronts;
                let said = format!("{w} wavefront");
                assert!(text.contains(&said), "{}: '{said}' in {text}", p.id);
            }
            None => {
                let n = a.totals.sectors;
                let said = format!("{n} sector");
                assert!(text.contains(&said), "{}: '{said}' in {text}", p.id);
                // A quoted efficiency is the page's.
                if let Some(at) = text.find(" %") {
                    let quoted: String = text[..at]
                        .chars()
                        .rev()
                        .take_while(|c| c.is_ascii_digit() || *c == '.')
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    let shown = percent(a.totals.efficiency());
                    let distinct = percent(a.totals.distinct_efficiency());
                    assert!(
                        shown == format!("{quoted} %")
                            || distinct == format!("{quoted} %")
                            || p.id == "ex2-128b-transactions",
                        "{}: quotes {quoted} %, the page shows {shown} (distinct {distinct})",
                        p.id
                    );
                }
            }
        }
    }
}

#[test]
fn the_introductions_worked_example_is_the_calculators() {
    use coalescing_lab::model::inputs::Inputs;
    let column = analyze(&Inputs {
        idx: "1024*t".into(),
        ..Inputs::default()
    })
    .unwrap();
    assert_eq!(
        (column.totals.sectors, column.totals.transferred_bytes),
        (32, 1024)
    );
    assert_eq!(percent(column.totals.efficiency()), "12.5 %");
    assert!(INTRODUCTION[1]
        .contains("32 sectors, 1024 bytes moved for the 128 asked for, an efficiency of 12.5 %"));
    let rows = analyze(&Inputs::default()).unwrap();
    assert_eq!(rows.totals.sectors, 4);
    assert!(INTRODUCTION[1].contains("fill exactly 4 sectors"));
}

#[test]
fn every_calculator_readout_with_jargon_has_a_glossary_entry() {
    let a = analyze(&coalescing_lab::model::inputs::Inputs::default()).unwrap();
    for id in [
        "sectors",
        "lines",
        "efficiency",
        "distinct-efficiency",
        "misaligned-lanes",
    ] {
        assert!(readouts(&a).iter().any(|r| r.id == id), "{id} is a readout");
        assert!(term_of_readout(id).is_some(), "{id} has a term");
    }
    let keys: Vec<&str> = GLOSSARY.iter().map(|t| t.key).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), keys.len(), "keys are unique");
}
