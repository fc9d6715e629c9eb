//! The subcommands: arguments in, the model's words and numbers out, in one of four formats.

use coalescing_lab::model::derivation::derive;
use coalescing_lab::model::inputs::Inputs;
use coalescing_lab::model::kernel::view::{figure_readouts, statement_csv, statement_rows};
use coalescing_lab::model::kernel::{analyze_kernel, Kernel, Machine};
use coalescing_lab::model::permalink::{decode, warnings, State};
use coalescing_lab::model::presets::Preset;
use coalescing_lab::model::readouts::{lane_csv, lane_rows, readouts, Readout};
use coalescing_lab::model::sectors::{analyze, Analysis};
use coalescing_lab::model::trace::synth::{accelsim_text, nvbit_text};
use coalescing_lab::model::trace::{
    instruction_csv, worst_addrs, Format, Importer, TraceAnalysis, TraceOptions,
};
use std::io::{Read, Write};

const USAGE: &str = "usage: coalescing-lab-cli <analyze LINK | kernel LINK | trace FILE|- | answers FILE|- | synth nvbit|accelsim LINK> [--format text|json|csv|markdown] [--trace-format nvbit|accelsim] [--width OPCODE=BYTES]... [--cache BYTES]";

/// Why a run failed, and its exit status: 1 for I/O, 2 for bad input.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

fn bad(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

fn io(what: &str, e: std::io::Error) -> Failure {
    Failure {
        code: 1,
        message: format!("{what}: {e}"),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Text,
    Json,
    Csv,
    Markdown,
}

struct Args {
    command: String,
    positional: Vec<String>,
    style: Option<Style>,
    trace: TraceOptions,
}

fn parse_args(args: &[String]) -> Result<Args, Failure> {
    let mut it = args.iter();
    let command = it.next().ok_or_else(|| bad(USAGE))?.clone();
    let mut out = Args {
        command,
        positional: Vec::new(),
        style: None,
        trace: TraceOptions::default(),
    };
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || -> Result<String, Failure> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| bad(format!("{flag}: needs a value"))),
            }
        };
        match flag {
            "--format" => {
                out.style = Some(match value()?.as_str() {
                    "text" => Style::Text,
                    "json" => Style::Json,
                    "csv" => Style::Csv,
                    "markdown" => Style::Markdown,
                    other => {
                        return Err(bad(format!(
                            "--format: must be text, json, csv or markdown, found '{other}'"
                        )))
                    }
                })
            }
            "--trace-format" => {
                let v = value()?;
                out.trace.format = Some(Format::parse(&v).ok_or_else(|| {
                    bad(format!(
                        "--trace-format: must be nvbit or accelsim, found '{v}'"
                    ))
                })?);
            }
            "--width" => {
                let v = value()?;
                let (op, bytes) = v
                    .split_once('=')
                    .ok_or_else(|| bad(format!("--width: must be OPCODE=BYTES, found '{v}'")))?;
                let bytes: u64 = bytes
                    .parse()
                    .ok()
                    .filter(|b| [1, 2, 4, 8, 16].contains(b))
                    .ok_or_else(|| {
                        bad(format!(
                            "--width: {op}'s bytes must be 1, 2, 4, 8 or 16, found '{bytes}'"
                        ))
                    })?;
                out.trace.widths.push((op.to_string(), bytes));
            }
            "--cache" => {
                let v = value()?;
                out.trace.cache_bytes = v
                    .parse::<u64>()
                    .ok()
                    .filter(|b| *b == 0 || (b % 128 == 0 && *b <= 1 << 30))
                    .ok_or_else(|| bad(format!("--cache: must be 0 or a multiple of 128 bytes up to 1 GiB, found '{v}'")))?;
            }
            "--help" | "-h" => {
                return Err(Failure {
                    code: 0,
                    message: USAGE.into(),
                })
            }
            f if f.starts_with("--") => return Err(bad(format!("{f}: not an option; {USAGE}"))),
            _ => out.positional.push(arg.clone()),
        }
    }
    Ok(out)
}

/// Runs one command line, writing its output to `out`.
pub fn run(args: &[String], out: &mut impl Write) -> Result<(), Failure> {
    let a = parse_args(args)?;
    let text = match a.command.as_str() {
        "analyze" => cmd_analyze(&a)?,
        "kernel" => cmd_kernel(&a)?,
        "trace" => cmd_trace(&a)?,
        "answers" => cmd_answers(&a)?,
        "synth" => cmd_synth(&a)?,
        other => return Err(bad(format!("'{other}' is not a subcommand; {USAGE}"))),
    };
    out.write_all(text.as_bytes()).map_err(|e| io("stdout", e))
}

fn one(a: &Args, what: &str) -> Result<String, Failure> {
    match a.positional.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(bad(format!("{} needs one {what}; {USAGE}", a.command))),
    }
}

/// A permalink or query string as the page's state; its problems go to standard error.
///
/// A link (`https://…/?v=1&…`) or a query starting with `?` is read as the page writes it,
/// percent-encoded. Anything else is a query as a person types it: `key=value` pairs split at
/// each `&` that starts another `key=`, values taken literally, so
/// `idx=t<16 ? t : 1000+64*(t-16)` and `active=t>2 && t<9` mean what they say.
fn state_of(link: &str) -> State {
    let link = link.trim();
    let query = if link.contains("://") || link.starts_with('?') {
        let query = link.split_once('?').map_or("", |(_, q)| q);
        query.split('#').next().unwrap_or("").to_string()
    } else {
        literal_query(link)
    };
    for w in warnings(&query) {
        eprintln!("note: {w}");
    }
    decode(&query)
}

/// A typed query with literal values, percent-encoded as a link carries it.
fn literal_query(text: &str) -> String {
    let starts_pair = |rest: &str| {
        let key: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            .collect();
        !key.is_empty() && rest[key.len()..].starts_with('=')
    };
    let mut pairs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        let (head, tail) = rest.split_at(at);
        current.push_str(head);
        if starts_pair(&tail[1..]) {
            pairs.push(std::mem::take(&mut current));
        } else {
            current.push('&');
        }
        rest = &tail[1..];
    }
    current.push_str(rest);
    pairs.push(current);
    pairs
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => format!("{k}={}", percent_encode(v)),
            None => percent_encode(p),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~' | b'*' | b'(' | b')' | b',')
        {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The calculator's analysis of `inputs`, or every field error, named.
fn analysis_of(inputs: &Inputs) -> Result<Analysis, Failure> {
    analyze(inputs).map_err(|errors| {
        bad(errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"))
    })
}

fn machine_of(state: &State) -> Result<Machine, Failure> {
    let scenario = state.calc.scenario().map_err(|errors| {
        bad(errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"))
    })?;
    Ok(Machine::of(&scenario))
}

fn kernel_of(state: &State) -> Result<Kernel, Failure> {
    state.kernel.kernel(machine_of(state)?).map_err(|errors| {
        bad(errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"))
    })
}

fn name_of(inputs: &Inputs) -> String {
    Preset::matching(inputs).map_or_else(|| "custom scenario".to_string(), |p| p.name.to_string())
}

fn cmd_analyze(a: &Args) -> Result<String, Failure> {
    let link = one(a, "permalink or query string")?;
    let state = state_of(&link);
    let analysis = analysis_of(&state.calc)?;
    let r = readouts(&analysis);
    Ok(match a.style.unwrap_or(Style::Text) {
        Style::Csv => lane_csv(&analysis),
        Style::Json => {
            let lanes: Vec<String> = lane_rows(&analysis)
                .iter()
                .map(|l| {
                    format!(
                        "{{\"lane\":{},\"active\":{},\"address\":{},\"sectors\":[{}],\"bank\":[{}]}}",
                        l.lane,
                        l.active,
                        if l.address.is_empty() { "null".into() } else { l.address.clone() },
                        l.sectors,
                        l.banks
                    )
                })
                .collect();
            format!(
                "{{\"scenario\":{},\"readouts\":{},\"derivation\":{},\"lanes\":[{}]}}\n",
                json_string(&name_of(&state.calc)),
                json_readouts(&r),
                json_list(&derive(&analysis)),
                lanes.join(",")
            )
        }
        Style::Markdown => {
            let mut s = format!("## {}\n\n{}", name_of(&state.calc), markdown_readouts(&r));
            s.push_str("\nDerivation:\n\n");
            for (k, step) in derive(&analysis).iter().enumerate() {
                s.push_str(&format!("{}. `{step}`\n", k + 1));
            }
            s.push_str("\n| lane | address | sectors or banks |\n|---|---|---|\n");
            for l in lane_rows(&analysis) {
                let which = if l.banks.is_empty() {
                    l.sectors_text
                } else {
                    l.banks
                };
                s.push_str(&format!("| {} | {} | {} |\n", l.lane, l.address_hex, which));
            }
            s
        }
        Style::Text => {
            let mut s = format!("{}\n\n{}", name_of(&state.calc), text_readouts(&r));
            s.push_str("\nDerivation:\n");
            for (k, step) in derive(&analysis).iter().enumerate() {
                s.push_str(&format!("  {}. {step}\n", k + 1));
            }
            s.push_str(&format!(
                "\n{:>4}  {:<20}  {}\n",
                "lane", "address", "sectors or banks"
            ));
            for l in lane_rows(&analysis) {
                let which = if l.banks.is_empty() {
                    l.sectors_text
                } else {
                    l.banks
                };
                s.push_str(&format!("{:>4}  {:<20}  {which}\n", l.lane, l.address_hex));
            }
            s
        }
    })
}

fn cmd_kernel(a: &Args) -> Result<String, Failure> {
    let link = one(a, "permalink")?;
    let state = state_of(&link);
    let kernel = kernel_of(&state)?;
    let analysis = analyze_kernel(&kernel).map_err(|e| bad(e.to_string()))?;
    let r = figure_readouts(&analysis.total, analysis.machine, analysis.cache_bytes);
    let rows = statement_rows(&analysis);
    Ok(match a.style.unwrap_or(Style::Text) {
        Style::Csv => statement_csv(&analysis),
        Style::Json => {
            let stmts: Vec<String> = rows
                .iter()
                .map(|s| {
                    format!(
                        "{{\"stmt\":{},\"name\":{},\"kind\":{},\"space\":{},\"requests\":{},\"requested-bytes\":{},\"sectors\":{},\"unique-sectors\":{},\"dram-bytes\":{},\"wavefronts\":{},\"bank-conflicts\":{},\"barriers\":{}}}",
                        s.stmt, json_string(&s.name), json_string(s.kind), json_string(s.space), s.requests,
                        s.requested_bytes, s.sectors, s.unique_sectors, s.dram_bytes, s.wavefronts,
                        s.bank_conflicts, s.barriers
                    )
                })
                .collect();
            format!(
                "{{\"readouts\":{},\"statements\":[{}]}}\n",
                json_readouts(&r),
                stmts.join(",")
            )
        }
        style => {
            let mut s = if style == Style::Markdown {
                markdown_readouts(&r)
            } else {
                text_readouts(&r)
            };
            s.push_str(&table(
                style,
                &[
                    "stmt",
                    "name",
                    "kind",
                    "requests",
                    "sectors",
                    "per request",
                    "DRAM bytes",
                    "wavefronts",
                    "conflicts",
                    "barriers",
                ],
                rows.iter().map(|r| {
                    vec![
                        format!("a{}", r.stmt),
                        r.name.clone(),
                        if r.space == "shared" {
                            format!("shared {}", r.kind)
                        } else {
                            r.kind.to_string()
                        },
                        r.requests.to_string(),
                        r.sectors.to_string(),
                        r.sectors_per_request.clone(),
                        r.dram_bytes.to_string(),
                        r.wavefronts.to_string(),
                        r.bank_conflicts.to_string(),
                        r.barriers.to_string(),
                    ]
                }),
            ));
            s
        }
    })
}

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

fn cmd_trace(a: &Args) -> Result<String, Failure> {
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
                    format!(
                        "{{\"opcode\":{},\"pc\":{},\"space\":{},\"elem\":{},\"executions\":{},\"requests\":{},\"sectors\":{},\"ideal-sectors\":{},\"excess-sectors\":{},\"dram-bytes\":{},\"wavefronts\":{},\"bank-conflicts\":{},\"worst-addrs\":{}}}",
                        json_string(&i.opcode),
                        i.pc.map_or("null".into(), |p| p.to_string()),
                        json_string(i.space.name()), i.elem, i.executions, i.requests, i.sectors,
                        i.ideal_sectors, i.excess_sectors(), (i.read_sectors + i.write_sectors) * s,
                        i.wavefronts.wavefronts, i.wavefronts.conflicts(),
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
                t.instructions.iter().map(|i| {
                    let per = |n: u64| {
                        if i.requests == 0 {
                            "n/a".to_string()
                        } else {
                            coalescing_lab::model::format::number(n as f64 / i.requests as f64)
                        }
                    };
                    vec![
                        i.opcode.clone(),
                        i.pc.map_or(String::new(), |p| format!("0x{p:x}")),
                        i.space.name().to_string(),
                        i.elem.to_string(),
                        i.requests.to_string(),
                        i.sectors.to_string(),
                        per(i.sectors),
                        per(i.ideal_sectors),
                        i.excess_sectors().to_string(),
                        ((i.read_sectors + i.write_sectors) * s).to_string(),
                        i.wavefronts.conflicts().to_string(),
                    ]
                }),
            ));
            out
        }
    })
}

fn cmd_answers(a: &Args) -> Result<String, Failure> {
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

fn cmd_synth(a: &Args) -> Result<String, Failure> {
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
    .map_err(bad)
}

/// A table in `style` (text columns, CSV or Markdown).
fn table(style: Style, header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let rows: Vec<Vec<String>> = rows.collect();
    match style {
        Style::Csv => {
            let mut csv = coalescing_lab::model::csv::Csv::default();
            csv.row(header.iter().map(|h| h.to_string()));
            for r in rows {
                csv.row(r);
            }
            csv.finish()
        }
        Style::Markdown | Style::Json => {
            let cell = |s: &str| s.replace('|', "\\|");
            let mut s = format!(
                "\n| {} |\n|{}\n",
                header.join(" | "),
                "---|".repeat(header.len())
            );
            for r in rows {
                s.push_str(&format!(
                    "| {} |\n",
                    r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
                ));
            }
            s
        }
        Style::Text => {
            let widths: Vec<usize> = (0..header.len())
                .map(|c| {
                    rows.iter()
                        .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                        .chain([header[c].chars().count()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: Vec<String>| {
                cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
            };
            let mut s = format!(
                "\n{}\n",
                line(header.iter().map(|h| h.to_string()).collect())
            );
            for r in rows {
                s.push_str(&line(r));
                s.push('\n');
            }
            s
        }
    }
}

fn text_readouts(r: &[Readout]) -> String {
    r.iter()
        .map(|r| format!("{:<22} {:<16} {}\n", r.label, r.text, r.detail))
        .collect()
}

fn markdown_readouts(r: &[Readout]) -> String {
    let mut s = String::from("| result | value | how |\n|---|---|---|\n");
    for r in r {
        s.push_str(&format!("| {} | {} | {} |\n", r.label, r.text, r.detail));
    }
    s
}

/// The readouts as a JSON object keyed by their `data-testid`: numbers plainly, `null` when
/// undefined.
fn json_readouts(r: &[Readout]) -> String {
    let fields: Vec<String> = r
        .iter()
        .map(|r| format!("{}:{}", json_string(r.id), json_value(&r.value)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

fn json_value(value: &str) -> String {
    let numeric = !value.is_empty()
        && value.parse::<f64>().is_ok_and(f64::is_finite)
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+'))
        && !value.starts_with('.')
        && !value.starts_with('+');
    if value.is_empty() {
        "null".into()
    } else if numeric {
        value.to_string()
    } else {
        json_string(value)
    }
}

fn json_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| json_string(s))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}
