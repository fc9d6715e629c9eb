//! Any text as a launch (its first line) and CUDA source (the rest), run: the interpreter never
//! panics, whatever the kernel does; an error names a position; and every figure it gives is
//! consistent (ideal sectors within sectors, distinct sectors within sectors, wavefronts at
//! least their ideal). Launches are capped at 2048 threads and 64 warps run, so each input
//! is quick (loops stop after 4096 iterations a warp). Each input also runs a second time on the general path (values lane by lane,
//! never as lines: `CudaJob::general_paths`), which must end the same way: the same
//! analysis, or the same error to the letter.
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
    let run = |general: bool| -> Result<Option<CudaJob>, String> {
        let mut job = CudaJob::new(source, launch, Machine::default(), 4096, 700)
            .map_err(|e| e.to_string())?;
        // Endless loops stop after 4096 iterations a warp rather than 2^20: the same paths,
        // in milliseconds rather than seconds an input.
        job.iteration_budget(4096);
        if general {
            job.general_paths();
        }
        for _ in 0..64 {
            if job.step(1).map_err(|e| e.to_string())? {
                return Ok(Some(job));
            }
        }
        Ok(None)
    };
    let fast = run(false);
    let general = run(true);
    match (&fast, &general) {
        (Ok(Some(a)), Ok(Some(b))) => assert_eq!(a.finish(), b.finish()),
        (Ok(None), Ok(None)) => {}
        (Err(a), Err(b)) => {
            assert!(!a.is_empty());
            assert_eq!(a, b);
        }
        _ => panic!(
            "the fast and the general path differ: {:?} / {:?}",
            fast.as_ref().err(),
            general.as_ref().err()
        ),
    }
    if let Ok(Some(job)) = fast {
        let a = job.finish();
        for (s, f) in &a.sites {
            assert!(f.ideal_sectors <= f.sectors, "{s:?} {f:?}");
            assert!(f.unique_sectors <= f.sectors, "{s:?} {f:?}");
            assert!(f.ideal_wavefronts <= f.wavefronts, "{s:?} {f:?}");
        }
        assert!(a.total.unique_sectors <= a.total.sectors);
    }
});
