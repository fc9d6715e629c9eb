//! Index expressions: the little C-like language a learner writes for `idx` and `active`.
//!
//! Owns parsing (with column-accurate errors) and evaluation for one lane (with lane-accurate
//! errors). Semantics are C's on signed 64-bit integers: `/` truncates toward zero, `%` takes
//! the dividend's sign, comparisons and logic yield 0 or 1, `&&`, `||` and `?:` evaluate only
//! what they need. Where C leaves behaviour undefined (overflow, division by zero, shifts out
//! of range) evaluation returns an error instead of a wrapped value.
//!
//! Two dialects share the grammar and the semantics: the calculator's, whose only name is the
//! lane id (`t` or `lane`), and the kernel view's ([`kernel`]), which adds CUDA's built-in
//! indices, the loop variable and the warp id.
//!
//! Knows nothing about lanes' addresses, sectors or fields; callers attach those.
//!
//! Split by phase: `lex` (text to tokens), `parse` (tokens to the tree), `eval` (one lane, or
//! one thread), `lanes` (a whole warp at once); `env` holds the names a dialect adds and their
//! environments; this file holds the tree, the errors and the public entry points.

mod env;
mod eval;
pub mod kernel;
mod lanes;
mod lex;
mod linear;
mod parse;

use eval::eval;
use lanes::eval_lanes_checked;
use parse::parse;

use env::{LaneVars, Var, VARS};
use std::fmt;

/// Longest accepted expression, in characters.
pub const MAX_CHARS: usize = 256;
/// Lanes [`Expr::eval_lanes`] evaluates at once: the widest warp.
pub use super::machine::LANES;
/// Deepest accepted nesting of parentheses, calls, unary operators and conditionals.
pub const MAX_DEPTH: usize = 32;

/// A parsed expression in the lane id `t`.
///
/// ```
/// use coalescing_lab::model::expr::Expr;
/// let e = Expr::parse("t < 16 ? t : 1000 + 64 * (t - 16)").unwrap();
/// assert_eq!(e.eval(3), Ok(3));
/// assert_eq!(e.eval(17), Ok(1064));
/// // Degenerate input: an empty expression is a parse error, not zero.
/// assert_eq!(Expr::parse("  ").unwrap_err().to_string(), "expression is empty");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    root: Node,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Int(i64),
    Lane,
    /// A kernel name other than the lane id; never in a calculator expression.
    Var(Var),
    Unary {
        op: UnaryOp,
        column: usize,
        operand: Box<Node>,
    },
    Binary {
        op: BinaryOp,
        column: usize,
        lhs: Box<Node>,
        rhs: Box<Node>,
    },
    Cond(Box<Node>, Box<Node>, Box<Node>),
    MinMax {
        max: bool,
        a: Box<Node>,
        b: Box<Node>,
    },
    Abs {
        column: usize,
        arg: Box<Node>,
    },
    /// A subtree that reads no lane-varying name (the lane id, `threadIdx`): the kernel view
    /// evaluates it once per warp instead of once per lane. Never in a calculator expression.
    Uniform(Box<Node>),
}

impl Node {
    /// Whether the node reads a name that differs between the lanes of a warp.
    fn varies(&self) -> bool {
        match self {
            Node::Int(_) => false,
            Node::Lane => true,
            Node::Var(var) => var.varies(),
            Node::Unary { operand, .. } => operand.varies(),
            Node::Binary { lhs, rhs, .. } => lhs.varies() || rhs.varies(),
            Node::Cond(c, a, b) => c.varies() || a.varies() || b.varies(),
            Node::MinMax { a, b, .. } => a.varies() || b.varies(),
            Node::Abs { arg, .. } => arg.varies(),
            Node::Uniform(_) => false,
        }
    }

    /// Marks every largest subtree that is the same for all lanes and is more than a leaf,
    /// so the lane-parallel evaluator computes it once.
    fn hoist_uniform(self) -> Node {
        let leaf = matches!(self, Node::Int(_) | Node::Lane | Node::Var(_));
        if leaf {
            return self;
        }
        if !self.varies() {
            return Node::Uniform(Box::new(self));
        }
        let hoist = |n: Box<Node>| Box::new(n.hoist_uniform());
        match self {
            Node::Unary { op, column, operand } => {
                Node::Unary { op, column, operand: hoist(operand) }
            }
            Node::Binary { op, column, lhs, rhs } => Node::Binary {
                op,
                column,
                lhs: hoist(lhs),
                rhs: hoist(rhs),
            },
            Node::Cond(c, a, b) => Node::Cond(hoist(c), hoist(a), hoist(b)),
            Node::MinMax { max, a, b } => Node::MinMax { max, a: hoist(a), b: hoist(b) },
            Node::Abs { column, arg } => Node::Abs { column, arg: hoist(arg) },
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

/// C's binary operators, shared by the index-expression language and the CUDA front end (whose
/// compound assignments use them too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `<=`.
    Le,
    /// `>=`.
    Ge,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `&`.
    BitAnd,
    /// `^`.
    BitXor,
    /// `|`.
    BitOr,
    /// `&&`, which evaluates its right side only for the lanes that need it.
    And,
    /// `||`, which evaluates its right side only for the lanes that need it.
    Or,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    /// C's binding strength: larger binds tighter. Ternary and unary are handled apart.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => 1,
            BinaryOp::And => 2,
            BinaryOp::BitOr => 3,
            BinaryOp::BitXor => 4,
            BinaryOp::BitAnd => 5,
            BinaryOp::Eq | BinaryOp::Ne => 6,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 7,
            BinaryOp::Shl | BinaryOp::Shr => 8,
            BinaryOp::Add | BinaryOp::Sub => 9,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 10,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Func {
    Min,
    Max,
    Abs,
}

impl Func {
    fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Abs => "abs",
        }
    }

    fn arity(self) -> usize {
        match self {
            Func::Min | Func::Max => 2,
            Func::Abs => 1,
        }
    }
}

/// Why an expression could not be parsed. Columns count characters from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ParseErrorKind {
    Empty,
    TooLong {
        chars: usize,
    },
    TooDeep {
        column: usize,
    },
    UnexpectedChar {
        column: usize,
        found: char,
    },
    UnexpectedToken {
        column: usize,
        found: String,
        expected: &'static str,
    },
    UnexpectedEnd {
        expected: &'static str,
    },
    UnknownName {
        column: usize,
        name: String,
        names: Names,
    },
    IntegerTooLarge {
        column: usize,
        text: String,
    },
    WrongArity {
        column: usize,
        func: Func,
        found: usize,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ParseErrorKind::Empty => write!(f, "expression is empty"),
            ParseErrorKind::TooLong { chars } => write!(
                f,
                "expression is {chars} characters long; at most {MAX_CHARS} are accepted"
            ),
            ParseErrorKind::TooDeep { column } => write!(
                f,
                "expression nests deeper than {MAX_DEPTH} levels at column {column}"
            ),
            ParseErrorKind::UnexpectedChar { column, found } => {
                write!(f, "unexpected character '{found}' at column {column}")
            }
            ParseErrorKind::UnexpectedToken { column, found, expected } => {
                write!(f, "expected {expected} at column {column}, found '{found}'")
            }
            ParseErrorKind::UnexpectedEnd { expected } => {
                write!(f, "expected {expected}, found end of input")
            }
            ParseErrorKind::UnknownName { column, name, names: Names::Calculator } => write!(
                f,
                "unknown name '{name}' at column {column}; use t (or lane), min, max or abs"
            ),
            ParseErrorKind::UnknownName { column, name, names: Names::Kernel } => write!(
                f,
                "unknown name '{name}' at column {column}; use threadIdx.x/.y/.z, \
                 blockIdx.x/.y/.z, blockDim.x/.y/.z, gridDim.x/.y/.z, i, lane (or t), warp, \
                 min, max or abs"
            ),
            ParseErrorKind::IntegerTooLarge { column, text } => write!(
                f,
                "integer {text} at column {column} does not fit in signed 64 bits"
            ),
            ParseErrorKind::WrongArity { column, func, found } => write!(
                f,
                "{}() at column {column} takes {} argument{}, found {found}",
                func.name(),
                func.arity(),
                if func.arity() == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// Why an expression could not be evaluated for a lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// The lane whose evaluation failed.
    pub lane: i64,
    kind: EvalErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum EvalErrorKind {
    Overflow {
        op: &'static str,
        lhs: i64,
        rhs: Option<i64>,
        column: usize,
    },
    DivisionByZero {
        op: &'static str,
        lhs: i64,
        column: usize,
    },
    ShiftOutOfRange {
        op: &'static str,
        amount: i64,
        column: usize,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lane {}: {}", self.lane, self.kind)
    }
}

impl EvalError {
    /// What went wrong, without the lane: "division by zero in 7 / 0 (column 4)". Callers that
    /// name the failing thread their own way (the kernel view) prefix it themselves.
    pub fn reason(&self) -> String {
        self.kind.to_string()
    }
}

impl fmt::Display for EvalErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EvalErrorKind::Overflow { op, lhs, rhs: Some(rhs), column } => write!(
                f,
                "{lhs} {op} {rhs} overflows signed 64 bits (column {column})"
            ),
            EvalErrorKind::Overflow { op, lhs, rhs: None, column } => {
                write!(f, "{op}({lhs}) overflows signed 64 bits (column {column})")
            }
            EvalErrorKind::DivisionByZero { op, lhs, column } => {
                write!(f, "division by zero in {lhs} {op} 0 (column {column})")
            }
            EvalErrorKind::ShiftOutOfRange { op, amount, column } => write!(
                f,
                "shift {op} {amount} is outside 0 to 63 (column {column})"
            ),
        }
    }
}

impl std::error::Error for EvalError {}

impl Expr {
    /// Parses `text`. Whitespace is free; integers are decimal or `0x` hex.
    pub fn parse(text: &str) -> Result<Expr, ParseError> {
        Ok(Expr { root: parse(text, Names::Calculator)? })
    }

    /// Evaluates the expression with `t` (and `lane`) bound to `lane`.
    pub fn eval(&self, lane: i64) -> Result<i64, EvalError> {
        eval(&self.root, lane, &[0; VARS]).map_err(|e| *e)
    }

    /// Evaluates the expression for every lane `t` whose bit is set in `mask` (lanes 0 to 63)
    /// at once, writing lane `t`'s value to `out[t]`; other entries hold unspecified values.
    ///
    /// It walks the tree once for all lanes instead of once per lane, which is what makes the
    /// calculator's analysis fast. The result is exactly the lane-by-lane one: a conditional,
    /// `&&` or `||` evaluates a branch only for the lanes that take it, and on failure the
    /// error is the one [`Expr::eval`] gives for the lowest failing lane.
    ///
    /// ```
    /// use coalescing_lab::model::expr::Expr;
    /// let e = Expr::parse("t < 2 ? 10 / t : t").unwrap();
    /// let mut out = [0; 64];
    /// e.eval_lanes(0b1110, &mut out).unwrap();
    /// assert_eq!(out[1..4], [10, 2, 3]);
    /// // Lane 0 divides by zero; the untaken branch of lanes 2 and 3 is never evaluated.
    /// let error = e.eval_lanes(0b1111, &mut out).unwrap_err();
    /// assert_eq!((error.lane, error), (0, e.eval(0).unwrap_err()));
    /// ```
    pub fn eval_lanes(&self, mask: u64, out: &mut [i64; LANES]) -> Result<(), EvalError> {
        eval_lanes_checked(&self.root, mask, out, &LaneVars::NONE).map(|_| ())
    }

    /// True when the expression is exactly the lane id, so `elem·idx(t)` reads `elem·t`.
    pub fn is_lane(&self) -> bool {
        self.root == Node::Lane
    }
}

/// Which names an expression may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Names {
    /// The calculator's: `t` and `lane`.
    Calculator,
    /// The kernel view's: CUDA's built-in indices, `i`, `lane` (or `t`) and `warp`.
    Kernel,
}
