//! `run FILE.cu [-I DIR]… [-D NAME=VALUE]… [--check …] [-- ARGS…]`: the file's `main()` run as a GPU
//! would run the program, with every launch on the model's interpreter; what the program
//! prints, then each launch's figures, or with `--check` the CI gate over every launch.

use crate::cli::{bad, one, Args, Failure, Style};
use crate::cuda::{defines_of, failed_checks, lines_json, read_source, read_unit, sites_json};
use crate::out::{json_list, json_string, table};
use coalescing_lab::model::cuda::run::program::{run_unit, LaunchRun, ProgramOptions, Stream};
use coalescing_lab::model::cuda::run::SiteKind;
use coalescing_lab::model::cuda_view::{LaunchRow, LAUNCH_HEADS as HEADS};

/// One launch's row, in [`HEADS`]' order.
fn row(k: usize, l: &LaunchRun) -> Vec<String> {
    LaunchRow::of(l).cells(k)
}

/// What the checks found in launch `l`: each race (not a same-value note), access out of
/// bounds and load of memory nothing wrote, worded as the page words it.
fn findings(l: &LaunchRun) -> Vec<String> {
    let a = &l.analysis;
    let line_kind = |k: usize| {
        a.sites
            .get(k)
            .map_or((0, SiteKind::Load), |(s, _)| (s.pos.line, s.kind))
    };
    let line = |k: usize| line_kind(k).0;
    let races = a
        .races
        .iter()
        .filter(|r| !r.same_value)
        .map(|r| format!("{}-scope race: {}", r.scope.name(), r.sentence(line_kind)));
    let oob = a
        .out_of_bounds
        .iter()
        .map(|o| format!("out of bounds: {}", o.sentence(line(o.site))));
    let uninit = a
        .uninitialized
        .iter()
        .map(|u| format!("uninitialised: {}", u.sentence(line(u.site))));
    races.chain(oob).chain(uninit).collect()
}

/// What `run` prints on standard output and on standard error, and the program's exit status.
pub(crate) struct Ran {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

/// Runs `run`.
pub(crate) fn cmd_run(a: &Args) -> Result<Ran, Failure> {
    let path = one(a, "CUDA source file (or - for standard input)")?;
    let source = read_source(&path)?;
    let defines = defines_of(a)?;
    let options = ProgramOptions {
        machine: a.cuda.machine,
        cache_bytes: a.cuda.cache_bytes,
        arch: a.cuda.arch,
        argv: a.argv.clone(),
        ..ProgramOptions::default()
    };
    let run = read_unit(a, &path, &source, &defines)
        .and_then(|unit| run_unit(unit, &options))
        .map_err(|e| bad(e.to_string()))?;
    let stdout = run.text_of(Stream::Stdout);
    let mut stderr = run.text_of(Stream::Stderr);
    for note in &run.notes {
        stderr.push_str(&format!("coalescing-lab-cli: note: {note}\n"));
    }
    if let Some(e) = &run.error {
        stderr.push_str(&format!("coalescing-lab-cli: the program stopped: {e}\n"));
    }
    let mut code = match (run.exit_code, &run.error) {
        (Some(c), _) => i32::from(c),
        _ => 2,
    };
    if a.cuda.gate.on {
        // The CI gate over every launch, as `cuda --check` applies it to one; the program's
        // own failure status stands, else 1 when a check failed.
        let mut lines = Vec::new();
        let mut checked = 0;
        for (k, l) in run.launches.iter().enumerate() {
            let suffix = format!(" (launch {k}, {})", l.kernel);
            let (failed, made) = failed_checks(&a.cuda.gate, &l.analysis, &path, &suffix);
            lines.extend(failed);
            checked += made;
        }
        let failed = lines.len();
        let launches = run.launches.len();
        lines.push(if failed == 0 {
            format!(
                "{path}: every check passed ({checked} checked over {launches} launch{})",
                if launches == 1 { "" } else { "es" }
            )
        } else {
            format!("{path}: {failed} failed")
        });
        if failed > 0 {
            stderr.push_str(&format!(
                "coalescing-lab-cli: {failed} check{} failed\n",
                if failed == 1 { "" } else { "s" }
            ));
            if code == 0 {
                code = 1;
            }
        }
        return Ok(Ran {
            stdout: format!("{stdout}{}\n", lines.join("\n")),
            stderr,
            code,
        });
    }
    let style = a.style.unwrap_or(Style::Text);
    let out = match style {
        Style::Json => {
            let launches: Vec<String> = run
                .launches
                .iter()
                .enumerate()
                .map(|(k, l)| {
                    let cells = row(k, l);
                    let fields: Vec<String> = HEADS
                        .iter()
                        .zip(&cells)
                        .map(|(h, c)| {
                            let key = h.replace('-', "_");
                            let value = match *h {
                                "kernel" => json_string(c),
                                "grid" | "block" => format!("[{c}]"),
                                _ => c.clone(),
                            };
                            format!("\"{key}\":{value}")
                        })
                        .collect();
                    format!(
                        "{{{},\"sites\":[{}],\"lines\":[{}],\"findings\":{}}}",
                        fields.join(","),
                        sites_json(&l.analysis).join(","),
                        lines_json(&l.analysis).join(","),
                        json_list(&findings(l))
                    )
                })
                .collect();
            return Ok(Ran {
                stdout: format!(
                    "{{\"stdout\":{},\"stderr\":{},\"exit_code\":{},\"launches\":[{}],\"notes\":{},\"error\":{}}}\n",
                    json_string(&stdout),
                    json_string(&run.text_of(Stream::Stderr)),
                    run.exit_code.map_or("null".into(), |c| c.to_string()),
                    launches.join(","),
                    json_list(&run.notes),
                    run.error
                        .as_ref()
                        .map_or("null".into(), |e| json_string(&e.to_string()))
                ),
                stderr: String::new(),
                code,
            });
        }
        Style::Csv => table(
            style,
            &HEADS,
            run.launches.iter().enumerate().map(|(k, l)| row(k, l)),
        ),
        _ if run.launches.is_empty() => stdout,
        _ => {
            let mut out = format!(
                "{stdout}{}",
                table(
                    style,
                    &HEADS,
                    run.launches.iter().enumerate().map(|(k, l)| row(k, l)),
                )
            );
            // What the checks found, launch by launch (`--check` makes them fail the run).
            for (k, l) in run.launches.iter().enumerate() {
                for f in findings(l) {
                    out.push_str(&format!("launch {k} ({}): {f}\n", l.kernel));
                }
            }
            out
        }
    };
    Ok(Ran { stdout: out, stderr, code })
}
