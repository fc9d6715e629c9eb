//! The preprocessor, as much of it as device code needs: `#define` (object-like and
//! function-like, with `#`, `##` and `__VA_ARGS__`), `#undef`, the conditionals with
//! `defined`, and `#include` lines skipped and listed. `#pragma` (`unroll` included), `#line`
//! and `#warning` are ignored. `__CUDACC__`, `__NVCC__`, `__cplusplus` (C++17) and
//! `__linux__` are defined, and `__CUDA_ARCH__` is the machine's.
//!
//! `call` splits a function-like macro's arguments and pastes tokens; `condition` evaluates
//! `#if`. A macro's tokens take the position of its use, so an error inside an expansion points at
//! the line that wrote the macro's name.
//!
//! One idea, the preprocessor's pass over the tokens, kept whole: its directives, conditions and
//! expansion share one cursor and one budget of expansions (the defines and `#if`'s arithmetic
//! live beside it in `defines` and `condition`).

mod call;
mod condition;
mod defines;

pub use defines::{
    parse_define, parse_defines, Define, Defines, DefinesError, Replaced, ReplacedKind,
};

use super::error::{CudaError, ErrorKind, Pos};
use super::files::{
    name_files, SourceFile, Sources, MAX_FILES, MAX_INCLUDED_BYTES, MAX_INCLUDE_DEPTH,
};
use super::lex::tokenize_file;
use super::lex::{Punct, Tok, Token};
use call::{arguments, paste};
use condition::Condition;
use std::collections::{HashMap, HashSet};

/// How deep macros may expand into each other.
const MAX_DEPTH: usize = 64;
/// Most tokens the expansions of a source may produce, against exponential macros; an
/// expansion to nothing counts as one.
pub const MAX_TOKENS: usize = 1 << 21;

#[derive(Clone, Debug, PartialEq)]
struct Macro {
    /// `None` for an object-like macro.
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Token>,
}

/// What the preprocessor read beside the tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Preprocessed {
    /// The tokens of the branches read, macros expanded.
    pub tokens: Vec<Token>,
    /// Each `#include`: its line and what it names.
    pub includes: Vec<(u32, String)>,
    /// The files `#include "…"` brought in, in the order first included: file `k` (from 1)
    /// of `super::files`.
    pub files: Vec<SourceFile>,
    /// The macros defined at the end of the file, for a launch written against it.
    pub macros: Macros,
    /// What the defines given beside the file replaced in it, in file order.
    pub replaced: Vec<Replaced>,
}

/// The macros a file leaves defined at its end: the launch field expands them, as host code
/// after the file's last line would.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Macros(HashMap<String, Macro>);

impl Macros {
    /// Expands the macros in `tokens` (one launch's), each expanded token standing where its
    /// macro was used.
    ///
    /// ```
    /// use coalescing_lab::model::cuda::{lex::tokenize, preprocess};
    /// let file = preprocess(tokenize("#define N 4096\n#define BLOCKS(n) (((n) + 255) / 256)\n").unwrap(), 700).unwrap();
    /// let launch = file.macros.expand(tokenize("k<<<BLOCKS(N), 256>>>(a, N)").unwrap()).unwrap();
    /// let text: Vec<String> = launch.iter().map(|t| t.tok.spelling()).collect();
    /// assert_eq!(text.concat(), "k<<<(((4096)+255)/256),256>>>(a,4096)");
    /// ```
    pub fn expand(&self, tokens: Vec<Token>) -> Result<Vec<Token>, CudaError> {
        let mut pre = Pre { macros: self.0.clone(), ..Pre::default() };
        pre.expand(&tokens, &mut Vec::new())
    }

    /// Whether `name` is a macro.
    pub fn defines(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

/// Preprocesses `tokens` for a device compiled for `arch` (`__CUDA_ARCH__`, e.g. 700).
///
/// ```
/// use coalescing_lab::model::cuda::{lex::tokenize, preprocess};
/// let source = "#include <cstdio>\n#define TILE 32\n#define IDX(r, c) ((r) * TILE + (c))\n\
///               #if __CUDA_ARCH__ >= 700 && defined(TILE)\nint a = IDX(y, x);\n#else\nint b;\n#endif\n";
/// let out = preprocess(tokenize(source).unwrap(), 700).unwrap();
/// let text: Vec<String> = out.tokens.iter().map(|t| t.tok.spelling()).collect();
/// assert_eq!(text.join(" "), "int a = ( ( y ) * 32 + ( x ) ) ;");
/// assert_eq!(out.includes, [(1, "<cstdio>".to_string())]);
/// // Every expanded token stands where the macro was used.
/// assert_eq!(out.tokens[3].pos.line, 5);
/// ```
pub fn preprocess(tokens: Vec<Token>, arch: u32) -> Result<Preprocessed, CudaError> {
    preprocess_with(tokens, arch, &Defines::default())
}

/// Preprocesses `tokens` as [`preprocess`] does, with `defines` given beside the file (as
/// nvcc's `-D`): each wins over the file's `#define` of its name, or replaces the initialiser
/// of the file-scope constant it names.
///
/// ```
/// use coalescing_lab::model::cuda::{lex::tokenize, parse_defines, preprocess_with};
/// let source = "#define N 4096\nconst int DSIZE = 8192;\nint a[N], b[DSIZE];\n";
/// let out = preprocess_with(tokenize(source).unwrap(), 700, &parse_defines("N=64 DSIZE=32").unwrap()).unwrap();
/// let text: Vec<String> = out.tokens.iter().map(|t| t.tok.spelling()).collect();
/// assert_eq!(text.join(" "), "const int DSIZE = ( 32 ) ; int a [ 64 ] , b [ DSIZE ] ;");
/// let notes: Vec<String> = out.replaced.iter().map(ToString::to_string).collect();
/// assert_eq!(notes, ["N=64 replaced the #define of line 1", "DSIZE=32 replaced the initialiser of the constant DSIZE, line 2"]);
/// ```
pub fn preprocess_with(
    tokens: Vec<Token>,
    arch: u32,
    defines: &Defines,
) -> Result<Preprocessed, CudaError> {
    preprocess_files(tokens, arch, defines, Sources::single())
}

/// Preprocesses `tokens` (the main file's) as [`preprocess_with`] does, reading each
/// `#include "…"` that `sources` finds in its place (a header `#include`d by name that no
/// folder has is listed and skipped, as a `<…>` one is).
///
/// ```
/// use coalescing_lab::model::cuda::files::{Headers, Sources, FILE_SHIFT};
/// use coalescing_lab::model::cuda::{lex::tokenize, preprocess_files, Defines};
/// let headers = Headers::of(&[("util.cuh", "#pragma once\n#define TILE 32\nint t;\n")]);
/// let sources = Sources { main: "gemm.cu", dirs: &[], reader: &headers };
/// let main = "#include \"util.cuh\"\n#include \"util.cuh\"\nint a[TILE];\n";
/// let out = preprocess_files(tokenize(main).unwrap(), 700, &Defines::default(), sources).unwrap();
/// let text: Vec<String> = out.tokens.iter().map(|t| t.tok.spelling()).collect();
/// assert_eq!(text.join(" "), "int t ; int a [ 32 ] ;");
/// assert_eq!(out.tokens[0].pos.line, 1 << FILE_SHIFT | 3);
/// assert_eq!(out.files[0].path, "util.cuh");
/// assert!(out.includes.is_empty());
/// ```
pub fn preprocess_files(
    mut tokens: Vec<Token>,
    arch: u32,
    defines: &Defines,
    sources: Sources<'_>,
) -> Result<Preprocessed, CudaError> {
    let mut pre = Pre { sources: Some(sources), ..Pre::default() };
    name_files(Vec::new());
    let mut replaced = Vec::new();
    let constants = defines::replace_constants(&mut tokens, defines, &mut replaced);
    for d in &defines.0 {
        if !constants.contains(&d.name) {
            pre.given.insert(d.name.clone());
            pre.macros.insert(
                d.name.clone(),
                Macro {
                    params: None,
                    variadic: false,
                    body: defines::body(d),
                },
            );
        }
    }
    pre.defines = defines.clone();
    let number = |value: u128, pos: Pos| Token {
        tok: Tok::Int {
            value,
            suffix: Default::default(),
            decimal: true,
        },
        pos,
        line_start: false,
        space_before: true,
    };
    for (name, value) in [
        ("__CUDACC__", 1),
        ("__NVCC__", 1),
        ("__CUDA_ARCH__", u128::from(arch)),
        ("__cplusplus", 201703),
        // The host is taken to be Linux, where most courses run nvcc: samples check it.
        ("__linux__", 1),
    ] {
        pre.macros.insert(
            name.to_string(),
            Macro {
                params: None,
                variadic: false,
                body: vec![number(value, Pos::default())],
            },
        );
    }
    pre.run(tokens)?;
    pre.out.macros = Macros(std::mem::take(&mut pre.macros));
    pre.out.replaced.extend(replaced);
    pre.out.replaced.sort_by_key(|r| r.line);
    Ok(pre.out)
}

/// One open conditional: whether its current branch is read, whether any branch was, and
/// whether it is inside a branch that is not read at all.
#[derive(Clone, Copy, Debug)]
struct Open {
    pos: Pos,
    reading: bool,
    taken: bool,
    outer_skipped: bool,
    seen_else: bool,
}

#[derive(Default)]
struct Pre<'a> {
    /// Where `#include "…"` finds its files; none for a launch's expansion.
    sources: Option<Sources<'a>>,
    /// The files being read, innermost last, as indices into `out.files` plus one (0, the main
    /// file, is not pushed).
    reading: Vec<usize>,
    /// The paths of files with `#pragma once` read already.
    once: HashSet<String>,
    /// Bytes of the included files read.
    included_bytes: usize,
    macros: HashMap<String, Macro>,
    out: Preprocessed,
    produced: usize,
    /// The names the defines beside the file give: the file's `#define` and `#undef` of
    /// them are set aside.
    given: std::collections::HashSet<String>,
    defines: Defines,
}

impl Pre<'_> {
    fn run(&mut self, tokens: Vec<Token>) -> Result<(), CudaError> {
        let mut stack: Vec<Open> = Vec::new();
        let mut line: Vec<Token> = Vec::new();
        let mut at = 0;
        while at < tokens.len() {
            let start = at;
            at += 1;
            while at < tokens.len() && !tokens[at].line_start {
                at += 1;
            }
            let logical = &tokens[start..at];
            let reading = stack.last().is_none_or(|o| o.reading);
            if logical[0].tok.is(Punct::Hash) && logical[0].line_start {
                if !line.is_empty() {
                    self.expand_into_out(std::mem::take(&mut line))?;
                }
                self.directive(logical, &mut stack, reading)?;
            } else if reading {
                line.extend_from_slice(logical);
            }
        }
        if !line.is_empty() {
            self.expand_into_out(line)?;
        }
        if let Some(open) = stack.last() {
            return Err(CudaError::new(open.pos, ErrorKind::UnterminatedIf));
        }
        Ok(())
    }

    /// Expands `tokens` (lines between directives, so that a macro call may span lines).
    fn expand_into_out(&mut self, tokens: Vec<Token>) -> Result<(), CudaError> {
        let expanded = self.expand(&tokens, &mut Vec::new())?;
        self.out.tokens.extend(expanded);
        Ok(())
    }

    fn directive(
        &mut self,
        line: &[Token],
        stack: &mut Vec<Open>,
        reading: bool,
    ) -> Result<(), CudaError> {
        let hash = line[0].pos;
        let Some(name_token) = line.get(1) else {
            return Ok(()); // The null directive.
        };
        let name = match &name_token.tok {
            Tok::Ident(name) => name.as_str(),
            // `#` followed by a line number is a line marker (`# 12 "file"`).
            Tok::Int { .. } => return Ok(()),
            other => {
                return Err(CudaError::new(
                    name_token.pos,
                    ErrorKind::UnknownDirective(other.spelling()),
                ))
            }
        };
        let rest = &line[2..];
        match name {
            "if" | "ifdef" | "ifndef" => {
                let cond = if !reading {
                    false
                } else {
                    match name {
                        "if" => self.condition(rest, hash)?,
                        _ => {
                            let m = self.macro_name(rest, name_token, "ifdef")?;
                            self.macros.contains_key(m) == (name == "ifdef")
                        }
                    }
                };
                stack.push(Open {
                    pos: hash,
                    reading: cond,
                    taken: cond,
                    outer_skipped: !reading,
                    seen_else: false,
                });
            }
            "elif" | "else" => {
                let Some(mut open) = stack.pop() else {
                    let which = if name == "elif" { "elif" } else { "else" };
                    return Err(CudaError::new(hash, ErrorKind::Unmatched(which)));
                };
                if open.seen_else {
                    return Err(CudaError::new(
                        hash,
                        ErrorKind::BadDirective {
                            directive: if name == "elif" { "elif" } else { "else" },
                            why: "comes after this #if's #else",
                        },
                    ));
                }
                let cond = if open.outer_skipped || open.taken {
                    false
                } else if name == "elif" {
                    self.condition(rest, hash)?
                } else {
                    true
                };
                open.seen_else = name == "else";
                open.reading = cond;
                open.taken |= cond;
                stack.push(open);
            }
            "endif" => {
                if stack.pop().is_none() {
                    return Err(CudaError::new(hash, ErrorKind::Unmatched("endif")));
                }
            }
            _ if !reading => {}
            "define" => {
                let given = rest
                    .first()
                    .and_then(|t| t.tok.ident())
                    .filter(|n| self.given.contains(*n));
                match given {
                    Some(name) => self.set_aside(name, hash.line, ReplacedKind::Define),
                    None => self.define(rest, name_token)?,
                }
            }
            "undef" => {
                let m = self.macro_name(rest, name_token, "undef")?.to_string();
                if self.given.contains(&m) {
                    self.set_aside(&m, hash.line, ReplacedKind::Undef);
                } else {
                    self.macros.remove(&m);
                }
            }
            "include" => {
                if let (Some(Tok::Str(name)), Some(sources)) =
                    (rest.first().map(|t| &t.tok), self.sources)
                {
                    let including = match self.reading.last() {
                        Some(&k) => self.out.files[k - 1].path.clone(),
                        None => sources.main.to_string(),
                    };
                    if let Some((path, text)) = sources.find(&including, name) {
                        return self.include(hash, path, text);
                    }
                }
                let text: String = rest
                    .iter()
                    .map(|t| match &t.tok {
                        Tok::Str(s) => format!("\"{s}\""),
                        other => other.spelling(),
                    })
                    .collect();
                self.out.includes.push((hash.line, text));
            }
            "error" => {
                let text: Vec<String> = rest.iter().map(|t| t.tok.spelling()).collect();
                return Err(CudaError::new(
                    hash,
                    ErrorKind::ErrorDirective(text.join(" ")),
                ));
            }
            "pragma" => {
                if rest.first().and_then(|t| t.tok.ident()) == Some("once") {
                    let path = match self.reading.last() {
                        Some(&k) => self.out.files[k - 1].path.clone(),
                        None => self
                            .sources
                            .map_or_else(String::new, |s| s.main.to_string()),
                    };
                    self.once.insert(path);
                }
            }
            "line" | "warning" | "ident" => {}
            other => {
                return Err(CudaError::new(
                    name_token.pos,
                    ErrorKind::UnknownDirective(other.to_string()),
                ))
            }
        }
        Ok(())
    }

    /// Reads the file at `path` in place of the `#include` at `hash`: its tokens, with their
    /// lines in the file's own band, go through this same pass (its own conditionals, the
    /// macros shared).
    fn include(&mut self, hash: Pos, path: String, text: String) -> Result<(), CudaError> {
        if self.once.contains(&path) {
            return Ok(());
        }
        if self.reading.len() >= MAX_INCLUDE_DEPTH {
            return Err(CudaError::new(
                hash,
                ErrorKind::IncludeDepth(MAX_INCLUDE_DEPTH),
            ));
        }
        self.included_bytes += text.len();
        if self.included_bytes > MAX_INCLUDED_BYTES {
            return Err(CudaError::new(
                hash,
                ErrorKind::IncludesTooLarge(MAX_INCLUDED_BYTES),
            ));
        }
        let k = match self.out.files.iter().position(|f| f.path == path) {
            Some(k) => k + 1,
            None if self.out.files.len() >= MAX_FILES => {
                return Err(CudaError::new(hash, ErrorKind::TooManyFiles(MAX_FILES)));
            }
            None => {
                self.out.files.push(SourceFile { path, text: text.clone() });
                name_files(self.out.files.iter().map(|f| f.path.clone()).collect());
                self.out.files.len()
            }
        };
        let tokens = tokenize_file(&text, k as u32)?;
        self.reading.push(k);
        let read = self.run(tokens);
        self.reading.pop();
        read
    }

    /// Notes that the define of `name` set aside the file's directive at `line`.
    fn set_aside(&mut self, name: &str, line: u32, what: ReplacedKind) {
        let value = self
            .defines
            .get(name)
            .map(|d| d.value.clone())
            .unwrap_or_default();
        self.out.replaced.push(Replaced {
            name: name.to_string(),
            value,
            line,
            what,
        });
    }

    /// The one name after `#ifdef`, `#ifndef` or `#undef`.
    fn macro_name<'t>(
        &self,
        rest: &'t [Token],
        directive: &Token,
        which: &'static str,
    ) -> Result<&'t str, CudaError> {
        match rest.first().map(|t| &t.tok) {
            Some(Tok::Ident(name)) => Ok(name),
            _ => Err(CudaError::new(
                directive.pos,
                ErrorKind::BadDirective {
                    directive: which,
                    why: "needs a macro name",
                },
            )),
        }
    }

    fn define(&mut self, rest: &[Token], directive: &Token) -> Result<(), CudaError> {
        let Some(Tok::Ident(name)) = rest.first().map(|t| &t.tok) else {
            return Err(CudaError::new(
                directive.pos,
                ErrorKind::BadDirective {
                    directive: "define",
                    why: "needs a macro name",
                },
            ));
        };
        let function_like = rest
            .get(1)
            .is_some_and(|t| t.tok.is(Punct::LParen) && !t.space_before);
        let bad = |pos| {
            CudaError::new(
                pos,
                ErrorKind::BadDirective {
                    directive: "define",
                    why: "its parameters are names separated by commas, then ')'",
                },
            )
        };
        let (params, variadic, body_at) = if function_like {
            let mut params = Vec::new();
            let mut variadic = false;
            let mut at = 2;
            loop {
                let Some(t) = rest.get(at) else {
                    return Err(bad(directive.pos));
                };
                match &t.tok {
                    Tok::Punct(Punct::RParen) if params.is_empty() && !variadic => {
                        at += 1;
                        break;
                    }
                    Tok::Ident(p) if !variadic => params.push(p.clone()),
                    Tok::Punct(Punct::Ellipsis) if !variadic => variadic = true,
                    _ => return Err(bad(t.pos)),
                }
                at += 1;
                match rest.get(at).map(|t| &t.tok) {
                    Some(Tok::Punct(Punct::Comma)) if !variadic => at += 1,
                    Some(Tok::Punct(Punct::RParen)) => {
                        at += 1;
                        break;
                    }
                    _ => return Err(bad(rest.get(at).map_or(directive.pos, |t| t.pos))),
                }
            }
            (Some(params), variadic, at)
        } else {
            (None, false, 1)
        };
        self.macros.insert(
            name.clone(),
            Macro {
                params,
                variadic,
                body: rest[body_at.min(rest.len())..].to_vec(),
            },
        );
        Ok(())
    }

    /// Expands every macro in `tokens`; `active` holds the macros being expanded, which are
    /// not expanded again inside themselves.
    fn expand(
        &mut self,
        tokens: &[Token],
        active: &mut Vec<String>,
    ) -> Result<Vec<Token>, CudaError> {
        let mut out = Vec::with_capacity(tokens.len());
        let mut at = 0;
        while at < tokens.len() {
            let token = &tokens[at];
            at += 1;
            let Tok::Ident(name) = &token.tok else {
                out.push(token.clone());
                continue;
            };
            if active.contains(name) {
                out.push(token.clone());
                continue;
            }
            let Some(m) = self.macros.get(name).cloned() else {
                out.push(token.clone());
                continue;
            };
            if active.len() >= MAX_DEPTH {
                return Err(CudaError::new(
                    token.pos,
                    ErrorKind::MacroDepth(name.clone()),
                ));
            }
            let body = match &m.params {
                None => m.body.clone(),
                Some(params) => {
                    // A function-like macro's name without `(` is just a name.
                    if !tokens.get(at).is_some_and(|t| t.tok.is(Punct::LParen)) {
                        out.push(token.clone());
                        continue;
                    }
                    let (args, next) = arguments(tokens, at, token, name)?;
                    at = next;
                    let wanted = params.len();
                    let fits = if m.variadic {
                        args.len() >= wanted
                    } else {
                        args.len() == wanted
                            || (wanted == 0 && args.len() == 1 && args[0].is_empty())
                    };
                    if !fits {
                        return Err(CudaError::new(
                            token.pos,
                            ErrorKind::MacroArguments {
                                name: name.clone(),
                                expected: wanted,
                                found: args.len(),
                            },
                        ));
                    }
                    self.substitute(&m, params, &args, active)?
                }
            };
            active.push(name.clone());
            let inner = self.expand(&body, active);
            active.pop();
            // An error inside the expansion stands where this macro was used, and a runaway
            // expansion is named by its outermost macro.
            let mut expanded = inner.map_err(|e| {
                let kind = match e.kind {
                    ErrorKind::MacroDepth(_) => ErrorKind::MacroDepth(name.clone()),
                    ErrorKind::MacroTooLarge(_) => ErrorKind::MacroTooLarge(name.clone()),
                    other => other,
                };
                CudaError::new(token.pos, kind)
            })?;
            for (k, t) in expanded.iter_mut().enumerate() {
                t.pos = token.pos;
                t.line_start = k == 0 && token.line_start;
                if k == 0 {
                    t.space_before = token.space_before;
                }
            }
            // Each expansion counts as work too: macros that expand to nothing, nested 40
            // deep, produce no token in 2^40 expansions.
            self.produced += expanded.len().max(1);
            if self.produced > MAX_TOKENS {
                return Err(CudaError::new(
                    token.pos,
                    ErrorKind::MacroTooLarge(name.clone()),
                ));
            }
            out.extend(expanded);
        }
        Ok(out)
    }

    /// A function-like macro's body with its parameters replaced: `#p` by the argument's
    /// text, `a ## b` by one pasted token, any other `p` by the argument expanded.
    fn substitute(
        &mut self,
        m: &Macro,
        params: &[String],
        args: &[Vec<Token>],
        active: &mut Vec<String>,
    ) -> Result<Vec<Token>, CudaError> {
        let arg_of = |name: &str| -> Option<Vec<Token>> {
            if m.variadic && name == "__VA_ARGS__" {
                let mut joined = Vec::new();
                for (k, a) in args.iter().enumerate().skip(params.len()) {
                    if k > params.len() {
                        if let Some(first) = a.first() {
                            joined.push(Token {
                                tok: Tok::Punct(Punct::Comma),
                                ..first.clone()
                            });
                        }
                    }
                    joined.extend(a.iter().cloned());
                }
                return Some(joined);
            }
            params
                .iter()
                .position(|p| p == name)
                .map(|k| args[k].clone())
        };
        let body = &m.body;
        let mut out: Vec<Token> = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            // `# param`: the argument as a string.
            if t.tok.is(Punct::Hash) {
                if let Some(arg) = body.get(k + 1).and_then(|n| n.tok.ident()).and_then(arg_of) {
                    let text: Vec<String> = arg.iter().map(|a| a.tok.spelling()).collect();
                    out.push(Token {
                        tok: Tok::Str(text.join(" ")),
                        ..t.clone()
                    });
                    k += 2;
                    continue;
                }
            }
            let pasting = body.get(k + 1).is_some_and(|n| n.tok.is(Punct::HashHash))
                || k > 0 && body[k - 1].tok.is(Punct::HashHash);
            if t.tok.is(Punct::HashHash) {
                k += 1;
                continue;
            }
            let replacement = match t.tok.ident().and_then(arg_of) {
                Some(arg) if pasting => arg,
                Some(arg) => self.expand(&arg, active)?,
                None => vec![t.clone()],
            };
            if k > 0 && body[k - 1].tok.is(Punct::HashHash) {
                // Paste the last token so far with the first of the replacement.
                let mut rest = replacement.into_iter();
                match (out.pop(), rest.next()) {
                    (Some(left), Some(right)) => out.push(paste(&left, &right)?),
                    (Some(left), None) => out.push(left),
                    (None, Some(right)) => out.push(right),
                    (None, None) => {}
                }
                out.extend(rest);
            } else {
                out.extend(replacement);
            }
            k += 1;
        }
        Ok(out)
    }

    /// Evaluates an `#if` or `#elif` condition.
    fn condition(&mut self, rest: &[Token], at: Pos) -> Result<bool, CudaError> {
        // `defined X` and `defined(X)` first, before any macro is expanded.
        let mut resolved = Vec::new();
        let mut k = 0;
        while k < rest.len() {
            let t = &rest[k];
            if t.tok.ident() == Some("defined") {
                let (name, next) = match (rest.get(k + 1), rest.get(k + 2), rest.get(k + 3)) {
                    (Some(open), Some(n), Some(close))
                        if open.tok.is(Punct::LParen) && close.tok.is(Punct::RParen) =>
                    {
                        (n.tok.ident(), k + 4)
                    }
                    (Some(n), _, _) => (n.tok.ident(), k + 2),
                    _ => (None, k + 1),
                };
                let Some(name) = name else {
                    return Err(CudaError::new(
                        t.pos,
                        ErrorKind::BadCondition("defined needs a macro name".into()),
                    ));
                };
                resolved.push(Token {
                    tok: Tok::Int {
                        value: u128::from(self.macros.contains_key(name)),
                        suffix: Default::default(),
                        decimal: true,
                    },
                    ..t.clone()
                });
                k = next;
                continue;
            }
            resolved.push(t.clone());
            k += 1;
        }
        let expanded = self.expand(&resolved, &mut Vec::new())?;
        let mut eval = Condition { tokens: &expanded, at: 0, pos: at };
        let value = eval.ternary()?;
        if let Some(extra) = expanded.get(eval.at) {
            return Err(CudaError::new(
                extra.pos,
                ErrorKind::BadCondition(format!("'{}' after the condition", extra.tok.spelling())),
            ));
        }
        Ok(value != 0)
    }
}
