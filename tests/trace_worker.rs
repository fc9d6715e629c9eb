//! The trace panel's reads in the page's Web Worker, natively: what the worker hands the page
//! (`trace::wire::Served`) after its trip through JSON is the importer's analysis, its table
//! a hundred rows first and the rest on demand, and its CSV is the whole table's.

use coalescing_lab::model::trace::wire::{decode_reply, Ask, Reply, Served, FIRST_ROWS};
use coalescing_lab::model::trace::{instruction_csv, Importer, TraceAnalysis, TraceOptions};

/// `text` read whole by the importer.
fn read(text: &str) -> TraceAnalysis {
    let mut importer = Importer::new(TraceOptions::default());
    for piece in text.as_bytes().chunks(4096) {
        importer.feed(piece);
    }
    importer.finish()
}

/// A reply after its trip through JSON.
fn crossed(reply: Reply) -> Reply {
    decode_reply(&reply.encode()).unwrap_or_else(|e| panic!("{e}"))
}

/// An Accel-Sim trace of `n` distinct instructions (PCs), one warp each, as the browser's
/// memory test writes it.
fn many(n: u32) -> String {
    let mut lines = vec![
        "-kernel name = many".to_string(),
        "-grid dim = (1,1,1)".to_string(),
        "-block dim = (32,1,1)".to_string(),
        String::new(),
        "#BEGIN_TB".to_string(),
        "thread block = 0,0,0".to_string(),
        "warp = 0".to_string(),
        format!("insts = {n}"),
    ];
    for pc in 0..n {
        lines.push(format!(
            "{:04x} ffffffff 1 R1 LDG.E 1 R2 4 1 0x{:x} {} 0",
            pc * 16,
            0x10000 + pc * 256,
            // Strides that differ, so the rows' order is the excess's.
            4 * (pc % 9 + 1)
        ));
    }
    lines.push("#END_TB".to_string());
    lines.join("\n") + "\n"
}

#[test]
fn the_samples_cross_with_their_figures_and_every_row() {
    for name in [
        "synthetic-transpose-naive.nvbit.txt",
        "synthetic-transpose-tiled.traceg",
    ] {
        let text = std::fs::read_to_string(format!("public/samples/{name}")).unwrap();
        let whole = read(&text);
        assert!(whole.format.is_some(), "{name}");
        let mut served = Served::default();
        let Reply::Done { analysis, statics, memory_bytes } =
            crossed(served.done(whole.clone(), 5 << 16))
        else {
            panic!("{name}")
        };
        assert_eq!(memory_bytes, 5 << 16);
        assert_eq!(statics as usize, whole.instructions.len());
        // Fewer than a hundred rows: all of them come with the figures.
        assert_eq!(*analysis, whole, "{name}");
        let Some(Reply::Csv(csv)) = served.answer(&Ask::Csv).map(crossed) else {
            panic!("{name}: no CSV")
        };
        assert_eq!(csv, instruction_csv(&whole));
    }
}

#[test]
fn a_long_table_comes_a_hundred_rows_first_then_as_asked() {
    let whole = read(&many(250));
    assert_eq!(whole.instructions.len(), 250);
    let mut served = Served::default();
    let Reply::Done { analysis, statics, .. } = crossed(served.done(whole.clone(), 0)) else {
        panic!()
    };
    assert_eq!(statics, 250);
    assert_eq!(analysis.instructions, whole.instructions[..FIRST_ROWS]);
    // The figures are the whole trace's.
    let mut head = whole.clone();
    head.instructions.truncate(FIRST_ROWS);
    assert_eq!(*analysis, head);
    // The rows as the page asks for them, the last ask past the end.
    let mut rows = analysis.instructions.clone();
    for (from, to) in [(100, 200), (200, 300)] {
        let ask = Ask::decode(&Ask::Rows { from, to }.encode()).unwrap();
        let Some(Reply::Rows(more)) = served.answer(&ask).map(crossed) else {
            panic!("no rows {from}..{to}")
        };
        rows.extend(more);
    }
    assert_eq!(rows, whole.instructions);
    // Past the end, and backwards: nothing, not a panic.
    for (from, to) in [(400, 500), (300, 10)] {
        assert_eq!(
            served.answer(&Ask::Rows { from, to }),
            Some(Reply::Rows(Vec::new()))
        );
    }
    let Some(Reply::Csv(csv)) = served.answer(&Ask::Csv) else {
        panic!()
    };
    assert_eq!(csv.lines().count(), 251, "a header and every instruction");
}

#[test]
fn asks_before_a_read_and_other_panels_texts_get_no_answer() {
    let served = Served::default();
    assert_eq!(served.answer(&Ask::Csv), None);
    assert_eq!(served.answer(&Ask::Rows { from: 0, to: 100 }), None);
    assert_eq!(served.answer(&Ask::Read(TraceOptions::default())), None);
    assert_eq!(Ask::decode("kernel:{}"), None);
    assert_eq!(Ask::decode("trace:{"), None);
    assert_eq!(Ask::decode("{\"Run\":{}}"), None);
    let read = Ask::Read(TraceOptions::default());
    assert_eq!(Ask::decode(&read.encode()), Some(read));
}
