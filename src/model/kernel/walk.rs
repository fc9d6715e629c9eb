//! The kernel view's execution order, written once: blocks in linear order, one block at a
//! time; in a block, each iteration `i`; in an iteration, each statement in order; for a
//! statement, each warp in order. [`Walk`] evaluates the warp instructions in that order, for
//! the job that counts them and for the synthetic traces that write them out.

use super::inputs::Kernel;
use super::launch::{block_idx, warps_of_block, Evaluator, Instruction, Site, WarpLanes};
use super::{KernelError, KernelField};

/// Where a walk is: the next warp instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub(crate) block: u64,
    pub(crate) iteration: u64,
    /// Position of the statement in the kernel (0-based).
    pub(crate) stmt: usize,
    pub(crate) warp: u32,
}

/// The launch's warp instructions, evaluated one at a time in execution order.
#[derive(Clone, Debug)]
pub(crate) struct Walk {
    pub(crate) warps: Vec<WarpLanes>,
    pub(crate) evaluator: Evaluator,
    cursor: Cursor,
    done: u64,
    total: u64,
}

/// One evaluated warp instruction: where it is, and what its lanes request (their addresses
/// are the walk's evaluator's until the next step).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub(crate) cursor: Cursor,
    pub(crate) site: Site,
    pub(crate) instruction: Instruction,
    /// The lanes of the warp that hold a thread.
    pub(crate) present: u64,
}

impl Walk {
    /// A walk from the launch's first warp instruction.
    pub(crate) fn new(kernel: &Kernel) -> Walk {
        let warps = warps_of_block(kernel);
        let total = kernel.blocks()
            * kernel.loop_range.iterations
            * kernel.statements.len() as u64
            * warps.len() as u64;
        Walk {
            evaluator: Evaluator::for_launch(kernel, warps.len() as u32),
            warps,
            cursor: Cursor::default(),
            done: 0,
            total,
        }
    }

    /// Warp instructions done, and in all.
    pub(crate) fn progress(&self) -> (u64, u64) {
        (self.done, self.total)
    }

    /// Evaluates the next warp instruction and moves on; `None` at the end. An evaluation
    /// error is returned where it happens, and the walk does not move past it.
    #[inline]
    pub(crate) fn next(&mut self, kernel: &Kernel) -> Option<Result<Step, KernelError>> {
        if self.done >= self.total {
            return None;
        }
        let c = self.cursor;
        let Some(lanes) = self.warps.get(c.warp as usize) else {
            return Some(Err(internal(c.stmt)));
        };
        let site = Site {
            block_idx: block_idx(kernel, c.block),
            i: kernel.loop_range.value(c.iteration),
            stmt: c.stmt,
            warp: c.warp,
        };
        let present = lanes.mask;
        let instruction = match self.evaluator.run(kernel, lanes, site) {
            Ok(i) => i,
            Err(e) => return Some(Err(e)),
        };
        self.advance(kernel);
        self.done += 1;
        Some(Ok(Step { cursor: c, site, instruction, present }))
    }

    fn advance(&mut self, kernel: &Kernel) {
        let c = &mut self.cursor;
        c.warp += 1;
        if c.warp as usize >= self.warps.len() {
            c.warp = 0;
            c.stmt += 1;
            if c.stmt >= kernel.statements.len() {
                c.stmt = 0;
                c.iteration += 1;
                if c.iteration >= kernel.loop_range.iterations {
                    c.iteration = 0;
                    c.block += 1;
                }
            }
        }
    }
}

/// A position past the launch's warps or statements: a walk over another kernel, never
/// reached. Named as a bug rather than counted as nothing.
#[cold]
pub(crate) fn internal(at: usize) -> KernelError {
    KernelError::new(
        KernelField::Grid,
        format!("internal error: statement {at} is outside the kernel; please report this link"),
    )
}
