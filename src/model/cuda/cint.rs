//! C++'s integers as nvcc computes them on a 64-bit host (C++17, the default dialect): the
//! integer promotions, the usual arithmetic conversions, unsigned arithmetic modulo 2^N, and
//! every case the standard leaves undefined (signed overflow, division by zero, shifts out of
//! range, a negative value shifted left) as an error that names the values. Right shifts of
//! negative values are arithmetic, as every GPU compiler makes them.

use super::ast::BinaryOp;
use crate::model::mul::{checked_mul_i128, wrapping_mul_i128};
use std::fmt;

/// An integer type: its width and signedness (`char` is signed, as on x86-64 and in nvcc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntType {
    /// 1, 2, 4 or 8 bytes.
    pub bytes: u8,
    /// Whether negative values exist.
    pub signed: bool,
}

/// `int`.
pub const INT: IntType = IntType { bytes: 4, signed: true };

impl IntType {
    /// Bits in the type.
    pub fn bits(self) -> u32 {
        u32::from(self.bytes) * 8
    }

    /// The smallest value.
    #[inline]
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    /// The largest value.
    #[inline]
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    /// The type's C++ name on a 64-bit host.
    pub fn name(self) -> &'static str {
        match (self.bytes, self.signed) {
            (1, true) => "char",
            (1, false) => "unsigned char",
            (2, true) => "short",
            (2, false) => "unsigned short",
            (4, true) => "int",
            (4, false) => "unsigned int",
            (8, true) => "long",
            _ => "unsigned long",
        }
    }

    /// The integer promotion: types narrower than `int` become `int`, which holds all their
    /// values.
    pub fn promoted(self) -> IntType {
        if self.bytes < 4 {
            INT
        } else {
            self
        }
    }

    /// The usual arithmetic conversions of two operand types: the type both are converted to.
    ///
    /// ```
    /// use coalescing_lab::model::cuda::cint::{IntType, INT};
    /// let uint = IntType { bytes: 4, signed: false };
    /// let long = IntType { bytes: 8, signed: true };
    /// assert_eq!(INT.common(uint), uint);
    /// assert_eq!(long.common(uint), long);
    /// // Degenerate input: two chars meet as ints.
    /// let c = IntType { bytes: 1, signed: true };
    /// assert_eq!(c.common(c), INT);
    /// ```
    pub fn common(self, other: IntType) -> IntType {
        let (a, b) = (self.promoted(), other.promoted());
        if a == b {
            return a;
        }
        if a.signed == b.signed {
            return if a.bytes >= b.bytes { a } else { b };
        }
        let (signed, unsigned) = if a.signed { (a, b) } else { (b, a) };
        if unsigned.bytes >= signed.bytes {
            unsigned
        } else {
            // The signed type is wider, so it holds every value of the unsigned one.
            signed
        }
    }

    /// `value` converted to this type: modulo 2^N, as C++ converts to an unsigned type (and,
    /// since C++20 and in every compiler before it, to a signed one).
    #[inline]
    pub fn wrap(self, value: i128) -> i128 {
        // The low `bits` bits, sign-extended for a signed type: two's complement modulo 2^N.
        let shift = 128 - self.bits();
        if self.signed {
            (value << shift) >> shift
        } else {
            ((value << shift) as u128 >> shift) as i128
        }
    }
}

/// An integer value with its type; `value` is within the type's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int {
    /// The exact value.
    pub value: i128,
    /// Its type.
    pub ty: IntType,
}

impl Int {
    /// `value` of type `ty`, wrapped into the type's range.
    pub fn new(value: i128, ty: IntType) -> Int {
        Int { value: ty.wrap(value), ty }
    }

    /// The value converted to `ty`.
    pub fn to(self, ty: IntType) -> Int {
        Int::new(self.value, ty)
    }
}

/// What C++ leaves undefined, with the values that met it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undefined {
    /// A signed result outside its type.
    Overflow {
        /// The operator.
        op: BinaryOp,
        /// The left operand, converted.
        lhs: i128,
        /// The right operand, converted.
        rhs: i128,
        /// The type of the operation.
        ty: IntType,
    },
    /// `/` or `%` by zero.
    DivisionByZero {
        /// The operator.
        op: BinaryOp,
        /// The dividend.
        lhs: i128,
    },
    /// A shift by a negative amount, or by the type's width or more.
    ShiftOutOfRange {
        /// The operator.
        op: BinaryOp,
        /// The shift amount.
        amount: i128,
        /// The width of the shifted type.
        bits: u32,
    },
    /// A negative value shifted left (undefined in C++17).
    NegativeShifted {
        /// The shifted value.
        lhs: i128,
    },
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Undefined::Overflow { op, lhs, rhs, ty } => write!(
                f,
                "{lhs} {} {rhs} overflows {} (signed overflow is undefined behaviour)",
                op.symbol(),
                ty.name()
            ),
            Undefined::DivisionByZero { op, lhs } => {
                write!(f, "{lhs} {} 0 divides by zero", op.symbol())
            }
            Undefined::ShiftOutOfRange { op, amount, bits } => write!(
                f,
                "a shift by {amount} is outside 0 to {} for a {bits}-bit value (`{}`)",
                bits - 1,
                op.symbol()
            ),
            Undefined::NegativeShifted { lhs } => write!(
                f,
                "{lhs} << …: a negative value shifted left is undefined behaviour"
            ),
        }
    }
}

impl std::error::Error for Undefined {}

/// `a op b` on integers, for every binary operator but `&&` and `||` (which evaluate their
/// right side only where needed, so the interpreter does them). Comparisons give an `int` 0
/// or 1.
///
/// ```
/// use coalescing_lab::model::cuda::cint::{binary, Int, IntType, INT};
/// use coalescing_lab::model::expr::BinaryOp;
/// let uint = IntType { bytes: 4, signed: false };
/// // -1 < 1u is false: -1 converts to 4294967295.
/// assert_eq!(binary(BinaryOp::Lt, Int::new(-1, INT), Int::new(1, uint)).unwrap().value, 0);
/// // Unsigned arithmetic wraps; signed overflow is refused with its values.
/// assert_eq!(binary(BinaryOp::Sub, Int::new(0, uint), Int::new(1, uint)).unwrap().value, 4294967295);
/// let big = Int::new(i128::from(i32::MAX), INT);
/// assert_eq!(binary(BinaryOp::Add, big, Int::new(1, INT)).unwrap_err().to_string(),
///     "2147483647 + 1 overflows int (signed overflow is undefined behaviour)");
/// ```
pub fn binary(op: BinaryOp, a: Int, b: Int) -> Result<Int, Undefined> {
    let o = Op::new(op, a.ty, b.ty);
    o.apply(a.value, b.value)
        .map(|value| Int { value, ty: o.ty })
}

/// One binary operator on two operand types, prepared once for many lanes: the type both
/// operands meet in and its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    op: BinaryOp,
    /// The type of the result (`int` for a comparison).
    pub ty: IntType,
    /// The type the operands are converted to.
    common: IntType,
    /// The operands' own types (a shift converts each on its own).
    left: IntType,
    right: IntType,
    lo: i128,
    hi: i128,
}

impl Op {
    /// `op` between a `a` and a `b`.
    pub fn new(op: BinaryOp, a: IntType, b: IntType) -> Op {
        use BinaryOp as B;
        let common = if matches!(op, B::Shl | B::Shr) {
            a.promoted()
        } else {
            a.common(b)
        };
        let ty = match op {
            B::Lt | B::Gt | B::Le | B::Ge | B::Eq | B::Ne | B::And | B::Or => INT,
            _ => common,
        };
        Op {
            op,
            ty,
            common,
            left: a,
            right: b,
            lo: common.min(),
            hi: common.max(),
        }
    }

    /// `x op y` for operands affine in a lane number `t` (`x = a.0 + a.1 × t`, `y = b.0 + b.1 ×
    /// t`) over the lanes `first..=last`: the result's `(base, step)` when it is affine too and
    /// equals [`Op::apply`]'s in every lane between. That holds for `+`, `-`, and `×` by a value
    /// the same in every lane, when neither operand nor the result leaves the common type's
    /// range at `first` or at `last`: each is affine in `t`, so no lane between leaves it
    /// either, nothing wraps, and nothing overflows. `None` otherwise: the caller then goes
    /// lane by lane, and meets any wrap or overflow there.
    ///
    /// ```
    /// use coalescing_lab::model::cuda::cint::{Op, INT};
    /// use coalescing_lab::model::expr::BinaryOp;
    /// // (32·bx + t) × 1024 over lanes 0..=31: base 32768·bx, step 1024.
    /// let mul = Op::new(BinaryOp::Mul, INT, INT);
    /// assert_eq!(mul.line((64, 1), (1024, 0), 0, 31), Some((65536, 1024)));
    /// // Two lane-varying factors are not affine; an overflow at the last lane is not either.
    /// assert_eq!(mul.line((0, 1), (0, 1), 0, 31), None);
    /// assert_eq!(mul.line((0, 1 << 26), (64, 0), 0, 31), None);
    /// ```
    pub fn line(
        &self,
        a: (i128, i128),
        b: (i128, i128),
        first: i128,
        last: i128,
    ) -> Option<(i128, i128)> {
        use BinaryOp as B;
        let r = match self.op {
            B::Add => (a.0.checked_add(b.0)?, a.1.checked_add(b.1)?),
            B::Sub => (a.0.checked_sub(b.0)?, a.1.checked_sub(b.1)?),
            B::Mul if b.1 == 0 => (checked_mul_i128(a.0, b.0)?, checked_mul_i128(a.1, b.0)?),
            B::Mul if a.1 == 0 => (checked_mul_i128(b.0, a.0)?, checked_mul_i128(b.1, a.0)?),
            _ => return None,
        };
        let at = |(base, step): (i128, i128), t: i128| base.checked_add(checked_mul_i128(step, t)?);
        let within = |v: Option<i128>| v.is_some_and(|v| v >= self.lo && v <= self.hi);
        [first, last]
            .iter()
            .all(|&t| within(at(a, t)) && within(at(b, t)) && within(at(r, t)))
            .then_some(r)
    }

    /// `x op y`, for `x` of the left type and `y` of the right one.
    #[inline]
    pub fn apply(&self, x: i128, y: i128) -> Result<i128, Undefined> {
        use BinaryOp as B;
        let op = self.op;
        let ty = self.common;
        if matches!(op, B::Shl | B::Shr) {
            let (a, b) = (Int::new(x, self.left), Int::new(y, self.right));
            return shift(op, a, b).map(|i| i.value);
        }
        let fit = |v: i128| {
            if v >= self.lo && v <= self.hi {
                v
            } else {
                ty.wrap(v)
            }
        };
        let (x, y) = (fit(x), fit(y));
        let truth = |t: bool| Ok(i128::from(t));
        let exact = match op {
            B::Add => x + y,
            B::Sub => x - y,
            // Signed 64-bit operands multiply exactly in 128 bits; unsigned ones are taken
            // modulo 2^128, which 2^64 divides.
            B::Mul => wrapping_mul_i128(x, y),
            B::Div | B::Rem if y == 0 => return Err(Undefined::DivisionByZero { op, lhs: x }),
            // i128 `/` and `%` truncate toward zero, as C++ does.
            B::Div => x / y,
            B::Rem => x % y,
            B::BitAnd => x & y,
            B::BitXor => x ^ y,
            B::BitOr => x | y,
            B::Lt => return truth(x < y),
            B::Gt => return truth(x > y),
            B::Le => return truth(x <= y),
            B::Ge => return truth(x >= y),
            B::Eq => return truth(x == y),
            B::Ne => return truth(x != y),
            B::And => return truth(x != 0 && y != 0),
            B::Or => return truth(x != 0 || y != 0),
            B::Shl | B::Shr => 0,
        };
        if exact >= self.lo && exact <= self.hi {
            return Ok(exact);
        }
        if ty.signed {
            return Err(Undefined::Overflow { op, lhs: x, rhs: y, ty });
        }
        Ok(ty.wrap(exact))
    }
}

/// `<<` and `>>`: the result has the promoted left operand's type.
fn shift(op: BinaryOp, a: Int, b: Int) -> Result<Int, Undefined> {
    let ty = a.ty.promoted();
    let x = a.to(ty).value;
    let amount = b.to(b.ty.promoted()).value;
    let bits = ty.bits();
    if amount < 0 || amount >= i128::from(bits) {
        return Err(Undefined::ShiftOutOfRange { op, amount, bits });
    }
    if op == BinaryOp::Shr {
        return Ok(Int::new(x >> amount, ty));
    }
    if x < 0 {
        return Err(Undefined::NegativeShifted { lhs: x });
    }
    let exact = x << amount;
    // C++17: a signed E1 × 2^E2 must fit the corresponding unsigned type.
    let unsigned_max = (1i128 << bits) - 1;
    if ty.signed && exact > unsigned_max {
        return Err(Undefined::Overflow { op, lhs: x, rhs: amount, ty });
    }
    Ok(Int::new(exact, ty))
}
