//! Expressions, with C++'s precedence and associativity. An expression's position is where
//! it begins: `a[i]` at `a`, `*p` at the `*`, `x = y` at `x`.
//!
//! One idea, an expression read from tokens: its operators, primaries, names, casts and the
//! look-ahead that tells template arguments from comparisons (host code's launches, `new` and
//! `delete` are expressions too, read only where host code is).

use super::super::ast::{BinaryOp, CastKind, Expr, ExprKind, TemplateArg, Type, UnaryOp};
use super::super::error::{CudaError, ErrorKind};
use super::super::lex::{Punct, Tok};
use super::cursor::{builtin, Cursor, TemplateCalls};
use std::cell::RefCell;

/// The binary operator a punctuator spells, with C's binding strength (larger binds tighter).
fn binary_op(p: Punct) -> Option<(BinaryOp, u8)> {
    let op = match p {
        Punct::OrOr => BinaryOp::Or,
        Punct::AndAnd => BinaryOp::And,
        Punct::Pipe => BinaryOp::BitOr,
        Punct::Caret => BinaryOp::BitXor,
        Punct::Amp => BinaryOp::BitAnd,
        Punct::EqEq => BinaryOp::Eq,
        Punct::Ne => BinaryOp::Ne,
        Punct::Lt => BinaryOp::Lt,
        Punct::Gt => BinaryOp::Gt,
        Punct::Le => BinaryOp::Le,
        Punct::Ge => BinaryOp::Ge,
        Punct::Shl => BinaryOp::Shl,
        Punct::Shr => BinaryOp::Shr,
        Punct::Plus => BinaryOp::Add,
        Punct::Minus => BinaryOp::Sub,
        Punct::Star => BinaryOp::Mul,
        Punct::Slash => BinaryOp::Div,
        Punct::Percent => BinaryOp::Rem,
        _ => return None,
    };
    Some((op, op.precedence()))
}

fn assign_op(p: Punct) -> Option<Option<BinaryOp>> {
    Some(match p {
        Punct::Assign => None,
        Punct::StarAssign => Some(BinaryOp::Mul),
        Punct::SlashAssign => Some(BinaryOp::Div),
        Punct::PercentAssign => Some(BinaryOp::Rem),
        Punct::PlusAssign => Some(BinaryOp::Add),
        Punct::MinusAssign => Some(BinaryOp::Sub),
        Punct::ShlAssign => Some(BinaryOp::Shl),
        Punct::ShrAssign => Some(BinaryOp::Shr),
        Punct::AmpAssign => Some(BinaryOp::BitAnd),
        Punct::CaretAssign => Some(BinaryOp::BitXor),
        Punct::PipeAssign => Some(BinaryOp::BitOr),
        _ => return None,
    })
}

fn boxed(kind: ExprKind, pos: super::super::error::Pos) -> Box<Expr> {
    Box::new(Expr { kind, pos })
}

impl Cursor<'_> {
    /// A full expression, commas included.
    pub(super) fn expr(&mut self) -> Result<Expr, CudaError> {
        let first = self.assignment()?;
        if !self.peek_is(Punct::Comma) || self.in_template_args > 0 {
            return Ok(first);
        }
        let mut e = first;
        while self.eat(Punct::Comma) {
            let next = self.assignment()?;
            let pos = e.pos;
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(next)),
                pos,
            };
        }
        Ok(e)
    }

    /// An assignment expression (no top-level comma).
    pub(super) fn assignment(&mut self) -> Result<Expr, CudaError> {
        let lhs = self.conditional()?;
        let Some(Tok::Punct(p)) = self.peek() else {
            return Ok(lhs);
        };
        let Some(op) = assign_op(*p) else {
            return Ok(lhs);
        };
        if self.in_template_args > 0 && *p == Punct::ShrAssign {
            return Ok(lhs);
        }
        self.advance();
        let rhs = self.nested(Self::assignment_or_list)?;
        let pos = lhs.pos;
        Ok(Expr {
            kind: ExprKind::Assign {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            pos,
        })
    }

    /// `c ? a : b`, or a binary expression.
    pub(super) fn conditional(&mut self) -> Result<Expr, CudaError> {
        let cond = self.binary(1)?;
        if !self.eat(Punct::Question) {
            return Ok(cond);
        }
        let then = self.nested(Self::expr)?;
        self.require(Punct::Colon, "':' in the conditional expression")?;
        let otherwise = self.nested(Self::assignment)?;
        let pos = cond.pos;
        Ok(Expr {
            kind: ExprKind::Cond {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            pos,
        })
    }

    fn binary(&mut self, min: u8) -> Result<Expr, CudaError> {
        let start = self.depth;
        let out = self.binary_inner(min);
        self.depth = start;
        out
    }

    /// Each operator folded in makes the tree one level deeper.
    fn binary_inner(&mut self, min: u8) -> Result<Expr, CudaError> {
        let mut lhs = self.unary()?;
        loop {
            if self.pending_gt {
                return Ok(lhs);
            }
            let Some(Tok::Punct(p)) = self.peek() else {
                return Ok(lhs);
            };
            if self.in_template_args > 0 && matches!(p, Punct::Gt | Punct::Shr | Punct::Ge) {
                return Ok(lhs);
            }
            let Some((op, prec)) = binary_op(*p).filter(|&(_, q)| q >= min) else {
                return Ok(lhs);
            };
            self.advance();
            self.deeper()?;
            let rhs = self.binary(prec + 1)?;
            let pos = lhs.pos;
            lhs = Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                pos,
            };
        }
    }

    fn unary(&mut self) -> Result<Expr, CudaError> {
        self.nested(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> Result<Expr, CudaError> {
        let pos = self.pos();
        let op = match self.peek() {
            Some(Tok::Punct(Punct::Minus)) => Some(UnaryOp::Neg),
            Some(Tok::Punct(Punct::Plus)) => Some(UnaryOp::Plus),
            Some(Tok::Punct(Punct::Bang)) => Some(UnaryOp::Not),
            Some(Tok::Punct(Punct::Tilde)) => Some(UnaryOp::BitNot),
            Some(Tok::Punct(Punct::Star)) => Some(UnaryOp::Deref),
            Some(Tok::Punct(Punct::Amp)) => Some(UnaryOp::AddressOf),
            Some(Tok::Punct(Punct::PlusPlus)) => Some(UnaryOp::PreInc),
            Some(Tok::Punct(Punct::MinusMinus)) => Some(UnaryOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.advance();
            let operand = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Unary { op, operand: Box::new(operand) },
                pos,
            });
        }
        match self.peek_word() {
            Some("sizeof") => {
                self.advance();
                if self.peek_is(Punct::LParen) && self.type_in_parens_ahead() {
                    self.advance();
                    let ty = self.type_name()?;
                    self.require(Punct::RParen, "')' after the type")?;
                    return Ok(Expr { kind: ExprKind::SizeofType(ty), pos });
                }
                let operand = self.unary()?;
                return Ok(Expr {
                    kind: ExprKind::SizeofExpr(Box::new(operand)),
                    pos,
                });
            }
            Some("alignof" | "__alignof__") => {
                self.advance();
                self.require(Punct::LParen, "'(' and a type")?;
                let ty = self.type_name()?;
                self.require(Punct::RParen, "')' after the type")?;
                return Ok(Expr { kind: ExprKind::AlignofType(ty), pos });
            }
            Some("new") if self.host => {
                self.advance();
                let ty = self.type_name()?;
                let count = if self.eat(Punct::LBracket) {
                    let n = self.expr()?;
                    self.require(Punct::RBracket, "']' after the count")?;
                    Some(Box::new(n))
                } else {
                    None
                };
                let init = if self.eat(Punct::LParen) {
                    Some(self.list_rest(Punct::RParen)?)
                } else if self.eat(Punct::LBrace) {
                    Some(self.list_rest(Punct::RBrace)?)
                } else {
                    None
                };
                return Ok(Expr {
                    kind: ExprKind::New { ty, count, init },
                    pos,
                });
            }
            Some("delete") if self.host => {
                self.advance();
                let array = self.eat(Punct::LBracket);
                if array {
                    self.require(Punct::RBracket, "']' after delete[")?;
                }
                let operand = self.unary()?;
                return Ok(Expr {
                    kind: ExprKind::Delete { operand: Box::new(operand), array },
                    pos,
                });
            }
            Some("new" | "delete") => return Err(self.unsupported("new and delete in device code")),
            Some("throw") => return Err(self.unsupported("an exception")),
            _ => {}
        }
        // A C cast: `(type) operand`.
        if self.peek_is(Punct::LParen) && self.type_in_parens_ahead() {
            self.advance();
            let ty = self.type_name()?;
            self.require(Punct::RParen, "')' after the cast's type")?;
            let operand = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Cast {
                    kind: CastKind::C,
                    ty,
                    operand: Box::new(operand),
                },
                pos,
            });
        }
        self.postfix()
    }

    /// Whether `( type )` comes next.
    fn type_in_parens_ahead(&self) -> bool {
        let mut probe = Cursor::new_at(self, self.at + 1);
        probe.starts_type() && probe.type_name().is_ok() && probe.peek_is(Punct::RParen)
    }

    fn postfix(&mut self) -> Result<Expr, CudaError> {
        let start = self.depth;
        let out = self.postfix_inner();
        self.depth = start;
        out
    }

    /// Each index, call, member or `++` makes the tree one level deeper.
    fn postfix_inner(&mut self) -> Result<Expr, CudaError> {
        let mut e = self.primary()?;
        loop {
            let pos = e.pos;
            if matches!(
                self.peek(),
                Some(Tok::Punct(
                    Punct::LBracket
                        | Punct::LParen
                        | Punct::Dot
                        | Punct::Arrow
                        | Punct::PlusPlus
                        | Punct::MinusMinus
                ))
            ) {
                self.deeper()?;
            }
            if self.eat(Punct::LBracket) {
                let index = self.expr()?;
                self.require(Punct::RBracket, "']' after the index")?;
                e = Expr {
                    kind: ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(index),
                    },
                    pos,
                };
            } else if self.peek_is(Punct::LParen) {
                self.advance();
                let args = self.list_rest(Punct::RParen)?;
                e = Expr {
                    kind: ExprKind::Call {
                        callee: Box::new(e),
                        template_args: Vec::new(),
                        args,
                    },
                    pos,
                };
            } else if self.peek_is(Punct::Dot) || self.peek_is(Punct::Arrow) {
                let arrow = self.peek_is(Punct::Arrow);
                self.advance();
                self.eat_word("template");
                let (field, _) = self.ident("a member's name")?;
                e = Expr {
                    kind: ExprKind::Member { base: Box::new(e), field, arrow },
                    pos,
                };
            } else if self.eat(Punct::PlusPlus) {
                e = Expr {
                    kind: ExprKind::Unary {
                        op: UnaryOp::PostInc,
                        operand: Box::new(e),
                    },
                    pos,
                };
            } else if self.eat(Punct::MinusMinus) {
                e = Expr {
                    kind: ExprKind::Unary {
                        op: UnaryOp::PostDec,
                        operand: Box::new(e),
                    },
                    pos,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, CudaError> {
        let pos = self.pos();
        let Some(tok) = self.peek() else {
            return Err(self.expected("an expression"));
        };
        let kind = match tok {
            Tok::Int { value, suffix, decimal } => ExprKind::Int {
                value: *value as u64,
                suffix: *suffix,
                decimal: *decimal,
            },
            Tok::Float { value, single } => ExprKind::Float { value: *value, single: *single },
            Tok::Char(c) => ExprKind::Char(*c),
            Tok::Str(s) => {
                // Adjacent literals are one string (C's translation phase 6).
                let mut text = s.clone();
                self.advance();
                while let Some(Tok::Str(next)) = self.peek() {
                    text.push_str(next);
                    self.advance();
                }
                return Ok(Expr { kind: ExprKind::Str(text), pos });
            }
            Tok::Punct(Punct::LParen) => {
                self.advance();
                let e = self.expr()?;
                self.require(Punct::RParen, "')'")?;
                return Ok(Expr { kind: e.kind, pos });
            }
            Tok::Punct(Punct::LBrace) => {
                self.advance();
                let items = self.list_rest(Punct::RBrace)?;
                return Ok(Expr {
                    kind: ExprKind::InitList { ty: None, items },
                    pos,
                });
            }
            Tok::Punct(Punct::LBracket) => return Err(self.unsupported("a lambda")),
            Tok::Ident(word) => match word.as_str() {
                "true" | "false" => ExprKind::Bool(word == "true"),
                "nullptr" | "NULL" => ExprKind::Int {
                    value: 0,
                    suffix: Default::default(),
                    decimal: true,
                },
                "static_cast" | "reinterpret_cast" | "const_cast" => {
                    let kind = match word.as_str() {
                        "static_cast" => CastKind::Static,
                        "reinterpret_cast" => CastKind::Reinterpret,
                        _ => CastKind::Const,
                    };
                    self.advance();
                    self.require(Punct::Lt, "'<' and the cast's type")?;
                    self.in_template_args += 1;
                    let ty = self.type_name();
                    self.in_template_args -= 1;
                    let ty = ty?;
                    if !self.close_angle() {
                        return Err(self.expected("'>' after the cast's type"));
                    }
                    self.require(Punct::LParen, "'(' and the cast's operand")?;
                    let operand = self.expr()?;
                    self.require(Punct::RParen, "')' after the cast's operand")?;
                    return Ok(Expr {
                        kind: ExprKind::Cast { kind, ty, operand: Box::new(operand) },
                        pos,
                    });
                }
                "dynamic_cast" => return Err(self.unsupported("dynamic_cast")),
                "asm" | "__asm__" => return Err(self.unsupported("inline asm")),
                _ => return self.name_expr(),
            },
            Tok::Punct(_) => return Err(self.expected("an expression")),
        };
        self.advance();
        Ok(Expr { kind, pos })
    }

    /// A name: a variable, a function (with template arguments), or a type used as a
    /// functional cast `T(x)` or a constructor `T{…}`.
    fn name_expr(&mut self) -> Result<Expr, CudaError> {
        let pos = self.pos();
        if self.starts_type() && self.peek_word().is_none_or(|w| w != "this") {
            // `float(x)`, `unsigned(x)`, `float4{…}`, `T(0)`.
            let probe_at = self.at;
            let ty = self.type_name()?;
            if self.peek_is(Punct::LParen) {
                self.advance();
                let args = self.list_rest(Punct::RParen)?;
                return Ok(functional(ty, args, pos));
            }
            if self.eat(Punct::LBrace) {
                let items = self.list_rest(Punct::RBrace)?;
                return Ok(Expr {
                    kind: ExprKind::InitList { ty: Some(ty), items },
                    pos,
                });
            }
            self.at = probe_at;
        }
        let (name, _) = self.qualified_ident("a name")?;
        // A kernel launched from host code; from a kernel, refused.
        if self.peek_is(Punct::Shl) && self.peek_at_is(1, Punct::Lt) {
            if self.host {
                return self.launch_expr(name, Vec::new(), pos);
            }
            return Err(self.unsupported("dynamic parallelism (a launch inside a kernel)"));
        }
        // Only a template the file declares may be a template kernel: the look-ahead is not
        // tried at every `<` of host code.
        if self.host
            && self.peek_is(Punct::Lt)
            && self.is_template_name(&name)
            && self.launch_ahead()
        {
            let template_args = self.template_args()?;
            return self.launch_expr(name, template_args, pos);
        }
        // `f<args>(…)`: a template the file declares, or any name whose `<…>` reads as
        // template arguments followed by a call (`cg::plus<int>()`, `min<int>(a, b)`).
        if self.peek_is(Punct::Lt)
            && (self.is_template_name(&name)
                || builtin(&name).is_some()
                || self.template_call_ahead())
        {
            let template_args = self.template_args()?;
            self.require(Punct::LParen, "'(' and the call's arguments")?;
            let args = self.list_rest(Punct::RParen)?;
            return Ok(Expr {
                kind: ExprKind::Call {
                    callee: boxed(ExprKind::Name(name), pos),
                    template_args,
                    args,
                },
                pos,
            });
        }
        Ok(Expr { kind: ExprKind::Name(name), pos })
    }

    /// Whether `<…><<<` comes next: a template kernel's launch.
    fn launch_ahead(&self) -> bool {
        self.args_ahead(&self.launch_calls, |probe| {
            probe.peek_is(Punct::Shl) && probe.peek_at_is(1, Punct::Lt)
        })
    }

    /// The rest of a launch in host code, after the kernel's name and template arguments:
    /// `<<<grid, block[, bytes[, stream]]>>>(args)`.
    fn launch_expr(
        &mut self,
        kernel: String,
        template_args: Vec<TemplateArg>,
        pos: super::super::error::Pos,
    ) -> Result<Expr, CudaError> {
        self.advance();
        self.advance();
        self.in_template_args += 1;
        let mut config = Vec::new();
        loop {
            config.push(self.assignment());
            if config.len() == 4 || !self.eat(Punct::Comma) {
                break;
            }
        }
        self.in_template_args -= 1;
        let config = config.into_iter().collect::<Result<Vec<_>, _>>()?;
        if config.len() < 2 {
            return Err(self.expected("',' and the block"));
        }
        if !(self.eat(Punct::Shr) && self.eat(Punct::Gt)) {
            return Err(self.expected("'>>>' after the launch's configuration"));
        }
        self.require(Punct::LParen, "'(' and the kernel's arguments")?;
        let args = self.list_rest(Punct::RParen)?;
        Ok(Expr {
            kind: ExprKind::Launch { kernel, template_args, config, args },
            pos,
        })
    }

    /// Whether `<…>(` comes next, read as template arguments.
    fn template_call_ahead(&self) -> bool {
        self.args_ahead(&self.template_calls, |probe| probe.peek_is(Punct::LParen))
    }

    /// Whether template arguments come next and `then` holds after them, found once per token
    /// in `memo`: without it, `a<b<c<…` tries each `<` both ways.
    fn args_ahead(
        &self,
        memo: &RefCell<TemplateCalls>,
        then: impl FnOnce(&Cursor<'_>) -> bool,
    ) -> bool {
        use super::cursor::Ahead;
        match memo.borrow().get(&self.at) {
            Some(Ahead::Is(known)) => return *known,
            // It ran into the nesting limit from this deep or shallower: from here too.
            Some(Ahead::TooDeepFrom(depth)) if self.depth >= *depth => return false,
            _ => {}
        }
        let mut probe = Cursor::new_at(self, self.at);
        let read = probe.template_args();
        let found = read.is_ok() && !probe.pending_gt && then(&probe);
        // Inside the arguments, a `>` closes them whatever encloses this `<`, so the answer
        // holds at any depth of template arguments, and at any nesting depth unless the look-
        // ahead ran into the nesting limit: then it holds from this depth down.
        let too_deep = matches!(&read, Err(e) if matches!(e.kind, ErrorKind::TooDeep { .. }));
        let answer = if too_deep {
            Ahead::TooDeepFrom(self.depth)
        } else {
            Ahead::Is(found)
        };
        memo.borrow_mut().insert(self.at, answer);
        found
    }

    /// A braced list `{…}` where one may stand (an assigned value, an argument, an
    /// element), or an assignment expression.
    fn assignment_or_list(&mut self) -> Result<Expr, CudaError> {
        if !self.peek_is(Punct::LBrace) {
            return self.assignment();
        }
        let pos = self.pos();
        self.advance();
        Ok(Expr {
            kind: ExprKind::InitList {
                ty: None,
                items: self.list_rest(Punct::RBrace)?,
            },
            pos,
        })
    }

    /// Comma-separated expressions up to `close`, which is consumed.
    pub(super) fn list_rest(&mut self, close: Punct) -> Result<Vec<Expr>, CudaError> {
        let mut items = Vec::new();
        let saved = std::mem::take(&mut self.in_template_args);
        let result = (|| {
            if self.eat(close) {
                return Ok(());
            }
            loop {
                items.push(self.assignment_or_list()?);
                if self.eat(close) {
                    return Ok(());
                }
                if !self.eat(Punct::Comma) {
                    return Err(self.expected(if close == Punct::RParen {
                        "',' or ')'"
                    } else {
                        "',' or '}'"
                    }));
                }
                // A trailing comma in a braced list.
                if close == Punct::RBrace && self.eat(close) {
                    return Ok(());
                }
            }
        })();
        self.in_template_args = saved;
        result.map(|()| items)
    }
}

/// `T(args)`: one argument is a cast, more (or none) construct a `T`.
fn functional(ty: Type, mut args: Vec<Expr>, pos: super::super::error::Pos) -> Expr {
    if args.len() == 1 {
        if let Some(operand) = args.pop() {
            return Expr {
                kind: ExprKind::Cast {
                    kind: CastKind::C,
                    ty,
                    operand: Box::new(operand),
                },
                pos,
            };
        }
    }
    Expr {
        kind: ExprKind::InitList { ty: Some(ty), items: args },
        pos,
    }
}
