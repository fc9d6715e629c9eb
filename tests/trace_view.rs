//! The trace table's model rows: each cell worded from the instruction's figures, and the CSV,
//! the CLI's JSON and the CLI's table reading the same rows in the same order.

use coalescing_lab::model::trace::{
    analyze_trace, instruction_csv, instruction_rows, opcode::MemorySpace, InstructionRow,
    TraceAnalysis, TraceOptions,
};
use std::process::Command;

const FIXTURES: [&str; 2] = ["widths.nvbit.txt", "modes.traceg"];

fn path(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn analysis(name: &str) -> TraceAnalysis {
    analyze_trace(&std::fs::read(path(name)).unwrap(), TraceOptions::default())
}

fn cli(name: &str, format: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_coalescing-lab-cli"))
        .args(["trace", &path(name), "--format", format])
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn a_row_words_its_instruction_s_figures() {
    for name in FIXTURES {
        let a = analysis(name);
        let s = a.machine.sector_bytes;
        let rows: Vec<InstructionRow> = instruction_rows(&a).collect();
        assert_eq!(rows.len(), a.instructions.len());
        for (i, r) in a.instructions.iter().zip(&rows) {
            let shared = i.space == MemorySpace::Shared;
            assert_eq!(
                r.pc_hex,
                i.pc.map_or(String::new(), |pc| format!("0x{pc:x}"))
            );
            assert_eq!(r.dram_bytes, (i.read_sectors + i.write_sectors) * s);
            assert_eq!(r.excess_sectors, i.excess_sectors());
            assert_eq!(r.bank_conflicts, i.wavefronts.conflicts());
            if shared {
                assert_eq!(
                    [&r.sectors_per_request, &r.ideal_per_request, &r.useful],
                    ["—", "—", "—"]
                );
                assert!(r.sectors_cell.ends_with(" wavefronts"), "{r:?}");
                assert!(r.excess_cell.ends_with(" conflicts"), "{r:?}");
            } else if i.requests == 0 {
                assert_eq!(
                    [&r.sectors_per_request, &r.ideal_per_request, &r.useful],
                    ["n/a", "n/a", "n/a"]
                );
            }
        }
    }
    // The fixtures hold a shared row, a row with no request and rows with a PC.
    let rows: Vec<InstructionRow> = FIXTURES
        .iter()
        .flat_map(|name| instruction_rows(&analysis(name)).collect::<Vec<_>>())
        .collect();
    let find = |opcode: &str| rows.iter().find(|r| r.opcode == opcode).unwrap();
    let lds = find("LDS.U.128");
    assert_eq!(
        (lds.name.as_str(), lds.sectors_per_request.as_str()),
        ("LDS.U.128 (shared)", "—")
    );
    let predicated = find("LD.E.64");
    assert_eq!(
        (predicated.name.as_str(), predicated.pc_hex.as_str()),
        ("LD.E.64 @ 0x40 (global)", "0x40")
    );
    assert_eq!(predicated.executions_requests, "1 (0)");
    let ldg = rows.iter().find(|r| r.pc == Some(0x20)).unwrap();
    assert_eq!(
        (
            ldg.sectors_per_request.as_str(),
            ldg.ideal_per_request.as_str(),
            ldg.useful.as_str(),
            ldg.dram.as_str()
        ),
        ("4", "1", "12.5 %", "128 B")
    );
}

#[test]
fn the_csv_the_cli_json_and_the_cli_table_read_the_same_rows() {
    for name in FIXTURES {
        let a = analysis(name);
        let rows: Vec<InstructionRow> = instruction_rows(&a).collect();
        // The CSV: one line per row, in order.
        let csv = instruction_csv(&a);
        let lines: Vec<&str> = csv.lines().skip(1).collect();
        assert_eq!(lines.len(), rows.len());
        for (line, r) in lines.iter().zip(&rows) {
            let expected = [
                r.opcode.clone(),
                r.pc_hex.clone(),
                r.space.to_string(),
                r.elem.to_string(),
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
            ]
            .join(",");
            assert_eq!(*line, expected, "{name}");
        }
        // The CLI's CSV is the model's.
        assert_eq!(cli(name, "csv"), csv);
        // The CLI's JSON.
        let json: serde_json::Value = serde_json::from_str(&cli(name, "json")).unwrap();
        let objects = json["instructions"].as_array().unwrap();
        assert_eq!(objects.len(), rows.len());
        for (o, r) in objects.iter().zip(&rows) {
            assert_eq!(o["opcode"], r.opcode.as_str());
            assert_eq!(o["pc"].as_u64(), r.pc);
            assert_eq!(o["space"], r.space);
            for (key, value) in [
                ("elem", r.elem),
                ("executions", r.executions),
                ("requests", r.requests),
                ("sectors", r.sectors),
                ("ideal-sectors", r.ideal_sectors),
                ("excess-sectors", r.excess_sectors),
                ("dram-bytes", r.dram_bytes),
                ("wavefronts", r.wavefronts),
                ("bank-conflicts", r.bank_conflicts),
            ] {
                assert_eq!(o[key].as_u64(), Some(value), "{name} {key}");
            }
        }
        // The CLI's table, as Markdown: the last rows.len() lines are the rows.
        let markdown = cli(name, "markdown");
        let table: Vec<&str> = markdown.lines().collect();
        let table = &table[table.len() - rows.len()..];
        for (line, r) in table.iter().zip(&rows) {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let expected = [
                r.opcode.clone(),
                r.pc_hex.clone(),
                r.space.to_string(),
                r.elem.to_string(),
                r.requests.to_string(),
                r.sectors.to_string(),
                r.sectors_per_request.clone(),
                r.ideal_per_request.clone(),
                r.excess_sectors.to_string(),
                r.dram_bytes.to_string(),
                r.bank_conflicts.to_string(),
            ];
            assert_eq!(cells, expected, "{name}");
        }
    }
}
