//! Any text as defines (its first line), a launch written against the file (its second) and
//! CUDA source (the rest): reading the defines, the file with them, the launch in the file's
//! scope (its macros expanded, its constants in reach), the file's written launches and the
//! proposed launch never panic; every error names a place inside its text; a written launch
//! stands on a line of the file and keeps its kernel's name; and a launch that reads runs
//! without a panic (capped at 2048 threads, 64 warps and 4096 iterations a warp).
#![no_main]

use coalescing_lab::model::cuda::parse::launch::parse_launch_in;
use coalescing_lab::model::cuda::parse_defines;
use coalescing_lab::model::cuda::run::{propose_for, read_source_with, CudaFailure, CudaJob};
use coalescing_lab::model::Machine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\n');
    let (defines, launch, source) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let defines = match parse_defines(defines) {
        Ok(d) => d,
        Err(e) => {
            assert!(e.to_string().len() > "defines: ".len());
            return;
        }
    };
    let lines = 1 + source.chars().filter(|c| matches!(c, '\n' | '\r')).count() as u32;
    let unit = match read_source_with(source, 700, &defines) {
        Ok(unit) => unit,
        Err(CudaFailure::Source(e)) => {
            assert!(e.pos.line >= 1 && e.pos.line <= lines && e.pos.column >= 1, "{e}");
            return;
        }
        Err(e) => panic!("a read fails only with the source's error: {e}"),
    };
    for w in &unit.launches {
        assert!(w.line >= 1 && w.line <= lines, "{w:?}");
        assert!(w.text.contains(&w.kernel) && w.text.ends_with(';'), "{w:?}");
    }
    let _ = propose_for(&unit);
    let l = match parse_launch_in(launch, &unit) {
        Ok(l) => l,
        Err(e) => {
            assert!(e.0.pos.column >= 1, "{e}");
            return;
        }
    };
    assert!(l.grid.iter().chain(&l.block).all(|&d| d >= 1));
    let threads: u64 = l.grid.iter().chain(&l.block).product();
    if threads > 2048 {
        return;
    }
    if let Ok(mut job) = CudaJob::of_unit(unit, launch, Machine::default(), 4096) {
        job.iteration_budget(4096);
        for _ in 0..64 {
            match job.step(1) {
                Ok(true) => {
                    let _ = job.finish();
                    break;
                }
                Ok(false) => {}
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    break;
                }
            }
        }
    }
});
