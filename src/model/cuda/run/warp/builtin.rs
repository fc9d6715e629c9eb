//! The built-ins a kernel calls without declaring them: barriers, atomics, `__ldg` and the
//! cache-hinted loads and stores, shuffles and votes, cooperative groups (blocks and tiles,
//! `cg::reduce`) and vector makers; the math library and integer intrinsics are in `math`.

use super::super::super::ast::{Base, Expr, ExprKind};
use super::super::super::cint::INT;
use super::super::super::error::Pos;
use super::super::error::{RunError, RunErrorKind};
use super::super::ty::{Ty, UINT};
use super::super::value::{each_lane, Lanes, S};
use super::super::Event;
use super::super::SiteKind;
use super::{Value, Warp, R};
use crate::model::clib::printf::{sprintf, Arg};
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
            "printf" => {
                let format = match args.first().map(|a| &a.kind) {
                    Some(ExprKind::Str(f)) => Some(f.as_bytes()),
                    _ => None,
                };
                let mut values = Vec::new();
                for a in args.iter().skip(usize::from(format.is_some())) {
                    values.push(match &a.kind {
                        ExprKind::Str(text) => Printed::Str(text.as_bytes()),
                        _ => Printed::Value(self.eval(a, m)?),
                    });
                }
                if self.constant {
                    return Err(RunError::at(
                        pos,
                        RunErrorKind::Type("printf is not a constant".into()),
                    ));
                }
                match format {
                    Some(format) => self.device_printf(format, &values, m, pos)?,
                    None => {
                        self.sh.output.unread.get_or_insert(pos.line);
                    }
                }
                return Ok(Some(Value::int(INT, 0)));
            }
            "assert" => {
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
            let mut operands = Vec::new();
            for a in rest {
                operands.push(self.eval(a, m)?);
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
            let mut values = Vec::new();
            for v in operands {
                values.push(if ty.is_scalar() {
                    self.convert(v, &ty, m, pos)?.lanes
                } else {
                    Lanes::unknown(1, pos.line)
                });
            }
            let base = ATOMICS
                .iter()
                .filter(|a| name.starts_with(**a))
                .max_by_key(|a| a.len())
                .copied()
                .unwrap_or("atomicAdd");
            let lanes = self.atomic(base, &ptr.lanes, &ty, *space, &values, m, pos.line);
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

    /// An atomic `op` (`atomicAdd`, …) of a `ty` at `addr` with `operands` by the lanes of
    /// `m`, one lane after another in lane order, as the hardware serialises them: each reads
    /// the old value and writes the new one. Returns each lane's old value; where an old value
    /// or an operand is unknown, the old value and what is written are unknown.
    #[allow(clippy::too_many_arguments, reason = "one atomic's parts")]
    fn atomic(
        &mut self,
        op: &str,
        addr: &Lanes,
        ty: &Ty,
        space: Space,
        operands: &[Lanes],
        m: u64,
        line: u32,
    ) -> Lanes {
        if !ty.is_scalar() {
            self.atomic_touched(addr, ty, space, m);
            return Lanes::unknown(ty.parts(), line);
        }
        let width = self.width;
        let mem = self.memory_mut(space);
        let mut olds = vec![S::U(line); width];
        each_lane(m, |t| {
            let a = super::address(addr.at(t));
            let old = mem.load(a, ty).unwrap_or(S::U(line));
            let x = operands.first().map_or(S::U(line), |v| v.at(t));
            let y = operands.get(1).map_or(S::U(line), |v| v.at(t));
            let new = atomic_value(op, ty, old, x, y).unwrap_or(S::U(line));
            mem.store(a, ty, new);
            olds[t] = old;
        });
        if let Some(t) = (0..width).find(|t| m >> t & 1 == 1) {
            let first = olds[t];
            for (k, v) in olds.iter_mut().enumerate() {
                if m >> k & 1 == 0 {
                    *v = first;
                }
            }
        }
        Lanes::from_values(olds, !self.sh.general_only)
    }

    /// A device `printf` of `format` with `values` by the lanes of `m`: each lane's line in
    /// lane order, formatted as glibc formats it on the host, a value the model does not know
    /// printed as `?`.
    fn device_printf(&mut self, format: &[u8], values: &[Printed<'_>], m: u64, pos: Pos) -> R<()> {
        let (mut failed, mut unknown) = (None, false);
        each_lane(m, |t| {
            if failed.is_some() {
                return;
            }
            let args: Vec<Arg> = values
                .iter()
                .map(|v| match v {
                    Printed::Str(text) => Arg::Str(Some(text.to_vec())),
                    Printed::Value(v) if !v.ty.is_scalar() => {
                        unknown = true;
                        Arg::Unknown
                    }
                    Printed::Value(v) => match v.lanes.at(t) {
                        S::U(_) => {
                            unknown = true;
                            Arg::Unknown
                        }
                        S::F(x) => Arg::Double(x),
                        S::P(a) => Arg::Ptr(a),
                        S::I(i) => Arg::Int(i as u64),
                    },
                })
                .collect();
            match sprintf(format, &args) {
                Ok(text) => self.sh.output.push(text),
                Err(e) => failed = Some(e),
            }
        });
        self.sh.output_unknown |= unknown;
        match failed {
            Some(e) => Err(self.fail(pos, m, RunErrorKind::Printf(e))),
            None => Ok(()),
        }
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
        self.out
            .list
            .push(Event::Barrier { site, mask: m, pos, branch });
        if self.may_park() {
            self.at_barrier = true;
        }
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

/// An argument of a device `printf`: a string literal, or a value.
enum Printed<'a> {
    Str(&'a [u8]),
    Value(Value),
}

/// What atomic `op` writes over `old` with operands `x` (and `y`, `atomicCAS`'s value), as
/// the CUDA C++ Programming Guide's "Atomic Functions" define each; `None` when a value it
/// needs is unknown or the operation does not apply to the type.
fn atomic_value(op: &str, ty: &Ty, old: S, x: S, y: S) -> Option<S> {
    match (ty, old, x) {
        (Ty::Int(it), S::I(o), S::I(v)) => {
            let unsigned = |n: i128| n & ((1i128 << (it.bytes * 8)) - 1);
            Some(S::I(match op {
                "atomicAdd" => it.wrap(o + v),
                "atomicSub" => it.wrap(o - v),
                "atomicExch" => v,
                "atomicMin" => o.min(v),
                "atomicMax" => o.max(v),
                "atomicAnd" => it.wrap(o & v),
                "atomicOr" => it.wrap(o | v),
                "atomicXor" => it.wrap(o ^ v),
                // `((old >= val) ? 0 : (old + 1))`, unsigned.
                "atomicInc" => {
                    if unsigned(o) >= unsigned(v) {
                        0
                    } else {
                        it.wrap(o + 1)
                    }
                }
                // `(((old == 0) || (old > val)) ? val : (old - 1))`, unsigned.
                "atomicDec" => {
                    if o == 0 || unsigned(o) > unsigned(v) {
                        v
                    } else {
                        it.wrap(o - 1)
                    }
                }
                "atomicCAS" => match y {
                    S::I(val) => {
                        if o == v {
                            val
                        } else {
                            o
                        }
                    }
                    _ => return None,
                },
                _ => return None,
            }))
        }
        (Ty::Float | Ty::Double, S::F(o), S::F(v)) => {
            let single = *ty == Ty::Float;
            let round = |r: f64| if single { f64::from(r as f32) } else { r };
            Some(S::F(match op {
                "atomicAdd" => round(o + v),
                "atomicExch" => v,
                _ => return None,
            }))
        }
        (Ty::Ptr(..), S::P(o), S::P(v)) if op == "atomicExch" => {
            let _ = o;
            Some(S::P(v))
        }
        _ => None,
    }
}
