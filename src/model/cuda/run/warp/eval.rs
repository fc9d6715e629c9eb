//! Expressions under an active mask: values lane by lane (once when every lane holds the
//! same, as a line when they are affine in the lane), and places that can be assigned. An
//! expression's value and its place are one recursion (every read of a place is a load).
//! What a name is lives in `names`, reading and writing places (the accesses) in `memory`,
//! operators and conversions in `arith`.

use super::super::super::ast::{BinaryOp, CastKind, Expr, ExprKind, UnaryOp};
use super::super::super::cint::{IntType, INT};
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{Ty, LONG, SIZE_T, UINT};
use super::super::value::{Lanes, S};
use super::exec::is_agg;
use super::{Place, Value, Warp, R};
use crate::model::mul::mul_i128;

/// The first unknown among `xs`, as a scalar.
#[inline]
pub(super) fn unknown_of(xs: &[S]) -> Option<S> {
    xs.iter().copied().find(|s| matches!(s, S::U(_)))
}

impl Warp<'_> {
    /// The value of `e` for the lanes of `m`.
    pub(super) fn eval(&mut self, e: &Expr, m: u64) -> R<Value> {
        match &e.kind {
            ExprKind::Int { value, suffix, decimal } => {
                let v = i128::from(*value);
                let fits = |t: IntType| v <= t.max();
                let int = |bytes, signed| IntType { bytes, signed };
                let candidates: &[IntType] = match (suffix.unsigned, suffix.longs > 0, *decimal) {
                    (false, false, true) => &[INT, LONG],
                    (false, false, false) => &[INT, UINT, LONG, SIZE_T],
                    (true, false, _) => &[UINT, SIZE_T],
                    (false, true, true) => &[LONG],
                    (false, true, false) => &[LONG, SIZE_T],
                    (true, true, _) => &[SIZE_T],
                };
                let ty = candidates
                    .iter()
                    .copied()
                    .find(|t| fits(*t))
                    .unwrap_or(int(8, false));
                Ok(Value::int(ty, v))
            }
            ExprKind::Float { value, single } => Ok(if *single {
                Value::new(Ty::Float, Lanes::Same(S::F(f64::from(*value as f32))))
            } else {
                Value::new(Ty::Double, Lanes::Same(S::F(*value)))
            }),
            ExprKind::Bool(b) => Ok(Value::new(Ty::Bool, Lanes::Same(S::I(i128::from(*b))))),
            ExprKind::Char(c) => Ok(Value::int(
                IntType { bytes: 1, signed: true },
                IntType { bytes: 1, signed: true }.wrap(i128::from(*c)),
            )),
            // Host code's, and a file-scope constant's that host code reads.
            ExprKind::Str(text) if self.sh.host.is_some() => {
                let a = (self.host_hooks(e.pos)?.intern)(self, text);
                let char_ty = Ty::Int(IntType { bytes: 1, signed: true });
                Ok(Value::new(
                    Ty::Ptr(
                        std::rc::Rc::new(char_ty),
                        crate::model::machine::Space::Global,
                    ),
                    Lanes::Same(S::P(a)),
                ))
            }
            ExprKind::Str(_) => Err(RunError::at(
                e.pos,
                RunErrorKind::Unsupported("string literals outside printf".into()),
            )),
            ExprKind::Launch { .. } | ExprKind::Delete { .. } if self.host && m == 0 => {
                Ok(Value::new(Ty::Void, Lanes::Same(S::I(0))))
            }
            ExprKind::New { ty, .. } if self.host && m == 0 => {
                let b = self.frame()?.bindings.clone();
                let to = self.resolve(ty, &b, e.pos)?;
                Ok(Value::new(
                    Ty::Ptr(std::rc::Rc::new(to), crate::model::machine::Space::Global),
                    Lanes::Same(S::P(0)),
                ))
            }
            ExprKind::Launch { kernel, template_args, config, args } if self.host => {
                (self.host_hooks(e.pos)?.launch)(self, kernel, template_args, config, args, e.pos)
            }
            ExprKind::New { ty, count, init } if self.host => {
                (self.host_hooks(e.pos)?.new)(self, ty, count.as_deref(), init.as_deref(), e.pos)
            }
            ExprKind::Delete { operand, array } if self.host => {
                (self.host_hooks(e.pos)?.delete)(self, operand, *array, e.pos)
            }
            ExprKind::New { .. } | ExprKind::Delete { .. } => Err(RunError::at(
                e.pos,
                RunErrorKind::Unsupported("new and delete in device code".into()),
            )),
            ExprKind::Launch { .. } => Err(RunError::at(
                e.pos,
                RunErrorKind::Unsupported("dynamic parallelism (a launch inside a kernel)".into()),
            )),
            ExprKind::Member { base, field, arrow: false } => {
                if let Some(v) = self.index_axis(base, field) {
                    return Ok(v);
                }
                let p = self.place(e, m)?;
                self.load(p, m, e.pos)
            }
            ExprKind::Name(_) | ExprKind::Member { .. } | ExprKind::Index { .. } => {
                let p = self.place(e, m)?;
                self.load(p, m, e.pos)
            }
            ExprKind::Unary { op: UnaryOp::Deref, .. } => {
                let p = self.place(e, m)?;
                self.load(p, m, e.pos)
            }
            ExprKind::Unary { op, operand } => self.unary(*op, operand, m, e.pos),
            ExprKind::Call { callee, template_args, args } => {
                self.call(callee, template_args, args, m, e.pos)
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                lhs,
                rhs,
            } => self.logical(*op, lhs, rhs, m),
            ExprKind::Binary { op, lhs, rhs } => {
                if self.host && *op == BinaryOp::Shl {
                    if let Some(v) = (self.host_hooks(e.pos)?.stream)(self, e, m)? {
                        return Ok(v);
                    }
                }
                let a = self.eval(lhs, m)?;
                let b = self.eval(rhs, m)?;
                self.binary(*op, a, b, m, e.pos)
            }
            ExprKind::Assign { op: None, lhs, rhs }
                if matches!(rhs.kind, ExprKind::InitList { ty: None, .. }) =>
            {
                // `x = {a, b}` (and a member initialiser `x{a, b}`): a value of x's type.
                let ExprKind::InitList { items, .. } = &rhs.kind else {
                    return Err(RunError::at(e.pos, RunErrorKind::Internal("braced list")));
                };
                let p = self.place(lhs, m)?;
                let ty = self.place_ty(&p);
                let v = self.construct(&ty, items, m, rhs.pos, false)?;
                self.store(&p, v.clone(), m, lhs.pos)?;
                Ok(v)
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let r = self.eval(rhs, m)?;
                if let (Some(h), ExprKind::Name(name)) = (self.hooks(), &lhs.kind) {
                    (h.name_allocation)(self, name, &r.ty, &r.lanes);
                }
                let p = self.place(lhs, m)?;
                let v = match op {
                    Some(op) => {
                        let old = self.load(p.clone(), m, lhs.pos)?;
                        self.binary(*op, old, r, m, e.pos)?
                    }
                    None => r,
                };
                let ty = self.place_ty(&p);
                let v = self.convert(v, &ty, m, e.pos)?;
                self.store(&p, v.clone(), m, lhs.pos)?;
                Ok(v)
            }
            ExprKind::Cond { cond, then, otherwise } => {
                let c = self.eval(cond, m)?;
                let (yes, unknown) = self.truth(&c, m, cond.pos)?;
                if unknown != 0 {
                    self.sh.assumed.insert(cond.pos.line);
                }
                let yes = yes | unknown;
                let no = m & !yes;
                let a = self.eval(then, yes)?;
                let b = self.eval(otherwise, no)?;
                let ty = if a.ty == b.ty {
                    a.ty.clone()
                } else if a.ty.is_scalar() && b.ty.is_scalar() {
                    self.common(&a.ty, &b.ty, e.pos)?
                } else {
                    return Err(RunError::at(
                        e.pos,
                        RunErrorKind::Type(format!(
                            "the two sides of ?: are {} and {}",
                            a.ty, b.ty
                        )),
                    ));
                };
                let a = self.convert(a, &ty, yes, e.pos)?;
                let b = self.convert(b, &ty, no, e.pos)?;
                let mut lanes = b.lanes;
                lanes.merge(a.lanes, yes, self.full & m, self.width);
                Ok(Value::new(ty, lanes))
            }
            ExprKind::Cast { kind, ty, operand } => {
                let b = self.frame()?.bindings.clone();
                let to = self.resolve(ty, &b, e.pos)?;
                let v = self.eval(operand, m)?;
                if *kind == CastKind::Reinterpret
                    && !(matches!(to, Ty::Ptr(..) | Ty::Int(_))
                        && matches!(v.ty, Ty::Ptr(..) | Ty::Int(_)))
                {
                    return Err(RunError::at(
                        e.pos,
                        RunErrorKind::Type(format!("reinterpret_cast from {} to {to}", v.ty)),
                    ));
                }
                self.convert(v, &to, m, e.pos)
            }
            ExprKind::SizeofType(t) => {
                let b = self.frame()?.bindings.clone();
                let ty = self.resolve(t, &b, e.pos)?;
                Ok(Value::int(SIZE_T, i128::from(ty.size())))
            }
            ExprKind::AlignofType(t) => {
                let b = self.frame()?.bindings.clone();
                let ty = self.resolve(t, &b, e.pos)?;
                Ok(Value::int(SIZE_T, i128::from(ty.align())))
            }
            ExprKind::SizeofExpr(x) => {
                // Unevaluated: no lane takes part, so nothing is read.
                let ty = match &x.kind {
                    ExprKind::Name(_) | ExprKind::Index { .. } | ExprKind::Member { .. } => {
                        let p = self.place(x, 0)?;
                        self.place_ty(&p)
                    }
                    _ => self.eval(x, 0)?.ty,
                };
                Ok(Value::int(SIZE_T, i128::from(ty.size())))
            }
            ExprKind::Comma(a, b) => {
                self.eval(a, m)?;
                self.eval(b, m)
            }
            ExprKind::InitList { ty: Some(t), items } => {
                let b = self.frame()?.bindings.clone();
                let ty = self.resolve(t, &b, e.pos)?;
                self.construct(&ty, items, m, e.pos, true)
            }
            ExprKind::InitList { ty: None, .. } => Err(RunError::at(
                e.pos,
                RunErrorKind::Unsupported("a braced list without its type here".into()),
            )),
        }
    }

    /// `threadIdx.x` and its kin read directly, as the general path reads them (which builds
    /// the whole `uint3` first); `None` when the name is not the built-in here.
    fn index_axis(&self, base: &Expr, field: &str) -> Option<Value> {
        let ExprKind::Name(name) = &base.kind else {
            return None;
        };
        let axis = match field {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return None,
        };
        let shadowed = self.constant
            || self.local(name).is_some()
            || self
                .frames
                .last()
                .is_some_and(|f| f.this.is_some() || f.bindings.value(name).is_some());
        if shadowed {
            return None;
        }
        let same = |v: &[u64; 3]| Lanes::Same(S::I(i128::from(v[axis])));
        let lanes = match name.as_str() {
            "threadIdx" => self.tid.get(axis)?.clone(),
            "blockIdx" => same(&self.block),
            "blockDim" => same(&self.p.launch.block),
            "gridDim" => same(&self.p.launch.grid),
            _ => return None,
        };
        Some(Value::new(Ty::Int(UINT), lanes))
    }

    /// `a && b` and `a || b`: `b` only for the lanes that need it.
    fn logical(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr, m: u64) -> R<Value> {
        let a = self.eval(lhs, m)?;
        let (yes, unknown) = self.truth(&a, m, lhs.pos)?;
        let need = if op == BinaryOp::And {
            yes | unknown
        } else {
            (m & !yes) | unknown
        };
        let b = self.eval(rhs, need)?;
        let (by, bu) = self.truth(&b, need, rhs.pos)?;
        let a_line = a.lanes.first_unknown(unknown).map_or(0, |(_, l)| l);
        let b_line = b.lanes.first_unknown(bu).map_or(0, |(_, l)| l);
        let lanes = Lanes::map(self.width, m, false, |t| {
            let bit = 1u64 << t;
            let (a_true, a_unknown) = (yes & bit != 0, unknown & bit != 0);
            let (b_true, b_unknown) = (by & bit != 0, bu & bit != 0);
            if op == BinaryOp::And {
                if !a_true && !a_unknown {
                    S::I(0)
                } else if b_unknown {
                    S::U(b_line)
                } else if !b_true {
                    S::I(0)
                } else if a_unknown {
                    S::U(a_line)
                } else {
                    S::I(1)
                }
            } else if a_true {
                S::I(1)
            } else if b_unknown {
                S::U(b_line)
            } else if b_true {
                S::I(1)
            } else if a_unknown {
                S::U(a_line)
            } else {
                S::I(0)
            }
        });
        Ok(Value::new(Ty::Bool, lanes))
    }

    /// The type of the value a place holds.
    pub(super) fn place_ty(&self, p: &Place) -> Ty {
        match p {
            Place::Var { ty, .. } | Place::Mem { ty, .. } | Place::Constant { ty } => ty.clone(),
            Place::Temp(v) => v.ty.clone(),
        }
    }

    /// Where `e` is: a variable, memory, or a temporary.
    pub(super) fn place(&mut self, e: &Expr, m: u64) -> R<Place> {
        match &e.kind {
            ExprKind::Name(name) => self.name(name, e.pos),
            ExprKind::Member { base, field, arrow } => {
                let p = if *arrow {
                    let v = self.eval(base, m)?;
                    self.deref(v, base.pos)?
                } else {
                    self.place(base, m)?
                };
                self.member(p, field, m, e.pos)
            }
            ExprKind::Index { base, index } => {
                let b = self.place(base, m)?;
                let i = self.eval(index, m)?;
                self.index(b, i, m, e.pos)
            }
            ExprKind::Unary { op: UnaryOp::Deref, operand } => {
                let v = self.eval(operand, m)?;
                self.deref(v, e.pos)
            }
            _ => Ok(Place::Temp(self.eval(e, m)?)),
        }
    }

    /// The memory a pointer value points to.
    pub(super) fn deref(&self, v: Value, pos: Pos) -> R<Place> {
        match &v.ty {
            Ty::Ptr(t, space) => Ok(Place::Mem {
                addr: v.lanes,
                ty: (**t).clone(),
                space: *space,
            }),
            t => Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("{} is not a pointer", t.a())),
            )),
        }
    }

    /// Field or component `field` of the place `p`.
    pub(super) fn member(&mut self, p: Place, field: &str, _m: u64, pos: Pos) -> R<Place> {
        let ty = self.place_ty(&p);
        // (parts before the member, byte offset, its type)
        let (parts, offset, mty) = match &ty {
            Ty::Vector(e, n) => {
                let k = match field {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    "w" => 3,
                    _ => usize::MAX,
                };
                if k >= usize::from(*n) {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!("{ty} has no component {field}")),
                    ));
                }
                (k, k as u64 * e.size(), (**e).clone())
            }
            Ty::Struct(s) => {
                let mut before = 0;
                let mut found = None;
                for f in &s.laid().fields {
                    if f.name == field {
                        found = Some((before, f.offset, f.ty.clone()));
                        break;
                    }
                    before += f.ty.parts();
                }
                found.ok_or_else(|| {
                    RunError::at(
                        pos,
                        RunErrorKind::Type(format!("{} has no member {field}", s.name)),
                    )
                })?
            }
            t => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!("{} has no member {field}", t.a())),
                ))
            }
        };
        Ok(match p {
            Place::Var { slot, part, .. } => Place::Var {
                slot,
                part: add_lanes(&part, parts as i128),
                ty: mty,
            },
            Place::Mem { addr, space, .. } => Place::Mem {
                addr: add_lanes(&addr, offset as i128),
                ty: mty,
                space,
            },
            Place::Constant { .. } => Place::Constant { ty: mty },
            Place::Temp(v) => {
                let n = mty.parts();
                let lanes = match v.lanes {
                    Lanes::Agg(all) => {
                        let slice: Vec<Lanes> = all.into_iter().skip(parts).take(n).collect();
                        if is_agg(&mty) {
                            Lanes::Agg(slice)
                        } else {
                            slice.into_iter().next().unwrap_or(Lanes::Same(S::I(0)))
                        }
                    }
                    other => other,
                };
                Place::Temp(Value::new(mty, lanes))
            }
        })
    }

    /// Element `i` of the array or pointer `b`.
    fn index(&mut self, b: Place, i: Value, m: u64, pos: Pos) -> R<Place> {
        let Some(it) = i.ty.int() else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("an index must be an integer, not {}", i.ty.a())),
            ));
        };
        let idx = |t: usize| -> S {
            match i.lanes.at(t) {
                S::I(x) => S::I(it.wrap(x)),
                s => s,
            }
        };
        let same = i.lanes.is_same();
        match b {
            Place::Var { slot, part, ty: Ty::Array(e, n) } => {
                let per = e.parts() as i128;
                let mut bad = None;
                let lanes = Lanes::map(self.width, m, same && part.is_same(), |t| {
                    match (part.at(t), idx(t)) {
                        (S::I(p), S::I(x)) => {
                            if x < 0 || x >= i128::from(n) {
                                bad.get_or_insert((t, x));
                            }
                            S::I(p + mul_i128(x, per))
                        }
                        (_, s) => {
                            bad.get_or_insert((t, -1));
                            s
                        }
                    }
                });
                if let Some((lane, x)) = bad {
                    if let Some((_, line)) = i.lanes.first_unknown(m) {
                        return Err(self.fail_lane(
                            pos,
                            lane,
                            RunErrorKind::DependsOnLoad {
                                what: "the index of a local array",
                                load_line: line,
                            },
                        ));
                    }
                    return Err(self.fail_lane(
                        pos,
                        lane,
                        RunErrorKind::Type(format!(
                            "index {x} is outside the local array of {n} (undefined behaviour)"
                        )),
                    ));
                }
                Ok(Place::Var { slot, part: lanes, ty: (*e).clone() })
            }
            Place::Mem { addr, ty: Ty::Array(e, _), space } => Ok(Place::Mem {
                addr: scaled(
                    &addr,
                    &i.lanes,
                    it,
                    e.size(),
                    m,
                    self.width,
                    !self.sh.general_only,
                ),
                ty: (*e).clone(),
                space,
            }),
            Place::Constant { ty: Ty::Array(e, _) } => Ok(Place::Constant { ty: (*e).clone() }),
            p => {
                let v = self.load(p, m, pos)?;
                match &v.ty {
                    Ty::Ptr(e, space) => Ok(Place::Mem {
                        addr: scaled(
                            &v.lanes,
                            &i.lanes,
                            it,
                            e.size(),
                            m,
                            self.width,
                            !self.sh.general_only,
                        ),
                        ty: (**e).clone(),
                        space: *space,
                    }),
                    t => Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!("{} cannot be indexed", t.a())),
                    )),
                }
            }
        }
    }
}

/// `a + k` in every lane (addresses and part offsets).
pub(super) fn add_lanes(a: &Lanes, k: i128) -> Lanes {
    if k == 0 {
        return a.clone();
    }
    let f = |s: S| match s {
        S::P(x) => S::P((i128::from(x) + k) as u64),
        S::I(x) => S::I(x + k),
        s => s,
    };
    match a {
        Lanes::Same(s) => Lanes::Same(f(*s)),
        Lanes::Line { base, step, ptr } => Lanes::Line {
            base: base.wrapping_add(k),
            step: *step,
            ptr: *ptr,
        },
        Lanes::Each(v) => Lanes::Each(v.iter().map(|s| f(*s)).collect()),
        Lanes::Agg(v) => Lanes::Agg(v.iter().map(|l| add_lanes(l, k)).collect()),
    }
}

/// `addr + i × size`: as a line when both are affine and `lines` allows it, else lane by lane.
fn scaled(
    addr: &Lanes,
    i: &Lanes,
    it: IntType,
    size: u64,
    m: u64,
    width: usize,
    lines: bool,
) -> Lanes {
    let (lo, hi) = (it.min(), it.max());
    let size = i128::from(size);
    if lines {
        if let Some(line) = super::arith::scaled_line(addr, i, it, size, m) {
            return line;
        }
    }
    Lanes::zip_map(addr, i, width, m, |a, x| match (a, x) {
        (S::P(a), S::I(x)) => {
            let x = if x >= lo && x <= hi { x } else { it.wrap(x) };
            S::P((i128::from(a) + mul_i128(x, size)) as u64)
        }
        (S::U(l), _) | (_, S::U(l)) => S::U(l),
        (a, _) => a,
    })
}
