//! Any text as a whole program (its first line the program's arguments, split at spaces;
//! the rest the source): reading it and running its `main()` with every launch it makes never
//! panics, under small budgets (4096 host loop iterations, 1 MiB a side, 2048 threads and 4096
//! iterations a warp per launch); an error names a line inside the file; and the console holds
//! at most what its limit keeps.
#![no_main]

use coalescing_lab::model::cuda::run::program::{
    run_program, Limits, ProgramOptions, MAX_CONSOLE_BYTES,
};
use coalescing_lab::model::cuda::run::CudaFailure;
use coalescing_lab::model::cuda::Defines;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (args, source) = text.split_once('\n').unwrap_or(("", &text));
    let options = ProgramOptions {
        argv: args.split(' ').filter(|a| !a.is_empty()).map(str::to_string).collect(),
        limits: Limits {
            host_iterations: 4096,
            memory_bytes: 1 << 20,
            launch_threads: 2048,
            warp_iterations: 4096,
        },
        ..ProgramOptions::default()
    };
    let lines = 1 + source.chars().filter(|c| matches!(c, '\n' | '\r')).count() as u32;
    match run_program(source, &Defines::default(), &options) {
        Ok(run) => {
            let printed: usize = run.console.iter().map(|p| p.text.len()).sum();
            assert!(printed <= MAX_CONSOLE_BYTES + 4 * 1024 * 1024);
            if let Some(CudaFailure::Run(e)) = &run.error {
                assert!(e.pos.line <= lines, "{e}");
            }
        }
        Err(CudaFailure::Source(e)) => {
            assert!(e.pos.line >= 1 && e.pos.line <= lines && e.pos.column >= 1, "{e}");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
