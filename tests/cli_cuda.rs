//! The `cuda` command, run as a binary: a kernel's source and launch in, the page's totals,
//! per-site and per-line rows out in every format, and the page's messages with exit status 2
//! on bad input. Every expected number is worked out in the comments from the kernel.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// `text` written to a temporary `.cu` file of this test process, named by `tag`.
fn temp_file(tag: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("coalescing-cli-{tag}-{}.cu", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// `cuda FILE --launch LAUNCH ARGS…` on `source` written to a file of its own.
fn cuda(source: &str, launch: &str, args: &[&str]) -> Output {
    // Tests run in parallel: a file each.
    static FILES: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "coalescing-cli-cuda-{}-{}.cu",
        std::process::id(),
        FILES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, source).unwrap();
    let path_text = path.to_str().unwrap().to_string();
    let mut all = vec!["cuda", path_text.as_str(), "--launch", launch];
    all.extend(args);
    let o = cli(&all);
    std::fs::remove_file(&path).unwrap();
    o
}

/// Stdout of a run that must succeed.
fn ok(o: Output) -> String {
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// Stdout of a run that must succeed, as JSON.
fn json(o: Output) -> Value {
    serde_json::from_str(&ok(o)).expect("JSON")
}

/// The message of a run that must fail with bad input: exit 2, one line on stderr.
fn refused(o: Output) -> String {
    assert_eq!(o.status.code(), Some(2), "stdout: {}", stdout(&o));
    assert!(o.stdout.is_empty());
    stderr(&o)
        .strip_prefix("coalescing-lab-cli: ")
        .expect("the binary names itself")
        .trim_end()
        .to_string()
}

/// The naive transpose of a 1024 × 1024 float matrix: each warp reads 32 consecutive floats of
/// a row and writes them down a column.
const TRANSPOSE: &str = "__global__ void t(float* o, const float* i){ int x = blockIdx.x*32+threadIdx.x; int y = blockIdx.y*32+threadIdx.y; int w = gridDim.x*32; for (int j = 0; j < 32; j += 8) o[x*w + (y+j)] = i[(y+j)*w + x]; }\n";
const TRANSPOSE_LAUNCH: &str = "t<<<dim3(32,32), dim3(32,8)>>>(o, i)";

/// Where an access's expression begins: the column of the first character of `text`.
fn column(source: &str, text: &str) -> u64 {
    source.find(text).unwrap() as u64 + 1
}

// The figures of the transpose, worked out from the launch.
//
// 32 × 32 blocks of 32 × 8 threads: 1024 blocks of 8 warps, 8192 warps, each running the loop
// 4 times (j = 0, 8, 16, 24): 32768 requests per site, each of 32 lanes × 4 bytes = 128 bytes,
// 4194304 requested bytes per site.
// - The load `i[(y+j)*w + x]`: the lanes' x are consecutive from a multiple of 32, so a warp
//   reads one aligned 128-byte line, 4 sectors (the ideal): 131072 sectors, 0 excess. Over the
//   launch every element of the 4 MiB input is read once: 131072 distinct sectors, each read
//   from DRAM once (a miss every time): 4194304 bytes.
// - The store `o[x*w + (y+j)]`: neighbouring lanes are a 1024-float row (4096 bytes) apart, so
//   each lane has a sector of its own: 32 per request, 1048576 in all; the ideal is still
//   ⌈128 / 32⌉ = 4 per request, 131072, leaving 917504 in excess. Every element of the 4 MiB
//   output is written once: 131072 distinct sectors. A block writes 32 lines of the output
//   (its 32 rows, its 32 columns) and nobody else does; its 64 lines stay in the 6 MiB LRU
//   cache while the block runs, so each dirty sector is written back once: 4194304 bytes.
//   Each sector takes 8 stores (ty = 0…7 of one j): 1 miss, 7 hits; 917504 hits in all.
// Both sites are on line 1, so its row is the sum; the matrices are apart, so the launch's
// distinct sectors are 262144.
const LOAD: [u64; 10] = [32768, 4194304, 131072, 131072, 0, 131072, 4194304, 0, 0, 0];
const STORE: [u64; 10] = [
    32768, 4194304, 1048576, 131072, 917504, 131072, 4194304, 0, 0, 0,
];
const LINE_1: [u64; 10] = [
    65536, 8388608, 1179648, 262144, 917504, 262144, 8388608, 0, 0, 0,
];
/// The attribute names of a row's figures, in the column order of the constants above.
const FIGURES: [&str; 10] = [
    "requests",
    "requested-bytes",
    "sectors",
    "ideal-sectors",
    "excess-sectors",
    "unique-sectors",
    "dram-bytes",
    "wavefronts",
    "ideal-wavefronts",
    "bank-conflicts",
];

fn cells(figures: &[u64]) -> Vec<String> {
    figures.iter().map(u64::to_string).collect()
}

#[test]
fn the_transpose_s_json_has_the_page_s_totals_and_a_row_per_site_and_line() {
    let json = json(cuda(TRANSPOSE, TRANSPOSE_LAUNCH, &["--format", "json"]));
    let k = &json["readouts"];
    for (id, value) in [
        ("k-requests", 65536),
        ("k-requested-bytes", 8388608),
        ("k-sectors", 1179648),
        // (131072 + 1048576) ÷ 65536 global requests.
        ("k-sectors-per-request", 18),
        ("k-unique-sectors", 262144),
        ("k-dram-bytes", 8388608),
        ("k-wavefronts", 0),
        ("k-bank-conflicts", 0),
        ("k-barriers", 0),
    ] {
        assert_eq!(k[id], value, "{id}");
    }
    // 8388608 requested ÷ 1179648 × 32 transferred bytes = 2/9.
    assert!((k["k-useful"].as_f64().unwrap() - 2.0 / 9.0).abs() < 1e-12);
    // 917504 hits of 1179648 sector accesses = 7/9.
    assert!((k["k-hit-rate"].as_f64().unwrap() - 7.0 / 9.0).abs() < 1e-12);
    assert_eq!(
        json["launch"],
        serde_json::json!({"blocks": 1024, "warps-per-block": 8, "threads-per-block": 256})
    );
    // Sites in the order they first ran: the right-hand side's load before the store.
    let sites = json["accesses"].as_array().unwrap();
    assert_eq!(sites.len(), 2);
    for (site, kind, col, figures) in [
        (&sites[0], "load", column(TRANSPOSE, "i[(y+j)"), LOAD),
        (&sites[1], "store", column(TRANSPOSE, "o[x*w"), STORE),
    ] {
        assert_eq!(
            (&site["line"], &site["column"], &site["kind"]),
            (&Value::from(1), &Value::from(col), &Value::from(kind))
        );
        assert_eq!(
            (&site["space"], &site["elem"]),
            (&"global".into(), &4.into())
        );
        for (name, value) in FIGURES.iter().zip(figures) {
            assert_eq!(site[name], value, "{kind} {name}");
        }
    }
    let lines = json["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["line"], 1);
    for (name, value) in FIGURES.iter().zip(LINE_1) {
        assert_eq!(lines[0][name], value, "line 1 {name}");
        assert_eq!(json["total"][name], value, "total {name}");
    }
    assert_eq!(json["total"]["barriers"], 0);
    assert_eq!(json["assumed-lines"], serde_json::json!([]));
    assert_eq!(json["notes"], serde_json::json!([]));
}

#[test]
fn the_transpose_s_rows_are_the_same_in_text_csv_and_markdown() {
    let (load, store) = (
        column(TRANSPOSE, "i[(y+j)").to_string(),
        column(TRANSPOSE, "o[x*w").to_string(),
    );
    let site = |col: &str, kind: &str, figures: [u64; 10]| {
        let mut row: Vec<String> = ["1", col, kind, "global", "4"].map(String::from).into();
        row.extend(cells(&figures));
        row
    };
    let line = |name: &str| {
        let mut row = vec![name.to_string()];
        row.extend(cells(&LINE_1));
        row.push("0".into());
        row
    };
    let expected = [
        site(&load, "load", LOAD),
        site(&store, "store", STORE),
        line("1"),
        line("total"),
    ];

    let text = ok(cuda(TRANSPOSE, TRANSPOSE_LAUNCH, &[]));
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split_whitespace().map(String::from).collect())
        .filter(|cells: &Vec<String>| cells.first().is_some_and(|c| c == "1" || c == "total"))
        .collect();
    assert_eq!(rows, expected, "{text}");
    assert!(text.contains("\nLaunch: 1024 blocks of 256 threads (8 warps each).\n"));
    assert!(text.starts_with("Requests               65536 "), "{text}");

    let markdown = ok(cuda(TRANSPOSE, TRANSPOSE_LAUNCH, &["--format", "markdown"]));
    let rows: Vec<Vec<String>> = markdown
        .lines()
        .filter(|l| l.starts_with("| 1 |") || l.starts_with("| total |"))
        .map(|l| {
            l.trim_matches(|c| c == '|' || c == ' ')
                .split(" | ")
                .map(String::from)
                .collect()
        })
        .collect();
    assert_eq!(rows, expected, "{markdown}");
    assert!(markdown.contains("| Sectors (request level) | 1179648 |"));

    // CSV: one table, its rows told apart by `row`; the line and total rows leave the site's
    // columns empty and add the barriers.
    let csv = ok(cuda(TRANSPOSE, TRANSPOSE_LAUNCH, &["--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "row,line,column,kind,space,elem,part,requests,requested_bytes,sectors,ideal_sectors,excess_sectors,unique_sectors,dram_bytes,wavefronts,ideal_wavefronts,bank_conflicts,barriers"
    );
    let sums = cells(&LINE_1).join(",");
    assert_eq!(
        lines[1..],
        [
            format!(
                "access,1,{load},load,global,4,0,{},0",
                cells(&LOAD).join(",")
            ),
            format!(
                "access,1,{store},store,global,4,0,{},0",
                cells(&STORE).join(",")
            ),
            format!("line,1,,,,,,{sums},0"),
            format!("total,,,,,,,{sums},0"),
        ]
    );
    assert!(csv.ends_with("\r\n"), "RFC 4180 line ends");
}

// Without a cache nothing is kept between requests: every request-level sector is a DRAM
// transfer, so the store's 1048576 sectors cost 32 MiB instead of 4 MiB.
#[test]
fn without_a_cache_every_request_level_sector_goes_to_dram() {
    let json = json(cuda(
        TRANSPOSE,
        TRANSPOSE_LAUNCH,
        &["--format", "json", "--cache", "0"],
    ));
    assert_eq!(json["accesses"][0]["dram-bytes"], 131072 * 32);
    assert_eq!(json["accesses"][1]["dram-bytes"], 1048576 * 32);
    assert_eq!(json["readouts"]["k-dram-bytes"], 1179648 * 32);
    assert_eq!(
        json["readouts"]["k-hit-rate"],
        Value::Null,
        "no cache, no rate"
    );
}

const COPY: &str = "#include <cuda_runtime.h>
__global__ void copy(float* out, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}\n";

// 2 blocks of 64 threads: 4 warps, each reading and writing 32 consecutive floats from a
// multiple of 128 bytes, 4 sectors each way. The load's 16 sectors are read from DRAM once, the
// store's 16 written back once at the end. The #include is listed as skipped.
#[test]
fn a_copy_read_from_standard_input_moves_each_sector_once() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
        .args(["cuda", "-", "--launch", "copy<<<2, 64>>>(out, in)"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(COPY.as_bytes())
        .unwrap();
    let text = ok(child.wait_with_output().unwrap());
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|cells| cells.first().is_some_and(|c| *c == "4" || *c == "total"))
        .collect();
    let figures = ["4", "512", "16", "16", "0", "16", "512", "0", "0", "0"];
    let site = |head: [&'static str; 5]| [&head[..], &figures].concat();
    let sums = [
        "8", "1024", "32", "32", "0", "32", "1024", "0", "0", "0", "0",
    ];
    assert_eq!(
        rows,
        [
            site(["4", "12", "load", "global", "4"]),
            site(["4", "3", "store", "global", "4"]),
            [&["4"][..], &sums].concat(),
            [&["total"][..], &sums].concat(),
        ],
        "{text}"
    );
    assert!(text.contains("\nLaunch: 2 blocks of 64 threads (2 warps each).\n"));
    assert!(text.ends_with("\nHost code is skipped: #include <cuda_runtime.h> (line 1).\n"));
}

const SHARED: &str = "__global__ void s(float* o) {
  __shared__ float tile[32][32];
  tile[threadIdx.x][threadIdx.y] = 1.0f;
  __syncthreads();
  o[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}\n";

// One block of 32 × 32 threads: 32 warps, warp w with threadIdx.y = w.
// - Line 3 writes a column of the tile: lane x writes word 32x + w, all in bank w, 32 words
//   in one bank: 32 wavefronts where 1 would do, 31 conflicts per request; 1024, 32 and 992.
// - Line 5 reads a row (one wavefront each, 32) and writes 32 consecutive floats of `o`
//   (4 sectors each, 128, written back once: 4096 bytes).
// - Line 4's barrier is no access row; it counts once for the block, on its line's row.
#[test]
fn shared_sites_count_wavefronts_and_a_barrier_counts_on_its_line() {
    let json = json(cuda(
        SHARED,
        "s<<<1, dim3(32, 32)>>>(o)",
        &["--format", "json"],
    ));
    let sites: Vec<Vec<Value>> = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            ["line", "column", "kind", "space"]
                .iter()
                .chain(&FIGURES)
                .map(|name| s[name].clone())
                .collect()
        })
        .collect();
    let row = |line: u64, col: u64, kind: &str, space: &str, figures: [u64; 10]| {
        let mut row = vec![line.into(), col.into(), kind.into(), space.into()];
        row.extend(figures.map(Value::from));
        row
    };
    assert_eq!(
        sites,
        [
            row(
                3,
                3,
                "store",
                "shared",
                [32, 4096, 0, 0, 0, 0, 0, 1024, 32, 992]
            ),
            row(
                5,
                39,
                "load",
                "shared",
                [32, 4096, 0, 0, 0, 0, 0, 32, 32, 0]
            ),
            row(
                5,
                3,
                "store",
                "global",
                [32, 4096, 128, 128, 0, 128, 4096, 0, 0, 0]
            ),
        ]
    );
    let barriers: Vec<(u64, u64)> = json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["line"].as_u64().unwrap(), l["barriers"].as_u64().unwrap()))
        .collect();
    assert_eq!(barriers, [(3, 0), (4, 1), (5, 0)]);
    let k: Vec<u64> = [
        "k-requests",
        "k-sectors",
        "k-sectors-per-request",
        "k-wavefronts",
        "k-bank-conflicts",
        "k-barriers",
    ]
    .map(|id| json["readouts"][id].as_u64().unwrap())
    .into();
    assert_eq!(k, [96, 128, 4, 1056, 992, 1]);
}

// `if (in[i] > 0.0f)` cannot be decided without the values in memory: the model takes it to
// hold for every lane and says which line it assumed.
#[test]
fn a_branch_on_a_loaded_value_is_named_as_assumed() {
    let source = "__global__ void f(float* out, const float* in) {
  int i = threadIdx.x;
  if (in[i] > 0.0f)
    out[i] = 1.0f;
}\n";
    let launch = "f<<<1, 32>>>(out, in)";
    let json = json(cuda(source, launch, &["--format", "json"]));
    assert_eq!(json["assumed-lines"], serde_json::json!([3]));
    assert_eq!(json["accesses"][1]["requests"], 1, "every lane stored");
    let text = ok(cuda(source, launch, &[]));
    assert!(text.ends_with("\nLine 3: the condition depends on a loaded value, which the model does not know; it was taken to hold for every lane.\n"), "{text}");
}

// `__CUDA_ARCH__` follows `--arch`; the machine follows `--warp`, `--sector` and `--line`.
#[test]
fn arch_and_machine_flags_change_what_the_kernel_is_run_on() {
    let source = "__global__ void k(float* a) {
#if __CUDA_ARCH__ >= 800
  a[threadIdx.x * 2] = 0.0f;
#else
  a[threadIdx.x] = 0.0f;
#endif
}\n";
    let launch = "k<<<1, 64>>>(a)";
    let site = |args: &[&str]| {
        let mut all = vec!["--format", "json"];
        all.extend(args);
        let json = json(cuda(source, launch, &all));
        let s = &json["accesses"][0];
        (
            s["line"].as_u64().unwrap(),
            s["requests"].as_u64().unwrap(),
            s["sectors"].as_u64().unwrap(),
        )
    };
    // Two warps of 32 consecutive floats: 4 sectors each.
    assert_eq!(site(&[]), (5, 2, 8));
    // sm_80's path: every other float, 256 bytes a warp, 8 sectors each.
    assert_eq!(site(&["--arch", "800"]), (3, 2, 16));
    // Fermi's L1: one 128-byte sector a warp.
    assert_eq!(site(&["--sector", "128", "--line", "128"]), (5, 2, 2));
    // One 64-lane warp of 256 bytes: 8 sectors.
    assert_eq!(site(&["--warp=64"]), (5, 1, 8));
    // 256-byte sectors with no --line: the line grows to the sector, and a warp's 128 bytes
    // sit in one.
    assert_eq!(site(&["--sector", "256"]), (5, 2, 2));
}

#[test]
fn bad_source_launch_and_run_exit_2_with_the_page_s_message() {
    let bad_number = "__global__ void k(float* a) {\n  int n = 12abc;\n}\n";
    assert_eq!(
        refused(cuda(bad_number, "k<<<1, 32>>>(a)", &[])),
        "source, line 2, column 11: '12abc' is not a number"
    );
    // A kernel the parser cannot read is skipped with its error, which stops the launch of it.
    let no_value = "__global__ void k(float* a) {\n  a[threadIdx.x] = ;\n}\n";
    assert_eq!(
        refused(cuda(no_value, "k<<<1, 32>>>(a)", &[])),
        "source, line 2, column 20: expected an expression, found ';'"
    );
    assert_eq!(
        refused(cuda(COPY, "copy<<<1, 32>>>(out, in", &[])),
        "launch, column 22: expected ',' or ')' after an argument, found 'the end of the launch'"
    );
    // An address computed from a value in memory: the model does not know it.
    let gather =
        "__global__ void g(float* o, const int* idx) {\n  o[idx[threadIdx.x]] = 1.0f;\n}\n";
    assert_eq!(
        refused(cuda(gather, "g<<<1, 32>>>(o, idx)", &[])),
        "line 2, column 3, block (0,0,0), thread (0,0,0): the address depends on the value loaded at line 2, which this model does not know (memory holds what the launch stores; its buffers start with no data)"
    );
}

#[test]
fn bad_flags_are_named_and_a_missing_file_is_an_io_error() {
    let launch = "copy<<<1, 32>>>(out, in)";
    assert_eq!(
        refused(cuda(COPY, launch, &["--arch", "sm_80"])),
        "--arch: must be __CUDA_ARCH__ as a whole number, such as 700 for sm_70, found 'sm_80'"
    );
    assert_eq!(
        refused(cuda(COPY, launch, &["--warp", "65"])),
        "--warp: must be a whole number of lanes from 1 to 64, found '65'"
    );
    // The cache is checked on the machine's own line.
    assert_eq!(
        refused(cuda(COPY, launch, &["--line", "64", "--cache", "96"])),
        "--cache: must be 0 (no cache) or a multiple of the 64-byte line from 64 to 1073741824 bytes (1 GiB), found '96'"
    );
    assert_eq!(
        refused(cli(&["cuda", "kernel.cu"])),
        "cuda needs --launch 'name<<<grid, block>>>(args)', the launch to run"
    );
    // Regression: a file with one kernel got no proposal, where the page proposes one.
    let scale =
        "__global__ void scale(float *a, int n) { if (threadIdx.x < n) a[threadIdx.x] *= 2; }\n";
    let path = temp_file("propose", scale);
    let message = refused(cli(&["cuda", path.to_str().unwrap()]));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        message,
        "cuda needs --launch 'name<<<grid, block>>>(args)', the launch to run; for this file's \
         kernel, try --launch 'scale<<<1, 256>>>(a, n)': replace n with a value, and set the grid \
         and block to the launch you mean."
    );
    // A file that writes its launch: run as written when the launch sees every name in it,
    // proposed with the host variable to replace when not.
    let file = "const int N = 1 << 12;\n#define THREADS 256\n\
                __global__ void scale(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2; }\n\
                int main(int argc, char **argv) {\n  float *d;\n  int n = argc;\n\
                  scale<<<(N + THREADS - 1) / THREADS, THREADS>>>(d, N);\n  scale<<<1, 1>>>(d, n);\n}\n";
    let path = temp_file("written", file);
    let o = cli(&["cuda", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "coalescing-lab-cli: no --launch: running the file's first launch, line 7: \
         scale<<<(N + THREADS - 1) / THREADS, THREADS>>>(d, N);\n"
    );
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    // 4096 threads, each a load and a store of 4 B: 128 warps × 2 requests, 4 sectors each.
    assert_eq!(json["readouts"]["k-requests"], 256, "{json}");
    assert_eq!(json["readouts"]["k-sectors"], 1024, "{json}");
    let host = file.replace("(d, N);\n  scale<<<1, 1>>>", "(d, n);\n  scale<<<1, 1>>>");
    std::fs::write(&path, host).unwrap();
    let message = refused(cli(&["cuda", path.to_str().unwrap()]));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        message,
        "cuda needs --launch 'name<<<grid, block>>>(args)', the launch to run; for the file's \
         launch at line 7, try --launch 'scale<<<(N + THREADS - 1) / THREADS, THREADS>>>(d, n);': \
         replace n with a value: the launch field sees the file's #defines and constants, not the \
         host code's variables."
    );
    // Defines, as nvcc's -D: a #define and a constant's initialiser replaced, each named.
    let sized = "#define N (1 << 24)\nconst int DSIZE = 1 << 20;\n\
                 __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = 0; }\n\
                 int main() { float *d; k<<<DSIZE / 256, 256>>>(d, N); }\n";
    let path = temp_file("defines", sized);
    let file = path.to_str().unwrap().to_string();
    let o = cli(&[
        "cuda",
        &file,
        "-D",
        "DSIZE=1 << 10",
        "-DN=1000",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    // 4 blocks of 8 warps; threads 1000 to 1023 store nothing: 31 full warps and one of 8.
    assert_eq!(json["readouts"]["k-requests"], 32, "{json}");
    assert_eq!(json["readouts"]["k-sectors"], 31 * 4 + 1, "{json}");
    let text = stdout(&cli(&["cuda", &file, "-D", "DSIZE=1 << 10", "-DN=1000"]));
    assert!(
        text.contains(
            "Defines: N=1000 replaced the #define of line 1; DSIZE=1 << 10 replaced the \
             initialiser of the constant DSIZE, line 2."
        ),
        "{text}"
    );
    assert_eq!(
        refused(cli(&["cuda", &file, "-D", "N="])),
        "-D N= has no value: write N=VALUE, or N alone for 1"
    );
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        refused(cli(&["trace", "-", "-D", "N=1"])),
        "-D is cuda's: a define given beside a CUDA source"
    );
    assert_eq!(
        refused(cli(&["trace", "-", "--sector", "64"])),
        "--sector: only cuda takes a machine (kernel takes its link's, trace Volta's)"
    );
    // Exit status 1 for I/O, as for every command; the message names the file.
    let o = cli(&["cuda", "/no/such/kernel.cu", "--launch", launch]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("coalescing-lab-cli: /no/such/kernel.cu: "));
    // Regression: a file that is not UTF-8 was an I/O error (exit 1) with Rust's words.
    let path =
        std::env::temp_dir().join(format!("coalescing-cli-latin1-{}.cu", std::process::id()));
    std::fs::write(
        &path,
        b"// caf\xe9\n__global__ void k(float *o) { o[0] = 1; }\n",
    )
    .unwrap();
    let text = path.to_str().unwrap().to_string();
    let message = refused(cli(&["cuda", &text, "--launch", "k<<<1, 1>>>(o)"]));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        message,
        format!("{text}: not UTF-8 text at byte offset 6; save the file as UTF-8")
    );
}

// Regression: `--help` and `-h` exited 2 with "'--help' is not a subcommand".
#[test]
fn help_prints_the_usage_on_stdout_and_exits_0() {
    for args in [&["--help"][..], &["-h"], &["help"], &["cuda", "--help"]] {
        let o = cli(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(
            stdout(&o).starts_with("usage: coalescing-lab-cli "),
            "{args:?}"
        );
        assert!(o.stderr.is_empty());
    }
}

/// The tiled transpose with its barrier removed, on a 4 × 4 grid of 32 × 8 blocks.
const RACY: &str = "#define TILE 32
__global__ void t(float *odata, const float *idata) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  int width = gridDim.x * TILE;
  for (int j = 0; j < TILE; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}
";

#[test]
fn the_gate_prints_failures_as_compilers_do_and_exits_1() {
    let o = cuda(
        RACY,
        "t<<<dim3(4, 4), dim3(32, 8)>>>(odata, idata)",
        &[
            "--check",
            "--max-sectors-per-request",
            "4",
            "--max-conflicts",
            "0",
            "--no-races",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "coalescing-lab-cli: 3 checks failed\n");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    // The column read of the tile: 16 blocks × 8 warps × 4 iterations = 512 requests, each
    // 32 lanes on one bank: 31 conflicts each, 15872 in all. Both global sites are 4 sectors
    // per request, within the limit.
    assert!(
        lines[0].ends_with(
            ".cu:12:34: error: 15872 bank conflicts over 512 requests, more than --max-conflicts 0"
        ),
        "{out}"
    );
    assert!(
        lines[1].ends_with(
            ".cu:12:34: error: block-scope race: line 12 reads tile[0][1], which warp 0 wrote at \
         line 8 with no __syncthreads() between: add one after line 8"
        ),
        "{out}"
    );
    assert!(
        lines[2].contains(".cu:12:34: error: warp-scope race: line 12 reads tile[8][0]"),
        "{out}"
    );
    assert!(lines[3].ends_with(".cu: 3 failed"), "{out}");
    assert_eq!(lines.len(), 4);
}

#[test]
fn the_gate_passes_a_good_kernel_and_judges_sectors_and_excess() {
    let fixed = RACY.replace("  x = blockIdx.y", "  __syncthreads();\n  x = blockIdx.y");
    let launch = "t<<<dim3(4, 4), dim3(32, 8)>>>(odata, idata)";
    // With the barrier, only the tile's conflicts remain.
    let o = cuda(
        &fixed,
        launch,
        &["--check", "--max-sectors-per-request", "4", "--no-races"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).ends_with(".cu: every check passed (3 checked)\n"),
        "{}",
        stdout(&o)
    );
    // The naive copy through an offset view: 5 sectors where 4 would do, 20% excess.
    let copy = "__global__ void copy(float* out, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}
";
    let o = cuda(
        copy,
        "copy<<<1, 64>>>(out, in+1)",
        &["--max-sectors-per-request", "4.5", "--max-excess", "10"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with(
        ".cu:3:12: error: 5.00 sectors per request, more than --max-sectors-per-request 4.5 (load, 2 requests)"
    ), "{out}");
    assert!(lines[1].ends_with(
        ".cu:3:12: error: 2 excess sectors are 20.0% of its 10 sectors, more than --max-excess 10%"
    ), "{out}");
    // Out of bounds fails any check: `out` declared 48 floats long.
    let o = cuda(copy, "copy<<<1, 64>>>(out[48], in)", &["--check"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            ".cu:3:3: error: out of bounds: line 3, block (0,0,0), thread (48,0,0): index 48 is \
         outside the allocation out of 48 elements (0 to 47)"
        ),
        "{out}"
    );
    // Regression: a read below the start of the array passed the gate (a stencil's halo run
    // off its start), even with races left out.
    let halo = "__global__ void k(float *out, const float *in) {\n  int i = threadIdx.x;\n  out[i] = in[i - 3];\n}\n";
    let o = cuda(
        halo,
        "k<<<1, 32>>>(out[32], in[32])",
        &["--check", "--no-races"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            ".cu:3:12: error: out of bounds: line 3, block (0,0,0), thread (0,0,0): index -3 is \
         outside the allocation in of 32 elements (0 to 31)"
        ),
        "{out}"
    );
    // A limit that is not a number is bad input.
    assert_eq!(
        refused(cuda(
            copy,
            "copy<<<1, 64>>>(out, in)",
            &["--max-excess", "ten"]
        )),
        "--max-excess: must be a number of at least 0, found 'ten'"
    );
}

#[test]
fn what_device_printf_prints_comes_first_and_is_in_the_json() {
    let file = temp_file(
        "printf",
        "__global__ void hello(const int* v) {\n  printf(\"thread %d has %d\\n\", threadIdx.x, v[threadIdx.x]);\n}\n",
    );
    let path = file.to_str().unwrap();
    let out = cli(&["cuda", path, "--launch", "hello<<<1, 3>>>(v[3]=iota)"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("thread 0 has 0\nthread 1 has 1\nthread 2 has 2\nRequests "),
        "{text}"
    );
    let out = cli(&[
        "cuda",
        path,
        "--launch",
        "hello<<<1, 3>>>(v[3]=iota)",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["output"],
        "thread 0 has 0\nthread 1 has 1\nthread 2 has 2\n"
    );
}
