//! One value per lane of a warp. Most values are the same in every lane (constants,
//! `blockIdx`, a loop counter), so they are held once. Many of the rest are affine in the
//! lane (`threadIdx.x`, and the indices and addresses built from it), so they are held as a
//! base and a step. The rest hold one entry per lane. An entry of a lane outside the active
//! mask means nothing.

use crate::model::mul::{mul_i128, wrapping_mul_i128};

/// What one lane holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum S {
    /// An integer (or `bool`), exact, within its type's range.
    I(i128),
    /// A floating value, known because it was computed from known values.
    F(f64),
    /// A pointer's byte address.
    P(u64),
    /// Unknown: computed from a value read from memory at this line.
    U(u32),
}

/// A value of a warp: the same in every lane, one per lane, or the parts of an aggregate.
#[derive(Clone, Debug, PartialEq)]
pub enum Lanes {
    /// Every lane holds this.
    Same(S),
    /// Lane `t` holds `base + step × t`: an integer, or a pointer's address when `ptr` holds.
    /// Every active lane's value is exact and within its type's range; `step` is never 0.
    /// The arithmetic that keeps a value affine is checked at the lowest and highest active
    /// lane, which bound every lane between them (see [`Lanes::line`]).
    Line {
        /// Lane 0's value.
        base: i128,
        /// What each next lane adds.
        step: i128,
        /// Whether the values are addresses ([`S::P`]) rather than integers ([`S::I`]).
        ptr: bool,
    },
    /// Lane `t` holds entry `t` (as many entries as the warp has lanes).
    Each(Box<[S]>),
    /// A vector's, struct's or array's parts, in order.
    Agg(Vec<Lanes>),
}

/// Calls `f` with each lane of `mask`, lowest first.
#[inline]
pub fn each_lane(mut mask: u64, mut f: impl FnMut(usize)) {
    while mask != 0 {
        let t = mask.trailing_zeros() as usize;
        f(t);
        mask &= mask - 1;
    }
}

impl Lanes {
    /// Lane `t`'s scalar (the first part's, for an aggregate).
    #[inline]
    pub fn at(&self, t: usize) -> S {
        match self {
            Lanes::Same(s) => *s,
            Lanes::Line { base, step, ptr } => {
                let v = base.wrapping_add(wrapping_mul_i128(*step, t as i128));
                if *ptr {
                    S::P(v as u64)
                } else {
                    S::I(v)
                }
            }
            Lanes::Each(v) => v.get(t).copied().unwrap_or(S::I(0)),
            Lanes::Agg(parts) => parts.first().map_or(S::I(0), |p| p.at(t)),
        }
    }

    /// A scalar value computed lane by lane for the lanes of `mask`; the same in every lane
    /// when `same` holds (its inputs were), computed once with the lowest lane.
    #[inline]
    pub fn map(width: usize, mask: u64, same: bool, mut f: impl FnMut(usize) -> S) -> Lanes {
        if same {
            let t = if mask == 0 {
                0
            } else {
                mask.trailing_zeros() as usize
            };
            return Lanes::Same(f(t));
        }
        let mut out = vec![S::I(0); width].into_boxed_slice();
        each_lane(mask, |t| {
            if let Some(slot) = out.get_mut(t) {
                *slot = f(t);
            }
        });
        Lanes::Each(out)
    }

    /// `f(a, b)` lane by lane for the lanes of `mask` (once when both are the same in every
    /// lane); `f` sees each lane's scalars, not the lane number.
    #[inline]
    pub fn zip_map(
        a: &Lanes,
        b: &Lanes,
        width: usize,
        mask: u64,
        mut f: impl FnMut(S, S) -> S,
    ) -> Lanes {
        match (a, b) {
            (Lanes::Same(x), Lanes::Same(y)) => Lanes::Same(f(*x, *y)),
            _ => {
                let mut out = vec![S::I(0); width].into_boxed_slice();
                let full = width >= 64 || mask == (1u64 << width) - 1;
                let mut one = |t: usize| {
                    let x = a.at(t);
                    let y = b.at(t);
                    if let Some(slot) = out.get_mut(t) {
                        *slot = f(x, y);
                    }
                };
                if full {
                    for t in 0..width {
                        one(t);
                    }
                } else {
                    each_lane(mask, one);
                }
                Lanes::Each(out)
            }
        }
    }

    /// Whether this is held once for every lane.
    #[inline]
    pub fn is_same(&self) -> bool {
        match self {
            Lanes::Same(_) => true,
            Lanes::Line { .. } | Lanes::Each(_) => false,
            Lanes::Agg(parts) => parts.iter().all(Lanes::is_same),
        }
    }

    /// Writes `new` into the lanes of `mask`; `full` is every lane the warp has, for which a
    /// whole replacement is enough.
    pub fn merge(&mut self, new: Lanes, mask: u64, full: u64, width: usize) {
        if mask & full == full {
            *self = new;
            return;
        }
        if mask == 0 {
            return;
        }
        match (&mut *self, new) {
            (Lanes::Agg(old), Lanes::Agg(new)) => {
                for (o, n) in old.iter_mut().zip(new) {
                    o.merge(n, mask, full, width);
                }
            }
            (old, new) => {
                let mut out: Box<[S]> = (0..width).map(|t| old.at(t)).collect();
                each_lane(mask, |t| {
                    if let Some(slot) = out.get_mut(t) {
                        *slot = new.at(t);
                    }
                });
                *old = Lanes::Each(out);
            }
        }
    }

    /// The first lane of `mask` whose scalar is unknown, with the line it comes from.
    pub fn first_unknown(&self, mask: u64) -> Option<(usize, u32)> {
        match self {
            Lanes::Same(S::U(line)) if mask != 0 => Some((mask.trailing_zeros() as usize, *line)),
            Lanes::Same(_) | Lanes::Line { .. } => None,
            Lanes::Each(v) => {
                let mut found = None;
                each_lane(mask, |t| {
                    if found.is_none() {
                        if let Some(S::U(line)) = v.get(t) {
                            found = Some((t, *line));
                        }
                    }
                });
                found
            }
            Lanes::Agg(parts) => parts.iter().find_map(|p| p.first_unknown(mask)),
        }
    }

    /// Lanes `0..values.len()` holding `values`: held once when they are all the same, as a
    /// line when they are integers a constant step apart (and `lines` allows it), and one by
    /// one otherwise.
    pub fn from_values(values: Vec<S>, lines: bool) -> Lanes {
        let Some(&first) = values.first() else {
            return Lanes::Same(S::I(0));
        };
        if values.iter().all(|s| *s == first) {
            return Lanes::Same(first);
        }
        if let (true, S::I(a), Some(S::I(b))) = (lines, first, values.get(1).copied()) {
            let step = b - a;
            let on_line = values
                .iter()
                .enumerate()
                .all(|(t, s)| *s == S::I(a + mul_i128(step, t as i128)));
            if on_line {
                return Lanes::Line { base: a, step, ptr: false };
            }
        }
        Lanes::Each(values.into_boxed_slice())
    }

    /// `(base, step)` when every lane holds `base + step × t`, an integer (`ptr` false) or an
    /// address (`ptr` true): a [`Lanes::Line`], or a value held once (step 0).
    #[inline]
    pub fn line(&self, ptr: bool) -> Option<(i128, i128)> {
        match *self {
            Lanes::Same(S::I(v)) if !ptr => Some((v, 0)),
            Lanes::Same(S::P(a)) if ptr => Some((i128::from(a), 0)),
            Lanes::Line { base, step, ptr: p } if p == ptr => Some((base, step)),
            _ => None,
        }
    }

    /// The lanes holding `base + step × t`: held once when `step` is 0.
    #[inline]
    pub fn on_line(base: i128, step: i128, ptr: bool) -> Lanes {
        match (step, ptr) {
            (0, false) => Lanes::Same(S::I(base)),
            (0, true) => Lanes::Same(S::P(base as u64)),
            _ => Lanes::Line { base, step, ptr },
        }
    }

    /// Every part unknown, from a load at `line`, shaped as `parts` scalars (an aggregate when
    /// more than one).
    pub fn unknown(parts: usize, line: u32) -> Lanes {
        if parts == 1 {
            Lanes::Same(S::U(line))
        } else {
            Lanes::Agg(vec![Lanes::Same(S::U(line)); parts])
        }
    }
}
