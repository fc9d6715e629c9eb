//! The CUDA panel's Web Worker, natively: what it answers (`cuda_view::wire::answer`) is what
//! the page's own run gives, figure for figure, after its trip through JSON; a job made
//! afresh that adopts the run's placement drills into every warp as the finished job does;
//! and a failure crosses with its words, its field and its place to the letter.

use coalescing_lab::model::cuda::parse_defines;
use coalescing_lab::model::cuda::presets::CUDA_PRESETS;
use coalescing_lab::model::cuda::run::{read_source_with, CudaFailure, CudaJob};
use coalescing_lab::model::cuda_view::wire::{
    answer, decode_reply, Drill, Reply, Reported, Request,
};
use coalescing_lab::model::cuda_view::{failure_field, failure_pos, CudaField};
use coalescing_lab::model::Machine;

fn request(source: &str, launch: &str, cache_bytes: u64) -> Request {
    Request {
        source: source.to_string(),
        launch: launch.to_string(),
        machine: Machine::default(),
        cache_bytes,
        arch: 700,
        defines: String::new(),
        headers: Default::default(),
    }
}

/// The worker's replies to `request`, decoded, on a clock that moves 10 ms a reading.
fn replies(request: &Request) -> Vec<Reply> {
    let mut t = 0.0;
    let mut posted = Vec::new();
    answer(
        &request.encode(),
        &mut || {
            t += 10.0;
            t
        },
        &mut |text| posted.push(text),
    );
    posted
        .iter()
        .map(|text| decode_reply(text).unwrap_or_else(|e| panic!("{e}: {text}")))
        .collect()
}

/// The page's own run of `request`, finished.
fn own_run(request: &Request) -> Result<CudaJob, CudaFailure> {
    let defines = parse_defines(&request.defines).map_err(CudaFailure::Defines)?;
    let unit = read_source_with(&request.source, request.arch, &defines)?;
    let mut job = CudaJob::of_unit(unit, &request.launch, request.machine, request.cache_bytes)?;
    while !job.step(1 << 20)? {}
    Ok(job)
}

/// The blocks whose every warp is compared: all of a small launch, else the first and last.
fn blocks(total: u64) -> Vec<u64> {
    if total <= 4 {
        (0..total).collect()
    } else {
        vec![0, total - 1]
    }
}

#[test]
fn every_preset_gives_the_pages_figures_and_drill_down_through_the_worker() {
    for preset in CUDA_PRESETS {
        let request = request(preset.source, preset.launch, 4 << 20);
        let replies = replies(&request);
        let Some(Reply::Done { analysis, placement }) = replies.last() else {
            panic!("{}: the last reply is {:?}", preset.id, replies.last());
        };
        let finished = own_run(&request).unwrap_or_else(|e| panic!("{}: {e}", preset.id));
        assert_eq!(**analysis, finished.finish(), "{}", preset.id);
        // Progress never goes back, and counts the launch's warps.
        let mut last = 0;
        for r in &replies[..replies.len() - 1] {
            let Reply::Progress { done, total } = r else {
                panic!("{}: {r:?} before the end", preset.id);
            };
            assert!(
                *done >= last && done <= total,
                "{}: {done} of {total}",
                preset.id
            );
            assert_eq!(*total, finished.progress().1);
            last = *done;
        }
        let mut fresh = CudaJob::new(
            &request.source,
            &request.launch,
            request.machine,
            request.cache_bytes,
            request.arch,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", preset.id));
        fresh.adopt(placement.clone());
        let (blocks_in_launch, warps, _) = analysis.shape;
        for block in blocks(blocks_in_launch) {
            for warp in 0..warps {
                assert_eq!(
                    fresh.warp_executions(block, warp),
                    finished.warp_executions(block, warp),
                    "{}: block {block}, warp {warp}",
                    preset.id
                );
            }
        }
    }
}

/// Warp 0 meets `first`'s array before `second`'s; warp 1 meets only `second`'s. The run
/// numbers sites and lays out arrays in the order warp 0 met them, which a job that only ran
/// warp 1 would not know.
const MET_IN_ORDER: &str = "__device__ float first(int i) {
    __shared__ float three[3];
    three[i % 3] = 1.0f;
    return three[(i + 1) % 3];
}
__device__ float second(int i) {
    __shared__ float wide[64];
    wide[i] = 2.0f;
    return wide[(i * 2) % 64];
}
__global__ void k(float* out) {
    int t = threadIdx.x;
    float v = 0.0f;
    if (t < 32) {
        v += first(t);
    }
    v += second(t % 32);
    out[t] = v;
}";

#[test]
fn a_warp_drilled_into_on_a_fresh_job_needs_the_runs_placement() {
    let request = request(MET_IN_ORDER, "k<<<1, 64>>>(out)", 0);
    let Some(Reply::Done { placement, .. }) = replies(&request).pop() else {
        panic!("no figures");
    };
    let finished = own_run(&request).unwrap_or_else(|e| panic!("{e}"));
    let fresh = || {
        CudaJob::new(&request.source, &request.launch, request.machine, 0, 700)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let mut placed = fresh();
    placed.adopt(placement);
    let Ok(expected) = finished.warp_executions(0, 1) else {
        panic!("warp 1 does not run");
    };
    assert_eq!(placed.warp_executions(0, 1), Ok(expected.clone()));
    // Without the placement, warp 1 alone puts `wide` at byte 0 and numbers its sites first.
    assert_ne!(fresh().warp_executions(0, 1), Ok(expected));
}

#[test]
fn a_kernel_with_a_report_out_of_bounds_crosses_whole() {
    let request = request(
        "__global__ void k(float* a) { a[threadIdx.x + 1] = 0.0f; }",
        "k<<<1, 32>>>(a[32])",
        0,
    );
    let Some(Reply::Done { analysis, .. }) = replies(&request).pop() else {
        panic!("no figures");
    };
    assert_eq!(analysis.out_of_bounds.len(), 1);
    assert_eq!(analysis.out_of_bounds[0].index, 32);
    assert_eq!(
        *analysis,
        own_run(&request).unwrap_or_else(|e| panic!("{e}")).finish()
    );
}

#[test]
fn failures_cross_with_their_words_field_and_place() {
    let cases = [
        // Undefined behaviour, at a line, a block and a thread.
        (
            "__global__ void k(int* a) {\n  int z = threadIdx.x - threadIdx.x;\n  a[threadIdx.x] = 7 / z;\n}",
            "k<<<1, 32>>>(a)",
        ),
        // An address that depends on a loaded value.
        (
            "__global__ void k(int* a) {\n  int v = a[threadIdx.x];\n  a[v] = 1;\n}",
            "k<<<1, 32>>>(a)",
        ),
        // A barrier some threads skip.
        (
            "__global__ void k(int* a) {\n  if (threadIdx.x < 40) {\n    __syncthreads();\n  }\n  a[threadIdx.x] = 1;\n}",
            "k<<<1, 64>>>(a)",
        ),
        // A warp that loops past its budget.
        (
            "__global__ void k(int* a) {\n  for (int i = 0; i < 2000000; i++) { a[0] = i; }\n}",
            "k<<<1, 32>>>(a)",
        ),
        // The launch's own problem.
        (
            "__global__ void k(int* a) { a[threadIdx.x] = 1; }",
            "k<<<1, 32>>>()",
        ),
        // The source's.
        ("__global__ void k(int* a) { a[threadIdx.x] = ; }", "k<<<1, 32>>>(a)"),
        // The defines' (below).
        ("__global__ void k(int* a) { a[threadIdx.x] = N; }", "k<<<1, 32>>>(a)"),
    ];
    for (k, (source, launch)) in cases.into_iter().enumerate() {
        let mut request = request(source, launch, 0);
        if k == cases.len() - 1 {
            request.defines = "N=3 M=".into();
        }
        let own = match own_run(&request) {
            Ok(_) => panic!("{source}: no failure"),
            Err(e) => e,
        };
        let Some(Reply::Failed(reported)) = replies(&request).pop() else {
            panic!("{source}: no failure from the worker");
        };
        assert_eq!(reported, Reported::of(&own));
        let shown = reported.into_failure();
        assert_eq!(shown.to_string(), own.to_string(), "{source}");
        assert_eq!(failure_field(&shown), failure_field(&own), "{source}");
        assert_eq!(failure_pos(&shown), failure_pos(&own), "{source}");
        if k == cases.len() - 1 {
            assert_eq!(failure_field(&shown), CudaField::Defines);
            assert_eq!(
                shown.to_string(),
                "defines: M= has no value: write M=VALUE, or M alone for 1"
            );
        }
    }
    // Defines cross to the worker, and the figures with them.
    let mut sized = request(
        "#define N 4096\n__global__ void k(float* a) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) a[i] = 0; }",
        "k<<<16, 256>>>(a)",
        0,
    );
    sized.defines = "N=100".into();
    let Some(Reply::Done { analysis, .. }) = replies(&sized).pop() else {
        panic!("no figures from the worker");
    };
    // Threads 0 to 99: three full warps and one of 4 lanes.
    assert_eq!((analysis.total.requests, analysis.total.sectors), (4, 13));
    assert_eq!(
        analysis.notes[0],
        "Defines: N=100 replaced the #define of line 1."
    );
}

#[test]
fn a_request_that_does_not_read_is_answered_with_a_failure() {
    let mut posted = Vec::new();
    answer("{not json", &mut || 0.0, &mut |text| posted.push(text));
    let [text] = posted.as_slice() else {
        panic!("{posted:?}");
    };
    let Ok(Reply::Failed(reported)) = decode_reply(text) else {
        panic!("{text}");
    };
    assert!(
        reported.words.starts_with(
            "internal error (a request the worker cannot read); please report this link ("
        ),
        "{}",
        reported.words
    );
    assert!(decode_reply("ready").is_err());
}

/// The worker's answer to a posted text, decoded: exactly one reply.
fn one_reply(text: &str) -> Reply {
    let mut posted = Vec::new();
    answer(text, &mut || 0.0, &mut |t| posted.push(t));
    let [text] = posted.as_slice() else {
        panic!("{posted:?}");
    };
    decode_reply(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_drill_runs_one_warp_of_a_finished_run_as_the_finished_job_does() {
    for (source, launch, block, warp) in [
        (MET_IN_ORDER, "k<<<1, 64>>>(out)", 0, 1),
        (CUDA_PRESETS[3].source, CUDA_PRESETS[3].launch, 5, 3),
    ] {
        let request = request(source, launch, 0);
        let Some(Reply::Done { placement, .. }) = replies(&request).pop() else {
            panic!("{launch}: no figures");
        };
        let finished = own_run(&request).unwrap_or_else(|e| panic!("{e}"));
        let drill = Drill {
            request: request.clone(),
            placement,
            block,
            warp,
        };
        let Reply::Executions(got) = one_reply(&drill.encode()) else {
            panic!("{launch}: not executions");
        };
        let want = finished
            .warp_executions(block, warp)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, Ok(want), "{launch}");
    }
    // A warp outside the launch is answered with the model's words for it (the page checks the
    // pick before it asks: `pick_warp`).
    let request = request(MET_IN_ORDER, "k<<<1, 64>>>(out)", 0);
    let drill = Drill {
        request,
        placement: Default::default(),
        block: 3,
        warp: 0,
    };
    let Reply::Executions(Err(reported)) = one_reply(&drill.encode()) else {
        panic!("no error");
    };
    assert_eq!(
        reported.words,
        "launch, column 0: block 3, warp 0 is outside the launch's 1 blocks of 2 warps"
    );
}
