//! Arithmetic and conversions under an active mask: C++'s usual arithmetic conversions, the
//! binary operators lane by lane (integers exact through `cint`, floats as `float` or
//! `double`, pointers scaled by their pointee), implicit conversions and casts, and values
//! built from initialiser lists and constructors; and the prefix and postfix operators.

use super::super::super::ast::{BinaryOp, Expr, UnaryOp};
use super::super::super::cint::{IntType, INT};
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{Ty, LONG, UINT};
use super::super::value::{Lanes, S};
use super::eval::unknown_of;
use super::exec::{is_agg, leaves, zero};
use super::{Place, Value, Warp, R};
use crate::model::machine::Space;
use crate::model::mul::{checked_mul_i128, mul_i128};
use std::rc::Rc;

impl Warp<'_> {
    /// The usual arithmetic conversions' common type of two scalar types.
    pub(super) fn common(&self, a: &Ty, b: &Ty, pos: Pos) -> R<Ty> {
        Ok(match (a, b) {
            (Ty::Double, _) | (_, Ty::Double) => Ty::Double,
            (Ty::Float, _) | (_, Ty::Float) => Ty::Float,
            (Ty::Ptr(..), _) => a.clone(),
            (_, Ty::Ptr(..)) => b.clone(),
            _ => match (a.int(), b.int()) {
                (Some(x), Some(y)) => Ty::Int(x.common(y)),
                _ => {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!("{a} and {b} have no common type")),
                    ))
                }
            },
        })
    }

    /// `a op b`, lane by lane.
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        a: Value,
        b: Value,
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        use BinaryOp as B;
        let same = a.lanes.is_same() && b.lanes.is_same();
        let width = self.width;
        let compare = matches!(op, B::Lt | B::Gt | B::Le | B::Ge | B::Eq | B::Ne);
        // Pointers.
        match (&a.ty, &b.ty) {
            (Ty::Ptr(e, space), t) | (t, Ty::Ptr(e, space))
                if t.int().is_some() && matches!(op, B::Add | B::Sub) =>
            {
                let ptr_left = matches!(a.ty, Ty::Ptr(..));
                if !ptr_left && op == B::Sub {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type("an integer minus a pointer".into()),
                    ));
                }
                let size = e.size() as i128;
                let (p, n) = if ptr_left { (&a, &b) } else { (&b, &a) };
                let it = n.ty.int().unwrap_or(INT);
                let sign = if op == B::Sub { -1 } else { 1 };
                if !self.sh.general_only {
                    if let Some(lanes) = scaled_line(&p.lanes, &n.lanes, it, sign * size, m) {
                        return Ok(Value::new(Ty::Ptr(e.clone(), *space), lanes));
                    }
                }
                let lanes = Lanes::map(width, m, same, |t| match (p.lanes.at(t), n.lanes.at(t)) {
                    (S::P(addr), S::I(k)) => {
                        S::P((i128::from(addr) + mul_i128(sign * it.wrap(k), size)) as u64)
                    }
                    (S::U(l), _) | (_, S::U(l)) => S::U(l),
                    (s, _) => s,
                });
                return Ok(Value::new(Ty::Ptr(e.clone(), *space), lanes));
            }
            (Ty::Ptr(e, _), Ty::Ptr(..)) if op == B::Sub => {
                let size = e.size().max(1) as i128;
                let lanes = Lanes::map(width, m, same, |t| match (a.lanes.at(t), b.lanes.at(t)) {
                    (S::P(x), S::P(y)) => S::I((i128::from(x) - i128::from(y)) / size),
                    (S::U(l), _) | (_, S::U(l)) => S::U(l),
                    _ => S::I(0),
                });
                return Ok(Value::new(Ty::Int(LONG), lanes));
            }
            (Ty::Ptr(..), _) | (_, Ty::Ptr(..)) if compare => {
                let key = |s: S| match s {
                    S::P(x) => Some(i128::from(x)),
                    S::I(x) => Some(x),
                    _ => None,
                };
                let lanes = Lanes::map(width, m, same, |t| {
                    match (key(a.lanes.at(t)), key(b.lanes.at(t))) {
                        (Some(x), Some(y)) => S::I(i128::from(compare_op(op, x.cmp(&y)))),
                        _ => unknown_of(&[a.lanes.at(t), b.lanes.at(t)]).unwrap_or(S::I(0)),
                    }
                });
                return Ok(Value::new(Ty::Bool, lanes));
            }
            (Ty::Ptr(..), _) | (_, Ty::Ptr(..)) => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!("{} between {} and {}", op.symbol(), a.ty, b.ty)),
                ))
            }
            _ => {}
        }
        if !a.ty.is_scalar() || !b.ty.is_scalar() {
            return Err(RunError::at(
                pos,
                RunErrorKind::Unsupported(format!(
                    "{} between {} and {} (vector and struct operators need helper headers)",
                    op.symbol(),
                    a.ty,
                    b.ty
                )),
            ));
        }
        if a.ty.is_floating() || b.ty.is_floating() {
            let ty = if matches!(a.ty, Ty::Double) || matches!(b.ty, Ty::Double) {
                Ty::Double
            } else {
                Ty::Float
            };
            if matches!(
                op,
                B::Rem | B::Shl | B::Shr | B::BitAnd | B::BitOr | B::BitXor
            ) {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!("{} of a floating value", op.symbol())),
                ));
            }
            let single = ty == Ty::Float;
            let f = |s: S| match s {
                S::I(x) => Some(x as f64),
                S::F(x) => Some(x),
                _ => None,
            };
            let lanes = Lanes::map(width, m, same, |t| {
                let (x, y) = match (f(a.lanes.at(t)), f(b.lanes.at(t))) {
                    (Some(x), Some(y)) => (x, y),
                    _ => return unknown_of(&[a.lanes.at(t), b.lanes.at(t)]).unwrap_or(S::U(0)),
                };
                let (x, y) = if single {
                    (f64::from(x as f32), f64::from(y as f32))
                } else {
                    (x, y)
                };
                let r = match op {
                    B::Add => x + y,
                    B::Sub => x - y,
                    B::Mul => x * y,
                    B::Div => x / y,
                    B::Lt => return S::I(i128::from(x < y)),
                    B::Gt => return S::I(i128::from(x > y)),
                    B::Le => return S::I(i128::from(x <= y)),
                    B::Ge => return S::I(i128::from(x >= y)),
                    B::Eq => return S::I(i128::from(x == y)),
                    B::Ne => return S::I(i128::from(x != y)),
                    _ => 0.0,
                };
                S::F(if single { f64::from(r as f32) } else { r })
            });
            return Ok(Value::new(if compare { Ty::Bool } else { ty }, lanes));
        }
        let (Some(ta), Some(tb)) = (a.ty.int(), b.ty.int()) else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Internal("integer operands"),
            ));
        };
        let prepared = super::super::super::cint::Op::new(op, ta, tb);
        if !same && !self.sh.general_only && m != 0 {
            // The fast path: affine operands with an affine result, checked at the ends.
            if let (Some(x), Some(y)) = (a.lanes.line(false), b.lanes.line(false)) {
                let (first, last) = active_ends(m);
                if let Some((base, step)) = prepared.line(x, y, first, last) {
                    let lanes = Lanes::on_line(base, step, false);
                    return Ok(Value::new(Ty::Int(prepared.ty), lanes));
                }
            }
        }
        let mut failed = None;
        let lanes = Lanes::zip_map(&a.lanes, &b.lanes, width, m, |x, y| match (x, y) {
            (S::I(x), S::I(y)) => match prepared.apply(x, y) {
                Ok(r) => S::I(r),
                Err(u) => {
                    failed.get_or_insert(u);
                    S::I(0)
                }
            },
            (x, y) => unknown_of(&[x, y]).unwrap_or(S::I(0)),
        });
        // The lowest lane that met the error, found again only when there is one.
        let failed = failed.map(|u| {
            let mut lane = 0;
            for t in 0..width {
                if m >> t & 1 == 1 {
                    if let (S::I(x), S::I(y)) = (a.lanes.at(t), b.lanes.at(t)) {
                        if prepared.apply(x, y).is_err() {
                            lane = t;
                            break;
                        }
                    }
                }
            }
            (lane, u)
        });
        if let Some((lane, u)) = failed {
            return Err(self.fail_lane(pos, lane, RunErrorKind::Undefined(u)));
        }
        let ty = if compare {
            Ty::Bool
        } else {
            Ty::Int(prepared.ty)
        };
        Ok(Value::new(ty, lanes))
    }

    /// `v` converted to `to`, as an implicit conversion or a cast makes it.
    pub(super) fn convert(&mut self, v: Value, to: &Ty, m: u64, pos: Pos) -> R<Value> {
        if v.ty == *to {
            return Ok(v);
        }
        let same = v.lanes.is_same();
        let width = self.width;
        let from = v.ty.clone();
        let lanes = match (&from, to) {
            (Ty::Ptr(_, space), Ty::Ptr(e, _)) => {
                return Ok(Value::new(Ty::Ptr(e.clone(), *space), v.lanes))
            }
            (Ty::Array(e, _), Ty::Ptr(t, _)) => {
                let _ = e;
                return Ok(Value::new(Ty::Ptr(t.clone(), Space::Global), v.lanes));
            }
            (f, Ty::Bool) if f.is_scalar() => Lanes::map(width, m, same, |t| match v.lanes.at(t) {
                S::I(x) => S::I(i128::from(x != 0)),
                S::F(x) => S::I(i128::from(x != 0.0)),
                S::P(x) => S::I(i128::from(x != 0)),
                u => u,
            }),
            (f, Ty::Int(it)) if f.is_scalar() => {
                let line = v
                    .lanes
                    .line(false)
                    .filter(|_| !self.sh.general_only && m != 0);
                if let Some((base, step)) = line {
                    // An affine integer within the new type at both active ends is within it in
                    // every lane between, so it converts unchanged.
                    let (first, last) = active_ends(m);
                    let fits = |t: i128| within(base, step, t, *it);
                    if step != 0 && fits(first) && fits(last) {
                        return Ok(Value::new(to.clone(), v.lanes));
                    }
                }
                let mut bad = None;
                let lanes = Lanes::map(width, m, same, |t| match v.lanes.at(t) {
                    S::I(x) => S::I(it.wrap(x)),
                    S::P(x) => S::I(it.wrap(i128::from(x))),
                    S::F(x) => {
                        let tr = x.trunc();
                        if !tr.is_finite() || tr < it.min() as f64 || tr > it.max() as f64 {
                            bad.get_or_insert((t, x));
                            S::I(0)
                        } else {
                            S::I(tr as i128)
                        }
                    }
                    u => u,
                });
                if let Some((lane, x)) = bad {
                    return Err(self.fail_lane(
                        pos,
                        lane,
                        RunErrorKind::Type(format!(
                            "{x} converted to {} is out of its range (undefined behaviour)",
                            it.name()
                        )),
                    ));
                }
                lanes
            }
            (f, Ty::Float | Ty::Double) if f.is_scalar() => {
                let single = *to == Ty::Float;
                Lanes::map(width, m, same, |t| {
                    let x = match v.lanes.at(t) {
                        S::I(x) => x as f64,
                        S::F(x) => x,
                        S::P(x) => x as f64,
                        u => return u,
                    };
                    S::F(if single { f64::from(x as f32) } else { x })
                })
            }
            (Ty::Int(_) | Ty::Bool, Ty::Ptr(e, _)) => {
                return Ok(Value::new(
                    Ty::Ptr(e.clone(), Space::Global),
                    Lanes::map(width, m, same, |t| match v.lanes.at(t) {
                        S::I(x) => S::P(x as u64),
                        s => s,
                    }),
                ))
            }
            (Ty::Vector(_, n), Ty::Vector(e, k)) if n == k => {
                let Lanes::Agg(parts) = v.lanes else {
                    return Err(RunError::at(pos, RunErrorKind::Internal("vector parts")));
                };
                let mut out = Vec::new();
                for p in parts {
                    let c = self.convert(Value::new(from_elem(&from), p), e, m, pos)?;
                    out.push(c.lanes);
                }
                Lanes::Agg(out)
            }
            (Ty::Struct(s), _) => return self.conversion(s.clone(), v, to, m, pos),
            (_, Ty::Struct(_)) => return self.construct_from(to, vec![v], m, pos),
            (Ty::Group, Ty::Group) => v.lanes,
            (Ty::Tile(_), Ty::Tile(_)) => return Ok(v),
            (Ty::Tile(_), Ty::Group) => return Ok(v),
            _ => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type(format!("{} cannot become {}", from.a(), to.a())),
                ))
            }
        };
        Ok(Value::new(to.clone(), lanes))
    }

    /// A value of `ty` from a list of items (`{…}`, `T(…)`, `T{…}`): a struct's constructor,
    /// or its fields in order; a vector's or array's parts in order; a scalar from one item.
    pub(super) fn construct(
        &mut self,
        ty: &Ty,
        items: &[Expr],
        m: u64,
        pos: Pos,
        ctor: bool,
    ) -> R<Value> {
        let mut values = Vec::new();
        for e in items {
            values.push(self.eval(e, m)?);
        }
        let _ = ctor;
        self.construct_from(ty, values, m, pos)
    }

    /// [`Warp::construct`] from evaluated items.
    pub(super) fn construct_from(
        &mut self,
        ty: &Ty,
        values: Vec<Value>,
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        if let Ty::Struct(s) = ty {
            if let Some(v) = self.constructor(s.clone(), &values, m, pos)? {
                return Ok(v);
            }
        }
        if ty.is_scalar() {
            return match values.into_iter().next() {
                Some(v) => self.convert(v, ty, m, pos),
                None => Ok(Value::new(ty.clone(), zero(ty))),
            };
        }
        // Aggregate initialisation, leaf by leaf; `dim3(x, y)` fills the rest with 1.
        let mut leaf_tys = Vec::new();
        leaves(ty, &mut |t| leaf_tys.push(t.clone()));
        let mut parts = Vec::with_capacity(leaf_tys.len());
        let mut k = 0;
        let is_dim3 = matches!(ty, Ty::Vector(e, 3) if **e == Ty::Int(UINT));
        for v in values {
            let n = v.ty.parts();
            if is_agg(&v.ty) {
                let Lanes::Agg(ps) = v.lanes else {
                    return Err(RunError::at(pos, RunErrorKind::Internal("aggregate parts")));
                };
                parts.extend(ps);
            } else {
                let Some(lt) = leaf_tys.get(k) else {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!("too many initialisers for a {ty}")),
                    ));
                };
                let c = self.convert(v, lt, m, pos)?;
                parts.push(c.lanes);
            }
            k += n;
        }
        while parts.len() < leaf_tys.len() {
            let fill = if is_dim3 { S::I(1) } else { S::I(0) };
            let lt = &leaf_tys[parts.len()];
            parts.push(match (lt, fill) {
                (Ty::Float | Ty::Double, _) => Lanes::Same(S::F(0.0)),
                (Ty::Ptr(..), _) => Lanes::Same(S::P(0)),
                (_, f) => Lanes::Same(f),
            });
        }
        parts.truncate(leaf_tys.len());
        Ok(Value::new(ty.clone(), Lanes::Agg(parts)))
    }
}

fn from_elem(t: &Ty) -> Ty {
    match t {
        Ty::Vector(e, _) => (**e).clone(),
        t => t.clone(),
    }
}

pub(super) fn compare_op(op: BinaryOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering as O;
    match op {
        BinaryOp::Lt => o == O::Less,
        BinaryOp::Gt => o == O::Greater,
        BinaryOp::Le => o != O::Greater,
        BinaryOp::Ge => o != O::Less,
        BinaryOp::Eq => o == O::Equal,
        _ => o != O::Equal,
    }
}

/// Whether `base + step × t` is a value of `it`.
fn within(base: i128, step: i128, t: i128, it: IntType) -> bool {
    checked_mul_i128(step, t)
        .and_then(|x| x.checked_add(base))
        .is_some_and(|x| x >= it.min() && x <= it.max())
}

/// The lowest and the highest lane of a mask that is not empty.
#[inline]
pub(super) fn active_ends(m: u64) -> (i128, i128) {
    (
        i128::from(m.trailing_zeros()),
        i128::from(63 - m.leading_zeros()),
    )
}

/// `addr + i × size` for an affine address and an affine index of type `it`, as a line; `None`
/// when either is not affine, when both are the same in every lane, or when the index leaves
/// `it` at an active end (the lane-by-lane path then wraps it as C++ does). Addresses are
/// taken modulo 2^64 in both paths.
pub(super) fn scaled_line(
    addr: &Lanes,
    i: &Lanes,
    it: IntType,
    size: i128,
    m: u64,
) -> Option<Lanes> {
    let (pa, ps) = addr.line(true)?;
    let (ib, is) = i.line(false)?;
    if (ps == 0 && is == 0) || m == 0 {
        return None;
    }
    let (first, last) = active_ends(m);
    let index_fits = |t: i128| within(ib, is, t, it);
    if !index_fits(first) || !index_fits(last) {
        return None;
    }
    let base = pa.checked_add(checked_mul_i128(ib, size)?)?;
    let step = ps.checked_add(checked_mul_i128(is, size)?)?;
    Some(Lanes::on_line(base, step, true))
}

impl Warp<'_> {
    /// Prefix and postfix operators other than `*`.
    pub(super) fn unary(&mut self, op: UnaryOp, operand: &Expr, m: u64, pos: Pos) -> R<Value> {
        match op {
            UnaryOp::AddressOf => {
                let p = self.place(operand, m)?;
                match p {
                    Place::Mem { addr, ty, space } => {
                        Ok(Value::new(Ty::Ptr(Rc::new(ty), space), addr))
                    }
                    // Host code's locals move to host memory when their address is taken.
                    Place::Var { slot, part, ty } if self.host && m != 0 => {
                        let h = self.host_hooks(pos)?;
                        (h.address_of)(self, slot, &part, &ty, pos)
                    }
                    Place::Var { ty, .. } if self.host => Ok(Value::new(
                        Ty::Ptr(Rc::new(ty), Space::Global),
                        Lanes::Same(S::P(0)),
                    )),
                    _ => Err(RunError::at(
                        pos,
                        RunErrorKind::Unsupported(
                            "the address of a local variable (locals are registers here)".into(),
                        ),
                    )),
                }
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let p = self.place(operand, m)?;
                let old = self.load(p.clone(), m, operand.pos)?;
                let one = Value::int(INT, 1);
                let bop = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let new = self.binary(bop, old.clone(), one, m, pos)?;
                let ty = self.place_ty(&p);
                let new = self.convert(new, &ty, m, pos)?;
                self.store(&p, new.clone(), m, operand.pos)?;
                Ok(if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                    new
                } else {
                    old
                })
            }
            UnaryOp::Plus | UnaryOp::Neg | UnaryOp::BitNot | UnaryOp::Not => {
                let v = self.eval(operand, m)?;
                if op == UnaryOp::Not {
                    let (yes, unknown) = self.truth(&v, m, pos)?;
                    let line = v.lanes.first_unknown(unknown).map_or(0, |(_, l)| l);
                    let lanes = if v.lanes.is_same() {
                        Lanes::Same(if unknown != 0 {
                            S::U(line)
                        } else {
                            S::I(i128::from(yes == 0))
                        })
                    } else {
                        Lanes::map(self.width, m, false, |t| {
                            if unknown >> t & 1 == 1 {
                                S::U(line)
                            } else {
                                S::I(i128::from(yes >> t & 1 == 0))
                            }
                        })
                    };
                    return Ok(Value::new(Ty::Bool, lanes));
                }
                if v.ty.is_floating() {
                    if op == UnaryOp::BitNot {
                        return Err(RunError::at(
                            pos,
                            RunErrorKind::Type("~ of a floating value".into()),
                        ));
                    }
                    let neg = op == UnaryOp::Neg;
                    let lanes =
                        Lanes::map(self.width, m, v.lanes.is_same(), |t| match v.lanes.at(t) {
                            S::F(x) if neg => S::F(-x),
                            s => s,
                        });
                    return Ok(Value::new(v.ty, lanes));
                }
                let Some(t) = v.ty.int() else {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!("{} of a {}", unary_symbol(op), v.ty)),
                    ));
                };
                let zero = Value::int(t.promoted(), 0);
                match op {
                    UnaryOp::Plus => self.convert(v, &Ty::Int(t.promoted()), m, pos),
                    UnaryOp::Neg => self.binary(BinaryOp::Sub, zero, v, m, pos),
                    _ => {
                        let all = Value::int(t.promoted(), -1);
                        self.binary(BinaryOp::BitXor, v, all, m, pos)
                    }
                }
            }
            UnaryOp::Deref => {
                let p = self.place(operand, m)?;
                self.load(p, m, pos)
            }
        }
    }
}

fn unary_symbol(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Plus => "+",
        UnaryOp::Not => "!",
        UnaryOp::BitNot => "~",
        UnaryOp::Deref => "*",
        UnaryOp::AddressOf => "&",
        UnaryOp::PreInc | UnaryOp::PostInc => "++",
        UnaryOp::PreDec | UnaryOp::PostDec => "--",
    }
}
