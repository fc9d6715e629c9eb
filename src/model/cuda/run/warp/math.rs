//! The math library (`sqrtf`, `fmaf`, `__expf`, …) and the integer intrinsics (`__popc`,
//! `__clz`, `__mul24`, …): exact on known values, as `float` or `double` as CUDA computes
//! them, and unknown when an argument is.

use super::super::super::ast::Expr;
use super::super::super::cint::INT;
use super::super::super::error::Pos;
use super::super::ty::{Ty, UINT};
use super::super::value::{Lanes, S};
use super::builtin::arity;
use super::{Value, Warp, R};

impl Warp<'_> {
    /// The math library and integer intrinsics: exact on known values, unknown otherwise.
    pub(super) fn math(&mut self, name: &str, args: &[Expr], m: u64, pos: Pos) -> R<Option<Value>> {
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
