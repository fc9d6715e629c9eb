//! The parser's cursor over one item's tokens, and the names the whole file declares as types
//! and as templates (C++ cannot be parsed without knowing which names are types).

use super::super::ast::Base;
use super::super::error::{CudaError, ErrorKind, Pos};
use super::super::lex::{Punct, Tok, Token};
use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

/// Names the file declares: types (structs, typedefs, aliases) and templates.
#[derive(Clone, Debug, Default)]
pub(super) struct Names {
    pub(super) types: HashSet<String>,
    pub(super) templates: HashSet<String>,
}

/// Cooperative groups' types, known by their last component (`cg::thread_block`, or
/// `thread_block` after `using namespace cooperative_groups`).
const GROUP_TYPES: [&str; 6] = [
    "thread_block",
    "block_tile_memory",
    "thread_block_tile",
    "grid_group",
    "coalesced_group",
    "thread_group",
];

impl Names {
    /// The names every item of `tokens` declares, before any is parsed.
    pub(super) fn collect(tokens: &[Token], items: &[Range<usize>]) -> Names {
        let mut names = Names::default();
        for range in items {
            let item = &tokens[range.clone()];
            let words: Vec<Option<&str>> = item.iter().map(|t| t.tok.ident()).collect();
            let mut at = 0;
            let template = words.first() == Some(&Some("template"));
            if template {
                // Past the parameter list's closing '>'.
                let mut depth = 0i32;
                for (k, t) in item.iter().enumerate() {
                    match t.tok {
                        Tok::Punct(Punct::Lt) => depth += 1,
                        Tok::Punct(Punct::Gt) => {
                            depth -= 1;
                            if depth == 0 {
                                at = k + 1;
                                break;
                            }
                        }
                        Tok::Punct(Punct::Shr) => {
                            depth -= 2;
                            if depth <= 0 {
                                at = k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            match words.get(at).copied().flatten() {
                Some("struct" | "class") => {
                    if let Some(Some(name)) = words.get(at + 1) {
                        names.types.insert(name.to_string());
                        if template {
                            names.templates.insert(name.to_string());
                        }
                    }
                }
                Some("typedef") => {
                    // The name just before the ';' (or before an array's '[').
                    let end = item
                        .iter()
                        .position(|t| t.tok.is(Punct::Semi) || t.tok.is(Punct::LBracket))
                        .unwrap_or(item.len());
                    if let Some(name) = words[..end].iter().rev().flatten().next() {
                        names.types.insert(name.to_string());
                    }
                }
                Some("using") => {
                    if let (Some(Some(name)), Some(t)) = (words.get(at + 1), item.get(at + 2)) {
                        if t.tok.is(Punct::Assign) {
                            names.types.insert(name.to_string());
                        }
                    }
                }
                _ if template => {
                    // A function template: the name before the first '('.
                    if let Some(open) = item[at..].iter().position(|t| t.tok.is(Punct::LParen)) {
                        if let Some(Some(name)) = words[..at + open].last() {
                            names.templates.insert(name.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        names
    }
}

/// The names in scope while one item is parsed: the file's, plus the item's template
/// parameters.
pub(super) struct Cursor<'a> {
    tokens: &'a [Token],
    pub(super) at: usize,
    names: &'a Names,
    /// Type parameters of the templates being parsed.
    pub(super) type_params: Vec<String>,
    /// Half of a `>>` already closed one template argument list: the next `>` is there.
    pub(super) pending_gt: bool,
    /// Inside template arguments: a `>` closes them instead of comparing.
    pub(super) in_template_args: u32,
    /// How deep the expression or statement being read nests (a bound on its tree's depth).
    pub(super) depth: u32,
    /// Whether `<…>(` reads as template arguments at a token, found once and shared with
    /// every look-ahead cursor: without it, `a<b<c<…` tries each `<` both ways, and a line of
    /// 200 characters takes minutes. Keyed by the token alone: keyed also by the nesting and
    /// template-argument depths, a 2 KB launch such as `k<k<s|k<k<…` was read again at each
    /// of them, for minutes.
    pub(super) template_calls: Rc<RefCell<TemplateCalls>>,
    /// What the end of the tokens is called in "found …": the declaration's end in a source,
    /// the launch's end in the launch field.
    pub(super) end_word: &'static str,
    /// The file's constants, in a launch written against it (the launch field).
    pub(super) constants: Option<&'a super::launch::Constants>,
    /// Reading host code: a launch `k<<<…>>>(…)` is an expression.
    pub(super) host: bool,
    /// Whether `<…><<<` (a template kernel's launch) comes next at a token, found once and
    /// shared as `template_calls` is.
    pub(super) launch_calls: Rc<RefCell<TemplateCalls>>,
}

/// Look-ahead answers by token.
pub(super) type TemplateCalls = HashMap<usize, Ahead>;

/// What a look-ahead found at a token.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ahead {
    /// The answer, at any depth.
    Is(bool),
    /// No answer: reading on ran into the nesting limit when it started this deep, as it
    /// would from any deeper.
    TooDeepFrom(u32),
}

/// The deepest expressions and statements nest: past it the source is refused, so that
/// neither the parser nor the interpreter can run out of stack on a hostile file.
pub const MAX_NESTING: u32 = 100;

impl<'a> Cursor<'a> {
    pub(super) fn new(tokens: &'a [Token], names: &'a Names) -> Cursor<'a> {
        Cursor {
            tokens,
            at: 0,
            names,
            type_params: Vec::new(),
            pending_gt: false,
            in_template_args: 0,
            depth: 0,
            template_calls: Rc::default(),
            end_word: "the end of the declaration",
            constants: None,
            host: false,
            launch_calls: Rc::default(),
        }
    }

    /// One level deeper; an error past [`MAX_NESTING`].
    pub(super) fn deeper(&mut self) -> Result<(), CudaError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(CudaError::new(
                self.pos(),
                super::super::error::ErrorKind::TooDeep { limit: MAX_NESTING },
            ));
        }
        Ok(())
    }

    /// Runs `f` one level deeper, and comes back to this depth after it, whatever it did.
    pub(super) fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, CudaError>,
    ) -> Result<T, CudaError> {
        let start = self.depth;
        let out = self.deeper().and_then(|()| f(self));
        self.depth = start;
        out
    }

    /// A throwaway cursor at `at` over the same tokens, to look ahead.
    pub(super) fn new_at(other: &Cursor<'a>, at: usize) -> Cursor<'a> {
        Cursor {
            tokens: other.tokens,
            at,
            names: other.names,
            type_params: other.type_params.clone(),
            pending_gt: false,
            in_template_args: other.in_template_args,
            depth: other.depth,
            template_calls: other.template_calls.clone(),
            end_word: other.end_word,
            constants: other.constants,
            host: other.host,
            launch_calls: other.launch_calls.clone(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.tokens.len()
    }

    pub(super) fn at_end(&self) -> bool {
        self.at >= self.tokens.len()
    }

    pub(super) fn peek(&self) -> Option<&'a Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.tokens.get(self.at + k).map(|t| &t.tok)
    }

    pub(super) fn peek_is(&self, p: Punct) -> bool {
        self.peek().is_some_and(|t| t.is(p))
    }

    pub(super) fn peek_at_is(&self, k: usize, p: Punct) -> bool {
        self.peek_at(k).is_some_and(|t| t.is(p))
    }

    pub(super) fn peek_word(&self) -> Option<&'a str> {
        self.peek().and_then(Tok::ident)
    }

    pub(super) fn advance(&mut self) -> Option<&'a Token> {
        let t = self.tokens.get(self.at);
        self.at += 1;
        t
    }

    pub(super) fn eat(&mut self, p: Punct) -> bool {
        if self.peek_is(p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word() == Some(word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Where the next token is (or the last one, at the end).
    pub(super) fn pos(&self) -> Pos {
        self.pos_at(self.at)
    }

    pub(super) fn pos_at(&self, at: usize) -> Pos {
        self.tokens
            .get(at)
            .or_else(|| self.tokens.last())
            .map_or(Pos { line: 1, column: 1 }, |t| t.pos)
    }

    /// "expected X, found 'y'" at the next token.
    pub(super) fn expected(&self, what: &'static str) -> CudaError {
        let found = self
            .peek()
            .map_or_else(|| self.end_word.to_string(), Tok::spelling);
        CudaError::new(self.pos(), ErrorKind::Expected { what, found })
    }

    pub(super) fn require(&mut self, p: Punct, what: &'static str) -> Result<(), CudaError> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    /// An identifier and its position.
    pub(super) fn ident(&mut self, what: &'static str) -> Result<(String, Pos), CudaError> {
        match self.peek() {
            Some(Tok::Ident(name)) if !is_keyword(name) => {
                let pos = self.pos();
                self.at += 1;
                Ok((name.clone(), pos))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// `a::b::c`, joined with `::`.
    pub(super) fn qualified_ident(
        &mut self,
        what: &'static str,
    ) -> Result<(String, Pos), CudaError> {
        let global = self.eat(Punct::ColonColon);
        let (mut name, pos) = self.ident(what)?;
        if global {
            name.insert_str(0, "::");
        }
        while self.peek_is(Punct::ColonColon) && matches!(self.peek_at(1), Some(Tok::Ident(_))) {
            self.at += 1;
            let (next, _) = self.ident(what)?;
            name.push_str("::");
            name.push_str(&next);
        }
        Ok((name, pos))
    }

    /// Whether `name` (possibly qualified) names a type here.
    pub(super) fn is_type_name(&self, name: &str) -> bool {
        let last = name.rsplit("::").next().unwrap_or(name);
        builtin(last).is_some()
            || self.names.types.contains(last)
            || self.type_params.iter().any(|p| p == last)
            || GROUP_TYPES.contains(&last)
            || matches!(last, "size_t" | "ptrdiff_t")
    }

    /// Whether `name` names a template (a function or struct template of the file).
    pub(super) fn is_template_name(&self, name: &str) -> bool {
        let last = name.rsplit("::").next().unwrap_or(name);
        self.names.templates.contains(last)
    }
}

/// Words that start a declaration's type: qualifiers, storage, the built-in type keywords.
pub(super) const TYPE_WORDS: [&str; 22] = [
    "const",
    "volatile",
    "unsigned",
    "signed",
    "short",
    "long",
    "int",
    "char",
    "bool",
    "float",
    "double",
    "void",
    "auto",
    "struct",
    "class",
    "typename",
    "constexpr",
    "static",
    "extern",
    "__shared__",
    "__restrict__",
    "register",
];

/// Words that are never a declared name.
pub(super) fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "else"
            | "for"
            | "while"
            | "do"
            | "switch"
            | "case"
            | "default"
            | "break"
            | "continue"
            | "return"
            | "goto"
            | "struct"
            | "class"
            | "union"
            | "enum"
            | "typedef"
            | "using"
            | "template"
            | "typename"
            | "sizeof"
            | "alignof"
            | "const"
            | "volatile"
            | "static"
            | "extern"
            | "inline"
            | "unsigned"
            | "signed"
            | "short"
            | "long"
            | "int"
            | "char"
            | "bool"
            | "float"
            | "double"
            | "void"
            | "auto"
            | "true"
            | "false"
            | "operator"
            | "new"
            | "delete"
            | "throw"
            | "try"
            | "catch"
            | "asm"
    )
}

/// The built-in type a single name spells (vector types, fixed-width integers, `uint`, …).
pub(crate) fn builtin(name: &str) -> Option<Base> {
    let int = |bytes, signed| Base::Int { bytes, signed };
    let vector = |elem: Base, lanes| Base::Vector { elem: Box::new(elem), lanes };
    Some(match name {
        "size_t" | "uint64_t" => int(8, false),
        "ptrdiff_t" | "int64_t" | "intptr_t" => int(8, true),
        "uintptr_t" => int(8, false),
        "int32_t" => int(4, true),
        "uint32_t" | "uint" | "unsigned_int" => int(4, false),
        "int16_t" => int(2, true),
        "uint16_t" | "ushort" => int(2, false),
        "int8_t" => int(1, true),
        "uint8_t" | "uchar" => int(1, false),
        "dim3" => Base::Dim3,
        // The CUDA runtime's handles and enums (`cuda_runtime_api.h`), as their widths.
        "cudaError_t" | "cudaMemcpyKind" => int(4, true),
        "cudaEvent_t" | "cudaStream_t" => int(8, false),
        // The runtime's device description: a struct a program's run declares
        // (`run::program::DEVICE_PROP`).
        "cudaDeviceProp" => Base::Named { name: name.to_string(), args: Vec::new() },
        // The C library's clock and time (`<ctime>`), as glibc's x86-64 widths.
        "clock_t" | "time_t" => int(8, true),
        _ => {
            // char2…4, uchar2…4, short2…4, ushort2…4, int2…4, uint2…4, float2…4, double2.
            let split = name.find(|c: char| c.is_ascii_digit())?;
            let (family, lanes) = name.split_at(split);
            let lanes: u8 = lanes.parse().ok().filter(|n| (1..=4).contains(n))?;
            let elem = match family {
                "char" => int(1, true),
                "uchar" => int(1, false),
                "short" => int(2, true),
                "ushort" => int(2, false),
                "int" => int(4, true),
                "uint" => int(4, false),
                "long" => int(8, true),
                "ulong" => int(8, false),
                "longlong" => int(8, true),
                "ulonglong" => int(8, false),
                "float" => Base::Float,
                "double" if lanes <= 4 => Base::Double,
                _ => return None,
            };
            vector(elem, lanes)
        }
    })
}
