//! The trace table's words and machine values: one row per static instruction with every
//! cell worded once, read by the page's table, the CLI's table and JSON, and the CSV.
//!
//! The panel and the CLI lay these out; they compute nothing. Knows nothing of the browser.

use super::super::format::{bytes_text, hex, number, percent};
use super::super::ratio::Ratio;
use super::opcode::MemorySpace;
use super::{Instruction, TraceAnalysis, TRACE_LANES};

/// One static instruction's row of the table, worded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstructionRow {
    /// `data-opcode`.
    pub opcode: String,
    /// The PC, where the format has one (the CLI's JSON writes it as a number).
    pub pc: Option<u64>,
    /// The PC in hex, empty without one: `data-pc` and the tables' `pc`.
    pub pc_hex: String,
    /// The row's header: `LDG.E @ 0x10 (global)`, or `LDG.E (global)` without a PC.
    pub name: String,
    /// `global`, `local` or `shared`: `data-space`.
    pub space: &'static str,
    /// Shared memory: wavefronts and conflicts instead of sectors.
    pub shared: bool,
    /// Bytes per lane: `data-elem`.
    pub elem: u64,
    /// Lines that executed it, active lanes or not: `data-executions`.
    pub executions: u64,
    /// Executions with an active lane: `data-requests`.
    pub requests: u64,
    /// "executions (requests)".
    pub executions_requests: String,
    /// Active lanes summed over the executions.
    pub active_lanes: u64,
    /// `elem` × active lanes, summed over the executions.
    pub requested_bytes: u64,
    /// The requested bytes for people.
    pub requested: String,
    /// Request-level sectors (0 in shared memory): `data-sectors`.
    pub sectors: u64,
    /// The sectors cell: the count, or "N wavefronts" in shared memory.
    pub sectors_cell: String,
    /// ⌈distinct requested bytes ÷ sector⌉ summed over the requests: `data-ideal-sectors`.
    pub ideal_sectors: u64,
    /// `sectors` − `ideal_sectors`: the waste the table sorts by.
    pub excess_sectors: u64,
    /// The excess cell: excess sectors, or "N conflicts" in shared memory.
    pub excess_cell: String,
    /// Sectors per request for people: "—" in shared memory, "n/a" without a request.
    pub sectors_per_request: String,
    /// Ideal sectors per request, worded the same way.
    pub ideal_per_request: String,
    /// Requested ÷ transferred bytes for people: "—" in shared memory, "n/a" without sectors.
    pub useful: String,
    /// Bytes read from DRAM through the modelled cache.
    pub dram_read_bytes: u64,
    /// Dirty bytes written back to DRAM, charged to this instruction.
    pub dram_write_bytes: u64,
    /// Read and written back.
    pub dram_bytes: u64,
    /// The DRAM bytes for people.
    pub dram: String,
    /// Shared-memory wavefronts and bank conflicts: `data-wavefronts`, `data-bank-conflicts`.
    pub wavefronts: u64,
    /// Wavefronts beyond the ideal: `data-bank-conflicts`.
    pub bank_conflicts: u64,
}

impl InstructionRow {
    /// The columns that name the instruction, first in every table of them: opcode, PC (hex,
    /// empty without one), space and bytes per lane.
    pub fn key_cells(&self) -> Vec<String> {
        vec![
            self.opcode.clone(),
            self.pc_hex.clone(),
            self.space.to_string(),
            self.elem.to_string(),
        ]
    }
}

/// Instruction `i`'s row on a machine of `sector_bytes` sectors.
///
/// ```
/// use coalescing_lab::model::trace::{analyze_trace, view::instruction_row, TraceOptions};
/// let lanes: String = (0..32).map(|t| format!("0x{:016x} ", 0x1000 + 8 * t)).collect();
/// let text = format!("MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E - {lanes}\n");
/// let a = analyze_trace(text.as_bytes(), TraceOptions::default());
/// let row = instruction_row(&a.instructions[0], a.machine.sector_bytes);
/// // 32 floats 8 bytes apart: 8 sectors where 4 would do, half of the bytes used.
/// assert_eq!((row.name.as_str(), row.pc_hex.as_str()), ("LDG.E (global)", ""));
/// assert_eq!((row.sectors_per_request.as_str(), row.ideal_per_request.as_str()), ("8", "4"));
/// assert_eq!((row.useful.as_str(), row.dram_bytes), ("50 %", 256));
/// ```
pub fn instruction_row(i: &Instruction, sector_bytes: u64) -> InstructionRow {
    let shared = i.space == MemorySpace::Shared;
    let per_request = |n: u64| {
        if shared {
            "—".to_string()
        } else if i.requests == 0 {
            "n/a".to_string()
        } else {
            number(n as f64 / i.requests as f64)
        }
    };
    let pc_hex = i.pc.map_or(String::new(), hex);
    let name = match i.pc {
        Some(_) => format!("{} @ {pc_hex} ({})", i.opcode, i.space.name()),
        None => format!("{} ({})", i.opcode, i.space.name()),
    };
    let useful = (i.sectors > 0).then_some(Ratio {
        numerator: i.requested_bytes,
        denominator: i.sectors * sector_bytes,
    });
    let dram_read_bytes = i.read_sectors * sector_bytes;
    let dram_write_bytes = i.write_sectors * sector_bytes;
    let dram_bytes = dram_read_bytes + dram_write_bytes;
    let bank_conflicts = i.wavefronts.conflicts();
    InstructionRow {
        opcode: i.opcode.clone(),
        pc: i.pc,
        pc_hex,
        name,
        space: i.space.name(),
        shared,
        elem: i.elem,
        executions: i.executions,
        requests: i.requests,
        executions_requests: format!("{} ({})", i.executions, i.requests),
        active_lanes: i.active_lanes,
        requested_bytes: i.requested_bytes,
        requested: bytes_text(i.requested_bytes),
        sectors: i.sectors,
        sectors_cell: if shared {
            format!("{} wavefronts", i.wavefronts.wavefronts)
        } else {
            i.sectors.to_string()
        },
        ideal_sectors: i.ideal_sectors,
        excess_sectors: i.excess_sectors(),
        excess_cell: if shared {
            format!("{bank_conflicts} conflicts")
        } else {
            i.excess_sectors().to_string()
        },
        sectors_per_request: per_request(i.sectors),
        ideal_per_request: per_request(i.ideal_sectors),
        useful: if shared {
            "—".to_string()
        } else {
            percent(useful)
        },
        dram_read_bytes,
        dram_write_bytes,
        dram_bytes,
        dram: bytes_text(dram_bytes),
        wavefronts: i.wavefronts.wavefronts,
        bank_conflicts,
    }
}

/// The table's rows in the page's order: the most excess sectors (then bank conflicts) first.
pub fn instruction_rows(a: &TraceAnalysis) -> impl Iterator<Item = InstructionRow> + '_ {
    let sector_bytes = a.machine.sector_bytes;
    a.instructions
        .iter()
        .map(move |i| instruction_row(i, sector_bytes))
}

/// The calculator's `addrs=` text of an instruction's worst execution: one address per lane,
/// `-` for an inactive lane.
pub fn worst_addrs(instr: &Instruction) -> Option<String> {
    let w = instr.worst.as_ref()?;
    Some(
        (0..TRACE_LANES)
            .map(|lane| {
                w.address(lane)
                    .map_or_else(|| "-".to_string(), |a| a.to_string())
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// The per-instruction table as CSV (RFC 4180, CRLF), in the page's row order, with the
/// columns named as the rows' `data-` attributes.
///
/// ```
/// use coalescing_lab::model::trace::{analyze_trace, instruction_csv, TraceOptions};
/// let lanes: String = (0..32).map(|t| format!("0x{:016x} ", 0x1000 + 8 * t)).collect();
/// let text = format!("MEMTRACE: CTX 0x1 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E - {lanes}\n");
/// let csv = instruction_csv(&analyze_trace(text.as_bytes(), TraceOptions::default()));
/// // 32 floats 8 bytes apart: 8 sectors where 4 would do; 256 bytes read from DRAM.
/// assert_eq!(csv.lines().nth(1), Some("LDG.E,,global,4,1,1,32,128,8,4,4,256,0,0,0"));
/// ```
pub fn instruction_csv(a: &TraceAnalysis) -> String {
    let mut csv = super::super::csv::Csv::default();
    csv.row([
        "opcode",
        "pc",
        "space",
        "elem",
        "executions",
        "requests",
        "active_lanes",
        "requested_bytes",
        "sectors",
        "ideal_sectors",
        "excess_sectors",
        "dram_read_bytes",
        "dram_write_bytes",
        "wavefronts",
        "bank_conflicts",
    ]);
    for r in instruction_rows(a) {
        let mut cells = r.key_cells();
        cells.extend([
            r.executions.to_string(),
            r.requests.to_string(),
            r.active_lanes.to_string(),
            r.requested_bytes.to_string(),
            r.sectors.to_string(),
            r.ideal_sectors.to_string(),
            r.excess_sectors.to_string(),
            r.dram_read_bytes.to_string(),
            r.dram_write_bytes.to_string(),
            r.wavefronts.to_string(),
            r.bank_conflicts.to_string(),
        ]);
        csv.row(cells);
    }
    csv.finish()
}
