//! Every CUDA preset pinned against an independent derivation: plain loops over the launch's
//! warps write down each access's lane addresses, as the kernel's indexing says, and count its
//! sectors, ideal sectors and shared-memory wavefronts by hand (a sector is 32 bytes; a bank
//! is 4 bytes wide and there are 32). The interpreter's figures must match site by site.

use coalescing_lab::model::cuda::presets::{cuda_preset, CUDA_PRESETS};
use coalescing_lab::model::cuda::run::{analyse, CudaAnalysis, SiteKind};
use coalescing_lab::model::Machine;
use std::collections::{BTreeMap, BTreeSet};

/// Request-level counts of one site.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Count {
    requests: u64,
    sectors: u64,
    ideal: u64,
    wavefronts: u64,
    ideal_wavefronts: u64,
}

/// Counts by (line, kind).
type Counts = BTreeMap<(u32, SiteKind), Count>;

/// One global warp access: each active lane's first byte.
fn global(c: &mut Counts, at: (u32, SiteKind), addrs: &[u64], elem: u64) {
    if addrs.is_empty() {
        return;
    }
    let e = c.entry(at).or_default();
    let mut sectors = BTreeSet::new();
    let mut bytes = BTreeSet::new();
    for &a in addrs {
        for b in a..a + elem {
            sectors.insert(b / 32);
            bytes.insert(b);
        }
    }
    e.requests += 1;
    e.sectors += sectors.len() as u64;
    e.ideal += (bytes.len() as u64).div_ceil(32);
}

/// One shared warp access of 4-byte words: the busiest bank's distinct words.
fn shared(c: &mut Counts, at: (u32, SiteKind), addrs: &[u64]) {
    if addrs.is_empty() {
        return;
    }
    let e = c.entry(at).or_default();
    let mut banks: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    for &a in addrs {
        banks.entry(a / 4 % 32).or_default().insert(a / 4);
    }
    e.requests += 1;
    e.wavefronts += banks.values().map(|w| w.len() as u64).max().unwrap_or(0);
    e.ideal_wavefronts += 1;
}

/// The line of `source` holding `needle`.
fn line_of(source: &str, needle: &str) -> u32 {
    let n = source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?}"));
    n as u32 + 1
}

/// The interpreter's counts of a preset (with no cache: request-level figures do not
/// depend on it), barriers aside.
fn measured(id: &str) -> (Counts, CudaAnalysis) {
    let p = cuda_preset(id).unwrap();
    let a = analyse(p.source, p.launch, Machine::default(), 0, 700)
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut c = Counts::new();
    for (s, f) in &a.sites {
        if s.kind == SiteKind::Barrier {
            continue;
        }
        let e = c.entry((s.pos.line, s.kind)).or_default();
        e.requests += f.requests;
        e.sectors += f.sectors;
        e.ideal += f.ideal_sectors;
        e.wavefronts += f.wavefronts;
        e.ideal_wavefronts += f.ideal_wavefronts;
    }
    (c, a)
}

/// Allocation `k`'s base (in order of first appearance in the launch).
fn base(k: u64) -> u64 {
    0x1000_0000 * (k + 1)
}

use SiteKind::{Load, Store};

#[test]
fn copies_plain_offset_and_strided() {
    let src = cuda_preset("copy").unwrap().source;
    let line = line_of(src, "out[i] = in[i]");
    for (id, offset, stride) in [
        ("copy", 0, 1),
        ("copy-offset", 4, 1),
        ("copy-stride2", 0, 2),
    ] {
        let src = cuda_preset(id).unwrap().source;
        let line2 = if stride == 2 {
            line_of(src, "in[2 * i]")
        } else {
            line
        };
        let mut c = Counts::new();
        for w in 0..(4096 * 256 / 32) {
            let lanes = || (0..32u64).map(move |t| w * 32 + t);
            let ins: Vec<u64> = lanes().map(|i| base(1) + offset + 4 * stride * i).collect();
            let outs: Vec<u64> = lanes().map(|i| base(0) + 4 * i).collect();
            global(&mut c, (line2, Load), &ins, 4);
            global(&mut c, (line2, Store), &outs, 4);
        }
        let (m, _) = measured(id);
        assert_eq!(m, c, "{id}");
    }
    // The lesson's numbers: 4, 5 and 8 sectors per load request, ideal 4.
    let (m, _) = measured("copy-offset");
    assert_eq!(m[&(line, Load)].sectors, 32768 * 5);
    let src = cuda_preset("copy-stride2").unwrap().source;
    let (m, _) = measured("copy-stride2");
    assert_eq!(m[&(line_of(src, "in[2 * i]"), Load)].sectors, 32768 * 8);
}

#[test]
fn transposes_naive_tiled_and_padded() {
    let src = cuda_preset("transpose-naive").unwrap().source;
    let width = 1024u64;
    for (id, pad) in [
        ("transpose-naive", None),
        ("transpose-tiled", Some(32)),
        ("transpose-padded", Some(33)),
    ] {
        let mut c = Counts::new();
        let kernel_start = match pad {
            None => line_of(src, "void transposeNaive"),
            Some(32) => line_of(src, "void transposeTiled"),
            _ => line_of(src, "void transposePadded"),
        };
        let after = |needle: &str| {
            let offset = src
                .lines()
                .skip(kernel_start as usize)
                .position(|l| l.contains(needle))
                .unwrap();
            kernel_start + 1 + offset as u32
        };
        for by in 0..32u64 {
            for bx in 0..32u64 {
                // Phase 1 (reads), then phase 2 (writes), each warp one row ty of 32 lanes.
                for j in (0..32u64).step_by(8) {
                    for ty in 0..8u64 {
                        let y = by * 32 + ty + j;
                        let reads: Vec<u64> = (0..32)
                            .map(|tx| base(1) + 4 * (y * width + bx * 32 + tx))
                            .collect();
                        match pad {
                            None => {
                                let line = after("odata[x * width + (y + j)]");
                                let writes: Vec<u64> = (0..32)
                                    .map(|tx| base(0) + 4 * ((bx * 32 + tx) * width + y))
                                    .collect();
                                global(&mut c, (line, Load), &reads, 4);
                                global(&mut c, (line, Store), &writes, 4);
                            }
                            Some(p) => {
                                let line = after("tile[threadIdx.y + j][threadIdx.x] =");
                                global(&mut c, (line, Load), &reads, 4);
                                let tile: Vec<u64> =
                                    (0..32).map(|tx| 4 * ((ty + j) * p + tx)).collect();
                                shared(&mut c, (line, Store), &tile);
                            }
                        }
                    }
                }
                if let Some(p) = pad {
                    let line = after("odata[(y + j) * width + x] = tile");
                    for j in (0..32u64).step_by(8) {
                        for ty in 0..8u64 {
                            let tile: Vec<u64> = (0..32).map(|tx| 4 * (tx * p + ty + j)).collect();
                            shared(&mut c, (line, Load), &tile);
                            let y = bx * 32 + ty + j;
                            let writes: Vec<u64> = (0..32)
                                .map(|tx| base(0) + 4 * (y * width + by * 32 + tx))
                                .collect();
                            global(&mut c, (line, Store), &writes, 4);
                        }
                    }
                }
            }
        }
        let (m, a) = measured(id);
        assert_eq!(m, c, "{id}");
        assert_eq!(
            a.total.barriers,
            if pad.is_some() { 1024 } else { 0 },
            "{id}"
        );
    }
    // The lessons: 32 sectors per naive store; 31 conflicts per tiled column read; none padded.
    let (_, naive) = measured("transpose-naive");
    assert_eq!(
        (naive.total.sectors, naive.total.ideal_sectors),
        (32768 * (4 + 32), 32768 * 8)
    );
    let (_, tiled) = measured("transpose-tiled");
    assert_eq!(tiled.total.bank_conflicts(), 32768 * 31);
    let (_, padded) = measured("transpose-padded");
    assert_eq!(padded.total.bank_conflicts(), 0);
}

#[test]
fn sgemm_by_rows_by_columns_and_tiled() {
    let src = cuda_preset("sgemm-rows").unwrap().source;
    let n = 128u64;
    let (a_base, b_base, c_base) = (base(0), base(1), base(2));
    for (id, rows) in [("sgemm-rows", true), ("sgemm-cols", false)] {
        let start = line_of(
            src,
            if rows {
                "void sgemmRows"
            } else {
                "void sgemmCols"
            },
        );
        let at = |needle: &str| {
            let offset = src
                .lines()
                .skip(start as usize)
                .position(|l| l.contains(needle))
                .unwrap();
            start + 1 + offset as u32
        };
        let (inner, store) = (at("sum += A[row * N + k]"), at("C[row * N + col] = sum"));
        let mut c = Counts::new();
        // Grid (4, 8) of (32, 16): a warp is one threadIdx.y, lanes threadIdx.x.
        for gy in 0..8u64 {
            for gx in 0..4u64 {
                for ty in 0..16u64 {
                    let rc = |tx: u64| -> (u64, u64) {
                        let (x, y) = (gx * 32 + tx, gy * 16 + ty);
                        if rows {
                            (x, y)
                        } else {
                            (y, x)
                        }
                    };
                    for k in 0..n {
                        let a: Vec<u64> =
                            (0..32).map(|tx| a_base + 4 * (rc(tx).0 * n + k)).collect();
                        let b: Vec<u64> =
                            (0..32).map(|tx| b_base + 4 * (k * n + rc(tx).1)).collect();
                        // A is read before B: `*` evaluates left to right here.
                        global(&mut c, (inner, Load), &a, 4);
                        global(&mut c, (inner, Load), &b, 4);
                    }
                    let cs: Vec<u64> = (0..32)
                        .map(|tx| c_base + 4 * (rc(tx).0 * n + rc(tx).1))
                        .collect();
                    global(&mut c, (store, Store), &cs, 4);
                }
            }
        }
        let (m, _) = measured(id);
        assert_eq!(m, c, "{id}");
    }
    // Tiled: 16×16 blocks, a warp is two rows of 16.
    let start = line_of(src, "void sgemmTiled");
    let at = |needle: &str| {
        let offset = src
            .lines()
            .skip(start as usize)
            .position(|l| l.contains(needle))
            .unwrap();
        start + 1 + offset as u32
    };
    let (la, lb, inner, store) = (
        at("As[ty][tx] = A["),
        at("Bs[ty][tx] = B["),
        at("sum += As[ty][k] * Bs[k][tx]"),
        at("C[row * N + col] = sum"),
    );
    let (as_base, bs_base) = (0u64, 16 * 16 * 4);
    let mut c = Counts::new();
    for by in 0..8u64 {
        for bx in 0..8u64 {
            for w in 0..8u64 {
                let lane = |t: u64| (t % 16, w * 2 + t / 16);
                for t in 0..n / 16 {
                    let ga: Vec<u64> = (0..32)
                        .map(|l| {
                            let (tx, ty) = lane(l);
                            a_base + 4 * ((by * 16 + ty) * n + t * 16 + tx)
                        })
                        .collect();
                    let sa: Vec<u64> = (0..32)
                        .map(|l| as_base + 4 * (lane(l).1 * 16 + lane(l).0))
                        .collect();
                    global(&mut c, (la, Load), &ga, 4);
                    shared(&mut c, (la, Store), &sa);
                    let gb: Vec<u64> = (0..32)
                        .map(|l| {
                            let (tx, ty) = lane(l);
                            b_base + 4 * ((t * 16 + ty) * n + bx * 16 + tx)
                        })
                        .collect();
                    let sb: Vec<u64> = (0..32)
                        .map(|l| bs_base + 4 * (lane(l).1 * 16 + lane(l).0))
                        .collect();
                    global(&mut c, (lb, Load), &gb, 4);
                    shared(&mut c, (lb, Store), &sb);
                    for k in 0..16u64 {
                        let ra: Vec<u64> = (0..32)
                            .map(|l| as_base + 4 * (lane(l).1 * 16 + k))
                            .collect();
                        let rb: Vec<u64> = (0..32)
                            .map(|l| bs_base + 4 * (k * 16 + lane(l).0))
                            .collect();
                        shared(&mut c, (inner, Load), &ra);
                        shared(&mut c, (inner, Load), &rb);
                    }
                }
                let cs: Vec<u64> = (0..32)
                    .map(|l| {
                        let (tx, ty) = lane(l);
                        c_base + 4 * ((by * 16 + ty) * n + bx * 16 + tx)
                    })
                    .collect();
                global(&mut c, (store, Store), &cs, 4);
            }
        }
    }
    let (m, a) = measured("sgemm-tiled");
    assert_eq!(m, c, "sgemm-tiled");
    // Two barriers per tile, 8 tiles, 64 blocks.
    assert_eq!(a.total.barriers, 2 * 8 * 64);
}

#[test]
fn reductions_interleaved_and_sequential() {
    let src = cuda_preset("reduce-interleaved").unwrap().source;
    for (id, interleaved) in [("reduce-interleaved", true), ("reduce-sequential", false)] {
        let start = line_of(
            src,
            if interleaved {
                "void reduceInterleaved"
            } else {
                "void reduceSequential"
            },
        );
        let at = |needle: &str| {
            let offset = src
                .lines()
                .skip(start as usize)
                .position(|l| l.contains(needle))
                .unwrap();
            start + 1 + offset as u32
        };
        let (fill, step, last) = (
            at("s[tid] = in["),
            at(if interleaved {
                "s[index] += s[index + stride]"
            } else {
                "s[tid] += s[tid + stride]"
            }),
            at("out[blockIdx.x] = s[0]"),
        );
        let mut c = Counts::new();
        for b in 0..256u64 {
            for w in 0..8u64 {
                let lanes: Vec<u64> = (w * 32..w * 32 + 32).collect();
                let g: Vec<u64> = lanes.iter().map(|t| base(0) + 4 * (b * 256 + t)).collect();
                global(&mut c, (fill, Load), &g, 4);
                let s: Vec<u64> = lanes.iter().map(|t| 4 * t).collect();
                shared(&mut c, (fill, Store), &s);
            }
            let strides: Vec<u64> = if interleaved {
                (0..8).map(|k| 1u64 << k).collect()
            } else {
                (0..8).rev().map(|k| 1u64 << k).collect()
            };
            for stride in strides {
                for w in 0..8u64 {
                    let active: Vec<u64> = (w * 32..w * 32 + 32)
                        .filter_map(|t| {
                            if interleaved {
                                let index = 2 * stride * t;
                                (index < 256).then_some(index)
                            } else {
                                (t < stride).then_some(t)
                            }
                        })
                        .collect();
                    // `s[x] += s[x + stride]`: the right side's load, then the left's load and
                    // store, all from shared memory.
                    let rhs: Vec<u64> = active.iter().map(|x| 4 * (x + stride)).collect();
                    let lhs: Vec<u64> = active.iter().map(|x| 4 * x).collect();
                    shared(&mut c, (step, Load), &rhs);
                    shared(&mut c, (step, Load), &lhs);
                    shared(&mut c, (step, Store), &lhs);
                }
            }
            shared(&mut c, (last, Load), &[0]);
            global(&mut c, (last, Store), &[base(1) + 4 * b], 4);
        }
        let (m, a) = measured(id);
        assert_eq!(m, c, "{id}");
        assert_eq!(a.total.barriers, 256 * 9, "{id}");
    }
    let (_, seq) = measured("reduce-sequential");
    assert_eq!(seq.total.bank_conflicts(), 0);
    let (_, inter) = measured("reduce-interleaved");
    assert!(inter.total.bank_conflicts() > 0);
}

#[test]
fn layouts_and_a_partial_last_warp() {
    let src = cuda_preset("layout-aos").unwrap().source;
    let (aos, soa) = (line_of(src, "p[i].x += dt"), line_of(src, "x[i] += dt"));
    let mut c = Counts::new();
    let mut d = Counts::new();
    for w in 0..(1024 * 256 / 32) {
        let a: Vec<u64> = (0..32).map(|t| base(0) + 12 * (w * 32 + t)).collect();
        global(&mut c, (aos, Load), &a, 4);
        global(&mut c, (aos, Store), &a, 4);
        let x: Vec<u64> = (0..32).map(|t| base(0) + 4 * (w * 32 + t)).collect();
        global(&mut d, (soa, Load), &x, 4);
        global(&mut d, (soa, Store), &x, 4);
    }
    assert_eq!(measured("layout-aos").0, c);
    assert_eq!(measured("layout-soa").0, d);
    assert_eq!(c[&(aos, Load)].sectors, 8192 * 12);

    let src = cuda_preset("bounds-partial").unwrap().source;
    let line = line_of(src, "y[i] = a * x[i] + y[i]");
    let mut c = Counts::new();
    for w in 0..32u64 {
        let active: Vec<u64> = (w * 32..w * 32 + 32).filter(|&i| i < 1000).collect();
        // `a * x[i] + y[i]`: x first, then y, then the store to y.
        let x: Vec<u64> = active.iter().map(|i| base(0) + 4 * i).collect();
        let y: Vec<u64> = active.iter().map(|i| base(1) + 4 * i).collect();
        global(&mut c, (line, Load), &x, 4);
        global(&mut c, (line, Load), &y, 4);
        global(&mut c, (line, Store), &y, 4);
    }
    let (m, _) = measured("bounds-partial");
    assert_eq!(m, c);
    assert_eq!(c[&(line, Store)].sectors, 31 * 4 + 1);
}

#[test]
fn every_preset_runs_and_has_a_unique_id_and_a_lesson() {
    let mut ids = BTreeSet::new();
    for p in CUDA_PRESETS {
        assert!(ids.insert(p.id), "{} twice", p.id);
        assert!(p.lesson.len() > 40, "{}", p.id);
        let a = analyse(p.source, p.launch, Machine::default(), 6 << 20, 700)
            .unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert!(a.total.requests > 0, "{}", p.id);
    }
}
