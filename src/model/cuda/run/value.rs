//! One value per lane of a warp. Most values are the same in every lane (constants,
//! `blockIdx`, a loop counter), so they are held once; the rest hold one entry per lane. An
//! entry of a lane outside the active mask means nothing.

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

impl S {
    /// The line of the load an unknown value comes from.
    pub fn unknown(self) -> Option<u32> {
        match self {
            S::U(line) => Some(line),
            _ => None,
        }
    }
}

/// A value of a warp: the same in every lane, one per lane, or the parts of an aggregate.
#[derive(Clone, Debug, PartialEq)]
pub enum Lanes {
    /// Every lane holds this.
    Same(S),
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
        fn slice(l: &Lanes) -> Option<&[S]> {
            match l {
                Lanes::Each(v) => Some(v),
                _ => None,
            }
        }
        match (a, b) {
            (Lanes::Same(x), Lanes::Same(y)) => Lanes::Same(f(*x, *y)),
            _ => {
                let (sa, sb) = (slice(a), slice(b));
                let (xa, xb) = (a.at(0), b.at(0));
                let mut out = vec![S::I(0); width].into_boxed_slice();
                let full = width >= 64 || mask == (1u64 << width) - 1;
                let mut one = |t: usize| {
                    let x = sa.and_then(|v| v.get(t).copied()).unwrap_or(xa);
                    let y = sb.and_then(|v| v.get(t).copied()).unwrap_or(xb);
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
            Lanes::Each(_) => false,
            Lanes::Agg(parts) => parts.iter().all(Lanes::is_same),
        }
    }

    /// Part `k` of an aggregate (the value itself for a scalar and `k` 0).
    pub fn part(&self, k: usize) -> Option<&Lanes> {
        match self {
            Lanes::Agg(parts) => parts.get(k),
            _ if k == 0 => Some(self),
            _ => None,
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
            Lanes::Same(_) => None,
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
