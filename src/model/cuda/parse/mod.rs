//! A whole `.cu` file: the preprocessed tokens are cut into top-level items by their braces,
//! and each item is parsed on its own, so that one outside the subset is noted, not fatal.
//! Device items become the kernels' unit; host functions are read apart, for a program's run
//! (their errors kept until it asks), and other host items are listed and skipped. One idea:
//! the file cut into items, each read as what it is.
//!
//! - `cursor`: the token cursor and the names known to be types or templates;
//! - `types`: declaration specifiers, declarators and template arguments;
//! - `expr`: expressions, with C++ precedence;
//! - `stmt`: statements;
//! - `launch`: the launch as host code writes it, `name<…><<<grid, block>>>(args)`;
//! - this file: items (functions, structs, aliases, globals) and the cutting.

mod cursor;

/// The built-in type one name spells (`int4`, `uint32_t`, `dim3`, …), for `make_int4` and kin.
pub(crate) use cursor::builtin as builtin_type;
mod expr;
pub mod launch;
mod stmt;
mod types;

use super::ast::{FileScope, Function, Item, Member, Skipped, Spaces, StructDef, Unit};
use super::error::{CudaError, ErrorKind};
use super::files::Sources;
use super::lex::{tokenize, Punct, Tok, Token};
use super::pre::{preprocess_files, Defines};
use cursor::{Cursor, Names};
use std::ops::Range;

/// Reads `source` for a device of `arch` (`__CUDA_ARCH__`, e.g. 700). Lexing and
/// preprocessing errors stop it; a device item outside the subset is listed in
/// [`Unit::skipped`] with its error.
///
/// ```
/// use coalescing_lab::model::cuda::parse::parse;
/// let unit = parse("#include <cstdio>\n__global__ void copy(float* out, const float* in) {\n\
///     int i = blockIdx.x * blockDim.x + threadIdx.x;\n    out[i] = in[i];\n}\n\
///     int main() { copy<<<1, 32>>>(0, 0); }\n", 700).unwrap();
/// let kernel = unit.kernels().next().unwrap();
/// assert_eq!((kernel.name.as_str(), kernel.params.len(), kernel.body.len()), ("copy", 2, 2));
/// assert_eq!(format!("{:?}", unit.skipped), r#"[Host { name: "main", line: 6 }]"#);
/// ```
pub fn parse(source: &str, arch: u32) -> Result<Unit, CudaError> {
    parse_with(source, arch, &Defines::default())
}

/// Reads `source` as [`parse`] does, with `defines` given beside it (as nvcc's `-D`).
pub fn parse_with(source: &str, arch: u32, defines: &Defines) -> Result<Unit, CudaError> {
    parse_files(source, arch, defines, Sources::single())
}

/// Reads `source` as [`parse_with`] does, its `#include "…"` lines read from `sources`.
pub fn parse_files(
    source: &str,
    arch: u32,
    defines: &Defines,
    sources: Sources<'_>,
) -> Result<Unit, CudaError> {
    let pre = preprocess_files(tokenize(source)?, arch, defines, sources)?;
    let tokens = pre.tokens;
    let mut ranges = Vec::new();
    cut(&tokens, 0..tokens.len(), &mut ranges);
    let names = Names::collect(&tokens, &ranges);
    let mut unit = Unit {
        items: Vec::new(),
        skipped: Vec::new(),
        includes: pre.includes,
        files: pre.files,
        scope: FileScope {
            macros: pre.macros,
            types: names.types.clone(),
            templates: names.templates.clone(),
        },
        launches: launch::written_launches(&tokens, source),
        replaced: pre.replaced,
        host: Vec::new(),
        host_unread: Vec::new(),
    };
    for range in ranges {
        item(&tokens[range], &names, &mut unit);
    }
    Ok(unit)
}

/// Cuts `tokens[range]` into top-level items: up to a `;` at depth 0, or through a function
/// body's `}`. Namespaces and `extern "C"` blocks are opened and their items cut in turn.
fn cut(tokens: &[Token], range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let mut at = range.start;
    while at < range.end {
        let start = at;
        let tok = &tokens[at].tok;
        // `namespace n { … }`, `namespace { … }`, `extern "C" { … }`: their items.
        let opens = match (tok.ident(), tokens.get(at + 1).map(|t| &t.tok)) {
            (Some("namespace"), Some(Tok::Punct(Punct::LBrace))) => Some(at + 1),
            (Some("namespace"), Some(Tok::Ident(_)))
                if tokens.get(at + 2).is_some_and(|t| t.tok.is(Punct::LBrace)) =>
            {
                Some(at + 2)
            }
            (Some("extern"), Some(Tok::Str(_)))
                if tokens.get(at + 2).is_some_and(|t| t.tok.is(Punct::LBrace)) =>
            {
                Some(at + 2)
            }
            _ => None,
        };
        if let Some(open) = opens {
            let close = matching(tokens, open, range.end);
            cut(tokens, open + 1..close, out);
            at = close + 1;
            continue;
        }
        if tok.is(Punct::Semi) {
            at += 1;
            continue;
        }
        let aggregate = is_aggregate_head(tokens, start, range.end);
        let mut end = range.end;
        while at < range.end {
            let t = &tokens[at].tok;
            if t.is(Punct::Semi) {
                end = at + 1;
                break;
            }
            if t.is(Punct::LParen) || t.is(Punct::LBracket) {
                at = matching(tokens, at, range.end) + 1;
                continue;
            }
            if t.is(Punct::LBrace) {
                let close = matching(tokens, at, range.end);
                let previous = at.checked_sub(1).map(|p| &tokens[p].tok);
                let initialiser =
                    previous.is_some_and(|p| p.is(Punct::Assign) || p.is(Punct::Comma));
                at = close + 1;
                if aggregate || initialiser {
                    continue;
                }
                // A function body: the item ends at its brace.
                end = at;
                break;
            }
            at += 1;
        }
        out.push(start..end.min(range.end));
        at = end.max(start + 1);
    }
}

/// Whether the item at `start` declares a struct, class, union or enum with a body (so its
/// `{…}` is not a function's, and the item runs to the `;`).
fn is_aggregate_head(tokens: &[Token], start: usize, end: usize) -> bool {
    let mut at = start;
    let mut depth = 0i32;
    while at < end {
        match &tokens[at].tok {
            Tok::Punct(Punct::Lt) => depth += 1,
            Tok::Punct(Punct::Gt) => depth -= 1,
            Tok::Punct(Punct::Shr) => depth -= 2,
            Tok::Punct(Punct::LParen | Punct::LBrace | Punct::Semi | Punct::Assign)
                if depth <= 0 =>
            {
                return false
            }
            Tok::Ident(k)
                if depth <= 0 && matches!(k.as_str(), "struct" | "class" | "union" | "enum") =>
            {
                // `struct S {` or `struct S : base {`, not `struct S* f(…) {`.
                let mut k = at + 1;
                while k < end && !tokens[k].tok.is(Punct::LParen) && !tokens[k].tok.is(Punct::Semi)
                {
                    if tokens[k].tok.is(Punct::LBrace) {
                        return true;
                    }
                    k += 1;
                }
                return false;
            }
            _ => {}
        }
        at += 1;
    }
    false
}

/// The index of the bracket that closes the one at `open`, or `end − 1` when none does.
fn matching(tokens: &[Token], open: usize, end: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().take(end).skip(open) {
        match t.tok {
            Tok::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            Tok::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    end.saturating_sub(1)
}

/// What an item's head says before it is parsed: its execution spaces, and the name before
/// its first `(` when it is a function.
struct Head {
    spaces: Spaces,
    device_variable: bool,
    function: Option<String>,
    keyword: Option<String>,
}

fn head(tokens: &[Token]) -> Head {
    let mut h = Head {
        spaces: Spaces::default(),
        device_variable: false,
        function: None,
        keyword: tokens
            .first()
            .and_then(|t| t.tok.ident())
            .map(str::to_string),
    };
    let mut previous: Option<&str> = None;
    let mut depth = 0i32;
    for t in tokens {
        match &t.tok {
            Tok::Ident(name) => {
                match name.as_str() {
                    "__global__" => h.spaces.global = true,
                    "__device__" => h.spaces.device = true,
                    "__host__" => h.spaces.host = true,
                    "__constant__" | "__shared__" | "__managed__" => h.device_variable = true,
                    _ => {}
                }
                previous = Some(name);
            }
            Tok::Punct(Punct::Lt) => depth += 1,
            Tok::Punct(Punct::Gt) => depth -= 1,
            Tok::Punct(Punct::LParen) if depth <= 0 => {
                h.function = previous.map(str::to_string);
                break;
            }
            Tok::Punct(Punct::Assign | Punct::LBrace | Punct::Semi) if depth <= 0 => break,
            _ => previous = None,
        }
    }
    h
}

/// Parses one item into `unit`: device code into an item (or its error into `skipped`),
/// host code into `skipped`.
fn item(tokens: &[Token], names: &Names, unit: &mut Unit) {
    let Some(first) = tokens.first() else {
        return;
    };
    let line = first.pos.line;
    let h = head(tokens);
    let keyword = h.keyword.as_deref();
    let device = h.spaces.global || h.spaces.device;
    // A template is a type unless it is a function: a host function template, or an explicit
    // instantiation (`template void f<int>(…);`), is host code.
    let host_template = keyword == Some("template") && h.function.is_some() && !device;
    let declares_type = !host_template
        && matches!(
            keyword,
            Some(
                "struct"
                    | "class"
                    | "typedef"
                    | "using"
                    | "template"
                    | "union"
                    | "enum"
                    | "namespace"
            )
        );
    if matches!(keyword, Some("using"))
        && tokens.get(1).and_then(|t| t.tok.ident()) == Some("namespace")
    {
        return; // `using namespace std;`: nothing to read.
    }
    let plain_const = tokens
        .iter()
        .take_while(|t| !t.tok.is(Punct::Assign) && !t.tok.is(Punct::Semi))
        .any(|t| matches!(t.tok.ident(), Some("const" | "constexpr")));
    if !(device || declares_type || h.device_variable || plain_const && h.function.is_none()) {
        match h.function {
            Some(name) => {
                host_function(tokens, names, unit, &name);
                unit.skipped.push(Skipped::Host { name, line });
            }
            None => unit.skipped.push(Skipped::HostDecl { line }),
        }
        return;
    }
    let mut c = Cursor::new(tokens, names);
    let parsed = c.item();
    match parsed {
        Ok(Some(item)) => unit.items.push(item),
        Ok(None) => {}
        Err(error) => {
            // Types are device code too: a kernel may need them.
            let name = h
                .function
                .or_else(|| declared_type(tokens))
                .unwrap_or_else(|| "a declaration".into());
            if device || declares_type || h.device_variable || plain_const {
                unit.skipped.push(Skipped::Unread { name, error });
            } else {
                unit.skipped.push(Skipped::HostDecl { line });
            }
        }
    }
}

/// Reads a host function for the program's run: into [`Unit::host`], or its error into
/// [`Unit::host_unread`]. A declaration without a body is left out.
fn host_function(tokens: &[Token], names: &Names, unit: &mut Unit, name: &str) {
    let mut c = Cursor::new(tokens, names);
    c.host = true;
    match c.item() {
        Ok(Some(Item::Function(f))) if !f.body.is_empty() || f.name == "main" => unit.host.push(f),
        Ok(_) => {}
        Err(error) => unit.host_unread.push((name.to_string(), error)),
    }
}

/// The name a struct or class item declares, if it says.
fn declared_type(tokens: &[Token]) -> Option<String> {
    let at = tokens
        .iter()
        .position(|t| matches!(t.tok.ident(), Some("struct" | "class")))?;
    tokens
        .get(at + 1)
        .and_then(|t| t.tok.ident())
        .map(str::to_string)
}

impl Cursor<'_> {
    /// One item: `template <…>` then a struct, a function or an alias; or a global.
    fn item(&mut self) -> Result<Option<Item>, CudaError> {
        let template = if self.eat_word("template") {
            Some(self.template_params()?)
        } else {
            None
        };
        match self.peek_word() {
            Some("struct" | "class") => {
                let s = self.struct_def(template)?;
                self.eat(Punct::Semi);
                return Ok(Some(Item::Struct(s)));
            }
            Some("union") => return Err(self.unsupported("a union")),
            Some("enum") => return Err(self.unsupported("an enum")),
            Some("typedef") => {
                self.advance();
                if self.peek_word() == Some("struct") && self.struct_body_ahead() {
                    // `typedef struct [Name] { … } Alias;`: the struct, named by its alias.
                    let mut s = self.struct_def(template)?;
                    let (alias, pos) = self.ident("the typedef's name")?;
                    self.require(Punct::Semi, "';' after the typedef")?;
                    s.name = alias;
                    s.pos = pos;
                    return Ok(Some(Item::Struct(s)));
                }
                let (_, ty) = self.specifiers()?;
                if self.peek_is(Punct::LParen) {
                    return Err(self.unsupported("a function pointer"));
                }
                let d = self.declarator(ty)?;
                self.require(Punct::Semi, "';' after the typedef")?;
                return Ok(Some(Item::Alias { name: d.name, ty: d.ty, pos: d.pos }));
            }
            Some("using") => {
                self.advance();
                let (name, pos) = self.ident("a name after 'using'")?;
                if self.eat(Punct::Assign) {
                    let ty = self.type_name()?;
                    self.require(Punct::Semi, "';' after the alias")?;
                    return Ok(Some(Item::Alias { name, ty, pos }));
                }
                // `using std::min;`: a name brought in, nothing to read.
                self.skip_to_end();
                return Ok(None);
            }
            Some("namespace") => {
                // `namespace cg = cooperative_groups;`: names resolve without it.
                self.skip_to_end();
                return Ok(None);
            }
            _ => {}
        }
        let start = self.at;
        let (storage, spaces, ty) = self.item_specifiers()?;
        // A function: its name, then `(`.
        if self.is_function_ahead() {
            let f = self.function_rest(template, spaces, ty, start)?;
            return Ok(Some(Item::Function(f)));
        }
        let mut storage = storage;
        // `__device__` on a variable: device memory of its own.
        storage.device |= spaces.device;
        let decl = self.declaration_rest(storage, ty, start)?;
        Ok(Some(Item::Global(decl)))
    }

    /// Whether `struct [attributes] [Name] {` comes next.
    fn struct_body_ahead(&self) -> bool {
        let mut k = 1;
        while let Some(t) = self.peek_at(k) {
            match t {
                Tok::Punct(Punct::LBrace) => return true,
                Tok::Punct(Punct::Semi | Punct::Star) => return false,
                _ => k += 1,
            }
        }
        false
    }

    /// `struct [__align__(n)] [Name] [<args>] { members };`
    fn struct_def(
        &mut self,
        template: Option<Vec<super::ast::TemplateParam>>,
    ) -> Result<StructDef, CudaError> {
        self.advance(); // struct or class
        while matches!(
            self.peek_word(),
            Some("__align__" | "alignas" | "__attribute__")
        ) {
            self.advance();
            if self.peek_is(Punct::LParen) {
                self.skip_parens();
            }
        }
        let (name, pos) = if self.peek_is(Punct::LBrace) {
            (String::new(), self.pos())
        } else {
            self.ident("the struct's name")?
        };
        let specialises = if self.peek_is(Punct::Lt) {
            Some(self.template_args()?)
        } else {
            None
        };
        if self.peek_is(Punct::Colon) {
            return Err(self.unsupported("inheritance"));
        }
        self.require(Punct::LBrace, "'{' and the struct's members")?;
        let mut members = Vec::new();
        while !self.eat(Punct::RBrace) {
            if self.at_end() {
                return Err(self.expected("'}' to close the struct"));
            }
            if let Some(m) = self.member(&name)? {
                members.push(m);
            }
        }
        Ok(StructDef {
            name,
            pos,
            template,
            specialises,
            members,
        })
    }

    /// One member: a field, a method, a constructor or a conversion operator; `None` for an
    /// access label or a host-only method (skipped).
    fn member(&mut self, owner: &str) -> Result<Option<Member>, CudaError> {
        if matches!(self.peek_word(), Some("public" | "private" | "protected"))
            && self.peek_at_is(1, Punct::Colon)
        {
            self.advance();
            self.advance();
            return Ok(None);
        }
        if self.eat(Punct::Semi) {
            return Ok(None);
        }
        if self.peek_word() == Some("virtual") {
            return Err(self.unsupported("a virtual function"));
        }
        let template = if self.eat_word("template") {
            Some(self.template_params()?)
        } else {
            None
        };
        let start = self.at;
        let (storage, spaces, ty) = self.member_specifiers(owner)?;
        let device = spaces.device || spaces.global;
        // `operator T()`; `operator+` and the like are refused.
        if self.peek_word() == Some("operator") && matches!(self.peek_at(1), Some(Tok::Punct(_))) {
            return Err(self.unsupported("an overloaded operator"));
        }
        if self.eat_word("operator") {
            let target = self.type_name()?;
            let f = self.function_rest_named(template, spaces, target, "operator".into(), start)?;
            return Ok(device.then_some(Member::Conversion(f)));
        }
        // A constructor: the struct's name, then `(`.
        if matches!(ty.base, super::ast::Base::Named { ref name, .. } if name == owner)
            && self.peek_is(Punct::LParen)
        {
            let f = self.function_rest_named(template, spaces, ty, owner.to_string(), start)?;
            return Ok(device.then_some(Member::Ctor(f)));
        }
        if self.is_function_ahead() {
            let f = self.function_rest(template, spaces, ty, start)?;
            return Ok(device.then_some(Member::Method(f)));
        }
        let decl = self.declaration_rest(storage, ty, start)?;
        Ok(Some(Member::Field(decl)))
    }

    /// After a function's specifiers and return type: its name, parameters and body.
    fn function_rest(
        &mut self,
        template: Option<Vec<super::ast::TemplateParam>>,
        spaces: Spaces,
        ret: super::ast::Type,
        start: usize,
    ) -> Result<Function, CudaError> {
        let ret = self.pointer_suffix(ret);
        if self.peek_word() == Some("operator") {
            return Err(self.unsupported("an overloaded operator"));
        }
        let (name, _) = self.qualified_ident("the function's name")?;
        if name.contains("operator") {
            return Err(self.unsupported("an overloaded operator"));
        }
        self.function_rest_named(template, spaces, ret, name, start)
    }

    fn function_rest_named(
        &mut self,
        template: Option<Vec<super::ast::TemplateParam>>,
        spaces: Spaces,
        ret: super::ast::Type,
        name: String,
        start: usize,
    ) -> Result<Function, CudaError> {
        let pos = self.pos_at(start);
        let specialises = if self.peek_is(Punct::Lt) {
            Some(self.template_args()?)
        } else {
            None
        };
        let params = self.params()?;
        // Trailing qualifiers: `const`, `noexcept`.
        while self.eat_word("const") || self.eat_word("noexcept") {}
        // A constructor's member initialisers: each `field(args)` or `field{args}` becomes
        // an assignment at the start of the body, in the order written.
        let mut inits = Vec::new();
        if self.eat(Punct::Colon) {
            loop {
                let (field, at) = self.ident("a member to initialise")?;
                let items = if self.eat(Punct::LParen) {
                    self.list_rest(Punct::RParen)?
                } else if self.eat(Punct::LBrace) {
                    self.list_rest(Punct::RBrace)?
                } else {
                    return Err(self.expected("'(' or '{' and the member's initialiser"));
                };
                let rhs = match <[super::ast::Expr; 1]>::try_from(items) {
                    Ok([one]) => one,
                    Err(items) => super::ast::Expr {
                        kind: super::ast::ExprKind::InitList { ty: None, items },
                        pos: at,
                    },
                };
                let lhs = super::ast::Expr {
                    kind: super::ast::ExprKind::Name(field),
                    pos: at,
                };
                inits.push(super::ast::Stmt {
                    kind: super::ast::StmtKind::Expr(super::ast::Expr {
                        kind: super::ast::ExprKind::Assign {
                            op: None,
                            lhs: Box::new(lhs),
                            rhs: Box::new(rhs),
                        },
                        pos: at,
                    }),
                    pos: at,
                });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        let body = if self.eat(Punct::Semi) && inits.is_empty() {
            Vec::new()
        } else {
            self.require(Punct::LBrace, "the function's body")?;
            let mut body = inits;
            body.extend(self.block_rest()?);
            body
        };
        Ok(Function {
            name,
            pos,
            spaces,
            template,
            specialises,
            ret,
            params,
            body,
        })
    }

    /// The rest of the tokens: the item is complete when nothing but `;` is left.
    fn skip_to_end(&mut self) {
        self.at = self.len();
    }

    fn unsupported(&self, construct: &'static str) -> CudaError {
        CudaError::new(self.pos(), ErrorKind::Unsupported { construct })
    }
}
