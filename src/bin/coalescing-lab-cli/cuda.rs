//! `cuda FILE|- --launch LAUNCH`: a kernel read from CUDA source and launched through the
//! model's interpreter, printed as the page's totals (`k-…`), one row per access site
//! (`cuda-access`) and one per line (`cuda-line`), then its notes.

use crate::cli::{bad, io, one, Args, Failure, Style};
use crate::out::{json_list, json_readouts, json_string, markdown_readouts, table, text_readouts};
use coalescing_lab::model::cuda::ast::Unit;
use coalescing_lab::model::cuda::error::{CudaError, ErrorKind, Pos};
use coalescing_lab::model::cuda::files::{Reader, Sources};
use coalescing_lab::model::cuda::lex::MAX_SOURCE_BYTES;
use coalescing_lab::model::cuda::run::{
    analyse_unit, propose_for, read_files, CudaAnalysis, CudaFailure, Site, SiteKind,
};
use coalescing_lab::model::cuda::{parse_define, Defines};
use coalescing_lab::model::cuda_view::{access_csv, figure_fields, proposal_text};
use coalescing_lab::model::format::plural;
use coalescing_lab::model::kernel::view::figure_readouts;
use coalescing_lab::model::readouts::Readout;
use coalescing_lab::model::warp::Figures;
use std::io::Read;
use std::rc::Rc;

/// The same columns for people, in text and Markdown.
const FIGURE_HEADS: [&str; 10] = [
    "requests",
    "requested B",
    "sectors",
    "ideal",
    "excess",
    "unique",
    "DRAM bytes",
    "wavefronts",
    "ideal wf",
    "conflicts",
];

/// The access sites: every site but the barriers, which count in the totals' barriers.
fn accesses(a: &CudaAnalysis) -> impl Iterator<Item = &(Site, Figures)> {
    a.sites.iter().filter(|(s, _)| s.kind != SiteKind::Barrier)
}

fn numbers(f: &Figures) -> impl Iterator<Item = String> {
    figure_fields(f).into_iter().map(|(_, n)| n.to_string())
}

/// The figures as JSON fields, `"requests":4,…`, without braces.
fn json_fields(f: &Figures) -> String {
    figure_fields(f)
        .iter()
        .map(|(name, n)| format!("\"{name}\":{n}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The source as text, from a file or standard input: a file past the reader's limit gets
/// the reader's own message, and one that is not UTF-8 is bad input (exit 2), with the byte
/// where it stops being text.
pub(crate) fn read_source(path: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| io("stdin", e))?;
    } else {
        bytes = std::fs::read(path).map_err(|e| io(path, e))?;
    }
    let what = if path == "-" { "stdin" } else { path };
    if bytes.len() > MAX_SOURCE_BYTES {
        let refused = CudaFailure::Source(CudaError::new(
            Pos { line: 1, column: 1 },
            ErrorKind::SourceTooLong { bytes: bytes.len() },
        ));
        return Err(bad(format!("{what}: {refused}")));
    }
    String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "{what}: not UTF-8 text at byte offset {}; save the file as UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The disk, as `#include "…"` reads it on the command line: a path relative to the working
/// folder. A file that is not UTF-8 reads with U+FFFD in place of the bytes that are not, so
/// the reader names the line and column where it stops being text.
struct Disk;

impl Reader for Disk {
    fn read(&self, path: &str) -> Option<String> {
        let bytes = std::fs::read(path).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// The source at `path` read with its headers, from the folder `path` is in and from each
/// `-I` folder, as nvcc reads them.
pub(crate) fn read_unit(
    a: &Args,
    path: &str,
    source: &str,
    defines: &Defines,
) -> Result<Rc<Unit>, CudaFailure> {
    let main = if path == "-" { "<stdin>" } else { path };
    let sources = Sources {
        main,
        dirs: &a.cuda.include_dirs,
        reader: &Disk,
    };
    read_files(source, a.cuda.arch, defines, sources)
}

/// The `-D` defines given, read as nvcc reads them.
pub(crate) fn defines_of(a: &Args) -> Result<Defines, Failure> {
    Ok(Defines(
        a.cuda
            .defines
            .iter()
            .map(|d| parse_define(d))
            .collect::<Result<_, _>>()
            .map_err(|e| bad(format!("-D {}", e.message())))?,
    ))
}

/// Runs `cuda`: the report, or with `--check` the failed checks; and how many failed.
pub(crate) fn cmd_cuda(a: &Args) -> Result<(String, usize), Failure> {
    let path = one(a, "CUDA source file (or - for standard input)")?;
    let source = read_source(&path);
    let defines = defines_of(a)?;
    let launch = match &a.cuda.launch {
        Some(launch) => launch.clone(),
        None => {
            // The page proposes a launch: the file's own, or one for its one kernel; so does
            // the command line, and it runs the file's own when the launch sees all it names.
            let proposal = source
                .as_ref()
                .ok()
                .and_then(|s| read_unit(a, &path, s, &defines).ok())
                .and_then(|unit| propose_for(&unit));
            match proposal {
                Some(p) if p.line.is_some() && p.missing.is_empty() => {
                    eprintln!(
                        "coalescing-lab-cli: no --launch: running the file's first launch, line \
                         {}: {}",
                        p.line.unwrap_or_default(),
                        p.launch
                    );
                    p.launch
                }
                _ => {
                    let mut message =
                        "cuda needs --launch 'name<<<grid, block>>>(args)', the launch to run"
                            .to_string();
                    if let Some(p) = proposal {
                        let text = proposal_text(&p);
                        let mut words = text.chars();
                        let text: String = words
                            .next()
                            .map(|c| c.to_lowercase().chain(words).collect())
                            .unwrap_or_default();
                        let whose = match p.line {
                            Some(line) => format!("the file's launch at line {line}"),
                            None => "this file's kernel".into(),
                        };
                        message.push_str(&format!(
                            "; for {whose}, try --launch '{}': {text}",
                            p.launch
                        ));
                    }
                    return Err(bad(message));
                }
            }
        }
    };
    let source = source?;
    let o = &a.cuda;
    let an = read_unit(a, &path, &source, &defines)
        .and_then(|unit| analyse_unit(unit, &launch, o.machine, o.cache_bytes))
        .map_err(|e| bad(e.to_string()))?;
    if o.gate.on {
        let file = if path == "-" {
            "<stdin>"
        } else {
            path.as_str()
        };
        return Ok(gate(&o.gate, &an, file));
    }
    let r = figure_readouts(&an.total, o.machine, o.cache_bytes);
    Ok((
        match a.style.unwrap_or(Style::Text) {
            Style::Json => json(&an, &r),
            Style::Csv => access_csv(&an),
            // What device printf printed comes first, as the launch prints it.
            style => format!("{}{}", an.output, tables(style, &an, &r)),
        },
        0,
    ))
}

/// The CI gate: each failed check as a compiler writes a diagnostic (`FILE:LINE:COLUMN:
/// error: …`, so editors and CI logs link to it), then a summary line. Out-of-bounds
/// accesses always fail; races fail with `--no-races`.
fn gate(g: &crate::cli::Gate, an: &CudaAnalysis, file: &str) -> (String, usize) {
    let (mut out, checked) = failed_checks(g, an, file, "");
    let failed = out.len();
    out.push(if failed == 0 {
        format!("{file}: every check passed ({checked} checked)")
    } else {
        format!("{file}: {failed} failed")
    });
    (out.join("\n") + "\n", failed)
}

/// Each check of `an` that fails, as a diagnostic ending in `suffix` (which launch, for a
/// program's), and how many checks were made.
pub(crate) fn failed_checks(
    g: &crate::cli::Gate,
    an: &CudaAnalysis,
    file: &str,
    suffix: &str,
) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut checked = 0usize;
    let at = |s: &Site| {
        let (header, line) = an.place(s.pos.line);
        format!("{}:{line}:{}: error:", header.unwrap_or(file), s.pos.column)
    };
    for (s, f) in accesses(an) {
        let global = s.space == coalescing_lab::model::Space::Global;
        if global && f.requests > 0 {
            if let Some(limit) = g.max_sectors_per_request {
                checked += 1;
                let spr = f.sectors as f64 / f.requests as f64;
                if spr > limit {
                    out.push(format!(
                        "{} {spr:.2} sectors per request, more than --max-sectors-per-request {limit} ({}, {} requests)",
                        at(s),
                        s.kind.name(),
                        f.requests
                    ));
                }
            }
            if let (Some(limit), true) = (g.max_excess_percent, f.sectors > 0) {
                checked += 1;
                let pct = f.excess_sectors() as f64 * 100.0 / f.sectors as f64;
                if pct > limit {
                    out.push(format!(
                        "{} {} excess sectors are {pct:.1}% of its {} sectors, more than --max-excess {limit}%",
                        at(s),
                        f.excess_sectors(),
                        f.sectors
                    ));
                }
            }
        }
        if let (Some(limit), false) = (g.max_conflicts, global) {
            checked += 1;
            if f.bank_conflicts() > limit {
                out.push(format!(
                    "{} {} bank conflicts over {} requests, more than --max-conflicts {limit}",
                    at(s),
                    f.bank_conflicts(),
                    f.requests
                ));
            }
        }
    }
    let line_kind = |k: usize| {
        an.sites
            .get(k)
            .map_or((0, SiteKind::Load), |(s, _)| (s.pos.line, s.kind))
    };
    if g.no_races {
        checked += 1;
        for r in an.races.iter().filter(|r| !r.same_value) {
            if let Some((s, _)) = an.sites.get(r.site_b) {
                out.push(format!(
                    "{} {}-scope race: {}",
                    at(s),
                    r.scope.name(),
                    r.sentence(line_kind)
                ));
            }
        }
    }
    for o in &an.out_of_bounds {
        if let Some((s, _)) = an.sites.get(o.site) {
            out.push(format!(
                "{} out of bounds: {}",
                at(s),
                o.sentence(s.pos.line)
            ));
        }
    }
    // A program's loads of device memory nothing wrote fail every gate, as compute-sanitizer's
    // initcheck fails a run.
    for u in &an.uninitialized {
        if let Some((s, _)) = an.sites.get(u.site) {
            out.push(format!(
                "{} uninitialised: {}",
                at(s),
                u.sentence(s.pos.line)
            ));
        }
    }
    for line in &mut out {
        line.push_str(suffix);
    }
    (out, checked)
}

/// Totals keyed by the page's `k-…` ids, the launch's shape, the rows, the notes.
/// The access sites as JSON objects, in order.
pub(crate) fn sites_json(an: &CudaAnalysis) -> Vec<String> {
    accesses(an)
        .map(|(s, f)| {
            format!(
                "{{{},\"column\":{},\"kind\":{},\"space\":{},\"elem\":{},\"part\":{},{}}}",
                json_line(an, s.pos.line),
                s.pos.column,
                json_string(s.kind.name()),
                json_string(s.space.name()),
                s.elem,
                s.part,
                json_fields(f)
            )
        })
        .collect()
}

/// `"line":12` for a line of the main file; `"line":6,"file":"utils.cuh"` for one of a
/// header it includes.
fn json_line(an: &CudaAnalysis, line: u32) -> String {
    match an.place(line) {
        (None, n) => format!("\"line\":{n}"),
        (Some(path), n) => format!("\"line\":{n},\"file\":{}", json_string(path)),
    }
}

/// The lines with an access as JSON objects, ascending.
pub(crate) fn lines_json(an: &CudaAnalysis) -> Vec<String> {
    an.lines
        .iter()
        .map(|(line, f)| {
            format!(
                "{{{},{},\"barriers\":{}}}",
                json_line(an, *line),
                json_fields(f),
                f.barriers
            )
        })
        .collect()
}

fn json(an: &CudaAnalysis, r: &[Readout]) -> String {
    let sites = sites_json(an);
    let lines = lines_json(an);
    let assumed: Vec<String> = an
        .assumed
        .iter()
        .map(|l| an.place(*l).1.to_string())
        .collect();
    let site = |k: usize| an.sites.get(k).map(|(s, _)| s.clone());
    let line_kind = |k: usize| site(k).map_or((0, SiteKind::Load), |s| (s.pos.line, s.kind));
    let triple = |v: [u64; 3]| format!("[{},{},{}]", v[0], v[1], v[2]);
    let races: Vec<String> = an
        .races
        .iter()
        .filter_map(|r| {
            let (a, b) = (site(r.site_a)?, site(r.site_b)?);
            Some(format!(
                "{{\"scope\":{},\"line-a\":{},\"column-a\":{},\"kind-a\":{},\"line-b\":{},\"column-b\":{},\"kind-b\":{},\"block\":{},\"warp-a\":{},\"warp-b\":{},\"word\":{},\"occurrences\":{},\"same-value\":{},\"sentence\":{}}}",
                json_string(r.scope.name()),
                an.place(a.pos.line).1,
                a.pos.column,
                json_string(a.kind.name()),
                an.place(b.pos.line).1,
                b.pos.column,
                json_string(b.kind.name()),
                triple(r.block),
                r.warp_a,
                r.warp_b,
                json_string(&r.word),
                r.occurrences,
                r.same_value,
                json_string(&r.sentence(line_kind))
            ))
        })
        .collect();
    let oob: Vec<String> = an
        .out_of_bounds
        .iter()
        .filter_map(|o| {
            let s = site(o.site)?;
            Some(format!(
                "{{{},\"column\":{},\"space\":{},\"block\":{},\"thread\":{},\"address\":{},\"array\":{},\"index\":{},\"count\":{},\"occurrences\":{},\"sentence\":{}}}",
                json_line(an, s.pos.line),
                s.pos.column,
                json_string(o.space.name()),
                triple(o.block),
                triple(o.thread),
                o.address,
                o.array.as_deref().map_or("null".into(), json_string),
                o.index,
                o.count.map_or("null".into(), |n| n.to_string()),
                o.occurrences,
                json_string(&o.sentence(s.pos.line))
            ))
        })
        .collect();
    let (blocks, warps, threads) = an.shape;
    format!(
        "{{\"readouts\":{},\"launch\":{{\"blocks\":{blocks},\"warps-per-block\":{warps},\"threads-per-block\":{threads}}},\"accesses\":[{}],\"lines\":[{}],\"total\":{{{},\"barriers\":{}}},\"assumed-lines\":[{}],\"races\":[{}],\"out-of-bounds\":[{}],\"notes\":{},\"output\":{}}}\n",
        json_readouts(r),
        sites.join(","),
        lines.join(","),
        json_fields(&an.total),
        an.total.barriers,
        assumed.join(","),
        races.join(","),
        oob.join(","),
        json_list(&an.notes),
        json_string(&an.output)
    )
}

/// Each race and out-of-bounds access as a sentence, races first.
fn problems(an: &CudaAnalysis) -> Vec<String> {
    let line_kind = |k: usize| {
        an.sites
            .get(k)
            .map_or((0, SiteKind::Load), |(s, _)| (s.pos.line, s.kind))
    };
    let races = an.races.iter().map(|r| {
        let times = if r.occurrences > 1 {
            format!(" ({} times)", r.occurrences)
        } else {
            String::new()
        };
        let what = if r.same_value { "Note" } else { "Race" };
        format!(
            "{what} ({} scope): {}{times}.",
            r.scope.name(),
            r.sentence(line_kind)
        )
    });
    let oob = an.out_of_bounds.iter().map(|o| {
        let line = an.sites.get(o.site).map_or(0, |(s, _)| s.pos.line);
        format!("Out of bounds: {}.", o.sentence(line))
    });
    races.chain(oob).collect()
}

/// Text or Markdown: the readouts, the launch's shape, the two tables, the notes.
fn tables(style: Style, an: &CudaAnalysis, r: &[Readout]) -> String {
    let markdown = style == Style::Markdown;
    let caption = |text: &str| {
        if markdown {
            format!("\n**{text}**\n")
        } else {
            format!("\n{text}:")
        }
    };
    let mut s = if markdown {
        markdown_readouts(r)
    } else {
        text_readouts(r)
    };
    let (blocks, warps, threads) = an.shape;
    s.push_str(&format!(
        "\nLaunch: {blocks} block{} of {threads} thread{} ({warps} warp{} each).\n",
        plural(blocks),
        plural(threads),
        plural(u64::from(warps))
    ));
    s.push_str(&caption("Per access site"));
    let mut heads = vec!["line", "column", "kind", "space", "elem"];
    heads.extend(FIGURE_HEADS);
    s.push_str(&table(
        style,
        &heads,
        accesses(an).map(|(site, f)| {
            // A struct copied field by field makes one site per field at one position.
            let kind = match site.part {
                0 => site.kind.name().to_string(),
                part => format!("{}, part {part}", site.kind.name()),
            };
            [
                an.line_label(site.pos.line),
                site.pos.column.to_string(),
                kind,
                site.space.name().to_string(),
                site.elem.to_string(),
            ]
            .into_iter()
            .chain(numbers(f))
            .collect()
        }),
    ));
    s.push_str(&caption("Per line"));
    let mut heads = vec!["line"];
    heads.extend(FIGURE_HEADS);
    heads.push("barriers");
    s.push_str(&table(
        style,
        &heads,
        an.lines
            .iter()
            .map(|(line, f)| (an.line_label(*line), f))
            .chain([("total".to_string(), &an.total)])
            .map(|(line, f)| {
                [line]
                    .into_iter()
                    .chain(numbers(f))
                    .chain([f.barriers.to_string()])
                    .collect()
            }),
    ));
    let assumed = match an.assumed.as_slice() {
        [] => None,
        [line] => Some(format!(
            "Line {}: the condition depends on a loaded value, which the model does not know; it was taken to hold for every lane.",
            an.line_label(*line)
        )),
        lines => Some(format!(
            "Lines {}: the conditions depend on loaded values, which the model does not know; each was taken to hold for every lane.",
            lines.iter().map(|l| an.line_label(*l)).collect::<Vec<_>>().join(", ")
        )),
    };
    let problems = problems(an);
    if assumed.is_some() || !an.notes.is_empty() || !problems.is_empty() {
        s.push('\n');
    }
    for note in problems.iter().chain(assumed.iter()).chain(&an.notes) {
        s.push_str(&format!("{}{note}\n", if markdown { "- " } else { "" }));
    }
    s
}
