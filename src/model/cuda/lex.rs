//! CUDA C++ source to tokens: identifiers, numbers with their suffixes, character and string
//! literals, punctuators, each with the line and column where it begins in the file as given.
//! Comments and line continuations disappear here; directives are the preprocessor's, which
//! sees where each logical line starts.
//!
//! The lexer is a single loop over characters whose arms (numbers, literals, punctuators)
//! share its position bookkeeping; what it makes, the tokens, is in `tokens`.

use super::error::{CudaError, ErrorKind, Pos};

mod tokens;
use tokens::PUNCTS;
pub use tokens::{IntSuffix, Punct, Tok, Token};

/// Longest source read, in bytes: a whole `.cu` file of the sizes NVIDIA's samples have, many
/// times over.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// Splits `source` into tokens. An error names the line and column of what could not be read.
///
/// ```
/// use coalescing_lab::model::cuda::lex::{tokenize, Punct, Tok};
/// let tokens = tokenize("out[i] = 0x10u; // done\n  x /* a */ += 1.5f;").unwrap();
/// assert_eq!(tokens[0].tok, Tok::Ident("out".into()));
/// assert_eq!((tokens[5].pos.line, tokens[5].pos.column), (1, 10));
/// assert!(tokens[7].line_start && tokens[8].tok.is(Punct::PlusAssign));
/// assert_eq!(tokens[9].tok, Tok::Float { value: 1.5, single: true });
/// // Degenerate input: an unclosed comment names where it opened.
/// assert_eq!(tokenize("a /* b").unwrap_err().to_string(), "line 1, column 3: the comment never ends");
/// ```
pub fn tokenize(source: &str) -> Result<Vec<Token>, CudaError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(CudaError::new(
            Pos { line: 1, column: 1 },
            ErrorKind::SourceTooLong { bytes: source.len() },
        ));
    }
    Lexer::new(source, false).run()
}

/// [`tokenize`] for the `file`-th file a unit includes (from 1): its lines are numbered
/// `file << FILE_SHIFT | n` (`super::files`).
pub fn tokenize_file(source: &str, file: u32) -> Result<Vec<Token>, CudaError> {
    let first = file << super::files::FILE_SHIFT | 1;
    if source.len() > MAX_SOURCE_BYTES {
        return Err(CudaError::new(
            Pos { line: first, column: 1 },
            ErrorKind::SourceTooLong { bytes: source.len() },
        ));
    }
    let mut lexer = Lexer::new(source, false);
    lexer.line = first;
    lexer.run()
}

/// [`tokenize`] for a launch, where `@` is a token of its own (`name@ADDR`).
pub fn tokenize_launch(text: &str) -> Result<Vec<Token>, CudaError> {
    Lexer::new(text, true).run()
}

struct Lexer<'a> {
    chars: Vec<char>,
    at: usize,
    line: u32,
    column: u32,
    line_start: bool,
    space: bool,
    out: Vec<Token>,
    /// Whether `@` is a token (a launch) or an error (source).
    at_sign: bool,
    _source: &'a str,
}

impl<'a> Lexer<'a> {
    fn new(source: &'a str, at_sign: bool) -> Lexer<'a> {
        Lexer {
            chars: source.chars().collect(),
            at: 0,
            line: 1,
            column: 1,
            line_start: true,
            space: false,
            out: Vec::new(),
            at_sign,
            _source: source,
        }
    }

    fn peek(&self, k: usize) -> Option<char> {
        let mut at = self.at;
        let mut left = k;
        loop {
            // A backslash-newline is not there at all.
            while self.chars.get(at) == Some(&'\\') && self.is_newline_at(at + 1) {
                at += if self.chars.get(at + 1) == Some(&'\r')
                    && self.chars.get(at + 2) == Some(&'\n')
                {
                    3
                } else {
                    2
                };
            }
            let c = self.chars.get(at).copied()?;
            if left == 0 {
                return Some(c);
            }
            left -= 1;
            at += 1;
        }
    }

    fn is_newline_at(&self, at: usize) -> bool {
        matches!(self.chars.get(at), Some('\n' | '\r'))
    }

    fn pos(&self) -> Pos {
        Pos { line: self.line, column: self.column }
    }

    /// Moves past one character (and any continuation before it).
    fn bump(&mut self) -> Option<char> {
        loop {
            if self.chars.get(self.at) == Some(&'\\') && self.is_newline_at(self.at + 1) {
                self.at += 1;
                self.newline();
                continue;
            }
            let c = self.chars.get(self.at).copied()?;
            self.at += 1;
            if c == '\n' || c == '\r' {
                if c == '\r' && self.chars.get(self.at) == Some(&'\n') {
                    self.at += 1;
                }
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
            return Some(c);
        }
    }

    /// Moves past a newline after a continuation backslash.
    fn newline(&mut self) {
        if self.chars.get(self.at) == Some(&'\r') && self.chars.get(self.at + 1) == Some(&'\n') {
            self.at += 2;
        } else {
            self.at += 1;
        }
        self.line += 1;
        self.column = 1;
    }

    fn push(&mut self, tok: Tok, pos: Pos) {
        self.out.push(Token {
            tok,
            pos,
            line_start: std::mem::replace(&mut self.line_start, false),
            space_before: std::mem::replace(&mut self.space, false),
        });
    }

    fn run(mut self) -> Result<Vec<Token>, CudaError> {
        while let Some(c) = self.peek(0) {
            let pos = self.pos();
            match c {
                '\n' | '\r' => {
                    self.bump();
                    self.line_start = true;
                    self.space = true;
                }
                c if c.is_whitespace() => {
                    self.bump();
                    self.space = true;
                }
                '/' if self.peek(1) == Some('/') => {
                    while self.peek(0).is_some_and(|c| c != '\n' && c != '\r') {
                        self.bump();
                    }
                    self.space = true;
                }
                '/' if self.peek(1) == Some('*') => {
                    self.bump();
                    self.bump();
                    loop {
                        match self.bump() {
                            None => return Err(CudaError::new(pos, ErrorKind::UnclosedComment)),
                            Some('*') if self.peek(0) == Some('/') => {
                                self.bump();
                                break;
                            }
                            Some(_) => {}
                        }
                    }
                    self.space = true;
                }
                c if c.is_ascii_alphabetic() || c == '_' => {
                    let mut name = String::new();
                    while let Some(c) = self
                        .peek(0)
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                    {
                        name.push(c);
                        self.bump();
                    }
                    // A prefixed literal: u8"…", L'x'.
                    if matches!(name.as_str(), "u8" | "u" | "U" | "L")
                        && matches!(self.peek(0), Some('"' | '\''))
                    {
                        let tok = self.quoted(pos)?;
                        self.push(tok, pos);
                    } else {
                        self.push(Tok::Ident(name), pos);
                    }
                }
                c if c.is_ascii_digit()
                    || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) =>
                {
                    let tok = self.number(pos)?;
                    self.push(tok, pos);
                }
                '"' | '\'' => {
                    let tok = self.quoted(pos)?;
                    self.push(tok, pos);
                }
                '@' if self.at_sign => {
                    self.bump();
                    self.push(Tok::Punct(Punct::At), pos);
                }
                _ => {
                    let Some(&(text, punct)) = PUNCTS.iter().find(|(text, _)| {
                        text.chars()
                            .enumerate()
                            .all(|(k, t)| self.peek(k) == Some(t))
                    }) else {
                        return Err(CudaError::new(pos, ErrorKind::UnexpectedChar(c)));
                    };
                    for _ in 0..text.chars().count() {
                        self.bump();
                    }
                    self.push(Tok::Punct(punct), pos);
                }
            }
        }
        Ok(self.out)
    }

    /// A number: its digits, then its suffix, both checked.
    fn number(&mut self, pos: Pos) -> Result<Tok, CudaError> {
        let mut text = String::new();
        // pp-number: digits, letters, dots, digit separators, and a sign after an exponent.
        while let Some(c) = self.peek(0) {
            let exponent_sign = matches!(c, '+' | '-')
                && matches!(text.chars().last(), Some('e' | 'E' | 'p' | 'P'))
                && !text.starts_with("0x")
                && !text.starts_with("0X")
                || matches!(c, '+' | '-') && matches!(text.chars().last(), Some('p' | 'P'));
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || exponent_sign {
                text.push(c);
                self.bump();
            } else if c == '\'' && self.peek(1).is_some_and(|d| d.is_ascii_hexdigit()) {
                self.bump();
            } else {
                break;
            }
        }
        let bad = || CudaError::new(pos, ErrorKind::BadNumber(text.clone()));
        let lower = text.to_ascii_lowercase();
        let is_hex = lower.starts_with("0x");
        let is_float = !is_hex && (lower.contains('.') || lower.contains('e'))
            || is_hex && lower.contains('p');
        if is_float {
            if is_hex {
                return Err(bad());
            }
            let (digits, single) = match lower.strip_suffix('f') {
                Some(d) => (d, true),
                None => (lower.strip_suffix('l').unwrap_or(&lower), false),
            };
            let value: f64 = digits.parse().map_err(|_| bad())?;
            return Ok(Tok::Float { value, single });
        }
        let (body, radix, decimal) = if let Some(hex) = lower.strip_prefix("0x") {
            (hex, 16, false)
        } else if let Some(bin) = lower.strip_prefix("0b") {
            (bin, 2, false)
        } else if lower.len() > 1 && lower.starts_with('0') {
            (&lower[1..], 8, false)
        } else {
            (lower.as_str(), 10, true)
        };
        let split = body
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(body.len());
        let (digits, suffix_text) = body.split_at(split);
        let suffix = match suffix_text {
            "" => IntSuffix::default(),
            "u" => IntSuffix { unsigned: true, longs: 0 },
            "l" => IntSuffix { unsigned: false, longs: 1 },
            "ul" | "lu" => IntSuffix { unsigned: true, longs: 1 },
            "ll" => IntSuffix { unsigned: false, longs: 2 },
            "ull" | "llu" => IntSuffix { unsigned: true, longs: 2 },
            _ => return Err(bad()),
        };
        // The text's `ll` must be one case: `lL` is not a suffix.
        if text.contains("lL") || text.contains("Ll") {
            return Err(bad());
        }
        let digits = if digits.is_empty() && radix == 8 {
            "0"
        } else {
            digits
        };
        if digits.is_empty() {
            return Err(bad());
        }
        let value = u128::from_str_radix(digits, radix).map_err(|_| bad())?;
        if value > u128::from(u64::MAX) {
            return Err(CudaError::new(pos, ErrorKind::NumberTooLarge(text.clone())));
        }
        Ok(Tok::Int { value, suffix, decimal })
    }

    /// A character or string literal, with C's escapes.
    fn quoted(&mut self, pos: Pos) -> Result<Tok, CudaError> {
        let Some(quote) = self.bump() else {
            return Err(CudaError::new(pos, ErrorKind::UnclosedLiteral));
        };
        let mut text = String::new();
        loop {
            match self.bump() {
                None | Some('\n' | '\r') => {
                    return Err(CudaError::new(pos, ErrorKind::UnclosedLiteral))
                }
                Some(c) if c == quote => break,
                Some('\\') => {
                    let Some(e) = self.bump() else {
                        return Err(CudaError::new(pos, ErrorKind::UnclosedLiteral));
                    };
                    text.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        'a' => '\u{7}',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'v' => '\u{b}',
                        other => other,
                    });
                }
                Some(c) => text.push(c),
            }
        }
        if quote == '"' {
            return Ok(Tok::Str(text));
        }
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(Tok::Char(u32::from(c))),
            _ => Err(CudaError::new(pos, ErrorKind::BadCharLiteral)),
        }
    }
}
