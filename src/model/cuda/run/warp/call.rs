//! Calls: `__device__` functions inlined (templates deduced, recursion refused), and struct
//! constructors, methods and conversion operators. The built-ins are in `builtin`.

use super::super::super::ast::{Base, Expr, ExprKind, Function, Item, Member, TemplateArg, Type};
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{StructTy, Ty};
use super::super::value::{Lanes, S};
use super::super::{Bindings, MAX_CALL_DEPTH};
use super::exec::zero;
use super::park::Level;
use super::{Frame, Place, Value, Var, Warp, R};
use crate::model::machine::Space;
use std::rc::Rc;

impl Warp<'_> {
    /// A call expression.
    pub(super) fn call(
        &mut self,
        callee: &Expr,
        template_args: &[TemplateArg],
        args: &[Expr],
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        // A resumed statement's call has returned already (`park`).
        if self.pending.as_ref().is_some_and(|(at, _)| *at == pos) {
            if let Some((_, v)) = self.pending.take() {
                return Ok(v);
            }
        }
        if let ExprKind::Member { base, field, arrow } = &callee.kind {
            let p = if *arrow {
                let v = self.eval(base, m)?;
                self.deref(v, base.pos)?
            } else {
                self.place(base, m)?
            };
            return self.method(p, field, args, m, pos);
        }
        let ExprKind::Name(full) = &callee.kind else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Unsupported("calls through a function pointer".into()),
            ));
        };
        let name = full.rsplit("::").next().unwrap_or(full);
        match name {
            "tiled_partition" => {
                let n = match (template_args.first(), args.get(1)) {
                    (Some(TemplateArg::Value(e)), _) => {
                        let b = self.frame()?.bindings.clone();
                        self.constant_int(e, &b)?.value
                    }
                    (_, Some(e)) => match self.eval(e, m)?.lanes.at(0) {
                        S::I(x) => x,
                        _ => 0,
                    },
                    _ => 0,
                };
                if let Some(g) = args.first() {
                    self.eval(g, m)?;
                }
                if !(1..=i128::from(self.p.machine.warp)).contains(&n) || n & (n - 1) != 0 {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Unsupported(format!(
                            "a tile of {n} threads (tiles here are a power of two, at most a warp)"
                        )),
                    ));
                }
                return Ok(Value::new(Ty::Tile(n as u32), Lanes::Same(S::I(0))));
            }
            "reduce" if full.contains("::") || self.p.unit.function("reduce").is_none() => {
                return self.group_reduce(args, m, pos);
            }
            _ => {}
        }
        if self.host
            && !self
                .p
                .unit
                .items
                .iter()
                .any(|i| matches!(i, Item::Function(f) if f.name == name))
        {
            if let Some(v) = (self.host_hooks(pos)?.call)(self, name, args, m, pos)? {
                return Ok(v);
            }
        }
        if let Some(v) = self.builtin(name, args, m, pos)? {
            return Ok(v);
        }
        self.device_call(name, template_args, args, m, pos)
    }

    /// A method of a struct, or of a cooperative group.
    fn method(&mut self, p: Place, field: &str, args: &[Expr], m: u64, pos: Pos) -> R<Value> {
        let ty = self.place_ty(&p);
        match ty {
            Ty::Group => self.group_method(field, args, m, pos),
            Ty::Tile(n) => self.tile_method(n, field, args, m, pos),
            Ty::Struct(s) => {
                let Some(Item::Struct(def)) = self.p.unit.items.get(s.item) else {
                    return Err(RunError::at(pos, RunErrorKind::Internal("struct item")));
                };
                let found = def.members.iter().find_map(|mem| match mem {
                    Member::Method(f) if f.name == field && f.params.len() == args.len() => Some(f),
                    _ => None,
                });
                let Some(f) = found else {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!(
                            "{} has no method {field} taking {} arguments",
                            s.name,
                            args.len()
                        )),
                    ));
                };
                let argv = self.arguments_of(args, m)?;
                self.invoke(f, s.bindings.clone(), Some(p), argv, m, pos)
            }
            t => Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("{} has no method {field}", t.a())),
            )),
        }
    }

    /// Each argument as a place (a reference parameter binds to it) or a temporary.
    fn arguments_of(&mut self, args: &[Expr], m: u64) -> R<Vec<(Place, Pos)>> {
        let mut out = Vec::new();
        for a in args {
            out.push((self.place(a, m)?, a.pos));
        }
        Ok(out)
    }

    /// A call of a `__device__` function (or a constructor written as a call).
    fn device_call(
        &mut self,
        name: &str,
        targs: &[TemplateArg],
        args: &[Expr],
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        let unit = &self.p.unit;
        let candidates: Vec<&Function> = unit
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Function(f) if f.name == name && !f.body.is_empty() => Some(f),
                _ => None,
            })
            .collect();
        if candidates.is_empty() {
            if let Some(super::super::super::ast::Skipped::Unread { error, .. }) = unit
                .skipped
                .iter()
                .find(|s| matches!(s, super::super::super::ast::Skipped::Unread { name: n, .. } if n == name))
            {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Skipped {
                        name: name.to_string(),
                        why: error.to_string(),
                    },
                ));
            }
            return Err(RunError::at(
                pos,
                RunErrorKind::Undeclared(name.to_string()),
            ));
        }
        let argv = self.arguments_of(args, m)?;
        let arg_tys: Vec<Ty> = argv.iter().map(|(p, _)| decay(self.place_ty(p))).collect();
        let outer = self.frame()?.bindings.clone();
        // An explicit specialisation whose arguments match, else the primary template or
        // the plain function with the right number of parameters.
        let mut chosen = None;
        for f in candidates.iter().filter(|f| f.params.len() == args.len()) {
            if self.host && f.spaces.global {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!(
                        "{name} is a kernel: host code launches it with {name}<<<grid, block>>>(…)"
                    )),
                ));
            }
            if self.host && f.spaces.device && !f.spaces.host {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!(
                        "{name} is a __device__ function: host code cannot call it (mark it \
                         __host__ __device__ for both)"
                    )),
                ));
            }
            if f.spaces.global && !f.spaces.device {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Unsupported(
                        "launching a kernel from the device (dynamic parallelism)".into(),
                    ),
                ));
            }
            let bindings = match (&f.template, &f.specialises) {
                (Some(params), None) if !params.is_empty() => {
                    let deduced = deduce(f, &arg_tys);
                    self.bind(params, targs, &outer, pos, name, &deduced)?
                }
                _ => Bindings::default(),
            };
            if let Some(spec) = &f.specialises {
                let mut want = Vec::new();
                for a in spec {
                    if let TemplateArg::Type(t) = a {
                        want.push(self.resolve(t, &Bindings::default(), pos)?);
                    }
                }
                let mut given = Vec::new();
                for a in targs {
                    if let TemplateArg::Type(t) = a {
                        given.push(self.resolve(t, &outer, pos)?);
                    }
                }
                if want == given && !given.is_empty() {
                    chosen = Some((*f, bindings));
                    break;
                }
                continue;
            }
            if chosen.is_none() {
                chosen = Some((*f, bindings));
            }
        }
        let Some((f, bindings)) = chosen else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("no {name} takes {} arguments", args.len())),
            ));
        };
        self.invoke(f, Rc::new(bindings), None, argv, m, pos)
    }

    /// Runs `f`'s body inline with the lanes of `m`.
    fn invoke(
        &mut self,
        f: &Function,
        bindings: Rc<Bindings>,
        this: Option<Place>,
        args: Vec<(Place, Pos)>,
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        if self.frames.iter().any(|fr| std::ptr::eq(fr.function, f)) {
            return Err(RunError::at(pos, RunErrorKind::Recursion(f.name.clone())));
        }
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(RunError::at(
                pos,
                RunErrorKind::Unsupported(format!("calls nested more than {MAX_CALL_DEPTH} deep")),
            ));
        }
        // Parameters: references bind to the argument's place, values are loaded and
        // converted at the call.
        let mut bound = Vec::new();
        for (param, (place, apos)) in f.params.iter().zip(args) {
            let ty = self.resolve(&param.ty, &bindings, param.pos)?;
            let name = param.name.clone().unwrap_or_default();
            if param.ty.reference {
                bound.push((name, None, Some(place)));
            } else {
                let v = self.load(place, m, apos)?;
                let v = self.convert(v, &ty, m, apos)?;
                bound.push((name, Some(v), None));
            }
        }
        let ret_ty =
            if f.name == "operator" || matches!(f.ret.base, Base::Void) && f.ret.pointers == 0 {
                match self.resolve(&f.ret, &bindings, f.pos) {
                    Ok(t) => t,
                    Err(_) => Ty::Void,
                }
            } else {
                self.resolve(&f.ret, &bindings, f.pos)?
            };
        // The call a whole statement makes may park at a barrier in its body; any other runs
        // past one.
        let item = if self.designated == Some(pos) {
            self.designated = None;
            self.p
                .unit
                .items
                .iter()
                .position(|i| matches!(i, Item::Function(g) if std::ptr::eq(g, f)))
        } else {
            None
        };
        let names_base = self.names.len();
        let vars_base = self.vars.len();
        self.frames.push(Frame {
            names_base,
            returned: 0,
            flows: Vec::new(),
            ret: None,
            ret_ty: ret_ty.clone(),
            bindings,
            function: f as *const Function,
            this,
        });
        for (name, v, place) in bound {
            match (v, place) {
                (Some(v), _) => {
                    let mut lanes = zero(&v.ty);
                    lanes.merge(v.lanes, m, self.full, self.width);
                    self.declare_value(&name, v.ty, lanes);
                }
                (None, Some(p)) => self.declare_alias(&name, p),
                (None, None) => {}
            }
        }
        let result = match item {
            Some(item) => {
                let out = self.seq(&f.body, m, false);
                let out = self.on_park(out, || Level::Call {
                    item,
                    mask: m,
                    names_base,
                    vars_base,
                    ret_ty: ret_ty.clone(),
                });
                match out {
                    // The frame stays: the warp goes on in it.
                    Err(e) if e.is_parked() => return Err(e),
                    out => out,
                }
            }
            None => self.unparked(|w| {
                for s in &f.body {
                    w.exec(s, m)?;
                }
                Ok(())
            }),
        };
        self.leave(result, names_base, vars_base, &ret_ty)
    }

    /// The rest of a parked statement's call, from where it parked: its value.
    pub(super) fn resume_call(&mut self) -> R<Value> {
        let Some(Level::Call {
            item,
            mask,
            names_base,
            vars_base,
            ret_ty,
        }) = self.resumed()
        else {
            return Err(RunError::at(
                Pos::default(),
                RunErrorKind::Internal("a parked warp resumed into another statement"),
            ));
        };
        let p = self.p;
        let Some(Item::Function(f)) = p.unit.items.get(item) else {
            return Err(RunError::at(
                Pos::default(),
                RunErrorKind::Internal("a parked call's function"),
            ));
        };
        let out = self.seq(&f.body, mask, false);
        let level = || Level::Call {
            item,
            mask,
            names_base,
            vars_base,
            ret_ty: ret_ty.clone(),
        };
        match self.on_park(out, level) {
            Err(e) if e.is_parked() => Err(e),
            out => self.leave(out, names_base, vars_base, &ret_ty),
        }
    }

    /// The end of a call whose body gave `result`: its frame and locals end; its value.
    fn leave(
        &mut self,
        result: R<()>,
        names_base: usize,
        vars_base: usize,
        ret_ty: &Ty,
    ) -> R<Value> {
        let frame = self.frames.pop();
        self.names.truncate(names_base);
        self.vars.truncate(vars_base);
        result?;
        Ok(match frame.and_then(|fr| fr.ret) {
            Some(v) => v,
            None => Value::new(ret_ty.clone(), zero(ret_ty)),
        })
    }

    /// A struct's constructor for `values`, when it has one; `None` for aggregate
    /// initialisation.
    pub(super) fn constructor(
        &mut self,
        s: Rc<StructTy>,
        values: &[Value],
        m: u64,
        pos: Pos,
    ) -> R<Option<Value>> {
        let Some(Item::Struct(def)) = self.p.unit.items.get(s.item) else {
            return Ok(None);
        };
        let ctor = def.members.iter().find_map(|mem| match mem {
            Member::Ctor(f) if f.params.len() == values.len() => Some(f),
            _ => None,
        });
        let Some(f) = ctor else {
            let has_ctors = def.members.iter().any(|mem| matches!(mem, Member::Ctor(_)));
            if has_ctors {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!(
                        "{} has no constructor taking {} arguments",
                        s.name,
                        values.len()
                    )),
                ));
            }
            return Ok(None);
        };
        let ty = Ty::Struct(s.clone());
        let slot = self.vars.len();
        self.vars.push(Var::Value(ty.clone(), zero(&ty)));
        let this = Place::Var {
            slot,
            part: Lanes::Same(S::I(0)),
            ty: ty.clone(),
        };
        let args: Vec<(Place, Pos)> = values
            .iter()
            .map(|v| (Place::Temp(v.clone()), pos))
            .collect();
        let out = self.invoke(f, s.bindings.clone(), Some(this.clone()), args, m, pos);
        let v = out.and_then(|_| self.load(this, m, pos));
        self.vars.truncate(slot);
        v.map(Some)
    }

    /// A struct converted to `to` by its conversion operator (`SharedMemory<T>` to `T*`).
    pub(super) fn conversion(
        &mut self,
        s: Rc<StructTy>,
        v: Value,
        to: &Ty,
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        if let Ty::Struct(t) = to {
            if t.name == s.name {
                return Ok(v);
            }
        }
        let Some(Item::Struct(def)) = self.p.unit.items.get(s.item) else {
            return Err(RunError::at(pos, RunErrorKind::Internal("struct item")));
        };
        let mut chosen = None;
        for mem in &def.members {
            let Member::Conversion(f) = mem else { continue };
            let target = self.resolve(&f.ret, &s.bindings, f.pos)?;
            let fits = match (&target, to) {
                (Ty::Ptr(a, _), Ty::Ptr(b, _)) => a == b || chosen.is_none(),
                (a, b) => a == b,
            };
            if fits {
                let exact = matches!((&target, to), (Ty::Ptr(a, _), Ty::Ptr(b, _)) if a == b)
                    || target == *to;
                chosen = Some(f);
                if exact {
                    break;
                }
            }
        }
        let Some(f) = chosen else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("a {} cannot become {}", s.name, to.a())),
            ));
        };
        let ty = Ty::Struct(s.clone());
        let slot = self.vars.len();
        self.vars.push(Var::Value(ty.clone(), v.lanes));
        let this = Place::Var { slot, part: Lanes::Same(S::I(0)), ty };
        let out = self.invoke(f, s.bindings.clone(), Some(this), Vec::new(), m, pos);
        self.vars.truncate(slot);
        let out = out?;
        self.convert(out, to, m, pos)
    }
}

/// Type parameters deduced from the arguments' types: a parameter written `T`, `T*` or
/// `const T&` gives `T`.
fn deduce(f: &Function, args: &[Ty]) -> Vec<(String, Ty)> {
    let mut out: Vec<(String, Ty)> = Vec::new();
    for (param, arg) in f.params.iter().zip(args) {
        let Type {
            base: Base::Named { name, args: targs },
            pointers,
            ..
        } = &param.ty
        else {
            continue;
        };
        if !targs.is_empty() || out.iter().any(|(n, _)| n == name) {
            continue;
        }
        let mut t = arg.clone();
        let mut ok = true;
        for _ in 0..*pointers {
            match t {
                Ty::Ptr(e, _) => t = (*e).clone(),
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            out.push((name.clone(), t));
        }
    }
    out
}

/// Arrays decay to pointers when passed.
fn decay(t: Ty) -> Ty {
    match t {
        Ty::Array(e, _) => Ty::Ptr(e, Space::Global),
        t => t,
    }
}
