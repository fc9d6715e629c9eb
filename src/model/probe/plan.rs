//! Sizing a run within a device's limits before anything is allocated, and where each
//! repetition of a stride starts reading.

use super::Config;
use super::{
    ProbeError, ProbeField, ALIGN_BYTES, BASE_SLOTS, BUFFER_CAP_BYTES, FLOAT_BYTES, MAX_N, MIN_N,
    SECTOR_BYTES, WORKGROUP_INVOCATIONS,
};
use crate::model::format::size_text;
use serde::Serialize;

/// The device limits the probe sizes itself by (WebGPU's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Largest buffer the device allocates, in bytes.
    #[serde(rename = "maxBufferSize")]
    pub max_buffer_size: u64,
    /// Largest storage-buffer binding, in bytes; with `max_buffer_size` it caps the data buffer.
    #[serde(rename = "maxStorageBufferBindingSize")]
    pub max_storage_buffer_binding_size: u64,
    /// Most workgroups one dispatch may have along one dimension: it caps `n` ÷ workgroup size.
    #[serde(rename = "maxComputeWorkgroupsPerDimension")]
    pub max_compute_workgroups_per_dimension: u32,
}

impl Limits {
    /// WebGPU's default limits: what every adapter offers at least.
    pub const DEFAULT: Limits = Limits {
        max_buffer_size: 256 << 20,
        max_storage_buffer_binding_size: 128 << 20,
        max_compute_workgroups_per_dimension: 65535,
    };

    /// The largest data buffer the probe will make: within both buffer limits and
    /// [`BUFFER_CAP_BYTES`], rounded down to [`ALIGN_BYTES`].
    pub fn largest_buffer(&self) -> u64 {
        let cap = self
            .max_buffer_size
            .min(self.max_storage_buffer_binding_size)
            .min(BUFFER_CAP_BYTES);
        cap / ALIGN_BYTES * ALIGN_BYTES
    }
}

/// Bytes the data buffer needs for `n` floats at `stride`, with room for every base slot to
/// start at a different aligned offset.
fn bytes_needed(n: u32, stride: u32) -> u64 {
    u64::from(n) * u64::from(stride) + u64::from(BASE_SLOTS - 1) * ALIGN_BYTES
}

/// What one run allocates and dispatches, decided before anything is allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Lane strides in bytes, ascending without repeats, as checked from the `strides` field.
    pub strides: Vec<u32>,
    /// Useful floats per dispatch, the same for every stride.
    pub n: u32,
    /// Whether `n` was chosen from the device's limits (the field was empty).
    pub n_from_limits: bool,
    /// Bytes of the data buffer.
    pub buffer_bytes: u64,
    /// Workgroups of one dispatch.
    pub workgroups: u32,
}

/// Sizes a run within `limits`: the largest power-of-two `n` up to 2^20 when none is given,
/// and a clear error (naming the field) when a given size cannot fit.
///
/// ```
/// use coalescing_lab::model::probe::{plan, Config, Limits};
/// let config = Config { strides: vec![4, 32, 64, 128], n: None };
/// // WebGPU's default limits bind 128 MiB: 2^20 floats at 128 B would need 128 MiB + slack.
/// assert_eq!(plan(&config, &Limits::DEFAULT).unwrap().n, 1 << 19);
/// let big = Config { strides: vec![4096], n: Some(1 << 20) };
/// let error = plan(&big, &Limits::DEFAULT).unwrap_err();
/// assert_eq!(error.field.param(), "n");
/// ```
pub fn plan(config: &Config, limits: &Limits) -> Result<Plan, ProbeError> {
    let widest = config.strides.iter().copied().max().unwrap_or(4);
    let largest = limits.largest_buffer();
    let fits = |n: u32| bytes_needed(n, widest) <= largest;
    let (n, n_from_limits) = match config.n {
        Some(n) if fits(n) => (n, false),
        Some(n) => {
            let most = largest.saturating_sub(bytes_needed(0, widest)) / u64::from(widest);
            return Err(ProbeError::new(
                ProbeField::N,
                format!(
                    "{n} floats at the {widest}-byte stride need a {} buffer, more than this device's largest ({}); use n ≤ {} or smaller strides",
                    size_text(bytes_needed(n, widest)),
                    size_text(largest),
                    most.min(u64::from(MAX_N)),
                ),
            ));
        }
        None => {
            let mut n = MAX_N;
            while n > MIN_N && !fits(n) {
                n /= 2;
            }
            if !fits(n) {
                return Err(ProbeError::new(ProbeField::Strides, format!(
                        "a {widest}-byte stride needs more than this device's largest buffer ({}) even for {MIN_N} floats",
                        size_text(largest)
                    )));
            }
            (n, true)
        }
    };
    let workgroups = n.div_ceil(WORKGROUP_INVOCATIONS);
    if workgroups > limits.max_compute_workgroups_per_dimension {
        return Err(ProbeError::new(
            ProbeField::N,
            format!(
                "{n} floats need {workgroups} workgroups, more than this device dispatches ({})",
                limits.max_compute_workgroups_per_dimension
            ),
        ));
    }
    // Room for BASE_SLOTS disjoint contiguous windows, so the contiguous case does not read
    // one cache-resident window over and over; at least what the widest stride needs.
    let wanted = bytes_needed(n, widest).max(u64::from(BASE_SLOTS) * u64::from(n) * FLOAT_BYTES);
    let buffer_bytes = wanted
        .div_ceil(ALIGN_BYTES)
        .saturating_mul(ALIGN_BYTES)
        .min(largest);
    Ok(Plan {
        strides: config.strides.clone(),
        n,
        n_from_limits,
        buffer_bytes,
        workgroups,
    })
}

impl Plan {
    /// The byte offsets the [`BASE_SLOTS`] repetitions of `stride` start at, so that
    /// successive repetitions read different memory and the GPU's caches cannot serve them:
    ///
    /// - first, whole disjoint windows of `n × stride` bytes, as many as the buffer holds;
    /// - then, where there are fewer than [`BASE_SLOTS`] windows, the same windows shifted by
    ///   whole 32 B sectors. For strides of 64 B and more, a shift by fewer sectors than the
    ///   stride spans lands every load in a sector no other shift uses.
    ///
    /// Every offset is a multiple of the 32 B sector, so each warp touches exactly the sectors
    /// the model predicts, and every read stays inside the buffer.
    ///
    /// ```
    /// use coalescing_lab::model::probe::{plan, Config, Limits};
    /// let p = plan(&Config { strides: vec![4, 128], n: Some(1024) }, &Limits::DEFAULT).unwrap();
    /// // Contiguous: 4 KiB windows, side by side.
    /// assert_eq!(&p.bases(4)[..3], [0, 4096, 8192]);
    /// // 128 B: the buffer holds one 128 KiB window, so the pattern moves a sector at a time.
    /// assert_eq!(&p.bases(128)[..3], [0, 32, 64]);
    /// ```
    pub fn bases(&self, stride: u32) -> Vec<u64> {
        let span = u64::from(self.n) * u64::from(stride);
        // Windows start on sector boundaries.
        let window = span.div_ceil(SECTOR_BYTES).max(1) * SECTOR_BYTES;
        let slots = u64::from(BASE_SLOTS);
        // The last slot's sector shift, 15 × 32 B, must fit after the last window.
        let shift_room = (slots - 1) * SECTOR_BYTES;
        let windows = (self.buffer_bytes.saturating_sub(span + shift_room) / window + 1).min(slots);
        (0..slots)
            .map(|k| (k % windows) * window + (k / windows) * SECTOR_BYTES)
            .collect()
    }

    /// The uniform buffer for `stride`: [`BASE_SLOTS`] slots, [`ALIGN_BYTES`] bytes apart, each
    /// starting with the WGSL's `Params` as little-endian `u32` words: the first f32 word read
    /// (the slot's base ÷ 4), the stride in f32 words, `n`, and padding. The rest of each slot is
    /// zero.
    ///
    /// ```
    /// use coalescing_lab::model::probe::{plan, Config, Limits, ALIGN_BYTES, BASE_SLOTS};
    /// let p = plan(&Config { strides: vec![4, 128], n: Some(1024) }, &Limits::DEFAULT).unwrap();
    /// let bytes = p.uniforms(128);
    /// assert_eq!(bytes.len() as u64, u64::from(BASE_SLOTS) * ALIGN_BYTES);
    /// // Slot 1 starts a sector (32 B, 8 words) after slot 0: base 8, stride 32 words, n 1024.
    /// assert_eq!(bytes[256..272], [8, 0, 0, 0, 32, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0]);
    /// ```
    pub fn uniforms(&self, stride: u32) -> Vec<u8> {
        let slot_bytes = ALIGN_BYTES as usize;
        let mut bytes = vec![0u8; BASE_SLOTS as usize * slot_bytes];
        for (slot, base) in self.bases(stride).iter().enumerate() {
            let words = [
                (base / FLOAT_BYTES) as u32,
                stride / FLOAT_BYTES as u32,
                self.n,
                0,
            ];
            for (k, word) in words.iter().enumerate() {
                let at = slot * slot_bytes + k * 4;
                if let Some(out) = bytes.get_mut(at..at + 4) {
                    out.copy_from_slice(&word.to_le_bytes());
                }
            }
        }
        bytes
    }

    /// Useful bytes one dispatch reads.
    pub fn useful_bytes(&self) -> u64 {
        u64::from(self.n) * FLOAT_BYTES
    }
}
