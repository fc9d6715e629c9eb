//! The CUDA panel's warp executions: the worst of a launch by each measure and every
//! execution one warp makes of a line, each handed to the calculator with its addresses, the
//! site's element size and memory and the calculator's machine, where it costs the same.

use coalescing_lab::model::cuda::presets::cuda_preset;
use coalescing_lab::model::cuda::run::{CudaAnalysis, CudaJob};
use coalescing_lab::model::cuda_view::{
    calculator_inputs, default_measure, execution_rows, line_executions, ExecutionRow, PickField,
};
use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::sectors::analyze;
use coalescing_lab::model::warp::Measure;
use coalescing_lab::model::Machine;

/// The finished job of preset `id`, and its analysis.
fn finished(id: &str) -> (CudaJob, CudaAnalysis) {
    let p = cuda_preset(id).unwrap();
    let mut job = CudaJob::new(p.source, p.launch, Machine::default(), 6 << 20, 700).unwrap();
    while !job.step(4096).unwrap() {}
    let a = job.finish();
    (job, a)
}

/// What the calculator shows for `row` handed over from `calc`: sectors, or wavefronts and
/// conflicts.
fn in_calculator(row: &ExecutionRow, calc: &Inputs) -> (u64, Option<(u64, u64)>) {
    let got = analyze(&calculator_inputs(row, calc)).unwrap();
    match got.banks {
        Some(b) => (0, Some((b.totals.wavefronts, b.totals.conflicts()))),
        None => (got.totals.sectors, None),
    }
}

#[test]
fn the_tiled_transpose_s_worst_are_its_column_reads_32_wavefronts_each() {
    let (_, a) = finished("transpose-tiled");
    assert_eq!(default_measure(&a), Measure::Conflicts);
    let rows = execution_rows(&a, a.worst_by(Measure::Conflicts), 32);
    assert_eq!(rows.len(), 10);
    let r = &rows[0];
    assert_eq!(
        (r.space, r.kind, r.block, r.warp, r.active_lanes),
        ("shared", "load", [0, 0, 0], 0, 32)
    );
    assert_eq!(r.wavefronts, Some((32, 31)));
    assert_eq!(r.cost, "32 wavefronts (shared), 31 conflicts");
    assert_eq!(r.site, format!("{}:{} load", r.line, r.column));
}

#[test]
fn every_worst_execution_costs_the_same_in_the_calculator() {
    let calc = Inputs::default();
    for id in [
        "transpose-naive",
        "transpose-tiled",
        "copy-offset",
        "reduce-interleaved",
    ] {
        let (_, a) = finished(id);
        for m in Measure::ALL {
            for row in execution_rows(&a, a.worst_by(m), 32) {
                assert_eq!(
                    in_calculator(&row, &calc),
                    (
                        if row.wavefronts.is_some() {
                            0
                        } else {
                            row.sectors
                        },
                        row.wavefronts
                    ),
                    "{id}, by {}: {row:?}",
                    m.name()
                );
            }
        }
    }
    let (_, a) = finished("transpose-naive");
    assert_eq!(default_measure(&a), Measure::Sectors);
    let worst = execution_rows(&a, a.worst_by(Measure::Sectors), 32);
    assert_eq!(
        (worst[0].kind, worst[0].sectors, worst[0].excess_sectors),
        ("store", 32, 28)
    );
}

#[test]
fn the_hand_off_keeps_the_calculator_s_machine_and_sets_addrs_elem_and_space() {
    let (_, a) = finished("transpose-tiled");
    let row = &execution_rows(&a, a.worst_by(Measure::Conflicts), 32)[0];
    let calc = Inputs {
        arch: "volta".into(),
        sector: "32".into(),
        idx: "2*t".into(),
        active: "t < 4".into(),
        ..Inputs::default()
    };
    let handed = calculator_inputs(row, &calc);
    assert_eq!(handed.addrs, row.addrs);
    assert_eq!(
        (
            handed.elem.as_str(),
            handed.space.as_str(),
            handed.active.as_str()
        ),
        ("4", "shared", "")
    );
    assert_eq!(
        (
            handed.arch.as_str(),
            handed.sector.as_str(),
            handed.warp.as_str()
        ),
        ("volta", "32", calc.warp.as_str())
    );
    assert_eq!(row.addrs.split(',').count(), 32);
}

#[test]
fn every_execution_of_one_warp_on_a_line_is_listed_in_order_and_costs_the_same() {
    let (job, a) = finished("transpose-tiled");
    // The line of the shared column read (the worst by conflicts).
    let line = execution_rows(&a, a.worst_by(Measure::Conflicts), 32)[0].line;
    let ex = line_executions(&job, &a, line, "5", "3").unwrap();
    let rows = execution_rows(&a, &ex, 32);
    // Line `odata[…] = tile[…]`: a shared load and a global store, 4 passes each.
    assert_eq!(rows.len(), 8);
    assert!(rows
        .iter()
        .all(|r| r.line == line && r.block == [5, 0, 0] && r.warp == 3));
    let kinds: Vec<&str> = rows.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        ["load", "store", "load", "store", "load", "store", "load", "store"]
    );
    let calc = Inputs::default();
    for row in &rows {
        assert_eq!(
            in_calculator(row, &calc),
            (
                if row.wavefronts.is_some() {
                    0
                } else {
                    row.sectors
                },
                row.wavefronts
            )
        );
    }
    // A line without accesses lists none.
    assert!(line_executions(&job, &a, 1, "0", "0").unwrap().is_empty());
}

#[test]
fn a_pick_outside_the_launch_names_its_field_and_the_range() {
    let (job, a) = finished("transpose-tiled");
    let err = |b: &str, w: &str| line_executions(&job, &a, 23, b, w).unwrap_err();
    assert_eq!(
        err("1024", "0"),
        (
            PickField::Block,
            "block: the launch has 1024 blocks, 0 to 1023; found 1024".into()
        )
    );
    assert_eq!(
        err("0", "8"),
        (
            PickField::Warp,
            "warp: a block has 8 warps, 0 to 7; found 8".into()
        )
    );
    assert_eq!(
        err("-1", "0"),
        (
            PickField::Block,
            "block: enter a whole number from 0, found '-1'".into()
        )
    );
    assert_eq!(
        err(" 2 ", ""),
        (
            PickField::Warp,
            "warp: enter a whole number from 0, found ''".into()
        )
    );
    assert_eq!(
        err("0", "99999999999"),
        (
            PickField::Warp,
            "warp: a block has 8 warps, 0 to 7; found 99999999999".into()
        )
    );
}

#[test]
fn a_loop_s_passes_over_one_access_are_numbered_1_to_n_for_each_warp() {
    // Issue #27: a warp's four passes over the naive transpose's store looked alike.
    let (job, a) = finished("transpose-naive");
    let store = execution_rows(&a, a.worst_by(Measure::Sectors), 32)[0].clone();
    assert_eq!(store.kind, "store");
    let ex = line_executions(&job, &a, store.line, "5", "3").unwrap();
    let rows = execution_rows(&a, &ex, 32);
    // The line `odata[…] = idata[…]`: a load and a store in each of the loop's 4 passes.
    for kind in ["load", "store"] {
        let passes: Vec<u32> = rows
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.pass)
            .collect();
        assert_eq!(passes, [1, 2, 3, 4], "{kind}");
    }
    // The same passes in the worst list: each row is one (block, warp, site, pass), and a
    // warp's rows of one site differ by their pass.
    let worst = execution_rows(&a, a.worst_by(Measure::Sectors), 32);
    let mut seen: Vec<([u64; 3], u32, u32, u32, u32)> = worst
        .iter()
        .map(|r| (r.block, r.warp, r.line, r.column, r.pass))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), worst.len(), "{worst:?}");
    let first_warp: Vec<u32> = worst
        .iter()
        .filter(|r| r.block == [0, 0, 0] && r.warp == 0)
        .map(|r| r.pass)
        .collect();
    assert!(first_warp.len() > 1, "{worst:?}");
    assert_eq!(
        first_warp,
        (1..=first_warp.len() as u32).collect::<Vec<_>>()
    );
    // A kernel without a loop runs each access once per warp: pass 1.
    let (_, copy) = finished("copy");
    assert!(copy.worst_by(Measure::Sectors).iter().all(|e| e.pass == 1));
}

#[test]
fn the_heat_map_holds_every_warp_of_the_launch_and_sums_to_the_totals() {
    let (_, a) = finished("transpose-tiled");
    let (blocks, warps, _) = a.shape;
    assert_eq!((a.heat.blocks, a.heat.warps), (blocks, warps));
    let sum = |m: Measure| -> u64 {
        (0..a.heat.rows)
            .flat_map(|r| (0..a.heat.warps).map(move |w| (r, w)))
            .map(|(r, w)| a.heat.at(r, w, m))
            .sum()
    };
    assert_eq!(sum(Measure::Sectors), a.total.sectors);
    assert_eq!(sum(Measure::Wavefronts), a.total.wavefronts);
    assert_eq!(sum(Measure::Conflicts), a.total.bank_conflicts());
    assert!(a.heat.has(Measure::Conflicts));
    let (_, naive) = finished("transpose-naive");
    assert!(!naive.heat.has(Measure::Conflicts));
}
