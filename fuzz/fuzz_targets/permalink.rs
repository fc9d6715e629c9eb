//! Any text as a query string: decoding never panics, always yields results and a list of
//! warnings, and the decoded state survives encode → decode unchanged. The first-result
//! module's reading of it (`decode_calculator`, `first_result`) agrees with the app's, and its
//! HTML holds no markup from the link.
#![no_main]

use coalescing_lab::model::calculator::first_result::first_result;
use coalescing_lab::model::permalink::{decode, decode_calculator, encode, warnings};
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
    let part = decode_calculator(&query);
    assert_eq!(
        (part.tab, part.embed, &part.calc, part.predict, &part.compare),
        (state.tab, state.embed, &state.calc, state.predict, &state.compare)
    );
    let html = first_result(&query);
    // Every `<` opens or closes one of the writer's own tags.
    const TAGS: [&str; 8] = ["div", "p", "h3", "dl", "dt", "dd", "span", "strong"];
    for (at, _) in html.match_indices('<') {
        let rest = html[at + 1..].trim_start_matches('/');
        assert!(
            TAGS.iter().any(|t| rest.strip_prefix(t).is_some_and(|a| a.starts_with([' ', '>']))),
            "{html}"
        );
    }
});
