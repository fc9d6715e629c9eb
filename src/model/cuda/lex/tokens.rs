//! The tokens of CUDA C++: punctuators (longest match first), identifiers, numbers with their
//! suffixes, character and string literals, each where it stands in the file.

use super::super::error::Pos;

/// Defines [`Punct`] and [`PUNCTS`] from one list: each punctuator's spelling and name,
/// written once.
macro_rules! punctuators {
    ($($text:literal => $name:ident,)*) => {
        /// A punctuator, in the order the lexer tries them: longest match first.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Punct {
            $(#[doc = concat!("`", $text, "`.")] $name,)*
            /// `@`: no C++ token, read only in a launch (`name@ADDR`, see `tokenize_launch`).
            At,
        }

        /// Every punctuator with its spelling, longest first so that a prefix never wins.
        pub(super) const PUNCTS: &[(&str, Punct)] = &[$(($text, Punct::$name),)*];
    };
}

punctuators! {
    "..." => Ellipsis,
    "<<=" => ShlAssign,
    ">>=" => ShrAssign,
    "->" => Arrow,
    "++" => PlusPlus,
    "--" => MinusMinus,
    "<<" => Shl,
    ">>" => Shr,
    "<=" => Le,
    ">=" => Ge,
    "==" => EqEq,
    "!=" => Ne,
    "&&" => AndAnd,
    "||" => OrOr,
    "::" => ColonColon,
    "*=" => StarAssign,
    "/=" => SlashAssign,
    "%=" => PercentAssign,
    "+=" => PlusAssign,
    "-=" => MinusAssign,
    "&=" => AmpAssign,
    "^=" => CaretAssign,
    "|=" => PipeAssign,
    "##" => HashHash,
    "{" => LBrace,
    "}" => RBrace,
    "[" => LBracket,
    "]" => RBracket,
    "(" => LParen,
    ")" => RParen,
    ";" => Semi,
    "," => Comma,
    "." => Dot,
    "&" => Amp,
    "*" => Star,
    "+" => Plus,
    "-" => Minus,
    "~" => Tilde,
    "!" => Bang,
    "/" => Slash,
    "%" => Percent,
    "<" => Lt,
    ">" => Gt,
    "^" => Caret,
    "|" => Pipe,
    "?" => Question,
    ":" => Colon,
    "=" => Assign,
    "#" => Hash,
}

impl Punct {
    /// The punctuator as written.
    pub fn text(self) -> &'static str {
        if self == Punct::At {
            return "@";
        }
        PUNCTS
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("?", |(text, _)| text)
    }
}

/// What an integer literal's suffix asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntSuffix {
    /// `u` or `U`.
    pub unsigned: bool,
    /// 0 for none, 1 for `l`, 2 for `ll`.
    pub longs: u8,
}

/// One token's kind and value.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name or a keyword.
    Ident(String),
    /// An integer literal; `decimal` tells C's type rule which list of types to try.
    Int {
        /// Its value, at most 2^64 − 1.
        value: u128,
        /// `u`, `l`, `ll` and their combinations.
        suffix: IntSuffix,
        /// Written in decimal (C's type rule differs for octal and hex).
        decimal: bool,
    },
    /// A floating literal; `single` with an `f` suffix.
    Float {
        /// Its value.
        value: f64,
        /// With an `f` suffix: `float`.
        single: bool,
    },
    /// A character literal's code point.
    Char(u32),
    /// A string literal's text, escapes resolved.
    Str(String),
    /// A punctuator.
    Punct(Punct),
}

impl Tok {
    /// The token as it would be written back (numbers in decimal).
    pub fn spelling(&self) -> String {
        match self {
            Tok::Ident(name) => name.clone(),
            Tok::Int { value, .. } => value.to_string(),
            Tok::Float { value, .. } => format!("{value:?}"),
            Tok::Char(c) => format!("'{}'", char::from_u32(*c).unwrap_or('?')),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(p) => p.text().to_string(),
        }
    }

    /// Whether this is punctuator `p`.
    pub fn is(&self, p: Punct) -> bool {
        *self == Tok::Punct(p)
    }

    /// The identifier's name, if it is one.
    pub fn ident(&self) -> Option<&str> {
        match self {
            Tok::Ident(name) => Some(name),
            _ => None,
        }
    }
}

/// A token where it stands in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What the token is.
    pub tok: Tok,
    /// Where it begins in the file.
    pub pos: Pos,
    /// The first token of a logical line (a directive's `#` must be one).
    pub line_start: bool,
    /// Whether white space (or a comment) precedes it: a function-like macro's `(` must not.
    pub space_before: bool,
}
