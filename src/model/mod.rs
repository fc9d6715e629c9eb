//! The pure model of Coalescing Lab: everything the page computes, with no browser in sight.
//!
//! Conventions, stated once:
//! - Addresses and sizes are bytes, as `u64`. Lane ids run from 0 to warp − 1.
//! - Lane `t` requests bytes `[A(t), A(t) + elem)` with `A(t) = base + elem × idx(t)`.
//! - Sector `k` covers bytes `[k·S, (k+1)·S)`; cache line `k` covers `[k·L, (k+1)·L)`.
//! - Spans of sector or line indices are inclusive at both ends.
//! - Expressions are C on signed 64-bit integers; overflow is an error, never a wrapped value.
//!
//! Depends on std and serde only: no leptos, web-sys or js-sys here.

mod address;
pub mod banks;
pub mod calculator;
pub mod clib;
pub mod csv;
pub mod cuda;
pub mod cuda_view;
pub mod error;
pub mod exact;
pub mod expr;
pub mod flops;
pub mod format;
pub mod job;
pub mod kernel;
pub mod lessons;
mod machine;
pub mod mul;
pub mod permalink;
pub mod probe;
mod ratio;
mod read;
pub mod roofline;
mod span;
pub mod trace;
pub mod warm;
pub mod warp;

/// The calculator's modules, where every panel and the tests have always found them.
pub use calculator::{
    arch, bank_map, builders, compare, derivation, inputs, predict, presets, ramp, readouts,
    sector_map, sectors,
};

pub use address::{lane_address, last_byte, AccessError};
pub use machine::{AccessKind, Machine, Space, DEFAULT_CACHE_BYTES, LANES};
pub use ratio::Ratio;
pub use span::Span;
