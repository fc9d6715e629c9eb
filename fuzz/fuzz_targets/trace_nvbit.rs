//! Any bytes as an NVBit mem_trace file: reading never panics, in one piece or split
//! anywhere (the first byte says where), and both give the same analysis; every malformed
//! line shown has a line number inside the file.
#![no_main]

use coalescing_lab::model::kernel::Machine;
use coalescing_lab::model::trace::{Format, Importer, TraceOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let options = TraceOptions {
        format: Some(Format::Nvbit),
        // A small cache, so that evictions and write-backs happen.
        cache_bytes: 256,
        machine: Machine::default(),
        widths: vec![("LDG.E".to_string(), 8)],
    };
    let mut whole = Importer::new(options.clone());
    whole.feed(bytes);
    let whole = whole.finish();
    let at = usize::from(cut) * bytes.len() / 255;
    let mut split = Importer::new(options);
    split.feed(&bytes[..at]);
    split.feed(&bytes[at..]);
    assert_eq!(split.finish(), whole);
    for (line, _) in &whole.first_malformed {
        assert!(*line >= 1 && *line <= whole.lines);
    }
    // Requests never exceed executions, nor active lanes 32 per request.
    for i in &whole.instructions {
        assert!(i.requests <= i.executions && i.active_lanes <= 32 * i.requests);
    }
});
