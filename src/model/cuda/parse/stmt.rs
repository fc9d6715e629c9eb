//! Statements: blocks, declarations, the control flow of the subset, and expression
//! statements. `goto`, `try` and inline `asm` are refused with their position.

use super::super::ast::{Stmt, StmtKind};
use super::super::error::CudaError;
use super::super::lex::{Punct, Tok};
use super::cursor::Cursor;

impl Cursor<'_> {
    /// The statements of a block whose `{` is behind the cursor, through its `}`.
    pub(super) fn block_rest(&mut self) -> Result<Vec<Stmt>, CudaError> {
        let mut body = Vec::new();
        while !self.eat(Punct::RBrace) {
            if self.at_end() {
                return Err(self.expected("'}' to close the block"));
            }
            body.push(self.statement()?);
        }
        Ok(body)
    }

    /// One statement.
    pub(super) fn statement(&mut self) -> Result<Stmt, CudaError> {
        self.nested(Self::statement_inner)
    }

    fn statement_inner(&mut self) -> Result<Stmt, CudaError> {
        let pos = self.pos();
        let stmt = |kind| Ok(Stmt { kind, pos });
        if self.eat(Punct::Semi) {
            return stmt(StmtKind::Empty);
        }
        if self.eat(Punct::LBrace) {
            return stmt(StmtKind::Block(self.block_rest()?));
        }
        match self.peek_word() {
            Some("if") => {
                self.advance();
                self.eat_word("constexpr");
                let cond = self.condition()?;
                let then = Box::new(self.statement()?);
                let otherwise = if self.eat_word("else") {
                    Some(Box::new(self.statement()?))
                } else {
                    None
                };
                return stmt(StmtKind::If { cond, then, otherwise });
            }
            Some("for") => {
                self.advance();
                self.require(Punct::LParen, "'(' after 'for'")?;
                let init = if self.eat(Punct::Semi) {
                    None
                } else if self.declaration_ahead() {
                    let start = self.at;
                    let (storage, ty) = self.specifiers()?;
                    let d = self.declarator(ty.clone())?;
                    if self.peek_is(Punct::Colon) {
                        return Err(self.unsupported("a range-based for loop"));
                    }
                    let mut declarators = vec![d];
                    while self.eat(Punct::Comma) {
                        declarators.push(self.declarator(ty.clone())?);
                    }
                    self.require(Punct::Semi, "';' after the loop's declaration")?;
                    Some(Box::new(Stmt {
                        kind: StmtKind::Decl(super::super::ast::Decl {
                            storage,
                            declarators,
                            pos: self.pos_at(start),
                        }),
                        pos: self.pos_at(start),
                    }))
                } else {
                    let e_pos = self.pos();
                    let e = self.expr()?;
                    self.require(Punct::Semi, "';' after the loop's start")?;
                    Some(Box::new(Stmt { kind: StmtKind::Expr(e), pos: e_pos }))
                };
                let cond = if self.peek_is(Punct::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.require(Punct::Semi, "';' after the loop's condition")?;
                let step = if self.peek_is(Punct::RParen) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.require(Punct::RParen, "')' after the loop's step")?;
                let body = Box::new(self.statement()?);
                return stmt(StmtKind::For { init, cond, step, body });
            }
            Some("while") => {
                self.advance();
                let cond = self.condition()?;
                let body = Box::new(self.statement()?);
                return stmt(StmtKind::While { cond, body });
            }
            Some("do") => {
                self.advance();
                let body = Box::new(self.statement()?);
                if !self.eat_word("while") {
                    return Err(self.expected("'while' after the do loop's body"));
                }
                let cond = self.condition()?;
                self.require(Punct::Semi, "';' after do … while (…)")?;
                return stmt(StmtKind::DoWhile { body, cond });
            }
            Some("switch") => {
                self.advance();
                let cond = self.condition()?;
                let body = Box::new(self.statement()?);
                return stmt(StmtKind::Switch { cond, body });
            }
            Some("case") => {
                self.advance();
                let e = self.conditional()?;
                self.require(Punct::Colon, "':' after the case's value")?;
                return stmt(StmtKind::Case(e));
            }
            Some("default") if self.peek_at_is(1, Punct::Colon) => {
                self.advance();
                self.advance();
                return stmt(StmtKind::Default);
            }
            Some("break") => {
                self.advance();
                self.require(Punct::Semi, "';' after 'break'")?;
                return stmt(StmtKind::Break);
            }
            Some("continue") => {
                self.advance();
                self.require(Punct::Semi, "';' after 'continue'")?;
                return stmt(StmtKind::Continue);
            }
            Some("return") => {
                self.advance();
                let value = if self.peek_is(Punct::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.require(Punct::Semi, "';' after the return")?;
                return stmt(StmtKind::Return(value));
            }
            Some("goto") => return Err(self.unsupported("goto")),
            Some("try") => return Err(self.unsupported("an exception")),
            Some("asm" | "__asm__") => return Err(self.unsupported("inline asm")),
            Some("typedef" | "using") => {
                return Err(self.unsupported("a type alias inside a function"))
            }
            _ => {}
        }
        if self.declaration_ahead() {
            let start = self.at;
            let (storage, ty) = self.specifiers()?;
            let decl = self.declaration_rest(storage, ty, start)?;
            return stmt(StmtKind::Decl(decl));
        }
        let e = self.expr()?;
        self.require(Punct::Semi, "';' after the expression")?;
        stmt(StmtKind::Expr(e))
    }

    /// `( expression )` of an `if`, `while` or `switch`.
    fn condition(&mut self) -> Result<super::super::ast::Expr, CudaError> {
        self.require(Punct::LParen, "'(' and a condition")?;
        let e = self.expr()?;
        self.require(Punct::RParen, "')' after the condition")?;
        Ok(e)
    }

    /// Whether a declaration starts here: specifiers, then a declared name (not `T(x)`).
    fn declaration_ahead(&self) -> bool {
        if !self.starts_type() && !self.unknown_type_ahead() {
            return false;
        }
        let mut probe = Cursor::new_at(self, self.at);
        if probe.specifiers().is_err() {
            return false;
        }
        let _ = probe.pointer_suffix(super::super::ast::Type::of(super::super::ast::Base::Void));
        matches!(probe.peek(), Some(Tok::Ident(w)) if !super::cursor::is_keyword(w))
    }
}
