//! The built-ins a kernel calls without declaring them: barriers, atomics, `__ldg` and the
//! cache-hinted loads and stores, shuffles and votes, cooperative groups (blocks and tiles,
//! `cg::reduce`), vector makers, and the math library and integer intrinsics.

use super::super::super::ast::{Base, Expr, ExprKind};
use super::super::super::cint::INT;
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{Ty, UINT};
use super::super::value::{Lanes, S};
use super::super::Event;
use super::super::SiteKind;
use super::{Value, Warp, R};
use crate::model::machine::Space;
use std::rc::Rc;

const ATOMICS: [&str; 11] = [
    "atomicAdd",
    "atomicSub",
    "atomicExch",
    "atomicMin",
    "atomicMax",
    "atomicInc",
    "atomicDec",
    "atomicCAS",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
];

const LOADS: [&str; 6] = ["__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"];
const STORES: [&str; 4] = ["__stcg", "__stcs", "__stwb", "__stwt"];

/// Built-ins with no effect on memory traffic.
const NO_OPS: [&str; 5] = [
    "__threadfence",
    "__threadfence_block",
    "__threadfence_system",
    "__nanosleep",
    "__trap",
];

impl Warp<'_> {
    /// A built-in, if `name` is one.
    pub(super) fn builtin(
        &mut self,
        name: &str,
        args: &[Expr],
        m: u64,
        pos: Pos,
    ) -> R<Option<Value>> {
        let void = || Ok(Some(Value::new(Ty::Void, Lanes::Same(S::I(0)))));
        match name {
            "__syncthreads"
            | "__syncthreads_count"
            | "__syncthreads_and"
            | "__syncthreads_or"
            | "sync" => {
                for a in args {
                    self.eval(a, m)?;
                }
                self.barrier(m, pos)?;
                return if name == "__syncthreads" || name == "sync" {
                    void()
                } else {
                    Ok(Some(Value::new(Ty::Int(INT), Lanes::Same(S::U(pos.line)))))
                };
            }
            "__syncwarp" => {
                for a in args {
                    self.eval(a, m)?;
                }
                if !self.constant {
                    self.out.list.push(Event::SyncWarp);
                }
                return void();
            }
            "this_thread_block" | "this_grid" => {
                return Ok(Some(Value::new(Ty::Group, Lanes::Same(S::I(0)))))
            }
            "printf" | "assert" => {
                for a in args {
                    if !matches!(a.kind, ExprKind::Str(_)) {
                        self.eval(a, m)?;
                    }
                }
                return Ok(Some(Value::int(INT, 0)));
            }
            _ => {}
        }
        if NO_OPS.contains(&name) {
            for a in args {
                self.eval(a, m)?;
            }
            return void();
        }
        if ATOMICS.iter().any(|a| name.starts_with(a)) {
            let Some((first, rest)) = args.split_first() else {
                return Err(arity(pos, name, 2));
            };
            let ptr = self.eval(first, m)?;
            for a in rest {
                self.eval(a, m)?;
            }
            let Ty::Ptr(t, space) = &ptr.ty else {
                return Err(RunError::at(
                    first.pos,
                    RunErrorKind::Type(format!("{name} needs a pointer, not {}", ptr.ty.a())),
                ));
            };
            let ty = (**t).clone();
            self.access(
                SiteKind::Atomic,
                &ptr.lanes,
                &ty,
                *space,
                m,
                first.pos.min(pos),
                false,
            )?;
            let lanes = Lanes::unknown(ty.parts(), pos.line);
            return Ok(Some(Value::new(ty, lanes)));
        }
        if LOADS.contains(&name) {
            let [p] = args else {
                return Err(arity(pos, name, 1));
            };
            let v = self.eval(p, m)?;
            let place = self.deref(v, p.pos)?;
            return self.load(place, m, pos).map(Some);
        }
        if STORES.contains(&name) {
            let [p, value] = args else {
                return Err(arity(pos, name, 2));
            };
            let v = self.eval(p, m)?;
            let x = self.eval(value, m)?;
            let place = self.deref(v, p.pos)?;
            let ty = self.place_ty(&place);
            let x = self.convert(x, &ty, m, pos)?;
            self.store(&place, x, m, pos)?;
            return void();
        }
        if let Some(v) = self.warp_builtin(name, args, m, pos)? {
            return Ok(Some(v));
        }
        if let Some(rest) = name.strip_prefix("make_") {
            // `make_` + a vector type's name, as the parser reads it.
            let base = crate::model::cuda::parse::builtin_type(rest)
                .filter(|b| matches!(b, crate::model::cuda::ast::Base::Vector { .. }))
                .ok_or_else(|| RunError::at(pos, RunErrorKind::Undeclared(name.to_string())))?;
            let bindings = self.frame()?.bindings.clone();
            let ty = self.resolve_base(&base, &bindings, pos)?;
            let mut values = Vec::new();
            for a in args {
                values.push(self.eval(a, m)?);
            }
            return self.construct_from(&ty, values, m, pos).map(Some);
        }
        self.math(name, args, m, pos)
    }

    /// `__syncthreads()` reached by the lanes of `m`.
    fn barrier(&mut self, m: u64, pos: Pos) -> R<()> {
        if self.constant {
            return Err(RunError::at(
                pos,
                RunErrorKind::Type("a barrier is not a constant".into()),
            ));
        }
        let site = self.sh.site(pos, SiteKind::Barrier, Space::Global, 0, 0);
        let branch = self.enclosing.last().copied();
        self.out.list.push(Event::Barrier {
            site,
            mask: m,
            pos,
            branch,
        });
        Ok(())
    }

    /// Shuffles, votes and lane masks.
    fn warp_builtin(&mut self, name: &str, args: &[Expr], m: u64, pos: Pos) -> R<Option<Value>> {
        let base = name.strip_suffix("_sync").unwrap_or(name);
        let with_mask = name.ends_with("_sync");
        match base {
            "__shfl" | "__shfl_up" | "__shfl_down" | "__shfl_xor" => {
                let skip = usize::from(with_mask);
                let (Some(var), Some(lane)) = (args.get(skip), args.get(skip + 1)) else {
                    return Err(arity(pos, name, 2 + skip));
                };
                if let Some(mask) = args.first().filter(|_| with_mask) {
                    self.eval(mask, m)?;
                }
                let seg = match args.get(skip + 2) {
                    Some(w) => match self.eval(w, m)?.lanes.at(m.trailing_zeros() as usize) {
                        S::I(x) if x > 0 => x as usize,
                        _ => self.width,
                    },
                    None => self.width,
                };
                let op = base.trim_start_matches("__shfl");
                self.shuffle(op, var, lane, seg, m).map(Some)
            }
            "__ballot" | "__any" | "__all" => {
                let skip = usize::from(with_mask);
                let Some(pred) = args.get(skip) else {
                    return Err(arity(pos, name, 1 + skip));
                };
                if let Some(mask) = args.first().filter(|_| with_mask) {
                    self.eval(mask, m)?;
                }
                let v = self.eval(pred, m)?;
                let (yes, unknown) = self.truth(&v, m, pred.pos)?;
                let line = v.lanes.first_unknown(unknown).map_or(0, |(_, l)| l);
                let s = if unknown != 0 {
                    S::U(line)
                } else {
                    match base {
                        "__ballot" => S::I(i128::from(yes as u32)),
                        "__any" => S::I(i128::from(yes != 0)),
                        _ => S::I(i128::from(yes == m)),
                    }
                };
                let ty = if base == "__ballot" {
                    Ty::Int(UINT)
                } else {
                    Ty::Int(INT)
                };
                Ok(Some(Value::new(ty, Lanes::Same(s))))
            }
            "__activemask" => Ok(Some(Value::new(
                Ty::Int(UINT),
                Lanes::Same(S::I(i128::from(m as u32))),
            ))),
            "__lanemask_lt" | "__lanemask_le" | "__lanemask_gt" | "__lanemask_ge"
            | "__lanemask_eq" => {
                let lanes = Lanes::map(self.width, m, false, |t| {
                    let below = (1u64 << t) - 1;
                    let v = match base {
                        "__lanemask_lt" => below,
                        "__lanemask_le" => below | 1 << t,
                        "__lanemask_gt" => !(below | 1 << t),
                        "__lanemask_ge" => !below,
                        _ => 1 << t,
                    };
                    S::I(i128::from(v as u32))
                });
                Ok(Some(Value::new(Ty::Int(UINT), lanes)))
            }
            _ => Ok(None),
        }
    }

    /// A shuffle within segments of `seg` lanes: `op` is "" (from a lane), "_up", "_down" or
    /// "_xor". Known values are moved between lanes; a lane whose source is outside its
    /// segment or inactive keeps its own value.
    fn shuffle(&mut self, op: &str, var: &Expr, lane: &Expr, seg: usize, m: u64) -> R<Value> {
        let v = self.eval(var, m)?;
        let l = self.eval(lane, m)?;
        if let Some((t, line)) = l.lanes.first_unknown(m) {
            return Err(self.fail_lane(
                lane.pos,
                t,
                RunErrorKind::DependsOnLoad {
                    what: "the shuffle's source lane",
                    load_line: line,
                },
            ));
        }
        let width = self.width;
        let seg = seg.clamp(1, width);
        let src = |t: usize| -> usize {
            let k = match l.lanes.at(t) {
                S::I(x) => x,
                _ => 0,
            };
            let start = t / seg * seg;
            let within = (t % seg) as i128;
            let s = match op {
                "" => Some(k.rem_euclid(seg as i128)),
                "_up" => Some(within - k).filter(|s| *s >= 0),
                "_down" => Some(within + k).filter(|s| *s < seg as i128),
                _ => Some(within ^ k).filter(|s| (0..seg as i128).contains(s)),
            };
            match s.map(|s| start + s as usize) {
                Some(s) if m >> s & 1 == 1 => s,
                _ => t,
            }
        };
        let shuffle = |lanes: &Lanes| -> Lanes {
            if lanes.is_same() {
                return lanes.clone();
            }
            Lanes::map(width, m, false, |t| lanes.at(src(t)))
        };
        let out = match &v.lanes {
            Lanes::Agg(parts) => Lanes::Agg(parts.iter().map(shuffle).collect()),
            other => shuffle(other),
        };
        Ok(Value::new(v.ty, out))
    }

    /// A thread-block tile's member: `sync`, `thread_rank`, `size`, `meta_group_rank`,
    /// `meta_group_size`, the shuffles and the votes, within tiles of `n` lanes.
    pub(super) fn tile_method(
        &mut self,
        n: u32,
        field: &str,
        args: &[Expr],
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        let n64 = u64::from(n);
        let width = self.width;
        let first = u64::from(self.warp) * width as u64;
        match field {
            "shfl" | "shfl_up" | "shfl_down" | "shfl_xor" => {
                let [var, lane] = args else {
                    return Err(arity(pos, field, 2));
                };
                let op = field.trim_start_matches("shfl");
                return self.shuffle(op, var, lane, n as usize, m);
            }
            "any" | "all" | "ballot" => {
                let [pred] = args else {
                    return Err(arity(pos, field, 1));
                };
                let v = self.eval(pred, m)?;
                let (yes, unknown) = self.truth(&v, m, pred.pos)?;
                let line = v.lanes.first_unknown(unknown).map_or(0, |(_, l)| l);
                let tile_mask = |t: usize| -> u64 {
                    let start = t / n as usize * n as usize;
                    let ones = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
                    ones << start
                };
                let lanes = Lanes::map(width, m, false, |t| {
                    let tm = tile_mask(t) & m;
                    if unknown & tm != 0 {
                        return S::U(line);
                    }
                    S::I(match field {
                        "any" => i128::from(yes & tm != 0),
                        "all" => i128::from(yes & tm == tm),
                        _ => i128::from(((yes & tm) >> (t / n as usize * n as usize)) as u32),
                    })
                });
                let ty = if field == "ballot" {
                    Ty::Int(UINT)
                } else {
                    Ty::Bool
                };
                return Ok(Value::new(ty, lanes));
            }
            _ => {}
        }
        for a in args {
            self.eval(a, m)?;
        }
        let threads: u64 = self.p.launch.block.iter().product();
        match field {
            "sync" => {
                if !self.constant {
                    self.out.list.push(Event::SyncWarp);
                }
                Ok(Value::new(Ty::Void, Lanes::Same(S::I(0))))
            }
            "thread_rank" => Ok(Value::new(
                Ty::Int(UINT),
                Lanes::map(width, m, false, |t| {
                    S::I(i128::from((first + t as u64) % n64))
                }),
            )),
            "meta_group_rank" => Ok(Value::new(
                Ty::Int(UINT),
                Lanes::map(width, m, false, |t| {
                    S::I(i128::from((first + t as u64) / n64))
                }),
            )),
            "size" | "num_threads" => Ok(Value::int(UINT, i128::from(n))),
            "meta_group_size" => Ok(Value::int(UINT, i128::from(threads.div_ceil(n64)))),
            _ => Err(RunError::at(
                pos,
                RunErrorKind::Unsupported(format!("the cooperative-groups tile member {field}")),
            )),
        }
    }

    /// `cg::reduce(tile, value, cg::plus<T>())` and its kin: the tile's active lanes combined,
    /// exact on known values.
    pub(super) fn group_reduce(&mut self, args: &[Expr], m: u64, pos: Pos) -> R<Value> {
        let [group, value, op] = args else {
            return Err(arity(pos, "reduce", 3));
        };
        let g = self.eval(group, m)?;
        let n = match g.ty {
            Ty::Tile(n) => n as usize,
            _ => self.width,
        };
        let v = self.eval(value, m)?;
        let op_name = match &op.kind {
            ExprKind::InitList { ty: Some(t), .. } | ExprKind::Cast { ty: t, .. } => {
                match &t.base {
                    Base::Named { name, .. } => name.clone(),
                    _ => String::new(),
                }
            }
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Name(n) => n.rsplit("::").next().unwrap_or(n).to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        let width = self.width;
        let combine = |a: S, b: S| -> S {
            match (a, b) {
                (S::U(l), _) | (_, S::U(l)) => S::U(l),
                (S::I(x), S::I(y)) => S::I(match op_name.as_str() {
                    "less" => x.min(y),
                    "greater" => x.max(y),
                    "bit_and" => x & y,
                    "bit_or" => x | y,
                    "bit_xor" => x ^ y,
                    _ => x + y,
                }),
                (S::F(x), S::F(y)) => S::F(match op_name.as_str() {
                    "less" => x.min(y),
                    "greater" => x.max(y),
                    _ => x + y,
                }),
                (a, _) => a,
            }
        };
        let lanes = Lanes::map(width, m, false, |t| {
            let start = t / n * n;
            let mut acc: Option<S> = None;
            for s in start..(start + n).min(width) {
                if m >> s & 1 == 1 {
                    let x = v.lanes.at(s);
                    acc = Some(acc.map_or(x, |a| combine(a, x)));
                }
            }
            acc.unwrap_or(S::I(0))
        });
        Ok(Value::new(v.ty, lanes))
    }

    /// The math library and integer intrinsics: exact on known values, unknown otherwise.
    fn math(&mut self, name: &str, args: &[Expr], m: u64, pos: Pos) -> R<Option<Value>> {
        let known_name = MATH1.contains(&name)
            || MATH2.contains(&name)
            || INT_OPS.contains(&name)
            || matches!(
                name,
                "min"
                    | "max"
                    | "umin"
                    | "umax"
                    | "llmin"
                    | "llmax"
                    | "ullmin"
                    | "ullmax"
                    | "abs"
                    | "labs"
                    | "llabs"
                    | "fmaf"
                    | "fma"
                    | "__fmaf_rn"
            );
        if !known_name {
            return Ok(None);
        }
        let mut values = Vec::new();
        for a in args {
            values.push(self.eval(a, m)?);
        }
        let width = self.width;
        match name {
            "min" | "max" | "umin" | "umax" | "llmin" | "llmax" | "ullmin" | "ullmax" => {
                let [a, b] = <[Value; 2]>::try_from(values).map_err(|_| arity(pos, name, 2))?;
                let ty = self.common(&a.ty, &b.ty, pos)?;
                let a = self.convert(a, &ty, m, pos)?;
                let b = self.convert(b, &ty, m, pos)?;
                let is_min = name.contains("min");
                let same = a.lanes.is_same() && b.lanes.is_same();
                let lanes = Lanes::map(width, m, same, |t| match (a.lanes.at(t), b.lanes.at(t)) {
                    (S::I(x), S::I(y)) => S::I(if is_min { x.min(y) } else { x.max(y) }),
                    (S::F(x), S::F(y)) => S::F(if is_min { x.min(y) } else { x.max(y) }),
                    (S::U(l), _) | (_, S::U(l)) => S::U(l),
                    (x, _) => x,
                });
                Ok(Some(Value::new(ty, lanes)))
            }
            "abs" | "labs" | "llabs" => {
                let [a] = <[Value; 1]>::try_from(values).map_err(|_| arity(pos, name, 1))?;
                let ty = match &a.ty {
                    Ty::Int(t) => Ty::Int(t.promoted()),
                    t => t.clone(),
                };
                let a = self.convert(a, &ty, m, pos)?;
                let lanes = Lanes::map(width, m, a.lanes.is_same(), |t| match a.lanes.at(t) {
                    S::I(x) => S::I(x.abs()),
                    S::F(x) => S::F(x.abs()),
                    s => s,
                });
                Ok(Some(Value::new(ty, lanes)))
            }
            _ if INT_OPS.contains(&name) => {
                let ints: Vec<Lanes> = values.iter().map(|v| v.lanes.clone()).collect();
                let same = ints.iter().all(Lanes::is_same);
                let ty = if matches!(name, "__brev" | "__umulhi" | "__umul24") {
                    Ty::Int(UINT)
                } else if name == "__brevll" {
                    Ty::Int(super::super::ty::SIZE_T)
                } else {
                    Ty::Int(INT)
                };
                let lanes = Lanes::map(width, m, same, |t| {
                    let xs: Vec<S> = ints.iter().map(|l| l.at(t)).collect();
                    if let Some(u) = xs.iter().find(|s| matches!(s, S::U(_))) {
                        return *u;
                    }
                    let x = |k: usize| match xs.get(k) {
                        Some(S::I(v)) => *v,
                        _ => 0,
                    };
                    S::I(match name {
                        "__popc" => i128::from((x(0) as u32).count_ones()),
                        "__popcll" => i128::from((x(0) as u64).count_ones()),
                        "__clz" => i128::from((x(0) as u32).leading_zeros()),
                        "__clzll" => i128::from((x(0) as u64).leading_zeros()),
                        "__ffs" => {
                            let v = x(0) as u32;
                            if v == 0 {
                                0
                            } else {
                                i128::from(v.trailing_zeros() + 1)
                            }
                        }
                        "__ffsll" => {
                            let v = x(0) as u64;
                            if v == 0 {
                                0
                            } else {
                                i128::from(v.trailing_zeros() + 1)
                            }
                        }
                        "__brev" => i128::from((x(0) as u32).reverse_bits()),
                        "__brevll" => i128::from((x(0) as u64).reverse_bits()),
                        "__mul24" => {
                            let s = |v: i128| ((v as i32) << 8 >> 8) as i128;
                            INT.wrap(s(x(0)) * s(x(1)))
                        }
                        "__umul24" => {
                            (((x(0) as u32 & 0xff_ffff) as i128)
                                * ((x(1) as u32 & 0xff_ffff) as i128))
                                & 0xffff_ffff
                        }
                        "__mulhi" => {
                            ((i128::from(x(0) as i32) * i128::from(x(1) as i32)) >> 32) as i32
                                as i128
                        }
                        _ => {
                            ((i128::from(x(0) as u32) * i128::from(x(1) as u32)) >> 32)
                                & 0xffff_ffff
                        }
                    })
                });
                Ok(Some(Value::new(ty, lanes)))
            }
            _ => {
                // Floating functions: single for the `f` forms and intrinsics, double otherwise.
                let single = name.ends_with('f') || name.starts_with("__");
                let ty = if single { Ty::Float } else { Ty::Double };
                let mut fs = Vec::new();
                for v in values {
                    fs.push(self.convert(v, &ty, m, pos)?.lanes);
                }
                let expected = if MATH2.contains(&name) {
                    2
                } else if name.contains("fma") {
                    3
                } else {
                    1
                };
                if fs.len() != expected {
                    return Err(arity(pos, name, expected));
                }
                let same = fs.iter().all(Lanes::is_same);
                let lanes = Lanes::map(width, m, same, |t| {
                    let xs: Vec<S> = fs.iter().map(|l| l.at(t)).collect();
                    if let Some(u) = xs.iter().find(|s| matches!(s, S::U(_))) {
                        return *u;
                    }
                    let x = |k: usize| match xs.get(k) {
                        Some(S::F(v)) => *v,
                        _ => 0.0,
                    };
                    let r = float_fn(name, x(0), x(1), x(2));
                    S::F(if single { f64::from(r as f32) } else { r })
                });
                Ok(Some(Value::new(ty, lanes)))
            }
        }
    }

    /// `block.sync()`, `block.thread_rank()`, ….
    pub(super) fn group_method(
        &mut self,
        field: &str,
        args: &[Expr],
        m: u64,
        pos: Pos,
    ) -> R<Value> {
        for a in args {
            self.eval(a, m)?;
        }
        let [bx, by, bz] = self.p.launch.block;
        let vec3 = |v: [Lanes; 3]| {
            Value::new(
                Ty::Vector(Rc::new(Ty::Int(UINT)), 3),
                Lanes::Agg(v.to_vec()),
            )
        };
        let same = |v: u64| Lanes::Same(S::I(i128::from(v)));
        match field {
            "sync" => {
                self.barrier(m, pos)?;
                Ok(Value::new(Ty::Void, Lanes::Same(S::I(0))))
            }
            "thread_rank" => {
                let (x, y, z) = (&self.tid[0], &self.tid[1], &self.tid[2]);
                let s = x.is_same() && y.is_same() && z.is_same();
                let lanes = Lanes::map(self.width, m, s, |t| match (x.at(t), y.at(t), z.at(t)) {
                    (S::I(x), S::I(y), S::I(z)) => {
                        S::I(x + y * i128::from(bx) + z * i128::from(bx * by))
                    }
                    _ => S::I(0),
                });
                Ok(Value::new(Ty::Int(UINT), lanes))
            }
            "size" | "num_threads" => Ok(Value::int(UINT, i128::from(bx * by * bz))),
            "thread_index" => Ok(vec3(self.tid.clone())),
            "group_index" => Ok(vec3(self.block.map(same))),
            "group_dim" | "dim_threads" => Ok(vec3([same(bx), same(by), same(bz)])),
            _ => Err(RunError::at(
                pos,
                RunErrorKind::Unsupported(format!("the cooperative-groups member {field}")),
            )),
        }
    }
}

pub(super) fn arity(pos: Pos, name: &str, n: usize) -> RunError {
    RunError::at(
        pos,
        RunErrorKind::Type(format!(
            "{name} takes {n} argument{}",
            if n == 1 { "" } else { "s" }
        )),
    )
}

const MATH1: [&str; 52] = [
    "sqrtf",
    "sqrt",
    "rsqrtf",
    "rsqrt",
    "expf",
    "exp",
    "__expf",
    "exp2f",
    "exp2",
    "logf",
    "log",
    "__logf",
    "log2f",
    "log2",
    "log10f",
    "log10",
    "sinf",
    "sin",
    "__sinf",
    "cosf",
    "cos",
    "__cosf",
    "tanf",
    "tan",
    "tanhf",
    "tanh",
    "fabsf",
    "fabs",
    "floorf",
    "floor",
    "ceilf",
    "ceil",
    "roundf",
    "round",
    "truncf",
    "trunc",
    "rintf",
    "rint",
    "__frcp_rn",
    "erff",
    "erf",
    "cbrtf",
    "cbrt",
    "__saturatef",
    "atanf",
    "atan",
    "asinf",
    "asin",
    "acosf",
    "acos",
    "sinhf",
    "coshf",
];
const MATH2: [&str; 14] = [
    "powf",
    "pow",
    "__powf",
    "fminf",
    "fmin",
    "fmaxf",
    "fmax",
    "__fdividef",
    "fdividef",
    "atan2f",
    "atan2",
    "fmodf",
    "fmod",
    "hypotf",
];
const INT_OPS: [&str; 12] = [
    "__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev", "__brevll", "__mul24",
    "__umul24", "__mulhi", "__umulhi",
];

fn float_fn(name: &str, x: f64, y: f64, z: f64) -> f64 {
    let base = name.trim_start_matches("__").trim_end_matches('f');
    match base {
        "sqrt" => x.sqrt(),
        "rsqrt" => 1.0 / x.sqrt(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "tanh" => x.tanh(),
        "fabs" => x.abs(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "trunc" => x.trunc(),
        "rint" => x.round_ties_even(),
        "frcp_rn" => 1.0 / x,
        "cbrt" => x.cbrt(),
        "saturate" => x.clamp(0.0, 1.0),
        "atan" => x.atan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "pow" => x.powf(y),
        "fmin" => x.min(y),
        "fmax" => x.max(y),
        "fdivide" => x / y,
        "atan2" => x.atan2(y),
        "fmod" => x % y,
        "hypot" => x.hypot(y),
        "fma" | "fma_rn" => x.mul_add(y, z),
        // erf and the rest: not computed here; a NaN turns into an error if it ever reaches
        // an address.
        _ => f64::NAN,
    }
}
