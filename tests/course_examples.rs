//! The course's worked examples are the spec: each row of the course's table, preset by preset.

use coalescing_lab::model::format::ratio_value;
use coalescing_lab::model::presets::{Preset, PRESETS};
use coalescing_lab::model::sectors::analyze;

/// One row of the course's table (warp 32, elem 4, line 128).
struct Row {
    preset: &'static str,
    idx: &'static str,
    base: &'static str,
    sector: &'static str,
    n_tx: u64,
    requested: u64,
    distinct: u64,
    transferred: u64,
    efficiency: f64,
    distinct_efficiency: f64,
    lines: u64,
}

#[rustfmt::skip]
const TABLE: [Row; 12] = [
    //    preset                    idx                           base  sector N_tx req  dist  xfer  eff     d.eff   lines
    row("ex1-sequential",        "t",                          "0", "32",  4,   128, 128, 128,  1.0,    1.0,    1),
    row("ex2-misaligned",        "t",                          "8", "32",  5,   128, 128, 160,  0.8,    0.8,    2),
    row("ex3-stride-2",          "2*t",                        "0", "32",  8,   128, 128, 256,  0.5,    0.5,    2),
    row("ex4-stride-sector",     "8*t",                        "0", "32",  32,  128, 128, 1024, 0.125,  0.125,  8),
    row("ex5-huge-stride",       "1024*t",                     "0", "32",  32,  128, 128, 1024, 0.125,  0.125,  32),
    row("ex6-reversed",          "31-t",                       "0", "32",  4,   128, 128, 128,  1.0,    1.0,    1),
    row("ex7-broadcast",         "0",                          "0", "32",  1,   128, 4,   32,   4.0,    0.125,  1),
    row("ex8a-column",           "t*1024",                     "0", "32",  32,  128, 128, 1024, 0.125,  0.125,  32),
    row("ex8b-mixed",            "t<16 ? t : 1000+64*(t-16)",  "0", "32",  18,  128, 128, 576,  0.2222, 0.2222, 17),
    row("ex9-aos-float3-x",      "3*t",                        "0", "32",  12,  128, 128, 384,  0.3333, 0.3333, 3),
    row("column-128b-rows",      "32*t",                       "0", "32",  32,  128, 128, 1024, 0.125,  0.125,  32),
    row("ex2-128b-transactions", "t",                          "8", "128", 2,   128, 128, 256,  0.5,    0.5,    2),
];

#[expect(
    clippy::too_many_arguments,
    reason = "a table row: one argument per column of the course's table"
)]
const fn row(
    preset: &'static str,
    idx: &'static str,
    base: &'static str,
    sector: &'static str,
    n_tx: u64,
    requested: u64,
    distinct: u64,
    transferred: u64,
    efficiency: f64,
    distinct_efficiency: f64,
    lines: u64,
) -> Row {
    Row {
        preset,
        idx,
        base,
        sector,
        n_tx,
        requested,
        distinct,
        transferred,
        efficiency,
        distinct_efficiency,
        lines,
    }
}

#[test]
fn every_preset_reproduces_its_row_of_the_course_table() {
    let global = PRESETS.iter().filter(|p| p.space == "global").count();
    assert_eq!(global, TABLE.len(), "one global preset per row");
    for row in &TABLE {
        let preset =
            Preset::by_id(row.preset).unwrap_or_else(|| panic!("no preset {}", row.preset));
        assert_eq!(
            (preset.idx, preset.base, preset.sector),
            (row.idx, row.base, row.sector),
            "{}",
            row.preset
        );
        let inputs = preset.inputs();
        assert_eq!(
            (
                inputs.warp.as_str(),
                inputs.elem.as_str(),
                inputs.line.as_str()
            ),
            ("32", "4", "128")
        );
        let analysis = analyze(&inputs).unwrap_or_else(|e| panic!("{}: {e:?}", row.preset));
        let t = analysis.totals;
        let name = row.preset;
        assert_eq!(t.active_lanes, 32, "{name}");
        assert_eq!(t.sectors, row.n_tx, "{name}: N_tx");
        assert_eq!(t.requested_bytes, row.requested, "{name}: requested");
        assert_eq!(t.distinct_bytes, row.distinct, "{name}: distinct");
        assert_eq!(t.transferred_bytes, row.transferred, "{name}: transferred");
        assert_eq!(t.lines, row.lines, "{name}: lines");
        // The course prints four decimals; the model is exact.
        let eff = t.efficiency().unwrap().value();
        let deff = t.distinct_efficiency().unwrap().value();
        assert!(
            (eff - row.efficiency).abs() < 5e-5,
            "{name}: efficiency {eff}"
        );
        assert!(
            (deff - row.distinct_efficiency).abs() < 5e-5,
            "{name}: distinct efficiency {deff}"
        );
        assert_eq!(
            t.misaligned_lanes, 0,
            "{name}: 4-byte floats at multiples of 4"
        );
    }
}

#[test]
fn ratios_are_written_exactly_for_scripts() {
    let value = |id| {
        ratio_value(
            analyze(&Preset::by_id(id).unwrap().inputs())
                .unwrap()
                .totals
                .efficiency(),
        )
    };
    assert_eq!(value("ex2-misaligned"), "0.8");
    assert_eq!(value("ex7-broadcast"), "4");
    assert_eq!(value("ex8b-mixed"), "0.2222222222222222");
    assert_eq!(value("ex9-aos-float3-x"), "0.3333333333333333");
}

#[test]
fn broadcast_counts_identical_requests_again_but_moves_one_sector() {
    let t = analyze(&Preset::by_id("ex7-broadcast").unwrap().inputs())
        .unwrap()
        .totals;
    assert!(t.is_broadcast());
    assert_eq!(
        (t.sectors, t.distinct_bytes, t.requested_bytes),
        (1, 4, 128)
    );
}

#[test]
fn mixed_pattern_derivation_lists_each_sector_run() {
    let a = analyze(&Preset::by_id("ex8b-mixed").unwrap().inputs()).unwrap();
    let steps = coalescing_lab::model::derivation::derive(&a);
    assert_eq!(steps[0], "A(t) = 4·(t<16 ? t : 1000+64*(t-16))");
    assert!(
        steps
            .contains(&"lanes touch sectors 0…1, 125, 133, 141, 149, 157, 165, 173, …".to_string()),
        "{steps:?}"
    );
    assert!(
        steps.contains(&"128 / 576 = 22.2 %".to_string()),
        "{steps:?}"
    );
}

#[test]
fn misaligned_start_derivation_reads_like_the_course() {
    let a = analyze(&Preset::by_id("ex2-misaligned").unwrap().inputs()).unwrap();
    let steps = coalescing_lab::model::derivation::derive(&a);
    assert_eq!(
        steps,
        [
            "A(t) = 8 + 4·t",
            "sector(t) = ⌊A(t)/32⌋",
            "lanes span sectors 0…4",
            "N_tx = 5",
            "transferred = 5 × 32 B = 160 B; requested = 32 lanes × 4 B = 128 B",
            "128 / 160 = 80 %",
            "line(t) = ⌊A(t)/128⌋ → 2 lines",
        ]
    );
}

#[test]
fn predictions_are_judged_in_the_right_direction() {
    use coalescing_lab::model::predict::{feedback, read};
    let ex4 = analyze(&Preset::by_id("ex4-stride-sector").unwrap().inputs()).unwrap();
    assert_eq!(
        feedback(&ex4, read("64", "0.0625").unwrap()),
        "Not quite: the warp touches 32 sectors, 32 fewer than your 64. Efficiency is 12.5 %, 6.3 points above your 6.3 % (your 0.0625 read as a ratio)."
    );
    assert_eq!(
        feedback(&ex4, read("32", "12.5%").unwrap()),
        "Right: the warp touches 32 sectors. Efficiency 12.5 %: right too (12.5 %, read as a percentage)."
    );
    let idle = analyze(&coalescing_lab::model::inputs::Inputs {
        active: "0".into(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        feedback(&idle, read("0", "50 %").unwrap()),
        "Right: the warp touches 0 sectors. Efficiency is undefined: no lane is active."
    );
    assert!(read("-1", "").is_err());
    assert_eq!(
        read("4", "lots").unwrap_err().to_string(),
        "predicted efficiency: leave it empty, or enter a ratio such as 0.8 (or 4 for a broadcast) or a percentage such as 80 %"
    );
}

// Regression: "4" was read as 4 % although the course writes the broadcast's efficiency as
// 4 (400 %). A bare number is a ratio, and the feedback says so.
#[test]
fn a_bare_efficiency_is_a_ratio_and_the_feedback_says_how_it_was_read() {
    use coalescing_lab::model::predict::{feedback, read};
    let broadcast = analyze(&Preset::by_id("ex7-broadcast").unwrap().inputs()).unwrap();
    assert_eq!(
        feedback(&broadcast, read("1", "4").unwrap()),
        "Right: the warp touches 1 sector. Efficiency 400 %: right too (400 %, your 4 read as a ratio)."
    );
    assert_eq!(
        feedback(&broadcast, read("1", "4 %").unwrap()),
        "Right: the warp touches 1 sector. Efficiency is 400 %, 396 points above your 4 % (read as a percentage)."
    );
}

// Regression: "Right: the warp touches 18 sectors" stayed beside N_tx 4 after the learner
// changed idx. A verdict speaks only about the scenario it was made for.
#[test]
fn a_verdict_is_retired_by_any_change_of_the_scenario() {
    use coalescing_lab::model::inputs::{Field, Inputs};
    use coalescing_lab::model::predict::{read, Verdict};
    let mut inputs = Inputs::default();
    inputs.set(Field::Idx, "t<16 ? t : 1000+64*(t-16)".into());
    let verdict = Verdict::new(&inputs, &analyze(&inputs).unwrap(), read("18", "").unwrap());
    assert_eq!(
        verdict.feedback_for(&inputs),
        Some("Right: the warp touches 18 sectors.")
    );
    let mut edited = inputs.clone();
    edited.set(Field::Idx, "t".into());
    assert_eq!(verdict.feedback_for(&edited), None);
    let mut machine = inputs.clone();
    machine.set(Field::Sector, "64".into());
    assert_eq!(verdict.feedback_for(&machine), None);
}

/// The shared-memory presets, each with its one-line derivation.
#[test]
fn every_shared_preset_has_its_stated_wavefronts() {
    // (preset, wavefronts, ideal, conflicts, busiest bank's words)
    let expected = [
        // word 32t: all 32 lanes in bank 0, 32 distinct words.
        ("shared-tile-column", 32, 1, 31, 32),
        // word 33t: bank t mod 32, one word per bank.
        ("shared-tile-column-padded", 1, 1, 0, 1),
        // word 0 for every lane: one word, broadcast.
        ("shared-broadcast", 1, 1, 0, 1),
        // word 2t: even banks, two distinct words each (2t and 2t + 32).
        ("shared-stride-2", 2, 1, 1, 2),
        // 8-byte lanes in 2 groups of 16; each group reads 128 contiguous bytes.
        ("shared-float2-row", 2, 2, 0, 1),
        // 264t bytes: words 66t, 66t+1 → banks 2t, 2t+1 (mod 32), each once per group of 16.
        ("shared-double-column-padded", 2, 2, 0, 1),
    ];
    let shared: Vec<&str> = PRESETS
        .iter()
        .filter(|p| p.space == "shared")
        .map(|p| p.id)
        .collect();
    assert_eq!(shared, expected.map(|e| e.0), "one row per shared preset");
    for (id, wavefronts, ideal, conflicts, busiest) in expected {
        let preset = Preset::by_id(id).unwrap();
        let a = analyze(&preset.inputs()).unwrap();
        let banks = a
            .banks
            .as_ref()
            .unwrap_or_else(|| panic!("{id}: no bank report"));
        let t = banks.totals;
        assert_eq!(
            (
                t.wavefronts,
                t.ideal,
                t.conflicts(),
                banks.busiest().map(|b| b.2)
            ),
            (wavefronts, ideal, conflicts, Some(busiest)),
            "{id}"
        );
    }
}
