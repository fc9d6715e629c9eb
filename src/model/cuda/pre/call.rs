//! A function-like macro's call: its arguments split at top-level commas, and the `##`
//! paste of two tokens into one.

use super::super::error::{CudaError, ErrorKind};
use super::super::lex::{Punct, Tok, Token};

/// The arguments of a call whose `(` is at `open`: top-level commas split them. Returns them
/// and the position after the `)`.
pub(super) fn arguments(
    tokens: &[Token],
    open: usize,
    name_token: &Token,
    name: &str,
) -> Result<(Vec<Vec<Token>>, usize), CudaError> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    let mut at = open + 1;
    while let Some(t) = tokens.get(at) {
        at += 1;
        match &t.tok {
            Tok::Punct(Punct::LParen) => depth += 1,
            Tok::Punct(Punct::RParen) if depth == 0 => return Ok((args, at)),
            Tok::Punct(Punct::RParen) => depth -= 1,
            Tok::Punct(Punct::Comma) if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(t.clone());
        }
    }
    Err(CudaError::new(
        name_token.pos,
        ErrorKind::UnclosedMacroCall(name.to_string()),
    ))
}

/// Two tokens pasted by `##` into one: names and numbers join; anything else must make a
/// punctuator.
pub(super) fn paste(left: &Token, right: &Token) -> Result<Token, CudaError> {
    let text = format!("{}{}", left.tok.spelling(), right.tok.spelling());
    let mut tokens =
        super::super::lex::tokenize(&text).map_err(|e| CudaError::new(left.pos, e.kind))?;
    match (tokens.len(), tokens.pop()) {
        (1, Some(t)) => Ok(Token { tok: t.tok, ..left.clone() }),
        _ => Err(CudaError::new(
            left.pos,
            ErrorKind::BadDirective {
                directive: "define",
                why: "## must make one token",
            },
        )),
    }
}
