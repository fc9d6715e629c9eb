//! Regressions of the hostile and newcomer pass over the kernel view, the traces and machine
//! mode (`shared/reviews/hostile-newcomer-pass.md`): each test names the finding it pins and
//! failed before its fix.

use coalescing_lab::model::kernel::view::{statement_csv, warp_csv};
use coalescing_lab::model::kernel::{
    analyze_kernel, warp_rows, KernelField, KernelInputs, Machine, Pick, StmtField, StmtInputs,
};
use coalescing_lab::model::roofline::MachineInputs;
use coalescing_lab::model::trace::{analyze_trace, instruction_csv, TraceOptions};

fn inputs(edit: impl FnOnce(&mut KernelInputs)) -> KernelInputs {
    let mut inputs = KernelInputs::default();
    edit(&mut inputs);
    inputs
}

#[test]
fn h2_a_spread_out_launch_counts_every_isolated_sector() {
    // 262 144 threads, one load each, 4 MiB apart: every sector on a page of its own. Each
    // such sector took a 4 KiB page, and 4096 blocks took all of wasm's 4 GiB.
    let kernel = inputs(|k| {
        k.grid = "1024".into();
        k.block = "256".into();
        k.set(
            KernelField::Stmt(1, StmtField::Idx),
            "(blockIdx.x*256+threadIdx.x)*1048576".into(),
        );
    })
    .kernel(Machine::default())
    .unwrap();
    let a = analyze_kernel(&kernel).unwrap();
    assert_eq!(a.total.requests, 1024 * 256 / 32);
    assert_eq!(a.total.sectors, 1024 * 256, "one sector a lane");
    assert_eq!(a.total.unique_sectors, 1024 * 256);
}

#[test]
fn h4_shared_warp_rows_carry_wavefronts_and_no_sectors() {
    // The review's link: a shared 16-byte access at 2 × threadIdx.x, and a global one.
    let kernel = inputs(|k| {
        k.block = "64".into();
        k.set(KernelField::Stmt(1, StmtField::Space), "shared".into());
        k.set(KernelField::Stmt(1, StmtField::Elem), "16".into());
        k.set(KernelField::Stmt(1, StmtField::Idx), "threadIdx.x*2".into());
        k.statements[1] = Some(StmtInputs::default());
        k.set(KernelField::Stmt(2, StmtField::Name), "g".into());
    })
    .kernel(Machine::default())
    .unwrap();
    let shared = warp_rows(&kernel, Pick { stmt: 1, iteration: 0, block: 0 }).unwrap();
    assert_eq!(shared[0].sectors, 0, "a shared access moves no sector");
    assert_eq!(shared[0].transferred_bytes, 0);
    let w = shared[0].wavefronts.unwrap();
    assert_eq!((w.wavefronts, w.conflicts()), (8, 4));
    let csv = warp_csv(&shared);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("block,block_x,block_y,block_z,stmt,iter,warp,lane0_address,active_lanes,sectors,requested_bytes,transferred_bytes,wavefronts,ideal_wavefronts,bank_conflicts")
    );
    assert_eq!(lines.next(), Some("0,0,0,0,1,0,0,0,32,,512,,8,4,4"));
    let global = warp_rows(&kernel, Pick { stmt: 2, iteration: 0, block: 0 }).unwrap();
    assert_eq!(
        warp_csv(&global).lines().nth(1),
        Some("0,0,0,0,2,0,0,0,32,4,128,128,,,")
    );
}

#[test]
fn m7_a_base_near_2_to_the_64_is_blamed_on_the_base() {
    let kernel = inputs(|k| {
        k.set(
            KernelField::Stmt(1, StmtField::Base),
            "18446744073709551600".into(),
        )
    })
    .kernel(Machine::default())
    .unwrap();
    let error = analyze_kernel(&kernel).unwrap_err();
    assert_eq!(error.field, KernelField::Stmt(1, StmtField::Base));
    assert_eq!(
        error.to_string(),
        "a1.base: block (0,0,0) thread (4,0,0): address 18446744073709551600 + 4 × 4 = 18446744073709551616 is past 2^64"
    );
    // A huge index is still the index's fault.
    let kernel = inputs(|k| {
        k.set(
            KernelField::Stmt(1, StmtField::Idx),
            "threadIdx.x*4611686018427387903".into(),
        )
    })
    .kernel(Machine::default())
    .unwrap();
    let error = analyze_kernel(&kernel).unwrap_err();
    assert_eq!(error.field, KernelField::Stmt(1, StmtField::Idx));
}

#[test]
fn l5_names_with_line_breaks_or_direction_overrides_are_refused() {
    for (name, code) in [
        ("in\nout", "000A"),
        ("\u{202E}gnp.exe", "202E"),
        ("a\u{2066}b", "2066"),
    ] {
        let errors = inputs(|k| k.set(KernelField::Stmt(1, StmtField::Name), name.into()))
            .kernel(Machine::default())
            .unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            format!(
                "a1.name: must not contain control or text-direction characters, found U+{code}"
            )
        );
    }
}

#[test]
fn l5_csv_exports_neutralise_formulas() {
    let kernel = inputs(|k| {
        k.set(
            KernelField::Stmt(1, StmtField::Name),
            "=HYPERLINK(\"http://e\")".into(),
        )
    })
    .kernel(Machine::default())
    .unwrap();
    let csv = statement_csv(&analyze_kernel(&kernel).unwrap());
    let row = csv.lines().nth(1).unwrap();
    assert!(
        row.contains("\"'=HYPERLINK(\"\"http://e\"\")\""),
        "the name is text, not a formula: {row}"
    );
    assert!(!row.contains(",=") && !row.contains(",\"="), "{row}");
}

#[test]
fn l6_l7_machine_mode_names_and_out_of_range_numbers_get_the_right_reason() {
    let mut m = MachineInputs::from_preset("A100");
    m.bw[1] = "a,b:5".into();
    m.points[0] = "P1:126000000000000000000:0.000000000000000001".into();
    let checked = m.check();
    let messages: Vec<String> = checked.errors.iter().map(|e| e.to_string()).collect();
    assert!(
        messages
            .iter()
            .any(|e| e.starts_with("bw.2: has a name with ','")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|e| e.starts_with(
            "pt.1: has an intensity '126000000000000000000' outside 1/4096 to 1048576 FLOP/byte"
        )),
        "{messages:?}"
    );
}

#[test]
fn m4_the_kernel_hand_off_pressed_twice_keeps_one_pair_of_points() {
    use coalescing_lab::model::exact::Exact;
    use coalescing_lab::model::roofline::kernel_points;
    let m = MachineInputs::from_preset("A100");
    let flops = Exact::parse("1024").unwrap();
    let once = kernel_points(&m, "k", flops, 4096, 8192).unwrap();
    let twice = kernel_points(&once, "k", flops, 4096, 8192).unwrap();
    let used = |m: &MachineInputs| m.points.iter().filter(|p| !p.trim().is_empty()).count();
    assert_eq!((used(&once), used(&twice)), (2, 2));
    assert_eq!(once.points, twice.points);
}

#[test]
fn h3_a_trace_keeps_bounded_memory_per_instruction_and_the_csv_has_every_row() {
    // 2000 distinct PCs, one execution each: every one is a row of the CSV.
    let mut text = String::from("-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2000\n");
    for pc in 0..2000u64 {
        text.push_str(&format!(
            "{:04x} ffffffff 1 R1 LDG.E.SYS 1 R2 4 1 0x{:x} 4 0\n",
            pc * 16,
            0x10000 + pc * 128
        ));
    }
    text.push_str("#END_TB\n");
    let a = analyze_trace(text.as_bytes(), TraceOptions::default());
    assert_eq!(a.malformed, 0, "{:?}", a.first_malformed);
    assert_eq!(a.instructions.len(), 2000);
    assert_eq!(instruction_csv(&a).lines().count(), 2001);
    let worst = a.instructions[0].worst.as_ref().unwrap();
    assert_eq!(worst.address(31), Some(worst.addresses[0] + 124));
    assert_eq!(worst.address(32), None);
}

#[test]
fn l7_tiny_and_huge_long_numbers_are_out_of_range_not_too_long() {
    let mut m = MachineInputs::from_preset("A100");
    m.points[0] = "a:0.0000000000000000012:1".into();
    m.points[1] = "b:1:1000000000000000000000000000000000000000000".into();
    let messages: Vec<String> = m.check().errors.iter().map(|e| e.to_string()).collect();
    assert!(
        messages[0].starts_with("pt.1: has an intensity '0.0000000000000000012' outside 1/4096"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with(
            "pt.2: has a performance '1000000000000000000000000000000000000000000' outside 1/1000"
        ),
        "{messages:?}"
    );
}

#[test]
fn m5_each_warp_rows_ideal_is_its_distinct_bytes_in_sectors() {
    use coalescing_lab::model::kernel::calculator_addrs;
    use std::collections::BTreeSet;
    // Ascending, descending, repeated (broadcast), overlapping and scattered lanes.
    for idx in [
        "threadIdx.x",
        "63 - threadIdx.x",
        "threadIdx.x / 4",
        "threadIdx.x * 3 % 7",
        "(threadIdx.x * 131) % 700",
        "threadIdx.x % 2 * 1000 + threadIdx.x / 2",
    ] {
        for elem in ["1", "4", "8", "16"] {
            let kernel = inputs(|k| {
                k.block = "64".into();
                k.set(KernelField::Stmt(1, StmtField::Idx), idx.into());
                k.set(KernelField::Stmt(1, StmtField::Elem), elem.into());
                k.set(KernelField::Stmt(1, StmtField::Base), "3".into());
            })
            .kernel(Machine::default())
            .unwrap();
            let pick = Pick { stmt: 1, iteration: 0, block: 0 };
            let e: u64 = elem.parse().unwrap();
            for row in warp_rows(&kernel, pick).unwrap() {
                let addrs = calculator_addrs(&kernel, pick, row.warp).unwrap();
                let bytes: BTreeSet<u64> = addrs
                    .split(',')
                    .filter(|a| *a != "-")
                    .flat_map(|a| {
                        let a: u64 = a.parse().unwrap();
                        a..a + e
                    })
                    .collect();
                assert_eq!(
                    row.ideal_sectors,
                    (bytes.len() as u64).div_ceil(32),
                    "idx {idx}, elem {elem}, warp {}",
                    row.warp
                );
            }
        }
    }
}

#[test]
fn l10_close_comparisons_read_as_a_percentage() {
    use coalescing_lab::model::kernel::view::compare_sentence;
    // 50 blocks against 49: 2 % fewer, not "1.02× fewer".
    let run = |grid: &str| {
        let k = inputs(|k| k.grid = grid.into())
            .kernel(Machine::default())
            .unwrap();
        analyze_kernel(&k).unwrap()
    };
    let sentence = compare_sentence("A", &run("50"), "B", &run("49"));
    assert!(
        sentence.starts_with("B moves 2 % fewer request-level sectors than A (196 against 200)"),
        "{sentence}"
    );
}

#[test]
fn l4_l16_l17_link_notices_are_short_consistent_and_name_repeats() {
    use coalescing_lab::model::permalink::{decode, warnings};
    let long = "x".repeat(10_000);
    let w = warnings(&format!("?tab=kernel&a1.name={long}"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].len() < 300, "a short notice: {} bytes", w[0].len());
    assert!(w[0].contains("(10010 characters)"), "{}", w[0]);
    // `..` is refused like a leading `/`.
    assert_eq!(decode("?tab=trace&trace=../../../../etc/passwd").trace, "");
    assert!(warnings("?trace=../../../../etc/passwd")[0].contains("is not a path on this site"));
    // A repeated parameter is named.
    assert_eq!(
        warnings("?grid=3&tab=kernel&grid=5"),
        ["`grid` is given 2 times; the last, `grid=5`, is used."]
    );
}

#[test]
fn l1_l2_the_bank_map_text_counts_every_lane_and_names_only_active_ones() {
    use coalescing_lab::model::bank_map::{describe, layout};
    use coalescing_lab::model::inputs::Inputs;
    use coalescing_lab::model::sectors::analyze;
    // 64 lanes on 64 rows: only 40 are drawn, but all 64 are counted.
    let wide = Inputs {
        space: "shared".into(),
        warp: "64".into(),
        idx: "32*t".into(),
        ..Inputs::default()
    };
    let text = describe(&layout(&analyze(&wide).unwrap()).unwrap());
    assert!(
        text.starts_with("Bank map: 64 lanes on 64 rows of 128 B"),
        "{text}"
    );
    // Half a warp active: the busiest bank serves lanes 0–15, not 0–31.
    let half = Inputs {
        space: "shared".into(),
        idx: "16*t".into(),
        active: "t<16".into(),
        ..Inputs::default()
    };
    let text = describe(&layout(&analyze(&half).unwrap()).unwrap());
    assert!(text.contains("distinct words to lanes 0–15 "), "{text}");
}

#[test]
fn l14_cr_only_crlf_and_lf_traces_read_the_same_and_utf16_is_named() {
    let lanes: String = (0..32)
        .map(|t| format!("0x{:016x} ", 0x1000 + 4 * t))
        .collect();
    let line =
        format!("MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E - {lanes}");
    let lf = format!("{line}\n{line}\n");
    let want = analyze_trace(lf.as_bytes(), TraceOptions::default());
    assert_eq!((want.total.requests, want.lines, want.malformed), (2, 2, 0));
    for text in [format!("{line}\r{line}\r"), format!("{line}\r\n{line}\r\n")] {
        let a = analyze_trace(text.as_bytes(), TraceOptions::default());
        assert_eq!(
            (a.total, a.lines, a.malformed),
            (want.total, 2, 0),
            "{:?}",
            &text[..4]
        );
        // Any split of the bytes, a `\r\n` cut in two among them, reads the same.
        for cut in [line.len(), line.len() + 1, line.len() + 2] {
            let mut importer = coalescing_lab::model::trace::Importer::new(TraceOptions::default());
            let (a, b) = text.as_bytes().split_at(cut);
            importer.feed(a);
            importer.feed(b);
            let split = importer.finish();
            assert_eq!((split.total, split.lines), (want.total, 2), "cut at {cut}");
        }
    }
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(lf.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let a = analyze_trace(&utf16, TraceOptions::default());
    assert_eq!(a.format, None);
    assert!(
        a.notes[0].starts_with("The file is UTF-16 text"),
        "{:?}",
        a.notes
    );
    // The byte-order mark split across two chunks is still seen.
    let mut importer = coalescing_lab::model::trace::Importer::new(TraceOptions::default());
    importer.feed(&utf16[..1]);
    importer.feed(&utf16[1..]);
    assert_eq!(importer.finish(), a);
}

#[test]
fn fuzz_a_huge_accelsim_warp_number_is_a_malformed_line_not_an_allocation() {
    // Found by the trace_accelsim fuzzer: `warp = 773000000` sized the replay's queues at
    // 18 GB.
    let text = "-kernel name = k\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 773000000\ninsts = 1\n0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4 0\n#END_TB\n";
    let a = analyze_trace(text.as_bytes(), TraceOptions::default());
    assert_eq!(
        a.first_malformed[0],
        (
            4,
            "warp 773000000 is past the 32 warps of 32 threads a block of 1024 holds".to_string()
        )
    );
    let text = text.replace("773000000", "31");
    assert_eq!(
        analyze_trace(text.as_bytes(), TraceOptions::default()).malformed,
        0
    );
}
