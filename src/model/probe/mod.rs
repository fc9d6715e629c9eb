//! The strided-load probe's pure parts: its inputs (`strides`, `n`), sizing within a
//! device's limits, the sector model's prediction for each stride, the checksum the kernel
//! must reproduce, timing statistics, the results table, and the evidence exports.
//!
//! The browser side (`crate::gpu`) only moves buffers and reads clocks; every number a
//! visitor sees is computed here, so native tests can check it.
//!
//! Conventions of the probe, stated once:
//! - Invocation `i` of a dispatch reads the f32 at byte `base + i × stride`; `n` invocations read
//!   `n` useful floats whatever the stride.
//! - The prediction assumes 32-lane warps and 32-byte sectors, as the calculator's default
//!   architecture does, and comes from the same [`analyze`].
//! - Times are milliseconds per dispatch (`n` loads; a timed pass repeats it); bandwidths are GB/s of
//!   10^9 bytes.
//!
//! Its parts, one idea each: `config` (the fields as typed and their checks), `plan` (sizing
//! within a device's limits, base offsets), `kernel` (the values, the checksum, the
//! prediction and the statistics), `report` (measurements beside predictions), `evidence`
//! (the CSV and JSON exports) and `wording` (sentences and table text).

mod config;
mod evidence;
mod kernel;
mod plan;
mod report;
mod wording;

pub use config::{Config, ProbeError, ProbeField, ProbeInputs};
pub use kernel::{
    expected_checksum, predict, reps_for, stats, value_at, warp_inputs, Prediction, Stats,
    HASH_MULTIPLIER, HASH_SHIFT,
};
pub use plan::{plan, Limits, Plan};
pub use report::{chart_points, AdapterInfo, Measurement, Points, Report, Row, Timer};
pub use wording::{chart_description, pass_floor_ms, preview, RowText};

/// Lanes per warp the prediction assumes.
pub const WARP_LANES: u32 = 32;
/// Sector size in bytes the prediction assumes.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes of one useful value (an f32).
pub const FLOAT_BYTES: u64 = 4;
/// The strides the probe runs unless told otherwise: contiguous, then the course's three.
pub const DEFAULT_STRIDES: &str = "4,32,64,128";
/// Useful floats per dispatch at most (2^20).
pub const MAX_N: u32 = 1 << 20;
/// Useful floats per dispatch at least: one warp.
pub const MIN_N: u32 = 32;
/// The largest stride in bytes.
pub const MAX_STRIDE: u32 = 4096;
/// How many strides one run may hold.
pub const MAX_STRIDES: usize = 12;
/// Invocations per workgroup; the WGSL says the same.
pub const WORKGROUP_INVOCATIONS: u32 = 64;
/// Distinct base offsets a timed pass cycles through, one per uniform slot.
pub const BASE_SLOTS: u32 = 16;
/// Alignment of base offsets and uniform slots in bytes (WebGPU's default
/// `minUniformBufferOffsetAlignment`).
pub const ALIGN_BYTES: u64 = 256;
/// Bytes of the WGSL's `Params` uniform: four `u32` words (base, stride, n, padding).
pub const PARAMS_BYTES: u64 = 16;
/// The data buffer never exceeds this, whatever the device allows: 1 GiB.
pub const BUFFER_CAP_BYTES: u64 = 1 << 30;
/// Warm-up runs per stride, not reported.
pub const WARMUPS: usize = 2;
/// Measured runs per stride.
pub const MEASURED: usize = 7;
/// A timed pass lasts at least this long, well above the browser's ~0.1 ms timer quantum.
pub const TARGET_PASS_MS: f64 = 12.0;
/// Dispatches per timed pass at most: enough for a 12 ms pass of 1.2 µs dispatches.
pub const MAX_REPS: u32 = 10_000;
/// The coarsest timer a browser gives (timestamps and `performance.now()` alike).
pub const TIMER_RESOLUTION_MS: f64 = 0.1;
