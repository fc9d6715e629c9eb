//! NVBit's `mem_trace` text output, one line per executed warp memory instruction.
//!
//! The format, from the tool's source (NVBit 1.7.5 `tools/mem_trace/mem_trace.cu`,
//! `recv_thread_fun`; cited in docs/traces.md, "Formats"):
//!
//! ```text
//! MEMTRACE: CTX 0x<16 hex> - grid_launch_id <n> - CTA <x>,<y>,<z> - warp <w> - <OPCODE> - 0x<16 hex> ×32
//! MEMTRACE: CTX 0x<16 hex> - LAUNCH - Kernel pc 0x… - Kernel name … - grid launch id … - …
//! ```
//!
//! NVBit 1.4 printed the access lines without the prefix: `CTA x,y,z - warp w - OPCODE - …`.
//! `warp` is the hardware warp slot (`%warpid`), not the warp within the block. There is no PC
//! and no active mask: the tool gathers the 32 addresses with a warp shuffle, which leaves
//! inactive lanes undefined (they print as 0 in practice), so a lane printed as 0 is taken as
//! inactive. A trace must come from a build that zeroes inactive lanes.

use super::{Record, TRACE_LANES};
use std::fmt;

/// Why a `mem_trace` line could not be read; the importer adds its line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NvbitError {
    /// `MEMTRACE: ` without ` - ` after the context.
    ExpectedContext,
    /// No `grid_launch_id N` after the context.
    ExpectedGridLaunchId,
    /// No ` - ` after the grid launch id.
    ExpectedCtaAfterLaunchId,
    /// No `CTA ` where the block belongs.
    ExpectedCta,
    /// No ` - ` after the CTA.
    ExpectedWarpAfterCta,
    /// The CTA is not three whole numbers.
    NotTriple {
        /// The text after `CTA `, as written.
        cta: String,
    },
    /// No `warp ` after the CTA.
    ExpectedWarp,
    /// No ` - ` after the warp.
    ExpectedOpcode,
    /// The warp is not a whole number.
    NotWarp {
        /// The text after `warp `, as written.
        warp: String,
    },
    /// No ` - ` after the opcode.
    ExpectedAddresses,
    /// The opcode is empty or holds a space.
    NotOpcode {
        /// The opcode text, as written.
        opcode: String,
    },
    /// A lane's address is not `0x` hex of at most 16 digits.
    NotHex {
        /// The lane, 0 to 31.
        lane: u32,
        /// Its address token, as written.
        token: String,
    },
    /// Not 32 addresses after the opcode.
    LaneCount {
        /// How many addresses the line has.
        found: usize,
    },
}

impl fmt::Display for NvbitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NvbitError::ExpectedContext => f.write_str("expected 'CTX 0x… - ' after 'MEMTRACE: '"),
            NvbitError::ExpectedGridLaunchId => {
                f.write_str("expected 'grid_launch_id N' after the context")
            }
            NvbitError::ExpectedCtaAfterLaunchId => {
                f.write_str("expected ' - CTA x,y,z' after the grid launch id")
            }
            NvbitError::ExpectedCta => f.write_str("expected 'CTA x,y,z'"),
            NvbitError::ExpectedWarpAfterCta => f.write_str("expected ' - warp N' after the CTA"),
            NvbitError::NotTriple { cta } => write!(f, "CTA '{cta}' is not x,y,z"),
            NvbitError::ExpectedWarp => f.write_str("expected 'warp N' after the CTA"),
            NvbitError::ExpectedOpcode => f.write_str("expected ' - OPCODE' after the warp"),
            NvbitError::NotWarp { warp } => write!(f, "warp '{warp}' is not a whole number"),
            NvbitError::ExpectedAddresses => {
                f.write_str("expected ' - ' and the lane addresses after the opcode")
            }
            NvbitError::NotOpcode { opcode } => write!(f, "'{opcode}' is not an opcode"),
            NvbitError::NotHex { lane, token } => {
                write!(f, "lane {lane}: '{token}' is not a 0x hex address")
            }
            NvbitError::LaneCount { found } => write!(
                f,
                "expected {TRACE_LANES} lane addresses after the opcode, found {found}"
            ),
        }
    }
}

impl std::error::Error for NvbitError {}

/// What one line of a `mem_trace` file is.
#[expect(
    clippy::large_enum_variant,
    reason = "one line at a time, on the stack: boxing the record would allocate for every line"
)]
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A warp memory instruction.
    Access(Record<'a>),
    /// A kernel launch header.
    Launch,
    /// Anything that is not `mem_trace` output (the application's own prints).
    Other,
}

/// Reads one line (without its newline).
///
/// ```
/// use coalescing_lab::model::trace::nvbit::{parse, Line};
/// let zero = " 0x0000000000000000".repeat(30);
/// let line = format!("MEMTRACE: CTX 0x000055967fa50640 - grid_launch_id 0 - CTA 1,0,0 - warp 4 - LDG.E - 0x00007ff412a00860 0x00007ff412a00864{zero} ");
/// let Ok(Line::Access(r)) = parse(&line) else { panic!() };
/// assert_eq!((r.opcode, r.mask, r.block, r.pc), ("LDG.E", 0b11, [1, 0, 0], None));
/// assert_eq!(parse("Hello from the application"), Ok(Line::Other));
/// assert_eq!(
///     parse("MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 1,0,0 - warp 4 - LDG.E - 0x10").unwrap_err().to_string(),
///     "expected 32 lane addresses after the opcode, found 1"
/// );
/// ```
pub fn parse(line: &str) -> Result<Line<'_>, NvbitError> {
    let mut launch = None;
    let body = match line.strip_prefix("MEMTRACE: ") {
        Some(rest) => {
            let Some((ctx, rest)) = rest.split_once(" - ") else {
                return Err(NvbitError::ExpectedContext);
            };
            if !ctx.starts_with("CTX ") {
                // Verbose-mode lines: STARTING CONTEXT, Inspecting CUfunction, …
                return Ok(Line::Other);
            }
            if rest.starts_with("LAUNCH") {
                return Ok(Line::Launch);
            }
            let Some(rest) = rest.strip_prefix("grid_launch_id ") else {
                return Err(NvbitError::ExpectedGridLaunchId);
            };
            let Some((id, rest)) = rest.split_once(" - ") else {
                return Err(NvbitError::ExpectedCtaAfterLaunchId);
            };
            launch = id.trim().parse().ok();
            rest
        }
        // NVBit 1.4 wrote the access lines bare.
        None if line.starts_with("CTA ") => line,
        None => return Ok(Line::Other),
    };
    let Some(rest) = body.strip_prefix("CTA ") else {
        return Err(NvbitError::ExpectedCta);
    };
    let Some((cta, rest)) = rest.split_once(" - ") else {
        return Err(NvbitError::ExpectedWarpAfterCta);
    };
    let block = parse_triple(cta).ok_or_else(|| NvbitError::NotTriple { cta: cta.into() })?;
    let Some(rest) = rest.strip_prefix("warp ") else {
        return Err(NvbitError::ExpectedWarp);
    };
    let Some((warp, rest)) = rest.split_once(" - ") else {
        return Err(NvbitError::ExpectedOpcode);
    };
    let warp: u32 = warp
        .trim()
        .parse()
        .map_err(|_| NvbitError::NotWarp { warp: warp.into() })?;
    let Some((opcode, addresses)) = rest.split_once(" - ") else {
        return Err(NvbitError::ExpectedAddresses);
    };
    let opcode = opcode.trim();
    if opcode.is_empty() || opcode.contains(' ') {
        return Err(NvbitError::NotOpcode { opcode: opcode.into() });
    }
    let mut record = Record {
        pc: None,
        opcode,
        mask: 0,
        addresses: [0; TRACE_LANES],
        block,
        warp,
        launch,
    };
    let mut count = 0;
    for (lane, token) in addresses.split_ascii_whitespace().enumerate() {
        count += 1;
        if lane >= TRACE_LANES {
            continue;
        }
        let address = parse_hex(token)
            .ok_or_else(|| NvbitError::NotHex { lane: lane as u32, token: token.into() })?;
        record.addresses[lane] = address;
        if address != 0 {
            record.mask |= 1 << lane;
        }
    }
    if count != TRACE_LANES {
        return Err(NvbitError::LaneCount { found: count });
    }
    Ok(Line::Access(record))
}

/// `0x…` hex (with its prefix) as a number.
pub(super) fn parse_hex(token: &str) -> Option<u64> {
    let digits = token
        .strip_prefix("0x")
        .or_else(|| token.strip_prefix("0X"))?;
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// `x,y,z` as three numbers.
pub(super) fn parse_triple(text: &str) -> Option<[u32; 3]> {
    let mut parts = text.trim().split(',');
    let mut out = [0u32; 3];
    for slot in &mut out {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}
