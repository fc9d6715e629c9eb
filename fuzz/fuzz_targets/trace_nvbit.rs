//! Any bytes as NVBit mem_trace output: see `trace_common.rs`.
#![no_main]

#[path = "trace_common.rs"]
mod common;

use coalescing_lab::model::trace::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| common::check(data, Format::Nvbit));
