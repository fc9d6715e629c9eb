//! The kernel view's CSV exports: the per-statement table and warp rows, in the one dialect
//! of `Csv` (RFC 4180, CRLF). Re-exported from `view`, where the panel finds its words.

use super::super::csv::Csv;
use super::super::format::ratio_value;
use super::analysis::{KernelAnalysis, WarpRow};
use super::inputs::AccessKind;
use super::view::kind_word;

/// The per-statement table as CSV (RFC 4180, CRLF).
///
/// ```
/// use coalescing_lab::model::kernel::{analyze_kernel, view::statement_csv, KernelInputs, Machine};
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// let csv = statement_csv(&analyze_kernel(&kernel).unwrap());
/// assert_eq!(csv.lines().nth(1), Some("1,a1,load,1,128,4,4,1,4,128,0,128,0,global,0,0,0"));
/// ```
pub fn statement_csv(a: &KernelAnalysis) -> String {
    let mut csv = Csv::default();
    csv.row([
        "stmt",
        "name",
        "kind",
        "requests",
        "requested_bytes",
        "sectors",
        "sectors_per_request",
        "useful_fraction",
        "unique_sectors",
        "dram_read_bytes",
        "dram_write_bytes",
        "dram_bytes",
        "hits",
        "space",
        "wavefronts",
        "bank_conflicts",
        "barriers",
    ]);
    for s in &a.statements {
        let f = &s.figures;
        csv.row([
            s.number.to_string(),
            s.name.clone(),
            kind_word(s.kind).to_string(),
            f.requests.to_string(),
            f.requested_bytes.to_string(),
            f.sectors.to_string(),
            ratio_value(f.sectors_per_request()),
            ratio_value(f.useful_fraction()),
            f.unique_sectors.to_string(),
            f.dram_read_bytes.to_string(),
            f.dram_write_bytes.to_string(),
            f.dram_bytes().to_string(),
            f.hits.map_or(String::new(), |h| h.to_string()),
            // A barrier accesses no memory: it has no space.
            if s.kind == AccessKind::Sync {
                String::new()
            } else {
                s.space.name().to_string()
            },
            f.wavefronts.to_string(),
            f.bank_conflicts().to_string(),
            f.barriers.to_string(),
        ]);
    }
    csv.finish()
}

/// Warp rows (per warp, or the worst) as CSV (RFC 4180, CRLF).
///
/// ```
/// use coalescing_lab::model::kernel::{warp_rows, view::warp_csv, KernelInputs, Machine, Pick};
/// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
/// let rows = warp_rows(&kernel, Pick { stmt: 1, iteration: 0, block: 0 }).unwrap();
/// assert_eq!(warp_csv(&rows).lines().nth(1), Some("0,0,0,0,1,0,0,0,32,4,128,128,,,"));
/// ```
pub fn warp_csv(rows: &[WarpRow]) -> String {
    let mut csv = Csv::default();
    csv.row([
        "block",
        "block_x",
        "block_y",
        "block_z",
        "stmt",
        "iter",
        "warp",
        "lane0_address",
        "active_lanes",
        "sectors",
        "requested_bytes",
        "transferred_bytes",
        "wavefronts",
        "ideal_wavefronts",
        "bank_conflicts",
    ]);
    for r in rows {
        // A shared row's cost is wavefronts: its sector columns are empty, a global row's
        // wavefront columns are.
        let (sectors, transferred, wavefronts, ideal, conflicts) = match r.wavefronts {
            Some(w) => (
                String::new(),
                String::new(),
                w.wavefronts.to_string(),
                w.ideal.to_string(),
                w.conflicts().to_string(),
            ),
            None => (
                r.sectors.to_string(),
                r.transferred_bytes.to_string(),
                String::new(),
                String::new(),
                String::new(),
            ),
        };
        csv.row([
            r.block.to_string(),
            r.block_idx[0].to_string(),
            r.block_idx[1].to_string(),
            r.block_idx[2].to_string(),
            r.stmt.to_string(),
            r.iter.to_string(),
            r.warp.to_string(),
            r.lane0_address.map_or(String::new(), |a| a.to_string()),
            r.active_lanes.to_string(),
            sectors,
            r.requested_bytes.to_string(),
            transferred,
            wavefronts,
            ideal,
            conflicts,
        ]);
    }
    csv.finish()
}
