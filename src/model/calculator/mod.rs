//! The sector calculator: one warp instruction, from its inputs to every figure, picture and
//! word the panel shows. The warp core (`model::warp`) counts the same access the same way;
//! `tests/warp.rs` checks that the calculator is a tally of one access.
//!
//! - `inputs`: the fields as typed and their checks into a `Scenario`; `arch`: the
//!   architecture presets behind `warp`, `sector` and `line`;
//! - `sectors`: the analysis (lanes, sectors, lines, totals, banks);
//! - `readouts`, `derivation`: the figures and the worked derivation, worded;
//! - `predict`: predict-then-reveal; `presets`: the course's scenarios; `builders`: the
//!   pattern builders; `compare`: two scenarios side by side; `ramp`: the stride ramp;
//! - `sector_map`, `bank_map`: what the two pictures show, as data;
//! - `first_result`: the link's result as HTML, written before the app arrives.

pub mod arch;
pub mod bank_map;
pub mod builders;
pub mod compare;
pub mod derivation;
pub mod first_result;
pub mod inputs;
mod parse;
pub mod predict;
pub mod presets;
pub mod ramp;
pub mod readouts;
pub mod sector_map;
pub mod sectors;
