//! The CUDA source panel (#27): its permalink parameters (`tab=cuda`, `src`, `launch`, with
//! the kernel view's `cache` and the calculator's machine), and the rows, lines, notes and
//! errors it shows, on the naive transpose whose figures the browser tests read too.

use coalescing_lab::model::cuda::error::Pos;
use coalescing_lab::model::cuda::run::{analyse, propose_launch, CudaFailure, CudaJob};
use coalescing_lab::model::cuda_view::{
    assumed_note, caret, cuda_arch, failure_field, failure_pos, line_rows, notes, readouts,
    site_rows, source_lines, Band, CudaField, CudaInputs, DEFAULT_LAUNCH, DEFAULT_SOURCE,
};
use coalescing_lab::model::kernel::KernelInputs;
use coalescing_lab::model::permalink::{decode, encode, warnings, State, Tab};
use coalescing_lab::model::Machine;
use proptest::prelude::*;

/// The naive transpose of NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++", 1024²
/// floats in 32×32 tiles of 32×8 threads.
const TRANSPOSE: &str = "#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transposeNaive(float *odata, const float *idata) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j+= BLOCK_ROWS)
    odata[x*width + (y+j)] = idata[(y+j)*width + x];
}
";
const TRANSPOSE_LAUNCH: &str = "transposeNaive<<<dim3(32,32), dim3(32,8)>>>(o, i)";

/// The failure of `source` launched with `launch` on the default machine.
fn failure(source: &str, launch: &str) -> CudaFailure {
    match analyse(source, launch, Machine::default(), 0, 700) {
        Ok(a) => panic!("no failure: {:?}", a.total),
        Err(e) => e,
    }
}

// --- The link ---

#[test]
fn tab_cuda_opens_the_panel_and_is_written_back() {
    let state = decode("?v=1&tab=cuda");
    assert_eq!(state.tab, Tab::Cuda);
    assert_eq!(encode(&state), "v=1&tab=cuda");
    assert!(warnings("?v=1&tab=cuda").is_empty());
}

#[test]
fn src_and_launch_travel_as_typed() {
    let query = format!(
        "?v=1&tab=cuda&src={}&launch={}",
        coalescing_lab::model::permalink::escape(TRANSPOSE),
        coalescing_lab::model::permalink::escape(TRANSPOSE_LAUNCH)
    );
    let state = decode(&query);
    assert_eq!(state.cuda_src, TRANSPOSE);
    assert_eq!(state.cuda_launch, TRANSPOSE_LAUNCH);
    assert_eq!(format!("?{}", encode(&state)), query);
    assert!(warnings(&query).is_empty(), "{:?}", warnings(&query));
}

#[test]
fn a_link_without_src_shows_the_default_copy_kernel_with_its_launch() {
    let state = decode("?tab=cuda");
    let inputs = CudaInputs::from_link(&state.cuda_src, &state.cuda_launch);
    assert_eq!(inputs, CudaInputs::default());
    assert_eq!(
        (inputs.source.as_str(), inputs.launch.as_str()),
        (DEFAULT_SOURCE, DEFAULT_LAUNCH)
    );
    // The default page has no query, and the default kernel adds nothing to a link.
    assert_eq!(encode(&State::default()), "");
    assert_eq!(inputs.to_link(), (String::new(), String::new()));
    // It runs at once to figures: 16 blocks of 8 warps, each one load and one store of 4
    // sectors.
    let a = analyse(
        &inputs.source,
        &inputs.launch,
        Machine::default(),
        6 << 20,
        700,
    )
    .unwrap();
    assert_eq!(
        (a.total.requests, a.total.sectors, a.total.excess_sectors()),
        (256, 1024, 0)
    );
}

#[test]
fn a_link_with_src_and_no_launch_gets_a_proposal_naming_what_it_still_needs() {
    let inputs = CudaInputs::from_link(TRANSPOSE, "");
    assert_eq!(inputs.launch, "");
    let p = propose_launch(&inputs.source, 700).unwrap().unwrap();
    assert_eq!(p.launch, "transposeNaive<<<1, 256>>>(odata, idata)");
    assert!(p.missing.is_empty());
    let p = propose_launch("__global__ void k(float* a, int n) { a[n] = 0; }", 700)
        .unwrap()
        .unwrap();
    assert_eq!(
        (p.launch.as_str(), p.missing),
        ("k<<<1, 256>>>(a, n)", vec!["n".to_string()])
    );
    assert_eq!(
        coalescing_lab::model::cuda_view::proposal_text(
            &propose_launch("__global__ void k(float* a, int n) { a[n] = 0; }", 700)
                .unwrap()
                .unwrap()
        ),
        "Replace n with a value, and set the grid and block to the launch you mean."
    );
}

#[test]
fn the_fields_and_the_link_agree_both_ways() {
    let cases = [
        CudaInputs::default(),
        CudaInputs {
            source: DEFAULT_SOURCE.into(),
            launch: "copy<<<1, 32>>>(out, in, 32)".into(),
            ..CudaInputs::default()
        },
        CudaInputs {
            source: TRANSPOSE.into(),
            launch: String::new(),
            ..CudaInputs::default()
        },
        CudaInputs {
            source: TRANSPOSE.into(),
            launch: TRANSPOSE_LAUNCH.into(),
            ..CudaInputs::default()
        },
    ];
    for inputs in cases {
        let (src, launch) = inputs.to_link();
        assert_eq!(
            CudaInputs::from_link(&src, &launch),
            inputs,
            "{src:?} {launch:?}"
        );
    }
    // What a link cannot hold: an emptied source, and the default kernel's launch emptied.
    let emptied = CudaInputs {
        source: String::new(),
        launch: String::new(),
        ..CudaInputs::default()
    };
    assert_eq!(
        CudaInputs::from_link(&emptied.to_link().0, &emptied.to_link().1),
        CudaInputs::default()
    );
}

#[test]
fn the_cache_is_the_kernel_view_s_with_its_check_and_notice() {
    let state = decode("?tab=cuda&cache=0");
    assert_eq!(state.kernel.cache_bytes(Machine::default()), Ok(0));
    assert_eq!(encode(&state), "v=1&tab=cuda&cache=0");
    let bad = "?tab=cuda&cache=100";
    let kernel = decode(bad).kernel;
    assert_eq!(
        kernel.cache_bytes(Machine::default()).unwrap_err().to_string(),
        "cache: must be 0 (no cache) or a multiple of the 128-byte line from 128 to 1073741824 bytes (1 GiB), found '100'"
    );
    assert_eq!(
        warnings(bad),
        ["`cache=100` must be 0 (no cache) or a multiple of the 128-byte line from 128 to 1073741824 bytes (1 GiB), found '100'; using 6291456."]
    );
    assert_eq!(
        KernelInputs::default().cache_bytes(Machine::default()),
        Ok(6 << 20)
    );
}

#[test]
fn the_machine_is_the_calculator_s_arch_warp_sector_and_line() {
    let state = decode("?tab=cuda&arch=cdna3");
    assert_eq!(
        Machine::shown_by(&state.calc),
        Machine {
            warp: 64,
            sector_bytes: 128,
            line_bytes: 128
        }
    );
    assert_eq!(cuda_arch(&state.calc.arch), 700);
    assert_eq!(cuda_arch("fermi-l1"), 200);
    assert_eq!(cuda_arch("nvidia-l1-bypass"), 350);
    let state = decode("?tab=cuda&warp=16&sector=64");
    assert_eq!(
        Machine::shown_by(&state.calc),
        Machine {
            warp: 16,
            sector_bytes: 64,
            line_bytes: 128
        }
    );
    // A bad machine value is the calculator's to name, with its default used.
    let bad = decode("?tab=cuda&warp=100");
    assert_eq!(Machine::shown_by(&bad.calc).warp, 32);
    assert!(
        warnings("?tab=cuda&warp=100")
            .iter()
            .any(|w| w.starts_with("`warp=100`")),
        "{:?}",
        warnings("?tab=cuda&warp=100")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    // Any source and launch as typed, with any characters, survive the link.
    #[test]
    fn any_source_and_launch_round_trip(src in any::<String>(), launch in any::<String>()) {
        let state = State { tab: Tab::Cuda, cuda_src: src, cuda_launch: launch, ..State::default() };
        let query = encode(&state);
        prop_assert_eq!(&decode(&query), &state, "{}", query);
        prop_assert_eq!(encode(&decode(&query)), query.clone());
        for w in warnings(&query) {
            prop_assert!(!w.contains("not a Coalescing Lab parameter") && !w.contains("given"), "{} in {}", w, query);
        }
    }
}

// --- The figures ---

#[test]
fn the_naive_transpose_reads_4_sectors_a_request_and_writes_32() {
    let a = analyse(
        TRANSPOSE,
        TRANSPOSE_LAUNCH,
        Machine::default(),
        6 << 20,
        700,
    )
    .unwrap();
    let rows: Vec<_> = site_rows(&a)
        .into_iter()
        .map(|r| {
            (
                r.line,
                r.column,
                r.kind,
                r.space,
                r.elem,
                r.sums.requests,
                r.sums.sectors,
                r.sums.ideal_sectors,
                r.sums.excess_sectors,
            )
        })
        .collect();
    // 1024 blocks × 8 warps × 4 iterations = 32768 requests a site. The load's lanes read 128
    // consecutive bytes: 4 sectors; the store's 32 lanes are 4096 bytes apart: 32 sectors.
    assert_eq!(
        rows,
        [
            (8, 30, "load", "global", 4, 32768, 131072, 131072, 0),
            (8, 5, "store", "global", 4, 32768, 1048576, 131072, 917504),
        ]
    );
    let lines = line_rows(&a);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (
            lines[0].line,
            lines[0].sums.requests,
            lines[0].sums.sectors,
            lines[0].sums.excess_sectors,
            lines[0].band
        ),
        (8, 65536, 1179648, 917504, Band(4))
    );
    assert_eq!(lines[0].sectors_per_request, "18");
    let figures: Vec<(&str, String)> = readouts(&a, Machine::default(), 6 << 20)
        .into_iter()
        .map(|r| (r.id, r.value))
        .collect();
    for (id, value) in [
        ("k-requests", "65536"),
        ("k-sectors", "1179648"),
        ("k-ideal-sectors", "262144"),
        ("k-excess-sectors", "917504"),
        ("k-sectors-per-request", "18"),
        ("k-dram-bytes", "8388608"),
    ] {
        assert!(
            figures.contains(&(id, value.to_string())),
            "{id}={value} in {figures:?}"
        );
    }
    assert_eq!(
        notes(&a),
        ["1024 blocks of 256 threads, 8 warps each: 8192 warps."]
    );
    let view = source_lines(TRANSPOSE, Some(&a));
    assert_eq!(view.len(), 9);
    assert!(view.iter().all(|l| l.row.is_some() == (l.number == 8)));
}

#[test]
fn host_code_is_listed_in_a_note_and_skipped() {
    let src = "#include <cstdio>\n#include \"helper.h\"\n__global__ void scale(float *a) {\n  a[threadIdx.x] *= 2.0f;\n}\nint main() {\n  scale<<<1, 32>>>(nullptr);\n  return 0;\n}\n";
    let a = analyse(src, "scale<<<1, 32>>>(a)", Machine::default(), 0, 700).unwrap();
    assert_eq!(
        notes(&a)[0],
        "Host code is skipped: main (line 6), #include <cstdio> (line 1), #include \"helper.h\" (line 2)."
    );
    // `*=` reads and writes: a load and a store at the same place.
    let kinds: Vec<&str> = site_rows(&a).iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ["load", "store"]);
}

#[test]
fn a_parse_error_names_the_source_its_line_and_column() {
    // A kernel that does not read is skipped with its error, which stops the launch that
    // names it: the source's field, at the token that does not fit.
    let src = "__global__ void k(float *a) {\n  int i = threadIdx.x\n  a[i] = 0;\n}\n";
    let e = failure(src, "k<<<1, 32>>>(a)");
    assert_eq!(failure_field(&e), CudaField::Source);
    assert_eq!(
        e.to_string(),
        "source, line 3, column 3: expected ';' after the declaration, found 'a'"
    );
    let pos = failure_pos(&e).unwrap();
    assert_eq!(caret(src, pos), "3 |   a[i] = 0;\n  |   ^");
    // What does not even lex stops the whole source, named as such.
    let e = failure(
        "__global__ void k() {\n  /* never closed\n}\n",
        "k<<<1, 32>>>()",
    );
    assert_eq!(failure_field(&e), CudaField::Source);
    assert!(
        e.to_string().starts_with("source, line 2, column 3: "),
        "{e}"
    );
    assert_eq!(failure_pos(&e), Some(Pos { line: 2, column: 3 }));
}

#[test]
fn an_address_from_a_loaded_value_is_an_error_naming_the_load_s_line() {
    let src = "__global__ void scatter(int *out, const int *idx) {\n  int i = threadIdx.x;\n  int j = idx[i];\n  out[j] = 1;\n}\n";
    let e = failure(src, "scatter<<<1, 32>>>(out, idx)");
    assert_eq!(failure_field(&e), CudaField::Source);
    let message = e.to_string();
    assert!(message.starts_with("line 4, column "), "{message}");
    assert!(
        message.contains("the address depends on the value loaded at line 3"),
        "{message}"
    );
    assert_eq!(failure_pos(&e).map(|p| p.line), Some(4));
}

#[test]
fn launch_errors_name_the_launch_field() {
    let src = "__global__ void k(float *a) { a[threadIdx.x] = 0; }";
    for launch in ["k<<<1, 32>>(a)", "other<<<1, 32>>>(a)", "k<<<1, 4096>>>(a)"] {
        let e = failure(src, launch);
        assert_eq!(failure_field(&e), CudaField::Launch, "{launch}: {e}");
        assert_eq!(failure_pos(&e), None);
    }
    assert!(failure(src, "k<<<1, 32>>(a)")
        .to_string()
        .starts_with("launch, column "));
}

#[test]
fn a_source_over_the_reader_s_limit_gets_the_reader_s_message() {
    let big = "x".repeat((1 << 20) + 1);
    let e = match CudaJob::new(&big, "k<<<1, 1>>>()", Machine::default(), 0, 700) {
        Err(e) => e,
        Ok(_) => panic!("read a source over 1 MiB"),
    };
    assert_eq!(
        e.to_string(),
        "source, line 1, column 1: the source is 1048577 bytes; at most 1048576 are read"
    );
}

#[test]
fn branches_on_loaded_values_are_marked_as_assumed() {
    let src = "__global__ void k(float *out, const int *flag) {\n  int i = threadIdx.x;\n  if (flag[i] > 0)\n    out[i] = 1;\n}\n";
    let a = analyse(src, "k<<<1, 32>>>(out, flag)", Machine::default(), 0, 700).unwrap();
    assert_eq!(a.assumed, [3]);
    assert_eq!(
        assumed_note(&a.assumed).unwrap(),
        "Line 3: a condition depends on a value loaded from memory that this model does not know; every lane that reached it was taken to hold it."
    );
    assert!(source_lines(src, Some(&a))[2].assumed);
}

#[test]
fn lines_are_banded_by_their_share_of_the_kernel_s_excess() {
    assert_eq!(
        [0, 1, 10, 11, 25, 26, 50, 51, 100].map(|e| Band::of(e, 100)),
        [0, 1, 1, 2, 2, 3, 3, 4, 4].map(Band)
    );
    assert_eq!(Band::of(u64::MAX, u64::MAX), Band(4));
}

#[test]
fn a_caret_stands_under_the_column() {
    assert_eq!(
        caret("a\nbcd\n", Pos { line: 2, column: 3 }),
        "2 | bcd\n  |   ^"
    );
    assert_eq!(
        caret("a\r\nbcd\r\n", Pos { line: 2, column: 1 }),
        "2 | bcd\n  | ^"
    );
    assert_eq!(caret("a", Pos { line: 0, column: 1 }), "");
}
