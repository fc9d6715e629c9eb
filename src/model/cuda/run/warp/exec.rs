//! Statements under an active mask: declarations, branches that split the warp, loops that
//! run while any lane is in them, and `break`, `continue` and `return` taking lanes out.
//!
//! One idea, a statement's run under a mask, kept whole: each construct also records where a
//! warp parked inside it and resumes there (`park`), and splitting them would split each
//! construct's two halves.

use super::super::super::ast::{Decl, Expr, Init, Stmt, StmtKind};
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::program::MAX_HOST_ITERATIONS;
use super::super::ty::Ty;
use super::super::value::{each_lane, Lanes, S};
use super::super::{MAX_LOOP_ITERATIONS, MAX_WARP_ITERATIONS};
use super::park::{Level, Scope};
use super::{Flow, Place, Value, Warp, R};
use crate::model::cuda::files::Line;
use crate::model::machine::Space;
use std::rc::Rc;

/// Static shared arrays and the start of dynamic shared memory are aligned to this.
const SHARED_ALIGN: u64 = 16;

/// The most static shared memory nvcc accepts in one block: 48 KB.
const MAX_STATIC_SHARED_BYTES: u64 = 48 << 10;

impl Warp<'_> {
    /// Runs `s` with the lanes of `mask` (less those that have left).
    pub(super) fn exec(&mut self, s: &Stmt, mask: u64) -> R<()> {
        let m = mask & !self.dead();
        if m == 0 {
            return Ok(());
        }
        match &s.kind {
            StmtKind::Decl(_) | StmtKind::Expr(_) | StmtKind::Return(_) => self.simple(s, m),
            StmtKind::Block(list) => self.seq(list, m, true),
            StmtKind::If { cond, then, otherwise } => {
                if let Some(level) = self.resumed() {
                    return self.resume_if(level, then, otherwise.as_deref());
                }
                let (yes, no) = self.branch(cond, m)?;
                self.enclosing.push(s.pos.line);
                let mut out = Ok(());
                if yes != 0 {
                    let scope = self.mark();
                    out = self.branch_from(scope, then, yes, true, no, false);
                }
                if let (Ok(()), Some(o), true) = (&out, otherwise, no != 0) {
                    let scope = self.mark();
                    out = self.branch_from(scope, o, no, false, no, false);
                }
                self.if_end(out)
            }
            StmtKind::For { init, cond, step, body } => self.looped(
                s.pos,
                m,
                init.as_deref(),
                Loop {
                    cond: cond.as_ref(),
                    step: step.as_ref(),
                    body,
                    body_first: false,
                },
            ),
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                let body_first = matches!(s.kind, StmtKind::DoWhile { .. });
                self.looped(
                    s.pos,
                    m,
                    None,
                    Loop {
                        cond: Some(cond),
                        step: None,
                        body,
                        body_first,
                    },
                )
            }
            StmtKind::Switch { cond, body } => self.switch(cond, body, m),
            StmtKind::Case(_) | StmtKind::Default => Ok(()),
            StmtKind::Break => {
                let outside = || misplaced(s.pos, "break outside a loop or switch");
                let f = self.frame_mut()?;
                f.flows.last_mut().ok_or_else(outside)?.broken |= m;
                Ok(())
            }
            StmtKind::Continue => {
                let outside = || misplaced(s.pos, "continue outside a loop");
                let f = self.frame_mut()?;
                let flow = f.flows.iter_mut().rev().find(|fl| fl.is_loop);
                flow.ok_or_else(outside)?.continued |= m;
                Ok(())
            }
            StmtKind::Empty => Ok(()),
        }
    }

    /// A declaration, an expression statement or a `return`: parks the warp at its end when
    /// it met a barrier, and resumes into its call when the warp parked there.
    fn simple(&mut self, s: &Stmt, m: u64) -> R<()> {
        let call = if self.may_park() {
            Self::parkable_call(s)
        } else {
            None
        };
        if let Some(level) = self.resumed() {
            let (Level::Stmt, Some(pos)) = (level, call) else {
                return Err(RunError::at(
                    s.pos,
                    RunErrorKind::Internal("a parked warp resumed into another statement"),
                ));
            };
            let out = self.resume_call();
            let v = self.on_park(out, || Level::Stmt)?;
            self.pending = Some((pos, v));
        }
        // A statement inside a call in an enclosing statement's arguments keeps that
        // statement's call as it was.
        let outer = std::mem::replace(&mut self.designated, call);
        let out = match &s.kind {
            StmtKind::Decl(d) => self.declare(d, m),
            StmtKind::Expr(e) => self.eval(e, m).map(|_| ()),
            StmtKind::Return(value) => self.ret(value.as_ref(), m),
            _ => Ok(()),
        };
        self.designated = outer;
        self.pending = None;
        self.on_park(out, || Level::Stmt)?;
        self.statement_end()
    }

    /// `return`, with `value` if any: the lanes of `m` leave the function.
    fn ret(&mut self, value: Option<&Expr>, m: u64) -> R<()> {
        if let Some(e) = value {
            let v = self.eval(e, m)?;
            let ret_ty = self.frame()?.ret_ty.clone();
            let v = self.convert(v, &ret_ty, m, e.pos)?;
            let (full, width) = (self.full, self.width);
            let f = self.frame_mut()?;
            match &mut f.ret {
                Some(old) => old.lanes.merge(v.lanes, m, full, width),
                None => {
                    let mut lanes = zero(&v.ty);
                    lanes.merge(v.lanes, m, full, width);
                    f.ret = Some(Value::new(v.ty, lanes));
                }
            }
        }
        self.frame_mut()?.returned |= m;
        Ok(())
    }

    /// Runs `f` in a scope of its own: names declared in it end with it.
    pub(super) fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let (names, vars) = (self.names.len(), self.vars.len());
        let out = f(self);
        self.names.truncate(names);
        self.vars.truncate(vars);
        out
    }

    /// The lanes of `mask` where `cond` holds, and where it does not. A condition that
    /// depends on a loaded value holds for every lane, and the line is marked.
    pub(super) fn branch(&mut self, cond: &Expr, mask: u64) -> R<(u64, u64)> {
        let v = self.eval(cond, mask)?;
        self.run_past_barrier();
        let (yes, unknown) = self.truth(&v, mask, cond.pos)?;
        if unknown != 0 {
            self.sh.assumed.insert(cond.pos.line);
        }
        let yes = yes | unknown;
        Ok((yes, mask & !yes))
    }

    /// The lanes of `mask` where `v` is true, and those where it is unknown.
    pub(super) fn truth(&self, v: &Value, mask: u64, pos: Pos) -> R<(u64, u64)> {
        if !v.ty.is_scalar() {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("{} is not a condition", v.ty.a())),
            ));
        }
        let (mut yes, mut unknown) = (0u64, 0u64);
        let test = |s: S| match s {
            S::I(x) => Some(x != 0),
            S::F(x) => Some(x != 0.0),
            S::P(a) => Some(a != 0),
            S::U(_) => None,
        };
        match &v.lanes {
            Lanes::Same(s) => match test(*s) {
                Some(true) => yes = mask,
                Some(false) => {}
                None => unknown = mask,
            },
            lanes => each_lane(mask, |t| match test(lanes.at(t)) {
                Some(true) => yes |= 1 << t,
                Some(false) => {}
                None => unknown |= 1 << t,
            }),
        }
        if self.host && unknown != 0 {
            let line = v.lanes.first_unknown(unknown).map_or(0, |(_, l)| l);
            return Err(RunError::at(
                pos,
                RunErrorKind::Host(format!(
                    "host code branches on a value that nothing wrote (read at {})",
                    Line(line)
                )),
            ));
        }
        Ok((yes, unknown))
    }

    /// A loop, after its `init`: runs while any lane is in it; resumes in its body when the
    /// warp parked there.
    fn looped(&mut self, pos: Pos, mask: u64, init: Option<&Stmt>, l: Loop<'_>) -> R<()> {
        let resumed = match self.resumed() {
            Some(Level::Loop { alive, iterations, outer, inner }) => {
                Some((alive, iterations, outer, inner))
            }
            Some(_) => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Internal("a parked warp resumed into another statement"),
                ))
            }
            None => None,
        };
        let outer = match resumed {
            Some((_, _, outer, _)) => outer,
            None => {
                let outer = self.mark();
                if let Some(i) = init {
                    if let Err(e) = self.unparked(|w| w.exec(i, mask)) {
                        self.unscope(outer);
                        return Err(e);
                    }
                }
                self.frame_mut()?
                    .flows
                    .push(Flow { is_loop: true, ..Flow::default() });
                self.enclosing.push(pos.line);
                outer
            }
        };
        let at = resumed.map(|(alive, iterations, _, inner)| (alive, iterations, inner));
        let out = self.looped_inner(pos, mask, l, outer, at);
        if matches!(&out, Err(e) if e.is_parked()) {
            return out;
        }
        self.enclosing.pop();
        self.frame_mut()?.flows.pop();
        self.unscope(outer);
        out
    }

    fn looped_inner(
        &mut self,
        pos: Pos,
        mask: u64,
        l: Loop<'_>,
        outer: Scope,
        resumed: Option<(u64, u64, Scope)>,
    ) -> R<()> {
        let Loop { cond, step, body, body_first } = l;
        let mut alive = mask;
        let mut iterations = 0u64;
        let mut first = true;
        let mut resume = None;
        if let Some((a, i, inner)) = resumed {
            (alive, iterations, first, resume) = (a, i, false, Some(inner));
        }
        loop {
            let (inner, resuming) = match resume.take() {
                Some(inner) => (inner, true),
                None => {
                    self.clear_continued()?;
                    alive &= !self.dead();
                    if alive == 0 {
                        return Ok(());
                    }
                    if !(first && body_first) {
                        if let Some(c) = cond {
                            let v = self.eval(c, alive)?;
                            self.run_past_barrier();
                            let (yes, unknown) = self.truth(&v, alive, c.pos)?;
                            if unknown != 0 {
                                let lane = unknown.trailing_zeros() as usize;
                                let line = v.lanes.first_unknown(unknown).map_or(0, |(_, l)| l);
                                return Err(self.fail_lane(
                                    c.pos,
                                    lane,
                                    RunErrorKind::DependsOnLoad {
                                        what: "the loop's condition",
                                        load_line: line,
                                    },
                                ));
                            }
                            alive = yes;
                            if alive == 0 {
                                return Ok(());
                            }
                        }
                    }
                    first = false;
                    iterations += 1;
                    let (one_loop, all_loops) = if self.host {
                        let n = self
                            .sh
                            .host
                            .as_ref()
                            .map_or(MAX_HOST_ITERATIONS, |h| h.limits.host_iterations);
                        (n, n)
                    } else {
                        (MAX_LOOP_ITERATIONS, MAX_WARP_ITERATIONS)
                    };
                    if self.host && self.iterations & 0xFFF == 0 {
                        if let Some(h) = self.sh.host.as_deref() {
                            h.observe(None);
                        }
                    }
                    if self.host && (iterations > one_loop || self.iterations >= all_loops) {
                        return Err(match self.hooks() {
                            Some(h) => (h.budget)(self, pos),
                            None => RunError::at(pos, RunErrorKind::Internal("host budget")),
                        });
                    }
                    if iterations > one_loop {
                        return Err(self.fail(
                            pos,
                            alive,
                            RunErrorKind::EndlessLoop { iterations: iterations - 1 },
                        ));
                    }
                    self.iterations += 1;
                    let budget = match self.sh.iteration_budget {
                        0 => all_loops,
                        n => n,
                    };
                    if self.iterations > budget {
                        return Err(self.fail(
                            pos,
                            alive,
                            RunErrorKind::WarpIterations { limit: budget },
                        ));
                    }
                    (self.mark(), false)
                }
            };
            let out = self.exec_or_resume(body, alive, resuming);
            let out = self.on_park(out, || Level::Loop { alive, iterations, outer, inner });
            match out {
                Err(e) if e.is_parked() => return Err(e),
                out => {
                    self.unscope(inner);
                    out?;
                }
            }
            self.clear_continued()?;
            alive &= !self.dead();
            if alive == 0 {
                return Ok(());
            }
            if let Some(s) = step {
                self.eval(s, alive)?;
                self.run_past_barrier();
            }
        }
    }

    fn clear_continued(&mut self) -> R<()> {
        if let Some(fl) = self.frame_mut()?.flows.last_mut() {
            fl.continued = 0;
        }
        Ok(())
    }

    /// `switch`: each lane enters at its case, or `default`, and falls through until `break`.
    fn switch(&mut self, cond: &Expr, body: &Stmt, mask: u64) -> R<()> {
        self.unparked(|w| w.switch_unparked(cond, body, mask))
    }

    fn switch_unparked(&mut self, cond: &Expr, body: &Stmt, mask: u64) -> R<()> {
        let v = self.eval(cond, mask)?;
        if let Some((lane, line)) = v.lanes.first_unknown(mask) {
            return Err(self.fail_lane(
                cond.pos,
                lane,
                RunErrorKind::DependsOnLoad {
                    what: "the switch's value",
                    load_line: line,
                },
            ));
        }
        let list: &[Stmt] = match &body.kind {
            StmtKind::Block(list) => list,
            _ => std::slice::from_ref(body),
        };
        // Each case's value, and the lanes that match any.
        let mut cases = Vec::new();
        let mut matched = 0u64;
        for s in list {
            if let StmtKind::Case(e) = &s.kind {
                let c = self.constant_int(e, &self.frame()?.bindings.clone())?;
                let mut lanes = 0u64;
                each_lane(mask, |t| {
                    if let S::I(x) = v.lanes.at(t) {
                        if x == c.value {
                            lanes |= 1 << t;
                        }
                    }
                });
                matched |= lanes;
                cases.push(lanes);
            }
        }
        self.frame_mut()?.flows.push(Flow::default());
        let out = self.scoped(|w| {
            let mut entered = 0u64;
            let mut k = 0;
            for s in list {
                match &s.kind {
                    StmtKind::Case(_) => {
                        entered |= cases.get(k).copied().unwrap_or(0);
                        k += 1;
                    }
                    StmtKind::Default => entered |= mask & !matched,
                    _ => w.exec(s, entered)?,
                }
            }
            Ok(())
        });
        self.frame_mut()?.flows.pop();
        out
    }

    /// A declaration: locals, references, shared arrays.
    fn declare(&mut self, d: &Decl, m: u64) -> R<()> {
        let bindings = self.frame()?.bindings.clone();
        for dec in &d.declarators {
            let auto = matches!(dec.ty.base, super::super::super::ast::Base::Auto);
            let mut ty = if auto {
                Ty::Void
            } else {
                self.resolve(&dec.ty, &bindings, dec.pos)?
            };
            for dim in dec.dims.iter().rev() {
                match dim {
                    Some(e) => {
                        let n = self.constant_int(e, &bindings)?;
                        if n.value <= 0 {
                            return Err(RunError::at(
                                e.pos,
                                RunErrorKind::Type(format!(
                                    "an array's length must be positive, not {}",
                                    n.value
                                )),
                            ));
                        }
                        ty = Ty::Array(Rc::new(ty), n.value as u64);
                    }
                    None => ty = Ty::Array(Rc::new(ty), 0),
                }
            }
            if d.storage.shared {
                let place = self.shared_array(d, &dec.name, dec.pos, ty)?;
                if self.sh.shared_bytes + self.p.launch.shared_bytes
                    > super::super::MAX_SHARED_BYTES
                {
                    return Err(RunError::at(
                        dec.pos,
                        RunErrorKind::Type(format!(
                            "the block's shared memory comes to {} bytes with {}; a block has at most {}",
                            self.sh.shared_bytes + self.p.launch.shared_bytes,
                            dec.name,
                            super::super::MAX_SHARED_BYTES
                        )),
                    ));
                }
                // nvcc refuses more than 48 KB of static shared memory in a block ("uses too
                // much shared data"); more must be dynamic, opted into at run time.
                if !d.storage.is_extern && self.sh.shared_bytes > MAX_STATIC_SHARED_BYTES {
                    return Err(RunError::at(
                        dec.pos,
                        RunErrorKind::Type(format!(
                            "the block's static shared memory comes to {} bytes with {}; nvcc \
                             refuses more than {MAX_STATIC_SHARED_BYTES} (48 KB): declare it \
                             extern __shared__ and give its size in the launch",
                            self.sh.shared_bytes, dec.name
                        )),
                    ));
                }
                self.declare_alias(&dec.name, place);
                continue;
            }
            // Host code's arrays live in memory, not registers: their bound is host memory's.
            let in_memory = self.host && matches!(ty, Ty::Array(..));
            if !in_memory && ty.parts() > super::super::MAX_LOCAL_PARTS {
                return Err(RunError::at(
                    dec.pos,
                    RunErrorKind::Type(format!(
                        "{} holds {} values; a local variable here holds at most {} (locals are \
                         registers)",
                        dec.name,
                        ty.parts(),
                        super::super::MAX_LOCAL_PARTS
                    )),
                ));
            }
            if dec.ty.reference {
                let Some(Init::Expr(e)) = &dec.init else {
                    return Err(RunError::at(
                        dec.pos,
                        RunErrorKind::Type(format!(
                            "the reference {} needs a place to refer to",
                            dec.name
                        )),
                    ));
                };
                let place = self.place(e, m)?;
                self.declare_alias(&dec.name, place);
                continue;
            }
            let value = match &dec.init {
                None => Value::new(ty.clone(), zero(&ty)),
                Some(Init::Expr(e)) => {
                    let v = self.eval(e, m)?;
                    if auto {
                        ty = decayed(&v.ty);
                        self.convert(v, &ty, m, e.pos)?
                    } else if matches!(ty, Ty::Array(..)) {
                        return Err(RunError::at(
                            e.pos,
                            RunErrorKind::Type("an array is initialised with a list".into()),
                        ));
                    } else {
                        self.convert(v, &ty, m, e.pos)?
                    }
                }
                Some(Init::List(items)) | Some(Init::Ctor(items)) => {
                    if auto {
                        return Err(RunError::at(
                            dec.pos,
                            RunErrorKind::Type("auto needs a single initialiser".into()),
                        ));
                    }
                    let ctor = matches!(dec.init, Some(Init::Ctor(_)));
                    self.construct(&ty, items, m, dec.pos, ctor)?
                }
            };
            let mut lanes = zero(&value.ty);
            lanes.merge(value.lanes, m, self.full, self.width);
            // Host code's local arrays live in host memory, where a call can write them.
            if self.host && m != 0 && matches!(value.ty, Ty::Array(..)) {
                let h = self.host_hooks(dec.pos)?;
                (h.local_array)(self, &dec.name, value.ty, lanes, dec.pos)?;
                continue;
            }
            self.declare_value(&dec.name, value.ty, lanes);
        }
        Ok(())
    }

    /// The place of a `__shared__` array: static ones laid out in the order they are first
    /// declared, each at its alignment; `extern` ones at the start of dynamic shared memory,
    /// after every static one.
    fn shared_array(&mut self, d: &Decl, name: &str, pos: Pos, ty: Ty) -> R<Place> {
        if d.storage.is_extern {
            let elem = match &ty {
                Ty::Array(e, _) => (**e).clone(),
                t => t.clone(),
            };
            let start = self.static_shared_bytes()?.next_multiple_of(SHARED_ALIGN);
            let count = self.p.launch.shared_bytes / elem.size().max(1);
            let ty = Ty::Array(Rc::new(elem), count);
            self.sh.checks.shared_array(name, start, &ty, pos);
            return Ok(Place::Mem {
                addr: Lanes::Same(S::P(start)),
                ty,
                space: Space::Shared,
            });
        }
        let offset = match self.sh.shared_offsets.get(&pos) {
            Some(o) => *o,
            None => {
                let o = self.sh.shared_bytes.next_multiple_of(ty.align().max(1));
                self.sh.shared_bytes = o + ty.size();
                self.sh.shared_offsets.insert(pos, o);
                self.sh.checks.shared_array(name, o, &ty, pos);
                o
            }
        };
        Ok(Place::Mem {
            addr: Lanes::Same(S::P(offset)),
            ty,
            space: Space::Shared,
        })
    }

    /// Bytes of the kernel's static shared arrays: every `__shared__` declaration the kernel's
    /// body holds, laid out in order (so dynamic shared memory starts after all of them).
    pub(super) fn static_shared_bytes(&mut self) -> R<u64> {
        let f = self.kernel_fn()?;
        let mut decls = Vec::new();
        collect_shared(&f.body, &mut decls);
        let bindings = self.p.bindings.clone();
        for (d, dec) in decls {
            if self.sh.shared_offsets.contains_key(&dec.pos) {
                continue;
            }
            let mut ty = self.resolve(&dec.ty, &bindings, dec.pos)?;
            for e in dec.dims.iter().rev().flatten() {
                let n = self.constant_int(e, &bindings)?;
                ty = Ty::Array(Rc::new(ty), u64::try_from(n.value).unwrap_or(0));
            }
            let _ = d;
            self.shared_array(
                &Decl {
                    storage: Default::default(),
                    declarators: Vec::new(),
                    pos: dec.pos,
                },
                &dec.name,
                dec.pos,
                ty,
            )?;
        }
        Ok(self.sh.shared_bytes)
    }
}

/// Every static `__shared__` declarator in `list`, in order, nested blocks included.
fn collect_shared<'a>(
    list: &'a [Stmt],
    out: &mut Vec<(&'a Decl, &'a super::super::super::ast::Declarator)>,
) {
    for s in list {
        match &s.kind {
            StmtKind::Decl(d) if d.storage.shared && !d.storage.is_extern => {
                for dec in &d.declarators {
                    out.push((d, dec));
                }
            }
            StmtKind::Block(l) => collect_shared(l, out),
            StmtKind::If { then, otherwise, .. } => {
                collect_shared(std::slice::from_ref(then), out);
                if let Some(o) = otherwise {
                    collect_shared(std::slice::from_ref(o), out);
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::Switch { body, .. } => collect_shared(std::slice::from_ref(body), out),
            _ => {}
        }
    }
}

/// A zero of `ty`: what a local holds before it is assigned.
pub(super) fn zero(ty: &Ty) -> Lanes {
    let leaf = |t: &Ty| match t {
        Ty::Float | Ty::Double => S::F(0.0),
        Ty::Ptr(..) => S::P(0),
        _ => S::I(0),
    };
    if !is_agg(ty) {
        return Lanes::Same(leaf(ty));
    }
    let mut parts = Vec::with_capacity(ty.parts());
    leaves(ty, &mut |t| parts.push(Lanes::Same(leaf(t))));
    Lanes::Agg(parts)
}

/// Whether values of `ty` are held as parts ([`Lanes::Agg`]).
pub(super) fn is_agg(ty: &Ty) -> bool {
    matches!(ty, Ty::Vector(..) | Ty::Struct(_) | Ty::Array(..))
}

/// Calls `f` with each scalar leaf of `ty`, in order.
pub(super) fn leaves(ty: &Ty, f: &mut impl FnMut(&Ty)) {
    match ty {
        Ty::Vector(e, n) => {
            for _ in 0..*n {
                f(e);
            }
        }
        Ty::Array(e, n) => {
            for _ in 0..*n {
                leaves(e, f);
            }
        }
        Ty::Struct(s) => {
            for field in &s.laid().fields {
                leaves(&field.ty, f);
            }
        }
        t => f(t),
    }
}

/// The type a value takes in `auto x = v`: arrays decay.
fn decayed(ty: &Ty) -> Ty {
    match ty {
        Ty::Array(e, _) => Ty::Ptr(e.clone(), Space::Global),
        t => t.clone(),
    }
}

/// A loop's parts: `for`, `while` and `do … while` (`body_first`) alike.
#[derive(Clone, Copy)]
struct Loop<'a> {
    cond: Option<&'a Expr>,
    step: Option<&'a Expr>,
    body: &'a Stmt,
    body_first: bool,
}

/// A `break` or `continue` with nothing to leave.
fn misplaced(pos: Pos, what: &str) -> RunError {
    RunError::at(pos, RunErrorKind::Type(what.into()))
}
