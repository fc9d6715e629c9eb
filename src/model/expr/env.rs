//! The names an expression may read and their values: the kernel dialect's name table
//! ([`Var`], CUDA's built-in indices, `i` and `warp`) and the environments the evaluators read
//! them from, one thread's ([`ThreadVars`]) or a whole warp's ([`WarpVars`]). The grammar and
//! the semantics (`parse`, `eval`, `lanes`) see only slots; a dialect is a name table.

use super::super::mul::checked_mul_i64;
use super::LANES;

/// A kernel name other than the lane id, whose value the caller supplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Var {
    Thread(Axis),
    Block(Axis),
    BlockDim(Axis),
    GridDim(Axis),
    /// The loop variable `i`.
    I,
    /// The warp within its block.
    Warp,
}

/// One of CUDA's three launch axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Axis {
    X,
    Y,
    Z,
}

/// Number of slots a scalar environment has: one per [`Var`].
pub(crate) const VARS: usize = 14;

/// The three axes, in slot order.
pub(super) const AXES: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

impl Var {
    /// The variable spelled `name`, if it is one of the kernel's (the lane id aside).
    pub(crate) fn by_name(name: &str) -> Option<Var> {
        let (family, axis) = match name.split_once('.') {
            Some((family, axis)) => (family, Some(axis)),
            None => (name, None),
        };
        let axis = match axis {
            None => None,
            Some("x") => Some(Axis::X),
            Some("y") => Some(Axis::Y),
            Some("z") => Some(Axis::Z),
            Some(_) => return None,
        };
        match (family, axis) {
            ("i", None) => Some(Var::I),
            ("warp", None) => Some(Var::Warp),
            ("threadIdx", Some(a)) => Some(Var::Thread(a)),
            ("blockIdx", Some(a)) => Some(Var::Block(a)),
            ("blockDim", Some(a)) => Some(Var::BlockDim(a)),
            ("gridDim", Some(a)) => Some(Var::GridDim(a)),
            _ => None,
        }
    }

    /// The name as written.
    pub(crate) fn name(self) -> String {
        let dotted = |family: &str, axis: Axis| {
            let axis = match axis {
                Axis::X => "x",
                Axis::Y => "y",
                Axis::Z => "z",
            };
            format!("{family}.{axis}")
        };
        match self {
            Var::Thread(a) => dotted("threadIdx", a),
            Var::Block(a) => dotted("blockIdx", a),
            Var::BlockDim(a) => dotted("blockDim", a),
            Var::GridDim(a) => dotted("gridDim", a),
            Var::I => "i".to_string(),
            Var::Warp => "warp".to_string(),
        }
    }

    /// Whether the name's value differs between the lanes of one warp.
    pub(crate) fn varies(self) -> bool {
        matches!(self, Var::Thread(_))
    }

    /// Its index in a scalar environment.
    pub(crate) fn slot(self) -> usize {
        let axis = |a: Axis| a as usize;
        match self {
            Var::Thread(a) => axis(a),
            Var::Block(a) => 3 + axis(a),
            Var::BlockDim(a) => 6 + axis(a),
            Var::GridDim(a) => 9 + axis(a),
            Var::I => 12,
            Var::Warp => 13,
        }
    }
}

/// The values one thread sees, for [`KernelExpr::eval`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadVars {
    /// `threadIdx.x/.y/.z`.
    pub thread_idx: [i64; 3],
    /// `blockIdx.x/.y/.z`.
    pub block_idx: [i64; 3],
    /// `blockDim.x/.y/.z`.
    pub block_dim: [i64; 3],
    /// `gridDim.x/.y/.z`.
    pub grid_dim: [i64; 3],
    /// The loop variable `i`.
    pub i: i64,
    /// `lane` (or `t`): the lane within its warp.
    pub lane: i64,
    /// `warp`: the warp within its block.
    pub warp: i64,
}

impl ThreadVars {
    pub(super) fn slots(&self) -> [i64; VARS] {
        let mut slots = [0; VARS];
        for (k, axis) in AXES.into_iter().enumerate() {
            slots[Var::Thread(axis).slot()] = self.thread_idx[k];
            slots[Var::Block(axis).slot()] = self.block_idx[k];
            slots[Var::BlockDim(axis).slot()] = self.block_dim[k];
            slots[Var::GridDim(axis).slot()] = self.grid_dim[k];
        }
        slots[Var::I.slot()] = self.i;
        slots[Var::Warp.slot()] = self.warp;
        slots
    }
}

/// The values a whole warp sees, for [`KernelExpr::eval_lanes`]: `threadIdx` varies by
/// lane, everything else is the same for every lane of the warp. The lane id is the lane's
/// position, so it is not stored.
#[derive(Clone, Copy, Debug)]
pub struct WarpVars<'a> {
    /// `threadIdx.x`, `.y` and `.z`, one entry per lane (entries past the warp are ignored).
    pub thread_idx: &'a [[i64; LANES]; 3],
    /// `blockIdx.x/.y/.z`.
    pub block_idx: [i64; 3],
    /// `blockDim.x/.y/.z`.
    pub block_dim: [i64; 3],
    /// `gridDim.x/.y/.z`.
    pub grid_dim: [i64; 3],
    /// The loop variable `i`.
    pub i: i64,
    /// `warp`: the warp within its block.
    pub warp: i64,
}

/// What the parent's lane-parallel evaluator reads a [`Var`] from.
pub(crate) enum LaneVars<'a> {
    /// The calculator's expressions have no kernel names.
    None,
    /// A warp's names, with its warp-uniform ones already laid out as a scalar environment
    /// for the subtrees computed once per warp, and, when the caller knows them,
    /// `threadIdx`'s axes as lines over the warp's lanes ([`thread_lines`]).
    Warp(&'a WarpVars<'a>, [i64; VARS], Option<&'a ThreadLines>),
}

/// Each `threadIdx` axis over a warp's lanes as `base + step × lane`, where it is one.
pub(crate) type ThreadLines = [Option<(i64, i64)>; 3];

/// [`ThreadLines`] of `thread_idx` over the lanes of `mask`. A line over a warp's lanes is
/// one over any of them, so the kernel engine works it out once per warp of a block, not
/// once per warp instruction.
pub(crate) fn thread_lines(thread_idx: &[[i64; LANES]; 3], mask: u64) -> ThreadLines {
    thread_idx.each_ref().map(|axis| thread_line(axis, mask))
}

/// `from`'s values on the lanes of `mask` as `base + step × t`, when they are.
fn thread_line(from: &[i64; LANES], mask: u64) -> Option<(i64, i64)> {
    if mask == 0 {
        return Some((0, 0));
    }
    let first = mask.trailing_zeros() as usize;
    let rest = mask & (mask - 1);
    if rest == 0 {
        return Some((*from.get(first)?, 0));
    }
    let second = rest.trailing_zeros() as usize;
    let rise = from.get(second)?.checked_sub(*from.get(first)?)?;
    let lanes = (second - first) as i64;
    if rise % lanes != 0 {
        return None;
    }
    let step = rise / lanes;
    let base = from
        .get(first)?
        .checked_sub(checked_mul_i64(step, first as i64)?)?;
    let mut m = rest;
    while m != 0 {
        let t = m.trailing_zeros() as usize;
        m &= m - 1;
        if from.get(t)?.checked_sub(base)? != checked_mul_i64(step, t as i64)? {
            return None;
        }
    }
    Some((base, step))
}

impl LaneVars<'_> {
    pub(crate) const NONE: LaneVars<'static> = LaneVars::None;

    /// A scalar environment with every warp-uniform name's value (`threadIdx` left at 0),
    /// for subtrees that read no lane-varying name.
    pub(crate) fn uniform_slots(&self) -> [i64; VARS] {
        match self {
            LaneVars::None => [0; VARS],
            LaneVars::Warp(_, slots, _) => *slots,
        }
    }

    pub(super) fn of_warp<'a>(w: &'a WarpVars<'a>, lines: Option<&'a ThreadLines>) -> LaneVars<'a> {
        let slots = ThreadVars {
            thread_idx: [0; 3],
            block_idx: w.block_idx,
            block_dim: w.block_dim,
            grid_dim: w.grid_dim,
            i: w.i,
            lane: 0,
            warp: w.warp,
        }
        .slots();
        LaneVars::Warp(w, slots, lines)
    }

    /// `var`'s value on the lanes of `mask` as `base + step × t`, when it is one: every
    /// warp-uniform name is (step 0), and `threadIdx.x` is in a block at least a warp wide.
    pub(crate) fn line(&self, var: Var, mask: u64) -> Option<(i64, i64)> {
        let LaneVars::Warp(w, _, lines) = self else {
            return Some((0, 0));
        };
        let uniform = match var {
            Var::Thread(a) => {
                // Known for the warp's lanes, so for these (a part of them).
                if let Some(line) = lines.and_then(|l| l[a as usize]) {
                    return Some(line);
                }
                return thread_line(w.thread_idx.get(a as usize)?, mask);
            }
            Var::Block(a) => w.block_idx[a as usize],
            Var::BlockDim(a) => w.block_dim[a as usize],
            Var::GridDim(a) => w.grid_dim[a as usize],
            Var::I => w.i,
            Var::Warp => w.warp,
        };
        Some((uniform, 0))
    }

    /// Writes `var`'s value for every lane into `out`.
    #[inline]
    pub(crate) fn fill(&self, var: Var, mask: u64, out: &mut [i64; LANES]) {
        let LaneVars::Warp(w, _, _) = self else {
            *out = [0; LANES];
            return;
        };
        let uniform = match var {
            Var::Thread(a) => {
                let from = &w.thread_idx[a as usize];
                let mut m = mask;
                while m != 0 {
                    let t = m.trailing_zeros() as usize;
                    m &= m - 1;
                    out[t] = from[t];
                }
                return;
            }
            Var::Block(a) => w.block_idx[a as usize],
            Var::BlockDim(a) => w.block_dim[a as usize],
            Var::GridDim(a) => w.grid_dim[a as usize],
            Var::I => w.i,
            Var::Warp => w.warp,
        };
        *out = [uniform; LANES];
    }
}
