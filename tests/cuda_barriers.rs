//! A block runs barrier by barrier: each warp runs to its first `__syncthreads()` and parks,
//! then each runs on to its next, so a warp's work after a barrier comes after every other
//! warp's before it. The oracle is the walk that runs each warp to its end in one go
//! ([`CudaJob::whole_warps`]): where no value loaded from memory feeds an address or a branch,
//! the two give the same figures. The random kernels here are such kernels, with barriers in
//! blocks, branches, loops of every kind and device functions called by whole statements: they
//! must give the same analysis both ways, and park every warp at every barrier it reaches.

use coalescing_lab::model::cuda::run::{CudaAnalysis, CudaFailure, CudaJob};
use coalescing_lab::model::kernel::Machine;
use proptest::prelude::*;

/// Runs `source` with `launch`, barrier by barrier or each warp whole: the analysis and the
/// parks.
fn run(source: &str, launch: &str, whole: bool) -> Result<(CudaAnalysis, u64), CudaFailure> {
    let mut job = CudaJob::new(source, launch, Machine::default(), 6 << 20, 700)?;
    if whole {
        job.whole_warps();
    }
    while !job.step(7)? {}
    let parks = job.parks();
    Ok((job.finish(), parks))
}

/// Both ways agree, and every warp parked at every barrier it reached: `barriers` counts
/// each barrier once per block, so the parks are that many times the warps of a block.
fn agrees(source: &str, launch: &str) -> CudaAnalysis {
    let (phased, parks) = run(source, launch, false).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let (whole, none) = run(source, launch, true).unwrap_or_else(|e| panic!("{e}\n{source}"));
    assert_eq!(phased, whole, "{source}\n{launch}");
    assert_eq!(none, 0);
    let warps = u64::from(phased.shape.1);
    assert_eq!(parks, phased.total.barriers * warps, "{source}\n{launch}");
    phased
}

const TILED: &str = "#define T 64
__global__ void k(float* out, const float* in, int n) {
  __shared__ float tile[T];
  float acc = 0;
  for (int t = 0; t < n; t += T) {
    tile[threadIdx.x] = in[t + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < T; j += 16) acc += tile[j];
    __syncthreads();
  }
  out[blockIdx.x * T + threadIdx.x] = acc;
}
";

#[test]
fn a_tiled_loop_parks_each_warp_at_each_of_its_barriers() {
    // 256 / 64 = 4 tiles, two barriers each: 8 a block, 16 in 2 blocks; 2 warps each park at
    // all 8 of their block's.
    let (a, parks) = run(TILED, "k<<<2, 64>>>(out, in, 256)", false).unwrap();
    assert_eq!((a.total.barriers, parks), (16, 32));
    agrees(TILED, "k<<<2, 64>>>(out, in, 256)");
}

const BLOCK_SUM: &str = "__device__ float blockSum(float v, float* s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  return s[0];
}
__device__ float twice(float v, float* s) {
  return blockSum(blockSum(v, s), s);
}
__global__ void r(float* out, const float* in) {
  __shared__ float s[128];
  float v = in[blockIdx.x * 128 + threadIdx.x];
  float t = blockSum(v, s);
  t = blockSum(t, s);
  blockSum(t, s);
  if (threadIdx.x == 0) out[blockIdx.x] = t;
}
";

#[test]
fn a_device_function_called_by_a_whole_statement_parks_inside_it() {
    // Each call reaches 1 + log2(128) = 8 barriers: 3 calls, 24 a block, 72 in 3 blocks;
    // 4 warps park at each.
    let (a, parks) = run(BLOCK_SUM, "r<<<3, 128>>>(out, in)", false).unwrap();
    assert_eq!((a.total.barriers, parks), (72, 288));
    agrees(BLOCK_SUM, "r<<<3, 128>>>(out, in)");
}

#[test]
fn a_function_called_inside_an_expression_runs_past_its_barriers() {
    // `blockSum(blockSum(v, s), s)`: the inner call is inside the outer one's arguments, so
    // its warp cannot park there; both calls' barriers still count, and the figures agree.
    let src = BLOCK_SUM.replace("  blockSum(t, s);\n", "  t = twice(t, s);\n");
    let (phased, parks) = run(&src, "r<<<1, 64>>>(out, in)", false).unwrap();
    let (whole, _) = run(&src, "r<<<1, 64>>>(out, in)", true).unwrap();
    assert_eq!(phased, whole);
    // 64 threads: 1 + 6 = 7 barriers a call, 4 calls: 28, 2 warps. The two calls inside
    // `twice` are reached from its `return` statement: the outer one parks (a whole
    // statement's call), the inner one, an argument, runs past its 7.
    assert_eq!(phased.total.barriers, 28);
    assert_eq!(parks, (28 - 7) * 2);
}

#[test]
fn a_warp_that_fails_before_a_barrier_is_reported_before_one_that_fails_after_it() {
    // Warp 1 divides by zero before the barrier, warp 0 only after it: the hardware cannot
    // reach the second before the first, and neither does the run.
    let src = "__global__ void e(int* a) {
  int z = threadIdx.x - threadIdx.x;
  if (threadIdx.x >= 32) a[threadIdx.x] = 1 / z;
  __syncthreads();
  a[threadIdx.x] = 2 / z;
}
";
    let mut job = CudaJob::new(src, "e<<<1, 64>>>(a)", Machine::default(), 0, 700).unwrap();
    let e = loop {
        match job.step(1) {
            Ok(true) => panic!("ran to its end"),
            Ok(false) => {}
            Err(e) => break e,
        }
    };
    assert_eq!(
        e.to_string(),
        "line 3, column 43, block (0,0,0), thread (32,0,0): 1 / 0 divides by zero"
    );
    let mut whole = CudaJob::new(src, "e<<<1, 64>>>(a)", Machine::default(), 0, 700).unwrap();
    whole.whole_warps();
    let e = loop {
        if let Err(e) = whole.step(1) {
            break e;
        }
    };
    assert_eq!(
        e.to_string(),
        "line 5, column 20, block (0,0,0), thread (0,0,0): 2 / 0 divides by zero"
    );
}

#[test]
fn the_presets_agree_both_ways() {
    for p in coalescing_lab::model::cuda::presets::CUDA_PRESETS {
        agrees(p.source, p.launch);
    }
}

/// A statement of a generated kernel's body.
#[derive(Clone, Debug)]
enum G {
    /// Shared and global accesses at an affine index.
    Access(u8),
    /// `__syncthreads();`
    Barrier,
    /// A branch every thread of a block takes the same way.
    If(Vec<G>, Vec<G>),
    /// A branch that splits warps, with no barrier inside.
    Split(Vec<G>),
    /// `for`, `while` or `do … while`, 1 to 3 times.
    Loop(u8, u8, Vec<G>),
    /// A call of the function with barriers, in one of the whole-statement forms.
    Call(u8),
}

fn g() -> impl Strategy<Value = Vec<G>> {
    let leaf = prop_oneof![
        3 => (0u8..4).prop_map(G::Access),
        2 => Just(G::Barrier),
        1 => (0u8..4).prop_map(G::Call),
    ];
    let stmt = leaf.prop_recursive(3, 24, 4, |inner| {
        let list = prop::collection::vec(inner, 0..4);
        prop_oneof![
            (list.clone(), list.clone()).prop_map(|(a, b)| G::If(a, b)),
            list.clone().prop_map(|l| G::Split(
                l.into_iter()
                    .filter(|s| matches!(s, G::Access(_)))
                    .collect()
            )),
            (0u8..3, 1u8..4, list).prop_map(|(k, n, l)| G::Loop(k, n, l)),
        ]
    });
    prop::collection::vec(stmt, 1..6)
}

fn text(list: &[G], depth: usize, n: &mut usize, out: &mut String) {
    let pad = "    ".repeat(depth + 1);
    for s in list {
        *n += 1;
        let id = *n;
        match s {
            G::Access(k) => {
                let i = match k {
                    0 => "threadIdx.x",
                    1 => "(threadIdx.x * 3) % blockDim.x",
                    2 => "(threadIdx.x + v) % blockDim.x",
                    _ => "blockDim.x - 1 - threadIdx.x",
                };
                out.push_str(&format!(
                    "{pad}s[{i}] = g[blockIdx.x * blockDim.x + {i}];\n{pad}g[blockIdx.x * \
                     blockDim.x + threadIdx.x] = s[{i}];\n"
                ));
            }
            G::Barrier => out.push_str(&format!("{pad}__syncthreads();\n")),
            G::If(a, b) => {
                out.push_str(&format!("{pad}if (blockIdx.x % 2 == {}) {{\n", id % 2));
                text(a, depth + 1, n, out);
                out.push_str(&format!("{pad}}} else {{\n"));
                text(b, depth + 1, n, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            G::Split(a) => {
                out.push_str(&format!("{pad}if (threadIdx.x % 3 == {}) {{\n", id % 3));
                text(a, depth + 1, n, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            G::Loop(kind, trips, body) => {
                let (open, close) = match kind {
                    0 => (
                        format!("for (int i{id} = 0; i{id} < {trips}; i{id}++) {{"),
                        "}".to_string(),
                    ),
                    1 => (
                        format!(
                            "int j{id} = 0;\n{pad}while (j{id} < {trips}) {{\n{pad}    j{id}++;"
                        ),
                        "}".to_string(),
                    ),
                    _ => (
                        format!("int d{id} = 0;\n{pad}do {{\n{pad}    d{id}++;"),
                        format!("}} while (d{id} < {trips});"),
                    ),
                };
                out.push_str(&format!("{pad}{open}\n"));
                text(body, depth + 1, n, out);
                out.push_str(&format!("{pad}{close}\n"));
            }
            G::Call(k) => out.push_str(&match k {
                0 => format!("{pad}step(v, s);\n"),
                1 => format!("{pad}v = step(v, s);\n"),
                2 => format!("{pad}int w{id} = step(v, s);\n{pad}v = w{id} % 7;\n"),
                _ => format!("{pad}v += twice(v, s);\n{pad}v %= 5;\n"),
            }),
        }
    }
}

fn source(body: &[G]) -> String {
    let mut out = String::from(
        "__device__ int step(int v, float *s) {
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = 0; k < 2; k++) {
        if (threadIdx.x % 2 == 0) s[threadIdx.x ^ 1] += 1.0f;
        __syncthreads();
    }
    if (v > 1000) return 0;
    return v + 1;
}
__device__ int twice(int v, float *s) {
    int a = step(v, s);
    return step(a, s);
}
__global__ void k(float *g) {
    __shared__ float s[256];
    int v = threadIdx.x % 4;
",
    );
    let mut n = 0;
    text(body, 0, &mut n, &mut out);
    out.push_str("    g[blockIdx.x * blockDim.x + threadIdx.x] = v;\n}\n");
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn barrier_by_barrier_gives_the_figures_of_whole_warps(
        body in g(),
        threads in prop_oneof![Just(32u32), Just(40), Just(96), Just(128)],
        blocks in 1u32..4,
    ) {
        let src = source(&body);
        let launch = format!("k<<<{blocks}, {threads}>>>(g)");
        agrees(&src, &launch);
    }
}
