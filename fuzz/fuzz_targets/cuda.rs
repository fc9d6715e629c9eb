//! Any text as CUDA source and as a launch: lexing, preprocessing, parsing and reading a
//! launch never panic; every error names a line and column inside the text (or line 1 for a
//! refusal of the whole); the preprocessor stays within its token budget; and a launch that
//! reads has allocations with distinct names and no grid or block extent of 0.
#![no_main]

use coalescing_lab::model::cuda::ast::Skipped;
use coalescing_lab::model::cuda::parse::{launch::parse_launch, parse};
use coalescing_lab::model::cuda::{lex::tokenize, pre::preprocess, pre::MAX_TOKENS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = 1 + text.chars().filter(|c| matches!(c, '\n' | '\r')).count() as u32;
    let inside = |line: u32, column: u32| line >= 1 && line <= lines && column >= 1;
    match tokenize(&text).and_then(|t| preprocess(t, 700)) {
        Ok(out) => assert!(out.tokens.len() <= MAX_TOKENS + text.len()),
        Err(e) => assert!(inside(e.pos.line, e.pos.column), "{e}"),
    }
    if let Ok(unit) = parse(&text, 700) {
        for s in &unit.skipped {
            if let Skipped::Unread { error, .. } = s {
                assert!(inside(error.pos.line, error.pos.column), "{error}");
            }
        }
    }
    if text.len() <= 4096 {
        match parse_launch(&text) {
            Ok(l) => {
                assert!(l.grid.iter().chain(&l.block).all(|&d| d >= 1));
                if let Ok(a) = l.allocations() {
                    let mut names: Vec<&str> = a.iter().map(|a| a.name.as_str()).collect();
                    names.sort_unstable();
                    names.dedup();
                    assert_eq!(names.len(), a.len());
                }
            }
            Err(e) => assert!(e.0.pos.column >= 1, "{e}"),
        }
    }
});
