//! What a name in an expression is, in the order C++ looks: a local, a member of `this`, a
//! template argument, a built-in (`threadIdx`, `warpSize`, …), then a global (a constant, a
//! `__device__` or `__constant__` variable, a kernel parameter's allocation).

use super::super::super::ast::Item;
use super::super::super::cint::INT;
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{Ty, UINT};
use super::super::value::{Lanes, S};
use super::exec::zero;
use super::{Place, Value, Var, Warp, R};
use crate::model::machine::Space;
use std::rc::Rc;

impl Warp<'_> {
    /// The place `name` names here.
    pub(super) fn name(&mut self, name: &str, pos: Pos) -> R<Place> {
        if let Some(slot) = self.local(name) {
            return match self.vars.get(slot) {
                Some(Var::Value(ty, _)) => Ok(Place::Var {
                    slot,
                    part: Lanes::Same(S::I(0)),
                    ty: ty.clone(),
                }),
                Some(Var::Alias(p)) => Ok(p.clone()),
                None => Err(RunError::at(pos, RunErrorKind::Internal("variable slot"))),
            };
        }
        if let Some(this) = self.frames.last().and_then(|f| f.this.clone()) {
            if let Ty::Struct(s) = self.place_ty(&this) {
                if s.laid().fields.iter().any(|f| f.name == name) {
                    return self.member(this, name, 0, pos);
                }
            }
        }
        if let Some(f) = self.frames.last() {
            if let Some(v) = f.bindings.value(name) {
                return Ok(Place::Temp(Value::int(v.ty, v.value)));
            }
        }
        let short = name.rsplit("::").next().unwrap_or(name);
        match short {
            "threadIdx" | "blockIdx" | "blockDim" | "gridDim" => {
                if self.host {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!(
                            "{short} is device code: host code has no thread"
                        )),
                    ));
                }
                if self.constant {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!("{short} is not a constant")),
                    ));
                }
                let ty = Ty::Vector(Rc::new(Ty::Int(UINT)), 3);
                let lanes = match short {
                    "threadIdx" => Lanes::Agg(self.tid.to_vec()),
                    "blockIdx" => Lanes::Agg(
                        self.block
                            .iter()
                            .map(|v| Lanes::Same(S::I(i128::from(*v))))
                            .collect(),
                    ),
                    "blockDim" => Lanes::Agg(
                        self.p
                            .launch
                            .block
                            .iter()
                            .map(|v| Lanes::Same(S::I(i128::from(*v))))
                            .collect(),
                    ),
                    _ => Lanes::Agg(
                        self.p
                            .launch
                            .grid
                            .iter()
                            .map(|v| Lanes::Same(S::I(i128::from(*v))))
                            .collect(),
                    ),
                };
                return Ok(Place::Temp(Value::new(ty, lanes)));
            }
            "warpSize" => {
                return Ok(Place::Temp(Value::int(
                    INT,
                    i128::from(self.p.machine.warp),
                )))
            }
            "nullptr" | "NULL" => {
                return Ok(Place::Temp(Value::new(
                    Ty::Ptr(Rc::new(Ty::Void), Space::Global),
                    Lanes::Same(S::P(0)),
                )))
            }
            _ => {}
        }
        if self.host {
            if let Some(v) = self.hooks().and_then(|h| (h.constant)(short)) {
                return Ok(Place::Temp(v));
            }
        }
        // `x128::size` with no `x128` in the file is x128's absence, not size's.
        self.global(short, pos).map_err(|e| match &*e.kind {
            RunErrorKind::Undeclared(_) if short != name => {
                RunError::at(pos, RunErrorKind::Undeclared(name.to_string()))
            }
            _ => e,
        })
    }

    /// A file-scope name: a constant, or a `__device__` or `__constant__` variable.
    fn global(&mut self, name: &str, pos: Pos) -> R<Place> {
        if let Some((ty, lanes)) = self.sh.constants.get(name) {
            return Ok(Place::Temp(Value::new(ty.clone(), lanes.clone())));
        }
        let unit = &self.p.unit;
        let found = unit.items.iter().find_map(|i| match i {
            Item::Global(d) => d
                .declarators
                .iter()
                .find(|dec| dec.name == name)
                .map(|dec| (d, dec)),
            _ => None,
        });
        let Some((decl, dec)) = found else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Undeclared(name.to_string()),
            ));
        };
        if self.sh.evaluating.iter().any(|n| n == name) {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("the constant {name} is defined in terms of itself")),
            ));
        }
        self.sh.evaluating.push(name.to_string());
        let out = self.global_of(name, decl, dec);
        self.sh.evaluating.retain(|n| n != name);
        out
    }

    /// The place of global `name`, declared by `dec` of `decl`.
    fn global_of(
        &mut self,
        name: &str,
        decl: &super::super::super::ast::Decl,
        dec: &super::super::super::ast::Declarator,
    ) -> R<Place> {
        let empty = Rc::new(super::super::Bindings::default());
        let mut ty = self.resolve(&dec.ty, &empty, dec.pos)?;
        for dim in dec.dims.iter().rev() {
            let n = match dim {
                Some(e) => u64::try_from(self.constant_int(e, &empty)?.value).unwrap_or(0),
                None => 0,
            };
            ty = Ty::Array(Rc::new(ty), n);
        }
        if let Some(&base) = self.p.device_globals.get(name) {
            if !decl.storage.constant {
                return Ok(Place::Mem {
                    addr: Lanes::Same(S::P(base)),
                    ty,
                    space: Space::Global,
                });
            }
            return Ok(Place::Constant { ty });
        }
        // A `const` or `constexpr` global: its initialiser, evaluated once.
        let value = match &dec.init {
            Some(super::super::super::ast::Init::Expr(e)) => {
                let mut events = super::super::Events::default();
                let mut c = Warp::constant_in(self.p, self.sh, &mut events, empty.clone());
                let v = c.eval(e, 1)?;
                c.convert(v, &ty, 1, e.pos)?
            }
            Some(super::super::super::ast::Init::List(items))
            | Some(super::super::super::ast::Init::Ctor(items)) => {
                let mut events = super::super::Events::default();
                let mut c = Warp::constant_in(self.p, self.sh, &mut events, empty.clone());
                c.construct(&ty, items, 1, dec.pos, false)?
            }
            None => Value::new(ty.clone(), zero(&ty)),
        };
        self.sh
            .constants
            .insert(name.to_string(), (value.ty.clone(), value.lanes.clone()));
        Ok(Place::Temp(value))
    }
}
