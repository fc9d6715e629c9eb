//! Parsing: tokens into the tree by precedence climbing, C's precedence and associativity,
//! with the length and depth limits and column-accurate errors.

use super::lex::{tokenize, Tok, Token};
use super::{
    BinaryOp, Func, Names, Node, ParseError, ParseErrorKind, UnaryOp, MAX_CHARS, MAX_DEPTH,
};

pub(super) fn parse(text: &str, names: Names) -> Result<Node, ParseError> {
    let chars = text.chars().count();
    if chars > MAX_CHARS {
        return Err(ParseError { kind: ParseErrorKind::TooLong { chars } });
    }
    let tokens = tokenize(text, names)?;
    if tokens.is_empty() {
        return Err(ParseError { kind: ParseErrorKind::Empty });
    }
    let mut parser = Parser { tokens: &tokens, pos: 0, depth: 0 };
    let root = parser.conditional()?;
    match parser.peek() {
        None => Ok(root),
        Some(tok) => Err(tok.unexpected("an operator or the end of the expression")),
    }
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self) -> Option<&'static str> {
        match self.peek() {
            Some(Token { tok: Tok::Op(op), .. }) => Some(op),
            _ => None,
        }
    }

    fn next(&mut self, expected: &'static str) -> Result<&Token, ParseError> {
        let tok = self.tokens.get(self.pos).ok_or(ParseError {
            kind: ParseErrorKind::UnexpectedEnd { expected },
        })?;
        self.pos += 1;
        Ok(tok)
    }

    fn expect_op(&mut self, op: &'static str, expected: &'static str) -> Result<(), ParseError> {
        let tok = self.next(expected)?;
        if tok.tok == Tok::Op(op) {
            Ok(())
        } else {
            Err(tok.unexpected(expected))
        }
    }

    /// Every recursive entry point goes through here, so nesting can't exhaust the stack.
    fn nested<T>(
        &mut self,
        column: usize,
        inner: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError { kind: ParseErrorKind::TooDeep { column } });
        }
        self.depth += 1;
        let result = inner(self);
        self.depth -= 1;
        result
    }

    fn column(&self) -> usize {
        self.peek().map_or(0, |t| t.column)
    }

    /// `cond ? a : b`, right associative, below every binary operator.
    fn conditional(&mut self) -> Result<Node, ParseError> {
        let cond = self.binary(1)?;
        if self.peek_op() != Some("?") {
            return Ok(cond);
        }
        let column = self.column();
        self.pos += 1;
        self.nested(column, |p| {
            let then = p.conditional()?;
            p.expect_op(":", "':' of a conditional")?;
            let otherwise = p.conditional()?;
            Ok(Node::Cond(
                Box::new(cond),
                Box::new(then),
                Box::new(otherwise),
            ))
        })
    }

    /// Precedence climbing over the left-associative binary operators.
    fn binary(&mut self, min_precedence: u8) -> Result<Node, ParseError> {
        let mut lhs = self.unary()?;
        loop {
            let Some(op) = self.peek_op().and_then(binary_op) else {
                return Ok(lhs);
            };
            if op.precedence() < min_precedence {
                return Ok(lhs);
            }
            let column = self.column();
            self.pos += 1;
            let rhs = self.binary(op.precedence() + 1)?;
            lhs = Node::Binary {
                op,
                column,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            };
        }
    }

    fn unary(&mut self) -> Result<Node, ParseError> {
        let op = match self.peek_op() {
            Some("-") => UnaryOp::Neg,
            Some("+") => UnaryOp::Plus,
            Some("!") => UnaryOp::Not,
            Some("~") => UnaryOp::BitNot,
            _ => return self.primary(),
        };
        let column = self.column();
        self.pos += 1;
        self.nested(column, |p| {
            Ok(Node::Unary {
                op,
                column,
                operand: Box::new(p.unary()?),
            })
        })
    }

    fn primary(&mut self) -> Result<Node, ParseError> {
        const OPERAND: &str = "a number, t, a function or '('";
        let tok = self.next(OPERAND)?.clone();
        match &tok.tok {
            Tok::Int(v) => Ok(Node::Int(*v)),
            Tok::Lane => Ok(Node::Lane),
            Tok::Var(var) => Ok(Node::Var(*var)),
            Tok::Func(func) => {
                let func = *func;
                self.expect_op("(", "'(' after a function name")?;
                self.nested(tok.column, |p| p.call(func, tok.column))
            }
            Tok::Name(name, names) => Err(ParseError {
                kind: ParseErrorKind::UnknownName {
                    column: tok.column,
                    name: name.clone(),
                    names: *names,
                },
            }),
            Tok::Op("(") => self.nested(tok.column, |p| {
                let inner = p.conditional()?;
                p.expect_op(")", "')'")?;
                Ok(inner)
            }),
            Tok::Op(_) => Err(tok.unexpected(OPERAND)),
        }
    }

    fn call(&mut self, func: Func, column: usize) -> Result<Node, ParseError> {
        let mut args = Vec::new();
        if self.peek_op() != Some(")") {
            loop {
                args.push(self.conditional()?);
                if self.peek_op() != Some(",") {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect_op(")", "',' or ')' in a function call")?;
        let found = args.len();
        let mut args = args.into_iter().map(Box::new);
        match (func, args.next(), args.next(), args.next()) {
            (Func::Abs, Some(arg), None, None) => Ok(Node::Abs { column, arg }),
            (Func::Min | Func::Max, Some(a), Some(b), None) => {
                Ok(Node::MinMax { max: func == Func::Max, a, b })
            }
            _ => Err(ParseError {
                kind: ParseErrorKind::WrongArity { column, func, found },
            }),
        }
    }
}

fn binary_op(symbol: &str) -> Option<BinaryOp> {
    Some(match symbol {
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        "%" => BinaryOp::Rem,
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "<<" => BinaryOp::Shl,
        ">>" => BinaryOp::Shr,
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::Le,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::Ge,
        "==" => BinaryOp::Eq,
        "!=" => BinaryOp::Ne,
        "&" => BinaryOp::BitAnd,
        "^" => BinaryOp::BitXor,
        "|" => BinaryOp::BitOr,
        "&&" => BinaryOp::And,
        "||" => BinaryOp::Or,
        _ => return None,
    })
}
