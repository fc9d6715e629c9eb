//! Whole programs: `main()` run on the host, its launches on the SIMT interpreter, what it
//! prints, and how it ends. Each expected output and figure is derived by hand in a comment.

use coalescing_lab::model::cuda::run::analyse;
use coalescing_lab::model::cuda::run::program::{run_program, ProgramOptions, ProgramRun, Stream};
use coalescing_lab::model::cuda::Defines;
use coalescing_lab::model::Machine;
use proptest::prelude::*;

fn run_with(src: &str, options: &ProgramOptions) -> ProgramRun {
    run_program(src, &Defines::default(), options).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a program that must reach its end.
fn run(src: &str) -> ProgramRun {
    let run = run_with(src, &ProgramOptions::default());
    if let Some(e) = &run.error {
        panic!("stopped: {e}\nprinted: {}", run.text());
    }
    run
}

/// Runs a program that must stop on an error; returns the error's words and what it printed.
fn stops(src: &str) -> (String, String) {
    let run = run_with(src, &ProgramOptions::default());
    match &run.error {
        Some(e) => (e.to_string(), run.text()),
        None => panic!("ran to its end: {}", run.text()),
    }
}

const VADD: &str = r#"#include <cstdio>
#include <cstdlib>
__global__ void vadd(const float* A, const float* B, float* C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) C[i] = A[i] + B[i];
}
int main() {
  const int N = 1000;
  float *h_A = new float[N], *h_B = new float[N], *h_C = new float[N];
  for (int i = 0; i < N; i++) {
    h_A[i] = rand() / (float)RAND_MAX;
    h_B[i] = rand() / (float)RAND_MAX;
  }
  float *d_A, *d_B, *d_C;
  cudaMalloc(&d_A, N * sizeof(float));
  cudaMalloc(&d_B, N * sizeof(float));
  cudaMalloc(&d_C, N * sizeof(float));
  cudaMemcpy(d_A, h_A, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, N * sizeof(float), cudaMemcpyHostToDevice);
  vadd<<<(N + 255) / 256, 256>>>(d_A, d_B, d_C, N);
  cudaMemcpy(h_C, d_C, N * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < N; i++)
    if (h_C[i] != h_A[i] + h_B[i]) wrong++;
  printf("A[0] = %f\nB[0] = %f\nC[0] = %f\n", h_A[0], h_B[0], h_C[0]);
  printf("%s\n", wrong == 0 ? "PASSED" : "FAILED");
  cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
  delete[] h_A; delete[] h_B; delete[] h_C;
  return 0;
}
"#;

#[test]
fn a_vector_add_prints_glibc_s_values_and_checks_itself() {
    let r = run(VADD);
    // glibc's first two rand() after the default seed 1 are 1804289383 and 846930886:
    // 1804289383 / 2147483647 = 0.8401877…, 846930886 / 2147483647 = 0.3943829…, and their
    // float sum 1.2345706… prints as 1.234571.
    assert_eq!(
        r.text_of(Stream::Stdout),
        "A[0] = 0.840188\nB[0] = 0.394383\nC[0] = 1.234571\nPASSED\n"
    );
    assert_eq!(r.text_of(Stream::Stderr), "");
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.launches.len(), 1);
    let l = &r.launches[0];
    assert_eq!((l.kernel.as_str(), l.line), ("vadd", 20));
    assert_eq!(
        (l.grid, l.block, l.shared_bytes),
        ([4, 1, 1], [256, 1, 1], 0)
    );
    // 1000 threads are 32 warps, each with an active lane: 32 requests at each of 3 sites.
    // 31 full warps read 128 bytes, 4 sectors, each; the last has 8 lanes, 32 bytes, 1
    // sector: 125 sectors a site, all ideal, all distinct; 3 × 125 × 32 bytes of DRAM.
    let t = &l.analysis.total;
    assert_eq!((t.requests, t.sectors, t.ideal_sectors), (96, 375, 375));
    assert_eq!((t.unique_sectors, t.dram_bytes()), (375, 12000));
    assert!(l.analysis.out_of_bounds.is_empty());
}

const HISTOGRAM: &str = r#"#include <cstdio>
#define BINS 7
__global__ void histogram(const int* data, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i] % BINS], 1);
}
int main() {
  int n = 1000;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) h[i] = i;
  int *d_data, *d_bins;
  cudaMalloc(&d_data, n * sizeof(int));
  cudaMalloc(&d_bins, BINS * sizeof(int));
  cudaMemset(d_bins, 0, BINS * sizeof(int));
  cudaMemcpy(d_data, h, n * sizeof(int), cudaMemcpyHostToDevice);
  histogram<<<(n + 127) / 128, 128>>>(d_data, d_bins, n);
  int bins[BINS];
  int* hb = (int*)malloc(BINS * sizeof(int));
  cudaMemcpy(hb, d_bins, BINS * sizeof(int), cudaMemcpyDeviceToHost);
  int total = 0;
  for (int b = 0; b < BINS; b++) { printf("%d:%d ", b, hb[b]); total += hb[b]; }
  printf("total %d\n", total);
  free(h); free(hb);
  return 0;
}
"#;

#[test]
fn a_histogram_counts_with_atomics_on_real_bins() {
    let r = run(HISTOGRAM);
    // 1000 = 7 × 142 + 6: the residues 0 to 5 occur 143 times, 6 occurs 142 times.
    assert_eq!(
        r.text(),
        "0:143 1:143 2:143 3:143 4:143 5:143 6:142 total 1000\n"
    );
    assert_eq!(r.launches.len(), 1);
    assert_eq!(r.launches[0].grid, [8, 1, 1]);
}

#[test]
fn device_printf_appears_at_a_synchronising_call_and_is_lost_without_one() {
    let src = r#"#include <cstdio>
__global__ void hello() { printf("block %d thread %d\n", blockIdx.x, threadIdx.x); }
int main() {
  hello<<<2, 2>>>();
  printf("host before sync\n");
  cudaDeviceSynchronize();
  printf("host after sync\n");
  hello<<<1, 1>>>();
  return 0;
}
"#;
    let r = run(src);
    // The first launch's lines are buffered until cudaDeviceSynchronize; the second's are
    // still buffered at exit, and lost, as CUDA documents.
    assert_eq!(
        r.text(),
        "host before sync\nblock 0 thread 0\nblock 0 thread 1\nblock 1 thread 0\nblock 1 thread 1\nhost after sync\n"
    );
    assert!(
        r.notes.iter().any(|n| n.contains("was lost")),
        "{:?}",
        r.notes
    );
}

#[test]
fn exit_ends_the_program_with_its_status_and_stderr_is_its_own_stream() {
    let src = r#"#include <cstdio>
#include <cstdlib>
void fail(const char* why) {
  fprintf(stderr, "error: %s\n", why);
  exit(3);
}
int main() {
  printf("start\n");
  fail("bad input");
  printf("never\n");
  return 0;
}
"#;
    let r = run(src);
    assert_eq!(r.exit_code, Some(3));
    assert_eq!(r.text_of(Stream::Stdout), "start\n");
    assert_eq!(r.text_of(Stream::Stderr), "error: bad input\n");
    assert_eq!(r.text(), "start\nerror: bad input\n");
}

#[test]
fn main_s_return_value_is_the_exit_status_modulo_256() {
    let r = run("int main() { return 258; }\n");
    assert_eq!(r.exit_code, Some(2));
    let r = run("int main() { }\n");
    assert_eq!(r.exit_code, Some(0));
}

#[test]
fn argv_holds_the_program_s_arguments() {
    let src = r#"#include <cstdio>
int main(int argc, char** argv) {
  printf("%d", argc);
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  return 0;
}
"#;
    let options = ProgramOptions {
        argv: vec!["16".into(), "hello".into()],
        ..ProgramOptions::default()
    };
    let r = run_with(src, &options);
    assert_eq!(r.text(), "3 16 hello\n");
}

#[test]
fn srand_restarts_glibc_s_sequence() {
    let src = r#"#include <cstdio>
#include <cstdlib>
int main() {
  srand(1);
  int a = rand();
  srand(1);
  int b = rand();
  srand(42);
  printf("%d %d %d\n", a, b, rand());
  return 0;
}
"#;
    // glibc: srand(1) gives 1804289383 first; srand(42) gives 71876166 first.
    assert_eq!(run(src).text(), "1804289383 1804289383 71876166\n");
}

#[test]
fn a_bad_launch_fails_and_the_program_goes_on_as_cuda_s_does() {
    let src = r#"#include <cstdio>
__global__ void k(int* a) { a[threadIdx.x] = 1; }
int main() {
  int* d;
  cudaMalloc(&d, 4096);
  k<<<1, 2048>>>(d);
  cudaError_t e = cudaGetLastError();
  printf("%d %s\n", e, cudaGetErrorString(e));
  printf("%d\n", cudaGetLastError());
  return 0;
}
"#;
    let r = run(src);
    // 2048 threads in a block is past CUDA's 1024: cudaErrorInvalidConfiguration (9), and
    // cudaGetLastError resets the error to cudaSuccess.
    assert_eq!(r.text(), "9 invalid configuration argument\n0\n");
    assert!(r.launches.is_empty());
}

#[test]
fn host_code_that_dereferences_device_memory_stops_with_its_line() {
    let src = r#"int main() {
  float* d;
  cudaMalloc(&d, 16);
  float x = d[0];
  return 0;
}
"#;
    let (why, _) = stops(src);
    assert!(why.starts_with("line 4, column"), "{why}");
    assert!(
        why.contains("d (cudaMalloc, line 3), which is device memory"),
        "{why}"
    );
}

#[test]
fn host_memory_errors_name_the_allocation() {
    let (why, _) = stops(
        "int main() {\n  int* h = (int*)malloc(8);\n  free(h);\n  free(h);\n  return 0;\n}\n",
    );
    assert!(
        why.contains("free of h (malloc, line 2), already freed at line 3"),
        "{why}"
    );
    let (why, _) = stops("int main() {\n  int* h = new int[4];\n  h[4] = 1;\n  return 0;\n}\n");
    assert!(
        why.contains(
            "host code writes 4 bytes at offset 16 of h (new[], line 2), which holds 16 bytes"
        ),
        "{why}"
    );
    let (why, _) = stops(
        "int main() {\n  int* h = (int*)malloc(8);\n  int* d;\n  cudaMalloc(&d, 8);\n  \
         cudaMemcpy(h, d, 8, cudaMemcpyHostToDevice);\n  return 0;\n}\n",
    );
    assert!(why.contains("but its kind says host to device"), "{why}");
    let (why, _) = stops(
        "int main() {\n  int* h = (int*)malloc(8);\n  if (h[1] > 0) return 1;\n  return 0;\n}\n",
    );
    assert!(
        why.contains("branches on a value that nothing wrote (read at line 3)"),
        "{why}"
    );
}

#[test]
fn a_kernel_s_out_of_bounds_access_is_checked_against_the_real_allocation() {
    let src = r#"__global__ void k(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = i;
}
int main() {
  int* d;
  cudaMalloc(&d, 100 * sizeof(int));
  k<<<1, 128>>>(d, 100);
  cudaDeviceSynchronize();
  return 0;
}
"#;
    let r = run(src);
    let oob = &r.launches[0].analysis.out_of_bounds;
    assert_eq!(oob.len(), 1);
    assert_eq!(oob[0].array.as_deref(), Some("d"));
    // Threads 100 to 127 write past the 100 ints: the first is thread 100, index 100.
    assert_eq!(
        (oob[0].index, oob[0].count, oob[0].thread),
        (100, Some(100), [100, 0, 0])
    );
}

#[test]
fn a_program_without_main_is_refused_with_the_way_on() {
    let e = run_program(
        "__global__ void k(int* a) { a[0] = 1; }\n",
        &Defines::default(),
        &ProgramOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no main()"), "{e}");
}

#[test]
fn device_memory_lasts_from_launch_to_launch() {
    let src = r#"#include <cstdio>
__global__ void add(int* a, int k) { a[threadIdx.x] += k * threadIdx.x; }
int main() {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  for (int k = 1; k <= 3; k++) add<<<1, 32>>>(d, k);
  int h[32];
  int* hp = (int*)malloc(32 * sizeof(int));
  cudaMemcpy(hp, d, 32 * sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d %d\n", hp[1], hp[31]);
  return 0;
}
"#;
    // (1 + 2 + 3) × t: 6 and 186.
    let r = run(src);
    assert_eq!(r.text(), "6 186\n");
    assert_eq!(r.launches.len(), 3);
}

/// A gather kernel as a program, sized `n`, with a block of `block` threads.
fn gather_program(n: u32, block: u32, stride: u32) -> String {
    format!(
        r#"__global__ void gather(float* out, const float* in, int n, int stride) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i * stride) % n];
}}
int main() {{
  int n = {n};
  float* h = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) h[i] = i;
  float *d_out, *d_in;
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  gather<<<(n + {block} - 1) / {block}, {block}>>>(d_out, d_in, n, {stride});
  return 0;
}}
"#
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A program's launch gives the figures that the launch field gives for the same kernel
    /// with the same data: the allocations are placed alike (the first at 0x10000000, the
    /// next at the following multiple of it), and `iota` is what the host loop writes.
    #[test]
    fn a_program_s_launch_is_the_launch_field_s(
        n in 1u32..3000,
        block in prop::sample::select(vec![32u32, 64, 96, 128, 256]),
        stride in 1u32..40,
    ) {
        let src = gather_program(n, block, stride);
        let program = run(&src);
        prop_assert_eq!(program.launches.len(), 1);
        let grid = n.div_ceil(block);
        let launch = format!("gather<<<{grid}, {block}>>>(out[{n}], in[{n}]=iota, {n}, {stride})");
        let field = analyse(&src, &launch, Machine::default(), 0, 700).unwrap();
        let a = &program.launches[0].analysis;
        prop_assert_eq!(&a.total, &field.total);
        prop_assert_eq!(&a.lines, &field.lines);
        prop_assert_eq!(a.out_of_bounds.len(), field.out_of_bounds.len());
    }
}

#[test]
fn the_samples_error_checks_exit_on_a_failed_call() {
    let src = r#"#include <cstdio>
#include <helper_cuda.h>
__global__ void k(int* a) { a[threadIdx.x] = 1; }
int main() {
  int* d;
  checkCudaErrors(cudaMalloc(&d, 16));
  printf("ok\n");
  k<<<1, 2048>>>(d);
  getLastCudaError("launch");
  printf("never\n");
  return 0;
}
"#;
    let r = run(src);
    assert_eq!(r.text_of(Stream::Stdout), "ok\n");
    assert_eq!(
        r.text_of(Stream::Stderr),
        "line 9: getLastCudaError() CUDA error : launch : (9) invalid configuration argument.\n"
    );
    assert_eq!(r.exit_code, Some(1));
}

#[test]
fn the_samples_helpers_read_the_program_s_arguments_and_name_the_device() {
    let src = r#"#include <cstdio>
#include <helper_cuda.h>
#include <helper_string.h>
int main(int argc, char** argv) {
  int dev = findCudaDevice(argc, (const char**)argv);
  int n = getCmdLineArgumentInt(argc, (const char**)argv, "n");
  int wa = getCmdLineArgumentInt(argc, (const char**)argv, "wA");
  printf("%d %d %d %d %d\n", dev, checkCmdLineFlag(argc, (const char**)argv, "quiet"),
         checkCmdLineFlag(argc, (const char**)argv, "help"), n, wa);
  int major;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  printf("%d\n", major);
  return 0;
}
"#;
    let options = ProgramOptions {
        argv: vec!["--quiet".into(), "-n=64".into(), "-WA=12".into()],
        arch: 800,
        ..ProgramOptions::default()
    };
    let r = run_with(src, &options);
    assert!(r.error.is_none(), "{:?}", r.error);
    // helper_cuda.h's line for compute capability 8.0, then the flags: `--quiet` given,
    // `help` not, `n=64`, and `wA` matched case-insensitively as helper_string.h does.
    assert_eq!(
        r.text(),
        "GPU Device 0: \"Ampere\" with compute capability 8.0\n\n0 1 0 64 12\n8\n"
    );
}

#[test]
fn adjacent_string_literals_are_one_string() {
    let src = "#include <cstdio>\nint main() {\n  printf(\"a\" \"b\"\n         \"c%d\\n\", 1);\n  return 0;\n}\n";
    assert_eq!(run(src).text(), "abc1\n");
}

#[test]
fn a_side_not_taken_calls_nothing_and_reads_nothing() {
    let src = r#"#include <cstdio>
int main(int argc, char** argv) {
  int* p = NULL;
  int n = argc > 1 ? atoi(argv[1]) : 7;
  if (p != NULL && p[0] > 0) n = 0;
  double x = n > 100 ? 1 : 2.5;
  printf("%d %.1f\n", n, x);
  return 0;
}
"#;
    // argv[1] does not exist and p is null: neither is touched. `?:`'s type is double.
    assert_eq!(run(src).text(), "7 2.5\n");
}

#[test]
fn hostile_host_code_reads_in_one_pass() {
    // `a<a<a<…` in host code: every `<` could open template arguments or a launch. Only a
    // template the file declares is tried as a template kernel's launch, and the answer at
    // each token is found once: without both, each `<` was tried both ways, and `k<k<` 300
    // times did not end.
    let src = format!("int main() {{ {} }}\n", "a<".repeat(1000));
    let e = run_program(&src, &Defines::default(), &ProgramOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("source, line 1"), "{e}");
    let src = format!(
        "template <typename T> __global__ void k(T* a) {{ }}\nint main() {{ {} }}\n",
        "k<k<".repeat(300)
    );
    let e = run_program(&src, &Defines::default(), &ProgramOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("source, line 2"), "{e}");
}

/// initcheck: a program whose kernel reads `n` floats of which host code copied the first
/// `written` (and, with `memset`, cudaMemset all of them first).
fn initcheck_program(n: u32, written: u32, memset: bool) -> String {
    format!(
        r#"#include <cstdlib>
__global__ void sum(float* out, const float* a, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 1.0f;
}}
int main() {{
  const int N = {n};
  float* h = (float*)calloc(N, sizeof(float));
  float *a, *out;
  cudaMalloc(&a, N * sizeof(float));
  cudaMalloc(&out, N * sizeof(float));
  if ({memset}) cudaMemset(a, 0, N * sizeof(float));
  cudaMemcpy(a, h, {written} * sizeof(float), cudaMemcpyHostToDevice);
  sum<<<(N + 63) / 64, 64>>>(out, a, N);
  sum<<<(N + 63) / 64, 64>>>(a, out, N);
  cudaDeviceSynchronize();
  return 0;
}}
"#,
        memset = i32::from(memset)
    )
}

#[test]
fn initcheck_names_the_first_unwritten_element_and_counts_every_lane() {
    // 100 floats, the first 40 copied: lanes 40..99 of the first launch read bytes nothing
    // wrote, 60 lane-accesses; the first of them is element 40 of a, thread 40 of block 0.
    let run = run(&initcheck_program(100, 40, false));
    let first = &run.launches[0].analysis;
    assert_eq!(first.uninitialized.len(), 1);
    let u = &first.uninitialized[0];
    assert_eq!(
        (
            u.array.as_deref(),
            u.index,
            u.block,
            u.thread,
            u.occurrences
        ),
        (Some("a"), 40, [0, 0, 0], [40, 0, 0], 60)
    );
    assert_eq!(
        u.sentence(4),
        "line 4, block (0,0,0), thread (40,0,0): reads index 40 of a, which no copy, memset or \
         store has written; on a GPU the value is whatever the memory held (60 lane-accesses \
         read unwritten bytes at this line in all)"
    );
    // The second launch reads what the first stored (every element of out): nothing to report.
    assert!(run.launches[1].analysis.uninitialized.is_empty());
}

#[test]
fn memory_set_or_stored_is_written_whatever_its_value() {
    // cudaMemset writes every byte; the copy of calloc'd zeros after it changes nothing.
    let run = run(&initcheck_program(100, 40, true));
    assert!(run
        .launches
        .iter()
        .all(|l| l.analysis.uninitialized.is_empty()));
    // A launch field's buffers without data hold none, and are not initcheck's: nothing is
    // reported there.
    let a = analyse(
        "__global__ void k(float* o, const float* a) { o[threadIdx.x] = a[threadIdx.x]; }",
        "k<<<1, 32>>>(o, a)",
        Machine::default(),
        0,
        700,
    )
    .unwrap();
    assert!(a.uninitialized.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// Against a brute-force count: with the first `written` of `n` elements copied, the
    /// lanes that read an unwritten element are exactly `n - written`, the first at index
    /// `written`.
    #[test]
    fn initcheck_counts_what_nothing_wrote(n in 1u32..300, cut in 0u32..300) {
        let written = cut.min(n);
        let run = run(&initcheck_program(n, written, false));
        let found = &run.launches[0].analysis.uninitialized;
        let unwritten = (written..n).count() as u64;
        if unwritten == 0 {
            prop_assert!(found.is_empty());
        } else {
            prop_assert_eq!(found.len(), 1);
            prop_assert_eq!(found[0].occurrences, unwritten);
            prop_assert_eq!(found[0].index, i128::from(written));
        }
    }
}

#[test]
fn host_locals_an_array_or_an_address_taken_live_in_host_memory() {
    // A local array is copied to the device and back; a scalar and a struct field are written
    // through their addresses; a loop's array is the same bytes each pass.
    let run = run(r#"#include <cstdio>
struct Pair { int a; float b; };
__global__ void twice(int* v) { v[threadIdx.x] *= 2; }
int main() {
  int h[4] = {1, 2, 3, 4};
  int* d;
  cudaMalloc(&d, sizeof(h));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  twice<<<1, 4>>>(d);
  cudaMemcpy(h, d, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  int first;
  cudaMemcpy(&first, d + 3, sizeof(int), cudaMemcpyDeviceToHost);
  Pair p = {5, 1.5f};
  float* pb = &p.b;
  *pb = 2.5f;
  int total = 0;
  for (int k = 0; k < 3; k++) {
    int tmp[2] = {k, k};
    total += tmp[0] + tmp[1];
  }
  printf("%d %d %d %d, %d, %d %.1f, %d\n", h[0], h[1], h[2], h[3], first, p.a, p.b, total);
  return 0;
}
"#);
    assert_eq!(run.text(), "2 4 6 8, 8, 5 2.5, 6\n");
}

#[test]
fn cuda_get_device_properties_describes_the_model() {
    // The page's model, stated: compute capability from the arch (7.0 by default), the
    // machine's warp, V100's 80 multiprocessors, the cache as L2 (none by default) and the
    // run's device memory limit; a char array member decays to a pointer for %s.
    let run = run(r#"#include <cstdio>
int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("%s|%d.%d|%d|%d|%d|%d|%zu|%d\n", p.name, p.major, p.minor, p.warpSize,
         p.multiProcessorCount, p.maxThreadsPerBlock, p.maxThreadsDim[2], p.totalGlobalMem,
         p.l2CacheSize);
  return 0;
}
"#);
    assert_eq!(
        run.text(),
        "Coalescing Lab model of sm_70 (Volta)|7.0|32|80|1024|64|1073741824|0\n"
    );
    assert!(run.notes.iter().any(|n| n.starts_with(
        "cudaGetDeviceProperties describes this page's model: compute capability 7.0"
    )));
    // Another device is refused: the model has one.
    let (words, _) =
        stops("int main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 1); return 0; }\n");
    assert!(words.contains("this model has one device, 0"), "{words}");
}

/// A linked list, as the OLCF training series' unified-memory exercise builds one: a struct
/// that points to its own type, walked on the host and in a kernel.
const LIST: &str = r#"#include <cstdio>
struct list_elem {
  int key;
  list_elem *next;
};
__global__ void walk(list_elem *list, int n, int *out) {
  list_elem *e = list;
  for (int i = 0; i < n; i++) e = e->next;
  *out = e->key;
}
int main() {
  list_elem *base, *list;
  cudaMallocManaged(&base, sizeof(list_elem));
  list = base;
  for (int i = 0; i < 5; i++) {
    list->key = i * 10;
    cudaMallocManaged(&list->next, sizeof(list_elem));
    list = list->next;
  }
  int *out;
  cudaMallocManaged(&out, sizeof(int));
  walk<<<1, 1>>>(base, 3, out);
  cudaDeviceSynchronize();
  printf("%d %d\n", (int)sizeof(list_elem), *out);
  return 0;
}
"#;

#[test]
fn a_struct_that_points_to_its_own_type_is_read_and_walked() {
    let r = run(LIST);
    assert_eq!(r.error, None);
    // key (4 bytes), padding to 8, next (8 bytes): 16; the fourth element's key, 30.
    assert_eq!(r.text_of(Stream::Stdout), "16 30\n");
    // Three 8-byte loads of next, one 4-byte load of key, one store: one request each.
    assert_eq!(r.launches[0].analysis.total.requests, 5);
}

#[test]
fn a_struct_that_holds_itself_is_refused_with_its_field() {
    let src = "struct A { int x; A inner; };\n__global__ void k(A* a) { a[threadIdx.x].x = 1; }\n\
               int main() { A* d; cudaMalloc(&d, 64); k<<<1, 1>>>(d); return 0; }\n";
    let (e, _) = stops(src);
    assert_eq!(
        e,
        "line 1, column 21: A holds itself (field inner); a struct can hold a pointer to its own \
         type, not its own type"
    );
}

#[test]
fn a_kernel_that_dereferences_a_host_pointer_stops_there() {
    let src = LIST
        .replace(
            "cudaMallocManaged(&base, sizeof(list_elem));",
            "base = (list_elem*)malloc(sizeof(list_elem));",
        )
        .replace("#include <cstdio>", "#include <cstdio>\n#include <cstdlib>");
    let (e, _) = stops(&src);
    // The first `e->next`: the list's head is host memory.
    assert!(
        e.starts_with("line 9, column 35, block (0,0,0), thread (0,0,0): the kernel reads host memory at 0x5555"),
        "{e}"
    );
    assert!(e.contains("faults on a GPU"), "{e}");
}

#[test]
fn std_cout_prints_as_libstdcxx_does_in_order_with_printf() {
    let src = r#"#include <iostream>
#include <iomanip>
#include <cstdio>
using namespace std;
int main() {
  int n = 42;
  float x = 3.14159265f;
  double y = 2.0 / 3.0;
  const char* name = "vadd";
  std::cout << "n = " << n << ", x = " << x << std::endl;
  printf("between\n");
  std::cout << std::fixed << std::setprecision(3) << y << " " << x << '\n';
  std::cout << std::scientific << 12345.678 << std::defaultfloat << " " << 1e-7 << "\n";
  cout << setw(6) << n << "|" << left << setw(6) << n << "|" << right << setfill('0') << setw(4) << 7 << endl;
  std::cout << std::hex << 255 << " " << -1 << std::dec << " " << true << " " << std::boolalpha << false << "\n";
  std::cerr << name << " failed: " << (n > 40) << std::endl;
  std::cout << (void*)0 << " " << std::showbase << std::hex << 0 << " " << 16 << std::internal << std::setw(8) << 255 << std::dec << "\n";
  std::cout << std::setprecision(6) << std::showpos << 1.5 << " " << 3 << std::noshowpos << " " << std::uppercase << std::scientific << 0.00012 << "\n";
  return 0;
}
"#;
    let r = run(src);
    // What this program prints built with g++ 12.2 and its libstdc++ (Debian 12), line for
    // line. x: the float 3.14159265f is 3.1415927410125732 as a double, "3.14159" at 6 digits;
    // a null pointer is "0", a zero under showbase has no "0x", and internal padding goes
    // after the "0x" with the fill set before ('0').
    assert_eq!(
        r.text_of(Stream::Stdout),
        "n = 42, x = 3.14159\nbetween\n0.667 3.142\n1.235e+04 1e-07\n    42|42    |0007\nff ffffffff 1 false\n0 0 0x100x0000ff\n+1.5 +3 1.200000E-04\n"
    );
    // The format stays with its stream: standard error has its own (boolalpha not set there).
    assert_eq!(r.text_of(Stream::Stderr), "vadd failed: 1\n");
}

#[test]
fn a_value_nothing_wrote_is_not_printed_by_cout() {
    let src = "#include <iostream>\n#include <cstdlib>\nint main() {\n  int* p = (int*)malloc(16);\n  std::cout << p[1] << std::endl;\n  return 0;\n}\n";
    let (e, _) = stops(src);
    assert!(e.starts_with("line 5, column 16:"), "{e}");
    assert!(
        e.contains("a value printed depends on memory that nothing wrote"),
        "{e}"
    );
}
