//! Types resolved with their template arguments: aliases followed, template parameters
//! replaced, struct instances laid out as C++ lays them out.

use super::super::super::ast::{
    Base, Expr, Item, Member, StructDef, TemplateArg, TemplateParam, Type,
};
use super::super::super::cint::Int;
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{Field, StructLayout, StructTy, Ty, UINT};
use super::super::value::S;
use super::super::{Bindings, Events, Program, Shared};
use super::{Warp, R};
use crate::model::machine::Space;
use std::rc::Rc;

/// Types resolved within types (aliases, fields, template arguments) at most this deep: a
/// type that contains itself is refused, not followed for ever.
const MAX_TYPE_DEPTH: u32 = 64;

/// Cooperative groups' types, which the interpreter knows by name.
const GROUP_TYPES: [&str; 5] = [
    "thread_block",
    "thread_group",
    "grid_group",
    "coalesced_group",
    "thread_block_tile",
];

/// The kernel's template parameters bound to the launch's template arguments.
pub(crate) fn bind_launch_template(p: &Program, sh: &mut Shared) -> R<Bindings> {
    let mut events = Events::default();
    let mut w = Warp::constant(p, sh, &mut events);
    let f = w.kernel_fn()?;
    let params = super::super::template_params(f);
    // What the launch's template arguments lack or get wrong is the launch's to fix: the error
    // goes to its field, with what to write there.
    w.bind(
        params,
        &p.launch.template_args,
        &Bindings::default(),
        f.pos,
        &f.name,
        &[],
    )
    .map_err(|e| {
        let hint = match &*e.kind {
            RunErrorKind::Type(m) if m.ends_with("has no argument and no default") => format!(
                "; give it in the launch: {}<…><<<…>>>(…), a type such as float for a type \
                 parameter, a number for a value",
                f.name
            ),
            _ => String::new(),
        };
        RunError::at(
            Pos { line: 1, column: 1 },
            RunErrorKind::Launch(format!("{}{hint}", e.kind)),
        )
    })
}

impl Warp<'_> {
    /// Binds `params` to `args` (defaults where an argument is missing).
    pub(super) fn bind(
        &mut self,
        params: &[TemplateParam],
        args: &[TemplateArg],
        outer: &Bindings,
        pos: Pos,
        what: &str,
        deduced: &[(String, Ty)],
    ) -> R<Bindings> {
        if args.len() > params.len() {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!(
                    "{what} takes {} template argument{}, {} given",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len()
                )),
            ));
        }
        let mut b = Bindings::default();
        for (k, param) in params.iter().enumerate() {
            match param {
                TemplateParam::Type { name, default } => {
                    let ty = match (args.get(k), default) {
                        (Some(TemplateArg::Type(t)), _) => self.resolve(t, outer, pos)?,
                        (Some(TemplateArg::Value(e)), _) => {
                            return Err(RunError::at(
                                e.pos,
                                RunErrorKind::Type(format!(
                                    "template parameter {name} of {what} is a type, given a value"
                                )),
                            ))
                        }
                        (None, _) if deduced.iter().any(|(n, _)| n == name) => deduced
                            .iter()
                            .find(|(n, _)| n == name)
                            .map(|(_, t)| t.clone())
                            .unwrap_or(Ty::Void),
                        (None, Some(t)) => {
                            let mut inner = outer.clone();
                            inner.types.extend(b.types.iter().cloned());
                            inner.values.extend(b.values.iter().cloned());
                            self.resolve(t, &inner, pos)?
                        }
                        (None, None) => return Err(missing(pos, name, what)),
                    };
                    b.types.push((name.clone(), ty));
                }
                TemplateParam::Value { name, ty, default } => {
                    let int_ty = self.resolve(ty, outer, pos)?;
                    let expr: Option<Expr> = match args.get(k) {
                        Some(TemplateArg::Value(e)) => Some(e.clone()),
                        // `f<N>` where N is itself a value: the parser cannot tell.
                        Some(TemplateArg::Type(t)) => match &t.base {
                            Base::Named { name: n, args } if args.is_empty() && t.pointers == 0 => {
                                Some(Expr {
                                    kind: super::super::super::ast::ExprKind::Name(n.clone()),
                                    pos,
                                })
                            }
                            _ => {
                                return Err(RunError::at(
                                    pos,
                                    RunErrorKind::Type(format!(
                                    "template parameter {name} of {what} is a value, given a type"
                                )),
                                ))
                            }
                        },
                        None => default.clone(),
                    };
                    let Some(e) = expr else {
                        return Err(missing(pos, name, what));
                    };
                    let mut inner = outer.clone();
                    inner.types.extend(b.types.iter().cloned());
                    inner.values.extend(b.values.iter().cloned());
                    let v = self.constant_int(&e, &inner)?;
                    let v = match int_ty.int() {
                        // C++ refuses a narrowing template argument; it was taken modulo 2^32.
                        Some(t) if v.value < t.min() || v.value > t.max() => {
                            return Err(RunError::at(
                                e.pos,
                                RunErrorKind::Type(format!(
                                    "template argument {} does not fit template parameter {name} \
                                     of {what}, {} (C++ refuses a narrowing template argument)",
                                    v.value,
                                    int_ty.a()
                                )),
                            ))
                        }
                        Some(t) => v.to(t),
                        None => v,
                    };
                    b.values.push((name.clone(), v));
                }
            }
        }
        Ok(b)
    }

    /// An integer constant expression's value, with `bindings`' template values in scope.
    pub(super) fn constant_int(&mut self, e: &Expr, bindings: &Bindings) -> R<Int> {
        let mut events = Events::default();
        let mut c = Warp::constant_in(self.p, self.sh, &mut events, Rc::new(bindings.clone()));
        let v = c.eval(e, 1)?;
        match (v.ty.int(), v.lanes.at(0)) {
            (Some(t), S::I(x)) => Ok(Int::new(x, t)),
            _ => Err(RunError::at(
                e.pos,
                RunErrorKind::Type("this is not an integer constant expression".into()),
            )),
        }
    }

    /// `ty` with its template parameters replaced and its names resolved.
    pub(super) fn resolve(&mut self, ty: &Type, b: &Bindings, pos: Pos) -> R<Ty> {
        let mut t = self.resolve_base(&ty.base, b, pos)?;
        for _ in 0..ty.pointers {
            t = Ty::Ptr(Rc::new(t), Space::Global);
        }
        Ok(t)
    }

    pub(super) fn resolve_base(&mut self, base: &Base, b: &Bindings, pos: Pos) -> R<Ty> {
        Ok(match base {
            Base::Void => Ty::Void,
            Base::Bool => Ty::Bool,
            Base::Int { bytes, signed } => {
                Ty::Int(super::super::super::cint::IntType { bytes: *bytes, signed: *signed })
            }
            Base::Float => Ty::Float,
            Base::Double => Ty::Double,
            Base::Vector { elem, lanes } => {
                Ty::Vector(Rc::new(self.resolve_base(elem, b, pos)?), *lanes)
            }
            Base::Dim3 => Ty::Vector(Rc::new(Ty::Int(UINT)), 3),
            Base::Auto => {
                return Err(RunError::at(
                    pos,
                    RunErrorKind::Type("auto needs an initialiser to take its type from".into()),
                ))
            }
            Base::Named { name, args } => {
                if let Some(t) = b.ty(name) {
                    return Ok(t.clone());
                }
                self.sh.type_depth += 1;
                let out = if self.sh.type_depth > MAX_TYPE_DEPTH {
                    Err(RunError::at(
                        pos,
                        RunErrorKind::Type(format!(
                            "the type {name} refers to itself, or nests more than {MAX_TYPE_DEPTH} \
                             types deep"
                        )),
                    ))
                } else {
                    self.named(name, args, b, pos)
                };
                self.sh.type_depth -= 1;
                return out;
            }
        })
    }

    /// A named type that is not a template parameter: a cooperative group, an alias, a
    /// struct.
    fn named(&mut self, name: &str, args: &[TemplateArg], b: &Bindings, pos: Pos) -> R<Ty> {
        if name == "thread_block_tile" {
            if let Some(TemplateArg::Value(e)) = args.first() {
                let n = self.constant_int(e, b)?.value;
                return Ok(Ty::Tile(u32::try_from(n).unwrap_or(0)));
            }
        }
        if GROUP_TYPES.contains(&name) {
            return Ok(Ty::Group);
        }
        let unit = &self.p.unit;
        if let Some(t) = unit.items.iter().find_map(|i| match i {
            Item::Alias { name: n, ty, .. } if n == name => Some(ty.clone()),
            _ => None,
        }) {
            return self.resolve(&t, &Bindings::default(), pos);
        }
        if unit
            .items
            .iter()
            .any(|i| matches!(i, Item::Struct(s) if s.name == *name))
        {
            return Ok(Ty::Struct(self.instance(name, args, b, pos)?));
        }
        Err(RunError::at(
            pos,
            RunErrorKind::Type(format!(
                "the type {name} is not declared in this file (headers are not read)"
            )),
        ))
    }

    /// The struct `name<args>`, laid out: an explicit specialisation when one matches.
    fn instance(
        &mut self,
        name: &str,
        args: &[TemplateArg],
        outer: &Bindings,
        pos: Pos,
    ) -> R<Rc<StructTy>> {
        let mut resolved = Vec::new();
        for a in args {
            resolved.push(match a {
                TemplateArg::Type(t) => match (&t.base, t.pointers) {
                    (Base::Named { name, args }, 0)
                        if args.is_empty() && outer.value(name).is_some() =>
                    {
                        format!("{}", outer.value(name).map_or(0, |v| v.value))
                    }
                    _ => format!("{}", self.resolve(t, outer, pos)?),
                },
                TemplateArg::Value(e) => format!("{}", self.constant_int(e, outer)?.value),
            });
        }
        let key = if resolved.is_empty() {
            name.to_string()
        } else {
            format!("{name}<{}>", resolved.join(", "))
        };
        if let Some(s) = self.sh.structs.get(&key) {
            return Ok(s.clone());
        }
        let unit = &self.p.unit;
        let mut chosen: Option<(usize, &StructDef)> = None;
        for (k, item) in unit.items.iter().enumerate() {
            let Item::Struct(s) = item else { continue };
            if s.name != name {
                continue;
            }
            match &s.specialises {
                Some(spec) => {
                    let mut keys = Vec::new();
                    for a in spec {
                        keys.push(match a {
                            TemplateArg::Type(t) => {
                                format!("{}", self.resolve(t, &Bindings::default(), pos)?)
                            }
                            TemplateArg::Value(e) => {
                                format!("{}", self.constant_int(e, &Bindings::default())?.value)
                            }
                        });
                    }
                    if keys == resolved {
                        chosen = Some((k, s));
                        break;
                    }
                }
                None => {
                    if chosen.is_none() {
                        chosen = Some((k, s));
                    }
                }
            }
        }
        let Some((item, def)) = chosen else {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type(format!("the struct {name} is not declared in this file")),
            ));
        };
        let bindings = match (&def.template, &def.specialises) {
            (Some(params), None) => self.bind(params, args, outer, pos, name, &[])?,
            _ => Bindings::default(),
        };
        let bindings = Rc::new(bindings);
        // The struct stands known before its fields are resolved, so that a field may point
        // to it; a field that holds it whole finds it not laid out yet.
        let s = Rc::new(StructTy {
            name: key.clone(),
            item,
            layout: std::cell::RefCell::new(None),
            bindings: bindings.clone(),
        });
        self.sh.structs.insert(key.clone(), s.clone());
        self.sh.arena.0.borrow_mut().push(s.clone());
        let laid = self.lay_out(def, name, &bindings);
        match laid {
            Ok(layout) => {
                *s.layout.borrow_mut() = Some(Rc::new(layout));
                Ok(s)
            }
            Err(e) => {
                self.sh.structs.remove(&key);
                Err(e)
            }
        }
    }

    /// The fields of `def` (the struct `name`) resolved and laid out as C++ lays them out.
    fn lay_out(&mut self, def: &StructDef, name: &str, bindings: &Bindings) -> R<StructLayout> {
        let mut fields = Vec::new();
        let (mut offset, mut align) = (0u64, 1u64);
        for m in &def.members {
            let Member::Field(decl) = m else { continue };
            if decl.storage.is_static || decl.storage.constexpr {
                continue;
            }
            for d in &decl.declarators {
                let mut ty = self.resolve(&d.ty, bindings, d.pos)?;
                if contains_unfinished(&ty) {
                    return Err(RunError::at(
                        d.pos,
                        RunErrorKind::Type(format!(
                            "{name} holds itself (field {}); a struct can hold a pointer to its \
                             own type, not its own type",
                            d.name
                        )),
                    ));
                }
                for dim in d.dims.iter().rev() {
                    let Some(e) = dim else {
                        return Err(RunError::at(
                            d.pos,
                            RunErrorKind::Type("a struct's array field needs its length".into()),
                        ));
                    };
                    let n = self.constant_int(e, bindings)?;
                    ty = Ty::Array(Rc::new(ty), u64::try_from(n.value).unwrap_or(0));
                }
                let a = ty.align();
                offset = offset.next_multiple_of(a);
                align = align.max(a);
                let size = ty.size();
                fields.push(Field { name: d.name.clone(), ty, offset });
                offset += size;
            }
        }
        Ok(StructLayout {
            fields,
            size: offset.max(1).next_multiple_of(align),
            align,
        })
    }
}

/// Whether `ty` holds, by value, a struct whose fields are still being resolved.
fn contains_unfinished(ty: &Ty) -> bool {
    match ty {
        Ty::Struct(s) => !s.is_laid_out(),
        Ty::Array(e, _) | Ty::Vector(e, _) => contains_unfinished(e),
        _ => false,
    }
}

fn missing(pos: Pos, name: &str, what: &str) -> RunError {
    RunError::at(
        pos,
        RunErrorKind::Type(format!(
            "template parameter {name} of {what} has no argument and no default"
        )),
    )
}
