//! The CUDA source panel's inputs and words (issue #27): the source and the launch as typed
//! (`src`, `launch`), the kernel a page without them shows, which field a failure names, and
//! - `link`: the link's four parameters together, with a preset or a packed source;
//! - `program`: a whole program's launches, one row each, which one is shown, and all of them
//!   summed;
//! - `rows`: the access and line tables, the source view's gutter and colour bands and the
//!   whole-kernel readouts;
//! - `checks`: the race and bounds reports and the lines they mark;
//! - `export`: the CSV of the tables, as the command line writes it;
//! - `warps`: warp executions one by one (the worst, every one of a warp), each with its pass
//!   and its calculator scenario; the heat map's words and the Roofline hand-off's work;
//! - `wire`: what the panel and its Web Worker post to each other.
//!
//! The panel lays these out; it computes nothing. The model it words is `model::cuda::run`,
//! which this module reads and never changes. Only the panel reaches this module, so all of it
//! travels in the panel's chunk: the link decoder holds `src`, `srcz` and `launch` as plain
//! text.
//! Knows nothing of the browser.

use super::cuda::files::Headers;

mod checks;
mod export;
mod link;
mod program;
mod rows;
mod warps;
pub mod wire;

pub use checks::{
    checks_summary, oob_rows, problem_lines, race_rows, times, uninit_items_html, uninit_summary,
    OobRow, RaceRow, COUNTED_ANYWAY,
};
pub use export::{access_csv, figure_fields};
pub use link::{
    header_fields_html, matching_preset, pack_headers, preset_inputs, unpack_headers, CudaLink,
    HeadersError, PACK_OVER_CHARS,
};
pub use program::{
    all_launches, console_html, figures_sum, launch_options_html, launch_rows_html, launches_csv,
    program_notes_html, results_title, LaunchRow, Pick, ProgramStage, LAUNCH_HEADS,
    MAX_LAUNCH_ROWS,
};
pub use rows::{
    access_summary, assumed_note, caret, caret_in, cuda_arch, failure_field, failure_pos,
    first_missing, line_label, line_rows, notes, proposal_head, proposal_text, readouts,
    results_of, site_rows, source_lines, source_lines_in, source_view, stopped_note, Band, LineRow,
    SiteRow, SourceLine, SourceRow, EXECUTION_ORDER, SOURCE_VIEW_CONTEXT, SOURCE_VIEW_LINES,
};
pub use warps::{
    calculator_inputs, default_measure, execution_rows, heat_words, line_executions, on_line,
    pick_warp, work, ExecutionRow, PickField, CUDA_HEAT_OVER,
};

/// The kernel a page without `src` shows: a bounds-checked copy, one float per thread, so the
/// panel has figures at once.
pub const DEFAULT_SOURCE: &str = "__global__ void copy(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
";

/// The default kernel's launch: 16 blocks of 256 threads over 4096 floats.
pub const DEFAULT_LAUNCH: &str = "copy<<<16, 256>>>(out, in, 4096)";

/// The panel's text fields that a run reads, named by their URL parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CudaField {
    /// The CUDA C++ source: `src`.
    Source,
    /// The launch, as host code writes it: `launch`.
    Launch,
    /// The defines given beside the source, as nvcc's `-D`: `defines`.
    Defines,
}

impl CudaField {
    /// The URL parameter: `src`, `launch` or `defines`. A public contract, never renamed.
    pub fn param(self) -> &'static str {
        match self {
            CudaField::Source => "src",
            CudaField::Launch => "launch",
            CudaField::Defines => "defines",
        }
    }
}

/// The panel's inputs as text, exactly as typed or as found in the link.
///
/// The link carries them as typed, with an empty value for "not given": an empty `src` is the
/// default kernel ([`DEFAULT_SOURCE`]), and an empty `launch` is the launch that goes with the
/// source (the default kernel's [`DEFAULT_LAUNCH`], or none for another source, which the
/// page then proposes). So a source cleared to nothing, or the default kernel's launch
/// cleared, are not kept in the link.
///
/// ```
/// use coalescing_lab::model::cuda_view::{CudaInputs, DEFAULT_LAUNCH, DEFAULT_SOURCE};
/// let default = CudaInputs::from_link("", "");
/// assert_eq!(default, CudaInputs::default());
/// assert_eq!(default.to_link(), (String::new(), String::new()));
/// let mine = CudaInputs::from_link("__global__ void k() {}", "");
/// assert_eq!(mine.launch, "");
/// assert_eq!(CudaInputs::from_link("", "copy<<<1, 32>>>(out, in, 32)").source, DEFAULT_SOURCE);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CudaInputs {
    /// The source: `src`.
    pub source: String,
    /// The launch: `launch`.
    pub launch: String,
    /// The headers beside the source, which its `#include "…"` lines read: `hdrz`.
    pub headers: Headers,
}

impl Default for CudaInputs {
    fn default() -> CudaInputs {
        CudaInputs {
            source: DEFAULT_SOURCE.into(),
            launch: DEFAULT_LAUNCH.into(),
            headers: Headers::default(),
        }
    }
}

impl CudaInputs {
    /// The launch that goes with `source` when a link gives none: the default kernel's
    /// launch for the default source, empty for any other.
    pub fn launch_without_link(source: &str) -> &'static str {
        if source == DEFAULT_SOURCE {
            DEFAULT_LAUNCH
        } else {
            ""
        }
    }

    /// The inputs a link's `src` and `launch` stand for (each empty when not given).
    pub fn from_link(src: &str, launch: &str) -> CudaInputs {
        let source = if src.is_empty() { DEFAULT_SOURCE } else { src };
        let launch = if launch.is_empty() {
            CudaInputs::launch_without_link(source)
        } else {
            launch
        };
        CudaInputs {
            source: source.into(),
            launch: launch.into(),
            headers: Headers::default(),
        }
    }

    /// What the link carries for these inputs: `(src, launch)`, each empty where it is what
    /// an empty value stands for. `from_link` of it gives these inputs back, except for an
    /// empty source and the default kernel with an empty launch.
    pub fn to_link(&self) -> (String, String) {
        let src = if self.source == DEFAULT_SOURCE {
            String::new()
        } else {
            self.source.clone()
        };
        let launch = if self.launch == CudaInputs::launch_without_link(&self.source) {
            String::new()
        } else {
            self.launch.clone()
        };
        (src, launch)
    }

    /// The raw text of `field`; the defines are not among these inputs (empty).
    pub fn get(&self, field: CudaField) -> &str {
        match field {
            CudaField::Source => &self.source,
            CudaField::Launch => &self.launch,
            CudaField::Defines => "",
        }
    }
}
