//! One warp instruction looked at closely: every warp of a chosen block for a chosen
//! statement and iteration, and the calculator's `addrs=` text for one of them.
//!
//! These recompute the instruction alone, counted cold, without the cache or the rest of the
//! launch, so the page can show any instruction at once. Knows nothing of the job's totals.

use super::super::format::plural;
use super::super::machine::LANES;
use super::super::warp::Scratch;
use super::analysis::WarpRow;
use super::inputs::{AccessKind, Kernel, KernelError, KernelField, StmtField};
use super::launch::{block_idx, unexpected_address, warp_row, warps_of_block, Evaluator, Site};
use super::walk::Walk;

/// A warp instruction's statement, iteration and block, as the page picks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    /// N in `aN`.
    pub stmt: u8,
    /// The iteration, counting from 0.
    pub iteration: u64,
    /// The block's linear number.
    pub block: u64,
}

/// Every warp of `pick.block` for statement `pick.stmt` in iteration `pick.iteration`, in warp
/// order. Refuses a pick outside the launch, and returns the first evaluation error met.
///
/// ```
/// use coalescing_lab::model::kernel::{warp_rows, KernelInputs, Machine, Pick};
/// let mut inputs = KernelInputs::default();
/// inputs.block = "48".into();
/// let kernel = inputs.kernel(Machine::default()).unwrap();
/// let rows = warp_rows(&kernel, Pick { stmt: 1, iteration: 0, block: 0 }).unwrap();
/// assert_eq!(rows.iter().map(|r| (r.active_lanes, r.sectors)).collect::<Vec<_>>(), [(32, 4), (16, 2)]);
/// // Degenerate input: a block past the grid is refused.
/// let error = warp_rows(&kernel, Pick { stmt: 1, iteration: 0, block: 1 }).unwrap_err();
/// assert_eq!(error.to_string(), "grid: block 1 is outside the launch's 1 block");
/// ```
pub fn warp_rows(kernel: &Kernel, pick: Pick) -> Result<Vec<WarpRow>, KernelError> {
    let (stmt_at, site) = check(kernel, pick)?;
    let Some(stmt) = kernel.statements.get(stmt_at) else {
        return Ok(Vec::new());
    };
    let mut evaluator = Evaluator::new();
    let mut scratch = Scratch::default();
    let sector_shift = kernel.machine.sector_bytes.trailing_zeros();
    let mut rows = Vec::new();
    for (w, lanes) in warps_of_block(kernel).iter().enumerate() {
        let site = Site { warp: w as u32, ..site };
        let instruction = evaluator.run(kernel, lanes, site)?;
        let access = evaluator.access(stmt, &instruction, stmt_at, pick.block, site.warp);
        let cost = scratch
            .measure(&access, sector_shift)
            .map_err(|e| unexpected_address(kernel, stmt, site, e))?;
        rows.push(warp_row(
            pick.block,
            pick.iteration,
            site,
            pick.stmt,
            instruction,
            &cost,
            kernel.machine.sector_bytes,
        ));
    }
    Ok(rows)
}

/// The calculator's `addrs=` text for warp `warp` of `pick`: one address per lane of the
/// machine's warp, `-` for an inactive lane, comma separated. With the statement's `elem` and
/// the machine's `warp`, `sector` and `line`, the calculator shows the same sectors.
///
/// ```
/// use coalescing_lab::model::kernel::{calculator_addrs, KernelInputs, Machine, Pick};
/// let mut inputs = KernelInputs::default();
/// inputs.block = "4".into();
/// let kernel = inputs.kernel(Machine { warp: 4, ..Machine::default() }).unwrap();
/// let pick = Pick { stmt: 1, iteration: 0, block: 0 };
/// assert_eq!(calculator_addrs(&kernel, pick, 0).unwrap(), "0,4,8,12");
/// ```
pub fn calculator_addrs(kernel: &Kernel, pick: Pick, warp: u32) -> Result<String, KernelError> {
    let (_, site) = check(kernel, pick)?;
    let warps = warps_of_block(kernel);
    let Some(lanes) = warps.get(warp as usize) else {
        return Err(KernelError::new(
            KernelField::Block,
            format!(
                "warp {warp} is outside the block's {} warp{}",
                warps.len(),
                plural(warps.len() as u64)
            ),
        ));
    };
    let mut evaluator = Evaluator::new();
    evaluator.run(kernel, lanes, Site { warp, ..site })?;
    let entries: Vec<String> = (0..kernel.machine.warp)
        .map(|t| {
            if evaluator.mask & (1u64 << t) != 0 {
                evaluator.addresses[t as usize].to_string()
            } else {
                "-".to_string()
            }
        })
        .collect();
    Ok(entries.join(","))
}

/// The statement's position and the site of warp 0, or why the pick is outside the launch.
fn check(kernel: &Kernel, pick: Pick) -> Result<(usize, Site), KernelError> {
    let Some(stmt_at) = kernel.statements.iter().position(|s| s.number == pick.stmt) else {
        return Err(KernelError::new(
            KernelField::Stmt(pick.stmt, StmtField::Kind),
            format!("statement a{} is not in the kernel", pick.stmt),
        ));
    };
    if kernel
        .statements
        .get(stmt_at)
        .is_some_and(|s| s.kind == AccessKind::Sync)
    {
        return Err(KernelError::new(
            KernelField::Stmt(pick.stmt, StmtField::Kind),
            format!(
                "statement a{} is a barrier (sync): it accesses no memory",
                pick.stmt
            ),
        ));
    }
    let blocks = kernel.blocks();
    if pick.block >= blocks {
        return Err(KernelError::new(
            KernelField::Grid,
            format!(
                "block {} is outside the launch's {blocks} block{}",
                pick.block,
                plural(blocks)
            ),
        ));
    }
    let iterations = kernel.loop_range.iterations;
    if pick.iteration >= iterations {
        return Err(KernelError::new(
            KernelField::Loop,
            format!(
                "iteration {} is outside the loop's {iterations} iteration{}",
                pick.iteration,
                plural(iterations)
            ),
        ));
    }
    Ok((
        stmt_at,
        Site {
            block_idx: block_idx(kernel, pick.block),
            i: kernel.loop_range.value(pick.iteration),
            stmt: stmt_at,
            warp: 0,
        },
    ))
}

/// One warp instruction of a launch, as [`each_instruction`] hands it over.
#[derive(Clone, Copy, Debug)]
pub struct Executed<'a> {
    /// The statement executed, with its kind, space and element size.
    pub stmt: &'a super::inputs::Statement,
    /// The block's `(x, y, z)`.
    pub block: [u32; 3],
    /// The block's linear number.
    pub block_number: u64,
    /// The warp within its block.
    pub warp: u32,
    /// The loop iteration, counting from 0; `i` is `LoopRange::value` of it.
    pub iteration: u64,
    /// Lanes that take part.
    pub mask: u64,
    /// Each taking-part lane's address, by lane.
    pub addresses: &'a [u64; LANES],
}

/// Every memory instruction of the launch, in the job's execution order (blocks, iterations,
/// statements, warps), barriers left out, including warps with no lane taking part. Stops at
/// the first evaluation error, as the job does.
///
/// ```
/// use coalescing_lab::model::kernel::{each_instruction, KernelInputs, Machine};
/// let mut inputs = KernelInputs::default();
/// inputs.block = "64".into();
/// let kernel = inputs.kernel(Machine::default()).unwrap();
/// let mut seen = Vec::new();
/// each_instruction(&kernel, |e| seen.push((e.warp, e.mask.count_ones(), e.addresses[1]))).unwrap();
/// assert_eq!(seen, [(0, 32, 4), (1, 32, 132)]);
/// ```
pub fn each_instruction(
    kernel: &Kernel,
    mut f: impl FnMut(Executed<'_>),
) -> Result<(), KernelError> {
    let mut walk = Walk::new(kernel);
    while let Some(step) = walk.next(kernel) {
        let c = step?.cursor;
        let Some(stmt) = kernel.statements.get(c.stmt) else {
            continue;
        };
        if stmt.kind == AccessKind::Sync {
            continue;
        }
        f(Executed {
            stmt,
            block: block_idx(kernel, c.block),
            block_number: c.block,
            warp: c.warp,
            iteration: c.iteration,
            mask: walk.evaluator.mask,
            addresses: &walk.evaluator.addresses,
        });
    }
    Ok(())
}
