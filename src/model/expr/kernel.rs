//! The kernel view's dialect: the calculator's language with CUDA's built-in indices
//! (`threadIdx`, `blockIdx`, `blockDim`, `gridDim`, each `.x`, `.y` or `.z`), the loop variable
//! `i`, the lane within its warp (`lane` or `t`) and the warp within its block (`warp`).
//!
//! Owns the entry points; the names and their environments are `env`'s, the grammar, the
//! semantics and the errors the parent module's, unchanged. Knows nothing of launches,
//! statements or sectors: the kernel engine fills the values and names the failing thread.

use super::env::LaneVars;
pub(crate) use super::env::{thread_lines, ThreadLines};
pub use super::env::{ThreadVars, WarpVars};
use super::eval::eval;
use super::lanes::{eval_lanes_checked, eval_line_or_lanes};
pub(crate) use super::linear::{Linear, Ranges};
use super::parse::parse;
use super::{EvalError, Names, Node, ParseError, LANES};

/// A parsed expression in the kernel view's names.
///
/// ```
/// use coalescing_lab::model::expr::kernel::{KernelExpr, ThreadVars};
/// let e = KernelExpr::parse("blockIdx.x * blockDim.x + threadIdx.x").unwrap();
/// let thread = ThreadVars { block_idx: [2, 0, 0], block_dim: [32, 1, 1], thread_idx: [5, 0, 0], ..ThreadVars::default() };
/// assert_eq!(e.eval(&thread), Ok(69));
/// // Degenerate input: a name the kernel does not know lists the ones it does.
/// assert_eq!(
///     KernelExpr::parse("threadIdx.w").unwrap_err().to_string(),
///     "unknown name 'threadIdx.w' at column 1; use threadIdx.x/.y/.z, blockIdx.x/.y/.z, \
///      blockDim.x/.y/.z, gridDim.x/.y/.z, i, lane (or t), warp, min, max or abs"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelExpr {
    root: Node,
}

impl KernelExpr {
    /// Parses `text` with the kernel's names; otherwise exactly as [`super::Expr::parse`].
    pub fn parse(text: &str) -> Result<KernelExpr, ParseError> {
        Ok(KernelExpr {
            root: parse(text, Names::Kernel)?.hoist_uniform(),
        })
    }

    /// Evaluates the expression for one thread. An error's `lane` is `vars.lane`.
    pub fn eval(&self, vars: &ThreadVars) -> Result<i64, EvalError> {
        eval(&self.root, vars.lane, &vars.slots()).map_err(|e| *e)
    }

    /// Evaluates the expression for every lane whose bit is set in `mask` at once, as
    /// [`super::Expr::eval_lanes`] does: lane `t`'s value goes to `out[t]`, and on failure the
    /// error is the one [`KernelExpr::eval`] gives for the lowest failing lane.
    ///
    /// ```
    /// use coalescing_lab::model::expr::kernel::{KernelExpr, WarpVars};
    /// let e = KernelExpr::parse("threadIdx.y * 4096 + i / warp").unwrap();
    /// let mut thread_idx = [[0; 64]; 3];
    /// thread_idx[1][1] = 1;
    /// let vars = WarpVars { thread_idx: &thread_idx, block_idx: [0; 3], block_dim: [16, 2, 1], grid_dim: [1; 3], i: 8, warp: 2 };
    /// let mut out = [0; 64];
    /// e.eval_lanes(0b11, &vars, &mut out).unwrap();
    /// assert_eq!(out[..2], [4, 4100]);
    /// // Degenerate input: warp 0 divides by zero in every lane; the lowest lane reports it.
    /// let error = e.eval_lanes(0b110, &WarpVars { warp: 0, ..vars }, &mut out).unwrap_err();
    /// assert_eq!((error.lane, error.reason()), (1, "division by zero in 8 / 0 (column 24)".to_string()));
    /// ```
    pub fn eval_lanes(
        &self,
        mask: u64,
        vars: &WarpVars<'_>,
        out: &mut [i64; LANES],
    ) -> Result<(), EvalError> {
        eval_lanes_checked(&self.root, mask, out, &LaneVars::of_warp(vars, None)).map(|_| ())
    }

    /// The expression's linear form over the launch `ranges` describes, when it has one that
    /// is exact there ([`Linear`]).
    pub(crate) fn linear(&self, ranges: &Ranges) -> Option<Linear> {
        Linear::of(&self.root, ranges)
    }

    /// [`KernelExpr::eval_lanes`] for the kernel engine, with `threadIdx`'s lines over the
    /// warp's lanes worked out beforehand ([`thread_lines`]). When the value is affine in the
    /// lane on `mask`, returns `(base, step)` and leaves `out` as it was: lane `t`'s value is
    /// `base + step × t`, within i64 from the lowest lane of `mask` to its highest.
    pub(crate) fn eval_warp(
        &self,
        mask: u64,
        vars: &WarpVars<'_>,
        lines: &ThreadLines,
        out: &mut [i64; LANES],
    ) -> Result<Option<(i64, i64)>, EvalError> {
        eval_line_or_lanes(&self.root, mask, out, &LaneVars::of_warp(vars, Some(lines)))
    }
}
