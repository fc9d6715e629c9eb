//! `answers` (a whole worksheet's answer key from a file of links) and `synth` (a trace written
//! from a model kernel).

use crate::cli::{analysis_of, bad, io, kernel_of, name_of, one, Args, Failure, Style, USAGE};
use crate::link::state_of;
use crate::out::{json_list, json_readouts, json_string, table};
use coalescing_lab::model::derivation::derive;
use coalescing_lab::model::readouts::readouts;
use coalescing_lab::model::sectors::Analysis;
use coalescing_lab::model::trace::synth::{accelsim_text, nvbit_text};
use coalescing_lab::model::trace::Format;
use std::io::Read;

pub(crate) fn cmd_answers(a: &Args) -> Result<String, Failure> {
    let path = one(a, "file of permalinks (or - for standard input)")?;
    let mut text = String::new();
    if path == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| io("stdin", e))?;
    } else {
        text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
    }
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let state = state_of(line);
        let analysis = analysis_of(&state.calc).map_err(|f| {
            bad(format!(
                "{path} line {}: {}",
                n + 1,
                f.message.replace('\n', "; ")
            ))
        })?;
        rows.push((n + 1, line.to_string(), name_of(&state.calc), analysis));
    }
    let style = a.style.unwrap_or(Style::Markdown);
    let cells = |(_, link, name, an): &(usize, String, String, Analysis)| -> Vec<String> {
        let t = &an.totals;
        let count = match &an.banks {
            Some(b) => format!(
                "{} wavefronts, {} conflicts",
                b.totals.wavefronts,
                b.totals.conflicts()
            ),
            None => t.sectors.to_string(),
        };
        vec![
            name.clone(),
            link.clone(),
            count,
            t.requested_bytes.to_string(),
            t.transferred_bytes.to_string(),
            coalescing_lab::model::format::percent(t.efficiency()),
            derive(an).join(" → "),
        ]
    };
    let header = [
        "scenario",
        "link",
        "N_tx",
        "requested B",
        "transferred B",
        "efficiency",
        "derivation",
    ];
    Ok(match style {
        Style::Json => {
            let items: Vec<String> = rows
                .iter()
                .map(|row| {
                    format!(
                        "{{\"line\":{},\"scenario\":{},\"link\":{},\"readouts\":{},\"derivation\":{}}}",
                        row.0,
                        json_string(&row.2),
                        json_string(&row.1),
                        json_readouts(&readouts(&row.3)),
                        json_list(&derive(&row.3))
                    )
                })
                .collect();
            format!("[{}]\n", items.join(","))
        }
        style => table(style, &header, rows.iter().map(cells)),
    })
}

pub(crate) fn cmd_synth(a: &Args) -> Result<String, Failure> {
    let [format, link] = a.positional.as_slice() else {
        return Err(bad(format!(
            "synth needs a format (nvbit or accelsim) and a kernel permalink; {USAGE}"
        )));
    };
    let kernel = kernel_of(&state_of(link))?;
    let name = "synthetic_kernel_from_coalescing_lab";
    match Format::parse(format) {
        Some(Format::Nvbit) => nvbit_text(&kernel, name),
        Some(Format::AccelSim) => accelsim_text(&kernel, name),
        None => {
            return Err(bad(format!(
                "synth: the format must be nvbit or accelsim, found '{format}'"
            )))
        }
    }
    .map_err(|e| bad(e.to_string()))
}
