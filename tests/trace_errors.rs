//! The trace readers' typed errors: each variant, reached from a real line, and its message to
//! the letter (the messages the page and the CLI showed when the readers returned text).

use coalescing_lab::model::kernel::{KernelField, KernelInputs, Machine, StmtField};
use coalescing_lab::model::trace::accelsim::{AccelSimError, Reader, Token};
use coalescing_lab::model::trace::nvbit::{self, NvbitError};
use coalescing_lab::model::trace::synth::{accelsim_text, nvbit_text, SynthError};
use coalescing_lab::model::trace::{analyze_trace, Format, TraceLineError, TraceOptions};

#[test]
fn every_nvbit_error_names_what_the_line_lacks() {
    let lanes = " 0x0000000000000010".repeat(32);
    let cases: [(String, NvbitError, &str); 13] = [
        (
            "MEMTRACE: CTX".into(),
            NvbitError::ExpectedContext,
            "expected 'CTX 0x… - ' after 'MEMTRACE: '",
        ),
        (
            "MEMTRACE: CTX 0x1 - grid 0".into(),
            NvbitError::ExpectedGridLaunchId,
            "expected 'grid_launch_id N' after the context",
        ),
        (
            "MEMTRACE: CTX 0x1 - grid_launch_id 0".into(),
            NvbitError::ExpectedCtaAfterLaunchId,
            "expected ' - CTA x,y,z' after the grid launch id",
        ),
        (
            "MEMTRACE: CTX 0x1 - grid_launch_id 0 - warp 0".into(),
            NvbitError::ExpectedCta,
            "expected 'CTA x,y,z'",
        ),
        (
            "CTA 1,0,0".into(),
            NvbitError::ExpectedWarpAfterCta,
            "expected ' - warp N' after the CTA",
        ),
        (
            format!("CTA 1,0 - warp 0 - LDG.E -{lanes}"),
            NvbitError::NotTriple { cta: "1,0".into() },
            "CTA '1,0' is not x,y,z",
        ),
        (
            "CTA 1,0,0 - lane 0".into(),
            NvbitError::ExpectedWarp,
            "expected 'warp N' after the CTA",
        ),
        (
            "CTA 1,0,0 - warp 0".into(),
            NvbitError::ExpectedOpcode,
            "expected ' - OPCODE' after the warp",
        ),
        (
            format!("CTA 1,0,0 - warp x - LDG.E -{lanes}"),
            NvbitError::NotWarp { warp: "x".into() },
            "warp 'x' is not a whole number",
        ),
        (
            "CTA 1,0,0 - warp 0 - LDG.E".into(),
            NvbitError::ExpectedAddresses,
            "expected ' - ' and the lane addresses after the opcode",
        ),
        (
            format!("CTA 1,0,0 - warp 0 - LD G -{lanes}"),
            NvbitError::NotOpcode { opcode: "LD G".into() },
            "'LD G' is not an opcode",
        ),
        (
            "CTA 1,0,0 - warp 0 - LDG.E - 0x10 0xZZ".into(),
            NvbitError::NotHex { lane: 1, token: "0xZZ".into() },
            "lane 1: '0xZZ' is not a 0x hex address",
        ),
        (
            "CTA 1,0,0 - warp 0 - LDG.E - 0x10".into(),
            NvbitError::LaneCount { found: 1 },
            "expected 32 lane addresses after the opcode, found 1",
        ),
    ];
    for (line, error, text) in cases {
        assert_eq!(nvbit::parse(&line), Err(error.clone()), "{line}");
        assert_eq!(error.to_string(), text);
    }
}

#[test]
fn every_accelsim_error_names_the_token_and_what_it_found() {
    let cases: [(&str, AccelSimError, &str); 15] = [
        (
            "-accelsim tracer version = x.1",
            AccelSimError::TracerVersion { version: "x.1".into() },
            "tracer version 'x.1' is not a number",
        ),
        (
            "thread block = 1,2",
            AccelSimError::NotTriple { block: "1,2".into() },
            "thread block '1,2' is not x,y,z",
        ),
        (
            "warp = x",
            AccelSimError::NotWarp { warp: "x".into() },
            "warp 'x' is not a whole number",
        ),
        (
            "warp = 32",
            AccelSimError::WarpPastBlock { warp: 32 },
            "warp 32 is past the 32 warps of 32 threads a block of 1024 holds",
        ),
        (
            "0010",
            AccelSimError::EndsBefore { token: Token::Mask },
            "the line ends before its mask",
        ),
        (
            "zz ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4 0",
            AccelSimError::PcNotHex { pc: "zz".into() },
            "PC 'zz' is not hex",
        ),
        (
            "0010 fffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4 0",
            AccelSimError::MaskNotHex { mask: "fffffffff".into() },
            "mask 'fffffffff' is not 32-bit hex",
        ),
        (
            "0010 ffffffff 9 R2 LDG.E 1 R4 4 1 0x1000 4 0",
            AccelSimError::NotRegisterCount {
                token: Token::DestinationCount,
                count: "9".into(),
            },
            "destination count '9' is not a register count",
        ),
        (
            "0010 ffffffff 1 R2 LDG.E x R4 4 1 0x1000 4 0",
            AccelSimError::NotRegisterCount {
                token: Token::SourceCount,
                count: "x".into(),
            },
            "source count 'x' is not a register count",
        ),
        (
            "0010 ffffffff 1 R2 LDG.E 1 R4 w 1 0x1000 4 0",
            AccelSimError::NotWidth { width: "w".into() },
            "memory width 'w' is not a whole number",
        ),
        (
            "0010 00000001 1 R2 LDG.E 1 R4 4 0 0x",
            AccelSimError::NotHex { token: "0x".into() },
            "'0x' is not a 0x hex address",
        ),
        (
            "0010 00000003 1 R2 LDG.E 1 R4 4 1 0x0 -1",
            AccelSimError::OutsideAddresses { lane: 1, from: 0, by: -1 },
            "lane 1: address 0 -1 is outside 0 to 2^64−1",
        ),
        (
            "0010 00000003 1 R2 LDG.E 1 R4 4 1 0x0 s",
            AccelSimError::NotStride { stride: "s".into() },
            "stride 's' is not a whole number",
        ),
        (
            "0010 00000003 1 R2 LDG.E 1 R4 4 2 0x0 d",
            AccelSimError::NotDelta { delta: "d".into() },
            "delta 'd' is not a whole number",
        ),
        (
            "0010 00000003 1 R2 LDG.E 1 R4 4 7",
            AccelSimError::NotMode { mode: "7".into() },
            "address mode '7' is not 0, 1 or 2",
        ),
    ];
    for (line, error, text) in cases {
        assert_eq!(Reader::default().parse(line), Err(error.clone()), "{line}");
        assert_eq!(error.to_string(), text);
    }
}

#[test]
fn an_accelsim_line_that_stops_short_names_the_token_its_header_asks_for() {
    // Before version 3 a line starts with the block and the warp.
    let mut old = Reader::default();
    old.parse("-accelsim tracer version = 2").unwrap();
    let e = old.parse("1").unwrap_err();
    assert_eq!(e, AccelSimError::EndsBefore { token: Token::BlockY });
    assert_eq!(e.to_string(), "the line ends before its block y");
    // With line numbers, the number comes before the PC.
    let mut lineinfo = Reader::default();
    lineinfo.parse("-enable lineinfo = 1").unwrap();
    let e = lineinfo.parse("12").unwrap_err();
    assert_eq!(e.to_string(), "the line ends before its PC");
    let e = Reader::default().parse("0010 ffffffff 2 R2").unwrap_err();
    assert_eq!(
        e.to_string(),
        "the line ends before its destination register"
    );
}

#[test]
fn the_importer_words_its_own_errors_and_the_readers_unchanged() {
    assert_eq!(
        TraceLineError::TooLong.to_string(),
        "longer than 65536 bytes"
    );
    assert_eq!(TraceLineError::NotUtf8.to_string(), "not UTF-8 text");
    let nvbit = NvbitError::LaneCount { found: 3 };
    assert_eq!(
        TraceLineError::from(nvbit.clone()).to_string(),
        nvbit.to_string()
    );
    let accelsim = AccelSimError::NotMode { mode: "7".into() };
    assert_eq!(
        TraceLineError::from(accelsim.clone()).to_string(),
        accelsim.to_string()
    );
    // A line that is not UTF-8, with its line number.
    let options = TraceOptions {
        format: Some(Format::Nvbit),
        ..TraceOptions::default()
    };
    let a = analyze_trace(b"CTA 0,0,0 - warp 0 - LDG.E - \xff\n", options);
    assert_eq!(a.first_malformed, [(1, "not UTF-8 text".to_string())]);
}

#[test]
fn a_kernel_a_trace_cannot_hold_is_refused_with_the_reason() {
    let based = |inputs: &mut KernelInputs| {
        inputs.set(KernelField::Stmt(1, StmtField::Base), "0x1000".into());
    };
    // A warp of 16 lanes.
    let mut inputs = KernelInputs::default();
    based(&mut inputs);
    let narrow = Machine { warp: 16, ..Machine::default() };
    let kernel = inputs.kernel(narrow).unwrap();
    let e = accelsim_text(&kernel, "k").unwrap_err();
    assert_eq!(e, SynthError::WarpLanes { lanes: 16 });
    assert_eq!(
        e.to_string(),
        "warp: traces hold 32 lanes per warp, the machine has 16"
    );
    // An active lane at address 0, which NVBit's format reads as inactive.
    let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
    let e = nvbit_text(&kernel, "k").unwrap_err();
    assert_eq!(
        e,
        SynthError::ZeroAddress {
            stmt: 1,
            block: [0, 0, 0],
            warp: 0,
            lane: 0
        }
    );
    assert_eq!(
        e.to_string(),
        "a1.base: block (0,0,0) warp 0 lane 0 reads address 0, which NVBit's format cannot \
         tell from an inactive lane; move the array off address 0"
    );
    // A kernel that does not run: the kernel's own error, unchanged.
    let mut inputs = KernelInputs::default();
    based(&mut inputs);
    inputs.set(
        KernelField::Stmt(1, StmtField::Idx),
        "threadIdx.x - 5000".into(),
    );
    let kernel = inputs.kernel(Machine::default()).unwrap();
    let e = accelsim_text(&kernel, "k").unwrap_err();
    let SynthError::Kernel(inner) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(e.to_string(), inner.to_string());
    assert!(e.to_string().starts_with("a1.idx: "), "{e}");
}
