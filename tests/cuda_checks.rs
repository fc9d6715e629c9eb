//! Never bless a wrong kernel (#25): shared-memory races between warps, within a warp and
//! within an instruction, and accesses out of bounds, each reported to the letter; and none
//! on the presets, which are correct.

use coalescing_lab::model::cuda::presets::CUDA_PRESETS;
use coalescing_lab::model::cuda::run::check::RaceScope;
use coalescing_lab::model::cuda::run::{analyse, CudaAnalysis};
use coalescing_lab::model::Machine;

fn run(source: &str, launch: &str) -> CudaAnalysis {
    analyse(source, launch, Machine::default(), 0, 700).unwrap_or_else(|e| panic!("{e}"))
}

/// Every race's sentence, in order.
fn races(a: &CudaAnalysis) -> Vec<(RaceScope, String, u64)> {
    let line_kind = |k: usize| (a.sites[k].0.pos.line, a.sites[k].0.kind);
    a.races
        .iter()
        .map(|r| (r.scope, r.sentence(line_kind), r.occurrences))
        .collect()
}

#[test]
fn a_tiled_transpose_without_its_barrier_races_between_warps() {
    let src = "#define TILE 32
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
}";
    let a = run(src, "t<<<dim3(2, 2), dim3(32, 8)>>>(odata, idata)");
    let r = races(&a);
    assert_eq!(r.len(), 2, "{r:?}");
    // Word tile[0][1] is written by warp 0 (lane 1, j = 0) and read by warp 1 (lane 0,
    // j = 0): the lowest word two warps share. Of the 1024 words, the 128 on the diagonal
    // blocks (x = w + j, 8 per row of 32) are read by the warp that wrote them: 896 words
    // per block meet another warp, over 4 blocks.
    assert_eq!(
        r[0],
        (
            RaceScope::Block,
            "line 12 reads tile[0][1], which warp 0 wrote at line 8 with no __syncthreads() \
             between: add one after line 8"
                .to_string(),
            4 * 896
        )
    );
    // Within warp 0 too: lane 8 reads tile[8][0], which lane 0 wrote at j = 8. Warp w writes
    // rows w, w+8, w+16, w+24 and reads columns w, w+8, w+16, w+24: 16 words both, 4 of them
    // on the diagonal (read by the lane that wrote them), so 12 per warp, 8 warps, 4 blocks.
    assert_eq!((r[1].0, r[1].2), (RaceScope::Warp, 4 * 8 * 12));
    assert!(
        r[1].1
            .starts_with("line 12 reads tile[8][0], which lane 0 of the same warp wrote at line 8"),
        "{}",
        r[1].1
    );
    let fixed = src.replace("  x = blockIdx.y", "  __syncthreads();\n  x = blockIdx.y");
    assert!(run(&fixed, "t<<<dim3(2, 2), dim3(32, 8)>>>(odata, idata)")
        .races
        .is_empty());
}

#[test]
fn a_warp_synchronous_tail_races_within_the_warp_until_syncwarp() {
    let src = "__global__ void tail(const float *g, float *out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = g[t];
  s[t + 32] = g[t + 32];
  __syncthreads();
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  if (t == 0) out[0] = s[0];
}";
    let a = run(src, "tail<<<1, 32>>>(g, out)");
    let r = races(&a);
    // Lane 0 reads s[8], which lane 8 wrote one statement before; lanes 0 to 23 each read a
    // word lanes 8 to 31 wrote: 24 occurrences. (Line 7 reads s[t + 16] after a barrier, and
    // each lane rewrites only its own word.)
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0].0, r[0].2), (RaceScope::Warp, 24));
    assert_eq!(
        r[0].1,
        "line 8 reads s[8], which lane 8 of the same warp wrote at line 7 with no __syncwarp() \
         between: that is correct only if the warp runs in lockstep, which Volta and later GPUs \
         do not promise; add __syncwarp() after line 7"
    );
    let synced = src.replace(
        "  s[t] += s[t + 8];",
        "  __syncwarp();\n  s[t] += s[t + 8];",
    );
    let b = run(&synced, "tail<<<1, 32>>>(g, out)");
    assert!(b.races.is_empty(), "{:?}", races(&b));
}

#[test]
fn lanes_of_one_store_on_one_word_race_unless_the_value_is_the_same() {
    let src = "__global__ void k(int *out) {
  __shared__ int s[4];
  s[0] = threadIdx.x;
  s[1] = 7;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 2];
}";
    let a = run(src, "k<<<1, 32>>>(out)");
    let r = races(&a);
    assert_eq!(
        r,
        [
            (
                RaceScope::Instruction,
                "line 3: lanes 0 and 1 of one warp store to s[0] in the same instruction; which \
                 value lands is not defined"
                    .to_string(),
                31
            ),
            (
                RaceScope::Instruction,
                "line 4: lanes 0 and 1 of one warp store the same value to s[1]; harmless, but \
                 one lane would do"
                    .to_string(),
                31
            )
        ]
    );
}

#[test]
fn out_of_bounds_in_shared_and_in_declared_global_allocations() {
    let src = "__global__ void k(float *out, const float *in) {
  __shared__ float s[32];
  int t = threadIdx.x;
  s[t + 1] = in[t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t];
}";
    let a = run(src, "k<<<2, 32>>>(out[48], in[64])");
    let line = |k: usize| a.sites[k].0.pos.line;
    let oob: Vec<String> = a
        .out_of_bounds
        .iter()
        .map(|o| o.sentence(line(o.site)))
        .collect();
    assert_eq!(
        oob,
        [
            "line 4, block (0,0,0), thread (31,0,0): index 32 is outside the shared array s of \
             32 elements (0 to 31); on a GPU this faults or corrupts other data (2 lane-accesses \
             out of bounds at this line in all)",
            "line 6, block (1,0,0), thread (16,0,0): index 48 is outside the allocation out of \
             48 elements (0 to 47); on a GPU this faults or corrupts other data (16 lane-accesses \
             out of bounds at this line in all)"
        ]
    );
    // The figures still count them.
    assert_eq!(a.total.requests, 8);
    // Without declared lengths, global accesses within an allocation's span are not judged.
    assert_eq!(run(src, "k<<<2, 32>>>(out, in)").out_of_bounds.len(), 1);
}

/// Every out-of-bounds report's sentence, with its line.
fn oob(a: &CudaAnalysis) -> Vec<String> {
    a.out_of_bounds
        .iter()
        .map(|o| o.sentence(a.sites[o.site].0.pos.line))
        .collect()
}

// Regression: an access below the start of an array was never reported, in global or shared
// memory; below the lowest allocation it matched none, and a shared address wrapped past
// 2^64 and passed as inside.
#[test]
fn an_index_below_the_start_is_reported_as_negative_in_global_and_shared_memory() {
    let g = "__global__ void k(float *out) { out[(int)threadIdx.x - 1] = 1; }";
    assert_eq!(
        oob(&run(g, "k<<<1, 32>>>(out[32])")),
        [
            "line 1, block (0,0,0), thread (0,0,0): index -1 is outside the allocation out of 32 \
          elements (0 to 31); on a GPU this faults or corrupts other data"
        ]
    );
    // Without a declared length, below the start is still outside.
    assert_eq!(
        oob(&run(g, "k<<<1, 32>>>(out)")),
        [
            "line 1, block (0,0,0), thread (0,0,0): index -1 of the allocation out is below its \
          start; on a GPU this faults or corrupts other data"
        ]
    );
    let s = "__global__ void k(float *out) {\n  __shared__ float s[32];\n  int i = threadIdx.x;\n  s[i - 1] = 1;\n  __syncthreads();\n  out[i] = s[i];\n}";
    assert_eq!(
        oob(&run(s, "k<<<1, 32>>>(out[32])")),
        [
            "line 4, block (0,0,0), thread (0,0,0): index -1 is outside the shared array s of 32 \
          elements (0 to 31); on a GPU this faults or corrupts other data"
        ]
    );
}

// Regression: `in[-1]` was blamed on the allocation below it, `out`, as index 67108863.
#[test]
fn an_address_below_one_allocation_is_never_blamed_on_the_one_below_it() {
    let src = "__global__ void k(float *out, const float *in) { int i = threadIdx.x; out[i] = in[i - 4]; }";
    let a = run(src, "k<<<1, 32>>>(out[32], in[32] + 3)");
    assert_eq!(
        oob(&a),
        [
            "line 1, block (0,0,0), thread (0,0,0): index -1 is outside the allocation in of 32 \
          elements (0 to 31); on a GPU this faults or corrupts other data"
        ]
    );
    let o = &a.out_of_bounds[0];
    assert_eq!(
        (o.array.as_deref(), o.index, o.address),
        (Some("in"), -1, 0x2000_0000 - 4)
    );
    // Far from every allocation: named as such, never as an index of a neighbour.
    let far = "__global__ void k(float *out) { out[threadIdx.x + 0x2000000] = 1; }";
    assert_eq!(
        oob(&run(far, "k<<<1, 32>>>(out[32])")),
        [
            "line 1, block (0,0,0), thread (0,0,0): the address 0x18000000 is outside every \
          allocation; on a GPU this faults or corrupts other data (32 lane-accesses out of \
          bounds at this line in all)"
        ]
    );
}

mod bounds_on_both_sides {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Lane `t` reads `a<pick>[t + d]` of declared allocations of random lengths (views
        /// of random offsets), and stores into shared `s[t + e]`: the lanes whose index is
        /// outside `[0, n)` are exactly the ones reported, with the lowest one's index, on
        /// the array they ran off.
        #[test]
        fn every_lane_outside_its_array_is_reported_on_that_array(
            lengths in proptest::collection::vec(32i64..200, 1..4),
            views in proptest::collection::vec(0i64..8, 3),
            pick in 0usize..3,
            d in -200i64..200,
            shared in 32i64..100,
            e in -100i64..100,
        ) {
            let pick = pick % lengths.len();
            let n = lengths[pick];
            let d = d.clamp(-n, n);
            let e = e.clamp(-shared, shared);
            let params: Vec<String> = (0..lengths.len()).map(|k| format!("const float *a{k}")).collect();
            let src = format!(
                "__global__ void k(float *out, {}) {{\n  __shared__ float s[{shared}];\n  int t = threadIdx.x;\n  s[t + ({e})] = a{pick}[t + ({d})];\n  out[t] = 1;\n}}",
                params.join(", ")
            );
            // A view `+v` passes the allocation v elements in; the kernel's index counts from
            // the view.
            let args: Vec<String> = lengths
                .iter()
                .zip(&views)
                .enumerate()
                .map(|(k, (len, v))| format!("a{k}[{}] + {v}", len + v))
                .collect();
            let a = run(&src, &format!("k<<<1, 32>>>(out[32], {})", args.join(", ")));
            // The brute-force oracle: each lane's index from the allocation's base.
            let v = views[pick];
            let global: Vec<i64> = (0..32).map(|t| t + d + v).filter(|i| *i < 0 || *i >= n + v).collect();
            let shared_out: Vec<i64> = (0..32).map(|t| t + e).filter(|i| *i < 0 || *i >= shared).collect();
            let load = a.out_of_bounds.iter().find(|o| o.space == coalescing_lab::model::Space::Global);
            let store = a.out_of_bounds.iter().find(|o| o.space == coalescing_lab::model::Space::Shared);
            match global.first() {
                None => prop_assert!(load.is_none(), "{:?}", load),
                Some(first) => {
                    let o = load.expect("a global report");
                    let name = format!("a{pick}");
                    prop_assert_eq!(o.array.as_deref(), Some(name.as_str()));
                    prop_assert_eq!(o.index, i128::from(*first));
                    prop_assert_eq!(o.count, Some((n + v) as u64));
                    prop_assert_eq!(o.occurrences, global.len() as u64);
                }
            }
            match shared_out.first() {
                None => prop_assert!(store.is_none(), "{:?}", store),
                Some(first) => {
                    let o = store.expect("a shared report");
                    prop_assert_eq!(o.array.as_deref(), Some("s"));
                    prop_assert_eq!(o.index, i128::from(*first));
                    prop_assert_eq!(o.occurrences, shared_out.len() as u64);
                }
            }
            prop_assert_eq!(a.out_of_bounds.len(), usize::from(!global.is_empty()) + usize::from(!shared_out.is_empty()));
        }
    }
}

#[test]
fn the_presets_are_correct_kernels_but_the_broken_transpose() {
    for p in CUDA_PRESETS.iter().filter(|p| p.id != "transpose-race") {
        let a = analyse(p.source, p.launch, Machine::default(), 0, 700).unwrap();
        assert!(a.races.is_empty(), "{}: {:?}", p.id, races(&a));
        assert!(
            a.out_of_bounds.is_empty(),
            "{}: {:?}",
            p.id,
            a.out_of_bounds
        );
    }
}

#[test]
fn the_broken_transpose_preset_races_and_its_padded_twin_does_not() {
    use coalescing_lab::model::cuda::presets::cuda_preset;
    let p = cuda_preset("transpose-race").unwrap();
    let a = analyse(p.source, p.launch, Machine::default(), 0, 700).unwrap();
    let r = races(&a);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(
        r[0].1,
        "line 23 reads tile[0][1], which warp 0 wrote at line 15 with no __syncthreads() \
         between: add one after line 15"
    );
    // The same figures as the padded transpose, which has its barrier: the count cannot
    // tell them apart, only the check can.
    let good = cuda_preset("transpose-padded").unwrap();
    let b = analyse(good.source, good.launch, Machine::default(), 0, 700).unwrap();
    assert!(b.races.is_empty());
    let strip = |f: &coalescing_lab::model::warp::Figures| {
        (f.requests, f.sectors, f.ideal_sectors, f.wavefronts)
    };
    assert_eq!(strip(&a.total), strip(&b.total));
    assert_eq!((a.total.barriers, b.total.barriers), (0, 1024));
}

mod own_words {
    use super::*;
    use proptest::prelude::*;

    /// One statement of a kernel whose threads touch only their own shared words:
    /// `s[tid * 4 + c]`, read or written, maybe under a branch, or a barrier.
    #[derive(Clone, Debug)]
    enum Op {
        Load(u32),
        Store(u32),
        Add(u32, u32),
        Guarded(u32, u32),
        Sync,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u32..4).prop_map(Op::Load),
            (0u32..4).prop_map(Op::Store),
            (0u32..4, 0u32..4).prop_map(|(a, b)| Op::Add(a, b)),
            (0u32..4, 1u32..8).prop_map(|(c, m)| Op::Guarded(c, m)),
            Just(Op::Sync),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn kernels_that_touch_only_their_own_words_never_race(
            ops in proptest::collection::vec(op(), 1..12),
            threads in proptest::sample::select(vec![32u32, 64, 96, 256]),
        ) {
            let mut body = String::new();
            for o in &ops {
                body.push_str(&match o {
                    Op::Load(c) => format!("  acc += s[t * 4 + {c}];\n"),
                    Op::Store(c) => format!("  s[t * 4 + {c}] = acc;\n"),
                    Op::Add(a, b) => format!("  s[t * 4 + {a}] += s[t * 4 + {b}];\n"),
                    Op::Guarded(c, m) => format!("  if (t % {m} == 0) s[t * 4 + {c}] = t;\n"),
                    Op::Sync => "  __syncthreads();\n".into(),
                });
            }
            let src = format!(
                "__global__ void k(float* out) {{\n  __shared__ float s[1024];\n  int t = threadIdx.x;\n  float acc = 0;\n{body}  out[t] = acc;\n}}\n"
            );
            let a = run(&src, &format!("k<<<2, {threads}>>>(out)"));
            prop_assert!(a.races.is_empty(), "{}\n{:?}", src, races(&a));
            prop_assert!(a.out_of_bounds.is_empty());
        }
    }
}

// Regression: a write that races with the previous iteration's read (a barrier between the
// write and the read, none at the loop's end) was advised "add one after" the write's line,
// where a barrier already follows it; the missing one belongs after the read.
#[test]
fn a_race_with_the_previous_iteration_is_fixed_at_the_end_of_the_loop() {
    let src = "__global__ void k(float *out) {
  __shared__ float s[64];
  float acc = 0;
  for (int i = 0; i < 4; i++) {
    s[threadIdx.x] = i;
    __syncthreads();
    acc += s[63 - threadIdx.x];
  }
  out[threadIdx.x] = acc;
}";
    let r = races(&run(src, "k<<<1, 64>>>(out)"));
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        r[0].1,
        "line 7 reads s[0], which warp 0 wrote at line 5 with no __syncthreads() between: add \
         one after line 7"
    );
}

// Allocations pinned inside one another: an address inside any of them is inside.
#[test]
fn an_address_inside_any_of_overlapping_pinned_allocations_is_in_bounds() {
    let src = "__global__ void k(float *a, float *b) { a[threadIdx.x] = b[0]; }";
    let a = run(src, "k<<<1, 32>>>(a@0x1000[64], b@0x1010[4])");
    assert!(a.out_of_bounds.is_empty(), "{:?}", a.out_of_bounds);
}
