//! The CUDA panel's race and bounds reports (#25 in the panel): a row per race with both
//! accesses, a note for lanes that store the same value, a row per access out of bounds, the
//! lines the source view marks, and the summary; each sentence is the model's own.

use coalescing_lab::model::cuda::presets::cuda_preset;
use coalescing_lab::model::cuda::run::check::OutOfBounds;
use coalescing_lab::model::cuda::run::{analyse, CudaAnalysis};
use coalescing_lab::model::cuda_view::{
    checks_summary, oob_rows, problem_lines, race_rows, source_lines, times, OobRow,
};
use coalescing_lab::model::{Machine, Space};

fn run(source: &str, launch: &str) -> CudaAnalysis {
    analyse(source, launch, Machine::default(), 0, 700).unwrap_or_else(|e| panic!("{e}"))
}

fn preset(id: &str) -> CudaAnalysis {
    let p = cuda_preset(id).unwrap();
    run(p.source, p.launch)
}

#[test]
fn the_broken_transpose_races_between_warps_at_lines_15_and_23() {
    let a = preset("transpose-race");
    let rows = race_rows(&a);
    let r = &rows[0];
    assert_eq!(
        (r.scope, r.line_a, r.line_b, r.kind_a, r.kind_b, r.note),
        ("block", 15, 23, "store", "load", false)
    );
    assert_eq!(
        (r.block, r.warp_a, r.what),
        ([0, 0, 0], 0, "Race between warps")
    );
    assert_eq!(r.word, "tile[0][1]");
    assert_eq!(
        r.sentence,
        "line 23 reads tile[0][1], which warp 0 wrote at line 15 with no __syncthreads() \
         between: add one after line 15"
    );
    assert_eq!(r.occurrences, a.races[0].occurrences);
    assert!(rows.iter().all(|r| !r.note));
    // The source view marks both lines, and only those.
    let (races, oob) = problem_lines(&a);
    assert!(races.contains(&15) && races.contains(&23), "{races:?}");
    assert!(oob.is_empty());
    let marked: Vec<u32> = source_lines(cuda_preset("transpose-race").unwrap().source, Some(&a))
        .iter()
        .filter(|l| l.race)
        .map(|l| l.number)
        .collect();
    assert_eq!(marked, races);
}

#[test]
fn its_padded_twin_with_the_barrier_reports_nothing() {
    let a = preset("transpose-padded");
    assert!(race_rows(&a).is_empty());
    assert!(oob_rows(&a).is_empty());
    assert_eq!(problem_lines(&a), (vec![], vec![]));
    assert_eq!(
        checks_summary(0, 0, 0),
        "No race and no access out of bounds in this launch. The checks see only this launch, \
         run this way: a clean report is no proof that the kernel is correct."
    );
}

#[test]
fn a_copy_into_a_shorter_allocation_is_out_of_bounds_from_thread_48() {
    let p = cuda_preset("copy").unwrap();
    let a = run(p.source, "copy<<<1, 64>>>(out[48], in)");
    assert_eq!(
        oob_rows(&a),
        [OobRow {
            line: 5,
            report: OutOfBounds {
                site: 1,
                space: Space::Global,
                block: [0, 0, 0],
                thread: [48, 0, 0],
                address: 0x1000_0000 + 48 * 4,
                array: Some("out".into()),
                index: 48,
                count: Some(48),
                occurrences: 16,
            },
            space: "global",
            sentence: "line 5, block (0,0,0), thread (48,0,0): index 48 is outside the allocation \
                       out of 48 elements (0 to 47); on a GPU this faults or corrupts other data \
                       (16 lane-accesses out of bounds at this line in all)"
                .into(),
        }]
    );
    assert_eq!(problem_lines(&a), (vec![], vec![5]));
    let lines = source_lines(p.source, Some(&a));
    assert!(lines[4].oob && !lines[4].race);
    assert!(lines.iter().filter(|l| l.oob).count() == 1);
    assert_eq!(
        checks_summary(0, 1, 0),
        "No race and 1 access out of bounds."
    );
    // The figures still count them: 2 warps, a load and a store each.
    assert_eq!(a.total.requests, 4);
}

#[test]
fn lanes_storing_the_same_value_are_a_note_and_mark_no_line() {
    let src = "__global__ void k(int *out) {
  __shared__ int s[4];
  s[0] = threadIdx.x;
  s[1] = 7;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 2];
}";
    let a = run(src, "k<<<1, 32>>>(out)");
    let rows = race_rows(&a);
    let scopes: Vec<(&str, u32, bool, &str)> = rows
        .iter()
        .map(|r| (r.scope, r.line_a, r.note, r.what))
        .collect();
    assert_eq!(
        scopes,
        [
            ("instruction", 3, false, "Race within one store"),
            ("instruction", 4, true, "Note")
        ]
    );
    assert_eq!(
        (rows[1].line_b, rows[1].kind_b, rows[1].occurrences),
        (4, "store", 31)
    );
    assert_eq!(problem_lines(&a).0, [3]);
    assert_eq!(
        checks_summary(1, 0, 1),
        "1 race and no access out of bounds (and 1 note)."
    );
    assert_eq!(times(31), " (31 times)");
    assert_eq!(times(1), "");
}

#[test]
fn the_summary_counts_in_words() {
    assert_eq!(
        checks_summary(2, 3, 0),
        "2 races and 3 accesses out of bounds."
    );
    assert_eq!(
        checks_summary(0, 0, 2),
        "No race and no access out of bounds (and 2 notes)."
    );
}
