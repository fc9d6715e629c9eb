//! The kernel view's inputs as typed, one string per URL parameter, and their validation into
//! a checked [`Kernel`].
//!
//! Owns the launch shape, the loop, the cache size, the FLOPs and the statements' fields, with
//! their limits and messages. The machine (warp, sector, line) is the calculator's and comes
//! in as a [`Machine`]; this module never reads the calculator's fields itself.

use super::super::error::{FieldError, FieldName};
use super::super::exact::Exact;
use super::super::expr::kernel::KernelExpr;
use super::super::inputs::Space;
pub use super::super::machine::{AccessKind, Machine};
use super::super::mul::wide_mul_i64;
use super::parse::{
    keep, parse_block, parse_cache, parse_flops, parse_loop, parse_shape, parse_statement, product,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most statements a kernel has: `a1` to `a8`.
pub const MAX_STATEMENTS: usize = 8;
/// Most threads in one block, as on NVIDIA hardware.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Most loop iterations: 2^20.
pub const MAX_ITERATIONS: u64 = 1 << 20;
/// Most lane-accesses (threads × iterations × statements) computed exactly: 2^28.
pub const MAX_LANE_ACCESSES: u64 = 1 << 28;
/// Largest cache: 1 GiB.
pub const MAX_CACHE_BYTES: u64 = 1 << 30;
/// Longest statement name, in characters.
pub const MAX_NAME_CHARS: usize = 24;
/// Largest grid or block extent on one axis (CUDA's grid x limit, 2^31 − 1).
pub(super) const MAX_EXTENT: u64 = (1 << 31) - 1;

/// One field of a statement; its URL parameter is `aN.` followed by [`StmtField::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StmtField {
    /// `load`, `store` or `sync`: URL parameter `aN.kind`.
    Kind,
    /// `global` or `shared`: `aN.space`.
    Space,
    /// Bytes per access, 1, 2, 4, 8 or 16: `aN.elem`.
    Elem,
    /// The array's byte address: `aN.base`.
    Base,
    /// The element index, a kernel expression: `aN.idx`.
    Idx,
    /// Which threads take part; empty means all: `aN.active`.
    Active,
    /// A short label, at most 24 characters: `aN.name`.
    Name,
}

impl StmtField {
    /// Every field, in form order.
    pub const ALL: [StmtField; 7] = [
        StmtField::Kind,
        StmtField::Space,
        StmtField::Elem,
        StmtField::Base,
        StmtField::Idx,
        StmtField::Active,
        StmtField::Name,
    ];

    /// The part of the URL parameter after `aN.`.
    pub fn name(self) -> &'static str {
        match self {
            StmtField::Kind => "kind",
            StmtField::Space => "space",
            StmtField::Elem => "elem",
            StmtField::Base => "base",
            StmtField::Idx => "idx",
            StmtField::Active => "active",
            StmtField::Name => "name",
        }
    }
}

/// One input of the kernel view, named by its URL parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum KernelField {
    /// Blocks per axis, `X,Y,Z`: URL parameter `grid`.
    Grid,
    /// Threads per block per axis, at most 1024 in all: `block`.
    Block,
    /// `START:END[:STEP]`, END exclusive, or empty for no loop: `loop`.
    Loop,
    /// Cache bytes, 0 for none: `cache`.
    Cache,
    /// FLOPs per thread per iteration, for the roofline hand-off: `flops`.
    Flops,
    /// A field of statement `aN`, N from 1 to 8.
    Stmt(u8, StmtField),
}

impl KernelField {
    /// The launch-wide fields, in form order.
    pub const LAUNCH: [KernelField; 5] = [
        KernelField::Grid,
        KernelField::Block,
        KernelField::Loop,
        KernelField::Cache,
        KernelField::Flops,
    ];

    /// The URL parameter: `grid`, `loop`, `a3.idx`, … A public contract, never renamed.
    ///
    /// ```
    /// use coalescing_lab::model::kernel::{KernelField, StmtField};
    /// assert_eq!(KernelField::Stmt(3, StmtField::Idx).param(), "a3.idx");
    /// assert_eq!(KernelField::from_param("a3.idx"), Some(KernelField::Stmt(3, StmtField::Idx)));
    /// assert_eq!(KernelField::from_param("a9.idx"), None);
    /// ```
    pub fn param(self) -> String {
        match self {
            KernelField::Grid => "grid".into(),
            KernelField::Block => "block".into(),
            KernelField::Loop => "loop".into(),
            KernelField::Cache => "cache".into(),
            KernelField::Flops => "flops".into(),
            KernelField::Stmt(n, field) => format!("a{n}.{}", field.name()),
        }
    }

    /// The field whose URL parameter is `param`, if any.
    pub fn from_param(param: &str) -> Option<KernelField> {
        if let Some(field) = KernelField::LAUNCH.into_iter().find(|f| f.param() == param) {
            return Some(field);
        }
        let (stmt, field) = param.strip_prefix('a')?.split_once('.')?;
        let n: u8 = stmt.parse().ok().filter(|n| (1..=8).contains(n))?;
        let field = StmtField::ALL.into_iter().find(|f| f.name() == field)?;
        (stmt == n.to_string()).then_some(KernelField::Stmt(n, field))
    }
}

/// A problem with one kernel field, at validation or while running.
pub type KernelError = FieldError<KernelField>;

impl FieldName for KernelField {
    fn param(self) -> impl fmt::Display {
        KernelField::param(self)
    }
}

/// One statement's fields as typed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StmtInputs {
    /// `load`, `store` or `sync` (`__syncthreads()`).
    pub kind: String,
    /// `global` or `shared`.
    pub space: String,
    /// Bytes per access: 1, 2, 4, 8 or 16.
    pub elem: String,
    /// The array's byte address, decimal or `0x` hex.
    pub base: String,
    /// The element index, a kernel expression.
    pub idx: String,
    /// Which threads take part, a kernel expression; empty means all.
    pub active: String,
    /// A short label; empty shows as `aN`.
    pub name: String,
}

impl Default for StmtInputs {
    fn default() -> StmtInputs {
        StmtInputs {
            kind: "load".into(),
            space: "global".into(),
            elem: "4".into(),
            base: "0".into(),
            idx: "threadIdx.x".into(),
            active: String::new(),
            name: String::new(),
        }
    }
}

impl StmtInputs {
    /// The default text of a statement's field; empty for a launch-wide field.
    pub fn default_for(field: KernelField) -> String {
        match field {
            KernelField::Stmt(_, f) => StmtInputs::default().slot(f).clone(),
            _ => String::new(),
        }
    }

    fn slot(&mut self, field: StmtField) -> &mut String {
        match field {
            StmtField::Kind => &mut self.kind,
            StmtField::Space => &mut self.space,
            StmtField::Elem => &mut self.elem,
            StmtField::Base => &mut self.base,
            StmtField::Idx => &mut self.idx,
            StmtField::Active => &mut self.active,
            StmtField::Name => &mut self.name,
        }
    }
}

/// The kernel view's inputs as text, exactly as typed or as found in the URL.
///
/// ```
/// use coalescing_lab::model::kernel::{KernelField, KernelInputs, Machine};
/// let mut inputs = KernelInputs::default();
/// assert_eq!(inputs.get(KernelField::Block), "32,1,1");
/// inputs.set(KernelField::Block, "64,32".into());
/// let errors = inputs.kernel(Machine::default()).unwrap_err();
/// assert_eq!(errors[0].to_string(), "block: must have at most 1024 threads, found 64×32×1 = 2048");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KernelInputs {
    /// Blocks per axis, `X,Y,Z`; missing trailing values are 1.
    pub grid: String,
    /// Threads per block per axis, `X,Y,Z`; missing trailing values are 1.
    pub block: String,
    /// `START:END[:STEP]`, or empty for one pass with `i = 0`.
    pub loop_range: String,
    /// Cache bytes: 0, or a multiple of the line from one line to 1 GiB.
    pub cache: String,
    /// FLOPs per thread per iteration; empty means 0.
    pub flops: String,
    /// Statements `a1` to `a8`; `None` where the link names none of its fields.
    pub statements: [Option<StmtInputs>; MAX_STATEMENTS],
}

impl Default for KernelInputs {
    /// One warp loading 32 consecutive floats: the calculator's Example 1 as a kernel.
    fn default() -> KernelInputs {
        let mut statements: [Option<StmtInputs>; MAX_STATEMENTS] = Default::default();
        statements[0] = Some(StmtInputs::default());
        KernelInputs {
            grid: "1,1,1".into(),
            block: "32,1,1".into(),
            loop_range: String::new(),
            // V100's L2: 6 MiB.
            cache: super::super::machine::DEFAULT_CACHE_BYTES.to_string(),
            flops: String::new(),
            statements,
        }
    }
}

impl KernelInputs {
    /// The default text of `field`: what a field in error falls back to.
    ///
    /// ```
    /// use coalescing_lab::model::kernel::{KernelField, KernelInputs, StmtField};
    /// assert_eq!(KernelInputs::default_for(KernelField::Grid), "1,1,1");
    /// assert_eq!(KernelInputs::default_for(KernelField::Stmt(3, StmtField::Space)), "global");
    /// // Degenerate input: a field whose default is empty.
    /// assert_eq!(KernelInputs::default_for(KernelField::Loop), "");
    /// ```
    pub fn default_for(field: KernelField) -> String {
        match field {
            KernelField::Stmt(..) => StmtInputs::default_for(field),
            field => KernelInputs::default().get(field),
        }
    }

    /// The raw text of `field`; a field of an absent statement reads as its default.
    pub fn get(&self, field: KernelField) -> String {
        match field {
            KernelField::Grid => self.grid.clone(),
            KernelField::Block => self.block.clone(),
            KernelField::Loop => self.loop_range.clone(),
            KernelField::Cache => self.cache.clone(),
            KernelField::Flops => self.flops.clone(),
            KernelField::Stmt(n, f) => {
                let mut stmt = self
                    .statements
                    .get(usize::from(n).wrapping_sub(1))
                    .cloned()
                    .flatten()
                    .unwrap_or_default();
                stmt.slot(f).clone()
            }
        }
    }

    /// Replaces the raw text of `field`; setting a field of an absent statement creates it
    /// with its other fields at their defaults. Statement numbers outside 1 to 8 are ignored.
    pub fn set(&mut self, field: KernelField, value: String) {
        let slot = match field {
            KernelField::Grid => &mut self.grid,
            KernelField::Block => &mut self.block,
            KernelField::Loop => &mut self.loop_range,
            KernelField::Cache => &mut self.cache,
            KernelField::Flops => &mut self.flops,
            KernelField::Stmt(n, f) => {
                let Some(stmt) = self.statements.get_mut(usize::from(n).wrapping_sub(1)) else {
                    return;
                };
                stmt.get_or_insert_with(StmtInputs::default).slot(f)
            }
        };
        *slot = value;
    }

    /// The cache's bytes checked against `machine`'s line, as [`KernelInputs::kernel`] checks
    /// them: for panels that share the kernel view's `cache` (the CUDA source panel).
    ///
    /// ```
    /// use coalescing_lab::model::kernel::{KernelInputs, Machine};
    /// assert_eq!(KernelInputs::default().cache_bytes(Machine::default()), Ok(6 << 20));
    /// let odd = KernelInputs { cache: "100".into(), ..KernelInputs::default() };
    /// assert!(odd.cache_bytes(Machine::default()).is_err());
    /// ```
    pub fn cache_bytes(&self, machine: Machine) -> Result<u64, KernelError> {
        parse_cache(&self.cache, machine.line_bytes)
    }

    /// Checks every field against `machine`, reporting all problems at once in form order.
    pub fn kernel(&self, machine: Machine) -> Result<Kernel, Vec<KernelError>> {
        let mut errors = Vec::new();
        let grid = keep(&mut errors, parse_shape(KernelField::Grid, &self.grid));
        let block = keep(&mut errors, parse_block(&self.block));
        let loop_range = keep(&mut errors, parse_loop(&self.loop_range));
        let cache_bytes = keep(&mut errors, parse_cache(&self.cache, machine.line_bytes));
        let flops = keep(&mut errors, parse_flops(&self.flops));
        let mut statements = Vec::new();
        for (k, stmt) in self.statements.iter().enumerate() {
            if let Some(stmt) = stmt {
                let n = k as u8 + 1;
                if let Some(s) = keep(&mut errors, parse_statement(n, stmt)) {
                    statements.push(s);
                }
            }
        }
        let (Some(grid), Some(block), Some(loop_range), Some(cache_bytes), Some(flops)) =
            (grid, block, loop_range, cache_bytes, flops)
        else {
            return Err(errors);
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        // Barriers count too: each is evaluated warp by warp, so they bound the work as well.
        let threads = product(grid) * product(block);
        let lane_accesses = threads * u128::from(loop_range.iterations) * statements.len() as u128;
        if lane_accesses > u128::from(MAX_LANE_ACCESSES) {
            return Err(vec![KernelError::new(
                KernelField::Grid,
                format!(
                    "the launch makes {lane_accesses} lane-accesses (threads × iterations × \
                     statements); at most {MAX_LANE_ACCESSES} (2^28) are computed exactly"
                ),
            )]);
        }
        let mut notes = Vec::new();
        if loop_range.iterations == 0 {
            notes.push(format!(
                "the loop {} runs no iteration, so the kernel accesses no memory",
                self.loop_range.trim()
            ));
        }
        Ok(Kernel {
            machine,
            grid,
            block,
            loop_range,
            cache_bytes,
            flops_per_thread: flops,
            statements,
            notes,
        })
    }
}

/// A checked statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// Its number N in `aN`, 1 to 8.
    pub number: u8,
    /// Load, store or `__syncthreads()` barrier.
    pub kind: AccessKind,
    /// The memory accessed; global for a barrier.
    pub space: Space,
    /// Bytes per access.
    pub elem: u64,
    /// The array's byte address.
    pub base: u64,
    /// The element index each thread accesses; the byte address is `base + elem × idx`.
    pub idx: KernelExpr,
    /// `None` when every thread takes part. For a barrier, the condition under which the
    /// block reaches it, which must be the same for every thread of the block.
    pub active: Option<KernelExpr>,
    /// The label shown: the typed name, or `aN` when none was typed.
    pub name: String,
}

/// A checked loop: `i` takes `start`, `start + step`, … for `iterations` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRange {
    /// The first value of `i`.
    pub start: i64,
    /// Added to `i` each iteration; never 0, negative counts down.
    pub step: i64,
    /// 0 to 2^20; 1 when there is no loop.
    pub iterations: u64,
    /// False for the single pass of a kernel without a loop, whose `i` is 0.
    pub looped: bool,
}

impl LoopRange {
    /// The value of `i` in iteration `n` (counting from 0). Exact for every `n` below
    /// `iterations`, which validation keeps inside the range.
    pub fn value(&self, n: u64) -> i64 {
        // Without a 128-bit multiply, a call in wasm (`model::mul`), for any `n` below 2^63.
        let product = match i64::try_from(n) {
            Ok(n) => wide_mul_i64(self.step, n),
            Err(_) => i128::from(self.step) * i128::from(n),
        };
        let value = i128::from(self.start) + product;
        i64::try_from(value).unwrap_or(i64::MAX)
    }
}

/// Checked inputs: every value is in range and every expression parses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Warp, sector and line sizes, from the calculator's inputs.
    pub machine: Machine,
    /// Blocks along x, y and z.
    pub grid: [u32; 3],
    /// Threads per block along x, y and z.
    pub block: [u32; 3],
    /// The values of `i`; one pass with `i = 0` when the kernel has no loop.
    pub loop_range: LoopRange,
    /// 0 for no cache.
    pub cache_bytes: u64,
    /// FLOPs per thread per iteration.
    pub flops_per_thread: Exact,
    /// The statements present, in order of their number.
    pub statements: Vec<Statement>,
    /// Remarks the page shows beside the results, e.g. an empty loop.
    pub notes: Vec<String>,
}

impl Kernel {
    /// How a warp row names statement `n`: `a2`, or `a2: tile read` when it has a name.
    ///
    /// ```
    /// use coalescing_lab::model::kernel::{KernelInputs, Machine};
    /// let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
    /// assert_eq!(kernel.statement_label(1), "a1");
    /// ```
    pub fn statement_label(&self, n: u8) -> String {
        let number = format!("a{n}");
        match self.statements.iter().find(|s| s.number == n) {
            Some(s) if s.name != number => format!("{number}: {}", s.name),
            _ => number,
        }
    }

    /// Threads in one block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&b| u64::from(b)).product()
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&g| u64::from(g)).product()
    }

    /// Warps in one block: the last may be partial.
    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block()
            .div_ceil(u64::from(self.machine.warp.max(1))) as u32
    }

    /// Threads × iterations × statements, barriers included: the work the launch takes.
    pub fn lane_accesses(&self) -> u64 {
        self.blocks()
            * self.threads_per_block()
            * self.loop_range.iterations
            * self.statements.len() as u64
    }
}
