//! `trace FILE|-`: a trace streamed from a file or standard input through the model's
//! importer, printed as the trace panel's totals and per-instruction table.

use crate::cli::{bad, io, one, Args, Failure, Style};
use crate::out::{json_readouts, json_string, markdown_readouts, table, text_readouts};
use coalescing_lab::model::kernel::view::figure_readouts;
use coalescing_lab::model::trace::view::instruction_row;
use coalescing_lab::model::trace::{
    instruction_csv, instruction_rows, worst_addrs, Format, Importer, TraceAnalysis, TraceOptions,
};
use std::io::Read;

/// Reads a trace from a file or standard input in 1 MiB chunks.
pub fn read_trace(path: &str, options: TraceOptions) -> Result<TraceAnalysis, Failure> {
    let mut importer = Importer::new(options);
    let mut buffer = vec![0u8; 1 << 20];
    let mut source: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| io(path, e))?)
    };
    loop {
        let n = source.read(&mut buffer).map_err(|e| io(path, e))?;
        if n == 0 {
            break;
        }
        importer.feed(&buffer[..n]);
    }
    Ok(importer.finish())
}

pub(crate) fn cmd_trace(a: &Args) -> Result<String, Failure> {
    let path = one(a, "file (or - for standard input)")?;
    let t = read_trace(&path, a.trace.clone())?;
    if t.format.is_none() {
        return Err(bad(format!(
            "{path}: no line is NVBit mem_trace or Accel-Sim trace output ({} lines read)",
            t.lines
        )));
    }
    for (line, why) in &t.first_malformed {
        eprintln!("note: line {line}: {why}");
    }
    if t.malformed > t.first_malformed.len() as u64 {
        eprintln!("note: {} malformed lines in all", t.malformed);
    }
    let r = figure_readouts(&t.total, t.machine, t.cache_bytes);
    let s = t.machine.sector_bytes;
    Ok(match a.style.unwrap_or(Style::Text) {
        Style::Csv => instruction_csv(&t),
        Style::Json => {
            let rows: Vec<String> = t
                .instructions
                .iter()
                .map(|i| {
                    let r = instruction_row(i, s);
                    format!(
                        "{{\"opcode\":{},\"pc\":{},\"space\":{},\"elem\":{},\"executions\":{},\"requests\":{},\"sectors\":{},\"ideal-sectors\":{},\"excess-sectors\":{},\"dram-bytes\":{},\"wavefronts\":{},\"bank-conflicts\":{},\"worst-addrs\":{}}}",
                        json_string(&r.opcode),
                        r.pc.map_or("null".into(), |p| p.to_string()),
                        json_string(r.space), r.elem, r.executions, r.requests, r.sectors,
                        r.ideal_sectors, r.excess_sectors, r.dram_bytes,
                        r.wavefronts, r.bank_conflicts,
                        worst_addrs(i).map_or("null".into(), |w| json_string(&w))
                    )
                })
                .collect();
            let malformed: Vec<String> = t
                .first_malformed
                .iter()
                .map(|(l, w)| format!("{{\"line\":{l},\"why\":{}}}", json_string(w)))
                .collect();
            format!(
                "{{\"format\":{},\"lines\":{},\"executions\":{},\"malformed\":{},\"first-malformed\":[{}],\"readouts\":{},\"instructions\":[{}]}}\n",
                json_string(t.format.map_or("", Format::name)), t.lines, t.executions, t.malformed,
                malformed.join(","), json_readouts(&r), rows.join(",")
            )
        }
        style => {
            let mut out = if style == Style::Markdown {
                markdown_readouts(&r)
            } else {
                text_readouts(&r)
            };
            out.push_str(&table(
                style,
                &[
                    "opcode",
                    "pc",
                    "space",
                    "elem",
                    "requests",
                    "sectors",
                    "per request",
                    "ideal per request",
                    "excess",
                    "DRAM bytes",
                    "conflicts",
                ],
                instruction_rows(&t).map(|r| {
                    let mut cells = r.key_cells();
                    cells.extend([
                        r.requests.to_string(),
                        r.sectors.to_string(),
                        r.sectors_per_request,
                        r.ideal_per_request,
                        r.excess_sectors.to_string(),
                        r.dram_bytes.to_string(),
                        r.bank_conflicts.to_string(),
                    ]);
                    cells
                }),
            ));
            out
        }
    })
}
