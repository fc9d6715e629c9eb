//! Traces: the round trip (a model kernel written in each format and read back gives exactly
//! the kernel view's totals), the hand-written fixtures, and any split of the bytes.

use coalescing_lab::model::kernel::{
    analyze_kernel, Figures, Kernel, KernelField, KernelInputs, Machine, StmtField,
};
use coalescing_lab::model::trace::synth::{accelsim_text, nvbit_text};
use coalescing_lab::model::trace::{analyze_trace, worst_addrs, Format, Importer, TraceOptions};
use proptest::prelude::*;

const IDX: [&str; 6] = [
    "threadIdx.x",
    "blockIdx.x * blockDim.x + threadIdx.x",
    "threadIdx.y * 37 + threadIdx.x * 3",
    "lane * 5 + warp * 64 + abs(i) * 7",
    "threadIdx.x * 32 + i",
    "(threadIdx.x * 131 + abs(i) * 40) % 700",
];
const ACTIVE: [&str; 3] = ["", "threadIdx.x % 3 != 1", "lane < 20"];

prop_compose! {
    fn small_kernel()(
        grid in (1u32..=3, 1u32..=2),
        block in (1u32..=70, 1u32..=2),
        looping in prop::option::of((0i64..3, 1i64..4)),
        cache_lines in prop::sample::select(vec![0u64, 1, 2, 4, 64]),
        stmts in prop::collection::vec(
            (0u8..4, prop::sample::select(vec![1u64, 2, 4, 8, 16]), 1u64..300, 0..IDX.len(), 0..ACTIVE.len()),
            1..=3,
        ),
    ) -> Kernel {
        let machine = Machine::default();
        let mut inputs = KernelInputs {
            grid: format!("{},{}", grid.0, grid.1),
            block: format!("{},{}", block.0, block.1),
            loop_range: looping.map_or(String::new(), |(a, n)| format!("{a}:{}", a + n)),
            cache: (cache_lines * machine.line_bytes).to_string(),
            statements: Default::default(),
            ..KernelInputs::default()
        };
        for (n, (what, elem, base, idx, active)) in stmts.into_iter().enumerate() {
            let n = n as u8 + 1;
            let (kind, space) = match what {
                0 => ("load", "global"),
                1 => ("store", "global"),
                2 => ("load", "shared"),
                _ => ("store", "shared"),
            };
            let set = |inputs: &mut KernelInputs, f, v: String| inputs.set(KernelField::Stmt(n, f), v);
            set(&mut inputs, StmtField::Kind, kind.into());
            set(&mut inputs, StmtField::Space, space.into());
            set(&mut inputs, StmtField::Elem, elem.to_string());
            // Off address 0, which NVBit's format reads as an inactive lane.
            set(&mut inputs, StmtField::Base, (4096 + base * 16).to_string());
            set(&mut inputs, StmtField::Idx, IDX[idx].into());
            set(&mut inputs, StmtField::Active, ACTIVE[active].into());
        }
        inputs.kernel(machine).unwrap()
    }
}

/// The figures a trace can carry: everything but barriers.
fn traceable(f: &Figures) -> Figures {
    Figures { barriers: 0, ..*f }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn nvbit_text_of_a_kernel_reads_back_as_the_kernel_view_s_totals(kernel in small_kernel()) {
        let want = analyze_kernel(&kernel).unwrap().total;
        let text = nvbit_text(&kernel, "k").unwrap();
        let options = TraceOptions { cache_bytes: kernel.cache_bytes, ..TraceOptions::default() };
        let got = analyze_trace(text.as_bytes(), options);
        prop_assert_eq!(got.format, Some(Format::Nvbit));
        prop_assert_eq!(got.malformed, 0);
        prop_assert_eq!(traceable(&got.total), traceable(&want));
    }

    #[test]
    fn accelsim_text_of_a_kernel_reads_back_as_the_kernel_view_s_totals(kernel in small_kernel()) {
        let want = analyze_kernel(&kernel).unwrap().total;
        let text = accelsim_text(&kernel, "k").unwrap();
        let options = TraceOptions { cache_bytes: kernel.cache_bytes, ..TraceOptions::default() };
        let got = analyze_trace(text.as_bytes(), options);
        prop_assert_eq!(got.format, Some(Format::AccelSim));
        prop_assert_eq!(got.malformed, 0);
        prop_assert_eq!(traceable(&got.total), traceable(&want));
        // Accel-Sim keys instructions by PC: one row per statement that ran.
        let ran = kernel.statements.len();
        prop_assert!(got.instructions.len() <= ran);
    }

    #[test]
    fn any_split_of_the_bytes_reads_the_same(kernel in small_kernel(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6)) {
        let text = nvbit_text(&kernel, "k").unwrap();
        let whole = analyze_trace(text.as_bytes(), TraceOptions::default());
        let bytes = text.as_bytes();
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        at.sort_unstable();
        let mut importer = Importer::new(TraceOptions::default());
        let mut from = 0;
        for cut in at {
            importer.feed(&bytes[from..cut]);
            from = cut;
        }
        importer.feed(&bytes[from..]);
        prop_assert_eq!(importer.finish(), whole);
    }
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn the_nvbit_fixture_reads_every_width_inactive_lanes_and_its_malformed_lines() {
    let a = analyze_trace(&fixture("widths.nvbit.txt"), TraceOptions::default());
    assert_eq!(a.format, Some(Format::Nvbit));
    let by_opcode = |op: &str| {
        a.instructions
            .iter()
            .find(|i| i.opcode == op)
            .unwrap_or_else(|| panic!("{op}"))
    };
    // Widths from the modifiers: plain 4, .64 8, .128 16, .U8 1, .S16 2, .8 1, .16 2.
    for (op, elem) in [
        ("LDG.E", 4),
        ("LDG.E.64", 8),
        ("LDG.E.128", 16),
        ("LDG.E.U8", 1),
        ("LDG.E.S16", 2),
        ("STG.E.8", 1),
        ("STG.E.16", 2),
        ("LDS.U.128", 16),
        ("STL.64", 8),
    ] {
        assert_eq!(by_opcode(op).elem, elem, "{op}");
    }
    // LDG.E: two executions, the second with lanes 16–31 printed as 0 (inactive).
    let ldg = by_opcode("LDG.E");
    assert_eq!((ldg.executions, ldg.requests, ldg.active_lanes), (2, 2, 48));
    // 32 floats from 0x1000 are 4 sectors; 16 floats from 0x2000 are 2.
    assert_eq!((ldg.sectors, ldg.ideal_sectors), (6, 6));
    // LDG.E.128 of 32 lanes 16 bytes apart: 16 sectors, all useful.
    assert_eq!(by_opcode("LDG.E.128").sectors, 16);
    // LDS.U.128 down a 33-padded column of float4: shared, wavefronts counted, no sectors.
    let lds = by_opcode("LDS.U.128");
    assert_eq!((lds.sectors, lds.wavefronts.wavefronts > 0), (0, true));
    // Every static instruction is a row; the application's own print is another line.
    assert_eq!(a.other_lines, 1);
    assert_eq!(a.kernels, 1);
    assert_eq!(a.malformed, 3);
    assert_eq!(
        a.first_malformed,
        [
            (
                12,
                "expected 32 lane addresses after the opcode, found 3".to_string()
            ),
            (13, "lane 0: '0xZZ' is not a 0x hex address".to_string()),
            (14, "CTA '1,0' is not x,y,z".to_string()),
        ]
    );
    // The worst execution opens in the calculator with one address per lane.
    let addrs = worst_addrs(ldg).unwrap();
    assert_eq!(addrs.split(',').count(), 32);
    assert!(addrs.starts_with("4096,4100,"));
}

#[test]
fn the_accelsim_fixture_reads_all_three_address_modes_and_the_mask_0_line() {
    let a = analyze_trace(&fixture("modes.traceg"), TraceOptions::default());
    assert_eq!(a.format, Some(Format::AccelSim));
    assert_eq!(a.malformed, 1);
    assert_eq!(a.first_malformed[0].1, "address mode '7' is not 0, 1 or 2");
    assert_eq!(a.non_memory, 1);
    let by_pc = |pc: u64| {
        a.instructions
            .iter()
            .find(|i| i.pc == Some(pc))
            .unwrap_or_else(|| panic!("{pc:x}"))
    };
    // Mode 1: 32 lanes from 0x1000, stride 4: 4 sectors.
    assert_eq!((by_pc(0x10).sectors, by_pc(0x10).requests), (4, 1));
    // Mode 0: 4 listed lanes 128 bytes apart: 4 sectors of 32, ideal 1.
    assert_eq!(
        (
            by_pc(0x20).sectors,
            by_pc(0x20).ideal_sectors,
            by_pc(0x20).active_lanes
        ),
        (4, 1, 4)
    );
    // Mode 2: 16 lanes 4 apart, the last 132 after its neighbour: 3 sectors.
    assert_eq!(by_pc(0x30).sectors, 3);
    // Mask 0 (predicated off): an execution, not a request.
    assert_eq!((by_pc(0x40).executions, by_pc(0x40).requests), (1, 0));
    // Rows come most excess sectors first.
    assert_eq!(a.instructions[0].pc, Some(0x20));
}

#[test]
fn an_over_long_line_is_malformed_however_the_bytes_arrive() {
    let mut text = "x".repeat(70_000);
    text.push('\n');
    let lanes: String = (0..32)
        .map(|t| format!("0x{:016x} ", 0x1000 + 4 * t))
        .collect();
    text.push_str(&format!(
        "MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E - {lanes}\n"
    ));
    let options = TraceOptions {
        format: Some(Format::Nvbit),
        ..TraceOptions::default()
    };
    let whole = analyze_trace(text.as_bytes(), options.clone());
    assert_eq!(
        whole.first_malformed,
        [(1, "longer than 65536 bytes".to_string())]
    );
    assert_eq!((whole.lines, whole.total.requests), (2, 1));
    let mut importer = Importer::new(options);
    for chunk in text.as_bytes().chunks(1000) {
        importer.feed(chunk);
    }
    assert_eq!(importer.finish(), whole);
}
