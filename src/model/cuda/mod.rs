//! The CUDA front end (work in progress, issue #27): CUDA C++ source as written, read into the
//! warp core's accesses. This slice reads the source: `lex` (tokens with their line and
//! column), `pre` (the preprocessor), `parse` (device code into the `ast`, host code listed
//! and skipped), `layout` (sizes, alignments and field offsets), `cint` (C++'s integer arithmetic) and `error` (every error names
//! its line and column). The SIMT interpreter and the panel come next; nothing here is on the
//! page yet.
//!
//! Pure: std only.

pub mod error;
pub mod lex;
pub mod pre;

pub use error::{CudaError, ErrorKind, Pos};
pub mod ast;
pub mod cint;
pub mod layout;
pub mod link;
pub mod parse;
pub mod presets;
pub mod run;
