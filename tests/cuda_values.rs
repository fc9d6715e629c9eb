//! Device memory holds values: a load of bytes a store wrote gives the stored value, with its
//! type, so an address or a loop that depends on data the kernel itself wrote runs. A block
//! runs barrier by barrier, so a warp reads what every other warp stored before the barrier.
//! Bytes nothing wrote (the launch field's buffers hold no data) still load as unknown, and a
//! drill-down into a warp whose run read values replays the launch up to it.

use coalescing_lab::model::cuda::run::{CudaAnalysis, CudaJob, SiteKind, WarpExecution};
use coalescing_lab::model::kernel::Machine;
use coalescing_lab::model::Space;

fn run(source: &str, launch: &str) -> (CudaJob, CudaAnalysis) {
    let mut job = CudaJob::new(source, launch, Machine::default(), 6 << 20, 700)
        .unwrap_or_else(|e| panic!("{e}"));
    while !job.step(5).unwrap_or_else(|e| panic!("{e}")) {}
    let a = job.finish();
    (job, a)
}

/// The error that stops `source` with `launch` (run each warp whole when `whole`).
fn stops(source: &str, launch: &str, whole: bool) -> String {
    let mut job =
        CudaJob::new(source, launch, Machine::default(), 0, 700).unwrap_or_else(|e| panic!("{e}"));
    if whole {
        job.whole_warps();
    }
    loop {
        match job.step(5) {
            Err(e) => break e.to_string(),
            Ok(true) => panic!("ran to its end"),
            Ok(false) => {}
        }
    }
}

/// The figures of the site at `line` of kind `kind` in `space`.
fn site(a: &CudaAnalysis, line: u32, kind: SiteKind, space: Space) -> (u64, u64, u64) {
    let (_, f) = a
        .sites
        .iter()
        .find(|(s, _)| s.pos.line == line && s.kind == kind && s.space == space)
        .unwrap_or_else(|| panic!("no {kind:?} at line {line}"));
    (f.requests, f.sectors, f.ideal_sectors)
}

const GATHER: &str = "__global__ void perm(float* out, const float* in) {
  __shared__ int idx[64];
  idx[threadIdx.x] = (threadIdx.x * 5) % 64;
  __syncthreads();
  int j = idx[63 - threadIdx.x];
  out[blockIdx.x * 64 + threadIdx.x] = in[blockIdx.x * 64 + j];
}
";

#[test]
fn a_table_built_in_shared_memory_gives_a_gathers_addresses() {
    let (_, a) = run(GATHER, "perm<<<2, 64>>>(out, in)");
    // Thread t reads in[64b + (63 − t)·5 mod 64]: each warp's 32 lanes land on all 8 sectors
    // of the block's 64 floats, where 4 would do; the store is coalesced.
    assert_eq!(site(&a, 6, SiteKind::Load, Space::Global), (4, 32, 16));
    assert_eq!(site(&a, 6, SiteKind::Store, Space::Global), (4, 16, 16));
    // Warp 0 reads entries 32–63, which warp 1 writes: only barrier by barrier are they
    // written when warp 0 reads them. Run whole, warp 0 finds them unknown.
    let e = stops(GATHER, "perm<<<2, 64>>>(out, in)", true);
    assert!(e.contains("depends on the value loaded at line 5"), "{e}");
}

#[test]
fn a_value_is_loaded_with_the_type_it_was_stored_with() {
    let src = "__global__ void types(float* out) {
  __shared__ signed char c[32];
  __shared__ unsigned short h[32];
  __shared__ long long q[32];
  __shared__ float f[32];
  __shared__ double d[32];
  __shared__ float* p[32];
  int t = threadIdx.x;
  c[t] = -t;
  h[t] = 65535 - t;
  q[t] = -(1LL << 40) + t;
  f[t] = t * 0.5f;
  d[t] = t * 0.25;
  p[t] = out + 2 * t;
  __syncthreads();
  out[64 + c[t]] = 0;
  out[h[t] - 65400] = 0;
  out[(int)(q[t] + (1LL << 40))] = 0;
  out[(int)(f[t] * 2.0f)] = 0;
  out[(int)(d[t] * 4.0)] = 0;
  *p[t] = 1;
}
";
    let (job, a) = run(src, "types<<<1, 32>>>(out)");
    let ex = job.warp_executions(0, 0).unwrap();
    let lanes = |line: u32| -> Vec<u64> {
        let s = a
            .sites
            .iter()
            .position(|(s, _)| {
                s.pos.line == line && s.kind == SiteKind::Store && s.space == Space::Global
            })
            .unwrap();
        let e: &WarpExecution = ex.iter().find(|e| e.site == s).unwrap();
        e.addresses.iter().map(|x| (x - 0x1000_0000) / 4).collect()
    };
    let t: Vec<u64> = (0..32).collect();
    assert_eq!(
        lanes(16),
        t.iter().map(|t| 64 - t).collect::<Vec<_>>(),
        "signed char"
    );
    assert_eq!(
        lanes(17),
        t.iter().map(|t| 135 - t).collect::<Vec<_>>(),
        "unsigned short"
    );
    assert_eq!(lanes(18), t, "long long");
    assert_eq!(lanes(19), t, "float");
    assert_eq!(lanes(20), t, "double");
    assert_eq!(
        lanes(21),
        t.iter().map(|t| 2 * t).collect::<Vec<_>>(),
        "a pointer"
    );
}

#[test]
fn bytes_nothing_wrote_still_load_as_unknown() {
    // The launch field's buffers hold no data: the gather through them stops as before.
    let src = "__global__ void g(float* out, const int* idx, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[idx[i]];
}
";
    let e = stops(src, "g<<<1, 32>>>(out, idx, in)", false);
    assert!(e.contains("line 3"), "{e}");
    // An atomic on bytes nothing wrote returns an unknown old value, and leaves its target
    // unknown.
    let src = "__global__ void a(float* out, int* n) {
  int old = atomicAdd(n, 1);
  out[old] = 1;
}
";
    let e = stops(src, "a<<<1, 32>>>(out, n)", false);
    assert!(e.contains("line 3"), "{e}");
}

#[test]
fn atomics_compute_their_values_lane_by_lane() {
    // Lane t's atomicAdd returns 3 + t: the lanes apply it one after another in lane order,
    // each seeing the previous one's sum. The shared counter ends at 3 + 32 = 35, so the last
    // store writes out[35]: in bounds of 36 floats, one past the end of 35.
    let src = "__global__ void a(float* out, int* slot) {
  __shared__ int k;
  if (threadIdx.x == 0) k = 3;
  __syncthreads();
  int mine = atomicAdd(&k, 1);
  slot[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) out[k] = 1;
}
";
    let (_, a) = run(src, "a<<<1, 32>>>(out[36], slot[32])");
    assert!(a.out_of_bounds.is_empty(), "{:?}", a.out_of_bounds);
    assert_eq!(site(&a, 8, SiteKind::Store, Space::Global), (1, 1, 1));
    let (_, a) = run(src, "a<<<1, 32>>>(out[35], slot[32])");
    assert_eq!(a.out_of_bounds.len(), 1);
    assert_eq!(a.out_of_bounds[0].index, 35);
    // atomicCAS swaps only where the old value matches; atomicInc wraps at its bound.
    let src = "__global__ void c(float* out) {
  __shared__ unsigned int k;
  if (threadIdx.x == 0) k = 0;
  __syncthreads();
  atomicInc(&k, 4);
  __syncthreads();
  out[k] = 1;
}
";
    // 32 increments modulo 5 (0, 1, 2, 3, 4, 0, …) leave 32 mod 5 = 2: out[2] is in bounds.
    let (_, a) = run(src, "c<<<1, 32>>>(out[3])");
    assert!(a.out_of_bounds.is_empty(), "{:?}", a.out_of_bounds);
    let (_, a) = run(src, "c<<<1, 32>>>(out[2])");
    assert_eq!(a.out_of_bounds.len(), 1);
    assert_eq!(a.out_of_bounds[0].index, 2);
}

#[test]
fn a_drill_down_into_a_run_that_read_values_replays_the_launch() {
    let launch = "perm<<<3, 64>>>(out, in)";
    let (job, _) = run(GATHER, launch);
    let want: Vec<u64> = (32..64u64)
        .map(|t| 0x2000_0000 + 4 * (2 * 64 + (63 - t) * 5 % 64))
        .collect();
    let gathered = |ex: &[WarpExecution]| -> Vec<u64> {
        ex.iter()
            .find(|e| e.addresses.first().is_some_and(|a| *a >= 0x2000_0000))
            .map(|e| e.addresses.clone())
            .unwrap_or_default()
    };
    assert_eq!(gathered(&job.warp_executions(2, 1).unwrap()), want);
    // A job made afresh from the same source and launch, as the page's drill-down makes one
    // beside its Web Worker, learns from the placement that it must replay.
    let placement = job.placement();
    assert!(placement.values_read);
    let mut fresh = CudaJob::new(GATHER, launch, Machine::default(), 6 << 20, 700).unwrap();
    fresh.adopt(placement);
    assert_eq!(
        fresh.warp_executions(2, 1).unwrap(),
        job.warp_executions(2, 1).unwrap()
    );
}

/// Distinct 32-byte sectors of each warp's lanes' `addresses` (32 lanes a warp), summed.
fn sectors_by_warp(addresses: &[u64]) -> u64 {
    addresses
        .chunks(32)
        .map(|w| {
            let mut s: Vec<u64> = w.iter().map(|a| a / 32).collect();
            s.sort_unstable();
            s.dedup();
            s.len() as u64
        })
        .sum()
}

#[test]
fn data_in_the_launch_field_runs_a_histogram_and_a_gather() {
    use coalescing_lab::model::clib::rand::Rand;
    let hist = "#define BINS 16
__global__ void hist(const int* data, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i] % BINS], 1);
}
";
    let (_, a) = run(
        hist,
        "hist<<<4, 64>>>(data[256]=rand(1), bins[16]=zero, 256)",
    );
    // bins is the second allocation, at 0x20000000; thread i adds to bin rand_i % 16, the
    // i-th rand() after srand(1), as glibc draws it.
    let mut r = Rand::seeded(1);
    let bins: Vec<u64> = (0..256)
        .map(|_| 0x2000_0000 + 4 * (r.rand() as u64 % 16))
        .collect();
    let (requests, sectors, _) = site(&a, 4, SiteKind::Atomic, Space::Global);
    assert_eq!((requests, sectors), (8, sectors_by_warp(&bins)));
    let gather = "__global__ void g(float* out, const int* idx, const float* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[idx[i]];
}
";
    let (_, a) = run(gather, "g<<<2, 64>>>(out, idx[128]=rand(7, 128), in[128])");
    let mut r = Rand::seeded(7);
    let reads: Vec<u64> = (0..128)
        .map(|_| 0x3000_0000 + 4 * (r.rand() as u64 % 128))
        .collect();
    // idx's loads are coalesced; in's gather through it.
    let loads = |a: &CudaAnalysis| -> Vec<(u32, u64, u64)> {
        a.sites
            .iter()
            .filter(|(s, _)| s.kind == SiteKind::Load)
            .map(|(s, f)| (s.pos.column, f.requests, f.sectors))
            .collect()
    };
    assert_eq!(loads(&a), [(15, 4, 16), (12, 4, sectors_by_warp(&reads))]);
    // iota makes the gather a copy: 4 sectors a request, as the ideal.
    let (_, a) = run(gather, "g<<<2, 64>>>(out, idx[128]=iota, in[128])");
    assert_eq!(loads(&a), [(15, 4, 16), (12, 4, 16)]);
    // Floats: iota holds k, rand(SEED) (float)rand() / RAND_MAX, from 0 to 1.
    let scale = "__global__ void s(float* out, const float* in) {
  int i = threadIdx.x;
  out[(int)(in[i] * 31.0f + 0.5f)] = 1.0f;
}
";
    let (job, a) = run(scale, "s<<<1, 32>>>(out, in[32]=rand(3))");
    let mut r = Rand::seeded(3);
    let want: Vec<u64> = (0..32)
        .map(|_| {
            let x = r.rand() as f32 / 2_147_483_647.0f32;
            0x1000_0000 + 4 * ((x * 31.0 + 0.5) as u64)
        })
        .collect();
    let stores = job.warp_executions(0, 0).unwrap();
    let store = a
        .sites
        .iter()
        .position(|(s, _)| s.kind == SiteKind::Store)
        .unwrap();
    let e = stores.iter().find(|e| e.site == store).unwrap();
    assert_eq!(e.addresses, want);
}

#[test]
fn data_in_the_launch_field_is_checked() {
    let k = "__global__ void k(float* a, float4* v) { a[threadIdx.x] = 0; v[0] = v[1]; }\n";
    let err = |launch: &str| match CudaJob::new(k, launch, Machine::default(), 0, 700) {
        Err(e) => e.to_string(),
        Ok(mut job) => loop {
            match job.step(8) {
                Err(e) => break e.to_string(),
                Ok(true) => break "ran".to_string(),
                Ok(false) => {}
            }
        },
    };
    assert_eq!(
        err("k<<<1, 32>>>(a=iota, v)"),
        "launch, column 15: an allocation given data needs its length first: name[COUNT]=iota"
    );
    assert_eq!(
        err("k<<<1, 32>>>(a[32]=ones, v)"),
        "launch, column 20: expected the allocation's data: zero, iota, rand(SEED) or \
         rand(SEED, BOUND), found 'ones'"
    );
    assert_eq!(
        err("k<<<1, 32>>>(a[32]=rand(1, 0), v)"),
        "launch, column 28: expected rand's bound, at least 1, found '0'"
    );
    assert_eq!(
        err("k<<<1, 32>>>(a[32]=rand(5000000000), v)"),
        "launch, column 25: expected rand's seed, an unsigned int, found '5000000000'"
    );
    assert!(err("k<<<1, 32>>>(a[32]=iota, v[4]=iota)")
        .ends_with("iota fills numbers, but v points to a float4; use zero"));
    assert!(err("k<<<1, 32>>>(a[20000000]=zero, v)").ends_with(
        "a[20000000]=zero is 80000000 bytes of data; the launch gives an allocation at most \
         67108864 (64 MiB)"
    ));
    assert_eq!(err("k<<<1, 32>>>(a[32]=zero, v[4]=zero)"), "ran");
}

#[test]
fn device_printf_prints_in_the_order_the_calls_run() {
    // Two warps, a barrier between two calls: warp 0's first line, warp 1's, then the second
    // call's, warp by warp; in a call, lanes in order. Values are formatted as glibc does.
    let src = "__global__ void hello(float* out) {
  int t = threadIdx.x;
  if (t % 32 < 2) printf(\"block %d thread %2d: %.2f %s\\n\", blockIdx.x, t, t * 0.5f, \"first\");
  __syncthreads();
  if (t % 32 == 0) printf(\"block %d warp %d done, %x\\n\", blockIdx.x, t / 32, 255 + t);
  out[t] = t;
}
";
    let (_, a) = run(src, "hello<<<2, 64>>>(out)");
    assert_eq!(
        a.output,
        "block 0 thread  0: 0.00 first\nblock 0 thread  1: 0.50 first\n\
         block 0 thread 32: 16.00 first\nblock 0 thread 33: 16.50 first\n\
         block 0 warp 0 done, ff\nblock 0 warp 1 done, 11f\n\
         block 1 thread  0: 0.00 first\nblock 1 thread  1: 0.50 first\n\
         block 1 thread 32: 16.00 first\nblock 1 thread 33: 16.50 first\n\
         block 1 warp 0 done, ff\nblock 1 warp 1 done, 11f\n"
    );
    // A value nothing stored prints as ?, and a note says so.
    let src = "__global__ void p(const float* in) {\n  printf(\"%d: %6.2f\\n\", threadIdx.x, in[threadIdx.x]);\n}\n";
    let (_, a) = run(src, "p<<<1, 2>>>(in)");
    assert_eq!(a.output, "0:      ?\n1:      ?\n");
    assert!(a
        .notes
        .iter()
        .any(|n| n.starts_with("printf: a ? stands for a value")));
    // With data in the launch, the values print.
    let (_, a) = run(src, "p<<<1, 2>>>(in[2]=iota)");
    assert_eq!(a.output, "0:   0.00\n1:   1.00\n");
    // A format that does not print stops the run at its line, naming the conversion.
    let src = "__global__ void q() {\n  printf(\"%d %d\\n\", threadIdx.x);\n}\n";
    assert_eq!(
        stops(src, "q<<<1, 1>>>()", false),
        "line 2, column 3, block (0,0,0), thread (0,0,0): printf: the conversion %d needs \
         argument 2, which is not given"
    );
}

#[test]
fn a_job_bounded_for_the_page_replays_only_its_first_block_there() {
    // The page keeps a job bounded in loop iterations for drill-downs on its own thread; a
    // replay past the first block is a launch's worth of work, so it answers as a warp that
    // loops too long, and the page asks its worker (whose job is not bounded).
    let launch = "perm<<<3, 64>>>(out, in)";
    let (job, _) = run(GATHER, launch);
    let mut bounded = CudaJob::new(GATHER, launch, Machine::default(), 6 << 20, 700).unwrap();
    bounded.iteration_budget(4096);
    bounded.adopt(job.placement());
    assert_eq!(
        bounded.warp_executions(0, 1).unwrap(),
        job.warp_executions(0, 1).unwrap()
    );
    let e = bounded.warp_executions(2, 1).unwrap_err();
    assert!(
        matches!(
            *e.kind,
            coalescing_lab::model::cuda::run::RunErrorKind::WarpIterations { limit: 4096 }
        ),
        "{e}"
    );
}
