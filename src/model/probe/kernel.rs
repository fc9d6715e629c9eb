//! The kernel's arithmetic: the value at each word, the checksum a pass must reproduce, the
//! sector model's prediction for a stride, and the statistics of the timings.

use super::{FLOAT_BYTES, MAX_REPS, MAX_STRIDE, TARGET_PASS_MS, TIMER_RESOLUTION_MS};
use crate::model::inputs::Inputs;
use crate::model::sectors::{analyze, Ratio};
use serde::Serialize;

/// The hash's multiplier (Knuth's multiplicative constant); the WGSL writes the same.
pub const HASH_MULTIPLIER: u32 = 2_654_435_761;
/// The hash's shift; the WGSL writes the same.
pub const HASH_SHIFT: u32 = 15;

/// The value the kernel stores at f32 word `word`: a hash of the index, 0 to 255, written as
/// an f32. The WGSL's `value_at` is the same function.
///
/// ```
/// use coalescing_lab::model::probe::value_at;
/// assert!((0..1000).all(|w| value_at(w) < 256));
/// assert_ne!(value_at(1), value_at(2));
/// ```
pub fn value_at(word: u32) -> u32 {
    let h = word.wrapping_mul(HASH_MULTIPLIER);
    (h ^ (h >> HASH_SHIFT)) & 255
}

/// The sum the checked kernel must write for a dispatch starting at `base` bytes: the values at
/// `base + i × stride` for `i < n`, wrapped to 32 bits as the GPU's atomics wrap.
pub fn expected_checksum(base: u64, stride: u32, n: u32) -> u32 {
    let first = (base / FLOAT_BYTES) as u32;
    let step = stride / FLOAT_BYTES as u32;
    (0..n).fold(0u32, |sum, i| {
        sum.wrapping_add(value_at(first.wrapping_add(i.wrapping_mul(step))))
    })
}

/// The sector model's view of one stride, per warp of [`WARP_LANES`] lanes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// Bytes between consecutive lanes' 4-byte floats.
    pub stride: u32,
    /// Useful bytes per warp: 32 lanes × 4 B.
    pub useful_bytes: u64,
    /// Distinct 32-byte sectors per warp.
    pub sectors: u64,
    /// Sectors × 32 B.
    pub transferred_bytes: u64,
    /// Useful ÷ transferred.
    pub fraction: Ratio,
    /// Byte address of each lane, relative to the warp's first.
    pub addresses: Vec<u64>,
}

/// The calculator's inputs for one warp of the probe: lane `t` reads the float at
/// `t × stride` bytes.
pub fn warp_inputs(stride: u32) -> Inputs {
    Inputs {
        idx: format!("{}*t", stride / FLOAT_BYTES as u32),
        ..Inputs::default()
    }
}

/// Predicts one stride with the calculator's own analysis.
///
/// ```
/// use coalescing_lab::model::probe::predict;
/// assert_eq!(predict(4).sectors, 4);
/// assert_eq!(predict(32).sectors, 32);
/// assert_eq!(predict(128).fraction.value(), 0.125);
/// ```
pub fn predict(stride: u32) -> Prediction {
    let stride = stride.clamp(4, MAX_STRIDE) / 4 * 4;
    let analysis = analyze(&warp_inputs(stride)).unwrap_or_else(|_| {
        // The inputs are built from a checked stride, so this is unreachable; fall back to
        // the closed form rather than panic.
        crate::model::sectors::analyze_repaired(&Inputs::default())
    });
    let t = &analysis.totals;
    Prediction {
        stride,
        useful_bytes: t.requested_bytes,
        sectors: t.sectors,
        transferred_bytes: t.transferred_bytes,
        fraction: t
            .efficiency()
            .unwrap_or(Ratio { numerator: 1, denominator: 1 }),
        addresses: analysis
            .lanes
            .iter()
            .filter_map(|l| l.access.as_ref().map(|a| a.address))
            .collect(),
    }
}

/// Median, min and max of a set of samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// The middle sample, or the mean of the middle two; in the samples' unit (ms per dispatch).
    pub median: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
}

/// The statistics of `samples`; `None` when there are none or one is not finite. An even
/// count takes the mean of the middle two.
///
/// ```
/// use coalescing_lab::model::probe::stats;
/// let s = stats(&[3.0, 1.0, 2.0, 10.0]).unwrap();
/// assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 10.0));
/// assert_eq!(stats(&[]), None);
/// ```
pub fn stats(samples: &[f64]) -> Option<Stats> {
    if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    };
    Some(Stats {
        median,
        min: sorted[0],
        max: sorted[sorted.len() - 1],
    })
}

/// Dispatches per timed pass so that a pass lasts about [`TARGET_PASS_MS`], given one
/// dispatch's time measured over a pass of `reps` dispatches. A pass shorter than the timer's
/// resolution (about 0.1 ms in browsers) says only that a dispatch took less than 0.1 ms ÷
/// `reps`, so the estimate never assumes less: a first, one-dispatch pass can ask for at most
/// 120 dispatches, and the next, longer pass then gives a trustworthy figure.
///
/// ```
/// use coalescing_lab::model::probe::reps_for;
/// assert_eq!(reps_for(0.5, 1), 24);
/// assert_eq!(reps_for(40.0, 1), 1);
/// // Below the timer's resolution: at most 120 from one dispatch...
/// assert_eq!(reps_for(0.0, 1), 120);
/// // ...and from a 120-dispatch pass of 5 µs each, the full count.
/// assert_eq!(reps_for(0.005, 120), 2400);
/// ```
pub fn reps_for(dispatch_ms: f64, reps: u32) -> u32 {
    let resolution = TIMER_RESOLUTION_MS / f64::from(reps.max(1));
    let per = if dispatch_ms.is_finite() {
        dispatch_ms.max(resolution)
    } else {
        resolution
    };
    ((TARGET_PASS_MS / per).ceil() as u32).clamp(1, MAX_REPS)
}
