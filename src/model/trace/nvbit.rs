//! NVBit's `mem_trace` text output, one line per executed warp memory instruction.
//!
//! The format, from the tool's source (NVBit 1.7.5 `tools/mem_trace/mem_trace.cu`,
//! `recv_thread_fun`; cited in the README):
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

use super::Record;

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
///     parse("MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 1,0,0 - warp 4 - LDG.E - 0x10").unwrap_err(),
///     "expected 32 lane addresses after the opcode, found 1"
/// );
/// ```
pub fn parse(line: &str) -> Result<Line<'_>, String> {
    let body = match line.strip_prefix("MEMTRACE: ") {
        Some(rest) => {
            let Some((ctx, rest)) = rest.split_once(" - ") else {
                return Err("expected 'CTX 0x… - ' after 'MEMTRACE: '".into());
            };
            if !ctx.starts_with("CTX ") {
                // Verbose-mode lines: STARTING CONTEXT, Inspecting CUfunction, …
                return Ok(Line::Other);
            }
            if rest.starts_with("LAUNCH") {
                return Ok(Line::Launch);
            }
            let Some(rest) = rest.strip_prefix("grid_launch_id ") else {
                return Err("expected 'grid_launch_id N' after the context".into());
            };
            let Some((_, rest)) = rest.split_once(" - ") else {
                return Err("expected ' - CTA x,y,z' after the grid launch id".into());
            };
            rest
        }
        // NVBit 1.4 wrote the access lines bare.
        None if line.starts_with("CTA ") => line,
        None => return Ok(Line::Other),
    };
    let Some(rest) = body.strip_prefix("CTA ") else {
        return Err("expected 'CTA x,y,z'".into());
    };
    let Some((cta, rest)) = rest.split_once(" - ") else {
        return Err("expected ' - warp N' after the CTA".into());
    };
    let block = parse_triple(cta).ok_or_else(|| format!("CTA '{cta}' is not x,y,z"))?;
    let Some(rest) = rest.strip_prefix("warp ") else {
        return Err("expected 'warp N' after the CTA".into());
    };
    let Some((warp, rest)) = rest.split_once(" - ") else {
        return Err("expected ' - OPCODE' after the warp".into());
    };
    let warp: u32 = warp
        .trim()
        .parse()
        .map_err(|_| format!("warp '{warp}' is not a whole number"))?;
    let Some((opcode, addresses)) = rest.split_once(" - ") else {
        return Err("expected ' - ' and the lane addresses after the opcode".into());
    };
    let opcode = opcode.trim();
    if opcode.is_empty() || opcode.contains(' ') {
        return Err(format!("'{opcode}' is not an opcode"));
    }
    let mut record = Record {
        pc: None,
        opcode,
        mask: 0,
        addresses: [0; 32],
        block,
        warp,
    };
    let mut count = 0;
    for (lane, token) in addresses.split_ascii_whitespace().enumerate() {
        count += 1;
        if lane >= 32 {
            continue;
        }
        let address = parse_hex(token)
            .ok_or_else(|| format!("lane {lane}: '{token}' is not a 0x hex address"))?;
        record.addresses[lane] = address;
        if address != 0 {
            record.mask |= 1 << lane;
        }
    }
    if count != 32 {
        return Err(format!(
            "expected 32 lane addresses after the opcode, found {count}"
        ));
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
