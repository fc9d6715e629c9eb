//! The `run` command, as a binary: a whole program in, what it prints on its own streams,
//! each launch's figures, and the program's own exit status out.

use serde_json::Value;
use std::process::{Command, Output};

/// `run FILE ARGS…` on `source`, written to a file named by `tag`.
fn run(tag: &str, source: &str, args: &[&str]) -> Output {
    let path = std::env::temp_dir().join(format!(
        "coalescing-cli-run-{tag}-{}.cu",
        std::process::id()
    ));
    std::fs::write(&path, source).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
        .arg("run")
        .arg(&path)
        .args(args)
        .output()
        .expect("the binary runs");
    let _ = std::fs::remove_file(&path);
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

const SCALE: &str = r#"#include <cstdio>
#include <cstdlib>
#define N 256
__global__ void scale(float* a, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) a[i] *= k;
}
int main(int argc, char** argv) {
  float k = argc > 1 ? atoi(argv[1]) : 2;
  float* h = (float*)malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) h[i] = i;
  float* d;
  cudaMalloc(&d, N * sizeof(float));
  cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<N / 128, 128>>>(d, k);
  cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%.1f %.1f\n", h[1], h[N - 1]);
  if (h[1] != k) { fprintf(stderr, "wrong\n"); return 1; }
  return 0;
}
"#;

#[test]
fn run_prints_the_program_then_its_launches() {
    let o = run("text", SCALE, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    // The program's line first; then the launch: 256 threads, 8 warps, a load and a store
    // each of 4 sectors a warp: 16 requests, 64 sectors; the load and the store touch the
    // same 32 distinct sectors, read once and written once: 2 × 32 × 32 bytes of DRAM.
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("2.0 510.0"));
    assert_eq!(lines.next(), Some(""));
    assert!(lines.next().unwrap().starts_with("index  kernel"));
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        row,
        [
            "0", "scale", "15", "2,1,1", "128,1,1", "0", "16", "64", "64", "32", "2048", "0", "0",
            "0"
        ]
    );
}

#[test]
fn run_passes_the_program_s_arguments_and_defines() {
    let o = run("args", SCALE, &["--", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).starts_with(
            "3.0 765.0
"
        ),
        "{}",
        text(&o.stdout)
    );
    let o = run(
        "define",
        &SCALE.replace("argc > 1 ? atoi(argv[1]) : 2", "2"),
        &["-D", "N=128"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).starts_with("2.0 254.0\n"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn run_exits_with_the_program_s_status_and_its_stderr() {
    let src = SCALE
        .replace("argc > 1 ? atoi(argv[1]) : 2", "2")
        .replace("h[1] != k", "h[1] == k");
    let o = run("status", &src, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), "wrong\n");
}

#[test]
fn run_json_has_the_console_and_each_launch() {
    let src = SCALE.replace("argc > 1 ? atoi(argv[1]) : 2", "2");
    let o = run("json", &src, &["--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stdout"], "2.0 510.0\n");
    assert_eq!(v["stderr"], "");
    assert_eq!(v["exit_code"], 0);
    let l = &v["launches"][0];
    assert_eq!(l["kernel"], "scale");
    assert_eq!(l["grid"], serde_json::json!([2, 1, 1]));
    assert_eq!(
        (l["requests"].as_u64(), l["sectors"].as_u64()),
        (Some(16), Some(64))
    );
    assert_eq!(l["sites"].as_array().unwrap().len(), 2);
    assert_eq!(l["lines"][0]["line"], 6);
}

#[test]
fn run_refuses_a_file_without_main_as_bad_input() {
    let o = run("nomain", "__global__ void k(int* a) { a[0] = 1; }\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no main()"), "{}", text(&o.stderr));
}

/// A program that launches a coalesced kernel, then one whose lanes stride 32 floats apart,
/// then one that reads one float past its array; it exits with `argv[1]`.
const GATED: &str = r#"#include <cstdlib>
__global__ void copy(float* o, const float* a) { o[threadIdx.x] = a[threadIdx.x]; }
__global__ void strided(float* o, const float* a) { o[threadIdx.x] = a[threadIdx.x * 32]; }
__global__ void past(float* o, const float* a) { o[threadIdx.x] = a[threadIdx.x + 1]; }
int main(int argc, char** argv) {
  float *a, *o;
  cudaMalloc(&a, 1024 * sizeof(float));
  cudaMalloc(&o, 32 * sizeof(float));
  cudaMemset(a, 0, 1024 * sizeof(float));
  copy<<<1, 32>>>(o, a);
  strided<<<1, 32>>>(o, a);
  if (argc > 2) past<<<1, 1024>>>(a, a);
  cudaDeviceSynchronize();
  return argc > 1 ? atoi(argv[1]) : 0;
}
"#;

#[test]
fn run_check_gates_every_launch_and_names_it() {
    // copy: a warp's 32 floats load as 4 sectors; strided: 32 lanes 128 bytes apart, 32
    // sectors for the load (the store is copy's 4). The load `a[…]` starts at line 3's
    // column 70 (after the 52 characters of the signature and brace, and `o[threadIdx.x] = `).
    let o = run(
        "gate",
        GATED,
        &["--check", "--max-sectors-per-request", "4"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].ends_with(":3:70: error: 32.00 sectors per request, more than --max-sectors-per-request 4 (load, 1 requests) (launch 1, strided)"), "{out}");
    assert!(lines[1].ends_with(": 1 failed"), "{out}");
    assert!(
        text(&o.stderr).contains("1 check failed"),
        "{}",
        text(&o.stderr)
    );
    // A looser limit passes: two launches, two global sites each, one check a site.
    let o = run(
        "gate-pass",
        GATED,
        &["--check", "--max-sectors-per-request", "32"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).ends_with(": every check passed (4 checked over 2 launches)\n"),
        "{}",
        text(&o.stdout)
    );
    // The program's own failure status stands over the gate's.
    let o = run(
        "gate-status",
        GATED,
        &["--check", "--max-sectors-per-request", "4", "--", "3"],
    );
    assert_eq!(o.status.code(), Some(3));
}

#[test]
fn run_check_fails_an_access_out_of_bounds_without_limits() {
    // past: 1024 lanes read a[1..=1024] of a 1024-float allocation: lane 1023 reads one past,
    // at line 4's column 67.
    let o = run("gate-oob", GATED, &["--check", "--", "0", "past"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains(":4:67: error: out of bounds:"), "{out}");
    assert!(out.contains("(launch 2, past)"), "{out}");
}

#[test]
fn run_check_fails_a_load_of_memory_nothing_wrote() {
    // The kernel reads 32 floats of an allocation nothing wrote: initcheck's finding, which
    // fails the gate with no limit given.
    let src = "__global__ void k(float* o, const float* a) { o[threadIdx.x] = a[threadIdx.x]; }\n\
               int main() { float *a, *o; cudaMalloc(&a, 128); cudaMalloc(&o, 128);\n\
               k<<<1, 32>>>(o, a); cudaDeviceSynchronize(); return 0; }\n";
    let o = run("gate-init", src, &["--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains(":1:64: error: uninitialised: line 1, block (0,0,0), thread (0,0,0): reads index 0 of a"), "{out}");
    assert!(out.contains("(launch 0, k)"), "{out}");
}

#[test]
fn run_lists_what_the_checks_found_after_the_launches() {
    // Without --check the run succeeds, and the findings follow the table, launch by launch;
    // the JSON has them per launch.
    let o = run("findings", GATED, &["--", "0", "past"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.ends_with(" (0 to 1023); on a GPU this faults or corrupts other data\n"),
        "{out}"
    );
    assert!(out.contains("\nlaunch 2 (past): out of bounds: line 4, block (0,0,0), thread (1023,0,0): index 1024 is outside the allocation a of 1024 elements"), "{out}");
    let o = run(
        "findings-json",
        GATED,
        &["--format", "json", "--", "0", "past"],
    );
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["launches"][0]["findings"], serde_json::json!([]));
    let f = json["launches"][2]["findings"][0].as_str().unwrap();
    assert!(f.starts_with("out of bounds: line 4,"), "{f}");
}
