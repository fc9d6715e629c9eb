//! An index expression as a linear form over a whole launch (#26): `c + Σ kᵥ × v` over the
//! names that vary between warps (`blockIdx`, `i`, `warp`) and between lanes (`threadIdx`, the
//! lane id), with `blockDim` and `gridDim` folded in as the constants they are.
//!
//! Found once per launch, it replaces the per-warp walk of the tree ([`super::lanes`]'s
//! `line`), which checks every node at both ends of every warp: in wasm that walk was most of
//! the kernel engine's address pass. It is exact because it is taken only when interval
//! arithmetic over the launch's ranges (every name from its least to its greatest value)
//! keeps every node of the tree within i64: then no thread's evaluation overflows at any
//! node, the expression has no other error (only `+`, `-`, unary `-` and `×` by a constant
//! are taken), and its value is the form's. Anything else keeps the tree's path.

use super::super::mul::checked_mul_i64;
use super::env::{ThreadLines, Var, WarpVars, AXES, VARS};
use super::{BinaryOp, Node, UnaryOp};

/// Each name's least and greatest value over a launch, by [`Var::slot`], and the lane id's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ranges {
    pub(crate) vars: [(i64, i64); VARS],
    pub(crate) lane: (i64, i64),
}

/// `c + Σ coef[slot] × var + lane × t`, exact over the launch it was found for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Linear {
    c: i64,
    coef: [i64; VARS],
    lane: i64,
}

/// A node's form and the interval its value lies in over the launch.
type Term = (Linear, (i128, i128));

impl Linear {
    /// The form of `node` over the launch `ranges` describes; `None` when the expression is
    /// not linear in the names, or when some node's interval leaves i64.
    pub(super) fn of(node: &Node, ranges: &Ranges) -> Option<Linear> {
        term(node, ranges).map(|(form, _)| form)
    }

    /// The value on a warp's lanes as `(base, step)`: lane `t`'s value is `base + step × t`.
    /// `lines` are the warp's `threadIdx` lines; `None` when an axis the form reads has none,
    /// or when `base` or `step` (the value extrapolated to lane 0, and its slope) leaves i64.
    #[inline]
    pub(crate) fn line(&self, vars: &WarpVars<'_>, lines: &ThreadLines) -> Option<(i64, i64)> {
        let add = |sum: i64, k: i64, v: i64| {
            if k == 0 {
                Some(sum)
            } else {
                sum.checked_add(checked_mul_i64(k, v)?)
            }
        };
        let mut base = self.c;
        let mut step = self.lane;
        for a in 0..3 {
            let k = self.coef[Var::Thread(AXES[a]).slot()];
            if k != 0 {
                let (b, s) = lines[a]?;
                base = add(base, k, b)?;
                step = add(step, k, s)?;
            }
            base = add(
                base,
                self.coef[Var::Block(AXES[a]).slot()],
                vars.block_idx[a],
            )?;
        }
        base = add(base, self.coef[Var::I.slot()], vars.i)?;
        base = add(base, self.coef[Var::Warp.slot()], vars.warp)?;
        Some((base, step))
    }
}

impl Ranges {
    /// A launch's ranges: `block` threads and `grid` blocks along each axis, `i` from the
    /// loop's least to its greatest value, `warps` warps of `width` lanes per block.
    pub(crate) fn launch(
        block: [u32; 3],
        grid: [u32; 3],
        i: (i64, i64),
        warps: u32,
        width: u32,
    ) -> Ranges {
        let mut vars = [(0, 0); VARS];
        for (a, axis) in AXES.into_iter().enumerate() {
            let (b, g) = (i64::from(block[a]), i64::from(grid[a]));
            vars[Var::Thread(axis).slot()] = (0, b - 1);
            vars[Var::Block(axis).slot()] = (0, g - 1);
            vars[Var::BlockDim(axis).slot()] = (b, b);
            vars[Var::GridDim(axis).slot()] = (g, g);
        }
        vars[Var::I.slot()] = i;
        vars[Var::Warp.slot()] = (0, i64::from(warps) - 1);
        Ranges { vars, lane: (0, i64::from(width) - 1) }
    }
}

/// Whether the interval lies within i64.
fn fits((lo, hi): (i128, i128)) -> bool {
    lo >= i128::from(i64::MIN) && hi <= i128::from(i64::MAX)
}

/// A constant's term.
fn constant(v: i64) -> Term {
    (
        Linear { c: v, coef: [0; VARS], lane: 0 },
        (i128::from(v), i128::from(v)),
    )
}

fn term(node: &Node, ranges: &Ranges) -> Option<Term> {
    let t = match node {
        Node::Int(v) => constant(*v),
        Node::Lane => {
            let (lo, hi) = ranges.lane;
            (
                Linear { c: 0, coef: [0; VARS], lane: 1 },
                (i128::from(lo), i128::from(hi)),
            )
        }
        Node::Var(var) => {
            let (lo, hi) = ranges.vars[var.slot()];
            if lo == hi {
                // blockDim and gridDim: one value over the launch.
                constant(lo)
            } else {
                let mut coef = [0; VARS];
                coef[var.slot()] = 1;
                (
                    Linear { c: 0, coef, lane: 0 },
                    (i128::from(lo), i128::from(hi)),
                )
            }
        }
        Node::Uniform(inner) => term(inner, ranges)?,
        Node::Unary { op: UnaryOp::Plus, operand, .. } => term(operand, ranges)?,
        Node::Unary { op: UnaryOp::Neg, operand, .. } => {
            let (f, (lo, hi)) = term(operand, ranges)?;
            (f.scaled(-1)?, (-hi, -lo))
        }
        Node::Binary { op, lhs, rhs, .. } => {
            let (a, (alo, ahi)) = term(lhs, ranges)?;
            let (b, (blo, bhi)) = term(rhs, ranges)?;
            match op {
                BinaryOp::Add => (a.plus(&b, 1)?, (alo + blo, ahi + bhi)),
                BinaryOp::Sub => (a.plus(&b, -1)?, (alo - bhi, ahi - blo)),
                BinaryOp::Mul => {
                    // One side a constant (its form has no name in it, whatever its interval
                    // says); the ends are within i64, so their products are within i128.
                    let (form, (lo, hi), k) = if b.is_constant() {
                        (a, (alo, ahi), b.c)
                    } else if a.is_constant() {
                        (b, (blo, bhi), a.c)
                    } else {
                        return None;
                    };
                    let k128 = i128::from(k);
                    let (x, y) = (lo * k128, hi * k128);
                    (form.scaled(k)?, (x.min(y), x.max(y)))
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    fits(t.1).then_some(t)
}

impl Linear {
    fn is_constant(&self) -> bool {
        self.lane == 0 && self.coef.iter().all(|&k| k == 0)
    }

    /// This form times `k`.
    fn scaled(&self, k: i64) -> Option<Linear> {
        let mut coef = [0; VARS];
        for (out, &c) in coef.iter_mut().zip(&self.coef) {
            *out = checked_mul_i64(c, k)?;
        }
        Some(Linear {
            c: checked_mul_i64(self.c, k)?,
            coef,
            lane: checked_mul_i64(self.lane, k)?,
        })
    }

    /// This form plus `sign` × `other`.
    fn plus(&self, other: &Linear, sign: i64) -> Option<Linear> {
        let other = other.scaled(sign)?;
        let mut coef = self.coef;
        for (out, &c) in coef.iter_mut().zip(&other.coef) {
            *out = out.checked_add(c)?;
        }
        Some(Linear {
            c: self.c.checked_add(other.c)?,
            coef,
            lane: self.lane.checked_add(other.lane)?,
        })
    }
}
