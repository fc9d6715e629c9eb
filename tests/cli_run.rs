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
