//! Evaluation for one lane (or one thread): C's semantics on signed 64 bits, with every
//! undefined case an error that names the values and the column. The binary operators' rule
//! lives here once; the all-lanes evaluator calls it for the cases it does not inline.

use super::super::mul::checked_mul_i64;
use super::env::VARS;
use super::{BinaryOp, EvalError, EvalErrorKind, Node, UnaryOp};

/// The error is boxed so that the common, successful result stays two words wide on every
/// level of the recursion.
/// `vars` holds the kernel names' values, indexed by [`Var::slot`]; the calculator's
/// expressions never read it.
pub(super) fn eval(node: &Node, lane: i64, vars: &[i64; VARS]) -> Result<i64, Box<EvalError>> {
    let fail = |kind| Box::new(EvalError { lane, kind });
    let eval = |node| eval(node, lane, vars);
    match node {
        Node::Int(v) => Ok(*v),
        Node::Lane => Ok(lane),
        Node::Var(var) => Ok(vars[var.slot()]),
        Node::Uniform(inner) => eval(inner),
        Node::Unary { op, column, operand } => {
            let v = eval(operand)?;
            Ok(match op {
                UnaryOp::Neg => v.checked_neg().ok_or_else(|| {
                    fail(EvalErrorKind::Overflow {
                        op: "-",
                        lhs: v,
                        rhs: None,
                        column: *column,
                    })
                })?,
                UnaryOp::Plus => v,
                UnaryOp::Not => i64::from(v == 0),
                UnaryOp::BitNot => !v,
            })
        }
        Node::Binary { op: BinaryOp::And, lhs, rhs, .. } => {
            Ok(i64::from(eval(lhs)? != 0 && eval(rhs)? != 0))
        }
        Node::Binary { op: BinaryOp::Or, lhs, rhs, .. } => {
            Ok(i64::from(eval(lhs)? != 0 || eval(rhs)? != 0))
        }
        Node::Binary { op, column, lhs, rhs } => {
            let (a, b) = (eval(lhs)?, eval(rhs)?);
            binary(*op, a, b, *column).map_err(fail)
        }
        Node::Cond(cond, then, otherwise) => {
            if eval(cond)? != 0 {
                eval(then)
            } else {
                eval(otherwise)
            }
        }
        Node::MinMax { max, a, b } => {
            let (a, b) = (eval(a)?, eval(b)?);
            Ok(if *max { a.max(b) } else { a.min(b) })
        }
        Node::Abs { column, arg } => {
            let v = eval(arg)?;
            v.checked_abs().ok_or_else(|| {
                fail(EvalErrorKind::Overflow {
                    op: "abs",
                    lhs: v,
                    rhs: None,
                    column: *column,
                })
            })
        }
    }
}

pub(super) fn binary(op: BinaryOp, a: i64, b: i64, column: usize) -> Result<i64, EvalErrorKind> {
    let shift = |amount: i64| {
        u32::try_from(amount)
            .ok()
            .filter(|s| *s < 64)
            .ok_or(EvalErrorKind::ShiftOutOfRange { op: op.symbol(), amount, column })
    };
    let value = match op {
        BinaryOp::Mul => checked_mul_i64(a, b),
        BinaryOp::Div | BinaryOp::Rem if b == 0 => {
            return Err(EvalErrorKind::DivisionByZero { op: op.symbol(), lhs: a, column })
        }
        // Rust's `/` and `%` truncate toward zero exactly as C99 does.
        BinaryOp::Div => a.checked_div(b),
        BinaryOp::Rem => a.checked_rem(b),
        BinaryOp::Add => a.checked_add(b),
        BinaryOp::Sub => a.checked_sub(b),
        // A left shift is multiplication by 2^b; bits shifted past the sign are overflow.
        BinaryOp::Shl => i64::try_from(i128::from(a) << shift(b)?).ok(),
        // Right shift of a negative value is arithmetic, as in C++20 and every GPU compiler.
        BinaryOp::Shr => Some(a >> shift(b)?),
        BinaryOp::Lt => Some(i64::from(a < b)),
        BinaryOp::Le => Some(i64::from(a <= b)),
        BinaryOp::Gt => Some(i64::from(a > b)),
        BinaryOp::Ge => Some(i64::from(a >= b)),
        BinaryOp::Eq => Some(i64::from(a == b)),
        BinaryOp::Ne => Some(i64::from(a != b)),
        BinaryOp::BitAnd => Some(a & b),
        BinaryOp::BitXor => Some(a ^ b),
        BinaryOp::BitOr => Some(a | b),
        BinaryOp::And => Some(i64::from(a != 0 && b != 0)),
        BinaryOp::Or => Some(i64::from(a != 0 || b != 0)),
    };
    // The error is built only when there is one: this runs for every node of every lane.
    value.ok_or_else(|| EvalErrorKind::Overflow {
        op: op.symbol(),
        lhs: a,
        rhs: Some(b),
        column,
    })
}
