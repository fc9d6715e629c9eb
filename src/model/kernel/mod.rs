//! The kernel view's engine: a whole launch of warps, a loop and up to 8 statements, counted
//! warp instruction by warp instruction, through a cache model, into whole-kernel figures.
//!
//! - `inputs`: the parameters as typed and their checks into a [`Kernel`];
//! - `parse`: one parser per field, with its limits and messages;
//! - `launch`: threads into warps, and one warp instruction's lane addresses;
//! - `walk`: the execution order, written once;
//! - `run`: the resumable [`Job`] that feeds the walk to the warp core's tally
//!   (`model::warp`: sectors, the cache, the bank model, per-site figures), with the barrier
//!   rule;
//! - `analysis`: what a finished launch reports;
//! - `warps`: one instruction's warps, and the hand-off to the calculator;
//! - `presets`: the course's kernels;
//! - `wire`: what the panel and its Web Worker post to each other;
//! - `view`: the panel's words; `export`: its CSV exports and `compare`: its comparison
//!   sentence (both re-exported from `view`).
//!
//! The single-instruction analysis stays the unit: a launch of one warp equals the calculator,
//! in global and in shared memory.
//! Pure: std and serde only, no browser.

mod analysis;
/// The cache model is the warp core's; it was first written here.
mod compare;
mod export;
mod inputs;
mod launch;
mod parse;
pub(crate) use parse::is_bidi_control;
pub mod presets;
mod run;
pub mod view;
mod walk;
mod warps;
pub mod wire;

pub use super::warp::UNIQUE_BUDGET_BYTES;
pub use analysis::{
    Figures, HeatBands, HeatMap, KernelAnalysis, Measure, StatementFigures, WarpRow, HEAT_BANDS,
    MAX_HEAT_CELLS,
};
pub use inputs::{
    AccessKind, Kernel, KernelError, KernelField, KernelInputs, LoopRange, Machine, Statement,
    StmtField, StmtInputs, MAX_CACHE_BYTES, MAX_ITERATIONS, MAX_LANE_ACCESSES, MAX_STATEMENTS,
    MAX_THREADS_PER_BLOCK,
};
pub use run::{address_pass, analyze_kernel, Job};
pub use warps::{calculator_addrs, each_instruction, warp_rows, Executed, Pick};
