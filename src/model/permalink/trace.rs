//! The trace panel's parameters: `trace`, a trace to load from the page's own site, and
//! `tformat`, the format that overrides the one detected. A value that fails its check is
//! ignored, and an earlier good one stands.

use super::{Link, Params, State};
use crate::model::trace::Format;

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

/// `trace` and `tformat`.
pub(super) struct Trace;

impl Params for Trace {
    fn is_param(&self, key: &str) -> bool {
        matches!(key, "trace" | "tformat")
    }

    fn decode(&self, link: &Link, state: &mut State) {
        for (key, value) in link.pairs() {
            match key.as_str() {
                "trace" if same_origin_path(value) => state.trace = value.trim().to_string(),
                "tformat" => {
                    if let Some(format) = Format::parse(value) {
                        state.trace_format = Some(format);
                    }
                }
                _ => {}
            }
        }
    }

    fn encode(&self, state: &State, out: &mut Vec<(String, String)>) {
        if !state.trace.is_empty() {
            out.push(("trace".into(), state.trace.clone()));
        }
        if let Some(format) = state.trace_format {
            out.push(("tformat".into(), format.name().into()));
        }
    }

    fn pair_warning(&self, key: &str, value: &str) -> Option<String> {
        match key {
            "trace" if !same_origin_path(value) => Some(format!(
                "`trace={value}` is not a path on this site; a trace loads by link only from beside the app (e.g. samples/…), so it was ignored."
            )),
            "tformat" if Format::parse(value).is_none() => Some(format!(
                "`tformat={value}` is not nvbit or accelsim; the format is detected from the trace."
            )),
            _ => None,
        }
    }
}
