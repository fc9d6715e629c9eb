//! An `#if` or `#elif` condition after `defined` and the macros are resolved: C's integer
//! constant expression, evaluated on 128 bits so that no `long long` or `unsigned long long`
//! value overflows it.

use super::super::error::{CudaError, ErrorKind, Pos};
use super::super::lex::{Punct, Tok, Token};

/// An `#if` condition's integer constant expression, evaluated as `long long`: names left
/// after expansion are 0, `true` is 1.
pub(super) struct Condition<'a> {
    pub(super) tokens: &'a [Token],
    pub(super) at: usize,
    pub(super) pos: Pos,
}

impl Condition<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    fn error(&self, why: &str) -> CudaError {
        let pos = self.tokens.get(self.at).map_or(self.pos, |t| t.pos);
        CudaError::new(pos, ErrorKind::BadCondition(why.to_string()))
    }

    fn eat(&mut self, p: Punct) -> bool {
        if self.peek().is_some_and(|t| t.is(p)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn ternary(&mut self) -> Result<i128, CudaError> {
        let cond = self.binary(1)?;
        if !self.eat(Punct::Question) {
            return Ok(cond);
        }
        let a = self.ternary()?;
        if !self.eat(Punct::Colon) {
            return Err(self.error("expected ':' in the conditional"));
        }
        let b = self.ternary()?;
        Ok(if cond != 0 { a } else { b })
    }

    fn binary(&mut self, min: u8) -> Result<i128, CudaError> {
        let mut lhs = self.unary()?;
        loop {
            let Some(Tok::Punct(p)) = self.peek() else {
                return Ok(lhs);
            };
            let p = *p;
            let Some(prec) = precedence(p).filter(|&q| q >= min) else {
                return Ok(lhs);
            };
            let op_at = self.at;
            self.at += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = match p {
                Punct::OrOr => i128::from(lhs != 0 || rhs != 0),
                Punct::AndAnd => i128::from(lhs != 0 && rhs != 0),
                Punct::Pipe => lhs | rhs,
                Punct::Caret => lhs ^ rhs,
                Punct::Amp => lhs & rhs,
                Punct::EqEq => i128::from(lhs == rhs),
                Punct::Ne => i128::from(lhs != rhs),
                Punct::Lt => i128::from(lhs < rhs),
                Punct::Gt => i128::from(lhs > rhs),
                Punct::Le => i128::from(lhs <= rhs),
                Punct::Ge => i128::from(lhs >= rhs),
                Punct::Shl => lhs.checked_shl(rhs.clamp(0, 127) as u32).unwrap_or(0),
                Punct::Shr => lhs >> rhs.clamp(0, 127),
                Punct::Plus => lhs.wrapping_add(rhs),
                Punct::Minus => lhs.wrapping_sub(rhs),
                Punct::Star => lhs.wrapping_mul(rhs),
                Punct::Slash | Punct::Percent if rhs == 0 => {
                    self.at = op_at;
                    return Err(self.error("division by zero"));
                }
                Punct::Slash => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
    }

    fn unary(&mut self) -> Result<i128, CudaError> {
        let Some(tok) = self.peek().cloned() else {
            return Err(self.error("the condition ends too soon"));
        };
        self.at += 1;
        match tok {
            Tok::Int { value, .. } => Ok(value as i128),
            Tok::Char(c) => Ok(i128::from(c)),
            Tok::Ident(name) => Ok(i128::from(name == "true")),
            Tok::Punct(Punct::Minus) => Ok(self.unary()?.wrapping_neg()),
            Tok::Punct(Punct::Plus) => self.unary(),
            Tok::Punct(Punct::Bang) => Ok(i128::from(self.unary()? == 0)),
            Tok::Punct(Punct::Tilde) => Ok(!self.unary()?),
            Tok::Punct(Punct::LParen) => {
                let v = self.ternary()?;
                if !self.eat(Punct::RParen) {
                    return Err(self.error("expected ')'"));
                }
                Ok(v)
            }
            other => {
                self.at -= 1;
                Err(self.error(&format!("'{}' cannot start a value", other.spelling())))
            }
        }
    }
}

/// C's binding strength of a binary operator in a condition.
fn precedence(p: Punct) -> Option<u8> {
    Some(match p {
        Punct::OrOr => 1,
        Punct::AndAnd => 2,
        Punct::Pipe => 3,
        Punct::Caret => 4,
        Punct::Amp => 5,
        Punct::EqEq | Punct::Ne => 6,
        Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge => 7,
        Punct::Shl | Punct::Shr => 8,
        Punct::Plus | Punct::Minus => 9,
        Punct::Star | Punct::Slash | Punct::Percent => 10,
        _ => return None,
    })
}
