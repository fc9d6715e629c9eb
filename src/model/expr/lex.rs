//! Lexing: the expression's text into tokens, each with its column, and integers checked to
//! fit 64 bits. Names are resolved here: the dialect decides which are known.

use super::env::Var;
use super::{Func, Names, ParseError, ParseErrorKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Int(i64),
    Lane,
    Var(Var),
    Func(Func),
    /// A name that is neither `t`, `lane` nor a function: an error once parsed.
    Name(String, Names),
    Op(&'static str),
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) column: usize,
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

    pub(super) fn unexpected(&self, expected: &'static str) -> ParseError {
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

pub(super) fn tokenize(text: &str, names: Names) -> Result<Vec<Token>, ParseError> {
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
                    kind: ParseErrorKind::UnexpectedChar { column: here, found: c },
                });
            };
            if op.len() == 2 {
                chars.next();
                column += 1;
            }
            tokens.push(Token { tok: Tok::Op(op), column: here });
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
        kind: ParseErrorKind::IntegerTooLarge { column, text: word.to_string() },
    })
}
