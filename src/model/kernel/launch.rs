//! The launch's shape and one warp instruction's lanes: which threads form each warp, and the
//! addresses of one warp instruction, as the warp core's access.
//!
//! Warps are formed as CUDA forms them: thread `(x, y, z)` of a block has linear id
//! `tid = x + y·Bx + z·Bx·By`, and warp `w` holds `tid` from `w·W` to `w·W + W − 1`; a partial
//! last warp has inactive lanes. Blocks are numbered `bx + by·Gx + bz·Gx·Gy`. The sectors are
//! the warp core's (`model::warp`), so a launch of one warp tells the calculator's story.
//! Knows nothing of the cache, the order of execution or the totals.

use super::super::address::{lane_address, last_byte};
use super::super::expr::kernel::{thread_lines, Linear, Ranges, ThreadLines, WarpVars};
use super::super::expr::{EvalError, LANES};
use super::super::mul::wide_mul_i64;
use super::super::warp::{Cost, LaneError, WarpAccess};
use super::analysis::WarpRow;
use super::inputs::{Kernel, KernelError, KernelField, Statement, StmtField};

/// The lanes of one warp of a block: their `threadIdx` and which exist.
#[derive(Clone, Debug)]
pub(crate) struct WarpLanes {
    pub(crate) thread_idx: [[i64; LANES]; 3],
    /// Lanes that hold a thread: all but the missing ones of a partial last warp.
    pub(crate) mask: u64,
    /// Each axis of `thread_idx` over those lanes as `base + step × lane`, where it is one
    /// (every axis of a block at least a warp wide): the index expressions' fast path.
    pub(crate) lines: ThreadLines,
}

/// Every warp of a block (they are the same in every block).
pub(crate) fn warps_of_block(kernel: &Kernel) -> Vec<WarpLanes> {
    let [bx, by, _] = kernel.block.map(u64::from);
    let threads = kernel.threads_per_block();
    let width = u64::from(kernel.machine.warp);
    (0..u64::from(kernel.warps_per_block()))
        .map(|w| {
            let mut lanes = WarpLanes {
                thread_idx: [[0; LANES]; 3],
                mask: 0,
                lines: [None; 3],
            };
            for lane in 0..width.min(LANES as u64) {
                let tid = w * width + lane;
                if tid < threads {
                    let l = lane as usize;
                    lanes.thread_idx[0][l] = (tid % bx) as i64;
                    lanes.thread_idx[1][l] = (tid / bx % by) as i64;
                    lanes.thread_idx[2][l] = (tid / (bx * by)) as i64;
                    lanes.mask |= 1 << lane;
                }
            }
            lanes.lines = thread_lines(&lanes.thread_idx, lanes.mask);
            lanes
        })
        .collect()
}

/// Block `linear`'s `(x, y, z)`.
pub(crate) fn block_idx(kernel: &Kernel, linear: u64) -> [u32; 3] {
    let [gx, gy, _] = kernel.grid.map(u64::from);
    [
        (linear % gx) as u32,
        (linear / gx % gy) as u32,
        (linear / (gx * gy)) as u32,
    ]
}

/// Where a warp instruction is: block, iteration, statement and warp.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    pub(crate) block_idx: [u32; 3],
    /// The value of `i`.
    pub(crate) i: i64,
    /// Position of the statement in the kernel (0-based).
    pub(crate) stmt: usize,
    pub(crate) warp: u32,
}

/// What one warp instruction requests, before the warp core measures it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Instruction {
    pub(crate) active_lanes: u32,
    /// Lane 0's address; `None` when lane 0 is inactive.
    pub(crate) lane0: Option<u64>,
    /// The byte stride between lanes when the addresses were written from the index's line
    /// ([`Evaluator::affine`]): the warp core's word that they are affine
    /// (`WarpAccess::stride`). `None` when they were evaluated lane by lane, or the stride is
    /// past an i64.
    pub(crate) stride: Option<i64>,
}

impl Instruction {
    /// An instruction no lane takes part in.
    const NO_LANE: Instruction = Instruction {
        active_lanes: 0,
        lane0: None,
        stride: None,
    };
}

/// Evaluates warp instructions with buffers reused from one to the next.
#[derive(Clone, Debug)]
pub(crate) struct Evaluator {
    active: [i64; LANES],
    idx: [i64; LANES],
    /// Each active lane's address, by lane.
    pub(crate) addresses: [u64; LANES],
    /// The lanes that took part in the last instruction.
    pub(crate) mask: u64,
    /// Each statement's index as a linear form exact over the launch, where it has one
    /// ([`Evaluator::for_launch`]); empty, every index goes through its tree.
    linear: Vec<Option<Linear>>,
}

impl Evaluator {
    /// A fresh evaluator.
    pub(crate) fn new() -> Evaluator {
        Evaluator {
            active: [0; LANES],
            idx: [0; LANES],
            addresses: [0; LANES],
            mask: 0,
            linear: Vec::new(),
        }
    }

    /// An evaluator for `kernel`'s launch, whose blocks have `warps` warps: each index that
    /// is linear over the launch is evaluated per warp from its form (#26).
    pub(crate) fn for_launch(kernel: &Kernel, warps: u32) -> Evaluator {
        let r = kernel.loop_range;
        let last = r.value(r.iterations.saturating_sub(1));
        let ranges = Ranges::launch(
            kernel.block,
            kernel.grid,
            (r.start.min(last), r.start.max(last)),
            warps,
            kernel.machine.warp,
        );
        Evaluator {
            linear: kernel
                .statements
                .iter()
                .map(|s| s.idx.linear(&ranges))
                .collect(),
            ..Evaluator::new()
        }
    }

    /// The last instruction, `instruction`, as the warp core's access.
    pub(crate) fn access(
        &self,
        stmt: &Statement,
        instruction: &Instruction,
        site: usize,
        block: u64,
        warp: u32,
    ) -> WarpAccess<'_> {
        WarpAccess {
            site,
            kind: stmt.kind,
            space: stmt.space,
            elem: stmt.elem,
            block,
            warp,
            mask: self.mask,
            addresses: &self.addresses,
            stride: instruction.stride,
        }
    }

    /// Evaluates the warp instruction at `site`: the active guard, then the index of the
    /// active lanes, then their addresses and sectors. An error names the lowest failing
    /// lane's thread, as the calculator names the lane.
    pub(crate) fn run(
        &mut self,
        kernel: &Kernel,
        lanes: &WarpLanes,
        site: Site,
    ) -> Result<Instruction, KernelError> {
        let Some(stmt) = kernel.statements.get(site.stmt) else {
            return Ok(Instruction::NO_LANE);
        };
        let vars = WarpVars {
            thread_idx: &lanes.thread_idx,
            block_idx: site.block_idx.map(i64::from),
            block_dim: kernel.block.map(i64::from),
            grid_dim: kernel.grid.map(i64::from),
            i: site.i,
            warp: i64::from(site.warp),
        };
        let (active_error, mask) = match &stmt.active {
            None => (None, lanes.mask),
            Some(expr) => {
                let evaluated = expr.eval_warp(lanes.mask, &vars, &lanes.lines, &mut self.active);
                match evaluated {
                    // The same for every lane (`i < 4`, a block's test): no lane to look at.
                    Ok(Some((b, 0))) => (None, if b != 0 { lanes.mask } else { 0 }),
                    // `b + s × t`, within i64 on the lanes (see `eval_warp`).
                    Ok(Some((b, s))) => (
                        None,
                        lanes_where(lanes.mask, |t| {
                            b.wrapping_add(s.wrapping_mul(i64::from(t))) != 0
                        }),
                    ),
                    // Lane by lane; after an error, the lanes below the failing one count.
                    evaluated => {
                        let active = &self.active;
                        let mask = lanes_where(lanes.mask, |t| active[t as usize] != 0);
                        (evaluated.err(), mask)
                    }
                }
            }
        };
        if mask == 0 && active_error.is_none() {
            // No lane takes part: nothing to evaluate, and nothing can fail.
            self.mask = 0;
            return Ok(Instruction::NO_LANE);
        }
        // The form needs no check here: no node of the tree overflows anywhere in the launch.
        let linear = match self.linear.get(site.stmt) {
            Some(Some(form)) if mask != 0 => form.line(&vars, &lanes.lines),
            _ => None,
        };
        let (idx_error, idx_line) = match linear {
            Some(line) => (None, Some(line)),
            None => match stmt.idx.eval_warp(mask, &vars, &lanes.lines, &mut self.idx) {
                Ok(line) => (None, line),
                Err(e) => (Some(e), None),
            },
        };
        if let (None, Some(line)) = (&active_error, idx_line) {
            if self.affine(stmt.base, stmt.elem, mask, line) {
                self.mask = mask;
                return Ok(Instruction {
                    active_lanes: mask.count_ones(),
                    lane0: (mask & 1 != 0).then_some(self.addresses[0]),
                    stride: i64::try_from(stmt.elem)
                        .ok()
                        .and_then(|e| e.checked_mul(line.1)),
                });
            }
            // An address out of range: lane by lane, to blame the lowest lane.
            let (b, s) = line;
            let mut m = mask;
            while m != 0 {
                let t = m.trailing_zeros() as usize;
                m &= m - 1;
                self.idx[t] = b.wrapping_add(s.wrapping_mul(t as i64));
            }
        }
        // Lane by lane, lowest first, so that the first problem met is the lowest lane's, in
        // the calculator's order: the guard, then the index, then the address.
        let failing = |e: &Option<EvalError>| e.as_ref().map_or(u32::MAX, |e| e.lane as u32);
        let (active_fails, idx_fails) = (failing(&active_error), failing(&idx_error));
        let mut m = lanes.mask | mask;
        let mut taking_part = 0;
        while m != 0 {
            let t = m.trailing_zeros();
            m &= m - 1;
            if t == active_fails {
                let e = active_error.as_ref();
                return Err(fail(kernel, stmt, StmtField::Active, site, t, e));
            }
            if mask & (1 << t) == 0 {
                continue;
            }
            if t == idx_fails {
                let e = idx_error.as_ref();
                return Err(fail(kernel, stmt, StmtField::Idx, site, t, e));
            }
            let address = lane_address(stmt.base, stmt.elem, self.idx[t as usize])
                .and_then(|a| last_byte(a, stmt.elem).map(|last| (a, last)));
            let address = match address {
                Ok((address, _)) => address,
                Err(reason) => {
                    let blamed = blame_for_address(stmt.base, stmt.elem, self.idx[t as usize]);
                    return Err(thread_error(
                        kernel,
                        stmt,
                        blamed,
                        site,
                        t,
                        &reason.to_string(),
                    ));
                }
            };
            self.addresses[t as usize] = address;
            taking_part += 1;
        }
        self.mask = mask;
        Ok(Instruction {
            active_lanes: taking_part,
            lane0: (mask & 1 != 0).then_some(self.addresses[0]),
            stride: None,
        })
    }

    /// The fast path (#26): the index is `b + s × t` on the lanes of `mask` (`line`), so the
    /// address `base + elem × idx` is affine in the lane too, and within range at every lane
    /// when it is at the lowest and the highest. Then each address is written from the
    /// lowest's with a stride, and true is returned; false (nothing written) when an end is
    /// out of range, and the caller goes lane by lane.
    #[inline]
    fn affine(&mut self, base: u64, elem: u64, mask: u64, (b, s): (i64, i64)) -> bool {
        if mask == 0 {
            return false;
        }
        let (first, last) = (mask.trailing_zeros(), 63 - mask.leading_zeros());
        let within = |t: u32| {
            // In 128 bits without a 128-bit multiply where the factors are small
            // (`model::mul`): `elem` times an index that fits in i64.
            let idx = i64::try_from(i128::from(b) + wide_mul_i64(s, i64::from(t))).ok()?;
            let address = i128::from(base) + wide_mul_i64(i64::try_from(elem).ok()?, idx);
            (address >= 0 && address + i128::from(elem.max(1)) - 1 <= i128::from(u64::MAX))
                .then_some(address as u64)
        };
        let (Some(at_first), Some(_)) = (within(first), within(last)) else {
            return false;
        };
        // Exact in wrapping arithmetic: every lane's address lies between the ends'.
        let stride = elem.wrapping_mul(s as u64);
        let mut m = mask;
        while m != 0 {
            let t = m.trailing_zeros();
            m &= m - 1;
            self.addresses[t as usize] =
                at_first.wrapping_add(stride.wrapping_mul(u64::from(t - first)));
        }
        true
    }
}

/// The lanes of `mask` for which `keep(lane)` holds.
#[inline]
fn lanes_where(mask: u64, keep: impl Fn(u32) -> bool) -> u64 {
    let (mut m, mut kept) = (mask, 0);
    while m != 0 {
        let t = m.trailing_zeros();
        if keep(t) {
            kept |= 1 << t;
        }
        m &= m - 1;
    }
    kept
}

fn fail(
    kernel: &Kernel,
    stmt: &Statement,
    field: StmtField,
    site: Site,
    lane: u32,
    error: Option<&EvalError>,
) -> KernelError {
    let reason = error.map_or_else(String::new, EvalError::reason);
    thread_error(kernel, stmt, field, site, lane, &reason)
}

/// "block (3,0,0) thread (5,1,0): <reason>", with ", i = N" after the thread in a loop.
pub(crate) fn thread_error(
    kernel: &Kernel,
    stmt: &Statement,
    field: StmtField,
    site: Site,
    lane: u32,
    reason: &str,
) -> KernelError {
    let [bx, by, bz] = site.block_idx;
    let width = u64::from(kernel.machine.warp);
    let tid = u64::from(site.warp) * width + u64::from(lane);
    let [tx, ty, _] = kernel.block.map(u64::from);
    let thread = (tid % tx, tid / tx % ty, tid / (tx * ty));
    let i = if kernel.loop_range.looped {
        format!(", i = {}", site.i)
    } else {
        String::new()
    };
    KernelError::new(
        KernelField::Stmt(stmt.number, field),
        format!(
            "block ({bx},{by},{bz}) thread ({},{},{}){i}: {reason}",
            thread.0, thread.1, thread.2
        ),
    )
}

/// Which field an address past 2^64 (or below 0) is blamed on: the base when it is the larger
/// term of `base + elem × idx` (a base a few bytes short of 2^64 passes it for any thread but
/// the first ones), the index otherwise. The page then falls back on that field's default.
#[cold]
fn blame_for_address(base: u64, elem: u64, idx: i64) -> StmtField {
    let offset = u128::from(elem) * u128::from(idx.unsigned_abs());
    if idx >= 0 && u128::from(base) >= offset {
        StmtField::Base
    } else {
        StmtField::Idx
    }
}

/// The row of one counted warp instruction: where it ran (`block`, `iteration`, the site) and
/// what it cost.
pub(crate) fn warp_row(
    block: u64,
    iteration: u64,
    site: Site,
    stmt_number: u8,
    instruction: Instruction,
    cost: &Cost,
    sector_bytes: u64,
) -> WarpRow {
    WarpRow {
        block,
        block_idx: site.block_idx,
        warp: site.warp,
        stmt: stmt_number,
        iteration,
        iter: site.i,
        lane0_address: instruction.lane0,
        active_lanes: instruction.active_lanes,
        sectors: cost.sectors,
        ideal_sectors: cost.ideal_sectors,
        requested_bytes: cost.requested_bytes,
        transferred_bytes: cost.sectors * sector_bytes,
        wavefronts: cost.wavefronts,
    }
}

/// The warp core refused a lane's bytes that the evaluator had already checked: a bug, named
/// as one and blamed on the thread, never a silent zero.
#[cold]
pub(crate) fn unexpected_address(
    kernel: &Kernel,
    stmt: &Statement,
    site: Site,
    (lane, reason): LaneError,
) -> KernelError {
    thread_error(
        kernel,
        stmt,
        StmtField::Idx,
        site,
        lane,
        &format!("internal error, please report this link: {reason}"),
    )
}
