//! Any text as CUDA source: lexing and preprocessing never panic, every error names a line
//! and column inside the text (or line 1 for a refusal of the whole), and what the
//! preprocessor returns stays within its token budget.
#![no_main]

use coalescing_lab::model::cuda::{lex::tokenize, pre::preprocess, pre::MAX_TOKENS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = 1 + text.chars().filter(|c| matches!(c, '\n' | '\r')).count() as u32;
    match tokenize(&text).and_then(|t| preprocess(t, 700)) {
        Ok(out) => assert!(out.tokens.len() <= MAX_TOKENS + text.len()),
        Err(e) => {
            assert!(e.pos.line >= 1 && e.pos.line <= lines, "{e}");
            assert!(e.pos.column >= 1, "{e}");
            assert!(!e.to_string().is_empty());
        }
    }
});
