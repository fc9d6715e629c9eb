//! Any text as a query string: decoding never panics, always yields results and a list of
//! warnings, and the decoded state survives encode → decode unchanged.
#![no_main]

use coalescing_lab::model::permalink::{decode, encode, warnings};
use coalescing_lab::model::sectors::analyze_repaired;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let query = String::from_utf8_lossy(data);
    let state = decode(&query);
    let _ = warnings(&query);
    let analysis = analyze_repaired(&state.calc);
    assert!(analysis.warp >= 1);
    let _ = state.lab.check();
    assert_eq!(decode(&encode(&state)), state);
});
