//! Permalinks: the page's state as a URL query string and back.
//!
//! Parameter names are a public contract (README, "Permalinks"): course pages link to them
//! for years. Values travel as the raw text of each field, so a bad value reaches its field
//! and is reported there, while results use the field's default. Unknown parameters are
//! ignored; a repeated one keeps its last value. [`warnings`] lists, in plain words, every
//! problem a link had. Encoding writes `v=1` and only the values that differ from the
//! default, in a fixed order. A future version bumps `v` and keeps decoding this one.
//!
//! Why one file: decoding, encoding and the warnings must agree parameter by
//! parameter; they stay side by side so that a new parameter is added in one place.

use super::arch::Arch;
use super::inputs::{Field, Inputs};
use super::kernel::presets::{KernelPreset, KERNEL_PRESETS};
use super::kernel::{KernelField, KernelInputs, Machine};
use super::probe::{ProbeField, ProbeInputs};
use super::roofline::{Knob, Lab, MachineInputs, MAX_TRAIL};
use super::sectors::repair;

/// The permalink format this build writes and reads.
pub const VERSION: u32 = 1;

/// The panel on show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tab {
    #[default]
    Calculator,
    Roofline,
    Probe,
    Kernel,
    Trace,
}

impl Tab {
    /// The `tab` parameter's value; the calculator is the default and is omitted.
    pub fn param(self) -> &'static str {
        match self {
            Tab::Calculator => "calculator",
            Tab::Roofline => "roofline",
            Tab::Probe => "probe",
            Tab::Kernel => "kernel",
            Tab::Trace => "trace",
        }
    }

    /// The tab whose `tab` value is `param`, if any.
    pub fn from_param(param: &str) -> Option<Tab> {
        [
            Tab::Calculator,
            Tab::Roofline,
            Tab::Probe,
            Tab::Kernel,
            Tab::Trace,
        ]
        .into_iter()
        .find(|t| t.param() == param)
    }
}

/// Everything a permalink carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// `tab`: the panel on show.
    pub tab: Tab,
    /// The sector calculator's inputs.
    pub calc: Inputs,
    /// The Roofline lab: `oi`, `bw` and `trail`. The prediction in progress is not carried;
    /// a stepped prediction travels inside its trail entry.
    pub lab: Lab,
    /// `embed=1`: just the panel, for an iframe in course material.
    pub embed: bool,
    /// `predict=1`: the calculator hides its results until the learner predicts N_tx.
    pub predict: bool,
    /// Scenario B beside A: `compare=1` and the calculator's parameters prefixed `b.`.
    pub compare: Option<Inputs>,
    /// The probe's configuration: `strides` and `n`. Its results are never in the URL, and
    /// a link never starts the probe.
    pub probe: ProbeInputs,
    /// The kernel view: `grid`, `block`, `loop`, `cache`, `flops` and the statements'
    /// `aN.*`. Its machine is the calculator's `arch`, `warp`, `sector` and `line`.
    pub kernel: KernelInputs,
    /// `kcompare`: the kernel preset shown beside the kernel view's own kernel; empty for none.
    pub kernel_compare: String,
    /// `trace`: a trace to load from the page's own site (a relative path); empty for none.
    pub trace: String,
    /// `tformat`: `nvbit` or `accelsim` to override the detected trace format; empty: detect.
    pub trace_format: String,
    /// The Roofline lab's machine mode: `roofs`, `machine`, `bw.N`, `peak.N`, `pt.N`.
    pub roofs: MachineInputs,
}

/// Whether `path` names a file on the page's own site: relative, with no scheme, host or
/// backslash. Course pages ship sample traces beside the app this way.
///
/// ```
/// use coalescing_lab::model::permalink::same_origin_path;
/// assert!(same_origin_path("samples/synthetic-transpose.nvbit.txt"));
/// assert!(!same_origin_path("https://example.org/t.txt"));
/// assert!(!same_origin_path("//example.org/t.txt"));
/// assert!(!same_origin_path("javascript:alert(1)"));
/// assert!(!same_origin_path("../../../../etc/passwd"));
/// assert!(!same_origin_path("samples/../../x"));
/// ```
pub fn same_origin_path(path: &str) -> bool {
    let path = path.trim();
    // One rule: a path inside the site, below the app. `..` would climb out of it as surely
    // as a leading `/` (hostile pass L16).
    !path.is_empty()
        && !path.split('/').any(|segment| segment == "..")
        && !path.starts_with('/')
        && !path.contains(':')
        && !path.contains('\\')
        && path.chars().all(|c| !c.is_control())
}

/// Unknown parameters named one by one in the notice; the rest are counted.
const MOST_UNKNOWN_LISTED: usize = 5;

/// The prefix of scenario B's parameters.
pub const B_PREFIX: &str = "b.";

/// Reads one scenario's fields, those whose parameters start with `prefix`. The architecture
/// goes first, wherever it stands: it supplies the defaults that explicit warp, sector and
/// line then override.
fn decode_inputs(query: &str, prefix: &str) -> Inputs {
    let mut inputs = Inputs::default();
    let ours = || pairs(query).filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.to_string(), v)));
    if let Some((_, arch)) = ours().filter(|(k, _)| k == "arch").last() {
        let preset = inputs.with_arch(Arch::by_id(&arch).unwrap_or(Arch::default_arch()));
        inputs = Inputs { arch, ..preset };
    }
    for (key, value) in ours() {
        if let Some(field) = Field::from_param(&key) {
            inputs.set(field, value);
        }
    }
    inputs
}

/// Writes one scenario's fields that differ from their defaults, prefixed.
fn encode_inputs(inputs: &Inputs, prefix: &str, out: &mut Vec<(String, String)>) {
    for field in Field::ALL {
        // Warp, sector and line are omitted when the architecture supplies them.
        let value = inputs.get(field);
        if value != inputs.preset_value(field) {
            out.push((format!("{prefix}{}", field.param()), value.to_string()));
        }
    }
}

/// Reads a query string, with or without its leading `?`. Never fails.
///
/// ```
/// use coalescing_lab::model::permalink::decode;
/// let state = decode("?idx=t%3C16+%3F+t+%3A+0&base=0x8&bogus=1");
/// assert_eq!(state.calc.idx, "t<16 ? t : 0");
/// assert_eq!(state.calc.base, "0x8");
/// // Degenerate input: an empty query is the default state.
/// assert_eq!(decode(""), Default::default());
/// ```
pub fn decode(query: &str) -> State {
    let mut state = State {
        calc: decode_inputs(query, ""),
        ..State::default()
    };
    let mut compare = false;
    for (key, value) in pairs(query) {
        match key.as_str() {
            "tab" => state.tab = Tab::from_param(&value).unwrap_or_default(),
            "embed" => state.embed = value == "1",
            "predict" => state.predict = value == "1",
            "compare" => compare = value == "1",
            "oi" => state.lab.oi = value,
            "bw" => state.lab.bw = value,
            "trail" => state.lab.trail = value,
            "prev" => state.lab.previous = value,
            "strides" => state.probe.strides = value,
            "n" => state.probe.n = value,
            "kcompare" => {
                state.kernel_compare = if KernelPreset::by_id(value.trim()).is_some() {
                    value.trim().to_string()
                } else {
                    String::new()
                }
            }
            "trace" if same_origin_path(&value) => state.trace = value.trim().to_string(),
            "tformat" if matches!(value.trim(), "nvbit" | "accelsim") => {
                state.trace_format = value.trim().to_string()
            }
            key if key.starts_with(B_PREFIX) => compare = true,
            _ => {}
        }
    }
    if compare {
        state.compare = Some(decode_inputs(query, B_PREFIX));
    }
    state.kernel = decode_kernel(query);
    state.roofs = MachineInputs::from_pairs(pairs(query));
    state
}

/// Reads the kernel view's parameters. A statement exists when any of its `aN.*` parameters
/// is in the link; with none in the link, the default kernel's statement stands.
fn decode_kernel(query: &str) -> KernelInputs {
    let mut kernel = KernelInputs::default();
    let fields: Vec<(KernelField, String)> = pairs(query)
        .filter_map(|(k, v)| Some((KernelField::from_param(&k)?, v)))
        .collect();
    if fields
        .iter()
        .any(|(f, _)| matches!(f, KernelField::Stmt(..)))
    {
        kernel.statements = Default::default();
    }
    for (field, value) in fields {
        kernel.set(field, value);
    }
    kernel
}

/// Writes the kernel view's parameters that differ from the defaults. Statements are written
/// whole when they differ from the default kernel's, each with at least its `kind`, so that
/// every statement present comes back.
fn encode_kernel(kernel: &KernelInputs, out: &mut Vec<(String, String)>) {
    let defaults = KernelInputs::default();
    for field in KernelField::LAUNCH {
        let value = kernel.get(field);
        if value != defaults.get(field) {
            out.push((field.param(), value));
        }
    }
    if kernel.statements == defaults.statements {
        return;
    }
    for (k, stmt) in kernel.statements.iter().enumerate() {
        if stmt.is_none() {
            continue;
        }
        let n = k as u8 + 1;
        let mut wrote = false;
        for f in super::kernel::StmtField::ALL {
            let field = KernelField::Stmt(n, f);
            let value = kernel.get(field);
            if value != super::kernel::StmtInputs::default_for(field) {
                out.push((field.param(), value));
                wrote = true;
            }
        }
        if !wrote {
            let kind = KernelField::Stmt(n, super::kernel::StmtField::Kind);
            out.push((kind.param(), kernel.get(kind)));
        }
    }
}

/// Writes the query string (without `?`) for `state`, omitting defaults.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, permalink::{encode, State}};
/// let calc = Inputs { idx: "31-t".into(), base: "8".into(), ..Inputs::default() };
/// assert_eq!(encode(&State { calc, ..State::default() }), "v=1&base=8&idx=31-t");
/// assert_eq!(encode(&State::default()), "");
/// ```
pub fn encode(state: &State) -> String {
    let lab_defaults = Lab::default();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut flag = |key: &str, on: bool, value: &str| {
        if on {
            pairs.push((key.to_string(), value.to_string()));
        }
    };
    flag("tab", state.tab != Tab::default(), state.tab.param());
    flag("embed", state.embed, "1");
    flag("predict", state.predict, "1");
    flag("compare", state.compare.is_some(), "1");
    encode_inputs(&state.calc, "", &mut pairs);
    if let Some(b) = &state.compare {
        encode_inputs(b, B_PREFIX, &mut pairs);
    }
    for (key, value, default) in [
        ("oi", &state.lab.oi, &lab_defaults.oi),
        ("bw", &state.lab.bw, &lab_defaults.bw),
        ("trail", &state.lab.trail, &lab_defaults.trail),
        ("prev", &state.lab.previous, &lab_defaults.previous),
    ] {
        if value != default {
            pairs.push((key.to_string(), value.clone()));
        }
    }
    let probe_defaults = ProbeInputs::default();
    for (field, value, default) in [
        (
            ProbeField::Strides,
            &state.probe.strides,
            &probe_defaults.strides,
        ),
        (ProbeField::N, &state.probe.n, &probe_defaults.n),
    ] {
        if value != default {
            pairs.push((field.param().to_string(), value.clone()));
        }
    }
    encode_kernel(&state.kernel, &mut pairs);
    for (key, value) in [
        ("kcompare", &state.kernel_compare),
        ("trace", &state.trace),
        ("tformat", &state.trace_format),
    ] {
        if !value.is_empty() {
            pairs.push((key.to_string(), value.clone()));
        }
    }
    state.roofs.to_pairs(&mut pairs);
    if pairs.is_empty() {
        return String::new();
    }
    std::iter::once(format!("v={VERSION}"))
        .chain(
            pairs
                .into_iter()
                .map(|(key, value)| format!("{key}={}", escape(&value))),
        )
        .collect::<Vec<_>>()
        .join("&")
}

/// Every problem with a link, in plain words, each naming the parameter and what is used
/// instead. Empty for a good link.
///
/// ```
/// use coalescing_lab::model::permalink::warnings;
/// assert_eq!(
///     warnings("?elem=3&zoom=2"),
///     [
///         "`zoom` is not a Coalescing Lab parameter; it was ignored.",
///         "`elem=3` must be 1, 2, 4, 8 or 16 bytes, found '3'; using 4.",
///     ]
/// );
/// assert!(warnings("?v=1&idx=2*t").is_empty());
/// ```
pub fn warnings(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    let mut unnamed = 0u64;
    let mut given: Vec<(String, String)> = Vec::new();
    for (key, value) in pairs(query) {
        match key.as_str() {
            "v" => match value.trim().parse::<u32>() {
                Ok(VERSION) => {}
                Ok(v) if v > VERSION => out.push(format!(
                    "`v={v}`: this link comes from a newer Coalescing Lab; it was read as version {VERSION}, so some settings may be missing."
                )),
                _ => out.push(format!(
                    "`v={value}` is not a link version; the link was read as version {VERSION}."
                )),
            },
            "tab" if Tab::from_param(&value).is_none() => out.push(format!(
                "`tab={value}` is not a panel (calculator, kernel, trace, roofline or probe); showing the calculator."
            )),
            "embed" if value != "0" && value != "1" => out.push(format!(
                "`embed={value}` is not 0 or 1; showing the full page."
            )),
            "predict" if value != "0" && value != "1" => out.push(format!(
                "`predict={value}` is not 0 or 1; showing the results at once."
            )),
            "compare" if value != "0" && value != "1" => out.push(format!(
                "`compare={value}` is not 0 or 1; showing one scenario."
            )),
            "kcompare" if KernelPreset::by_id(value.trim()).is_none() => out.push(format!(
                "`kcompare={value}` is not a kernel preset ({}); comparing with none.",
                KERNEL_PRESETS.map(|p| p.id).join(", ")
            )),
            "trace" if !same_origin_path(&value) => out.push(format!(
                "`trace={value}` is not a path on this site; a trace loads by link only from beside the app (e.g. samples/…), so it was ignored."
            )),
            "tformat" if !matches!(value.trim(), "nvbit" | "accelsim") => out.push(format!(
                "`tformat={value}` is not nvbit or accelsim; the format is detected from the trace."
            )),
            "tab" | "embed" | "predict" | "compare" | "oi" | "bw" | "trail" | "prev" | "strides"
            | "n" | "kcompare" | "trace" | "tformat" => {}
            _ if Field::from_param(key.strip_prefix(B_PREFIX).unwrap_or(&key)).is_some() => {}
            _ if KernelField::from_param(&key).is_some() => {}
            _ if MachineInputs::is_param(&key) => {}
            "" => unnamed += 1,
            _ => unknown.push(key.clone()),
        }
        given.push((key, value));
    }
    // A link with thousands of unknown parameters gets one line, not thousands.
    let listed = unknown.len().min(MOST_UNKNOWN_LISTED);
    for key in &unknown[..listed] {
        out.push(format!(
            "`{key}` is not a Coalescing Lab parameter; it was ignored."
        ));
    }
    if unknown.len() > listed {
        out.push(format!(
            "{} more parameters are not Coalescing Lab parameters; they were ignored.",
            unknown.len() - listed
        ));
    }
    if unnamed > 0 {
        out.push(format!(
            "{unnamed} part{} of the link had no parameter name; ignored.",
            super::format::plural(unnamed)
        ));
    }
    let state = decode(query);
    let shown = |param: &str| {
        given
            .iter()
            .rev()
            .find(|(k, _)| k == param)
            .map(|(_, v)| v.clone())
    };
    let scenarios =
        std::iter::once(("", &state.calc)).chain(state.compare.as_ref().map(|b| (B_PREFIX, b)));
    for (prefix, inputs) in scenarios {
        let (_, errors) = repair(inputs);
        let mut seen = Vec::new();
        for error in errors {
            if seen.contains(&error.field) {
                continue;
            }
            seen.push(error.field);
            let param = format!("{prefix}{}", error.field.param());
            let fallback = inputs.default_for(error.field);
            let fallback = if fallback.is_empty() {
                "none"
            } else {
                &fallback
            };
            let value = shown(&param).unwrap_or_else(|| inputs.get(error.field).to_string());
            out.push(format!(
                "`{param}={value}` {}; using {fallback}.",
                error.message()
            ));
        }
    }
    let lab = state.lab.check();
    for error in lab.errors {
        let param = error.field.param();
        if matches!(error.field, Knob::Trail | Knob::Previous) {
            // A trail can be long: name the entry, not the whole value.
            out.push(format!("`{param}` {}; it was left out.", error.message()));
            continue;
        }
        let value = shown(param).unwrap_or_default();
        let fallback = Lab::default().get(error.field).to_string();
        out.push(format!(
            "`{param}={value}` {}; using {fallback}.",
            error.message()
        ));
    }
    if lab.dropped > 0 {
        out.push(format!(
            "The trail is longer than the {MAX_TRAIL} points the lab keeps; {} of the oldest were left out.",
            lab.dropped
        ));
    }
    // The kernel's machine is the calculator's, as shown (bad fields at their defaults).
    let calc = super::sectors::analyze_repaired(&state.calc);
    let machine = Machine {
        warp: calc.warp,
        sector_bytes: calc.sector_bytes,
        line_bytes: calc.line_bytes,
    };
    let (_, kernel_errors) = super::kernel::view::repair(&state.kernel, machine);
    let mut seen = Vec::new();
    for error in kernel_errors {
        if seen.contains(&error.field) {
            continue;
        }
        seen.push(error.field);
        let param = error.field.param();
        let value = shown(&param).unwrap_or_else(|| state.kernel.get(error.field));
        let fallback = match error.field {
            KernelField::Stmt(..) => super::kernel::StmtInputs::default_for(error.field),
            field => KernelInputs::default().get(field),
        };
        let fallback = if fallback.is_empty() {
            "none".to_string()
        } else {
            fallback
        };
        out.push(format!(
            "`{param}={value}` {}; using {fallback}.",
            error.message()
        ));
    }
    out.extend(MachineInputs::link_warnings(&given, shown));
    if let Err(errors) = state.probe.check() {
        // The probe keeps a bad value in its field, marked, and will not run until it is
        // fixed: there is no fallback to announce.
        for error in errors {
            let param = error.field.param();
            let value = shown(param).unwrap_or_default();
            out.push(format!(
                "`{param}={value}`: {}; fix it in the GPU probe before running.",
                error.message()
            ));
        }
    }
    // A parameter given twice is read once, the last time: say so (hostile pass L17).
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for (key, _) in &given {
        match counted.iter_mut().find(|(k, _)| k == key) {
            Some((_, n)) => *n += 1,
            None if !key.is_empty() => counted.push((key, 1)),
            None => {}
        }
    }
    let repeated: Vec<(&str, usize)> = counted.into_iter().filter(|(_, n)| *n > 1).collect();
    for (key, n) in repeated.iter().take(MOST_UNKNOWN_LISTED) {
        let last = shown(key).unwrap_or_default();
        out.push(format!(
            "`{key}` is given {n} times; the last, `{key}={last}`, is used."
        ));
    }
    if repeated.len() > MOST_UNKNOWN_LISTED {
        out.push(format!(
            "{} more parameters are given more than once; the last of each is used.",
            repeated.len() - MOST_UNKNOWN_LISTED
        ));
    }
    // An echoed value of thousands of characters would make a notice pages high.
    out.iter()
        .map(|w| super::format::clip_long_words(w))
        .collect()
}

/// The canonical permalink of `state` on the page at `page` (its URL without query or
/// fragment): short, defaults omitted, never in embed mode.
///
/// ```
/// use coalescing_lab::model::permalink::{decode, link};
/// let page = "https://course.example/lab/";
/// assert_eq!(link(page, &decode("embed=1&base=8")), "https://course.example/lab/?v=1&base=8");
/// assert_eq!(link(page, &decode("")), "https://course.example/lab/");
/// ```
pub fn link(page: &str, state: &State) -> String {
    let query = encode(&State {
        embed: false,
        ..state.clone()
    });
    if query.is_empty() {
        page.to_string()
    } else {
        format!("{page}?{query}")
    }
}

/// The iframe snippet that embeds `state`: `src` is the permalink with `embed=1`, full
/// width, a sensible height (the page also posts its height), a title for screen readers,
/// and lazy loading.
///
/// ```
/// use coalescing_lab::model::permalink::{decode, embed_snippet};
/// assert_eq!(
///     embed_snippet("https://course.example/lab/", &decode("base=8")),
///     "<iframe src=\"https://course.example/lab/?v=1&amp;embed=1&amp;base=8\" width=\"100%\" \
///      height=\"900\" title=\"Coalescing Lab: sector calculator\" loading=\"lazy\" \
///      style=\"border:0\"></iframe>"
/// );
/// ```
pub fn embed_snippet(page: &str, state: &State) -> String {
    let src = format!(
        "{page}?{}",
        encode(&State {
            embed: true,
            ..state.clone()
        })
    );
    let title = match state.tab {
        Tab::Calculator => "Coalescing Lab: sector calculator",
        Tab::Roofline => "Coalescing Lab: Roofline lab",
        Tab::Probe => "Coalescing Lab: GPU probe",
        Tab::Kernel => "Coalescing Lab: kernel view",
        Tab::Trace => "Coalescing Lab: trace",
    };
    format!(
        "<iframe src=\"{}\" width=\"100%\" height=\"900\" title=\"{title}\" loading=\"lazy\" style=\"border:0\"></iframe>",
        src.replace('&', "&amp;").replace('"', "&quot;")
    )
}

/// Splits `a=1&b=2` into decoded pairs, as `application/x-www-form-urlencoded` does.
fn pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query
        .strip_prefix('?')
        .unwrap_or(query)
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (unescape(key), unescape(value))
        })
}

/// Percent-decodes, with `+` as a space; a malformed escape is kept literally.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                if let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) {
                    out.push((hi * 16 + lo) as u8);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            _ => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but characters that read well in a query and mean nothing there.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'-' | b'.' | b'_' | b'~' | b'*' | b'(' | b')' | b',' | b':' | b'/' | b'?' | b'!'
            | b'@' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
