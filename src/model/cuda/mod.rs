//! The CUDA front end (issue #27): CUDA C++ source as written, read into the warp core's
//! accesses. `lex` (tokens with their line and column), `pre` (the preprocessor), `parse`
//! (device code into the `ast`, host code listed and skipped), `layout` (sizes, alignments and
//! field offsets), `cint` (C++'s integer arithmetic), `error` (every error names its line and
//! column), `run` (the SIMT interpreter over the tally), `presets` and `link` (the packed
//! source). The panel's words are `model::cuda_view`.
//!
//! Pure: std, serde and miniz_oxide only.

pub mod error;
pub mod files;
pub mod lex;
mod pre;

pub use error::{CudaError, ErrorKind, Pos};
pub use layout::{base_layout, layout_of, struct_layout, FieldLayout, Layout, LayoutError};
pub use pre::{
    parse_define, parse_defines, preprocess, preprocess_files, preprocess_with, Define, Defines,
    DefinesError, Macros, Preprocessed, Replaced, ReplacedKind, MAX_TOKENS,
};
pub mod ast;
pub mod cint;
mod layout;
pub mod link;
pub mod parse;
pub mod presets;
pub mod run;
