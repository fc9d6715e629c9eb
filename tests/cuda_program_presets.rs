//! The whole-program presets (`model::cuda::presets::PROGRAM_PRESETS`): what each prints, its
//! exit status, and every launch's figures, each derived by hand in its comment (32-lane
//! warps, 32-byte sectors, no cache, so DRAM bytes are request-level sectors read and
//! written).

use coalescing_lab::model::cuda::presets::{cuda_preset, PROGRAM_PRESETS, PROGRAM_PRESET_IDS};
use coalescing_lab::model::cuda::run::program::{run_program, ProgramOptions, ProgramRun};
use coalescing_lab::model::cuda::Defines;
use coalescing_lab::model::cuda_view::LaunchRow;

fn run(id: &str) -> ProgramRun {
    let p = cuda_preset(id).unwrap_or_else(|| panic!("no preset {id}"));
    assert!(p.launch.is_empty(), "a program's launch is its main()'s");
    let run = run_program(p.source, &Defines::default(), &ProgramOptions::default())
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    if let Some(e) = &run.error {
        panic!("{id} stopped: {e}\n{}", run.text());
    }
    assert_eq!(run.exit_code, Some(0), "{id}: {}", run.text());
    run
}

/// Each launch as (kernel, grid, block, [requests, sectors, ideal, unique, DRAM bytes,
/// wavefronts, bank conflicts, barriers]).
type Row = (&'static str, [u64; 3], [u64; 3], [u64; 8]);

/// A launch's row as the run gives it: [`Row`] with the kernel's name owned.
type Got = (String, [u64; 3], [u64; 3], [u64; 8]);

fn rows(run: &ProgramRun) -> Vec<Got> {
    run.launches
        .iter()
        .map(LaunchRow::of)
        .map(|r| {
            let t = r.total;
            (
                r.kernel,
                r.grid,
                r.block,
                [
                    t.requests,
                    t.sectors,
                    t.ideal_sectors,
                    t.unique_sectors,
                    t.dram_bytes(),
                    t.wavefronts,
                    t.bank_conflicts(),
                    t.barriers,
                ],
            )
        })
        .collect()
}

fn expect(id: &str, printed: &str, want: &[Row]) {
    let run = run(id);
    assert_eq!(run.text(), printed, "{id}");
    let got = rows(&run);
    let want: Vec<Got> = want
        .iter()
        .map(|(k, g, b, f)| (k.to_string(), *g, *b, *f))
        .collect();
    assert_eq!(got, want, "{id}");
}

#[test]
fn the_program_presets_are_listed_by_their_ids() {
    let ids: Vec<&str> = PROGRAM_PRESETS.iter().map(|p| p.id).collect();
    assert_eq!(ids, PROGRAM_PRESET_IDS);
}

#[test]
fn vector_add() {
    // 4096 floats in 16 blocks of 256: 128 warps, each loading a and b and storing c, 32
    // consecutive floats each (128 bytes, 4 sectors, the ideal): 384 requests, 1536 sectors.
    // Distinct sectors: 3 arrays × 16 KiB ÷ 32 = 1536; with no cache each is read or written
    // once: 1536 × 32 = 49152 bytes. c[i] = i + 2i = 3i, exact in float below 2^24.
    expect(
        "program-vadd",
        "c[1] = 3.0, c[4095] = 12285.0\nPASSED: 0 of 4096 wrong\n",
        &[(
            "vadd",
            [16, 1, 1],
            [256, 1, 1],
            [384, 1536, 1536, 1536, 49152, 0, 0, 0],
        )],
    );
}

#[test]
fn histogram() {
    // 128 warps each load 32 consecutive ints (4 sectors) and make 32 atomics on bins
    // (7i mod 64) for 32 consecutive i: 7 is odd, so 32 distinct bins that fall in all 8
    // sectors of the 64 bins: 8 sectors where 128 bytes fit in 4. Requests 128 + 128 = 256;
    // sectors 512 + 1024 = 1536; ideal 512 + 512 = 1024; distinct 512 (data) + 8 (bins) = 520.
    // DRAM with no cache: the loads read 512 sectors; each atomic sector is read and written:
    // (512 + 2 × 1024) × 32 = 81920 bytes. Every bin counts 4096 ÷ 64 = 64.
    expect(
        "program-histogram",
        "bins[0] = 64, bins[63] = 64, total 4096\nPASSED\n",
        &[(
            "histogram",
            [16, 1, 1],
            [256, 1, 1],
            [256, 1536, 1024, 520, 81920, 0, 0, 0],
        )],
    );
}

#[test]
fn csr_spmv() {
    // 1024 rows, 3 values each, 8 blocks of 128: 32 warps. Per warp:
    // - row_ptr[row] once: 32 consecutive ints, 4 sectors; row_ptr[row + 1] at each of the
    //   loop's 4 tests (3 true, 1 false): 4 bytes later, 5 sectors (ideal 4): 5 requests,
    //   4 + 20 = 24 sectors, ideal 20;
    // - val[j] and col[j] at each of 3 passes: lanes 12 bytes apart span 376 bytes, 12
    //   sectors for 128 bytes (ideal 4): 6 requests, 72 sectors, ideal 24;
    // - x[col[j]]: neighbours r − 1, r, r + 1 (wrapping): 5, 4 and 5 sectors, ideal 4 each:
    //   3 requests, 14 sectors, ideal 12;
    // - y[row]: 1 request, 4 sectors.
    // 15 requests, 114 sectors, ideal 60 a warp: 480, 3648 and 1920 in all.
    // Distinct: row_ptr 1025 ints → 129 sectors, col and val 3072 × 4 B → 384 each, x and y
    // 128 each: 1153. DRAM, no cache: 3648 × 32 = 116736. y = 1 + 4 + 1 = 6 for every row.
    expect(
        "program-spmv",
        "y[0] = 6.0, y[1023] = 6.0\nPASSED\n",
        &[(
            "spmv_csr",
            [8, 1, 1],
            [128, 1, 1],
            [480, 3648, 1920, 1153, 116736, 0, 0, 0],
        )],
    );
}

#[test]
fn shared_memory_sum_with_a_shuffle_finish() {
    // 8192 ones in 32 blocks of 256 (8 warps). Per block: 8 global loads (4 sectors each);
    // 8 shared stores; 1 + 3 barriers; strides 128, 64, 32 with 4, 2, 1 warps each making a
    // load of s[t], a load of s[t + stride] and a store (12 + 6 + 3 requests); warp 0 loads
    // s[t] once more; lane 0's atomic: 1 request, 1 sector. Shared: 8 + 21 + 1 = 30 requests
    // of 32 consecutive floats, one wavefront each, no conflict. Requests 32 × (8 + 30 + 1) =
    // 1248; sectors 32 × (32 + 1) = 1056, all ideal; distinct 1024 + 1; barriers 32 × 4 = 128.
    // DRAM: 1024 sectors read, the atomic's one sector read and written 32 times: (1024 + 64)
    // × 32 = 34816. The sum is 8192.
    expect(
        "program-reduce",
        "sum = 8192.0 (expected 8192)\nPASSED\n",
        &[(
            "reduce",
            [32, 1, 1],
            [256, 1, 1],
            [1248, 1056, 1056, 1025, 34816, 960, 0, 128],
        )],
    );
}

#[test]
fn row_sums_against_column_sums() {
    // 256 × 256 ones, 2 blocks of 128: 8 warps, each thread looping 256 times, then a store
    // of 32 consecutive floats (4 sectors). Row sums: a warp's lanes are 1 KiB apart, 32
    // sectors a load: 8 × 256 × 32 + 8 × 4 = 65568 sectors for an ideal of 8 × 256 × 4 + 32 =
    // 8224; DRAM with no cache 65568 × 32 = 2098176. Column sums: neighbours, 4 sectors a load:
    // 8224 sectors, 263168 bytes. Both: 2056 requests, distinct 8192 + 32 = 8224.
    expect(
        "program-rowcol",
        "row sums correct\ncolumn sums correct\n",
        &[
            (
                "row_sums",
                [2, 1, 1],
                [128, 1, 1],
                [2056, 65568, 8224, 8224, 2098176, 0, 0, 0],
            ),
            (
                "column_sums",
                [2, 1, 1],
                [128, 1, 1],
                [2056, 8224, 8224, 8224, 263168, 0, 0, 0],
            ),
        ],
    );
}

#[test]
fn tiled_transpose_that_checks_itself() {
    // 64 × 64 floats, 2 × 2 blocks of 32 × 8: 32 warps, each making 4 global loads of a
    // tile row (4 sectors), 4 shared stores, 4 shared loads of a padded column (33 floats a
    // row: 32 banks, 1 wavefront) and 4 global stores (4 sectors). Requests 32 × 16 = 512;
    // sectors 32 × 8 × 4 = 1024, all ideal; distinct 2 × 16 KiB ÷ 32 = 1024; wavefronts 256,
    // no conflict; one barrier a block: 4. out[1] = in[64] = 64 and out[64] = in[1] = 1.
    expect(
        "program-transpose",
        "out[1] = 64, out[64] = 1\nPASSED: 0 of 4096 wrong\n",
        &[(
            "transposePadded",
            [2, 2, 1],
            [32, 8, 1],
            [512, 1024, 1024, 1024, 32768, 256, 0, 4],
        )],
    );
}
