//! Any text as a launch (its first line) and CUDA source (the rest), run: the interpreter never
//! panics, whatever the kernel does; an error names a position; and every figure it gives is
//! consistent (ideal sectors within sectors, distinct sectors within sectors, wavefronts at
//! least their ideal). Launches are capped at 2048 threads and 64 warps run, so each input
//! is quick.
#![no_main]

use coalescing_lab::model::cuda::parse::launch::parse_launch;
use coalescing_lab::model::cuda::run::CudaJob;
use coalescing_lab::model::Machine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (launch, source) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(l) = parse_launch(launch) else { return };
    let threads: u64 = l.grid.iter().chain(&l.block).product();
    if threads > 2048 {
        return;
    }
    let mut job = match CudaJob::new(source, launch, Machine::default(), 4096, 700) {
        Ok(job) => job,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let mut done = false;
    for _ in 0..64 {
        match job.step(1) {
            Ok(true) => {
                done = true;
                break;
            }
            Ok(false) => {}
            Err(e) => {
                assert!(!e.to_string().is_empty());
                return;
            }
        }
    }
    if done {
        let a = job.finish();
        for (s, f) in &a.sites {
            assert!(f.ideal_sectors <= f.sectors, "{s:?} {f:?}");
            assert!(f.unique_sectors <= f.sectors, "{s:?} {f:?}");
            assert!(f.ideal_wavefronts <= f.wavefronts, "{s:?} {f:?}");
        }
        assert!(a.total.unique_sectors <= a.total.sectors);
    }
});
