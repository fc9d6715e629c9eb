//! The kernel view's presets: the course's kernels, each filling every parameter, with an
//! explanation that names its lesson. Their numbers are pinned in `tests/kernel_presets.rs`.

use super::inputs::{KernelField, KernelInputs, StmtField};

/// One preset of the `kernel-preset` picker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelPreset {
    /// The picker's value and the permalink's.
    pub id: &'static str,
    /// The picker's label.
    pub name: &'static str,
    /// The lesson, in a sentence or two.
    pub explanation: &'static str,
    /// Its grid, block, loop and FLOPs.
    launch: Launch,
    /// Its statements, in order.
    statements: &'static [Stmt],
}

/// A statement: (name, kind, space, base, idx, active), with elem 4.
type Stmt = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// The tiled transposes' global read of a tile, by rows (passes 0–3).
#[rustfmt::skip]
const TILED_IN: Stmt = ("in", "load", "global", "0", "(blockIdx.y*32 + threadIdx.y + 8*i) * 4096 + blockIdx.x*32 + threadIdx.x", "i < 4");
/// The barrier between the tiled transposes' two loops, closing pass 3.
const TILED_BARRIER: Stmt = ("barrier", "sync", "global", "0", "0", "i == 3");
/// The tiled transposes' global write of the transposed tile, by rows (passes 4–7).
#[rustfmt::skip]
const TILED_OUT: Stmt = ("out", "store", "global", "0x4000000", "(blockIdx.x*32 + threadIdx.y + 8*(i-4)) * 4096 + blockIdx.y*32 + threadIdx.x", "i >= 4");

/// The tiled transposes' statements around the tile's `write` and `read`.
const fn tiled(write: Stmt, read: Stmt) -> [Stmt; 5] {
    [TILED_IN, write, TILED_BARRIER, read, TILED_OUT]
}

/// A preset's grid, block, loop range and FLOPs per thread, as the fields' text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Launch {
    grid: &'static str,
    block: &'static str,
    loop_range: &'static str,
    flops: &'static str,
}

/// A launch, in the order of its fields on the page.
const fn launch(
    grid: &'static str,
    block: &'static str,
    loop_range: &'static str,
    flops: &'static str,
) -> Launch {
    Launch { grid, block, loop_range, flops }
}

/// The 4096×4096 transposes' launch: 128×128 blocks of 32×8 threads.
const TRANSPOSE: Launch = launch("128,128,1", "32,8,1", "0:4", "0");
/// The tiled transposes' launch: the loop's 8 passes are the kernel's two loops in order.
const TILED: Launch = launch("128,128,1", "32,8,1", "0:8", "0");
/// The particle layouts' launch: 1M threads, 5 FLOPs each.
const PARTICLES: Launch = launch("4096,1,1", "256,1,1", "", "5");

/// Every preset, in picker order: a table, a statement a line.
#[rustfmt::skip]
pub const KERNEL_PRESETS: [KernelPreset; 9] = [
    KernelPreset {
        id: "ex8a",
        name: "Ex8a: a 1024×1024 float matrix by rows, then by columns",
        explanation: "Each warp reads 32 floats of one row (4 sectors), then 32 floats down one \
                      column (32 sectors, one per row): same bytes, 8× the request-level \
                      traffic. The matrix fits in the cache, so DRAM reads it once.",
        launch: launch("32,1024,1", "32,1,1", "", "1"),
        statements: &[
            ("rows", "load", "global", "0", "blockIdx.y * 1024 + blockIdx.x * 32 + threadIdx.x", ""),
            ("cols", "load", "global", "0", "(blockIdx.x * 32 + threadIdx.x) * 1024 + blockIdx.y", ""),
        ],
    },
    KernelPreset {
        id: "transpose-naive",
        name: "Naive transpose, 4096×4096 floats, 32×8 blocks",
        explanation: "TILE_DIM=32, BLOCK_ROWS=8: each thread copies 4 elements. The read walks \
                      rows (4 sectors per request); the write walks columns (32 sectors per \
                      request). The cache merges the write's sectors before DRAM, but the \
                      request-level traffic stays 8× the read's.",
        launch: TRANSPOSE,
        statements: &[
            ("in", "load", "global", "0", "(blockIdx.y*32 + threadIdx.y + 8*i) * 4096 + blockIdx.x*32 + threadIdx.x", ""),
            ("out", "store", "global", "0x4000000", "(blockIdx.x*32 + threadIdx.x) * 4096 + blockIdx.y*32 + threadIdx.y + 8*i", ""),
        ],
    },
    KernelPreset {
        id: "transpose-tiled",
        name: "Tiled transpose through a 32×32 shared tile (bank conflicts)",
        explanation: "The remedy for the naive write: each block reads a 32×32 tile by rows \
         into shared memory, waits at __syncthreads(), then writes it out by rows \
         of the transposed matrix, so both global accesses take 4 sectors per \
         request. The price is on chip: reading the tile down a column, \
         tile[threadIdx.x][threadIdx.y + j], puts all 32 lanes in one bank, a \
         32-way conflict. The loop's 8 passes are the kernel's two loops in \
         order: passes 0–3 copy in, the barrier closes pass 3, passes 4–7 copy \
         out.",
        launch: TILED,
        statements: &tiled(
            ("tile write", "store", "shared", "0", "(threadIdx.y + 8*i) * 32 + threadIdx.x", "i < 4"),
            ("tile read", "load", "shared", "0", "threadIdx.x * 32 + threadIdx.y + 8*(i-4)", "i >= 4"),
        ),
    },
    KernelPreset {
        id: "transpose-tiled-padded",
        name: "Tiled transpose with the tile padded to 32×33 (no conflicts)",
        explanation: "The same kernel with one unused column: tile[32][33]. A column of the \
                      tile now steps 33 words, so the 32 lanes land in 32 different banks \
                      and the read takes one wavefront, as the row-wise write does. Global \
                      traffic and barriers are unchanged.",
        launch: TILED,
        statements: &tiled(
            ("tile write", "store", "shared", "0", "(threadIdx.y + 8*i) * 33 + threadIdx.x", "i < 4"),
            ("tile read", "load", "shared", "0", "threadIdx.x * 33 + threadIdx.y + 8*(i-4)", "i >= 4"),
        ),
    },
    KernelPreset {
        id: "column-sum",
        name: "Column sums, each thread walking down its column",
        explanation: "A 1024×1024 column-major float matrix: thread t sums column t, which is \
                      contiguous, so each warp instruction touches 32 sectors 4 KB apart and \
                      the next 7 iterations read the same sectors again. Only a cache that \
                      holds them makes that reuse free: try cache=0.",
        launch: launch("4,1,1", "256,1,1", "0:1024", "1"),
        statements: &[("col", "load", "global", "0", "(blockIdx.x * blockDim.x + threadIdx.x) * 1024 + i", "")],
    },
    KernelPreset {
        id: "aos",
        name: "Array of structures: x, y, z of 1M 3-float particles",
        explanation: "Each statement reads one field with a 12-byte stride: 12 sectors per \
                      request, 3× the SoA layout's request-level traffic. The cache catches y \
                      and z, so DRAM is the same; the L1/L2 traffic is not.",
        launch: PARTICLES,
        statements: &[
            ("x", "load", "global", "0", "(blockIdx.x * blockDim.x + threadIdx.x) * 3", ""),
            ("y", "load", "global", "0", "(blockIdx.x * blockDim.x + threadIdx.x) * 3 + 1", ""),
            ("z", "load", "global", "0", "(blockIdx.x * blockDim.x + threadIdx.x) * 3 + 2", ""),
        ],
    },
    KernelPreset {
        id: "soa",
        name: "Structure of arrays: x, y, z of 1M particles",
        explanation: "Three arrays of 1M floats: each statement reads 32 consecutive floats, 4 \
                      sectors per request, every byte useful. Compare with the AoS preset.",
        launch: PARTICLES,
        statements: &[
            ("x", "load", "global", "0", "blockIdx.x * blockDim.x + threadIdx.x", ""),
            ("y", "load", "global", "0x400000", "blockIdx.x * blockDim.x + threadIdx.x", ""),
            ("z", "load", "global", "0x800000", "blockIdx.x * blockDim.x + threadIdx.x", ""),
        ],
    },
    KernelPreset {
        id: "block16x16",
        name: "A 16×16 block: each warp spans two rows",
        explanation: "Warps form by linear thread id, so a 16-wide block puts rows y and y+1 \
                      in one warp: two 64-byte pieces 4 KB apart, 4 sectors in 2 lines.",
        launch: launch("1,1,1", "16,16,1", "", "0"),
        statements: &[("tile", "load", "global", "0", "threadIdx.y * 1024 + threadIdx.x", "")],
    },
    KernelPreset {
        id: "bounds",
        name: "A bounds check: the last block partly active",
        explanation: "1000 floats over 4 blocks of 256 threads: the guard switches off the last \
                      24 threads. The last warp keeps 8 lanes and moves 1 sector; every byte \
                      moved is still useful.",
        launch: launch("4,1,1", "256,1,1", "", "1"),
        statements: &[("x", "load", "global", "0", "blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x * blockDim.x + threadIdx.x < 1000")],
    },
];

impl KernelPreset {
    /// The preset with this id, if any.
    ///
    /// ```
    /// use coalescing_lab::model::kernel::presets::KernelPreset;
    /// assert_eq!(KernelPreset::by_id("bounds").map(|p| p.inputs().grid), Some("4,1,1".to_string()));
    /// assert_eq!(KernelPreset::by_id("nope"), None);
    /// ```
    pub fn by_id(id: &str) -> Option<&'static KernelPreset> {
        KERNEL_PRESETS.iter().find(|p| p.id == id)
    }

    /// Every parameter the preset sets: statements it does not use are absent; the cache is
    /// the default 6 MiB.
    pub fn inputs(&self) -> KernelInputs {
        let mut inputs = KernelInputs {
            grid: self.launch.grid.into(),
            block: self.launch.block.into(),
            loop_range: self.launch.loop_range.into(),
            flops: self.launch.flops.into(),
            statements: Default::default(),
            ..KernelInputs::default()
        };
        for (k, (name, kind, space, base, idx, active)) in self.statements.iter().enumerate() {
            let n = k as u8 + 1;
            let mut set =
                |field, value: &str| inputs.set(KernelField::Stmt(n, field), value.into());
            set(StmtField::Name, name);
            set(StmtField::Kind, kind);
            set(StmtField::Space, space);
            set(StmtField::Base, base);
            set(StmtField::Idx, idx);
            set(StmtField::Active, active);
        }
        inputs
    }
}
