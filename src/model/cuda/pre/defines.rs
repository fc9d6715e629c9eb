//! Defines given beside the file, as nvcc's `-D NAME[=VALUE]` gives them: a program sized for
//! a GPU can then run at a size the page holds. A define wins over the file's own `#define`
//! of its name (and its `#undef`), where nvcc would warn and keep the file's: that is what a
//! define is for here. Teaching files often size their arrays with a file-scope
//! `const int DSIZE = 8192;` instead, so a define of a constant's name replaces that
//! constant's initialiser, and the name stays the constant's. Each replacement is listed.

use super::super::error::Pos;
use super::super::lex::{tokenize, Punct, Tok, Token};
use crate::model::cuda::files::Line;
use crate::model::error::{FieldError, FieldName};
use std::collections::HashSet;
use std::fmt;

/// At most this many defines.
pub const MAX_DEFINES: usize = 64;
/// At most this many bytes of defines.
pub const MAX_DEFINES_BYTES: usize = 4096;

/// One define: its name, and its value's tokens (`1` when none was given).
#[derive(Clone, Debug, PartialEq)]
pub struct Define {
    /// The macro's name.
    pub name: String,
    /// Its value as typed.
    pub value: String,
    /// Its value's tokens.
    pub(super) tokens: Vec<Token>,
}

/// The defines of a run, in the order given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Defines(pub Vec<Define>);

impl Defines {
    /// The define of `name`.
    pub(super) fn get(&self, name: &str) -> Option<&Define> {
        self.0.iter().rev().find(|d| d.name == name)
    }
}

/// The defines' field, named by its URL parameter `defines`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DefinesField;

impl FieldName for DefinesField {
    fn param(self) -> impl fmt::Display {
        "defines"
    }
}

/// Why the defines do not read, naming their field.
pub type DefinesError = FieldError<DefinesField>;

/// An error of the defines' field.
fn bad(message: String) -> DefinesError {
    FieldError::new(DefinesField, message)
}

/// Reads defines as typed: `NAME` or `NAME=VALUE`, separated by white space (a value has no
/// white space in it: `N=(1<<20)`).
///
/// ```
/// use coalescing_lab::model::cuda::parse_defines;
/// let d = parse_defines("N=4096  BLOCK=256 DEBUG").unwrap();
/// let named: Vec<(&str, &str)> = d.0.iter().map(|d| (d.name.as_str(), d.value.as_str())).collect();
/// assert_eq!(named, [("N", "4096"), ("BLOCK", "256"), ("DEBUG", "1")]);
/// assert_eq!(parse_defines("").unwrap().0.len(), 0);
/// assert_eq!(parse_defines("4N=1").unwrap_err().to_string(), "defines: '4N' is not a name: a define is NAME or NAME=VALUE");
/// assert_eq!(parse_defines("N=").unwrap_err().to_string(), "defines: N= has no value: write N=VALUE, or N alone for 1");
/// assert_eq!(parse_defines("N=4$").unwrap_err().to_string(), "defines: N: '$' is not part of CUDA C++");
/// ```
pub fn parse_defines(text: &str) -> Result<Defines, DefinesError> {
    if text.len() > MAX_DEFINES_BYTES {
        return Err(bad(format!(
            "{} bytes; at most {MAX_DEFINES_BYTES} are read",
            text.len()
        )));
    }
    let mut out = Vec::new();
    for item in text.split_whitespace() {
        if out.len() == MAX_DEFINES {
            return Err(bad(format!("more than {MAX_DEFINES} defines")));
        }
        out.push(parse_define(item)?);
    }
    Ok(Defines(out))
}

/// Reads one define, `NAME` or `NAME=VALUE`, as nvcc's `-D` takes it: the value may hold
/// white space (`-D "N=1 << 20"`).
///
/// ```
/// use coalescing_lab::model::cuda::parse_define;
/// let d = parse_define("N=1 << 20").unwrap();
/// assert_eq!((d.name.as_str(), d.value.as_str()), ("N", "1 << 20"));
/// ```
pub fn parse_define(item: &str) -> Result<Define, DefinesError> {
    let (name, value) = match item.split_once('=') {
        Some((name, value)) => (name.trim(), Some(value.trim())),
        None => (item.trim(), None),
    };
    let is_name = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name {
        return Err(bad(format!(
            "'{name}' is not a name: a define is NAME or NAME=VALUE"
        )));
    }
    let value = match value {
        Some("") => {
            return Err(bad(format!(
                "{name}= has no value: write {name}=VALUE, or {name} alone for 1"
            )))
        }
        Some(v) => v,
        None => "1",
    };
    if value.len() > MAX_DEFINES_BYTES {
        return Err(bad(format!(
            "{name}: {} bytes; at most {MAX_DEFINES_BYTES} are read",
            value.len()
        )));
    }
    let tokens = tokenize(value).map_err(|e| bad(format!("{name}: {}", e.kind)))?;
    if tokens.iter().any(|t| t.tok.is(Punct::Hash)) {
        return Err(bad(format!(
            "{name}: a value cannot hold a directive ('#')"
        )));
    }
    Ok(Define {
        name: name.to_string(),
        value: value.to_string(),
        tokens,
    })
}

/// What a define replaced in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaced {
    /// The define's name.
    pub name: String,
    /// The value it gave.
    pub value: String,
    /// The line of what it replaced.
    pub line: u32,
    /// What it replaced: a `#define` (or `#undef`), or a constant's initialiser.
    pub what: ReplacedKind,
}

/// What a define replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplacedKind {
    /// The file's `#define` of the name.
    Define,
    /// The file's `#undef` of the name.
    Undef,
    /// A file-scope `const` or `constexpr` variable's initialiser.
    Constant,
}

impl fmt::Display for Replaced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, value, line) = (&self.name, &self.value, self.line);
        match self.what {
            ReplacedKind::Define => {
                write!(f, "{name}={value} replaced the #define of {}", Line(line))
            }
            ReplacedKind::Undef => write!(
                f,
                "{name}={value} kept its value past the #undef of {}",
                Line(line)
            ),
            ReplacedKind::Constant => write!(
                f,
                "{name}={value} replaced the initialiser of the constant {name}, {}",
                Line(line)
            ),
        }
    }
}

/// Replaces the initialiser of each namespace-scope `const` or `constexpr` variable that a
/// define names with the define's value, in `tokens` as the lexer gave them; returns the
/// names so replaced (which are then not macros), with what was replaced.
pub(super) fn replace_constants(
    tokens: &mut Vec<Token>,
    defines: &Defines,
    replaced: &mut Vec<Replaced>,
) -> HashSet<String> {
    let mut names = HashSet::new();
    if defines.0.is_empty() {
        return names;
    }
    // Braces open a namespace (or `extern "C"`) block, or anything else.
    let mut blocks: Vec<bool> = Vec::new();
    let mut statement = 0;
    let mut at = 0;
    while at < tokens.len() {
        let t = &tokens[at];
        // A directive's line is the preprocessor's.
        if t.tok.is(Punct::Hash) && t.line_start {
            at += 1;
            while at < tokens.len() && !tokens[at].line_start {
                at += 1;
            }
            statement = at;
            continue;
        }
        match &t.tok {
            Tok::Punct(Punct::LBrace) => {
                let opener = &tokens[statement..at];
                let namespace = opener
                    .iter()
                    .any(|t| matches!(t.tok.ident(), Some("namespace" | "extern")));
                blocks.push(namespace);
                statement = at + 1;
            }
            Tok::Punct(Punct::RBrace) => {
                blocks.pop();
                statement = at + 1;
            }
            Tok::Punct(Punct::Semi) => statement = at + 1,
            Tok::Ident(name) if blocks.iter().all(|b| *b) => {
                let assigned = tokens.get(at + 1).is_some_and(|t| t.tok.is(Punct::Assign));
                let before = &tokens[statement..at];
                let constant = before
                    .iter()
                    .any(|t| matches!(t.tok.ident(), Some("const" | "constexpr")))
                    && !before.iter().any(|t| t.tok.is(Punct::LParen));
                if let (true, true, Some(d)) = (assigned, constant, defines.get(name)) {
                    let start = at + 2;
                    let mut depth = 0i32;
                    let mut end = start;
                    while let Some(t) = tokens.get(end) {
                        match t.tok {
                            Tok::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                                depth += 1
                            }
                            Tok::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                                depth -= 1
                            }
                            Tok::Punct(Punct::Semi | Punct::Comma) if depth == 0 => break,
                            _ => {}
                        }
                        if depth < 0 {
                            break;
                        }
                        end += 1;
                    }
                    let pos = tokens.get(start).map_or(t.pos, |t| t.pos);
                    replaced.push(Replaced {
                        name: name.clone(),
                        value: d.value.clone(),
                        line: t.pos.line,
                        what: ReplacedKind::Constant,
                    });
                    names.insert(name.clone());
                    let value = positioned(&d.tokens, pos);
                    let n = value.len();
                    tokens.splice(start..end.min(tokens.len()), value);
                    at = start + n;
                    continue;
                }
            }
            _ => {}
        }
        at += 1;
    }
    names
}

/// `tokens` standing at `pos` (in parentheses, as a value replacing an expression).
pub(super) fn positioned(tokens: &[Token], pos: Pos) -> Vec<Token> {
    let paren = |p| Token {
        tok: Tok::Punct(p),
        pos,
        line_start: false,
        space_before: true,
    };
    let mut out = vec![paren(Punct::LParen)];
    out.extend(
        tokens
            .iter()
            .map(|t| Token { pos, line_start: false, ..t.clone() }),
    );
    out.push(paren(Punct::RParen));
    out
}

/// A define's value as a macro body: its tokens, each standing where the macro is used.
pub(super) fn body(d: &Define) -> Vec<Token> {
    d.tokens
        .iter()
        .map(|t| Token { line_start: false, ..t.clone() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::error::CudaError;
    use super::*;

    fn err(e: CudaError) -> String {
        e.to_string()
    }

    #[test]
    fn a_constant_named_by_a_define_takes_its_value() {
        let mut tokens = tokenize(
            "#define X 1\nconst int DSIZE = 8192, OTHER = 2;\nnamespace a { constexpr size_t N = 1 << 20; }\n\
             void f() { const int DSIZE = 3; }\nint g(const int DSIZE = 4);\n",
        )
        .map_err(err)
        .unwrap();
        let defines = parse_defines("DSIZE=64 N=(1<<10)").unwrap();
        let mut replaced = Vec::new();
        let names = replace_constants(&mut tokens, &defines, &mut replaced);
        let text: Vec<String> = tokens.iter().map(|t| t.tok.spelling()).collect();
        assert_eq!(
            text.join(" "),
            "# define X 1 const int DSIZE = ( 64 ) , OTHER = 2 ; namespace a { constexpr size_t N = \
             ( ( 1 << 10 ) ) ; } void f ( ) { const int DSIZE = 3 ; } int g ( const int DSIZE = 4 ) ;"
        );
        assert_eq!(names.len(), 2);
        let lines: Vec<String> = replaced.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "DSIZE=64 replaced the initialiser of the constant DSIZE, line 2",
                "N=(1<<10) replaced the initialiser of the constant N, line 3"
            ]
        );
    }
}
