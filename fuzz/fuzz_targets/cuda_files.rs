//! Several files: any text cut at NUL bytes into a main source and up to three headers
//! (`a.cuh`, `b.cuh`, `inc/c.cuh`), read as the page reads them, `#include "…"` answered by
//! the headers (beside the including file, then by name). Reading never panics; an error names
//! a line inside the file it is in (the main file's, or an included header's by its band);
//! every file the unit included is one of those given, and each line of the figures' keys
//! stands in a file the unit has. The whole text is also tried as a link's packed headers
//! (`hdrz`), whose unpacking never panics.
#![no_main]

use coalescing_lab::model::cuda::files::{file_name, split, Headers, Sources};
use coalescing_lab::model::cuda::run::{propose_for, read_files, CudaFailure, CudaJob};
use coalescing_lab::model::cuda::Defines;
use coalescing_lab::model::cuda_view::unpack_headers;
use coalescing_lab::model::Machine;
use libfuzzer_sys::fuzz_target;

/// Lines of `text` as the lexer counts them.
fn lines(text: &str) -> u32 {
    1 + text.chars().filter(|c| matches!(c, '\n' | '\r')).count() as u32
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = unpack_headers(&text);
    let mut parts = text.split('\0');
    let main = parts.next().unwrap_or("");
    let names = ["a.cuh", "b.cuh", "inc/c.cuh"];
    let given: Vec<(&str, &str)> = names.iter().copied().zip(parts.by_ref()).collect();
    let headers = Headers::of(&given);
    let sources = Sources { main: "main.cu", dirs: &[], reader: &headers };
    let unit = match read_files(main, 700, &Defines::default(), sources) {
        Ok(unit) => unit,
        Err(CudaFailure::Source(e)) => {
            let (k, n) = split(e.pos.line);
            // File k is the k-th included (in the order first met), named for messages.
            let within = match k {
                0 => lines(main),
                k => file_name(k)
                    .and_then(|p| given.iter().find(|(n, _)| *n == p))
                    .map_or(0, |(_, t)| lines(t)),
            };
            assert!(n >= 1 && n <= within && e.pos.column >= 1, "{e}");
            return;
        }
        Err(e) => panic!("a read fails only with the source's error: {e}"),
    };
    for f in &unit.files {
        assert!(names.contains(&f.path.as_str()), "{f:?}");
    }
    let _ = propose_for(&unit);
    let Some(launch) = unit.launches.first().map(|w| w.text.trim_end_matches(';').to_string())
    else {
        return;
    };
    if let Ok(mut job) = CudaJob::of_unit(unit.clone(), &launch, Machine::default(), 4096) {
        job.iteration_budget(4096);
        let (_, total) = job.progress();
        if total > 64 {
            return;
        }
        for _ in 0..64 {
            match job.step(1) {
                Ok(true) => {
                    let a = job.finish();
                    for (line, _) in &a.lines {
                        assert!(split(*line).0 <= unit.files.len(), "{line}");
                    }
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
