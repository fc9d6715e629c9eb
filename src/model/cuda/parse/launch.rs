//! The launch, written as host code writes it: `name<targs><<<grid, block[, shared]>>>(args)`.
//! `grid` and `block` are integers or `dim3(x[, y[, z]])`; a pointer argument is a name, which
//! makes an allocation of its own (`name@ADDR` pins its base, `name[COUNT]` gives its length
//! in elements, `name+K` passes a view K elements in); a scalar argument is a constant.

use super::super::ast::{Expr, ExprKind, TemplateArg};
use super::super::error::{CudaError, ErrorKind, Pos};
use super::super::lex::{tokenize_launch, Punct, Tok};
use super::cursor::{Cursor, Names};
use std::fmt;

/// Where an unpinned allocation's base goes: `0x10000000 × (k + 1)` for the k-th distinct name.
pub const ALLOCATION_STRIDE: u64 = 0x1000_0000;

/// One argument of the launch.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchArg {
    /// A pointer: an allocation named `name`, or a view into one.
    Buffer {
        /// The allocation's name; the same name twice is the same allocation.
        name: String,
        /// `@ADDR`: the allocation's base, pinned.
        base: Option<u64>,
        /// `[COUNT]`: its length in elements, for the bounds checks.
        count: Option<u64>,
        /// `+K`: the view starts K elements in (may be negative with `-K`).
        offset: i64,
        /// Where the name is written in the launch.
        pos: Pos,
    },
    /// A scalar: a literal or a constant expression.
    Value(Expr),
}

/// A checked launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The kernel's name.
    pub kernel: String,
    /// Its template arguments, in order.
    pub template_args: Vec<TemplateArg>,
    /// Blocks in the grid, x, y, z.
    pub grid: [u64; 3],
    /// Threads in a block, x, y, z.
    pub block: [u64; 3],
    /// Bytes of dynamic shared memory (`extern __shared__`); 0 when not given.
    pub shared_bytes: u64,
    /// The arguments, in order.
    pub args: Vec<LaunchArg>,
    /// Whether a stream was given (`<<<grid, block, bytes, stream>>>`): it changes nothing
    /// here, where launches run one after another, and the notes say so.
    pub stream: bool,
}

/// An allocation the launch's pointer arguments name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Its name.
    pub name: String,
    /// Its base address: pinned, or `ALLOCATION_STRIDE × (k + 1)`.
    pub base: u64,
    /// Its length in elements, when declared.
    pub count: Option<u64>,
}

/// Why the launch cannot be read: what, at which column of the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchError(pub CudaError);

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "launch, column {}: {}", self.0.pos.column, self.0.kind)
    }
}

impl std::error::Error for LaunchError {}

impl Launch {
    /// The distinct allocations, in order of first appearance, each with its base.
    ///
    /// ```
    /// use coalescing_lab::model::cuda::parse::launch::parse_launch;
    /// let l = parse_launch("copy<<<4, 256>>>(out, in@0x4000[1024], out+1, 8)").unwrap();
    /// let a = l.allocations().unwrap();
    /// let bases: Vec<(&str, u64)> = a.iter().map(|a| (a.name.as_str(), a.base)).collect();
    /// assert_eq!(bases, [("out", 0x1000_0000), ("in", 0x4000)]);
    /// assert_eq!(a[1].count, Some(1024));
    /// ```
    pub fn allocations(&self) -> Result<Vec<Allocation>, LaunchError> {
        let mut out: Vec<Allocation> = Vec::new();
        for arg in &self.args {
            let LaunchArg::Buffer { name, base, count, pos, .. } = arg else {
                continue;
            };
            let conflict = |what: &'static str| {
                LaunchError(CudaError::new(*pos, ErrorKind::Launch { why: what }))
            };
            match out.iter_mut().find(|a| &a.name == name) {
                Some(a) => {
                    if base.is_some_and(|b| b != a.base) {
                        return Err(conflict("the same allocation is pinned at two bases"));
                    }
                    match (a.count, count) {
                        (Some(x), Some(y)) if x != *y => {
                            return Err(conflict("the same allocation is given two lengths"))
                        }
                        (None, Some(_)) => a.count = *count,
                        _ => {}
                    }
                }
                None => {
                    let k = out.len() as u64;
                    out.push(Allocation {
                        name: name.clone(),
                        base: base.unwrap_or(ALLOCATION_STRIDE * (k + 1)),
                        count: *count,
                    });
                }
            }
        }
        Ok(out)
    }
}

/// Reads a launch. An error names the column.
///
/// ```
/// use coalescing_lab::model::cuda::parse::launch::parse_launch;
/// let l = parse_launch("transpose<float, 32><<<dim3(32, 32), dim3(32, 8), 4096>>>(odata, idata)").unwrap();
/// assert_eq!((l.kernel.as_str(), l.grid, l.block, l.shared_bytes), ("transpose", [32, 32, 1], [32, 8, 1], 4096));
/// assert_eq!(l.template_args.len(), 2);
/// // Degenerate input: a launch without its configuration.
/// assert_eq!(parse_launch("copy(a, b)").unwrap_err().to_string(), "launch, column 5: expected '<<<' and the grid, found '('");
/// ```
pub fn parse_launch(text: &str) -> Result<Launch, LaunchError> {
    if let Some(at) = text.chars().position(|c| c == '#') {
        return Err(LaunchError(CudaError::new(
            Pos { line: 1, column: at as u32 + 1 },
            ErrorKind::UnexpectedChar('#'),
        )));
    }
    let tokens = tokenize_launch(text).map_err(LaunchError)?;
    if let Some(t) = tokens.iter().find(|t| t.pos.line > 1) {
        return Err(LaunchError(CudaError::new(
            t.pos,
            ErrorKind::Launch { why: "a launch is one line" },
        )));
    }
    let names = Names::default();
    let mut c = Cursor::new(&tokens, &names);
    c.end_word = "the end of the launch";
    c.launch().map_err(LaunchError)
}

impl Cursor<'_> {
    fn launch(&mut self) -> Result<Launch, CudaError> {
        let (kernel, _) = self.qualified_ident("the kernel's name")?;
        let template_args = if self.peek_is(Punct::Lt) {
            self.template_args()?
        } else {
            Vec::new()
        };
        if !(self.eat(Punct::Shl) && self.eat(Punct::Lt)) {
            return Err(self.expected("'<<<' and the grid"));
        }
        self.in_template_args += 1;
        let grid = self.dim("the grid: blocks, or dim3(x, y, z)")?;
        self.require(Punct::Comma, "',' and the block")?;
        let block = self.dim("the block: threads, or dim3(x, y, z)")?;
        let shared_bytes = if self.eat(Punct::Comma) {
            self.count("the bytes of dynamic shared memory")?
        } else {
            0
        };
        // A stream: any expression, read and set aside.
        let stream = self.eat(Punct::Comma);
        if stream {
            self.conditional()?;
        }
        self.in_template_args -= 1;
        if !(self.eat(Punct::Shr) && self.eat(Punct::Gt)) {
            return Err(self.expected("'>>>' after the launch's configuration"));
        }
        self.require(Punct::LParen, "'(' and the kernel's arguments")?;
        let mut args = Vec::new();
        if !self.eat(Punct::RParen) {
            loop {
                args.push(self.launch_arg()?);
                if self.eat(Punct::RParen) {
                    break;
                }
                self.require(Punct::Comma, "',' or ')' after an argument")?;
            }
        }
        // The statement's `;`, as copied from host code.
        self.eat(Punct::Semi);
        if !self.at_end() {
            return Err(self.expected("the end of the launch"));
        }
        Ok(Launch {
            kernel,
            template_args,
            grid,
            block,
            shared_bytes,
            args,
            stream,
        })
    }

    /// An integer, or `dim3(x[, y[, z]])`; each at least 1.
    fn dim(&mut self, what: &'static str) -> Result<[u64; 3], CudaError> {
        if self.eat_word("dim3") {
            self.require(Punct::LParen, "'(' after dim3")?;
            let saved = std::mem::take(&mut self.in_template_args);
            let mut dims = [1u64; 3];
            for (k, d) in dims.iter_mut().enumerate() {
                *d = self.extent(what)?;
                if self.eat(Punct::RParen) {
                    self.in_template_args = saved;
                    return Ok(dims);
                }
                if k == 2 {
                    break;
                }
                self.require(Punct::Comma, "',' or ')' in dim3(…)")?;
            }
            self.in_template_args = saved;
            return Err(self.expected("')': dim3 has at most three sizes"));
        }
        Ok([self.extent(what)?, 1, 1])
    }

    /// A constant of at least 1.
    fn extent(&mut self, what: &'static str) -> Result<u64, CudaError> {
        let pos = self.pos();
        match self.count(what)? {
            0 => Err(CudaError::new(
                pos,
                ErrorKind::Expected { what, found: "0".into() },
            )),
            n => Ok(n),
        }
    }

    /// A non-negative integer constant.
    fn count(&mut self, what: &'static str) -> Result<u64, CudaError> {
        let pos = self.pos();
        let e = self.conditional()?;
        let found = match integer_constant(&e) {
            Some(v) => match u64::try_from(v) {
                Ok(n) => return Ok(n),
                Err(_) => v.to_string(),
            },
            None => spelling(&e),
        };
        Err(CudaError::new(pos, ErrorKind::Expected { what, found }))
    }

    /// One integer literal.
    fn literal(&mut self, what: &'static str) -> Result<u64, CudaError> {
        match self.peek() {
            Some(Tok::Int { value, .. }) => {
                let v = *value as u64;
                self.advance();
                Ok(v)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A pointer argument `name[@ADDR][[COUNT]][+K]`, or a constant.
    fn launch_arg(&mut self) -> Result<LaunchArg, CudaError> {
        let Some(Tok::Ident(_)) = self.peek() else {
            return Ok(LaunchArg::Value(self.assignment()?));
        };
        if matches!(
            self.peek_word(),
            Some("true" | "false" | "sizeof" | "nullptr" | "NULL")
        ) {
            return Ok(LaunchArg::Value(self.assignment()?));
        }
        let (name, pos) = self.ident("an allocation's name")?;
        let base = if self.eat(Punct::At) {
            Some(self.literal("the allocation's base address")?)
        } else {
            None
        };
        let count = if self.eat(Punct::LBracket) {
            let n = self.count("the allocation's length in elements")?;
            self.require(Punct::RBracket, "']' after the length")?;
            Some(n)
        } else {
            None
        };
        let offset = if self.eat(Punct::Plus) {
            i64::try_from(self.literal("the view's offset in elements")?).unwrap_or(i64::MAX)
        } else if self.eat(Punct::Minus) {
            -i64::try_from(self.literal("the view's offset in elements")?).unwrap_or(i64::MAX)
        } else {
            0
        };
        Ok(LaunchArg::Buffer { name, base, count, offset, pos })
    }
}

/// What stops an expression from being a launch's constant, for "found '…'": its first name
/// (the launch cannot see the host's variables), or its first value of another kind.
fn spelling(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int { value, .. } => value.to_string(),
        ExprKind::Float { value, .. } => format!("{value:?}"),
        ExprKind::Unary { operand, .. } => spelling(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            if integer_constant(lhs).is_some() {
                spelling(rhs)
            } else {
                spelling(lhs)
            }
        }
        ExprKind::Cast { operand, .. } => spelling(operand),
        ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => {
            "the size of a type this launch does not know".into()
        }
        _ => "an expression that is not an integer constant".into(),
    }
}

/// The bytes of a scalar, vector or pointer type, as `sizeof` gives them; `None` for a type
/// the launch cannot know (a struct or typedef of the source).
fn size_of(t: &super::super::ast::Type) -> Option<i128> {
    use super::super::ast::Base;
    if t.pointers > 0 {
        return Some(8);
    }
    fn base(b: &Base) -> Option<i128> {
        match b {
            Base::Bool => Some(1),
            Base::Int { bytes, .. } => Some(i128::from(*bytes)),
            Base::Float => Some(4),
            Base::Double => Some(8),
            Base::Vector { elem, lanes } => Some(base(elem)? * i128::from(*lanes)),
            Base::Dim3 => Some(12),
            _ => None,
        }
    }
    base(&t.base)
}

/// The value of an integer constant expression of the launch: literals, `sizeof` of a
/// scalar, vector or pointer type, casts to an integer type, and C's integer operators, each
/// step within a signed 64-bit value; `None` for anything else.
fn integer_constant(e: &Expr) -> Option<i128> {
    use super::super::ast::{Base, BinaryOp, UnaryOp};
    let within = |v: i128| {
        (i128::from(i64::MIN)..=i128::from(u64::MAX))
            .contains(&v)
            .then_some(v)
    };
    match &e.kind {
        ExprKind::Int { value, .. } => Some(i128::from(*value)),
        ExprKind::Char(c) => Some(i128::from(*c)),
        ExprKind::Bool(b) => Some(i128::from(*b)),
        ExprKind::SizeofType(t) => size_of(t),
        ExprKind::Cast { ty, operand, .. }
            if ty.pointers == 0 && matches!(ty.base, Base::Int { .. }) =>
        {
            integer_constant(operand)
        }
        ExprKind::Unary { op, operand } => {
            let v = integer_constant(operand)?;
            match op {
                UnaryOp::Neg => within(-v),
                UnaryOp::Plus => Some(v),
                UnaryOp::BitNot => within(!v),
                UnaryOp::Not => Some(i128::from(v == 0)),
                _ => None,
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (integer_constant(lhs)?, integer_constant(rhs)?);
            let shift = || u32::try_from(b).ok().filter(|b| *b < 64);
            within(match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a.checked_mul(b)?,
                BinaryOp::Div => a.checked_div(b)?,
                BinaryOp::Rem => a.checked_rem(b)?,
                BinaryOp::Shl => a.checked_shl(shift()?)?,
                BinaryOp::Shr => a >> shift()?,
                BinaryOp::BitAnd => a & b,
                BinaryOp::BitOr => a | b,
                BinaryOp::BitXor => a ^ b,
                _ => return None,
            })
        }
        ExprKind::Cond { cond, then, otherwise } => {
            if integer_constant(cond)? != 0 {
                integer_constant(then)
            } else {
                integer_constant(otherwise)
            }
        }
        _ => None,
    }
}
