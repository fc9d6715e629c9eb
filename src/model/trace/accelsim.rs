//! Accel-Sim's SASS kernel trace (`kernel-N.traceg`), as its tracer writes it and its trace
//! parser reads it (accel-sim-framework `util/tracer_nvbit/tracer_tool/tracer_tool.cu`,
//! `traces-processing/post-traces-processing.cpp` and `gpu-simulator/trace-parser/`; cited in
//! docs/traces.md, "Formats").
//!
//! A header of `-key = value` lines (`-accelsim tracer version = N`, `-enable lineinfo = N`, …)
//! and `#` comments, then per thread block `#BEGIN_TB`, `thread block = x,y,z`, and per warp
//! `warp = N`, `insts = N` and the warp's instructions, then `#END_TB`. An instruction line is
//!
//! ```text
//! [line_num] PC mask dest_num [R<d>] OPCODE src_num [R<s> …] mem_width [mode addresses…] [imm]
//! ```
//!
//! with PC and mask in hex, `mem_width` 0 for an instruction that touches no memory, and the
//! addresses of the lanes set in `mask` in one of three modes: `0` lists one `0x` address per
//! set lane; `1 base stride` gives the first set lane's address and the step between
//! consecutive set lanes; `2 base d1 d2 …` gives the first set lane's address and, for each
//! later set lane, its distance from the previous one. Versions before 3 start each line with
//! `tb_x tb_y tb_z warp`. The width is read from the opcode, as Accel-Sim's parser does.

use super::nvbit::{parse_hex, parse_triple};
use super::{Record, TRACE_LANES};
use std::fmt;

/// Warps a thread block can hold: 1024 threads in warps of 32, as Accel-Sim traces them.
pub const MAX_WARPS_PER_BLOCK: u32 = 32;

/// A token of an instruction line, named as the error messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// Thread block x, the first of the per-line block and warp fields of versions before 3.
    BlockX,
    /// Thread block y (versions before 3).
    BlockY,
    /// Thread block z (versions before 3).
    BlockZ,
    /// The warp id at the start of the line (versions before 3).
    Warp,
    /// The source line number, present when the header says `-enable lineinfo = 1`.
    LineNumber,
    /// The instruction's PC, in hex.
    Pc,
    /// The 32-bit active mask, in hex: bit `l` set means lane `l` executed.
    Mask,
    /// How many destination registers follow (0 to 8).
    DestinationCount,
    /// One `R<d>` destination register.
    DestinationRegister,
    /// The SASS opcode, e.g. `LDG.E.64`; the access width is read from it.
    Opcode,
    /// How many source registers follow (0 to 8).
    SourceCount,
    /// One `R<s>` source register.
    SourceRegister,
    /// `mem_width` in bytes; 0 means the instruction touches no memory.
    MemoryWidth,
    /// The address mode: 0 (a list), 1 (base and stride) or 2 (base and deltas).
    AddressMode,
    /// One set lane's `0x` address, in mode 0.
    LaneAddress,
    /// The first set lane's `0x` address, in modes 1 and 2.
    BaseAddress,
    /// The signed step in bytes between consecutive set lanes, in mode 1.
    Stride,
    /// A set lane's signed distance in bytes from the previous set lane, in mode 2.
    AddressDelta,
}

impl Token {
    /// The token's name in a message: `memory width`, `PC`, …
    pub fn name(self) -> &'static str {
        match self {
            Token::BlockX => "block x",
            Token::BlockY => "block y",
            Token::BlockZ => "block z",
            Token::Warp => "warp",
            Token::LineNumber => "line number",
            Token::Pc => "PC",
            Token::Mask => "mask",
            Token::DestinationCount => "destination count",
            Token::DestinationRegister => "destination register",
            Token::Opcode => "opcode",
            Token::SourceCount => "source count",
            Token::SourceRegister => "source register",
            Token::MemoryWidth => "memory width",
            Token::AddressMode => "address mode",
            Token::LaneAddress => "lane address",
            Token::BaseAddress => "base address",
            Token::Stride => "stride",
            Token::AddressDelta => "address delta",
        }
    }
}

/// Why a `.traceg` line could not be read; the importer adds its line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccelSimError {
    /// `-accelsim tracer version = …` whose whole part is not a number.
    TracerVersion {
        /// The value after `=`, as written.
        version: String,
    },
    /// `thread block = …` that is not three whole numbers.
    NotTriple {
        /// The value after `=`, as written.
        block: String,
    },
    /// `warp = …` that is not a whole number.
    NotWarp {
        /// The value after `=`, as written.
        warp: String,
    },
    /// `warp = N` with N past the warps a block holds.
    WarpPastBlock {
        /// The warp number read, 32 or more.
        warp: u32,
    },
    /// The instruction line stops before this token.
    EndsBefore {
        /// The first token the line lacks.
        token: Token,
    },
    /// The PC is not hex.
    PcNotHex {
        /// The PC token as written.
        pc: String,
    },
    /// The mask is not 32-bit hex.
    MaskNotHex {
        /// The mask token as written.
        mask: String,
    },
    /// A destination or source count that is not 0 to 8.
    NotRegisterCount {
        /// Which count: `DestinationCount` or `SourceCount`.
        token: Token,
        /// The count token as written.
        count: String,
    },
    /// The memory width is not a whole number.
    NotWidth {
        /// The width token as written.
        width: String,
    },
    /// An address is not `0x` hex of at most 16 digits.
    NotHex {
        /// The address token as written.
        token: String,
    },
    /// Lane `lane`'s address, `from` plus `by`, leaves the address space.
    OutsideAddresses {
        /// The lane (0 to 31) whose address overflowed.
        lane: usize,
        /// The previous set lane's address, in bytes.
        from: u64,
        /// The stride or delta added to it, in bytes.
        by: i64,
    },
    /// The stride is not a whole number.
    NotStride {
        /// The stride token as written.
        stride: String,
    },
    /// A delta is not a whole number.
    NotDelta {
        /// The delta token as written.
        delta: String,
    },
    /// The address mode is not 0, 1 or 2.
    NotMode {
        /// The mode token as written.
        mode: String,
    },
}

impl fmt::Display for AccelSimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccelSimError::TracerVersion { version } => {
                write!(f, "tracer version '{version}' is not a number")
            }
            AccelSimError::NotTriple { block } => write!(f, "thread block '{block}' is not x,y,z"),
            AccelSimError::NotWarp { warp } => write!(f, "warp '{warp}' is not a whole number"),
            AccelSimError::WarpPastBlock { warp } => write!(
                f,
                "warp {warp} is past the {MAX_WARPS_PER_BLOCK} warps of 32 threads a block of 1024 holds"
            ),
            AccelSimError::EndsBefore { token } => {
                write!(f, "the line ends before its {}", token.name())
            }
            AccelSimError::PcNotHex { pc } => write!(f, "PC '{pc}' is not hex"),
            AccelSimError::MaskNotHex { mask } => write!(f, "mask '{mask}' is not 32-bit hex"),
            AccelSimError::NotRegisterCount { token, count } => {
                write!(f, "{} '{count}' is not a register count", token.name())
            }
            AccelSimError::NotWidth { width } => {
                write!(f, "memory width '{width}' is not a whole number")
            }
            AccelSimError::NotHex { token } => write!(f, "'{token}' is not a 0x hex address"),
            AccelSimError::OutsideAddresses { lane, from, by } => write!(
                f,
                "lane {lane}: address {from} {by:+} is outside 0 to 2^64−1"
            ),
            AccelSimError::NotStride { stride } => {
                write!(f, "stride '{stride}' is not a whole number")
            }
            AccelSimError::NotDelta { delta } => write!(f, "delta '{delta}' is not a whole number"),
            AccelSimError::NotMode { mode } => write!(f, "address mode '{mode}' is not 0, 1 or 2"),
        }
    }
}

impl std::error::Error for AccelSimError {}

/// What one line of a `.traceg` file is.
#[expect(
    clippy::large_enum_variant,
    reason = "one line at a time, on the stack: boxing the record would allocate for every line"
)]
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A header line, comment, `insts =` or blank line.
    Header,
    /// `thread block = x,y,z`: a block begins.
    Block([u32; 3]),
    /// `#END_TB`.
    BlockEnd,
    /// `warp = N`.
    Warp(u32),
    /// A memory instruction.
    Access(Record<'a>),
    /// An instruction that touches no memory (`mem_width` 0).
    NonMemory,
}

/// The reader's state: the header's version and line-number flag, and the current block and
/// warp.
#[derive(Clone, Debug)]
pub struct Reader {
    version: u32,
    lineinfo: bool,
    block: [u32; 3],
    warp: u32,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            version: 5,
            lineinfo: false,
            block: [0; 3],
            warp: 0,
        }
    }
}

impl Reader {
    /// Reads one line (without its newline).
    ///
    /// ```
    /// use coalescing_lab::model::trace::accelsim::{Line, Reader};
    /// let mut r = Reader::default();
    /// assert_eq!(r.parse("thread block = 2,0,0"), Ok(Line::Block([2, 0, 0])));
    /// assert_eq!(r.parse("warp = 1"), Ok(Line::Warp(1)));
    /// // 16 lanes from 0x80, 4 bytes apart except the last, which jumps by 132.
    /// let line = "0150 0000ffff 0 STS 2 R3 R8 4 2 0x80 4 4 4 4 4 4 4 4 4 4 4 4 4 4 132 0 ";
    /// let Ok(Line::Access(a)) = r.parse(line) else { panic!() };
    /// assert_eq!((a.pc, a.mask, a.addresses[14], a.addresses[15]), (Some(0x150), 0xffff, 0x80 + 56, 0x80 + 56 + 132));
    /// assert_eq!((a.block, a.warp), ([2, 0, 0], 1));
    /// assert_eq!(r.parse("0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0 "), Ok(Line::NonMemory));
    /// ```
    pub fn parse<'a>(&mut self, line: &'a str) -> Result<Line<'a>, AccelSimError> {
        let line = line.trim();
        if line.is_empty() || line.starts_with("insts") {
            return Ok(Line::Header);
        }
        if let Some(header) = line.strip_prefix('-') {
            if let Some(v) = header.strip_prefix("accelsim tracer version = ") {
                // "1.2", "3", "4", "5": the whole part decides the layout.
                let whole = v.trim().split('.').next().unwrap_or("");
                self.version = whole
                    .parse()
                    .map_err(|_| AccelSimError::TracerVersion { version: v.trim().into() })?;
            } else if let Some(v) = header.strip_prefix("enable lineinfo = ") {
                self.lineinfo = v.trim() != "0";
            }
            return Ok(Line::Header);
        }
        if line == "#END_TB" {
            return Ok(Line::BlockEnd);
        }
        if line.starts_with('#') {
            return Ok(Line::Header);
        }
        if let Some(block) = line.strip_prefix("thread block = ") {
            self.block = parse_triple(block)
                .ok_or_else(|| AccelSimError::NotTriple { block: block.into() })?;
            self.warp = 0;
            return Ok(Line::Block(self.block));
        }
        if let Some(warp) = line.strip_prefix("warp = ") {
            let n: u32 = warp
                .trim()
                .parse()
                .map_err(|_| AccelSimError::NotWarp { warp: warp.into() })?;
            // The replay keeps a queue per warp: a hostile number must not size it (the
            // fuzzer's `warp = 773000000` asked for 18 GB).
            if n >= MAX_WARPS_PER_BLOCK {
                return Err(AccelSimError::WarpPastBlock { warp: n });
            }
            self.warp = n;
            return Ok(Line::Warp(self.warp));
        }
        self.instruction(line)
    }

    fn instruction<'a>(&self, line: &'a str) -> Result<Line<'a>, AccelSimError> {
        let mut tokens = line.split_ascii_whitespace();
        let mut next = |token: Token| tokens.next().ok_or(AccelSimError::EndsBefore { token });
        if self.version < 3 {
            for token in [Token::BlockX, Token::BlockY, Token::BlockZ, Token::Warp] {
                next(token)?;
            }
        }
        if self.lineinfo {
            next(Token::LineNumber)?;
        }
        let pc = next(Token::Pc)?;
        let pc =
            u64::from_str_radix(pc, 16).map_err(|_| AccelSimError::PcNotHex { pc: pc.into() })?;
        let mask = next(Token::Mask)?;
        let mask = u32::from_str_radix(mask, 16)
            .map_err(|_| AccelSimError::MaskNotHex { mask: mask.into() })?;
        let count = |text: &str, token: Token| -> Result<usize, AccelSimError> {
            text.parse::<usize>()
                .ok()
                .filter(|n| *n <= 8)
                .ok_or_else(|| AccelSimError::NotRegisterCount { token, count: text.into() })
        };
        let dests = count(next(Token::DestinationCount)?, Token::DestinationCount)?;
        for _ in 0..dests {
            next(Token::DestinationRegister)?;
        }
        let opcode = next(Token::Opcode)?;
        let srcs = count(next(Token::SourceCount)?, Token::SourceCount)?;
        for _ in 0..srcs {
            next(Token::SourceRegister)?;
        }
        let width = next(Token::MemoryWidth)?;
        let width: u32 = width
            .parse()
            .map_err(|_| AccelSimError::NotWidth { width: width.into() })?;
        if width == 0 {
            return Ok(Line::NonMemory);
        }
        let mut record = Record {
            pc: Some(pc),
            opcode,
            mask: u64::from(mask),
            addresses: [0; TRACE_LANES],
            block: self.block,
            warp: self.warp,
            launch: None,
        };
        let lanes: Vec<usize> = (0..TRACE_LANES).filter(|l| mask & (1 << l) != 0).collect();
        let mode = next(Token::AddressMode)?;
        let hex = |token: &str| {
            parse_hex(token).ok_or_else(|| AccelSimError::NotHex { token: token.into() })
        };
        let step = |from: u64, by: i64, lane: usize| -> Result<u64, AccelSimError> {
            u64::try_from(i128::from(from) + i128::from(by))
                .map_err(|_| AccelSimError::OutsideAddresses { lane, from, by })
        };
        match mode {
            "0" => {
                for &lane in &lanes {
                    record.addresses[lane] = hex(next(Token::LaneAddress)?)?;
                }
            }
            "1" | "2" => {
                let base = hex(next(Token::BaseAddress)?)?;
                let stride: i64 = if mode == "1" {
                    let s = next(Token::Stride)?;
                    s.parse()
                        .map_err(|_| AccelSimError::NotStride { stride: s.into() })?
                } else {
                    0
                };
                let mut previous: Option<u64> = None;
                for &lane in &lanes {
                    let address = match previous {
                        None => base,
                        Some(p) if mode == "1" => step(p, stride, lane)?,
                        Some(p) => {
                            let d = next(Token::AddressDelta)?;
                            let d: i64 = d
                                .parse()
                                .map_err(|_| AccelSimError::NotDelta { delta: d.into() })?;
                            step(p, d, lane)?
                        }
                    };
                    record.addresses[lane] = address;
                    previous = Some(address);
                }
            }
            other => return Err(AccelSimError::NotMode { mode: other.into() }),
        }
        Ok(Line::Access(record))
    }
}
