//! Permalinks: the page's state as a URL query string and back.
//!
//! Parameter names are a public contract (docs/permalinks.md, "Permalinks"): course pages link
//! to them for years. Values travel as the raw text of each field, so a bad value reaches its field
//! and is reported there, while results use the field's default. Unknown parameters are
//! ignored; a repeated one keeps its last value. [`warnings`] lists, in plain words, every
//! problem a link had. Encoding writes `v=1` and only the values that differ from the
//! default, in a fixed order. A future version bumps `v` and keeps decoding this one.
//!
//! Each panel's parameters are one module behind one interface, `Params`: which keys are
//! its own, how they are read and written, and what can be wrong with them. Decoding,
//! encoding and the warnings must agree parameter by parameter, so they sit side by side in
//! that module; a new parameter is that module and the panel's part of [`State`]. This file
//! knows no parameter but `v`: it runs the panels in order.

mod calculator;
mod cuda;
mod kernel;
mod page;
mod probe;
mod query;
mod roofline;
mod trace;

pub use calculator::B_PREFIX;
pub use page::Tab;
pub use query::escape;
pub use trace::same_origin_path;

use super::error::FieldError;
use super::inputs::Inputs;

/// The permalink format this build writes and reads.
pub const VERSION: u32 = 1;

/// Hands the list of [`State`]'s parts to the macro `$then`: `State` is written from it here,
/// and the page's signals (`ui::AppState`, one per part) there, so that a new part is one
/// line of this list. `embed` and `compare` are the two fields outside it: the page keeps
/// `embed` fixed, and B's inputs while B is hidden.
macro_rules! state_parts {
    ($then:ident) => {
        $then! {
            /// `tab`: the panel on show.
            tab: $crate::model::permalink::Tab,
            /// The sector calculator's inputs.
            calc: $crate::model::inputs::Inputs,
            /// The Roofline lab: `oi`, `bw` and `trail`. The prediction in progress is not
            /// carried; a stepped prediction travels inside its trail entry.
            lab: $crate::model::roofline::Lab,
            /// `predict=1`: the calculator hides its results until the learner predicts N_tx.
            predict: bool,
            /// The probe's configuration: `strides` and `n`. Its results are never in the URL,
            /// and a link never starts the probe.
            probe: $crate::model::probe::ProbeInputs,
            /// The kernel view: `grid`, `block`, `loop`, `cache`, `flops` and the statements'
            /// `aN.*`. Its machine is the calculator's `arch`, `warp`, `sector` and `line`.
            kernel: $crate::model::kernel::KernelInputs,
            /// `kcompare`: the kernel preset shown beside the kernel view's own kernel, if any.
            kernel_compare: Option<&'static $crate::model::kernel::presets::KernelPreset>,
            /// `kmeasure`: what the kernel view's heat map and worst warps rank by; `None`: the
            /// analysis's own default (bank conflicts when the kernel has any, else sectors).
            kernel_measure: Option<$crate::model::warp::Measure>,
            /// `trace`: a trace to load from the page's own site (a relative path); empty for
            /// none.
            trace: String,
            /// `tformat`: the trace format, overriding the one detected; `None`: detect.
            trace_format: Option<$crate::model::trace::Format>,
            /// The Roofline lab's machine mode: `roofs`, `machine`, `bw.N`, `peak.N`, `pt.N`.
            roofs: $crate::model::roofline::MachineInputs,
            /// `cpreset`: the CUDA source panel's preset, whose source and launch stand where
            /// the link has no `src` (or `srcz`) and `launch`; empty for none.
            cuda_preset: String,
            /// `src`: the CUDA source panel's source as typed; empty for the default kernel
            /// (or the preset's). Its cache is the kernel view's `cache`, its machine the
            /// calculator's.
            cuda_src: String,
            /// `srcz`: the same source packed (`model::cuda::link::pack`), which the panel
            /// writes instead of `src` for a long source; empty for none.
            cuda_srcz: String,
            /// `hdrz`: the headers beside the CUDA panel's source, which its `#include "…"`
            /// lines read, packed (`model::cuda_view::pack_headers`); empty for none.
            cuda_hdrz: String,
            /// `launch`: the CUDA source panel's launch as typed; empty for the one that goes
            /// with the source (`model::cuda_view::CudaInputs::from_link`).
            cuda_launch: String,
            /// `cflops`: the CUDA source panel's FLOPs per thread, for the Roofline lab, as
            /// typed; empty for none.
            cuda_flops: String,
            /// `defines`: the CUDA source panel's defines, as nvcc's `-D` (`N=4096 B=256`),
            /// as typed; empty for none.
            cuda_defines: String,
            /// `cmeasure`: what the CUDA panel's heat map and worst warps rank by; `None`: the
            /// analysis's own default, as for `kmeasure`.
            cuda_measure: Option<$crate::model::warp::Measure>,
            /// `argv`: the arguments the CUDA panel's program runs with after its name,
            /// separated by spaces, as typed; empty for none.
            cuda_argv: String,
            /// `pick`: the launch of the CUDA panel's program on show, its index or `all`; empty
            /// when the panel runs its launch field rather than the program.
            cuda_pick: String,
        }
    };
}
// The page (wasm32 with the `ui` feature only) writes its signals from the list.
#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub(crate) use state_parts;

/// Writes [`State`] from [`state_parts!`].
macro_rules! define_state {
    ($($(#[$doc:meta])* $part:ident: $type:ty,)*) => {
        /// Everything a permalink carries.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct State {
            $($(#[$doc])* pub $part: $type,)*
            /// `embed=1`: just the panel, for an iframe in course material.
            pub embed: bool,
            /// Scenario B beside A: `compare=1` and the calculator's parameters prefixed `b.`.
            pub compare: Option<Inputs>,
        }
    };
}
state_parts!(define_state);

/// One panel's permalink parameters: which keys are its own, how its part of [`State`] is
/// read from a link and written back, and what can be wrong with them.
trait Params {
    /// Whether `key` is one of these parameters; any other key is reported as unknown.
    fn is_param(&self, key: &str) -> bool;
    /// Reads this panel's part of `state` from the link; a repeated parameter keeps its last
    /// value.
    fn decode(&self, link: &Link, state: &mut State);
    /// Writes this panel's values that differ from their defaults, in a fixed order.
    fn encode(&self, state: &State, out: &mut Vec<(String, String)>);
    /// What is wrong with one of these pairs on its own, if anything; such notices are listed
    /// in the link's order, before the notices of [`Params::warnings`].
    fn pair_warning(&self, _key: &str, _value: &str) -> Option<String> {
        None
    }
    /// Every problem with this panel's part of the decoded `state`, naming each parameter
    /// with its value as the link gave it ([`Link::shown`]).
    fn warnings(&self, _link: &Link, _state: &State, _out: &mut Vec<String>) {}
}

/// The panels, in the order their parameters are written.
const PANELS: [&dyn Params; 8] = [
    &page::Page,
    &calculator::Calculator,
    &roofline::Lab,
    &probe::Probe,
    &kernel::Kernel,
    &trace::Trace,
    &roofline::Machine,
    &cuda::Cuda,
];

/// The panels in the order their notices are listed (the permalink tests pin it): what falls
/// back to a default first, then what only the probe's form can fix.
const NOTICE_ORDER: [&dyn Params; 6] = [
    &calculator::Calculator,
    &roofline::Lab,
    &kernel::Kernel,
    &roofline::Machine,
    &cuda::Cuda,
    &probe::Probe,
];

/// A link's decoded pairs, in order.
struct Link {
    pairs: Vec<(String, String)>,
}

impl Link {
    fn new(query: &str) -> Link {
        Link { pairs: query::pairs(query).collect() }
    }

    /// Every pair, in the link's order.
    fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The value of `key` as the link gave it, the last time it gave it.
    fn shown(&self, key: &str) -> Option<String> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    fn decode(&self) -> State {
        let mut state = State::default();
        for panel in PANELS {
            panel.decode(self, &mut state);
        }
        state
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
    Link::new(query).decode()
}

/// The calculator's part of a link alone, as [`decode`] reads it: `tab`, `embed`, the
/// calculator's fields, `predict` and scenario B. Every other part stays at its default. The
/// first-result module (`src/bin/first-result.rs`) reads links with it, so that it carries
/// no other panel's parameters.
///
/// ```
/// use coalescing_lab::model::permalink::{decode, decode_calculator};
/// let query = "?tab=kernel&idx=2*t&predict=1&grid=64&b.base=8";
/// let (part, whole) = (decode_calculator(query), decode(query));
/// assert_eq!((part.tab, &part.calc, part.predict, &part.compare), (whole.tab, &whole.calc, whole.predict, &whole.compare));
/// // The kernel view's `grid` is not read.
/// assert_eq!(part.kernel, Default::default());
/// ```
pub fn decode_calculator(query: &str) -> State {
    let link = Link::new(query);
    let mut state = State::default();
    // Called directly, not through `dyn Params`: a vtable would bring every method of both.
    page::Page.decode(&link, &mut state);
    calculator::Calculator.decode(&link, &mut state);
    state
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
    let mut pairs: Vec<(String, String)> = Vec::new();
    for panel in PANELS {
        panel.encode(state, &mut pairs);
    }
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

/// Unknown parameters named one by one in the notice; the rest are counted.
const MOST_UNKNOWN_LISTED: usize = 5;

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
    let link = Link::new(query);
    let mut out = Vec::new();
    let mut unknown: Vec<&str> = Vec::new();
    let mut unnamed = 0u64;
    for (key, value) in link.pairs() {
        if key == "v" {
            out.extend(version_warning(value));
        } else if let Some(panel) = PANELS.iter().find(|p| p.is_param(key)) {
            out.extend(panel.pair_warning(key, value));
        } else if key.is_empty() {
            unnamed += 1;
        } else {
            unknown.push(key);
        }
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
    let state = link.decode();
    for panel in NOTICE_ORDER {
        panel.warnings(&link, &state, &mut out);
    }
    repeat_warnings(&link, &mut out);
    // An echoed value of thousands of characters would make a notice pages high.
    out.iter()
        .map(|w| super::format::clip_long_words(w))
        .collect()
}

/// What is wrong with `v`, if anything.
fn version_warning(value: &str) -> Option<String> {
    match value.trim().parse::<u32>() {
        Ok(VERSION) => None,
        Ok(v) if v > VERSION => Some(format!(
            "`v={v}`: this link comes from a newer Coalescing Lab; it was read as version {VERSION}, so some settings may be missing."
        )),
        _ => Some(format!(
            "`v={value}` is not a link version; the link was read as version {VERSION}."
        )),
    }
}

/// A parameter given twice is read once, the last time: say so (hostile pass L17).
fn repeat_warnings(link: &Link, out: &mut Vec<String>) {
    let mut counted: Vec<(&str, usize)> = Vec::new();
    for (key, _) in link.pairs() {
        match counted.iter_mut().find(|(k, _)| k == key) {
            Some((_, n)) => *n += 1,
            None if !key.is_empty() => counted.push((key, 1)),
            None => {}
        }
    }
    let repeated: Vec<(&str, usize)> = counted.into_iter().filter(|(_, n)| *n > 1).collect();
    for (key, n) in repeated.iter().take(MOST_UNKNOWN_LISTED) {
        let last = link.shown(key).unwrap_or_default();
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
}

/// The notice for a field in error that falls back to `fallback` ("none" when that is empty).
fn fallback_notice(param: &str, value: &str, message: &str, fallback: &str) -> String {
    let fallback = if fallback.is_empty() {
        "none"
    } else {
        fallback
    };
    format!("`{param}={value}` {message}; using {fallback}.")
}

/// The first error of each field, in the order met: a field that fails several checks, or
/// fails again after a repair, is named once.
fn first_per_field<F: PartialEq + Copy>(errors: Vec<FieldError<F>>) -> Vec<FieldError<F>> {
    let mut seen = Vec::new();
    errors
        .into_iter()
        .filter(|error| {
            let new = !seen.contains(&error.field);
            if new {
                seen.push(error.field);
            }
            new
        })
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
    let query = encode(&State { embed: false, ..state.clone() });
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
    let src = format!("{page}?{}", encode(&State { embed: true, ..state.clone() }));
    let title = match state.tab {
        Tab::Calculator => "Coalescing Lab: sector calculator",
        Tab::Roofline => "Coalescing Lab: Roofline lab",
        Tab::Probe => "Coalescing Lab: GPU probe",
        Tab::Kernel => "Coalescing Lab: kernel view",
        Tab::Trace => "Coalescing Lab: trace",
        Tab::Cuda => "Coalescing Lab: CUDA source",
    };
    format!(
        "<iframe src=\"{}\" width=\"100%\" height=\"900\" title=\"{title}\" loading=\"lazy\" style=\"border:0\"></iframe>",
        src.replace('&', "&amp;").replace('"', "&quot;")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two panels claiming one key would read it twice and word its notice by whichever panel
    // comes first: every key a full link writes belongs to exactly one panel.
    #[test]
    fn every_parameter_belongs_to_exactly_one_panel() {
        let query = "tab=kernel&embed=1&predict=1&compare=1&arch=cdna3&idx=2*t&b.base=8&oi=2&bw=80\
                     &trail=2:80&prev=1:80&strides=4,256&n=2048&grid=2&loop=0:4&a2.kind=store\
                     &kcompare=transpose-naive&trace=samples/t.txt&tformat=nvbit&machine=A100\
                     &bw.1=L2:5000&peak.1=FP64:9000&pt.1=k:1:10";
        let state = decode(query);
        let mut written = Vec::new();
        for panel in PANELS {
            panel.encode(&state, &mut written);
        }
        assert!(written.len() > 20, "{written:?}");
        for (key, _) in &written {
            let owners = PANELS.iter().filter(|p| p.is_param(key)).count();
            assert_eq!(owners, 1, "`{key}` is claimed by {owners} panels");
        }
    }
}
