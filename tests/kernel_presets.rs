//! Every kernel preset's numbers, with the derivation a student would write.

use coalescing_lab::model::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use coalescing_lab::model::kernel::{analyze_kernel, KernelAnalysis, Machine};

fn run(id: &str) -> KernelAnalysis {
    let preset = KernelPreset::by_id(id).unwrap();
    let kernel = preset.inputs().kernel(Machine::default()).unwrap();
    analyze_kernel(&kernel).unwrap()
}

/// Per statement: (requests, request-level sectors, unique sectors, DRAM bytes).
fn rows(a: &KernelAnalysis) -> Vec<(u64, u64, u64, u64)> {
    a.statements
        .iter()
        .map(|s| {
            let f = s.figures;
            (f.requests, f.sectors, f.unique_sectors, f.dram_bytes())
        })
        .collect()
}

#[test]
fn every_preset_validates_and_names_its_lesson() {
    for p in KERNEL_PRESETS {
        assert!(p.inputs().kernel(Machine::default()).is_ok(), "{}", p.id);
        assert!(!p.explanation.is_empty());
    }
}

#[test]
fn ex8a_reads_rows_in_4_sectors_and_columns_in_32() {
    let a = run("ex8a");
    // 32×1024 one-warp blocks = 32768 requests per statement. Rows: 32 floats = 128 B = 4
    // sectors; columns: 32 rows, 1 sector each. The 4 MiB matrix (131072 sectors) fits the
    // 6 MiB cache: DRAM reads it once, each sector charged to whichever statement misses
    // on it first.
    let without_dram = |r: (u64, u64, u64, u64)| (r.0, r.1, r.2);
    let got: Vec<_> = rows(&a).into_iter().map(without_dram).collect();
    assert_eq!(got, [(32768, 131072, 131072), (32768, 1048576, 131072)]);
    assert_eq!(
        (a.total.unique_sectors, a.total.dram_bytes()),
        (131072, 4 << 20)
    );
}

#[test]
fn naive_transpose_reads_4_sectors_per_request_and_writes_32() {
    let a = run("transpose-naive");
    // 128×128 blocks × 8 warps × 4 iterations = 524288 requests per statement. The read's
    // warp is one 128-byte row piece: 4 sectors. The write's 32 lanes land in 32 rows: 32
    // sectors. Each 64 MiB matrix is 2097152 sectors; each moves once through DRAM (the write's
    // 4 sectors per output row are all dirtied inside one block, then written back once).
    assert_eq!(
        rows(&a),
        [
            (524288, 2097152, 2097152, 64 << 20),
            (524288, 16777216, 2097152, 64 << 20)
        ]
    );
    let sector_per_request = |n: usize| {
        a.statements[n]
            .figures
            .sectors_per_request()
            .unwrap()
            .value()
    };
    assert_eq!((sector_per_request(0), sector_per_request(1)), (4.0, 32.0));
    // Each written sector takes 8 stores (one per warp row ty + 8i it holds): 1 miss, 7 hits.
    assert_eq!(a.statements[1].figures.hits, Some(16777216 / 8 * 7));
    assert_eq!(a.total.hits, Some(16777216 / 8 * 7));
}

#[test]
fn column_sum_reuses_each_sector_for_8_iterations_when_the_cache_holds_it() {
    let a = run("column-sum");
    // 4 blocks × 8 warps × 1024 iterations = 32768 requests of 32 sectors (32 columns 4 KB
    // apart). Each sector holds 8 floats: the first iteration misses, the next 7 hit.
    assert_eq!(rows(&a), [(32768, 1048576, 131072, 4 << 20)]);
    assert_eq!(a.total.hits, Some(1048576 - 131072));
}

#[test]
fn aos_triples_the_request_level_traffic_of_soa_but_not_dram() {
    let aos = run("aos");
    let soa = run("soa");
    // 1M threads = 32768 warps per statement. AoS: 32 lanes × 12 B = 384 B = 12 sectors per
    // field; SoA: 4. The whole 12 MiB of particles goes through DRAM once either way.
    assert_eq!(
        aos.statements
            .iter()
            .map(|s| s.figures.sectors)
            .collect::<Vec<_>>(),
        [393216; 3]
    );
    assert_eq!(
        soa.statements
            .iter()
            .map(|s| s.figures.sectors)
            .collect::<Vec<_>>(),
        [131072; 3]
    );
    assert_eq!(
        (aos.total.dram_bytes(), soa.total.dram_bytes()),
        (12 << 20, 12 << 20)
    );
    assert_eq!(aos.total.unique_sectors, soa.total.unique_sectors);
}

#[test]
fn a_16_by_16_block_puts_two_rows_in_each_warp() {
    let a = run("block16x16");
    // 256 threads = 8 warps; each holds rows 2w and 2w+1: two 64-byte pieces, 2 sectors each.
    assert_eq!(rows(&a), [(8, 32, 32, 32 * 32)]);
    assert!(a.worst.iter().all(|w| w.sectors == 4));
}

#[test]
fn a_bounds_checked_last_block_has_a_partial_warp() {
    let a = run("bounds");
    // 1000 floats: 31 full warps of 4 sectors, and the last warp's 8 active lanes (threads
    // 992..999) read 32 bytes, 1 sector. Every byte moved is requested.
    assert_eq!(rows(&a), [(32, 125, 125, 4000)]);
    assert_eq!(a.total.requested_bytes, 4000);
    assert_eq!(a.total.useful_fraction().map(|r| r.value()), Some(1.0));
}

/// Per statement: (requests, shared wavefronts, bank conflicts, barriers).
fn shared_rows(a: &KernelAnalysis) -> Vec<(u64, u64, u64, u64)> {
    a.statements
        .iter()
        .map(|s| {
            let f = s.figures;
            (f.requests, f.wavefronts, f.bank_conflicts(), f.barriers)
        })
        .collect()
}

#[test]
fn the_tiled_transpose_writes_4_sectors_per_request_and_reads_its_tile_with_32_way_conflicts() {
    let a = run("transpose-tiled");
    // 16384 blocks × 8 warps × 4 passes = 524288 requests per memory statement. Global: the
    // read and the write each cover 32 floats of one row, 4 sectors; each 64 MiB matrix moves
    // once through DRAM. The shared write tile[ty+j][tx] is 32 consecutive words: 1 wavefront.
    // The shared read tile[tx][ty+j] steps 32 words, all in bank (ty+j) mod 32: 32 wavefronts,
    // 31 of them conflicts. One barrier per block.
    assert_eq!(
        rows(&a),
        [
            (524288, 2097152, 2097152, 64 << 20),
            (524288, 0, 0, 0),
            (0, 0, 0, 0),
            (524288, 0, 0, 0),
            (524288, 2097152, 2097152, 64 << 20),
        ]
    );
    assert_eq!(
        shared_rows(&a),
        [
            (524288, 0, 0, 0),
            (524288, 524288, 0, 0),
            (0, 0, 0, 16384),
            (524288, 16777216, 16252928, 0),
            (524288, 0, 0, 0),
        ]
    );
    let t = a.total;
    assert_eq!(t.sectors_per_request().map(|r| r.value()), Some(4.0));
    assert_eq!((t.requests, t.shared_requests), (4 * 524288, 2 * 524288));
    assert_eq!(t.useful_fraction().map(|r| r.value()), Some(1.0));
    assert_eq!((t.barriers, t.bank_conflicts()), (16384, 16252928));
}

#[test]
fn padding_the_tile_to_33_columns_removes_every_conflict_and_changes_nothing_else() {
    let tiled = run("transpose-tiled");
    let padded = run("transpose-tiled-padded");
    // word 33·tx + ty + j: bank (tx + ty + j) mod 32, a different bank per lane.
    assert_eq!(padded.statements[3].figures.wavefronts, 524288);
    assert_eq!(padded.total.bank_conflicts(), 0);
    assert_eq!(rows(&padded), rows(&tiled));
    assert_eq!(padded.total.barriers, tiled.total.barriers);
    // Against the naive transpose: the write falls from 32 sectors per request to 4.
    let naive = run("transpose-naive");
    let per_request = |a: &KernelAnalysis, n: usize| {
        a.statements[n]
            .figures
            .sectors_per_request()
            .map(|r| r.value())
    };
    assert_eq!(
        (per_request(&naive, 1), per_request(&padded, 4)),
        (Some(32.0), Some(4.0))
    );
    assert_eq!(naive.total.barriers, 0);
}
