//! Evaluation for a whole warp at once: one walk of the tree, each node a loop over the lanes
//! of a 64-bit mask, with the same values and the same first error as lane by lane.

use super::super::mul::checked_mul_i64;
use super::env::LaneVars;
use super::eval::{binary, eval};
use super::{BinaryOp, EvalError, EvalErrorKind, Node, UnaryOp, LANES};

/// The lanes that failed so far, and the error of the lowest one.
#[derive(Default)]
struct Failed {
    lanes: u64,
    first: Option<Box<EvalError>>,
}

impl Failed {
    /// Records lane `t`'s error, unless the lane failed before: a lane keeps its first error,
    /// and what a failed lane computes afterwards is ignored.
    #[cold]
    fn record(&mut self, t: usize, kind: EvalErrorKind) {
        let bit = 1u64 << t;
        if self.lanes & bit != 0 {
            return;
        }
        self.lanes |= bit;
        let lane = t as i64;
        if self.first.as_ref().is_none_or(|e| lane < e.lane) {
            self.first = Some(Box::new(EvalError { lane, kind }));
        }
    }
}

/// Calls `f` with each lane whose bit is set in `mask`, lowest first.
#[inline(always)]
fn each_lane(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

/// The lanes of `mask` whose value in `values` is non-zero.
fn nonzero(mask: u64, values: &[i64; LANES]) -> u64 {
    let mut set = 0;
    each_lane(mask, |t| {
        if values[t] != 0 {
            set |= 1 << t;
        }
    });
    set
}

/// [`eval_lanes`] from a clean slate: the error of the lowest failing lane, if any. When the
/// value is affine in the lane on `mask` (the fast path, [`line`]), also `(base, step)`:
/// lane `t`'s value is `base + step × t`, within i64 at every lane from the lowest of `mask`
/// to its highest.
pub(super) fn eval_lanes_checked(
    node: &Node,
    mask: u64,
    out: &mut [i64; LANES],
    vars: &LaneVars,
) -> Result<Option<(i64, i64)>, EvalError> {
    let line = eval_line_or_lanes(node, mask, out, vars)?;
    if let Some((base, step)) = line {
        // Every lane between the ends is within i64 (see `line`), so wrapping arithmetic is
        // exact.
        each_lane(mask, |t| {
            out[t] = base.wrapping_add(step.wrapping_mul(t as i64));
        });
    }
    Ok(line)
}

/// [`eval_lanes_checked`], except that when the value is affine on `mask` it returns the line
/// alone and leaves `out` as it was: the kernel engine computes the addresses from it.
pub(super) fn eval_line_or_lanes(
    node: &Node,
    mask: u64,
    out: &mut [i64; LANES],
    vars: &LaneVars,
) -> Result<Option<(i64, i64)>, EvalError> {
    if mask != 0 {
        let (first, last) = (
            i64::from(mask.trailing_zeros()),
            i64::from(63 - mask.leading_zeros()),
        );
        if let Some(line) = line(node, mask, first, last, vars) {
            return Ok(Some(line));
        }
    }
    let mut failed = Failed::default();
    eval_lanes(node, mask, out, &mut failed, vars);
    match failed.first {
        Some(error) => Err(*error),
        None => Ok(None),
    }
}

fn eval_lanes(
    node: &Node,
    mask: u64,
    out: &mut [i64; LANES],
    failed: &mut Failed,
    vars: &LaneVars,
) {
    if mask == 0 {
        return;
    }
    let eval_lanes = |node, mask, out: &mut [i64; LANES], failed: &mut Failed| {
        eval_lanes(node, mask, out, failed, vars)
    };
    match node {
        Node::Int(v) => *out = [*v; LANES],
        Node::Lane => each_lane(mask, |t| out[t] = t as i64),
        Node::Var(var) => vars.fill(*var, mask, out),
        Node::Uniform(inner) => {
            // The same for every lane: computed once, as the lowest lane would.
            let lowest = mask.trailing_zeros() as usize;
            match eval(inner, lowest as i64, &vars.uniform_slots()) {
                Ok(v) => *out = [v; LANES],
                Err(e) => each_lane(mask, |t| failed.record(t, e.kind.clone())),
            }
        }
        Node::Unary { op, column, operand } => {
            eval_lanes(operand, mask, out, failed);
            each_lane(mask, |t| {
                let v = out[t];
                out[t] = match op {
                    UnaryOp::Neg => match v.checked_neg() {
                        Some(n) => n,
                        None => {
                            failed.record(
                                t,
                                EvalErrorKind::Overflow {
                                    op: "-",
                                    lhs: v,
                                    rhs: None,
                                    column: *column,
                                },
                            );
                            v
                        }
                    },
                    UnaryOp::Plus => v,
                    UnaryOp::Not => i64::from(v == 0),
                    UnaryOp::BitNot => !v,
                }
            });
        }
        Node::Binary {
            op: op @ (BinaryOp::And | BinaryOp::Or),
            lhs,
            rhs,
            ..
        } => {
            eval_lanes(lhs, mask, out, failed);
            let left = nonzero(mask, out);
            // `&&` reads the right side only where the left is true, `||` only where false.
            let decided = if *op == BinaryOp::And {
                left
            } else {
                mask & !left
            };
            let mut b = [0; LANES];
            eval_lanes(rhs, decided, &mut b, failed);
            let right = nonzero(decided, &b);
            let truth = if *op == BinaryOp::And {
                right
            } else {
                left | right
            };
            each_lane(mask, |t| out[t] = i64::from(truth & (1 << t) != 0));
        }
        Node::Binary { op, column, lhs, rhs } => {
            // A side that is the same for every lane (a constant, or a warp-uniform subtree)
            // is one number, not a lane array: no array to fill and read back.
            let lhs_scalar = scalar(lhs, mask, failed, vars);
            let rhs_scalar = if lhs_scalar.is_none() {
                eval_lanes(lhs, mask, out, failed);
                scalar(rhs, mask, failed, vars)
            } else {
                None
            };
            let mut b = [0; LANES];
            let (a_at, b_at): (Side, Side) = match (lhs_scalar, rhs_scalar) {
                (Some(a), _) => {
                    if let Some(b_value) = scalar(rhs, mask, failed, vars) {
                        (Side::Scalar(a), Side::Scalar(b_value))
                    } else {
                        eval_lanes(rhs, mask, out, failed);
                        (Side::Scalar(a), Side::Out)
                    }
                }
                (None, Some(b_value)) => (Side::Out, Side::Scalar(b_value)),
                (None, None) => {
                    eval_lanes(rhs, mask, &mut b, failed);
                    (Side::Out, Side::B)
                }
            };
            // One loop per common operator: at the page's size-first optimisation level a
            // shared closure costs a call per lane. A failing side (`None`) leaves its lanes
            // to the error already recorded.
            macro_rules! lanes {
                (|$x:ident, $y:ident| $value:expr) => {{
                    macro_rules! each {
                        ($xs:expr, $ys:expr) => {{
                            let mut m = mask;
                            while m != 0 {
                                let t = m.trailing_zeros() as usize;
                                m &= m - 1;
                                let ($x, $y): (i64, i64) = ($xs(t), $ys(t));
                                match $value {
                                    Some(v) => out[t] = v,
                                    None => {
                                        if let Err(kind) = binary(*op, $x, $y, *column) {
                                            failed.record(t, kind);
                                        }
                                    }
                                }
                            }
                        }};
                    }
                    match (a_at, b_at) {
                        (Side::Out, Side::B) => each!(|t: usize| out[t], |t: usize| b[t]),
                        (Side::Out, Side::Scalar(Some(c))) => each!(|t: usize| out[t], |_| c),
                        (Side::Scalar(Some(c)), Side::Out) => each!(|_| c, |t: usize| out[t]),
                        (Side::Scalar(Some(c)), Side::Scalar(Some(d))) => each!(|_| c, |_| d),
                        // A side that failed has recorded its error for every lane.
                        _ => {}
                    }
                }};
            }
            match op {
                BinaryOp::Add => lanes!(|x, y| x.checked_add(y)),
                BinaryOp::Sub => lanes!(|x, y| x.checked_sub(y)),
                BinaryOp::Mul => lanes!(|x, y| checked_mul_i64(x, y)),
                BinaryOp::Lt => lanes!(|x, y| Some(i64::from(x < y))),
                BinaryOp::Gt => lanes!(|x, y| Some(i64::from(x > y))),
                // The rest share the one-lane code: they are rare in index expressions.
                _ => lanes!(|x, y| binary(*op, x, y, *column).ok()),
            }
        }
        Node::Cond(cond, then, otherwise) => {
            eval_lanes(cond, mask, out, failed);
            let taken = nonzero(mask, out);
            let mut other = [0; LANES];
            eval_lanes(otherwise, mask & !taken, &mut other, failed);
            eval_lanes(then, taken, out, failed);
            each_lane(mask & !taken, |t| out[t] = other[t]);
        }
        Node::MinMax { max, a, b } => {
            eval_lanes(a, mask, out, failed);
            let mut second = [0; LANES];
            eval_lanes(b, mask, &mut second, failed);
            each_lane(mask, |t| {
                out[t] = if *max {
                    out[t].max(second[t])
                } else {
                    out[t].min(second[t])
                }
            });
        }
        Node::Abs { column, arg } => {
            eval_lanes(arg, mask, out, failed);
            each_lane(mask, |t| match out[t].checked_abs() {
                Some(v) => out[t] = v,
                None => failed.record(
                    t,
                    EvalErrorKind::Overflow {
                        op: "abs",
                        lhs: out[t],
                        rhs: None,
                        column: *column,
                    },
                ),
            });
        }
    }
}

/// The fast path: the node's value on the lanes of `mask` (lowest `first`, highest `last`) as
/// `base + step × t`, when it is affine in the lane: constants, the lane, names that are affine
/// in it (`threadIdx.x`, and every warp-uniform name), warp-uniform subtrees, and `+`, `-`,
/// unary `-` and `×` by a side the same in every lane over those. Every node's value is
/// checked at both ends: it is affine, so if it is within i64 at `first` and at `last` it is
/// at every lane between, and the lane-by-lane path would meet no overflow either, nor any
/// other error. `None` otherwise (a node that is not affine, or an end out of range), and the
/// caller goes lane by lane.
fn line(node: &Node, mask: u64, first: i64, last: i64, vars: &LaneVars) -> Option<(i64, i64)> {
    // In i64 with checks, not i128 (a library call in wasm, as is a checked i64 multiply of
    // large operands: `model::mul`): stricter than needed when `step × t` alone overflows,
    // which only sends the node lane by lane.
    let at_ends = |(base, step): (i64, i64)| {
        let within = |t: i64| {
            checked_mul_i64(step, t)
                .and_then(|v| v.checked_add(base))
                .is_some()
        };
        (within(first) && within(last)).then_some((base, step))
    };
    let line = |node: &Node| line(node, mask, first, last, vars);
    match node {
        Node::Int(v) => Some((*v, 0)),
        Node::Lane => Some((0, 1)),
        Node::Var(var) => vars.line(*var, mask),
        // Computed once, as the lane-by-lane path computes it: as the lowest lane would.
        Node::Uniform(inner) => eval(inner, first, &vars.uniform_slots())
            .ok()
            .map(|v| (v, 0)),
        Node::Unary { op: UnaryOp::Plus, operand, .. } => line(operand),
        Node::Unary { op: UnaryOp::Neg, operand, .. } => {
            let (base, step) = line(operand)?;
            at_ends((base.checked_neg()?, step.checked_neg()?))
        }
        Node::Binary { op, lhs, rhs, .. } => {
            let (a, b) = match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => (line(lhs)?, line(rhs)?),
                _ => return None,
            };
            let r = match op {
                BinaryOp::Add => (a.0.checked_add(b.0)?, a.1.checked_add(b.1)?),
                BinaryOp::Sub => (a.0.checked_sub(b.0)?, a.1.checked_sub(b.1)?),
                BinaryOp::Mul if b.1 == 0 => {
                    (checked_mul_i64(a.0, b.0)?, checked_mul_i64(a.1, b.0)?)
                }
                BinaryOp::Mul if a.1 == 0 => {
                    (checked_mul_i64(b.0, a.0)?, checked_mul_i64(b.1, a.0)?)
                }
                _ => return None,
            };
            at_ends(r)
        }
        _ => None,
    }
}

/// Where a binary operator reads one side from, lane by lane.
#[derive(Clone, Copy)]
enum Side {
    /// The same for every lane; `None` when computing it failed (already recorded).
    Scalar(Option<i64>),
    /// The output array, holding that side's lane values.
    Out,
    /// The second array.
    B,
}

/// The node's one value for every lane of `mask`, when it has one (a constant, or a
/// warp-uniform subtree): `Some(Some(v))`, or `Some(None)` after recording, for every lane, the
/// error computing it met. `None` for a node whose value varies by lane.
fn scalar(node: &Node, mask: u64, failed: &mut Failed, vars: &LaneVars) -> Option<Option<i64>> {
    match node {
        Node::Int(v) => Some(Some(*v)),
        Node::Uniform(inner) => {
            let lowest = mask.trailing_zeros() as usize;
            Some(match eval(inner, lowest as i64, &vars.uniform_slots()) {
                Ok(v) => Some(v),
                Err(e) => {
                    each_lane(mask, |t| failed.record(t, e.kind.clone()));
                    None
                }
            })
        }
        _ => None,
    }
}
