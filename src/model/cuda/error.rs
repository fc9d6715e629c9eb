//! Where a problem is in the source, and what it is: every error of the CUDA front end names
//! its line and column, as data, and words itself once here.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A position in the file as given: lines and columns count from 1, columns in characters.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Pos {
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, in characters.
    pub column: u32,
}

/// An error in the source, at `pos`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaError {
    /// Where the problem is.
    pub pos: Pos,
    /// What it is.
    pub kind: ErrorKind,
}

impl CudaError {
    /// The error `kind` at `pos`.
    pub fn new(pos: Pos, kind: ErrorKind) -> CudaError {
        CudaError { pos, kind }
    }
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The source is longer than [`super::lex::MAX_SOURCE_BYTES`].
    SourceTooLong {
        /// The source's length.
        bytes: usize,
    },
    /// A `/*` with no `*/`.
    UnclosedComment,
    /// A character no token starts with.
    UnexpectedChar(char),
    /// A number's text that is not a C literal.
    BadNumber(String),
    /// An integer literal past 2^64 − 1.
    NumberTooLarge(String),
    /// A quote with no closing quote on its line.
    UnclosedLiteral,
    /// A character literal that is empty or holds more than one character.
    BadCharLiteral,
    /// A directive the preprocessor does not know.
    UnknownDirective(String),
    /// A directive without what it needs, e.g. `#define` with no name.
    BadDirective {
        /// The directive, without its `#`.
        directive: &'static str,
        /// What is wrong with it.
        why: &'static str,
    },
    /// `#else`, `#elif` or `#endif` with no `#if`.
    Unmatched(&'static str),
    /// An `#if` the file never closes.
    UnterminatedIf,
    /// `#error` in a branch that is read.
    ErrorDirective(String),
    /// A function-like macro called with the wrong number of arguments.
    MacroArguments {
        /// The macro's name.
        name: String,
        /// Parameters it has.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// A function-like macro's call whose `)` never comes.
    UnclosedMacroCall(String),
    /// Macros that expand into each other too deeply.
    MacroDepth(String),
    /// Macros whose expansions pass [`super::pre::MAX_TOKENS`] tokens.
    MacroTooLarge(String),
    /// `#include` nested deeper than the limit.
    IncludeDepth(usize),
    /// Included files holding more bytes than the limit together.
    IncludesTooLarge(usize),
    /// More files included than the limit.
    TooManyFiles(usize),
    /// An `#if` condition that is not an integer constant expression.
    BadCondition(String),
    /// A launch that cannot be: two bases for one allocation, two lines.
    Launch {
        /// What is wrong with it.
        why: &'static str,
    },
    /// A name in the launch that is neither a macro nor a constant of the file.
    NotConstant {
        /// What the launch wanted here.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A token the grammar does not allow here.
    Expected {
        /// What the grammar wanted here.
        what: &'static str,
        /// The token found instead.
        found: String,
    },
    /// Expressions or statements nested deeper than the limit.
    TooDeep {
        /// The limit, in levels.
        limit: u32,
    },
    /// A construct outside the supported subset.
    Unsupported {
        /// The construct, named for people ("goto", "a lambda").
        construct: &'static str,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::SourceTooLong { bytes } => write!(
                f,
                "the source is {bytes} bytes; at most {} are read",
                super::lex::MAX_SOURCE_BYTES
            ),
            ErrorKind::UnclosedComment => write!(f, "the comment never ends"),
            // A visible character shows itself; a control, a space, an invisible or a bidi
            // character, which would hide or reorder the message, shows its code point only.
            ErrorKind::UnexpectedChar(c) if c.is_ascii_graphic() => {
                write!(f, "'{c}' is not part of CUDA C++")
            }
            ErrorKind::UnexpectedChar(c) if shows_itself(*c) => {
                write!(f, "'{c}' (U+{:04X}) is not part of CUDA C++", u32::from(*c))
            }
            ErrorKind::UnexpectedChar(c) => {
                write!(f, "U+{:04X} is not part of CUDA C++", u32::from(*c))
            }
            ErrorKind::BadNumber(text) => write!(f, "'{text}' is not a number"),
            ErrorKind::NumberTooLarge(text) => {
                write!(f, "{text} does not fit in 64 bits")
            }
            ErrorKind::UnclosedLiteral => write!(f, "the quoted text never ends on its line"),
            ErrorKind::BadCharLiteral => {
                write!(f, "a character literal holds exactly one character")
            }
            ErrorKind::UnknownDirective(name) => write!(f, "#{name} is not a directive"),
            ErrorKind::BadDirective { directive, why } => write!(f, "#{directive}: {why}"),
            ErrorKind::Unmatched(directive) => write!(f, "#{directive} without an #if"),
            ErrorKind::UnterminatedIf => write!(f, "this #if has no #endif"),
            ErrorKind::ErrorDirective(text) => write!(f, "#error {text}"),
            ErrorKind::MacroArguments { name, expected, found } => write!(
                f,
                "macro {name} takes {expected} argument{}, given {found}",
                if *expected == 1 { "" } else { "s" }
            ),
            ErrorKind::UnclosedMacroCall(name) => {
                write!(f, "the call of macro {name} has no closing ')'")
            }
            ErrorKind::MacroDepth(name) => {
                write!(f, "macro {name} expands too deeply (more than 64 levels)")
            }
            ErrorKind::MacroTooLarge(name) => write!(
                f,
                "macro {name} expands to more than {} tokens",
                super::pre::MAX_TOKENS
            ),
            ErrorKind::BadCondition(why) => write!(f, "#if: {why}"),
            ErrorKind::IncludeDepth(limit) => write!(
                f,
                "#include nests more than {limit} files deep (a header that includes itself?)"
            ),
            ErrorKind::IncludesTooLarge(limit) => {
                write!(
                    f,
                    "the included files hold more than {limit} bytes together"
                )
            }
            ErrorKind::TooManyFiles(limit) => {
                write!(f, "more than {limit} files are included")
            }
            ErrorKind::Launch { why } => f.write_str(why),
            ErrorKind::Expected { what, found } => write!(f, "expected {what}, found '{found}'"),
            ErrorKind::NotConstant { what, name } => write!(
                f,
                "expected {what}, found '{name}', which is not a #define or a constant of the \
                 file: the launch cannot see the host code's variables"
            ),
            ErrorKind::TooDeep { limit } => write!(
                f,
                "expressions and statements nest more than {limit} levels deep here"
            ),
            ErrorKind::Unsupported { construct } => {
                write!(f, "the CUDA subset this page reads leaves out {construct}")
            }
        }
    }
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, column {}: {}",
            super::files::Line(self.pos.line),
            self.pos.column,
            self.kind
        )
    }
}

impl std::error::Error for CudaError {}

/// Whether a character outside ASCII can be shown in a message as itself: not a control, a
/// space or a line break, nor one of the invisible or direction-changing characters (zero
/// widths, joiners, marks, embeddings, overrides, isolates, the byte-order mark). A range
/// check, not Unicode's tables, which would weigh several KB in the page.
fn shows_itself(c: char) -> bool {
    !c.is_control()
        && !matches!(
            u32::from(c),
            0x85 | 0xA0 | 0xAD | 0x061C | 0x1680 | 0x180E
                | 0x2000..=0x200F
                | 0x2028..=0x202F
                | 0x205F..=0x206F
                | 0x3000
                | 0xFEFF
                | 0xFFF0..=0xFFFF
        )
}
