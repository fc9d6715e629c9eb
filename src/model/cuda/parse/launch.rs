//! The launch, written as host code writes it: `name<targs><<<grid, block[, shared]>>>(args)`.
//! `grid` and `block` are integers or `dim3(x[, y[, z]])`; a pointer argument is a name, which
//! makes an allocation of its own (`name@ADDR` pins its base, `name[COUNT]` gives its length
//! in elements, `name[COUNT]=FILL` gives its data, `name+K` passes a view K elements in); a
//! scalar argument is a constant.
//!
//! Written against a file ([`parse_launch_in`]), the launch sees what host code after the
//! file's last line would see of it at compile time: its macros, its types, and its
//! `const`/`constexpr` globals.
//!
//! One idea, the launch field's grammar, kept whole: its arguments, allocations, data and the
//! file's constants it reads are one reading of one line, and the written launches of a file
//! are found by the same rules.

use super::super::ast::{Base, Expr, ExprKind, Init, Item, TemplateArg, Unit, WrittenLaunch};
use super::super::error::{CudaError, ErrorKind, Pos};
use super::super::lex::{tokenize_launch, Punct, Tok, Token};
use super::cursor::{Cursor, Names};
use std::collections::HashMap;
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
        /// `=FILL`: the data it holds before the launch.
        fill: Option<Fill>,
        /// `+K`: the view starts K elements in (may be negative with `-K`).
        offset: i64,
        /// Where the name is written in the launch.
        pos: Pos,
    },
    /// A scalar: a literal or a constant expression.
    Value(Expr),
}

/// The data an allocation holds before the launch (`name[COUNT]=FILL`), element by element in
/// the type of the kernel's parameter it is passed for. Without one, its bytes hold no data,
/// and a value loaded from them is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// `zero`: every byte 0.
    Zero,
    /// `iota`: element `k` holds `k`.
    Iota,
    /// `rand(SEED)` or `rand(SEED, BOUND)`: element `k` holds the `k`-th `rand()` after
    /// `srand(SEED)`, glibc's sequence, taken modulo `BOUND` when given (C's `rand() % BOUND`);
    /// a floating element holds `(float)rand() / RAND_MAX`, from 0 to 1.
    Rand {
        /// The seed given to `srand`.
        seed: u32,
        /// What `rand()` is taken modulo, if anything.
        bound: Option<u64>,
    },
}

impl fmt::Display for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fill::Zero => f.write_str("zero"),
            Fill::Iota => f.write_str("iota"),
            Fill::Rand { seed, bound: None } => write!(f, "rand({seed})"),
            Fill::Rand { seed, bound: Some(b) } => write!(f, "rand({seed}, {b})"),
        }
    }
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
    /// The file's macros and integer constants the launch names, with their values, in
    /// order of first use (at least 2 each): the sizes a define could shrink, for the advice
    /// past a budget.
    pub sizes: Vec<(String, u64)>,
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
    /// The data it holds before the launch, when given.
    pub fill: Option<Fill>,
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
            let LaunchArg::Buffer { name, base, count, fill, pos, .. } = arg else {
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
                    match (a.fill, fill) {
                        (Some(x), Some(y)) if x != *y => {
                            return Err(conflict("the same allocation is given two fills"))
                        }
                        (None, Some(_)) => a.fill = *fill,
                        _ => {}
                    }
                }
                None => {
                    let k = out.len() as u64;
                    out.push(Allocation {
                        name: name.clone(),
                        base: base.unwrap_or(ALLOCATION_STRIDE * (k + 1)),
                        count: *count,
                        fill: *fill,
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
    read_launch(text, None)
}

/// The file-scope constants a launch may name: each `const` or `constexpr` global that is
/// not device memory, with its value when it is an integer constant (converted to its type
/// as C converts), `None` for another (a `float`), which the run evaluates as the kernel
/// would.
pub type Constants = HashMap<String, Option<i128>>;

/// The file's constants, in file order, each initialiser seeing those before it.
///
/// ```
/// use coalescing_lab::model::cuda::parse::{parse, launch::file_constants};
/// let unit = parse("#define N (1 << 10)\nconst int DSIZE = N * 4;\nconstexpr unsigned char B = 300;\n\
///                   static const float SCALE = 2.0f;\n__device__ int counter;\n", 700).unwrap();
/// let c = file_constants(&unit);
/// assert_eq!((c["DSIZE"], c["B"], c["SCALE"]), (Some(4096), Some(44), None));
/// assert!(!c.contains_key("counter"));
/// ```
pub fn file_constants(unit: &Unit) -> Constants {
    let mut out = Constants::new();
    for item in &unit.items {
        let Item::Global(decl) = item else {
            continue;
        };
        if decl.storage.device || decl.storage.shared {
            continue;
        }
        for d in &decl.declarators {
            if !(d.ty.is_const || decl.storage.constexpr) || d.ty.pointers > 0 || !d.dims.is_empty()
            {
                continue;
            }
            let init = match &d.init {
                Some(Init::Expr(e)) => Some(e),
                Some(Init::List(v) | Init::Ctor(v)) if v.len() == 1 => v.first(),
                _ => None,
            };
            let value = init.and_then(|e| {
                let v = integer_constant(e, &|n: &str| out.get(n).copied().flatten())?;
                match d.ty.base {
                    Base::Bool => Some(i128::from(v != 0)),
                    Base::Int { bytes, signed } => Some(fit(v, bytes, signed)),
                    _ => None,
                }
            });
            out.insert(d.name.clone(), value);
        }
    }
    out
}

/// `v` converted to an integer type of `bytes` bytes, as C converts (modulo 2^bits; a
/// signed type's out-of-range value wraps, as nvcc's host compilers do).
fn fit(v: i128, bytes: u8, signed: bool) -> i128 {
    let bits = u32::from(bytes) * 8;
    let m = v.rem_euclid(1i128 << bits);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// The launches written in `tokens` (a file's, preprocessed): a kernel's name, its template
/// arguments if any, `<<<`, through the `;` that ends the statement. Each keeps its text as
/// `source` writes it, on one line.
///
/// ```
/// use coalescing_lab::model::cuda::parse::parse;
/// let unit = parse("#define N 64\n__global__ void k(int* a, int n) { }\nint main() {\n  int* d;\n  \
///                   k<<<N / 32,\n      32>>>(d, N);\n  k<<<1, 1>>>(d, 0);\n}\n", 700).unwrap();
/// let l = &unit.launches;
/// assert_eq!((l.len(), l[0].kernel.as_str(), l[0].line), (2, "k", 5));
/// assert_eq!((l[0].text.as_str(), l[1].text.as_str()), ("k<<<N / 32, 32>>>(d, N);", "k<<<1, 1>>>(d, 0);"));
/// ```
pub fn written_launches(tokens: &[Token], source: &str) -> Vec<WrittenLaunch> {
    let mut out = Vec::new();
    for at in 1..tokens.len() {
        let opens = tokens[at].tok.is(Punct::Shl)
            && tokens.get(at + 1).is_some_and(|t| t.tok.is(Punct::Lt));
        if !opens {
            continue;
        }
        // Back to the kernel's name: past its template arguments, if any.
        let mut start = at - 1;
        if tokens[start].tok.is(Punct::Gt) {
            let mut depth = 0i32;
            loop {
                match tokens[start].tok {
                    Tok::Punct(Punct::Gt) => depth += 1,
                    Tok::Punct(Punct::Shr) => depth += 2,
                    Tok::Punct(Punct::Lt) => depth -= 1,
                    _ => {}
                }
                if depth <= 0 || start == 0 {
                    break;
                }
                start -= 1;
            }
            start = start.saturating_sub(1);
        }
        let Tok::Ident(kernel) = &tokens[start].tok else {
            continue;
        };
        // `ns::k`: the whole name.
        while start >= 2
            && tokens[start - 1].tok.is(Punct::ColonColon)
            && matches!(tokens[start - 2].tok, Tok::Ident(_))
        {
            start -= 2;
        }
        let mut depth = 0i32;
        let Some(end) = (at..tokens.len()).find(|&k| {
            match tokens[k].tok {
                Tok::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                Tok::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => depth -= 1,
                _ => {}
            }
            depth < 0 || depth == 0 && tokens[k].tok.is(Punct::Semi)
        }) else {
            continue;
        };
        if !tokens[end].tok.is(Punct::Semi) {
            continue;
        }
        let first = tokens[start].tok.spelling();
        let text =
            written(source, &first, tokens[start].pos, tokens[end].pos).unwrap_or_else(|| {
                let mut t = String::new();
                for token in &tokens[start..=end] {
                    if token.space_before && !t.is_empty() {
                        t.push(' ');
                    }
                    t.push_str(&token.tok.spelling());
                }
                t
            });
        out.push(WrittenLaunch {
            kernel: kernel.clone(),
            line: tokens[at].pos.line,
            text,
        });
    }
    out
}

/// The text of `source` from `from` through the character at `to`, on one line (each run of
/// white space one space), when it is a `;`-ended statement free of comments.
fn written(source: &str, kernel: &str, from: Pos, to: Pos) -> Option<String> {
    let offset = |p: Pos| -> Option<usize> {
        let line_start = match p.line.checked_sub(2) {
            None => 0,
            Some(k) => source.match_indices('\n').nth(k as usize)?.0 + 1,
        };
        let column = source[line_start..]
            .char_indices()
            .nth((p.column as usize).checked_sub(1)?)?
            .0;
        Some(line_start + column)
    };
    let (a, b) = (offset(from)?, offset(to)?);
    let text = source.get(a..=b)?;
    if !text.starts_with(kernel)
        || !text.ends_with(';')
        || text.contains("//")
        || text.contains("/*")
        || text.contains('\\')
    {
        return None;
    }
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Reads a launch written against `unit`: its macros are expanded, and its types and
/// constants are in scope. An error names the column.
///
/// ```
/// use coalescing_lab::model::cuda::parse::{parse, launch::parse_launch_in};
/// let unit = parse("const int DSIZE = 4096;\nconst int block_size = 256;\n#define CEIL(a, b) (((a) + (b) - 1) / (b))\n\
///                   __global__ void vadd(const float* A, float* C, int ds) { }\n", 700).unwrap();
/// let l = parse_launch_in("vadd<<<(DSIZE+block_size-1)/block_size, block_size>>>(d_A, d_C, DSIZE);", &unit).unwrap();
/// assert_eq!((l.grid, l.block), ([16, 1, 1], [256, 1, 1]));
/// assert_eq!(parse_launch_in("vadd<<<CEIL(DSIZE, 128), 128>>>(d_A, d_C, DSIZE)", &unit).unwrap().grid[0], 32);
/// // A variable of the host code is not in scope.
/// assert_eq!(
///     parse_launch_in("vadd<<<blocks, 256>>>(d_A, d_C, DSIZE)", &unit).unwrap_err().to_string(),
///     "launch, column 8: expected the grid: blocks, or dim3(x, y, z), found 'blocks', which is \
///      not a #define or a constant of the file: the launch cannot see the host code's variables"
/// );
/// ```
pub fn parse_launch_in(text: &str, unit: &Unit) -> Result<Launch, LaunchError> {
    read_launch(text, Some(unit))
}

fn read_launch(text: &str, unit: Option<&Unit>) -> Result<Launch, LaunchError> {
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
    let Some(unit) = unit else {
        let names = Names::default();
        let mut c = Cursor::new(&tokens, &names);
        c.end_word = "the end of the launch";
        return c.launch().map_err(LaunchError);
    };
    let names = Names {
        types: unit.scope.types.clone(),
        templates: unit.scope.templates.clone(),
    };
    let constants = file_constants(unit);
    let sizes = sizes_named(&tokens, unit, &names, &constants);
    let tokens = unit.scope.macros.expand(tokens).map_err(LaunchError)?;
    let mut c = Cursor::new(&tokens, &names);
    c.end_word = "the end of the launch";
    c.constants = Some(&constants);
    let mut launch = c.launch().map_err(LaunchError)?;
    launch.sizes = sizes;
    Ok(launch)
}

/// The file's macros and integer constants among `tokens` (a launch's, before expansion),
/// with their values: each macro that expands to an integer constant expression, and each
/// integer constant; those of at least 2, each once, in order of first use.
fn sizes_named(
    tokens: &[Token],
    unit: &Unit,
    names: &Names,
    constants: &Constants,
) -> Vec<(String, u64)> {
    let lookup = |n: &str| constants.get(n).copied().flatten();
    let mut out: Vec<(String, u64)> = Vec::new();
    for t in tokens {
        let Tok::Ident(name) = &t.tok else {
            continue;
        };
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        let value = match lookup(name) {
            Some(v) => Some(v),
            None if unit.scope.macros.defines(name) => unit
                .scope
                .macros
                .expand(vec![t.clone()])
                .ok()
                .and_then(|body| {
                    let mut c = Cursor::new(&body, names);
                    let e = c.conditional().ok()?;
                    c.at_end().then(|| integer_constant(&e, &lookup)).flatten()
                }),
            None => None,
        };
        if let Some(v) = value
            .and_then(|v| u64::try_from(v).ok())
            .filter(|v| *v >= 2)
        {
            out.push((name.clone(), v));
        }
    }
    out
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
            sizes: Vec::new(),
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
        let constants = self.constants;
        let lookup = |n: &str| constants.and_then(|c| c.get(n).copied().flatten());
        let found = match integer_constant(&e, &lookup) {
            Some(v) => match u64::try_from(v) {
                Ok(n) => return Ok(n),
                Err(_) => v.to_string(),
            },
            None => spelling(&e, &lookup),
        };
        let unknown = |n: &str| constants.is_some_and(|c| !c.contains_key(n));
        if matches!(first_name(&e, &lookup), Some(n) if n == found && unknown(n)) {
            return Err(CudaError::new(
                pos,
                ErrorKind::NotConstant { what, name: found },
            ));
        }
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
        let constant = self
            .peek_word()
            .is_some_and(|w| self.constants.is_some_and(|c| c.contains_key(w)));
        if constant
            || matches!(
                self.peek_word(),
                Some("true" | "false" | "sizeof" | "nullptr" | "NULL")
            )
        {
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
        let fill = if self.peek_is(Punct::Assign) {
            if count.is_none() {
                return Err(CudaError::new(
                    self.pos(),
                    ErrorKind::Launch {
                        why: "an allocation given data needs its length first: name[COUNT]=iota",
                    },
                ));
            }
            self.advance();
            Some(self.fill()?)
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
        Ok(LaunchArg::Buffer { name, base, count, fill, offset, pos })
    }

    /// An allocation's data: `zero`, `iota`, `rand(SEED)` or `rand(SEED, BOUND)`.
    fn fill(&mut self) -> Result<Fill, CudaError> {
        const WHAT: &str = "the allocation's data: zero, iota, rand(SEED) or rand(SEED, BOUND)";
        let pos = self.pos();
        let (word, _) = self.ident(WHAT)?;
        match word.as_str() {
            "zero" => Ok(Fill::Zero),
            "iota" => Ok(Fill::Iota),
            "rand" => {
                self.require(Punct::LParen, "'(' and rand's seed")?;
                let at = self.pos();
                let seed = self.count("rand's seed")?;
                let seed = u32::try_from(seed).map_err(|_| {
                    CudaError::new(
                        at,
                        ErrorKind::Expected {
                            what: "rand's seed, an unsigned int",
                            found: seed.to_string(),
                        },
                    )
                })?;
                let bound = if self.eat(Punct::Comma) {
                    Some(self.extent("rand's bound, at least 1")?)
                } else {
                    None
                };
                self.require(Punct::RParen, "')' after rand's arguments")?;
                Ok(Fill::Rand { seed, bound })
            }
            _ => Err(CudaError::new(
                pos,
                ErrorKind::Expected { what: WHAT, found: word },
            )),
        }
    }
}

/// What stops an expression from being a launch's constant, for "found '…'": its first name
/// (the launch cannot see the host's variables), or its first value of another kind.
fn spelling(e: &Expr, names: &dyn Fn(&str) -> Option<i128>) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int { value, .. } => value.to_string(),
        ExprKind::Float { value, .. } => format!("{value:?}"),
        ExprKind::Unary { operand, .. } => spelling(operand, names),
        ExprKind::Binary { lhs, rhs, .. } => {
            if integer_constant(lhs, names).is_some() {
                spelling(rhs, names)
            } else {
                spelling(lhs, names)
            }
        }
        ExprKind::Cast { operand, .. } => spelling(operand, names),
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

/// The name [`spelling`] would show, if what stops `e` is a name.
fn first_name<'e>(e: &'e Expr, names: &dyn Fn(&str) -> Option<i128>) -> Option<&'e str> {
    match &e.kind {
        ExprKind::Name(n) => Some(n),
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
            first_name(operand, names)
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            if integer_constant(lhs, names).is_some() {
                first_name(rhs, names)
            } else {
                first_name(lhs, names)
            }
        }
        _ => None,
    }
}

/// The value of an integer constant expression of the launch: literals, the integer
/// constants `names` knows, `sizeof` of a scalar, vector or pointer type, casts to an
/// integer type, and C's integer operators, each step within a signed 64-bit value; `None`
/// for anything else.
fn integer_constant(e: &Expr, names: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
    use super::super::ast::{BinaryOp, UnaryOp};
    let within = |v: i128| {
        (i128::from(i64::MIN)..=i128::from(u64::MAX))
            .contains(&v)
            .then_some(v)
    };
    match &e.kind {
        ExprKind::Int { value, .. } => Some(i128::from(*value)),
        ExprKind::Name(n) => names(n),
        ExprKind::Char(c) => Some(i128::from(*c)),
        ExprKind::Bool(b) => Some(i128::from(*b)),
        ExprKind::SizeofType(t) => size_of(t),
        ExprKind::Cast { ty, operand, .. }
            if ty.pointers == 0 && matches!(ty.base, Base::Int { .. }) =>
        {
            integer_constant(operand, names)
        }
        ExprKind::Unary { op, operand } => {
            let v = integer_constant(operand, names)?;
            match op {
                UnaryOp::Neg => within(-v),
                UnaryOp::Plus => Some(v),
                UnaryOp::BitNot => within(!v),
                UnaryOp::Not => Some(i128::from(v == 0)),
                _ => None,
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (integer_constant(lhs, names)?, integer_constant(rhs, names)?);
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
            if integer_constant(cond, names)? != 0 {
                integer_constant(then, names)
            } else {
                integer_constant(otherwise, names)
            }
        }
        _ => None,
    }
}
