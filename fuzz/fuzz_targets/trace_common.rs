//! The check both trace targets run: any bytes as a trace of one format: reading never
//! panics, in one piece or split anywhere (the first byte says where), and both give the same
//! analysis; every malformed line shown has a line number inside the file.

use coalescing_lab::model::kernel::Machine;
use coalescing_lab::model::trace::{Format, Importer, TraceOptions};

pub fn check(data: &[u8], format: Format) {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let options = TraceOptions {
        format: Some(format),
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
}
