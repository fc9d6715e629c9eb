//! The subcommands: arguments in, the model's words and numbers out, in one of four formats.

use crate::answers::{cmd_answers, cmd_synth};
use crate::link::state_of;
use crate::out::{json_list, json_readouts, json_string, markdown_readouts, table, text_readouts};
use coalescing_lab::model::derivation::derive;
use coalescing_lab::model::inputs::{Field, Inputs, ELEM_SIZES};
use coalescing_lab::model::kernel::view::{figure_readouts, statement_csv, statement_rows};
use coalescing_lab::model::kernel::{analyze_kernel, Kernel, KernelInputs, Machine};
use coalescing_lab::model::permalink::State;
use coalescing_lab::model::presets::Preset;
use coalescing_lab::model::readouts::{lane_csv, lane_rows, readouts};
use coalescing_lab::model::sectors::{analyze, Analysis};
use coalescing_lab::model::trace::{Format, TraceOptions};
use std::io::Write;

pub(crate) const USAGE: &str = "usage: coalescing-lab-cli <analyze LINK | kernel LINK | trace FILE|- | cuda FILE|- [--launch LAUNCH] [-I DIR]... [-D NAME[=VALUE]]... | run FILE|- [-I DIR]... [-D NAME[=VALUE]]... [-- ARGS...] | answers FILE|- | synth nvbit|accelsim LINK> [--format text|json|csv|markdown] [--trace-format nvbit|accelsim] [--width OPCODE=BYTES]... [--cache BYTES] [--arch N] [--warp LANES] [--sector BYTES] [--line BYTES] [--check [--max-sectors-per-request X] [--max-excess PCT] [--max-conflicts N] [--no-races]]";

/// Why a run failed, and its exit status: 1 for I/O, 2 for bad input.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

pub(crate) fn bad(message: impl Into<String>) -> Failure {
    Failure { code: 2, message: message.into() }
}

pub(crate) fn io(what: &str, e: std::io::Error) -> Failure {
    Failure { code: 1, message: format!("{what}: {e}") }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Text,
    Json,
    Csv,
    Markdown,
}

pub(crate) struct Args {
    pub(crate) command: String,
    pub(crate) positional: Vec<String>,
    pub(crate) style: Option<Style>,
    pub(crate) trace: TraceOptions,
    pub(crate) cuda: CudaOptions,
    /// `run`'s arguments for the program, after `--`.
    pub(crate) argv: Vec<String>,
}

/// What `cuda` runs with besides its file.
pub(crate) struct CudaOptions {
    /// `name<targs><<<grid, block[, shared]>>>(args)`, as the page's launch field takes it.
    pub(crate) launch: Option<String>,
    /// `__CUDA_ARCH__`: 700 (Volta) unless `--arch` says otherwise.
    pub(crate) arch: u32,
    /// `-D NAME[=VALUE]`, as nvcc takes them, in order.
    pub(crate) defines: Vec<String>,
    /// `-I DIR`, as nvcc takes them: where `#include "…"` looks after the including file's
    /// own folder, in order.
    pub(crate) include_dirs: Vec<String>,
    /// The calculator's `warp`, `sector` and `line`, from `--warp`, `--sector` and `--line`.
    pub(crate) machine: Machine,
    /// 0 for no cache.
    pub(crate) cache_bytes: u64,
    /// `--check` and its limits: the CI gate.
    pub(crate) gate: Gate,
}

/// The checks `cuda --check` makes; any limit flag turns the gate on.
#[derive(Clone, Debug, Default)]
pub(crate) struct Gate {
    /// Whether the run is a check: print the failures, exit 1 if any.
    pub(crate) on: bool,
    /// `--max-sectors-per-request X`, per global access site.
    pub(crate) max_sectors_per_request: Option<f64>,
    /// `--max-excess PCT`: excess sectors as a percentage of a global site's sectors.
    pub(crate) max_excess_percent: Option<f64>,
    /// `--max-conflicts N`: bank conflicts at a shared site, in all.
    pub(crate) max_conflicts: Option<u64>,
    /// `--no-races`: any shared-memory race fails.
    pub(crate) no_races: bool,
}

impl Default for CudaOptions {
    fn default() -> CudaOptions {
        CudaOptions {
            launch: None,
            // Volta and newer, the machine's default (docs/cuda.md, "CUDA source").
            arch: 700,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            machine: Machine::default(),
            cache_bytes: coalescing_lab::model::DEFAULT_CACHE_BYTES,
            gate: Gate::default(),
        }
    }
}

fn parse_args(args: &[String]) -> Result<Args, Failure> {
    let mut it = args.iter();
    let command = it.next().ok_or_else(|| bad(USAGE))?.clone();
    let mut out = Args {
        command,
        positional: Vec::new(),
        style: None,
        trace: TraceOptions::default(),
        cuda: CudaOptions::default(),
        argv: Vec::new(),
    };
    let mut cache = None;
    let mut machine: Vec<(Field, String)> = Vec::new();
    while let Some(arg) = it.next() {
        if arg == "--" && out.command == "run" {
            out.argv = it.by_ref().cloned().collect();
            break;
        }
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
                    .filter(|b| ELEM_SIZES.contains(b))
                    .ok_or_else(|| {
                        bad(format!(
                            "--width: {op}'s bytes must be {}, found '{bytes}'",
                            elem_sizes_text()
                        ))
                    })?;
                out.trace.widths.push((op.to_string(), bytes));
            }
            "--cache" => cache = Some(value()?),
            "--launch" => out.cuda.launch = Some(value()?),
            "-D" | "--define" => out.cuda.defines.push(value()?),
            f if f.starts_with("-D") && f.len() > 2 => out.cuda.defines.push(f[2..].to_string()),
            "-I" | "--include-path" => out.cuda.include_dirs.push(value()?),
            f if f.starts_with("-I") && f.len() > 2 => {
                out.cuda.include_dirs.push(f[2..].to_string())
            }
            "--check" => out.cuda.gate.on = true,
            "--no-races" => {
                out.cuda.gate.on = true;
                out.cuda.gate.no_races = true;
            }
            "--max-sectors-per-request" | "--max-excess" => {
                let v = value()?;
                let limit = v
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0);
                let Some(limit) = limit else {
                    return Err(bad(format!(
                        "{flag}: must be a number of at least 0, found '{v}'"
                    )));
                };
                out.cuda.gate.on = true;
                if flag == "--max-excess" {
                    out.cuda.gate.max_excess_percent = Some(limit);
                } else {
                    out.cuda.gate.max_sectors_per_request = Some(limit);
                }
            }
            "--max-conflicts" => {
                let v = value()?;
                let Ok(limit) = v.trim().parse::<u64>() else {
                    return Err(bad(format!(
                        "--max-conflicts: must be a whole number of at least 0, found '{v}'"
                    )));
                };
                out.cuda.gate.on = true;
                out.cuda.gate.max_conflicts = Some(limit);
            }
            "--arch" => {
                let v = value()?;
                out.cuda.arch = v.trim().parse().ok().filter(|a| *a > 0).ok_or_else(|| {
                    bad(format!(
                        "--arch: must be __CUDA_ARCH__ as a whole number, such as 700 for sm_70, found '{v}'"
                    ))
                })?;
            }
            "--warp" => machine.push((Field::Warp, value()?)),
            "--sector" => machine.push((Field::Sector, value()?)),
            "--line" => machine.push((Field::Line, value()?)),
            f if f.starts_with("--") => return Err(bad(format!("{f}: not an option; {USAGE}"))),
            _ => out.positional.push(arg.clone()),
        }
    }
    if out.cuda.gate.on && !matches!(out.command.as_str(), "cuda" | "run") {
        return Err(bad(
            "--check and its limits are cuda's (the CI gate over CUDA source)",
        ));
    }
    if !out.cuda.defines.is_empty() && !matches!(out.command.as_str(), "cuda" | "run") {
        return Err(bad("-D is cuda's: a define given beside a CUDA source"));
    }
    if !out.cuda.include_dirs.is_empty() && !matches!(out.command.as_str(), "cuda" | "run") {
        return Err(bad(
            "-I is cuda's and run's: where a CUDA source's #include \"…\" looks",
        ));
    }
    if let Some((field, _)) = machine.first() {
        if !matches!(out.command.as_str(), "cuda" | "run") {
            return Err(bad(format!(
                "--{}: only cuda takes a machine (kernel takes its link's, trace Volta's)",
                field.param()
            )));
        }
        out.cuda.machine = machine_of_flags(&machine)?;
    }
    if let Some(text) = cache {
        let on = if matches!(out.command.as_str(), "cuda" | "run") {
            out.cuda.machine
        } else {
            out.trace.machine
        };
        out.trace.cache_bytes = cache_bytes(text, on)?;
        out.cuda.cache_bytes = out.trace.cache_bytes;
    }
    Ok(out)
}

/// The machine of `--warp`, `--sector` and `--line`, checked as the calculator checks its
/// `warp`, `sector` and `line` fields; Volta's for a flag not given, except that a line left
/// out grows to a sector bigger than 128 bytes, as the calculator repairs it.
fn machine_of_flags(flags: &[(Field, String)]) -> Result<Machine, Failure> {
    let mut inputs = Inputs::default();
    for (field, text) in flags {
        inputs.set(*field, text.clone());
    }
    if !flags.iter().any(|(field, _)| *field == Field::Line) {
        inputs.line = inputs.default_for(Field::Line);
    }
    let scenario = inputs.scenario().map_err(|errors| {
        bad(errors
            .iter()
            .map(|e| format!("--{}: {}", e.field.param(), e.message()))
            .collect::<Vec<_>>()
            .join("\n"))
    })?;
    Ok(Machine::of(&scenario))
}

/// The element sizes a width may take, as a sentence says them: "1, 2, 4, 8 or 16".
fn elem_sizes_text() -> String {
    let sizes: Vec<String> = ELEM_SIZES.iter().map(u64::to_string).collect();
    match sizes.split_last() {
        Some((last, init)) if !init.is_empty() => format!("{} or {last}", init.join(", ")),
        _ => sizes.join(""),
    }
}

/// The cache size `text` gives, checked as the kernel view checks its `cache` field on
/// `machine`: 0, or a multiple of its line up to `MAX_CACHE_BYTES`.
fn cache_bytes(text: String, machine: Machine) -> Result<u64, Failure> {
    let inputs = KernelInputs { cache: text, ..KernelInputs::default() };
    inputs
        .kernel(machine)
        .map(|k| k.cache_bytes)
        .map_err(|errors| {
            bad(errors
                .iter()
                .map(|e| format!("--cache: {}", e.message()))
                .collect::<Vec<_>>()
                .join("\n"))
        })
}

/// Runs one command line, writing its output to `out`.
pub fn run(args: &[String], out: &mut impl Write) -> Result<(), Failure> {
    // `--help` anywhere, as the first word or after a command, is the usage on stdout, exit 0.
    if args.iter().any(|a| a == "--help" || a == "-h") || args.first().is_some_and(|a| a == "help")
    {
        return out
            .write_all(format!("{USAGE}\n").as_bytes())
            .map_err(|e| io("stdout", e));
    }
    let a = parse_args(args)?;
    let text = match a.command.as_str() {
        "analyze" => cmd_analyze(&a)?,
        "kernel" => cmd_kernel(&a)?,
        "trace" => crate::trace::cmd_trace(&a)?,
        "cuda" => {
            let (text, failed) = crate::cuda::cmd_cuda(&a)?;
            out.write_all(text.as_bytes())
                .map_err(|e| io("stdout", e))?;
            if failed > 0 {
                return Err(Failure {
                    code: 1,
                    message: format!(
                        "{failed} check{} failed",
                        if failed == 1 { "" } else { "s" }
                    ),
                });
            }
            return Ok(());
        }
        "run" => {
            let ran = crate::run::cmd_run(&a)?;
            out.write_all(ran.stdout.as_bytes())
                .map_err(|e| io("stdout", e))?;
            out.flush().map_err(|e| io("stdout", e))?;
            if !ran.stderr.is_empty() {
                eprint!("{}", ran.stderr);
            }
            if ran.code != 0 {
                return Err(Failure { code: ran.code, message: String::new() });
            }
            return Ok(());
        }
        "answers" => cmd_answers(&a)?,
        "synth" => cmd_synth(&a)?,
        other => return Err(bad(format!("'{other}' is not a subcommand; {USAGE}"))),
    };
    out.write_all(text.as_bytes()).map_err(|e| io("stdout", e))
}

pub(crate) fn one(a: &Args, what: &str) -> Result<String, Failure> {
    match a.positional.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(bad(format!("{} needs one {what}; {USAGE}", a.command))),
    }
}

/// The calculator's analysis of `inputs`, or every field error, named.
pub(crate) fn analysis_of(inputs: &Inputs) -> Result<Analysis, Failure> {
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

pub(crate) fn kernel_of(state: &State) -> Result<Kernel, Failure> {
    state.kernel.kernel(machine_of(state)?).map_err(|errors| {
        bad(errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"))
    })
}

pub(crate) fn name_of(inputs: &Inputs) -> String {
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
