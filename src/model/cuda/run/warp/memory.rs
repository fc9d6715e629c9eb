//! Reading and writing places: a local's parts (registers, no traffic), and memory, where
//! every scalar or vector read or written is one warp access recorded for the tally (a
//! struct copied field by field).

use super::super::super::error::Pos;
use super::super::device_memory::Memory;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::Ty;
use super::super::value::{each_lane, Lanes, S};
use super::super::SiteKind;
use super::eval::add_lanes;
use super::exec::is_agg;
use super::{Place, Value, Var, Warp, R};
use crate::model::machine::Space;
use std::rc::Rc;

impl Warp<'_> {
    /// Reads a place: a local's parts, or memory (one access per scalar or vector, a struct
    /// field by field). An array decays to a pointer to its first element.
    pub(super) fn load(&mut self, p: Place, m: u64, pos: Pos) -> R<Value> {
        match p {
            Place::Temp(v) => Ok(v),
            Place::Constant { ty } => {
                self.sh.constant_reads = true;
                let lanes = Lanes::unknown(ty.parts(), pos.line);
                Ok(Value::new(ty, lanes))
            }
            // Host code's array value (a struct's char array passed to printf): it moves to
            // host memory and decays to a pointer to its first element, as in C.
            Place::Var { slot, part, ty: Ty::Array(e, n) } if self.host && m != 0 => {
                let h = self.host_hooks(pos)?;
                let at = (h.address_of)(self, slot, &part, &Ty::Array(e.clone(), n), pos)?;
                Ok(Value::new(Ty::Ptr(e, Space::Global), at.lanes))
            }
            Place::Var { slot, part, ty } => {
                let lanes = self.read_var(slot, &part, &ty, m, pos)?;
                Ok(Value::new(ty, lanes))
            }
            Place::Mem { addr, ty, space } => {
                if let Ty::Array(e, _) = &ty {
                    return Ok(Value::new(Ty::Ptr(e.clone(), space), addr));
                }
                if self.host {
                    // A side not taken is read for its type alone.
                    if m == 0 {
                        return Ok(Value::new(ty.clone(), Lanes::unknown(ty.parts(), pos.line)));
                    }
                    let lanes = (self.host_hooks(pos)?.load)(self, &addr, &ty, pos)?;
                    return Ok(Value::new(ty, lanes));
                }
                self.access(SiteKind::Load, &addr, &ty, space, m, pos, false)?;
                let lanes = match self.loaded(&addr, &ty, space, m, pos.line) {
                    Some(lanes) => lanes,
                    None => Lanes::unknown(ty.parts(), pos.line),
                };
                let lanes = if is_agg(&ty) || ty.parts() != 1 {
                    match lanes {
                        Lanes::Agg(v) => Lanes::Agg(v),
                        s => Lanes::Agg(vec![s]),
                    }
                } else {
                    lanes
                };
                Ok(Value::new(ty, lanes))
            }
        }
    }

    /// The accesses of one memory read or write of a `ty` at `addr`.
    #[allow(clippy::too_many_arguments, reason = "one access's fields")]
    pub(super) fn access(
        &mut self,
        kind: SiteKind,
        addr: &Lanes,
        ty: &Ty,
        space: Space,
        m: u64,
        pos: Pos,
        same_value: bool,
    ) -> R<()> {
        if ty.is_one_access() {
            return self.record(pos, kind, space, ty.size(), 0, addr, m, same_value);
        }
        // A struct or array, field by field (each vector field one access).
        let mut fields = Vec::new();
        flatten(ty, 0, &mut fields);
        for (k, (offset, elem)) in fields.into_iter().enumerate() {
            let a = add_lanes(addr, offset as i128);
            self.record(pos, kind, space, elem, k as u32, &a, m, same_value)?;
        }
        Ok(())
    }

    /// Writes `v` (already of the place's type) to the place.
    pub(super) fn store(&mut self, p: &Place, v: Value, m: u64, pos: Pos) -> R<()> {
        match p {
            Place::Var { slot, part, ty } => self.write_var(*slot, part, ty, v, m, pos),
            Place::Mem { .. } if self.host && m == 0 => Ok(()),
            Place::Mem { addr, ty, .. } if self.host => {
                (self.host_hooks(pos)?.store)(self, addr, ty, &v.lanes, pos)
            }
            Place::Mem { addr, ty, space } => {
                let same = v.lanes.is_same() && v.lanes.first_unknown(m).is_none();
                self.access(SiteKind::Store, addr, ty, *space, m, pos, same)?;
                self.stored(addr, ty, *space, &v.lanes, m);
                Ok(())
            }
            Place::Constant { .. } => Err(RunError::at(
                pos,
                RunErrorKind::Type("__constant__ memory is read-only on the device".into()),
            )),
            Place::Temp(_) => Err(RunError::at(
                pos,
                RunErrorKind::Type("this expression cannot be assigned to".into()),
            )),
        }
    }

    /// The memory of `space`, with its values.
    pub(super) fn memory_mut(&mut self, space: Space) -> &mut Memory {
        match space {
            Space::Global => Rc::make_mut(&mut self.sh.global),
            Space::Shared => &mut self.sh.shared_memory,
        }
    }

    /// The values a load of a `ty` at `addr` by the lanes of `m` reads, when memory holds any
    /// of them: each scalar part lane by lane, a byte that is not known making that lane's
    /// part unknown (at the load's line). `None` when no lane's part is known.
    pub(super) fn loaded(
        &mut self,
        addr: &Lanes,
        ty: &Ty,
        space: Space,
        m: u64,
        line: u32,
    ) -> Option<Lanes> {
        let mem = match space {
            Space::Global => &self.sh.global,
            Space::Shared => &self.sh.shared_memory,
        };
        if mem.is_empty() || m == 0 {
            return None;
        }
        let mut parts = Vec::with_capacity(ty.parts());
        let mut scalars = Vec::new();
        scalar_parts(ty, 0, &mut scalars);
        let mut any = false;
        let lines = !self.sh.general_only;
        for (offset, part) in &scalars {
            let mut values = vec![S::U(line); self.width];
            let mut first = None;
            each_lane(m, |t| {
                let a = super::address(addr.at(t)).wrapping_add(*offset);
                if let Some(v) = mem.load(a, part) {
                    values[t] = v;
                    any = true;
                }
                first.get_or_insert(values[t]);
            });
            // Lanes outside the mask hold nothing: the first active lane's value lets a value
            // that every active lane shares be held once.
            if let Some(f) = first {
                for (t, v) in values.iter_mut().enumerate() {
                    if m >> t & 1 == 0 {
                        *v = f;
                    }
                }
            }
            parts.push(Lanes::from_values(values, lines));
        }
        if !any {
            return None;
        }
        self.sh.values_read = true;
        Some(if parts.len() == 1 && !is_agg(ty) {
            parts.pop().unwrap_or(Lanes::Same(S::U(line)))
        } else {
            Lanes::Agg(parts)
        })
    }

    /// Writes what a store of `lanes`, a `ty`, at `addr` by the lanes of `m` stores: each
    /// scalar part lane by lane, lowest lane first (a higher lane's write to the same bytes
    /// wins), an unknown part making its bytes unknown.
    pub(super) fn stored(&mut self, addr: &Lanes, ty: &Ty, space: Space, lanes: &Lanes, m: u64) {
        let known = lanes.first_unknown(m).is_none();
        let mem = self.memory_mut(space);
        if mem.is_empty() && !known {
            return;
        }
        let mut scalars = Vec::new();
        scalar_parts(ty, 0, &mut scalars);
        let single = [lanes.clone()];
        let values: &[Lanes] = match lanes {
            Lanes::Agg(p) if scalars.len() != 1 || is_agg(ty) => p,
            _ => &single,
        };
        for ((offset, part), v) in scalars.iter().zip(values) {
            each_lane(m, |t| {
                let a = super::address(addr.at(t)).wrapping_add(*offset);
                mem.store(a, part, v.at(t));
            });
        }
    }

    /// Makes what an atomic of a `ty` at `addr` by the lanes of `m` touches unknown: its new
    /// values are not computed here.
    pub(super) fn atomic_touched(&mut self, addr: &Lanes, ty: &Ty, space: Space, m: u64) {
        let size = ty.size();
        let mem = self.memory_mut(space);
        each_lane(m, |t| mem.forget(super::address(addr.at(t)), size));
    }

    fn read_var(&self, slot: usize, part: &Lanes, ty: &Ty, m: u64, pos: Pos) -> R<Lanes> {
        let Some(Var::Value(vty, lanes)) = self.vars.get(slot) else {
            return Err(RunError::at(pos, RunErrorKind::Internal("variable read")));
        };
        let n = ty.parts();
        if let Lanes::Same(S::I(0)) = part {
            if vty.parts() == n {
                return Ok(lanes.clone());
            }
        }
        let parts: &[Lanes] = match lanes {
            Lanes::Agg(v) => v,
            other => std::slice::from_ref(other),
        };
        let pick = |j: usize| -> Lanes {
            match part {
                Lanes::Same(S::I(k)) => parts
                    .get(*k as usize + j)
                    .cloned()
                    .unwrap_or(Lanes::Same(S::I(0))),
                _ => Lanes::map(self.width, m, false, |t| match part.at(t) {
                    S::I(k) => parts.get(k as usize + j).map_or(S::I(0), |p| p.at(t)),
                    _ => S::I(0),
                }),
            }
        };
        Ok(if is_agg(ty) {
            Lanes::Agg((0..n).map(pick).collect())
        } else {
            pick(0)
        })
    }

    fn write_var(
        &mut self,
        slot: usize,
        part: &Lanes,
        ty: &Ty,
        v: Value,
        m: u64,
        pos: Pos,
    ) -> R<()> {
        let (full, width) = (self.full, self.width);
        let Some(Var::Value(vty, lanes)) = self.vars.get_mut(slot) else {
            return Err(RunError::at(pos, RunErrorKind::Internal("variable write")));
        };
        let n = ty.parts();
        if let Lanes::Same(S::I(0)) = part {
            if vty.parts() == n {
                if let (Ty::Ptr(..), Ty::Ptr(..)) = (&*vty, &v.ty) {
                    *vty = v.ty.clone();
                }
                lanes.merge(v.lanes, m, full, width);
                return Ok(());
            }
        }
        let new_parts: Vec<Lanes> = match v.lanes {
            Lanes::Agg(p) if is_agg(ty) => p,
            other => vec![other],
        };
        let parts: &mut Vec<Lanes> = match lanes {
            Lanes::Agg(p) => p,
            _ => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Internal("part of a scalar"),
                ))
            }
        };
        match part {
            Lanes::Same(S::I(k)) => {
                for (j, np) in new_parts.into_iter().enumerate() {
                    if let Some(slot) = parts.get_mut(*k as usize + j) {
                        slot.merge(np, m, full, width);
                    }
                }
            }
            _ => {
                // Each lane writes its own element.
                let mut err = false;
                each_lane(m, |t| {
                    let S::I(k) = part.at(t) else {
                        err = true;
                        return;
                    };
                    for (j, np) in new_parts.iter().enumerate() {
                        if let Some(slot) = parts.get_mut(k as usize + j) {
                            slot.merge(Lanes::Same(np.at(t)), 1 << t, full, width);
                        }
                    }
                });
                if err {
                    return Err(RunError::at(pos, RunErrorKind::Internal("element index")));
                }
            }
        }
        Ok(())
    }
}

/// Each scalar part of `ty` at `base`, in the order a value holds its parts: (byte offset,
/// its type).
pub(super) fn scalar_parts(ty: &Ty, base: u64, out: &mut Vec<(u64, Ty)>) {
    match ty {
        Ty::Struct(s) => {
            for f in &s.laid().fields {
                scalar_parts(&f.ty, base + f.offset, out);
            }
        }
        Ty::Array(e, n) => {
            for k in 0..*n {
                scalar_parts(e, base + k * e.size(), out);
            }
        }
        Ty::Vector(e, n) => {
            for k in 0..u64::from(*n) {
                out.push((base + k * e.size(), (**e).clone()));
            }
        }
        t => out.push((base, t.clone())),
    }
}

/// Each scalar or vector field of `ty` at `base`: (byte offset, bytes).
fn flatten(ty: &Ty, base: u64, out: &mut Vec<(u64, u64)>) {
    match ty {
        Ty::Struct(s) => {
            for f in &s.laid().fields {
                flatten(&f.ty, base + f.offset, out);
            }
        }
        Ty::Array(e, n) => {
            for k in 0..*n {
                flatten(e, base + k * e.size(), out);
            }
        }
        t => out.push((base, t.size())),
    }
}
