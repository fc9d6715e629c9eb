//! A warp that stops at `__syncthreads()` and goes on later, so that a block runs barrier by
//! barrier: every warp to its first barrier, then every warp to its next, as the hardware's
//! barrier orders them. A warp's memory operations after a barrier then come after every
//! other warp's before it, which real values in memory need.
//!
//! The run is a tree walk. A warp parks by unwinding it: the barrier's statement ends with
//! [`RunErrorKind::Parked`], and each statement it unwinds through records where it stood
//! (a [`Level`]), innermost first, while the warp's variables, frames and flows stay as they
//! are. It resumes by walking down again, each statement taking its level from the end
//! (outermost first) and going on from there.
//!
//! A warp parks at a barrier that ends a statement (an expression statement, a declaration or
//! a `return`), in any block, branch or loop, and inside a function called by a whole
//! statement (`f(…);`, `x = f(…);`, `T x = f(…);`, `return f(…);`). A barrier elsewhere (in a
//! condition, a `switch`, a loop's header, or a function called inside a larger expression)
//! does not park its warp: the warp runs on past it.

use super::super::super::ast::{Expr, ExprKind, Init, Stmt, StmtKind};
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::Ty;
use super::{Frame, Var, Warp, R};

/// Where a parked warp stands in one statement.
#[derive(Clone, Debug)]
pub(super) enum Level {
    /// In a list of statements (a block, a function's or the kernel's body), at statement
    /// `at`: inside it when levels follow, or just after it when this is the innermost.
    Seq { at: usize, scope: Scope },
    /// In an `if`'s branch (`then`, or the `else`), run by `lanes`; `no` are the lanes of the
    /// `else`.
    If {
        then: bool,
        lanes: u64,
        no: u64,
        scope: Scope,
    },
    /// In a loop's body, run by `alive` on its `iterations`-th iteration.
    Loop {
        alive: u64,
        iterations: u64,
        outer: Scope,
        inner: Scope,
    },
    /// In the body of the call that a whole statement makes.
    Call {
        item: usize,
        mask: u64,
        names_base: usize,
        vars_base: usize,
        ret_ty: Ty,
    },
    /// In a statement whose call parked: its value is assigned when the call returns.
    Stmt,
}

/// How many names and variables a scope began with: those after them end with it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scope {
    names: usize,
    vars: usize,
}

/// A parked warp: what it holds, and where it stands.
#[derive(Debug)]
pub(crate) struct Parked {
    pub(super) vars: Vec<Var>,
    pub(super) names: Vec<(String, usize)>,
    pub(super) frames: Vec<Frame>,
    pub(super) iterations: u64,
    pub(super) enclosing: Vec<u32>,
    /// Innermost first.
    pub(super) levels: Vec<Level>,
}

impl RunError {
    /// Whether this is a warp parking at a barrier rather than an error.
    pub(super) fn is_parked(&self) -> bool {
        matches!(*self.kind, RunErrorKind::Parked)
    }
}

/// A level that is not the statement's own: a bug.
fn mismatch() -> RunError {
    RunError::at(
        Pos::default(),
        RunErrorKind::Internal("a parked warp resumed into another statement"),
    )
}

impl Warp<'_> {
    /// The scope that begins here.
    pub(super) fn mark(&self) -> Scope {
        Scope {
            names: self.names.len(),
            vars: self.vars.len(),
        }
    }

    /// Ends `scope`: the names and variables declared in it.
    pub(super) fn unscope(&mut self, scope: Scope) {
        self.names.truncate(scope.names);
        self.vars.truncate(scope.vars);
    }

    /// Whether a barrier met now may park the warp.
    pub(super) fn may_park(&self) -> bool {
        self.phased && self.nosuspend == 0 && !self.constant
    }

    /// The end of a statement: parks the warp when a barrier was met in it.
    pub(super) fn statement_end(&mut self) -> R<()> {
        if std::mem::take(&mut self.at_barrier) {
            return Err(RunError::at(Pos::default(), RunErrorKind::Parked));
        }
        Ok(())
    }

    /// A barrier met where the warp cannot park (a condition, a loop's header): the warp runs
    /// on past it.
    pub(super) fn run_past_barrier(&mut self) {
        self.at_barrier = false;
    }

    /// Runs `f` with no barrier parking the warp.
    pub(super) fn unparked<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.nosuspend += 1;
        let out = f(self);
        self.nosuspend -= 1;
        out
    }

    /// When resuming, this statement's level (the outermost left).
    pub(super) fn resumed(&mut self) -> Option<Level> {
        self.levels.pop()
    }

    /// Whether the statement that took the last level was where the warp parked (no levels
    /// are left to walk down).
    pub(super) fn resumed_here(&self) -> bool {
        self.levels.is_empty()
    }

    /// `out` of a statement that parked records `level`; any other result passes.
    pub(super) fn on_park<T>(&mut self, out: R<T>, level: impl FnOnce() -> Level) -> R<T> {
        if let Err(e) = &out {
            if e.is_parked() {
                self.levels.push(level());
            }
        }
        out
    }

    /// Runs the statements of `list` with the lanes of `m`, resumably; a block's own scope
    /// (`scoped`) ends with it.
    pub(super) fn seq(&mut self, list: &[Stmt], m: u64, scoped: bool) -> R<()> {
        let mut start = 0;
        let mut scope = self.mark();
        if let Some(level) = self.resumed() {
            let Level::Seq { at, scope: s } = level else {
                return Err(mismatch());
            };
            scope = s;
            start = if self.resumed_here() { at + 1 } else { at };
        }
        for (at, s) in list.iter().enumerate().skip(start) {
            let out = self.exec(s, m);
            let out = self.on_park(out, || Level::Seq { at, scope });
            if let Err(e) = out {
                if scoped && !e.is_parked() {
                    self.unscope(scope);
                }
                return Err(e);
            }
        }
        if scoped {
            self.unscope(scope);
        }
        Ok(())
    }

    /// `if`'s branches, resumed from `level`: the rest of the branch the warp parked in, then
    /// the `else` if it parked in `then`.
    pub(super) fn resume_if(
        &mut self,
        level: Level,
        then: &Stmt,
        otherwise: Option<&Stmt>,
    ) -> R<()> {
        let Level::If { then: in_then, lanes, no, scope } = level else {
            return Err(mismatch());
        };
        let branch = if in_then {
            then
        } else {
            otherwise.ok_or_else(mismatch)?
        };
        let out = self.branch_from(scope, branch, lanes, in_then, no, true);
        let out = match (out, otherwise) {
            (Ok(()), Some(o)) if in_then && no != 0 => {
                let scope = self.mark();
                self.branch_from(scope, o, no, false, no, false)
            }
            (out, _) => out,
        };
        self.if_end(out)
    }

    /// The end of an `if`, whose branches gave `out`.
    pub(super) fn if_end(&mut self, out: R<()>) -> R<()> {
        if !matches!(&out, Err(e) if e.is_parked()) {
            self.enclosing.pop();
        }
        out
    }

    /// Runs one of `if`'s branches in `scope`, or the rest of it when `resuming`.
    pub(super) fn branch_from(
        &mut self,
        scope: Scope,
        s: &Stmt,
        lanes: u64,
        then: bool,
        no: u64,
        resuming: bool,
    ) -> R<()> {
        let out = self.exec_or_resume(s, lanes, resuming);
        let out = self.on_park(out, || Level::If { then, lanes, no, scope });
        match out {
            Err(e) if e.is_parked() => Err(e),
            out => {
                self.unscope(scope);
                out
            }
        }
    }

    /// Runs `s` with `lanes`, or, when `resuming`, the rest of it: nothing when the warp
    /// parked at `s`'s own end (its statement was the barrier's).
    pub(super) fn exec_or_resume(&mut self, s: &Stmt, lanes: u64, resuming: bool) -> R<()> {
        if resuming && self.resumed_here() {
            Ok(())
        } else {
            self.exec(s, lanes)
        }
    }

    /// The statement `s`'s call that may park: `f(…);`, `x = f(…);`, `x op= f(…);`,
    /// `T x = f(…);` or `return f(…);` calling a function by its name. Its position. When the
    /// warp resumes, the statement runs again with the call's value: its other parts (a
    /// variable's name, a declaration) read no memory, and the call's arguments are not
    /// evaluated again.
    pub(super) fn parkable_call(s: &Stmt) -> Option<Pos> {
        let call = match &s.kind {
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Assign { lhs, rhs, .. } if matches!(lhs.kind, ExprKind::Name(_)) => {
                    &**rhs
                }
                _ => e,
            },
            StmtKind::Decl(d) => match d.declarators.as_slice() {
                [dec] if !d.storage.shared && !dec.ty.reference && dec.dims.is_empty() => {
                    match &dec.init {
                        Some(Init::Expr(e)) => e,
                        _ => return None,
                    }
                }
                _ => return None,
            },
            StmtKind::Return(Some(e)) => e,
            _ => return None,
        };
        is_named_call(call).then_some(call.pos)
    }
}

/// Whether `e` calls a function by its name.
fn is_named_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { callee, .. } if matches!(callee.kind, ExprKind::Name(_)))
}
