//! The warp core: one warp access ([`WarpAccess`]), and the tally of a stream of them
//! ([`Tally`]). The kernel view, a trace, the calculator and CUDA source are front ends that
//! produce warp accesses in their execution order; every figure is counted here, once.
//!
//! - `access`: the boundary, a warp's execution of one access site, and its cold cost;
//! - `sectors`: one access measured cold (sectors, ideal sectors, wavefronts);
//! - `cache`: the fully associative LRU sector cache; `unique`: distinct sectors per site;
//! - `handoff`: the cache model's half of a tally, kept here or by another thread;
//! - `tally`: the running count, per site and for the stream;
//! - `figures`: what a tally reports, the measures and the heat map;
//! - `worst`: the worst warp accesses by each measure;
//! - `schedule`: warps round robin between barriers.
//!
//! Pure: std only.

mod access;
mod cache;
mod figures;
mod handoff;
mod schedule;
mod sectors;
mod tally;
mod unique;
mod worst;

pub use access::{Cost, WarpAccess};
pub use cache::SectorCache;
pub use figures::{Figures, HeatBands, HeatMap, Measure, HEAT_BANDS, MAX_HEAT_CELLS};
pub use handoff::CacheServer;
pub use schedule::RoundRobin;
pub use sectors::{LaneError, Scratch};
pub use tally::{SiteCounts, Tally, TallyOptions, POOLED_AFTER};
pub use unique::UNIQUE_BUDGET_BYTES;
pub use worst::{WorstLists, WORST};
