//! A whole program through the page's worker (`model::cuda_view::wire::ProgramServer`): the
//! console streamed while it runs adds up to the console at its end, each launch's row and
//! analysis are the model's own, another launch is answered from the run kept, and every
//! launch summed (`all`) is the sum of the launches, per line and in all.

use coalescing_lab::model::cuda::run::program::{run_program, Printed, ProgramOptions};
use coalescing_lab::model::cuda::run::CudaAnalysis;
use coalescing_lab::model::cuda::Defines;
use coalescing_lab::model::cuda_view::wire::{
    decode_reply, encode_pick, ProgramReply, ProgramRequest, ProgramServer, Reply,
};
use coalescing_lab::model::cuda_view::{all_launches, figures_sum, launches_csv, LaunchRow, Pick};
use coalescing_lab::model::warp::Figures;
use coalescing_lab::model::Machine;
use proptest::prelude::*;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A program that launches `scale` `times` over `n` floats, printing before each launch and
/// checking its result at the end.
fn program(n: u32, times: u32) -> String {
    format!(
        r#"#include <cstdio>
__global__ void scale(float* a, int n, float k) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * k;
}}
__global__ void stride2(float* a, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i < n) a[2 * i] += 1.0f;
}}
int main() {{
  const int N = {n};
  float* h = (float*)malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) h[i] = 1.0f;
  float* d;
  cudaMalloc(&d, N * sizeof(float));
  cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
  for (int r = 0; r < {times}; r++) {{
    printf("launch %d\n", r);
    scale<<<(N + 127) / 128, 128>>>(d, N, 2.0f);
  }}
  stride2<<<(N + 255) / 256, 256>>>(d, N);
  cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
  fprintf(stderr, "h[0]=%.1f h[1]=%.1f\n", h[0], h[1]);
  return h[1] == (float)(1 << {times}) ? 0 : 1;
}}
"#
    )
}

fn request(source: &str, pick: Pick) -> ProgramRequest {
    ProgramRequest {
        source: source.into(),
        defines: String::new(),
        argv: Vec::new(),
        machine: Machine::default(),
        cache_bytes: 0,
        arch: 700,
        bandwidth_gb_s: 900.0,
        pick,
        headers: Default::default(),
    }
}

/// Asks `server` `text`, on a clock that moves 100 ms a reading (so every observation posts);
/// the replies, in order.
fn ask(server: &mut ProgramServer, text: &str) -> Vec<Reply> {
    let posted = Rc::new(RefCell::new(Vec::new()));
    let sink = posted.clone();
    let now = Cell::new(0.0);
    let answered = server.answer(
        text,
        move || {
            now.set(now.get() + 100.0);
            now.get()
        },
        Rc::new(move |t: String| sink.borrow_mut().push(t)),
    );
    assert!(answered, "a program's request is the program server's");
    let texts = posted.borrow().clone();
    texts
        .iter()
        .map(|t| decode_reply(t).unwrap_or_else(|e| panic!("{e}: {t}")))
        .collect()
}

fn end_of(replies: &[Reply]) -> ProgramReply {
    match replies.iter().find(|r| matches!(r, Reply::Program(_))) {
        Some(Reply::Program(end)) => (**end).clone(),
        _ => panic!("no end among {replies:?}"),
    }
}

/// The picked launch's analysis: the last reply, as a launch's run answers.
fn analysis_of(replies: &[Reply]) -> CudaAnalysis {
    match replies.last() {
        Some(Reply::Done { analysis, .. }) => (**analysis).clone(),
        other => panic!("the last reply is {other:?}"),
    }
}

#[test]
fn the_console_streams_and_the_end_holds_every_launch() {
    let source = program(1000, 3);
    let mut server = ProgramServer::default();
    let replies = ask(&mut server, &request(&source, Pick::All).encode());
    let end = end_of(&replies);
    // 1000 ones doubled three times: h[0] = 8; h[1] = 8 too (stride2 adds 1 to even indices
    // only: h[0] = 9). The program returns 0 when h[1] == 2^3.
    let text: String = end.console.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(text, "launch 0\nlaunch 1\nlaunch 2\nh[0]=9.0 h[1]=8.0\n");
    assert_eq!(end.exit_code, Some(0));
    assert!(end.error.is_none());
    // What streamed adds up to the console at the end, stream by stream, in order.
    let mut streamed: Vec<Printed> = Vec::new();
    for r in &replies {
        if let Reply::Console { pieces, .. } = r {
            for p in pieces {
                match streamed.last_mut() {
                    Some(last) if last.stream == p.stream => last.text.push_str(&p.text),
                    _ => streamed.push(p.clone()),
                }
            }
        }
    }
    let streamed_text: String = streamed.iter().map(|p| p.text.as_str()).collect();
    assert!(
        text.starts_with(&streamed_text) && !streamed_text.is_empty(),
        "streamed {streamed_text:?}"
    );
    // Progress names the launches finished, never more than the program made.
    let counts: Vec<usize> = replies
        .iter()
        .filter_map(|r| match r {
            Reply::Console { launches, .. } => Some(*launches),
            _ => None,
        })
        .collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]) && counts.iter().all(|&c| c <= 4));
    // The rows are the model's launches; 3 scales then one stride2.
    let run = run_program(&source, &Defines::default(), &ProgramOptions::default()).unwrap();
    let rows: Vec<LaunchRow> = run.launches.iter().map(LaunchRow::of).collect();
    assert_eq!(end.launches, rows);
    let kernels: Vec<&str> = rows.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(kernels, ["scale", "scale", "scale", "stride2"]);
    // scale over 1000 floats in blocks of 128: 8 blocks × 4 warps, the last block's warps
    // past 1000 idle: 1000 / 32 = 31.25 → 32 warps load and 32 store; sectors 4 a full warp
    // (125 sectors each way).
    assert_eq!(rows[0].total.requests, 64);
    assert_eq!(rows[0].total.sectors, 250);
    assert_eq!(rows[0].grid, [8, 1, 1]);
    // The CSV: a head and a row per launch.
    let csv = launches_csv(&rows);
    assert_eq!(csv.lines().count(), 5);
    assert!(csv.starts_with("index,kernel,line,grid,block,"), "{csv}");
    assert!(
        csv.contains("\r\n0,scale,19,\"8,1,1\",\"128,1,1\",0,64,250,"),
        "{csv}"
    );
    // The pick's analysis follows the end, as a launch's run answers: all of them summed.
    assert_eq!(end.pick, Pick::All);
    assert_eq!(analysis_of(&replies), all_launches(&run.launches));
    // Another launch, from the run the worker kept.
    let replies = ask(&mut server, &encode_pick(Pick::Launch(3)));
    assert_eq!(replies.len(), 1);
    assert_eq!(analysis_of(&replies), run.launches[3].analysis);
    let replies = ask(&mut server, &encode_pick(Pick::Launch(4)));
    assert!(matches!(
        replies.as_slice(),
        [Reply::Picked { pick: Pick::Launch(4) }]
    ));
}

#[test]
fn a_source_that_does_not_read_fails_with_its_words() {
    let mut server = ProgramServer::default();
    let replies = ask(
        &mut server,
        &request("int main() { return $; }", Pick::All).encode(),
    );
    match replies.as_slice() {
        [Reply::Failed(r)] => assert!(r.words.contains("line 1"), "{}", r.words),
        other => panic!("{other:?}"),
    }
    let replies = ask(
        &mut server,
        &request("__global__ void k() {}\n", Pick::All).encode(),
    );
    match replies.as_slice() {
        [Reply::Failed(r)] => assert!(r.words.contains("no main()"), "{}", r.words),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_program_that_stops_keeps_what_it_printed() {
    let source = "#include <cstdio>\nint main() {\n  printf(\"before\\n\");\n  int* p = 0;\n  return *p;\n}\n";
    let mut server = ProgramServer::default();
    let end = end_of(&ask(&mut server, &request(source, Pick::All).encode()));
    assert_eq!(end.console.len(), 1);
    assert_eq!(end.console[0].text, "before\n");
    assert_eq!(end.exit_code, None);
    let words = end.error.map(|e| e.words).unwrap_or_default();
    assert!(words.contains("line 5"), "{words}");
    assert!(end.launches.is_empty());
    let replies = ask(&mut server, &encode_pick(Pick::All));
    assert!(matches!(
        replies.as_slice(),
        [Reply::Picked { pick: Pick::All }]
    ));
}

#[test]
fn other_messages_are_not_the_program_servers() {
    let mut server = ProgramServer::default();
    let answered = server.answer("{\"Run\":{}}", || 0.0, Rc::new(|_: String| {}));
    assert!(!answered);
}

fn sum(figures: impl Iterator<Item = Figures>) -> Figures {
    figures.fold(Figures::default(), |a, b| figures_sum(&a, &b))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// All launches summed: the total is the launches' totals summed, each line the launches'
    /// lines summed, and a site the two kernels share in no way is kept apart.
    #[test]
    fn all_launches_are_the_launches_summed(n in 1u32..700, times in 1u32..4) {
        let source = program(n, times);
        let run = run_program(&source, &Defines::default(), &ProgramOptions::default()).unwrap();
        prop_assert_eq!(run.launches.len() as u32, times + 1);
        let all = all_launches(&run.launches);
        prop_assert_eq!(all.total, sum(run.launches.iter().map(|l| l.analysis.total)));
        for (line, f) in &all.lines {
            let each = sum(run.launches.iter().flat_map(|l| {
                l.analysis.lines.iter().filter(|(k, _)| k == line).map(|(_, f)| *f)
            }));
            prop_assert_eq!(*f, each, "line {}", line);
        }
        // scale's two sites and stride2's two (its += loads then stores).
        prop_assert_eq!(all.sites.len(), 4);
        prop_assert_eq!(all.shape, (0, 0, 0));
        // The sum says what it is.
        let says = format!("All {} launches", times + 1);
        prop_assert!(all.notes.iter().any(|n| n.starts_with(&says)), "{:?}", all.notes);
    }
}

#[test]
fn the_worker_runs_a_program_with_the_headers_beside_it() {
    use coalescing_lab::model::cuda::files::Headers;
    let source = "#include \"util.cuh\"\n__global__ void k(float* a) { a[threadIdx.x] = SCALE; }\n\
                  int main() { float* d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); return 0; }\n";
    let request = ProgramRequest {
        headers: Headers::of(&[("include/util.cuh", "#define SCALE 2.0f\n")]),
        ..request(source, Pick::Launch(0))
    };
    let replies = ask(&mut ProgramServer::default(), &request.encode());
    assert_eq!(end_of(&replies).exit_code, Some(0));
    let Some(Reply::Done { analysis, .. }) = replies.last() else {
        panic!("{replies:?}")
    };
    // Found by its name: the page's source is main.cu, beside no folder.
    assert_eq!(analysis.files, ["include/util.cuh"]);
    assert_eq!(analysis.total.requests, 1);
}
