//! The CUDA interpreter: the SIMT semantics (divergence, loops, masks, partial warps),
//! accesses of every shape, and its errors to the letter. Each expected figure is derived in
//! its comment from the addresses the kernel makes.

use coalescing_lab::model::cuda::run::{analyse, CudaAnalysis, SiteKind};
use coalescing_lab::model::warp::Figures;
use coalescing_lab::model::{Machine, Space};

/// The figures of `source` launched as `launch`, with no cache.
fn run(source: &str, launch: &str) -> CudaAnalysis {
    match analyse(source, launch, Machine::default(), 0, 700) {
        Ok(a) => a,
        Err(e) => panic!("{launch}: {e}"),
    }
}

/// The error `source` launched as `launch` gives.
fn error(source: &str, launch: &str) -> String {
    match analyse(source, launch, Machine::default(), 0, 700) {
        Ok(a) => panic!("{launch}: no error, {:?}", a.total),
        Err(e) => e.to_string(),
    }
}

/// The figures of the site of `kind` at `line` (the first, if several).
fn site(a: &CudaAnalysis, line: u32, kind: SiteKind) -> Figures {
    a.sites
        .iter()
        .find(|(s, _)| s.pos.line == line && s.kind == kind)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("no {kind:?} at line {line}: {:?}", a.sites))
}

/// (requests, sectors, ideal sectors) of a site.
fn rsi(f: Figures) -> (u64, u64, u64) {
    (f.requests, f.sectors, f.ideal_sectors)
}

const COPY: &str = "__global__ void copy(float* out, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}";

#[test]
fn a_copy_reads_and_writes_four_sectors_per_warp() {
    // 4 blocks of 256 threads: 32 warps, each reading and writing 128 aligned bytes.
    let a = run(COPY, "copy<<<4, 256>>>(out, in)");
    assert_eq!(rsi(site(&a, 3, SiteKind::Load)), (32, 128, 128));
    assert_eq!(rsi(site(&a, 3, SiteKind::Store)), (32, 128, 128));
    assert_eq!(a.sites.len(), 2);
    // The access's column is where its expression begins: `in` at 12, `out` at 3.
    let cols: Vec<(u32, SiteKind)> = a
        .sites
        .iter()
        .map(|(s, _)| (s.pos.column, s.kind))
        .collect();
    assert_eq!(cols, [(12, SiteKind::Load), (3, SiteKind::Store)]);
    assert_eq!(a.shape, (4, 8, 256));
    assert_eq!(
        (a.total.unique_sectors, a.total.requested_bytes),
        (256, 8192)
    );
}

#[test]
fn an_offset_view_straddles_one_more_sector() {
    // `in+1`: each warp's 128 bytes start 4 bytes into a sector, so they touch 5 sectors
    // where 4 would do.
    let a = run(COPY, "copy<<<4, 256>>>(out, in+1)");
    let load = site(&a, 3, SiteKind::Load);
    assert_eq!(rsi(load), (32, 160, 128));
    assert_eq!(load.excess_sectors(), 32);
    assert_eq!(rsi(site(&a, 3, SiteKind::Store)), (32, 128, 128));
}

#[test]
fn a_stride_two_read_fetches_twice_the_sectors_it_needs() {
    let src = "__global__ void s2(float* out, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[2 * i];
}";
    // Lanes 8 bytes apart: 256 bytes, 8 sectors, for 128 requested bytes (ideal 4).
    let a = run(src, "s2<<<1, 64>>>(out, in)");
    assert_eq!(rsi(site(&a, 3, SiteKind::Load)), (2, 16, 8));
}

#[test]
fn both_sides_of_a_branch_run_with_their_own_lanes() {
    let src = "__global__ void k(int* out) {
  int t = threadIdx.x;
  if (t % 2 == 0) {
    out[t] = 1;
  } else {
    out[t + 64] = 2;
  }
  out[t + 128] = 3;
}";
    let a = run(src, "k<<<1, 64>>>(out)");
    // Each side: 2 warps × 16 lanes 8 bytes apart, spanning 128 bytes (4 sectors); the
    // distinct bytes are 64, so 2 sectors would do. After the if, all lanes again.
    let even = site(&a, 4, SiteKind::Store);
    let odd = site(&a, 6, SiteKind::Store);
    assert_eq!((rsi(even), even.requested_bytes), ((2, 8, 4), 128));
    assert_eq!((rsi(odd), odd.requested_bytes), ((2, 8, 4), 128));
    assert_eq!(rsi(site(&a, 8, SiteKind::Store)), (2, 8, 8));
}

#[test]
fn a_branch_no_lane_takes_is_not_a_request() {
    let src = "__global__ void k(int* out) {
  if (threadIdx.x >= 32) out[threadIdx.x] = 1;
}";
    // Only warp 1 of 2 enters.
    let a = run(src, "k<<<1, 64>>>(out)");
    assert_eq!(site(&a, 2, SiteKind::Store).requests, 1);
}

#[test]
fn break_continue_and_return_take_lanes_out() {
    let src = "__global__ void k(int* out, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  for (int j = 0; j < 4; j++) {
    if (j == t % 4) continue;
    if (j > t / 8) break;
    out[t * 4 + j] = j;
  }
  out[200 + t] = 0;
}";
    // n = 24: lanes 24..31 return. For lane t, iteration j stores unless j == t % 4 or
    // j > t / 8 (t / 8 is 0, 1 or 2). The warp runs j = 0..3 while any lane is in.
    let a = run(src, "k<<<1, 32>>>(out, 24)");
    let mut lanes = 0u64;
    let mut requests = 0u64;
    for j in 0..4 {
        let active = (0..24).filter(|t| {
            // Lanes that broke out earlier are gone: a break at j' < j happens when
            // j' > t / 8 and j' != t % 4.
            let broke = (0..j).any(|jj| jj != t % 4 && jj > t / 8);
            !broke && j != t % 4 && j <= t / 8
        });
        let n = active.count() as u64;
        lanes += n;
        requests += u64::from(n > 0);
    }
    let st = site(&a, 7, SiteKind::Store);
    assert_eq!((st.requests, st.requested_bytes), (requests, lanes * 4));
    // Every lane that did not return reaches the end: 24 lanes × 4 bytes.
    assert_eq!(site(&a, 9, SiteKind::Store).requested_bytes, 96);
}

#[test]
fn a_partial_last_warp_has_its_missing_lanes_inactive() {
    // 48 threads: warp 1 holds 16 lanes, 64 bytes, 2 sectors.
    let a = run(COPY, "copy<<<1, 48>>>(out, in)");
    let l = site(&a, 3, SiteKind::Load);
    assert_eq!((rsi(l), l.requested_bytes), ((2, 6, 6), 192));
}

#[test]
fn a_bounds_check_keeps_the_last_warp_partial() {
    let src = "__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2.0f * x[i];
}";
    // n = 1000 over 4 blocks of 256: 32 warps, the last 8 of them (i >= 1000 from warp 31's
    // lane 8 on) partly or wholly out. Warp 31 covers 992..1023: 8 lanes, 1 sector; warps
    // 32.. do not exist. 31 full warps of 4 sectors and one of 1.
    let a = run(src, "scale<<<4, 256>>>(x, 1000)");
    let load = site(&a, 3, SiteKind::Load);
    let store = site(&a, 3, SiteKind::Store);
    assert_eq!(rsi(load), (32, 31 * 4 + 1, 31 * 4 + 1));
    assert_eq!(rsi(store), rsi(load));
    assert_eq!(load.requested_bytes, 4000);
}

#[test]
fn a_float4_access_is_one_sixteen_byte_request() {
    let src = "__global__ void v(float4* out, const float* in) {
  int i = threadIdx.x;
  float4 a = reinterpret_cast<const float4*>(in)[i];
  out[i] = a;
  float b = reinterpret_cast<const float4*>(in)[i].y;
}";
    let a = run(src, "v<<<1, 32>>>(out, in)");
    let f = a
        .sites
        .iter()
        .find(|(s, _)| s.pos.line == 3)
        .map(|(s, f)| (s.elem, *f));
    let (elem, f) = f.unwrap();
    // 32 lanes × 16 bytes = 512 bytes, 16 sectors, in one request.
    assert_eq!((elem, rsi(f)), (16, (1, 16, 16)));
    assert_eq!(rsi(site(&a, 4, SiteKind::Store)), (1, 16, 16));
    // One component of a float4 in memory: a 4-byte access 16 bytes apart.
    let y = site(&a, 5, SiteKind::Load);
    assert_eq!((rsi(y), y.requested_bytes), ((1, 16, 4), 128));
}

#[test]
fn a_struct_copied_whole_is_one_access_per_field() {
    let src = "struct P { float x; float y; float z; };
__global__ void aos(P* out, const P* in) {
  int i = threadIdx.x;
  out[i] = in[i];
}
__global__ void soa(float* x, float* y, float* z) {
  int i = threadIdx.x;
  x[i] = y[i] + z[i];
}";
    // AoS: 3 loads and 3 stores per warp, each lane 12 bytes apart: 384 bytes, 12 sectors
    // per field access, for 128 requested bytes (4 sectors ideal, but the distinct bytes of
    // one field are 128: ideal 4).
    let a = run(src, "aos<<<1, 32>>>(out, in)");
    let loads: Vec<(u32, u64, u64)> = a
        .sites
        .iter()
        .filter(|(s, _)| s.kind == SiteKind::Load)
        .map(|(s, f)| (s.part, f.sectors, f.ideal_sectors))
        .collect();
    assert_eq!(loads, [(0, 12, 4), (1, 12, 4), (2, 12, 4)]);
    assert_eq!(a.total.requests, 6);
    // SoA: 3 accesses of 4 sectors each.
    let b = run(src, "soa<<<1, 32>>>(x, y, z)");
    assert_eq!((b.total.requests, b.total.sectors), (3, 12));
}

#[test]
fn an_atomic_on_one_word_is_one_sector_per_request() {
    let src = "__global__ void count(unsigned int* c, const int* v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (v[i] > 0) atomicAdd(&c[0], 1u);
}";
    let a = run(src, "count<<<2, 64>>>(c, v)");
    let at = site(&a, 3, SiteKind::Atomic);
    // The condition depends on a loaded value: every lane takes the branch, and the line
    // says so.
    assert_eq!((at.requests, at.sectors, at.ideal_sectors), (4, 4, 4));
    assert_eq!(a.assumed, [3]);
}

#[test]
fn extern_shared_memory_is_sized_by_the_launch_and_placed_after_static_arrays() {
    let src = "__global__ void rev(float* out, const float* in) {
  __shared__ int flag[3];
  extern __shared__ float s[];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[blockDim.x - 1 - t];
  flag[0] = 1;
}";
    let a = run(src, "rev<<<1, 64, 256>>>(out, in)");
    let st = site(&a, 5, SiteKind::Store);
    let ld = site(&a, 7, SiteKind::Load);
    // Consecutive words: one wavefront per request, no conflict.
    assert_eq!((st.requests, st.wavefronts, st.bank_conflicts()), (2, 2, 0));
    assert_eq!((ld.requests, ld.wavefronts, ld.bank_conflicts()), (2, 2, 0));
    assert_eq!(a.total.barriers, 1);
    let spaces: Vec<(SiteKind, Space)> = a.sites.iter().map(|(s, _)| (s.kind, s.space)).collect();
    use SiteKind::*;
    assert_eq!(
        spaces,
        [
            (Load, Space::Global),
            (Store, Space::Shared),
            (Barrier, Space::Global),
            (Load, Space::Shared),
            (Store, Space::Global),
            (Store, Space::Shared)
        ]
    );
    // The dynamic array starts after the static one (12 bytes, rounded up to 16): its
    // words fall on banks 4.. — still one wavefront for 32 consecutive words.
    assert_eq!(site(&a, 8, SiteKind::Store).wavefronts, 2);
}

#[test]
fn templates_macros_and_device_functions_are_instantiated_and_inlined() {
    let src = "#define IDX(b, t) ((b) * blockDim.x + (t))
template <typename T> __device__ T twice(T v) { return v + v; }
template <typename T, int S>
__global__ void copy(T* out, const T* in) {
  int i = IDX(blockIdx.x, threadIdx.x);
  out[i] = twice(in[i * S]);
}";
    // doubles with a stride of 2: lanes 16 bytes apart, 512 bytes, 16 sectors for 256
    // requested bytes (ideal 8).
    let a = run(src, "copy<double, 2><<<1, 32>>>(out, in)");
    let l = site(&a, 6, SiteKind::Load);
    assert_eq!((rsi(l), l.requested_bytes), ((1, 16, 8), 256));
    assert_eq!(rsi(site(&a, 6, SiteKind::Store)), (1, 8, 8));
}

#[test]
fn nvidia_samples_shared_memory_helper_and_cooperative_groups_run() {
    // The pattern of cuda-samples' reduction: SharedMemory<T> and a thread block.
    let src = "#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  cg::sync(cta);
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    cg::sync(cta);
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
int main() { return 0; }";
    let a = run(src, "reduce0<float><<<2, 64, 256>>>(in, out, 128)");
    // Barriers: one after the load, one per iteration (s = 1, 2, 4, 8, 16, 32): 7 per block.
    assert_eq!(a.total.barriers, 14);
    // The final store: one lane of warp 0 in each block.
    assert_eq!(rsi(site(&a, 23, SiteKind::Store)), (2, 2, 2));
    // Interleaved addressing: at s = 1 the active lanes are the even ones, 8 bytes apart in
    // shared memory: two lanes per bank pair, 2 wavefronts where 1 would do.
    let first = a
        .sites
        .iter()
        .find(|(s, _)| s.pos.line == 19 && s.kind == SiteKind::Load);
    assert!(first.is_some(), "{:?}", a.sites);
    assert!(
        a.notes.iter().any(|n| n.contains("main (line 25)")),
        "{:?}",
        a.notes
    );
}

#[test]
fn interleaved_reduction_conflicts_where_the_sequential_one_does_not() {
    let src = "__global__ void interleaved(float* g) {
  __shared__ float s[256];
  unsigned int tid = threadIdx.x;
  s[tid] = g[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned int k = 1; k < blockDim.x; k *= 2) {
    int index = 2 * k * tid;
    if (index < blockDim.x) s[index] += s[index + k];
    __syncthreads();
  }
}
__global__ void sequential(float* g) {
  __shared__ float s[256];
  unsigned int tid = threadIdx.x;
  s[tid] = g[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
}";
    let a = run(src, "interleaved<<<1, 256>>>(g)");
    let b = run(src, "sequential<<<1, 256>>>(g)");
    // Sequential addressing: consecutive words, never a conflict.
    let seq: u64 = b
        .sites
        .iter()
        .filter(|(s, _)| s.space == Space::Shared && s.pos.line == 18)
        .map(|(_, f)| f.bank_conflicts())
        .sum();
    assert_eq!(seq, 0);
    // Interleaved, k = 1: lanes 2 words apart, 16 banks used twice: 2 wavefronts per request
    // of the first warp's 32 lanes (index 0..62).
    let inter: u64 = a
        .sites
        .iter()
        .filter(|(s, _)| s.space == Space::Shared && s.pos.line == 8)
        .map(|(_, f)| f.bank_conflicts())
        .sum();
    assert!(inter > 0);
    // Brute force: the conflicts of the load s[index] over every k and warp.
    let mut expected = 0u64;
    let mut k = 1u64;
    while k < 256 {
        for w in 0..8u64 {
            let words: Vec<u64> = (w * 32..w * 32 + 32)
                .map(|t| 2 * k * t)
                .filter(|&i| i < 256)
                .collect();
            if words.is_empty() {
                continue;
            }
            let mut per_bank = vec![std::collections::BTreeSet::new(); 32];
            for i in &words {
                per_bank[(*i % 32) as usize].insert(*i);
            }
            let wavefronts = per_bank.iter().map(|b| b.len() as u64).max().unwrap_or(0);
            expected += wavefronts - 1;
        }
        k *= 2;
    }
    let index_load = a
        .sites
        .iter()
        .filter(|(s, _)| s.space == Space::Shared && s.pos.line == 8 && s.kind == SiteKind::Store)
        .map(|(_, f)| f.bank_conflicts())
        .sum::<u64>();
    assert_eq!(index_load, expected);
}

#[test]
fn errors_name_the_line_the_thread_and_the_values() {
    let gather = "__global__ void g(float* out, const int* idx) {
  int j = idx[threadIdx.x];
  out[j] = 1.0f;
}";
    assert_eq!(
        error(gather, "g<<<1, 32>>>(out, idx)"),
        "line 3, column 3, block (0,0,0), thread (0,0,0): the address depends on the value \
         loaded at line 2, which this model does not know (memory holds what the launch \
         stores; its buffers start with no data)"
    );
    // An access past the top of the address space is that, not a type error.
    let top = "__global__ void k(float* a) {\n  float* p = (float*)0xfffffffffffffffeull;\n  p[threadIdx.x] = 1.0f;\n}\n";
    let e = coalescing_lab::model::cuda::run::CudaJob::new(
        top,
        "k<<<1, 32>>>(a)",
        Machine::default(),
        0,
        700,
    )
    .and_then(|mut j| {
        while !j.step(64)? {}
        Ok(j)
    })
    .err()
    .unwrap();
    let coalescing_lab::model::cuda::run::CudaFailure::Run(run) = &e else {
        panic!("{e}");
    };
    assert_eq!(
        *run.kind,
        coalescing_lab::model::cuda::run::RunErrorKind::AddressOverflow
    );
    assert_eq!(
        e.to_string(),
        "line 3, column 3, block (0,0,0), thread (0,0,0): this access's bytes run past the top \
         of the 64-bit address space"
    );
    let overflow = "__global__ void o(int* out) {
  int big = 2147483600 + (int)threadIdx.x * 2;
  out[big - 2147483600] = 0;
}";
    assert_eq!(
        error(overflow, "o<<<1, 64>>>(out)"),
        "line 2, column 13, block (0,0,0), thread (24,0,0): 2147483600 + 48 overflows int \
         (signed overflow is undefined behaviour)"
    );
    let barrier = "__global__ void b(float* x) {
  if (threadIdx.x < 16) __syncthreads();
  x[threadIdx.x] = 0;
}";
    assert_eq!(
        error(barrier, "b<<<1, 32>>>(x)"),
        "line 2, column 25, block (0,0,0), thread (16,0,0): thread (16,0,0) does not reach \
         this __syncthreads() when others of its block do; every thread of a block must reach \
         a barrier, or none (it is inside the branch at line 2)"
    );
    // Whole warps apart: warp 0 reaches it, warp 1 does not.
    let by_warp = "__global__ void b(float* x) {
  for (int k = 0; k < 2; k++) {
    if (threadIdx.x < 32)
      __syncthreads();
  }
}";
    assert_eq!(
        error(by_warp, "b<<<1, 64>>>(x)"),
        "line 4, column 7, block (0,0,0), thread (32,0,0): thread (32,0,0) ends the kernel \
         without reaching this __syncthreads(), where thread (0,0,0) waits; every thread of a \
         block must reach a barrier, or none (it is inside the branch at line 3)"
    );
    // Two barriers, one for each warp: both lines are named.
    let apart = "__global__ void b(float* x) {
  if (threadIdx.x < 32) {
    __syncthreads();
  } else {
    __syncthreads();
  }
}";
    assert_eq!(
        error(apart, "b<<<1, 64>>>(x)"),
        "line 5, column 5, block (0,0,0), thread (32,0,0): thread (32,0,0) waits at this \
         __syncthreads() while thread (0,0,0) waits at the one of line 3; every thread of a \
         block must reach a barrier, or none (it is inside the branch at line 2)"
    );
    // Warp 0 returns early; warp 1 waits.
    let early = "__global__ void b(float* x) {
  if (threadIdx.x < 32) return;
  __syncthreads();
}";
    assert_eq!(
        error(early, "b<<<1, 64>>>(x)"),
        "line 3, column 3, block (0,0,0), thread (32,0,0): thread (32,0,0) waits at this \
         __syncthreads(), which thread (0,0,0) never reaches: it ends the kernel first; every \
         thread of a block must reach a barrier, or none"
    );
    let recursion = "__device__ int f(int n) { return n == 0 ? 0 : f(n - 1); }
__global__ void r(int* x) { x[f(3)] = 0; }";
    assert_eq!(
        error(recursion, "r<<<1, 32>>>(x)"),
        "line 1, column 47: f calls itself; recursion is left out of the subset this page reads"
    );
    assert_eq!(
        error(COPY, "paste<<<1, 32>>>(a, b)"),
        "launch, column 1: the launch names paste, but the file's kernels are copy"
    );
    assert_eq!(
        error(COPY, "copy<<<1, 32>>>(a)"),
        "launch, column 1: copy (line 1) takes 2 arguments, the launch gives 1"
    );
    assert_eq!(
        error(COPY, "copy<<<1, 32>>>(a, 3)"),
        "launch, column 20: parameter in is a pointer; the launch must name a buffer for it, \
         or pass NULL"
    );
    let endless = "__global__ void e(int* x) { for (int i = 0; ; i += 0) x[0] = i; }";
    assert_eq!(
        error(endless, "e<<<1, 1>>>(x)"),
        "line 1, column 29, block (0,0,0), thread (0,0,0): this loop ran 1048576 iterations \
         for one warp without ending; the run stops (an endless loop?)"
    );
    // Two nested loops of 2^11 iterations each stay within the one-loop limit, but multiply
    // past the warp's budget: the inner loop's 2^20-th iteration in all stops the run.
    let nested = "__global__ void n(int* x) {\n  for (int j = 0; j < 2048; j++)\n    \
                  for (int i = 0; i < 2048; i++) x[0] = i;\n}";
    assert_eq!(
        error(nested, "n<<<1, 1>>>(x)"),
        "line 3, column 5, block (0,0,0), thread (0,0,0): one warp's loops ran more than \
         1048576 iterations in all (loops inside loops multiply); the run stops at this loop"
    );
    assert_eq!(
        error("__global__ void k(int* x) { x[0] = 1 }", "k<<<1, 1>>>(x)"),
        "source, line 1, column 38: expected ';' after the expression, found '}'"
    );
    assert_eq!(
        error(COPY, "copy<<<1, 2000>>>(a, b)"),
        "launch, column 1: a block has 2000 threads; at most 1024"
    );
    assert_eq!(
        error(
            "__global__ void k(int* x, int n) { x[n] = 0; }",
            "k<<<1, 1>>>(x, N)"
        ),
        "launch, column 16: parameter n is an int, but the launch passes the buffer N; give a \
         value"
    );
    assert_eq!(
        error(
            "__global__ void k(int* x, int n) { x[n] = 0; }",
            "k<<<1, 1>>>(x, 2 * M)"
        ),
        "launch, column 16: the argument for n must be a number or a constant expression \
         ('M' is not declared here)"
    );
    assert_eq!(
        error(COPY, "copy<<<1, 32>>>(a, b, c)"),
        "launch, column 23: copy (line 1) takes 2 arguments, the launch gives 3"
    );
}

#[test]
fn cooperative_group_tiles_shuffle_vote_and_reduce_within_their_tile() {
    let src = "#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  int r = tile.thread_rank();
  int v = tile.shfl_down(r, 1);
  out[v * 32] = 0;
  int s = cg::reduce(tile, r, cg::plus<int>());
  out[1000 + s + tile.meta_group_rank() * 0] = 1;
  tile.sync();
  if (tile.any(r == 7)) out[2000 + tile.size()] = 2;
}";
    let a = run(src, "k<<<1, 32>>>(out)");
    // Within tiles of 8, lane t gets the rank of t + 1, and the tile's last lane keeps its
    // own 7: ranks 1 to 7, one sector each (a 32-lane shuffle would give 8).
    assert_eq!(rsi(site(&a, 7, SiteKind::Store)).1, 7);
    // Each tile's ranks sum to 28: every lane writes one word.
    assert_eq!(rsi(site(&a, 9, SiteKind::Store)), (1, 1, 1));
    // Every tile has a lane of rank 7.
    assert_eq!(site(&a, 11, SiteKind::Store).requested_bytes, 128);
}

#[test]
fn a_name_from_an_unread_header_says_how_to_supply_it() {
    let src = "#include \"common.h\"
__global__ void k(int* out) { out[threadIdx.x % BIN_COUNT] = 0; }";
    assert_eq!(
        error(src, "k<<<1, 32>>>(out)"),
        "line 2, column 49: 'BIN_COUNT' is not declared here; if it is a macro from a header, give \
         the header beside the source (under Headers on the page, with -I DIR on the command line), or \
         add its #define to the source"
    );
}

#[test]
fn worst_warps_and_one_warps_executions_hand_off_to_the_calculator() {
    use coalescing_lab::model::cuda::presets::cuda_preset;
    use coalescing_lab::model::cuda::run::CudaJob;
    use coalescing_lab::model::inputs::Inputs;
    use coalescing_lab::model::sectors::analyze;
    use coalescing_lab::model::warp::Measure;
    let p = cuda_preset("transpose-tiled").unwrap();
    let mut job = CudaJob::new(p.source, p.launch, Machine::default(), 6 << 20, 700).unwrap();
    while !job.step(4096).unwrap() {}
    let a = job.finish();
    // The worst by conflicts: a column read of the tile, 32 wavefronts where 1 would do.
    let worst = a.worst_by(Measure::Conflicts);
    assert_eq!(worst.len(), 10);
    let w = &worst[0];
    assert_eq!(a.sites[w.site].0.space, Space::Shared);
    assert_eq!(
        w.cost.wavefronts.map(|x| (x.wavefronts, x.ideal)),
        Some((32, 1))
    );
    // The first comes first in execution order: block 0, warp 0.
    assert_eq!((w.block, w.warp), ([0, 0, 0], 0));
    // By sectors, the global accesses: 4 each, none worse.
    assert!(a
        .worst_by(Measure::Sectors)
        .iter()
        .all(|w| w.cost.sectors == 4));
    // One warp's executions in order: 4 loads and tile stores, then 4 tile reads and stores.
    let ex = job.warp_executions(5, 3).unwrap();
    let kinds: Vec<(u32, SiteKind)> = ex
        .iter()
        .map(|e| (a.sites[e.site].0.pos.line, a.sites[e.site].0.kind))
        .collect();
    assert_eq!(kinds.len(), 16);
    assert_eq!(ex[0].block, [5, 0, 0]);
    // Each one, handed to the calculator as addrs= with its elem and space, costs the same.
    for e in &ex {
        let (site, _) = &a.sites[e.site];
        let calc = Inputs {
            addrs: e.calculator_addrs(32),
            elem: site.elem.to_string(),
            space: site.space.name().into(),
            ..Inputs::default()
        };
        let got = analyze(&calc).unwrap();
        match e.cost.wavefronts {
            Some(w) => assert_eq!(got.banks.unwrap().totals.wavefronts, w.wavefronts),
            None => assert_eq!(got.totals.sectors, e.cost.sectors),
        }
    }
    assert!(job.warp_executions(1024, 0).is_err());
}

#[test]
fn the_rest_of_the_language_runs_as_cpp_says() {
    let src = "namespace cg = cooperative_groups;
typedef float real;
using index_t = int;
constexpr int STRIDE = 2;
__constant__ float coeff[4];
struct Span {
  index_t start;
  __device__ Span(index_t s) : start(s) {}
  __device__ index_t at(index_t k) const { return start + k * STRIDE; }
};
template <typename T> __device__ T pick(T a, T b) { return a; }
template <> __device__ float pick<float>(float a, float b) { return b; }
__global__ void k(real* out, const real* in, unsigned int* flags) {
  index_t t = threadIdx.x;
  Span s(t);
  int n = 0;
  do { n++; } while (n < 3);
  switch (t % 4) {
    case 0: out[s.at(0)] = 1; break;
    case 1: out[s.at(1)] = 2;
    default: out[64 + t] = 3;
  }
  int c = (t < 16) ? (int)in[t] : 0;
  bool both = t >= 8 && in[t + 32] > 0.0f;
  out[100 + (t, t * sizeof(double) / 8)] = coeff[t % 4];
  real v = __ldg(&in[t]);
  atomicCAS(&flags[t % 2], 0u, 1u);
  int src = __shfl_sync(0xffffffffu, t, 31 - t);
  out[200 + src] = v;
  float w = pick(1.0f, 2.0f);
  out[300 + (int)w] = 0;
}";
    let a = run(src, "k<<<1, 32>>>(out, in, flags)");
    let at = |line: u32, kind| site(&a, line, kind);
    // switch: case 0 (8 lanes) at 2t; case 1 falls into default (8 + 24 lanes).
    assert_eq!(at(19, SiteKind::Store).requested_bytes, 8 * 4);
    assert_eq!(at(20, SiteKind::Store).requested_bytes, 8 * 4);
    assert_eq!(at(21, SiteKind::Store).requested_bytes, 24 * 4);
    // ?: reads in[t] only for lanes 0..15; && reads in[t+32] only for lanes 8..31.
    assert_eq!(at(23, SiteKind::Load).requested_bytes, 16 * 4);
    assert_eq!(at(24, SiteKind::Load).requested_bytes, 24 * 4);
    // The comma operator and sizeof: index 100 + t, bytes 400 to 527, which straddle 5
    // sectors; __constant__ reads are not accesses.
    let store26 = at(25, SiteKind::Store);
    assert_eq!((store26.requests, store26.sectors), (1, 5));
    assert!(a
        .sites
        .iter()
        .all(|(s, _)| !(s.pos.line == 25 && s.kind == SiteKind::Load)));
    assert!(
        a.notes.iter().any(|n| n.contains("__constant__")),
        "{:?}",
        a.notes
    );
    // __ldg is a load; atomicCAS an atomic on 2 words, one sector.
    assert_eq!(at(26, SiteKind::Load).requests, 1);
    assert_eq!(rsi(at(27, SiteKind::Atomic)), (1, 1, 1));
    // The shuffle reverses the lanes: still 32 consecutive floats.
    assert_eq!(rsi(at(29, SiteKind::Store)), (1, 4, 4));
    // The explicit specialisation for float returns b = 2: out[302], one lane's word each.
    let w = a.sites.iter().find(|(s, _)| s.pos.line == 31).unwrap();
    assert_eq!(w.1.requested_bytes, 128);
}

#[test]
fn a_loop_bound_read_from_memory_stops_naming_both_lines() {
    let src = "__global__ void k(float* out, const int* len) {
  int n = len[0];
  for (int i = 0; i < n; i++)
    out[i] = 0;
}";
    assert_eq!(
        error(src, "k<<<1, 32>>>(out, len)"),
        "line 3, column 19, block (0,0,0), thread (0,0,0): the loop's condition depends on the \
         value loaded at line 2, which this model does not know (memory holds what the launch \
         stores; its buffers start with no data)"
    );
}

#[test]
fn hostile_nesting_is_refused_before_it_can_exhaust_the_stack() {
    let deep = |open: &str, close: &str, n: usize| {
        format!(
            "__global__ void k(int* o) {{ o[{}threadIdx.x{}] = 0; }}",
            open.repeat(n),
            close.repeat(n)
        )
    };
    let refused = "expressions and statements nest more than 100 levels deep here";
    for src in [
        deep("(", ")", 100_000),
        deep("-", "", 100_000),
        deep("", " + 1", 100_000),
        deep("1 ? ", " : 0", 100_000),
        format!(
            "__global__ void k(int* o) {{ {} o[0] = 0; {} }}",
            "{".repeat(100_000),
            "}".repeat(100_000)
        ),
        format!(
            "__global__ void k(int* o) {{ o[0]{} = 0; }}",
            "[0]".repeat(100_000)
        ),
    ] {
        let e = error(&src, "k<<<1, 32>>>(o)");
        assert!(
            e.starts_with("source, line 1, column ") && e.ends_with(refused),
            "{e}"
        );
    }
    // Ordinary depth reads: 60 parentheses, a sum of 60 terms.
    assert_eq!(
        run(&deep("(", ")", 60), "k<<<1, 32>>>(o)").total.requests,
        1
    );
    assert_eq!(
        run(&deep("", " + 0", 60), "k<<<1, 32>>>(o)").total.requests,
        1
    );
}

#[test]
fn hostile_types_constants_and_sizes_are_refused_with_their_reason() {
    let cases = [
        (
            "struct A { int x; A inner; };\n__global__ void k(A* o) { o[threadIdx.x].x = 0; }",
            "k<<<1, 32>>>(o)",
            "line 1, column 21: A holds itself (field inner); a struct can hold a pointer to its \
             own type, not its own type",
        ),
        (
            "template <int N> struct A { A<N+1> inner; };\n__global__ void k(A<0>* o) { o[threadIdx.x]; }",
            "k<<<1, 32>>>(o)",
            "line 1, column 36: the type A refers to itself, or nests more than 64 types deep",
        ),
        (
            "typedef B A; typedef A B;\n__global__ void k(A* o) { o[threadIdx.x] = 0; }",
            "k<<<1, 32>>>(o)",
            "line 2, column 19: the type A refers to itself, or nests more than 64 types deep",
        ),
        (
            "constexpr int A = B + 1;\nconstexpr int B = A + 1;\n__global__ void k(int* o) { o[A] = 0; }",
            "k<<<1, 32>>>(o)",
            "line 2, column 19: the constant A is defined in terms of itself",
        ),
        (
            "__global__ void k(int* o) { int a[1 << 30]; o[0] = a[0]; }",
            "k<<<1, 32>>>(o)",
            "line 1, column 33: a holds 1073741824 values; a local variable here holds at most \
             4096 (locals are registers)",
        ),
        (
            "__global__ void k(int* o) { __shared__ int s[1 << 30]; s[threadIdx.x] = 1; }",
            "k<<<1, 32>>>(o)",
            "line 1, column 44: the block's shared memory comes to 4294967296 bytes with s; a \
             block has at most 232448",
        ),
        (
            "__global__ void k(int* o) { extern __shared__ int s[]; s[threadIdx.x] = 1; }",
            "k<<<1, 32, 1048576>>>(o)",
            "launch, column 1: 1048576 bytes of dynamic shared memory; a block has at most 232448",
        ),
    ];
    for (src, launch, want) in cases {
        assert_eq!(error(src, launch), want);
    }
}

/// Found by the `cuda_run` fuzz target: `a<b<!c<…` in a launch or a source made the parser try
/// each `<` as template arguments and as a comparison, every way, and a 200-character line
/// took over 30 s. Each position's answer is now found once; the line is refused (or read) at
/// once. The test bounds nothing in time: without the fix it does not end.
#[test]
fn angle_brackets_that_nest_both_ways_parse_in_linear_time() {
    let line = "copyStride2<E<!".repeat(40);
    let e = error(COPY, &format!("{line}2>>>(a)"));
    assert!(e.starts_with("launch, column "), "{e}");
    // In a source the `<`s read as comparisons, and the run names the first unknown name.
    let src = format!("__global__ void k(int* o) {{ o[0] = {line}1; }}");
    let e = error(&src, "k<<<1, 32>>>(o)");
    assert_eq!(e, "line 1, column 36: 'copyStride2' is not declared here");
}

/// Found by the `cuda_run` fuzz target, which it stopped at its 10 s limit: `k<k<sts|…`,
/// nested past the nesting limit, was read again at every depth of nesting and of template
/// arguments. This 2 KB launch took 4.5 s in a debug build; a look-ahead's answer now holds
/// at any depth (and one that ran into the limit, from its depth down), and it takes 0.3 s.
/// Timings are not asserted here; this pins the refusal.
#[test]
fn angle_brackets_nested_past_the_limit_are_refused() {
    let unit = "k<k<sts|k<k<ks<s|kc<s|kct<at<k<ks<s|k<k<sts|k<k<ks<s|kc<s|kct<at<k<ks<s|\
                k<k<sts|k<k<ks<s|kc<s|kct<at<k<k<k<sts|k<k<ks<s|kc<s|kct<at<k<ks<s|k<k<sts|\
                k<k<ks<s|kc<s|kct<at<k<ks<s|kct<<sts|k<k<ks<s|kc<s|kct<at<k<k<k<sts|k<k<ks<s|\
                kc<s|kct<at<k<ks<s|k<k<sts|k<k<ks<s|kc<s|kct<at<k<ks<s|kct<atenum((ct";
    assert_eq!(unit.len(), 293);
    let e = error("__global__ void k(int* a) { }\n", &unit.repeat(7));
    assert!(e.starts_with("launch, column "), "{e}");
}

// Regression: `NULL` in a launch became a buffer named NULL, so a kernel's
// `if (partial != NULL)` counted a store the real launch never makes; `0` and `nullptr` were
// refused.
#[test]
fn a_null_pointer_argument_is_a_null_pointer() {
    let src = "__global__ void k(float *out, float *partial) {\n  if (partial != NULL) partial[threadIdx.x] = 1;\n  out[threadIdx.x] = 2;\n}\n";
    for null in ["NULL", "nullptr", "0"] {
        let a = run(src, &format!("k<<<1, 32>>>(out, {null})"));
        assert_eq!(a.sites.len(), 1, "{null}: only the store to out runs");
        assert_eq!(rsi(site(&a, 3, SiteKind::Store)), (1, 4, 4));
    }
    // A buffer still takes the branch.
    assert_eq!(run(src, "k<<<1, 32>>>(out, partial)").sites.len(), 2);
    assert_eq!(
        error(src, "k<<<1, 32>>>(out, 1)"),
        "launch, column 19: parameter partial is a pointer; the launch must name a buffer for \
         it, or pass NULL"
    );
}

// Regression: a stream argument stopped the launch; it changes no figure.
#[test]
fn a_stream_is_set_aside_with_a_note() {
    let src = "__global__ void k(float *out) { out[threadIdx.x] = 2; }";
    let with = run(src, "k<<<1, 32, 0, stream>>>(out);");
    assert_eq!(with.total, run(src, "k<<<1, 32>>>(out)").total);
    assert!(
        with.notes
            .iter()
            .any(|n| n.starts_with("The launch's stream is set aside")),
        "{:?}",
        with.notes
    );
}

// Regression: a device function called with a global pointer and with a shared one had one
// site, labelled with its first call's space, which counted the shared requests as global.
#[test]
fn one_place_reached_through_global_and_shared_pointers_is_a_site_per_space() {
    let src = "__device__ float get(const float *p, int i) { return p[i]; }
__global__ void k(float *out, const float *in) {
  __shared__ float s[64];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = get(in, threadIdx.x) + get(s, threadIdx.x) + get(s, threadIdx.x + 1);
}";
    let a = run(src, "k<<<1, 32>>>(out, in)");
    let on_line_1: Vec<(Space, u64)> = a
        .sites
        .iter()
        .filter(|(s, _)| s.pos.line == 1)
        .map(|(s, f)| (s.space, f.requests))
        .collect();
    // One warp: one global request, and two shared ones at the same place.
    assert_eq!(on_line_1, [(Space::Global, 1), (Space::Shared, 2)]);
    assert_eq!(site(&a, 1, SiteKind::Load).global_requests(), 1);
}

// Regression: a launch of 2^30 threads that do nothing was refused as making "more than
// 268435456 lane-accesses" (it makes 1024), in the source field; and a budget met while running
// gave no way out.
#[test]
fn budgets_say_what_they_count_and_how_to_shrink_the_run() {
    let idle = "__global__ void k(float *out) { if (blockIdx.x == 0) out[threadIdx.x] = 1; }";
    assert_eq!(
        error(idle, "k<<<1048576, 1024>>>(out)"),
        "launch, column 1: the launch has 1073741824 threads; this model runs at most 268435456 \
         (2^28) in one launch: shrink the grid"
    );
    let long = "__global__ void k(float *o) {\n  for (int i = 0; i < (1 << 19); i++)\n    o[threadIdx.x] = i;\n}";
    let message = error(long, "k<<<1, 32>>>(o)");
    assert!(
        message.starts_with(
            "line 3, column 5, block (0,0,0), thread (0,0,0): one block makes more than 8388608 \
             lane-accesses between two barriers"
        ),
        "{message}"
    );
    assert!(message.ends_with("run it at a smaller size (a smaller #define, a smaller value in the launch, or a smaller grid): the sectors per request and the conflicts per request of most kernels do not depend on the size"), "{message}");
}

// Regression: a name from a missing header was reported as its last part: `x128::size` gave
// "'size' is not declared here".
#[test]
fn a_qualified_name_whose_scope_is_missing_names_the_scope() {
    let src = "__global__ void k(float *o) { o[threadIdx.x * x128::size] = 1; }";
    let message = error(src, "k<<<1, 32>>>(o)");
    assert!(
        message.ends_with(
            "'x128' is not declared here (in x128::size); if it comes from a header, give the \
             header beside the source (under Headers on the page, with -I DIR on the command line), or \
             add its definition to the source"
        ),
        "{message}"
    );
}

// Regression: a launch without the kernel's template argument was reported in the source, at
// the template's line; and `<99999999999>` was taken modulo 2^32.
#[test]
fn a_launch_s_template_arguments_are_checked_in_the_launch() {
    let src = "template <typename T>\n__global__ void offset(T *a, int s) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x + s;\n  a[i] = a[i] + 1;\n}\n";
    assert_eq!(
        error(src, "offset<<<4096, 256>>>(d_a, 1)"),
        "launch, column 1: template parameter T of offset has no argument and no default; give \
         it in the launch: offset<…><<<…>>>(…), a type such as float for a type parameter, a \
         number for a value"
    );
    let rows = "template <int N>\n__global__ void k(float *o) { o[threadIdx.x] = N; }\n";
    assert_eq!(
        error(rows, "k<99999999999><<<1, 32>>>(o)"),
        "launch, column 1: template argument 99999999999 does not fit template parameter N of \
         k, an int (C++ refuses a narrowing template argument)"
    );
    assert_eq!(run(rows, "k<7><<<1, 32>>>(o)").total.requests, 1);
}

// Regression: a grid's y of 65536 and a block's z of 65 were counted; CUDA refuses both.
#[test]
fn cuda_s_limits_on_each_dimension_are_applied() {
    let src = "__global__ void k(float *o) { o[0] = 1; }";
    assert_eq!(
        error(src, "k<<<dim3(1, 65536), 1>>>(o)"),
        "launch, column 1: the grid's y is 65536; CUDA allows at most 65535"
    );
    assert_eq!(
        error(src, "k<<<1, dim3(1, 1, 65)>>>(o)"),
        "launch, column 1: the block's z is 65; CUDA allows at most 64"
    );
    assert_eq!(
        run(src, "k<<<dim3(1, 65535), dim3(1, 1, 64)>>>(o)")
            .total
            .requests,
        65535 * 2
    );
}

// Regression: `out@0xFFFFFFFFFFFFFFF0` wrapped to address 0 silently.
#[test]
fn an_allocation_pinned_past_the_end_of_the_address_space_is_refused() {
    let src = "__global__ void k(float *out) { out[threadIdx.x] = 1; }";
    assert_eq!(
        error(src, "k<<<1, 32>>>(out@0xFFFFFFFFFFFFFFF0[32])"),
        "launch, column 14: out at 0xfffffffffffffff0 reaches past 2^64, the end of the address \
         space"
    );
    // One that ends below 2^64 fits.
    assert_eq!(
        run(src, "k<<<1, 4>>>(out@0xFFFFFFFFFFFFFFE0[4])")
            .total
            .requests,
        1
    );
}

// Regression: 64 KiB of static shared memory was counted; nvcc refuses more than 48 KB.
#[test]
fn static_shared_memory_past_48_kb_is_refused_as_nvcc_refuses_it() {
    let src = "__global__ void k(float *out) {\n  __shared__ float a[12289];\n  a[threadIdx.x] = 1;\n  __syncthreads();\n  out[threadIdx.x] = a[0];\n}";
    let message = error(src, "k<<<1, 32>>>(out)");
    assert!(
        message.ends_with(
            "the block's static shared memory comes to 49156 bytes with a; nvcc refuses more than \
             49152 (48 KB): declare it extern __shared__ and give its size in the launch"
        ),
        "{message}"
    );
    let fits = src.replace("12289", "12288");
    assert_eq!(run(&fits, "k<<<1, 32>>>(out)").total.barriers, 1);
}

#[test]
fn the_launch_field_sees_the_files_macros_types_and_constants() {
    // A teaching file's own launch, copied from its main(): its sizes are a const global,
    // a constexpr one and a #define, its kernel's template argument a typedef.
    let file = "typedef float real;
#define CEIL(a, b) (((a) + (b) - 1) / (b))
const int DSIZE = 4096;
constexpr int block_size = 256;
static const unsigned STRIDE = 2;
template <typename T>
__global__ void vadd(const T* A, T* C, int ds, int stride) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  if (idx < ds) C[idx] = A[idx * stride];
}
int main() {
  real *d_A, *d_C;
  vadd<real><<<(DSIZE + block_size - 1) / block_size, block_size>>>(d_A, d_C, DSIZE, STRIDE);
}
";
    let written = run(
        file,
        "vadd<real><<<(DSIZE + block_size - 1) / block_size, block_size>>>(d_A, d_C, DSIZE, STRIDE);",
    );
    let by_macro = run(
        file,
        "vadd<real><<<CEIL(DSIZE, block_size), block_size>>>(d_A, d_C, DSIZE, STRIDE)",
    );
    let literal = run(file, "vadd<float><<<16, 256>>>(d_A, d_C, 4096, 2)");
    assert_eq!(written.total, literal.total);
    assert_eq!(by_macro.total, literal.total);
    // 128 warps; the stride-2 load touches 8 sectors a warp, the store 4.
    assert_eq!(rsi(site(&written, 9, SiteKind::Load)), (128, 1024, 512));
    assert_eq!(rsi(site(&written, 9, SiteKind::Store)), (128, 512, 512));
    // A variable of the host code is named as what the launch cannot see.
    assert_eq!(
        error(
            file,
            "vadd<real><<<blocks, block_size>>>(d_A, d_C, DSIZE, STRIDE)"
        ),
        "launch, column 14: expected the grid: blocks, or dim3(x, y, z), found 'blocks', which \
         is not a #define or a constant of the file: the launch cannot see the host code's \
         variables"
    );
    // A macro's wrong call stands at the launch's column.
    assert_eq!(
        error(
            file,
            "vadd<real><<<CEIL(DSIZE), 1>>>(d_A, d_C, DSIZE, STRIDE)"
        ),
        "launch, column 14: macro CEIL takes 2 arguments, given 1"
    );
}

#[test]
fn unique_sectors_past_their_budget_are_marked_a_lower_bound_where_they_are_shown() {
    use coalescing_lab::model::cuda::run::CudaJob;
    use coalescing_lab::model::kernel::view::KernelFigure;
    // Each lane reads its own page, 4 KiB apart: every sector a page of its own in the count.
    let src = "__global__ void far(const float* in, float* out) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  out[i] = in[i * 1024];\n}\n";
    let launch = "far<<<64, 256>>>(in, out)";
    let exact = run(src, launch);
    assert!(!exact.total.unique_lower_bound);
    let mut job = CudaJob::new(src, launch, Machine::default(), 0, 700).unwrap();
    // Room for a few pages only.
    job.unique_budget(4096);
    while !job.step(1 << 10).unwrap() {}
    let capped = job.finish();
    assert!(capped.total.unique_lower_bound);
    assert!(capped.total.unique_sectors < exact.total.unique_sectors);
    // The other figures do not depend on the count.
    assert_eq!(
        (
            capped.total.sectors,
            capped.total.requests,
            capped.total.dram_bytes()
        ),
        (
            exact.total.sectors,
            exact.total.requests,
            exact.total.dram_bytes()
        )
    );
    let r = KernelFigure::UniqueSectors.readout(&capped.total, Machine::default(), 0);
    assert_eq!(r.text, format!("≥ {}", capped.total.unique_sectors));
    assert!(
        r.detail
            .starts_with("at least: the count of distinct sectors reached its 512 MiB budget"),
        "{}",
        r.detail
    );
    assert!(
        capped
            .notes
            .iter()
            .any(|n| n.starts_with("Unique sectors are a lower bound")),
        "{:?}",
        capped.notes
    );
    let r = KernelFigure::UniqueSectors.readout(&exact.total, Machine::default(), 0);
    assert_eq!(r.text, exact.total.unique_sectors.to_string());
}

#[test]
fn a_launch_past_its_budget_stops_at_its_first_blocks_rate_and_names_the_define_that_shrinks_it() {
    // 2^20 blocks of 32 threads, each thread 32 loads: 1024 lane-accesses a block, 2^30 in
    // all, four times the 2^28 budget. The first 4 blocks show it.
    let src = "#define N (1 << 25)\n#define K 32\n\
               __global__ void rows(const float* a, float* out) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  float s = 0;\n  for (int k = 0; k < K; k++) s += a[i * K + k];\n  out[i] = s;\n}\n";
    assert_eq!(
        error(src, "rows<<<N / K, K>>>(a, out)"),
        "its first 4 of 1048576 blocks made 4224 lane-accesses: at that rate \
         the launch makes about 1107296256, more than the 268435456 this model counts exactly; \
         run it at a smaller size, such as the define N=2097152 (N is 33554432 here; the \
         defines field, or -D on the command line): the sectors per request and the conflicts \
         per request of most kernels do not depend on the size"
    );
    // The define it names fits: 2^21 threads of 33 lane-accesses, 2^26 in all (run in the
    // bench-sized release build by the CLI's tests, too slow for a debug test).
    // Without a size of the file in the launch, the advice stays general.
    assert!(error(src, "rows<<<1048576, 32>>>(a, out)")
        .ends_with("run it at a smaller size (a smaller #define, a smaller value in the launch, or a smaller grid): the sectors per request and the conflicts per request of most kernels do not depend on the size"));
}
