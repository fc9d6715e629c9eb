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
//! Why one file of ~1100 lines: #16 lets the expression language stay whole; if it is split,
//! it splits by phase (lex, parse, scalar evaluation, all-lanes evaluation), not by size.
//! (Now ~1250: the all-lanes evaluator grew a scalar-operand path and warp-uniform subtrees
//! for the kernel view.)

pub mod kernel;

use kernel::{LaneVars, Var, VARS};
use std::fmt;

/// Longest accepted expression, in characters.
pub const MAX_CHARS: usize = 256;
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
            Node::Unary {
                op,
                column,
                operand,
            } => Node::Unary {
                op,
                column,
                operand: hoist(operand),
            },
            Node::Binary {
                op,
                column,
                lhs,
                rhs,
            } => Node::Binary {
                op,
                column,
                lhs: hoist(lhs),
                rhs: hoist(rhs),
            },
            Node::Cond(c, a, b) => Node::Cond(hoist(c), hoist(a), hoist(b)),
            Node::MinMax { max, a, b } => Node::MinMax {
                max,
                a: hoist(a),
                b: hoist(b),
            },
            Node::Abs { column, arg } => Node::Abs {
                column,
                arg: hoist(arg),
            },
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinaryOp {
    fn symbol(self) -> &'static str {
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
    fn precedence(self) -> u8 {
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
            ParseErrorKind::UnexpectedToken {
                column,
                found,
                expected,
            } => write!(f, "expected {expected} at column {column}, found '{found}'"),
            ParseErrorKind::UnexpectedEnd { expected } => {
                write!(f, "expected {expected}, found end of input")
            }
            ParseErrorKind::UnknownName {
                column,
                name,
                names: Names::Calculator,
            } => write!(
                f,
                "unknown name '{name}' at column {column}; use t (or lane), min, max or abs"
            ),
            ParseErrorKind::UnknownName {
                column,
                name,
                names: Names::Kernel,
            } => write!(
                f,
                "unknown name '{name}' at column {column}; use threadIdx.x/.y/.z, \
                 blockIdx.x/.y/.z, blockDim.x/.y/.z, gridDim.x/.y/.z, i, lane (or t), warp, \
                 min, max or abs"
            ),
            ParseErrorKind::IntegerTooLarge { column, text } => write!(
                f,
                "integer {text} at column {column} does not fit in signed 64 bits"
            ),
            ParseErrorKind::WrongArity {
                column,
                func,
                found,
            } => write!(
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
            EvalErrorKind::Overflow {
                op,
                lhs,
                rhs: Some(rhs),
                column,
            } => write!(
                f,
                "{lhs} {op} {rhs} overflows signed 64 bits (column {column})"
            ),
            EvalErrorKind::Overflow {
                op,
                lhs,
                rhs: None,
                column,
            } => write!(f, "{op}({lhs}) overflows signed 64 bits (column {column})"),
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
        Ok(Expr {
            root: parse(text, Names::Calculator)?,
        })
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
        eval_lanes_checked(&self.root, mask, out, &LaneVars::NONE)
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

fn parse(text: &str, names: Names) -> Result<Node, ParseError> {
    let chars = text.chars().count();
    if chars > MAX_CHARS {
        return Err(ParseError {
            kind: ParseErrorKind::TooLong { chars },
        });
    }
    let tokens = tokenize(text, names)?;
    if tokens.is_empty() {
        return Err(ParseError {
            kind: ParseErrorKind::Empty,
        });
    }
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        depth: 0,
    };
    let root = parser.conditional()?;
    match parser.peek() {
        None => Ok(root),
        Some(tok) => Err(tok.unexpected("an operator or the end of the expression")),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Int(i64),
    Lane,
    Var(Var),
    Func(Func),
    /// A name that is neither `t`, `lane` nor a function: an error once parsed.
    Name(String, Names),
    Op(&'static str),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    column: usize,
}

impl Token {
    fn text(&self) -> String {
        match &self.tok {
            Tok::Int(v) => v.to_string(),
            Tok::Lane => "t".to_string(),
            Tok::Var(v) => v.name().to_string(),
            Tok::Func(f) => f.name().to_string(),
            Tok::Name(n, _) => n.clone(),
            Tok::Op(op) => (*op).to_string(),
        }
    }

    fn unexpected(&self, expected: &'static str) -> ParseError {
        ParseError {
            kind: ParseErrorKind::UnexpectedToken {
                column: self.column,
                found: self.text(),
                expected,
            },
        }
    }
}

/// Two-character operators, tried before the one-character ones so that `<<` wins over `<`.
const OPERATORS_2: [&str; 8] = ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||"];
/// One-character operators and punctuation.
const OPERATORS_1: [&str; 17] = [
    "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "!", "~", "?", ":", "(", ")", ",",
];

fn tokenize(text: &str, names: Names) -> Result<Vec<Token>, ParseError> {
    let mut tokens = Vec::new();
    // Byte offsets index `text`; `column` counts characters, as people do.
    let mut chars = text.char_indices().peekable();
    let mut column = 0;
    while let Some((start, c)) = chars.next() {
        column += 1;
        let here = column;
        let mut end = start + c.len_utf8();
        let mut extend = |chars: &mut std::iter::Peekable<std::str::CharIndices>,
                          keep: fn(char) -> bool| {
            while let Some(&(i, next)) = chars.peek() {
                if !keep(next) {
                    break;
                }
                end = i + next.len_utf8();
                column += 1;
                chars.next();
            }
        };
        if c.is_whitespace() {
            continue;
        } else if c.is_ascii_digit() {
            extend(&mut chars, |c| c.is_ascii_alphanumeric());
            tokens.push(Token {
                tok: Tok::Int(parse_int(&text[start..end], here)?),
                column: here,
            });
        } else if c.is_ascii_alphabetic() || c == '_' {
            // The kernel's names are dotted (`threadIdx.x`): there a dot joins a name.
            match names {
                Names::Calculator => extend(&mut chars, |c| c.is_ascii_alphanumeric() || c == '_'),
                Names::Kernel => extend(&mut chars, |c| {
                    c.is_ascii_alphanumeric() || c == '_' || c == '.'
                }),
            }
            let word = &text[start..end];
            let tok = match word {
                "t" | "lane" => Tok::Lane,
                "min" => Tok::Func(Func::Min),
                "max" => Tok::Func(Func::Max),
                "abs" => Tok::Func(Func::Abs),
                other => match Var::by_name(other).filter(|_| names == Names::Kernel) {
                    Some(var) => Tok::Var(var),
                    None => Tok::Name(other.to_string(), names),
                },
            };
            tokens.push(Token { tok, column: here });
        } else {
            let pair = text.get(start..start + 2);
            let op = OPERATORS_2
                .into_iter()
                .find(|op| Some(*op) == pair)
                .or_else(|| OPERATORS_1.into_iter().find(|op| op.starts_with(c)));
            let Some(op) = op else {
                return Err(ParseError {
                    kind: ParseErrorKind::UnexpectedChar {
                        column: here,
                        found: c,
                    },
                });
            };
            if op.len() == 2 {
                chars.next();
                column += 1;
            }
            tokens.push(Token {
                tok: Tok::Op(op),
                column: here,
            });
        }
    }
    Ok(tokens)
}

fn parse_int(word: &str, column: usize) -> Result<i64, ParseError> {
    let (digits, radix) = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (word, 10),
    };
    let well_formed = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
    if !well_formed {
        return Err(ParseError {
            kind: ParseErrorKind::UnexpectedToken {
                column,
                found: word.to_string(),
                expected: "an integer (decimal or 0x hex)",
            },
        });
    }
    i64::from_str_radix(digits, radix).map_err(|_| ParseError {
        kind: ParseErrorKind::IntegerTooLarge {
            column,
            text: word.to_string(),
        },
    })
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self) -> Option<&'static str> {
        match self.peek() {
            Some(Token {
                tok: Tok::Op(op), ..
            }) => Some(op),
            _ => None,
        }
    }

    fn next(&mut self, expected: &'static str) -> Result<&Token, ParseError> {
        let tok = self.tokens.get(self.pos).ok_or(ParseError {
            kind: ParseErrorKind::UnexpectedEnd { expected },
        })?;
        self.pos += 1;
        Ok(tok)
    }

    fn expect_op(&mut self, op: &'static str, expected: &'static str) -> Result<(), ParseError> {
        let tok = self.next(expected)?;
        if tok.tok == Tok::Op(op) {
            Ok(())
        } else {
            Err(tok.unexpected(expected))
        }
    }

    /// Every recursive entry point goes through here, so nesting can't exhaust the stack.
    fn nested<T>(
        &mut self,
        column: usize,
        inner: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError {
                kind: ParseErrorKind::TooDeep { column },
            });
        }
        self.depth += 1;
        let result = inner(self);
        self.depth -= 1;
        result
    }

    fn column(&self) -> usize {
        self.peek().map_or(0, |t| t.column)
    }

    /// `cond ? a : b`, right associative, below every binary operator.
    fn conditional(&mut self) -> Result<Node, ParseError> {
        let cond = self.binary(1)?;
        if self.peek_op() != Some("?") {
            return Ok(cond);
        }
        let column = self.column();
        self.pos += 1;
        self.nested(column, |p| {
            let then = p.conditional()?;
            p.expect_op(":", "':' of a conditional")?;
            let otherwise = p.conditional()?;
            Ok(Node::Cond(
                Box::new(cond),
                Box::new(then),
                Box::new(otherwise),
            ))
        })
    }

    /// Precedence climbing over the left-associative binary operators.
    fn binary(&mut self, min_precedence: u8) -> Result<Node, ParseError> {
        let mut lhs = self.unary()?;
        loop {
            let Some(op) = self.peek_op().and_then(binary_op) else {
                return Ok(lhs);
            };
            if op.precedence() < min_precedence {
                return Ok(lhs);
            }
            let column = self.column();
            self.pos += 1;
            let rhs = self.binary(op.precedence() + 1)?;
            lhs = Node::Binary {
                op,
                column,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            };
        }
    }

    fn unary(&mut self) -> Result<Node, ParseError> {
        let op = match self.peek_op() {
            Some("-") => UnaryOp::Neg,
            Some("+") => UnaryOp::Plus,
            Some("!") => UnaryOp::Not,
            Some("~") => UnaryOp::BitNot,
            _ => return self.primary(),
        };
        let column = self.column();
        self.pos += 1;
        self.nested(column, |p| {
            Ok(Node::Unary {
                op,
                column,
                operand: Box::new(p.unary()?),
            })
        })
    }

    fn primary(&mut self) -> Result<Node, ParseError> {
        const OPERAND: &str = "a number, t, a function or '('";
        let tok = self.next(OPERAND)?.clone();
        match &tok.tok {
            Tok::Int(v) => Ok(Node::Int(*v)),
            Tok::Lane => Ok(Node::Lane),
            Tok::Var(var) => Ok(Node::Var(*var)),
            Tok::Func(func) => {
                let func = *func;
                self.expect_op("(", "'(' after a function name")?;
                self.nested(tok.column, |p| p.call(func, tok.column))
            }
            Tok::Name(name, names) => Err(ParseError {
                kind: ParseErrorKind::UnknownName {
                    column: tok.column,
                    name: name.clone(),
                    names: *names,
                },
            }),
            Tok::Op("(") => self.nested(tok.column, |p| {
                let inner = p.conditional()?;
                p.expect_op(")", "')'")?;
                Ok(inner)
            }),
            Tok::Op(_) => Err(tok.unexpected(OPERAND)),
        }
    }

    fn call(&mut self, func: Func, column: usize) -> Result<Node, ParseError> {
        let mut args = Vec::new();
        if self.peek_op() != Some(")") {
            loop {
                args.push(self.conditional()?);
                if self.peek_op() != Some(",") {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect_op(")", "',' or ')' in a function call")?;
        let found = args.len();
        let mut args = args.into_iter().map(Box::new);
        match (func, args.next(), args.next(), args.next()) {
            (Func::Abs, Some(arg), None, None) => Ok(Node::Abs { column, arg }),
            (Func::Min | Func::Max, Some(a), Some(b), None) => Ok(Node::MinMax {
                max: func == Func::Max,
                a,
                b,
            }),
            _ => Err(ParseError {
                kind: ParseErrorKind::WrongArity {
                    column,
                    func,
                    found,
                },
            }),
        }
    }
}

fn binary_op(symbol: &str) -> Option<BinaryOp> {
    Some(match symbol {
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        "%" => BinaryOp::Rem,
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "<<" => BinaryOp::Shl,
        ">>" => BinaryOp::Shr,
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::Le,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::Ge,
        "==" => BinaryOp::Eq,
        "!=" => BinaryOp::Ne,
        "&" => BinaryOp::BitAnd,
        "^" => BinaryOp::BitXor,
        "|" => BinaryOp::BitOr,
        "&&" => BinaryOp::And,
        "||" => BinaryOp::Or,
        _ => return None,
    })
}

/// The error is boxed so that the common, successful result stays two words wide on every
/// level of the recursion.
/// `vars` holds the kernel names' values, indexed by [`Var::slot`]; the calculator's
/// expressions never read it.
fn eval(node: &Node, lane: i64, vars: &[i64; VARS]) -> Result<i64, Box<EvalError>> {
    let fail = |kind| Box::new(EvalError { lane, kind });
    let eval = |node| eval(node, lane, vars);
    match node {
        Node::Int(v) => Ok(*v),
        Node::Lane => Ok(lane),
        Node::Var(var) => Ok(vars[var.slot()]),
        Node::Uniform(inner) => eval(inner),
        Node::Unary {
            op,
            column,
            operand,
        } => {
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
        Node::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
            ..
        } => Ok(i64::from(eval(lhs)? != 0 && eval(rhs)? != 0)),
        Node::Binary {
            op: BinaryOp::Or,
            lhs,
            rhs,
            ..
        } => Ok(i64::from(eval(lhs)? != 0 || eval(rhs)? != 0)),
        Node::Binary {
            op,
            column,
            lhs,
            rhs,
        } => {
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

/// Lanes [`Expr::eval_lanes`] evaluates at once: the widest warp.
pub const LANES: usize = 64;

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

/// `out[t] = f(out[t], b[t])` on the lanes of `mask`; where `f` gives `None`, the lane fails
/// with the error [`binary`] names.
/// [`eval_lanes`] from a clean slate: the error of the lowest failing lane, if any.
fn eval_lanes_checked(
    node: &Node,
    mask: u64,
    out: &mut [i64; LANES],
    vars: &LaneVars,
) -> Result<(), EvalError> {
    let mut failed = Failed::default();
    eval_lanes(node, mask, out, &mut failed, vars);
    match failed.first {
        Some(error) => Err(*error),
        None => Ok(()),
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
        Node::Unary {
            op,
            column,
            operand,
        } => {
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
        Node::Binary {
            op,
            column,
            lhs,
            rhs,
        } => {
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
                BinaryOp::Mul => lanes!(|x, y| x.checked_mul(y)),
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

fn binary(op: BinaryOp, a: i64, b: i64, column: usize) -> Result<i64, EvalErrorKind> {
    let shift = |amount: i64| {
        u32::try_from(amount)
            .ok()
            .filter(|s| *s < 64)
            .ok_or(EvalErrorKind::ShiftOutOfRange {
                op: op.symbol(),
                amount,
                column,
            })
    };
    let value = match op {
        BinaryOp::Mul => a.checked_mul(b),
        BinaryOp::Div | BinaryOp::Rem if b == 0 => {
            return Err(EvalErrorKind::DivisionByZero {
                op: op.symbol(),
                lhs: a,
                column,
            })
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
