//! Several files: `#include "…"` read from the headers given beside the source, as nvcc reads
//! them (beside the including file, then each `-I` folder), their lines in their own band.

use coalescing_lab::model::cuda::files::{split, Headers, Line, Reader, Sources, FILE_SHIFT};
use coalescing_lab::model::cuda::run::program::{run_files, ProgramOptions, Stream};
use coalescing_lab::model::cuda::run::{analyse, read_files, CudaFailure};
use coalescing_lab::model::cuda::Defines;
use coalescing_lab::model::Machine;

/// A kernel in the main file whose loads sit in a header's helper, as the leimao GEMM
/// tutorial's kernels call `load_data_from_global_memory_to_shared_memory`.
const UTILS: &str = "#ifndef UTILS_CUH\n\
#define UTILS_CUH\n\
#define BLOCK 64\n\
__device__ void load(float* tile, const float* in, int n) {\n\
  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
  if (i < n) tile[threadIdx.x] = in[i * 2];\n\
}\n\
#endif\n";

const MAIN: &str = "#include <cstdio>\n\
#include \"utils.cuh\"\n\
#include \"utils.cuh\"\n\
__global__ void k(float* out, const float* in, int n) {\n\
  __shared__ float tile[BLOCK];\n\
  load(tile, in, n);\n\
  __syncthreads();\n\
  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
  if (i < n) out[i] = tile[threadIdx.x];\n\
}\n\
int main() {\n\
  const int n = 128;\n\
  float h[256];\n\
  for (int i = 0; i < 2 * n; i++) h[i] = i;\n\
  float *d_in, *d_out;\n\
  cudaMalloc(&d_in, 2 * n * sizeof(float));\n\
  cudaMalloc(&d_out, n * sizeof(float));\n\
  cudaMemcpy(d_in, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice);\n\
  k<<<n / BLOCK, BLOCK>>>(d_out, d_in, n);\n\
  cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);\n\
  printf(\"%g %g\\n\", h[1], h[127]);\n\
  return 0;\n\
}\n";

fn sources(headers: &Headers) -> Sources<'_> {
    Sources {
        main: "gemm.cu",
        dirs: &[],
        reader: headers,
    }
}

/// [`MAIN`] run with `headers` beside it.
fn run_main(headers: &Headers) -> coalescing_lab::model::cuda::run::program::ProgramRun {
    run_files(
        MAIN,
        &Defines::default(),
        sources(headers),
        &ProgramOptions::default(),
    )
    .unwrap()
}

#[test]
fn a_program_runs_with_its_header_and_its_lines_are_the_header_s() {
    let headers = Headers::of(&[("utils.cuh", UTILS)]);
    let run = run_main(&headers);
    assert_eq!(run.text_of(Stream::Stdout), "2 254\n", "{:?}", run.error);
    assert_eq!(run.launches.len(), 1);
    let a = &run.launches[0].analysis;
    assert_eq!(a.files, ["utils.cuh"]);
    let lines: Vec<(usize, u32)> = a.lines.iter().map(|(l, _)| split(*l)).collect();
    // The main file's barrier (line 7) and line 9 (out and tile), then the header's line 6
    // (in and tile), in that order.
    assert_eq!(lines, [(0, 7), (0, 9), (1, 6)]);
    let (_, header) = &a.lines[2];
    assert_eq!(
        header.requests, 8,
        "4 warps × (the global load, the shared store)"
    );
    // in[i * 2]: a warp's 32 floats spread over 256 bytes, 8 sectors; 4 warps.
    assert_eq!(header.sectors, 32);
    assert_eq!(
        a.lines.iter().map(|(_, f)| f.requests).sum::<u64>(),
        a.total.requests
    );
}

#[test]
fn an_error_in_a_header_names_the_header_and_its_line() {
    let headers = Headers::of(&[("utils.cuh", "#define BLOCK 64\nint x = `;\n")]);
    let e = read_files(MAIN, 700, &Defines::default(), sources(&headers)).unwrap_err();
    let CudaFailure::Source(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(split(e.pos.line), (1, 2));
    assert_eq!(
        e.to_string(),
        "line 2 of utils.cuh, column 9: '`' is not part of CUDA C++"
    );
}

#[test]
fn a_header_that_includes_itself_stops_at_the_depth_limit() {
    let headers = Headers::of(&[("loop.h", "#include \"loop.h\"\n")]);
    let e = read_files(
        "#include \"loop.h\"\n",
        700,
        &Defines::default(),
        sources(&headers),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("#include nests more than 200 files deep"),
        "{e}"
    );
}

#[test]
fn pragma_once_reads_a_header_once() {
    let headers = Headers::of(&[(
        "a.h",
        "#pragma once\n__device__ int twice(int x) { return 2 * x; }\n",
    )]);
    let src = "#include \"a.h\"\n#include \"a.h\"\n__global__ void k(int* o) { o[threadIdx.x] = twice(1); }\n";
    let unit = read_files(src, 700, &Defines::default(), sources(&headers)).unwrap();
    assert_eq!(unit.items.len(), 2, "one twice and one kernel");
}

#[test]
fn a_header_no_file_answers_is_listed_and_its_absence_named() {
    let src = "#include \"missing.cuh\"\n__global__ void k(float* o) { o[threadIdx.x] = 1; }\n";
    let a = analyse(src, "k<<<1, 32>>>(o[32])", Machine::default(), 0, 700).unwrap();
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("#include \"missing.cuh\" (line 1)")),
        "{:?}",
        a.notes
    );
}

/// A disk of a few files, as the command line's reader sees one.
struct Disk(Vec<(&'static str, &'static str)>);

impl Reader for Disk {
    fn read(&self, path: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
    }
}

#[test]
fn includes_are_found_beside_the_including_file_then_in_each_folder() {
    let disk = Disk(vec![
        ("src/inner.h", "#define WHICH 1\n"),
        ("include/inner.h", "#define WHICH 2\n"),
        ("include/outer.h", "#include \"inner.h\"\n"),
        ("src/other/outer.h", "#include \"../inner.h\"\n"),
    ]);
    let dirs = vec!["include".to_string()];
    let which = |main: &str, src: &str| {
        let sources = Sources { main, dirs: &dirs, reader: &disk };
        let src = format!("{src}\n__global__ void k(int* o) {{ o[threadIdx.x] = WHICH; }}\n");
        let unit = read_files(&src, 700, &Defines::default(), sources).unwrap();
        unit.files
            .iter()
            .map(|f| f.path.clone())
            .collect::<Vec<_>>()
    };
    // Beside the main file first.
    assert_eq!(
        which("src/main.cu", "#include \"inner.h\""),
        ["src/inner.h"]
    );
    // Then the -I folder; an included header's own includes start beside it.
    assert_eq!(
        which("main.cu", "#include \"outer.h\""),
        ["include/outer.h", "include/inner.h"]
    );
    assert_eq!(
        which("src/main.cu", "#include \"other/outer.h\""),
        ["src/other/outer.h", "src/inner.h"]
    );
}

#[test]
fn the_page_finds_a_header_by_its_name_whatever_its_folder() {
    let headers = Headers::of(&[("include/cuda_gemm_utils.cuh", "#define T 8\n")]);
    let src = "#include \"../include/cuda_gemm_utils.cuh\"\n__global__ void k(int* o) { o[threadIdx.x] = T; }\n";
    let sources = Sources {
        main: "src/gemm.cu",
        dirs: &[],
        reader: &headers,
    };
    let unit = read_files(src, 700, &Defines::default(), sources).unwrap();
    assert_eq!(unit.files[0].path, "include/cuda_gemm_utils.cuh");
    assert!(unit.includes.is_empty());
}

#[test]
fn a_line_in_a_header_is_worded_with_its_file() {
    let headers = Headers::of(&[("utils.cuh", UTILS)]);
    read_files(MAIN, 700, &Defines::default(), sources(&headers)).unwrap();
    assert_eq!(Line(1 << FILE_SHIFT | 6).to_string(), "line 6 of utils.cuh");
    assert_eq!(Line(6).to_string(), "line 6");
}

#[test]
fn the_views_name_a_header_s_lines_by_their_own_numbers() {
    use coalescing_lab::model::cuda_view::{site_rows, source_lines_in, source_view, SourceRow};
    let headers = Headers::of(&[("utils.cuh", UTILS)]);
    let run = run_main(&headers);
    let a = &run.launches[0].analysis;
    let load = site_rows(a)
        .into_iter()
        .find(|r| r.file.is_some() && r.kind == "load")
        .unwrap();
    assert_eq!((load.number, load.file.as_deref()), (6, Some("utils.cuh")));
    // The header's lines lose their indent in this test's string: `in` is at column 32.
    assert_eq!(load.name, "utils.cuh:6:32 load");
    let rows = source_view(source_lines_in(MAIN, &headers.0, &a.files, Some(a)), None);
    // The main file's 23 lines, the header's name, its 8 lines.
    assert_eq!(rows.len(), 23 + 1 + 8);
    assert_eq!(rows[23], SourceRow::File { path: "utils.cuh".into() });
    let SourceRow::Line(line) = &rows[23 + 6] else {
        panic!()
    };
    assert_eq!(
        (line.number, line.row.as_ref().map(|r| r.accesses)),
        (1 << FILE_SHIFT | 6, Some(2))
    );
}

#[test]
fn a_long_view_leaves_gaps_inside_each_file_not_across_them() {
    use coalescing_lab::model::cuda_view::{source_lines_in, source_view, SourceRow};
    let pad = "// pad\n".repeat(400);
    let header = format!("{pad}__device__ void put(float* o) {{ o[threadIdx.x] = 1; }}\n{pad}");
    let headers = Headers::of(&[("put.cuh", &header)]);
    let src = format!("#include \"put.cuh\"\n{pad}__global__ void k(float* o) {{ put(o); }}\n");
    let unit = read_files(&src, 700, &Defines::default(), sources(&headers)).unwrap();
    let a = coalescing_lab::model::cuda::run::analyse_unit(
        unit,
        "k<<<1, 32>>>(o)",
        Machine::default(),
        0,
    )
    .unwrap();
    let rows = source_view(source_lines_in(&src, &headers.0, &a.files, Some(&a)), None);
    let gaps: Vec<(u32, u32)> = rows
        .iter()
        .filter_map(|r| match r {
            SourceRow::Gap { from, to } => Some((*from, *to)),
            _ => None,
        })
        .collect();
    let h = |n: u32| 1 << FILE_SHIFT | n;
    // The main file carries nothing (the kernel's access is in the header): one gap, 1–402.
    // The header: 1–398 before put's line 401 (2 of context), and 404–801 after it. No gap
    // runs from one file into the next.
    assert_eq!(gaps, [(1, 402), (h(1), h(398)), (h(404), h(801))]);
    assert!(rows.contains(&SourceRow::File { path: "put.cuh".into() }));
}

#[test]
fn a_link_carries_the_headers_packed_and_a_bad_one_is_named() {
    use coalescing_lab::model::cuda_view::{CudaInputs, CudaLink};
    let inputs = CudaInputs {
        source: MAIN.into(),
        launch: String::new(),
        headers: Headers::of(&[("utils.cuh", UTILS)]),
    };
    let link = CudaLink::of(&inputs);
    assert!(!link.hdrz.is_empty() && link.preset.is_empty());
    assert_eq!(link.inputs(), (inputs, None));
    let bad = CudaLink {
        src: MAIN.into(),
        hdrz: "AAAA".into(),
        ..CudaLink::default()
    };
    let (read, notice) = bad.inputs();
    assert!(read.headers.is_empty());
    assert_eq!(
        notice.as_deref(),
        Some("`hdrz=AAAA`: the packed text is not a packed source; the source is read without its headers.")
    );
}

#[test]
fn the_permalink_keeps_hdrz() {
    use coalescing_lab::model::permalink::{decode, encode};
    let state = decode("?tab=cuda&src=x&hdrz=abc");
    assert_eq!(state.cuda_hdrz, "abc");
    assert!(encode(&state).contains("hdrz=abc"));
}

#[test]
fn the_command_line_reads_headers_from_i_folders() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("coalescing-cli-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::write(dir.join("include/utils.cuh"), UTILS).unwrap();
    std::fs::write(dir.join("src/main.cu"), MAIN).unwrap();
    let cli = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap()
    };
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    // Without -I the header is missing: BLOCK is named, with the way to give it.
    let out = cli(&["run", "src/main.cu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("-I DIR on the command line"),
        "{}",
        text(&out.stderr)
    );
    let out = cli(&["run", "src/main.cu", "-I", "include", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["stdout"], "2 254\n");
    let lines = &json["launches"][0]["lines"];
    assert_eq!(lines[2]["line"], 6);
    assert_eq!(lines[2]["file"], "include/utils.cuh");
    assert!(lines[0].get("file").is_none());
    // The gate names the header's own line, as a compiler would.
    let out = cli(&[
        "cuda",
        "src/main.cu",
        "-Iinclude",
        "--launch",
        "k<<<2, 64>>>(o[128], i[256]=iota, 128)",
        "--check",
        "--max-sectors-per-request",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).starts_with("include/utils.cuh:6:32: error: 8.00 sectors per request"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
