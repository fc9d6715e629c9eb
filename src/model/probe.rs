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

use super::format::percent;
use super::inputs::Inputs;
use super::roofline::number;
use super::sectors::{analyze, Ratio};
use serde::Serialize;
use std::fmt;

/// Lanes per warp the prediction assumes.
pub const WARP: u32 = 32;
/// Sector size in bytes the prediction assumes.
pub const SECTOR: u64 = 32;
/// Bytes of one useful value (an f32).
pub const FLOAT: u64 = 4;
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
pub const WORKGROUP: u32 = 64;
/// Distinct base offsets a timed pass cycles through, one per uniform slot.
pub const BASE_SLOTS: u32 = 16;
/// Alignment of base offsets and uniform slots in bytes (WebGPU's default
/// `minUniformBufferOffsetAlignment`).
pub const ALIGN: u64 = 256;
/// The data buffer never exceeds this, whatever the device allows: 1 GiB.
pub const BUFFER_CAP: u64 = 1 << 30;
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

/// The probe's fields as typed, one string per URL parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeInputs {
    /// `strides`: comma-separated lane strides in bytes.
    pub strides: String,
    /// `n`: useful floats per dispatch; empty means as many as the device allows.
    pub n: String,
}

impl Default for ProbeInputs {
    fn default() -> ProbeInputs {
        ProbeInputs {
            strides: DEFAULT_STRIDES.into(),
            n: String::new(),
        }
    }
}

/// One field of the probe, named by its URL parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeField {
    Strides,
    N,
}

impl ProbeField {
    /// The URL parameter: a public contract.
    pub fn param(self) -> &'static str {
        match self {
            ProbeField::Strides => "strides",
            ProbeField::N => "n",
        }
    }
}

/// A problem with one field, worded to say what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeError {
    pub field: ProbeField,
    pub message: String,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field.param(), self.message)
    }
}

/// The probe's checked configuration: strides ascending without repeats, and `n` if given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub strides: Vec<u32>,
    pub n: Option<u32>,
}

impl ProbeInputs {
    /// Checks both fields; every error names its field.
    ///
    /// ```
    /// use coalescing_lab::model::probe::ProbeInputs;
    /// let ok = ProbeInputs { strides: "128, 4,32,32".into(), n: "4096".into() }.check().unwrap();
    /// assert_eq!((ok.strides, ok.n), (vec![4, 32, 128], Some(4096)));
    /// let bad = ProbeInputs { strides: "4,6".into(), n: "lots".into() }.check().unwrap_err();
    /// assert_eq!(bad[0].to_string(), "strides: 6 is not a multiple of 4 bytes; each stride must be 4 to 4096, a multiple of 4.");
    /// assert!(bad[1].to_string().starts_with("n: "));
    /// ```
    pub fn check(&self) -> Result<Config, Vec<ProbeError>> {
        let strides = parse_strides(&self.strides);
        let n = parse_n(&self.n);
        match (strides, n) {
            (Ok(strides), Ok(n)) => Ok(Config { strides, n }),
            (strides, n) => Err([strides.err(), n.err()].into_iter().flatten().collect()),
        }
    }
}

const STRIDE_RULE: &str = "each stride must be 4 to 4096, a multiple of 4";

fn parse_strides(text: &str) -> Result<Vec<u32>, ProbeError> {
    let error = |message: String| ProbeError {
        field: ProbeField::Strides,
        message,
    };
    let mut strides = Vec::new();
    for item in text.split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let digits = item.strip_suffix('B').unwrap_or(item).trim();
        let Some(stride) = digits
            .parse::<u32>()
            .ok()
            .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
        else {
            return Err(error(format!(
                "'{}' is not a whole number of bytes; {STRIDE_RULE}.",
                shorten(item)
            )));
        };
        if !(4..=MAX_STRIDE).contains(&stride) {
            return Err(error(format!("{stride} is out of range; {STRIDE_RULE}.")));
        }
        if stride % 4 != 0 {
            return Err(error(format!(
                "{stride} is not a multiple of 4 bytes; {STRIDE_RULE}."
            )));
        }
        strides.push(stride);
    }
    strides.sort_unstable();
    strides.dedup();
    if strides.is_empty() {
        return Err(error(format!(
            "give at least one stride, e.g. {DEFAULT_STRIDES}; {STRIDE_RULE}."
        )));
    }
    if strides.len() > MAX_STRIDES {
        return Err(error(format!(
            "{} strides is too many; give at most {MAX_STRIDES}.",
            strides.len()
        )));
    }
    Ok(strides)
}

fn parse_n(text: &str) -> Result<Option<u32>, ProbeError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u32>() {
        Ok(n) if (MIN_N..=MAX_N).contains(&n) && text.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Some(n))
        }
        _ => Err(ProbeError {
            field: ProbeField::N,
            message: format!(
                "'{}' is not a whole number from {MIN_N} to {MAX_N} (2^20); leave it empty for as many as the device allows.",
                shorten(text)
            ),
        }),
    }
}

/// At most 24 characters of what was typed, for quoting it back.
fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(24).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// The device limits the probe sizes itself by (WebGPU's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    #[serde(rename = "maxBufferSize")]
    pub max_buffer_size: u64,
    #[serde(rename = "maxStorageBufferBindingSize")]
    pub max_storage_buffer_binding_size: u64,
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
    /// [`BUFFER_CAP`], rounded down to [`ALIGN`].
    pub fn largest_buffer(&self) -> u64 {
        let cap = self
            .max_buffer_size
            .min(self.max_storage_buffer_binding_size)
            .min(BUFFER_CAP);
        cap / ALIGN * ALIGN
    }
}

/// Bytes the data buffer needs for `n` floats at `stride`, with room for every base slot to
/// start at a different aligned offset.
fn bytes_needed(n: u32, stride: u32) -> u64 {
    u64::from(n) * u64::from(stride) + u64::from(BASE_SLOTS - 1) * ALIGN
}

/// What one run allocates and dispatches, decided before anything is allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
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
            return Err(ProbeError {
                field: ProbeField::N,
                message: format!(
                    "{n} floats at the {widest}-byte stride need a {} buffer, more than this device's largest ({}); use n ≤ {} or smaller strides.",
                    size_text(bytes_needed(n, widest)),
                    size_text(largest),
                    most.min(u64::from(MAX_N)),
                ),
            });
        }
        None => {
            let mut n = MAX_N;
            while n > MIN_N && !fits(n) {
                n /= 2;
            }
            if !fits(n) {
                return Err(ProbeError {
                    field: ProbeField::Strides,
                    message: format!(
                        "a {widest}-byte stride needs more than this device's largest buffer ({}) even for {MIN_N} floats.",
                        size_text(largest)
                    ),
                });
            }
            (n, true)
        }
    };
    let workgroups = n.div_ceil(WORKGROUP);
    if workgroups > limits.max_compute_workgroups_per_dimension {
        return Err(ProbeError {
            field: ProbeField::N,
            message: format!(
                "{n} floats need {workgroups} workgroups, more than this device dispatches ({}).",
                limits.max_compute_workgroups_per_dimension
            ),
        });
    }
    // Room for BASE_SLOTS disjoint contiguous windows, so the contiguous case does not read
    // one cache-resident window over and over; at least what the widest stride needs.
    let wanted = bytes_needed(n, widest).max(u64::from(BASE_SLOTS) * u64::from(n) * FLOAT);
    let buffer_bytes = wanted.div_ceil(ALIGN).saturating_mul(ALIGN).min(largest);
    Ok(Plan {
        strides: config.strides.clone(),
        n,
        n_from_limits,
        buffer_bytes,
        workgroups,
    })
}

/// Bytes as people read them: `128 MiB`, `4 GiB`, `512 KiB`, or plain bytes.
///
/// ```
/// use coalescing_lab::model::probe::size_text;
/// assert_eq!(size_text(128 << 20), "128 MiB");
/// assert_eq!(size_text((4 << 30) + 3840), "4 GiB");
/// assert_eq!(size_text((64 << 20) + 3840), "64 MiB");
/// assert_eq!(size_text(528_128), "515.8 KiB");
/// assert_eq!(size_text(1000), "1000 B");
/// ```
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if bytes >= size {
            return format!("{} {unit}", number(round_to(bytes as f64 / size as f64, 1)));
        }
    }
    format!("{bytes} B")
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
        let window = span.div_ceil(SECTOR).max(1) * SECTOR;
        let slots = u64::from(BASE_SLOTS);
        // The last slot's sector shift, 15 × 32 B, must fit after the last window.
        let shift_room = (slots - 1) * SECTOR;
        let windows = (self.buffer_bytes.saturating_sub(span + shift_room) / window + 1).min(slots);
        (0..slots)
            .map(|k| (k % windows) * window + (k / windows) * SECTOR)
            .collect()
    }

    /// Useful bytes one dispatch reads.
    pub fn useful_bytes(&self) -> u64 {
        u64::from(self.n) * FLOAT
    }
}

/// The value the kernel stores at f32 word `word`: a hash of the index, 0 to 255, written as
/// an f32. The WGSL's `value_at` is the same function.
///
/// ```
/// use coalescing_lab::model::probe::value_at;
/// assert!((0..1000).all(|w| value_at(w) < 256));
/// assert_ne!(value_at(1), value_at(2));
/// ```
pub fn value_at(word: u32) -> u32 {
    let h = word.wrapping_mul(2_654_435_761);
    (h ^ (h >> 15)) & 255
}

/// The sum the checked kernel must write for a dispatch starting at `base` bytes: the values at
/// `base + i × stride` for `i < n`, wrapped to 32 bits as the GPU's atomics wrap.
pub fn expected_checksum(base: u64, stride: u32, n: u32) -> u32 {
    let first = (base / FLOAT) as u32;
    let step = stride / FLOAT as u32;
    (0..n).fold(0u32, |sum, i| {
        sum.wrapping_add(value_at(first.wrapping_add(i.wrapping_mul(step))))
    })
}

/// The sector model's view of one stride, per warp of [`WARP`] lanes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
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
        idx: format!("{}*t", stride / FLOAT as u32),
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
        fraction: t.efficiency().unwrap_or(Ratio {
            numerator: 1,
            denominator: 1,
        }),
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
    pub median: f64,
    pub min: f64,
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

/// How the probe timed its passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Timer {
    /// GPU timestamps at the start and end of the compute pass (`timestamp-query`).
    #[serde(rename = "timestamp-query")]
    Timestamps,
    /// `performance.now()` around `submit` and `onSubmittedWorkDone`: an upper bound.
    #[serde(rename = "submit-to-done upper bound")]
    WallClock,
}

impl Timer {
    /// How the times were taken, for the page and the exports.
    pub fn text(self) -> &'static str {
        match self {
            Timer::Timestamps => {
                "GPU timestamps around one compute pass (timestamp-query), divided by its dispatches"
            }
            Timer::WallClock => {
                "an upper bound: performance.now() from submit to onSubmittedWorkDone, divided by the pass's dispatches (no timestamp-query)"
            }
        }
    }
}

/// What the browser says of the adapter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AdapterInfo {
    pub vendor: String,
    pub architecture: String,
    pub device: String,
    pub description: String,
    /// The browser reports a fallback (software) adapter.
    #[serde(rename = "isFallbackAdapter")]
    pub fallback: bool,
    /// `timestamp-query` is available.
    #[serde(rename = "timestampQuery")]
    pub timestamps: bool,
}

impl AdapterInfo {
    /// Whether the numbers say nothing about a GPU: a fallback adapter, or one whose name is
    /// a known software renderer.
    pub fn is_software(&self) -> bool {
        const SOFTWARE: [&str; 4] = ["swiftshader", "llvmpipe", "lavapipe", "basic render"];
        let names = format!("{} {} {}", self.architecture, self.device, self.description)
            .to_ascii_lowercase();
        self.fallback || SOFTWARE.iter().any(|s| names.contains(s))
    }

    /// One line naming the adapter: vendor and architecture, or what is known.
    ///
    /// ```
    /// use coalescing_lab::model::probe::AdapterInfo;
    /// let sw = AdapterInfo { vendor: "google".into(), architecture: "swiftshader".into(), ..Default::default() };
    /// assert_eq!(sw.name(), "google swiftshader");
    /// assert_eq!(AdapterInfo::default().name(), "an adapter that does not name itself");
    /// ```
    pub fn name(&self) -> String {
        let parts: Vec<&str> = [&self.vendor, &self.architecture, &self.description]
            .into_iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect();
        if parts.is_empty() {
            "an adapter that does not name itself".into()
        } else {
            parts.join(" ")
        }
    }
}

/// What the GPU side measured for one stride.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub stride: u32,
    /// What the checked passes summed (at the first and the last base offset, added), and
    /// what they should have.
    pub checksum: u32,
    pub expected: u32,
    /// Dispatches per timed pass.
    pub reps: u32,
    /// Milliseconds per dispatch (a pass's time ÷ its dispatches), one per measured pass, in
    /// the order run.
    pub samples_ms: Vec<f64>,
}

impl Measurement {
    pub fn checksum_ok(&self) -> bool {
        self.checksum == self.expected
    }
}

/// One row of the results: prediction and measurement side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub prediction: Prediction,
    pub measurement: Measurement,
    /// Per-dispatch time; `None` when the checksum failed (a wrong sum is never a number).
    pub time: Option<Stats>,
    /// Useful GB/s at the median time.
    pub useful_gbps: Option<f64>,
    /// Useful GB/s ÷ predicted fraction: the traffic the model says moved.
    pub implied_gbps: Option<f64>,
    /// Median time ÷ the reference stride's.
    pub measured_slowdown: Option<f64>,
    /// Reference fraction ÷ this fraction: predicted sectors ÷ the reference's.
    pub predicted_slowdown: f64,
}

/// The results of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub plan: Plan,
    pub timer: Timer,
    pub adapter: AdapterInfo,
    pub limits: Limits,
    /// The browser's user agent.
    pub browser: String,
    pub rows: Vec<Row>,
}

impl Report {
    /// Puts predictions beside measurements. The reference for slowdowns is the smallest
    /// stride (4 B, contiguous, by default).
    pub fn new(
        plan: Plan,
        timer: Timer,
        adapter: AdapterInfo,
        limits: Limits,
        browser: String,
        measurements: Vec<Measurement>,
    ) -> Report {
        let useful = plan.useful_bytes() as f64;
        let mut rows: Vec<Row> = measurements
            .into_iter()
            .map(|m| {
                let time = if m.checksum_ok() {
                    stats(&m.samples_ms)
                } else {
                    None
                };
                let prediction = predict(m.stride);
                let useful_gbps = time
                    .filter(|t| t.median > 0.0)
                    .map(|t| useful / (t.median * 1e-3) / 1e9);
                Row {
                    implied_gbps: useful_gbps.map(|g| g / prediction.fraction.value()),
                    prediction,
                    measurement: m,
                    time,
                    useful_gbps,
                    measured_slowdown: None,
                    predicted_slowdown: 1.0,
                }
            })
            .collect();
        rows.sort_by_key(|r| r.measurement.stride);
        if let Some(reference) = rows.first().cloned() {
            for row in &mut rows {
                row.predicted_slowdown =
                    reference.prediction.fraction.value() / row.prediction.fraction.value();
                row.measured_slowdown = match (row.time, reference.time) {
                    (Some(t), Some(r)) if r.median > 0.0 => Some(t.median / r.median),
                    _ => None,
                };
            }
        }
        Report {
            plan,
            timer,
            adapter,
            limits,
            browser,
            rows,
        }
    }

    /// The reference stride's name in sentences: "contiguous" or "the 8 B stride".
    fn reference(&self) -> String {
        match self.rows.first().map(|r| r.measurement.stride) {
            Some(4) | None => "contiguous".into(),
            Some(s) => format!("the {s} B stride"),
        }
    }

    /// A short reading of the result, one sentence per stride after the reference, then
    /// any checksum failure.
    ///
    /// ```
    /// use coalescing_lab::model::probe::*;
    /// let plan = plan(&Config { strides: vec![4, 128], n: Some(1024) }, &Limits::DEFAULT).unwrap();
    /// let m = |stride, ms| Measurement { stride, checksum: 0, expected: 0, reps: 1, samples_ms: vec![ms] };
    /// let report = Report::new(plan, Timer::Timestamps, AdapterInfo::default(), Limits::DEFAULT,
    ///     String::new(), vec![m(4, 1.0), m(128, 6.8)]);
    /// assert_eq!(report.reading(), ["128 B stride ran 6.8× slower than contiguous; the sector model predicts 8×."]);
    /// ```
    pub fn reading(&self) -> Vec<String> {
        let reference = self.reference();
        let mut out = Vec::new();
        for row in self.rows.iter().skip(1) {
            let stride = row.measurement.stride;
            let predicted = number(round_to(row.predicted_slowdown, 2));
            match row.measured_slowdown {
                Some(x) if (x - 1.0).abs() < 0.05 => out.push(format!(
                    "{stride} B stride ran about as fast as {reference}; the sector model predicts {predicted}× slower."
                )),
                Some(x) if x >= 1.0 => out.push(format!(
                    "{stride} B stride ran {}× slower than {reference}; the sector model predicts {predicted}×.",
                    number(round_to(x, 1))
                )),
                Some(x) => out.push(format!(
                    "{stride} B stride ran {}× faster than {reference}; the sector model predicts {predicted}× slower.",
                    number(round_to(1.0 / x, 1))
                )),
                None => {}
            }
        }
        for row in self.rows.iter().filter(|r| !r.measurement.checksum_ok()) {
            out.push(format!(
                "{} B stride: the checksum was {}, expected {}; its loads read wrong values, so no time is reported.",
                row.measurement.stride, row.measurement.checksum, row.measurement.expected
            ));
        }
        out
    }

    /// The evidence as CSV: a header block of `#` comments (adapter, browser, timer, n), then
    /// one row per stride and lane: the warp's address table beside the stride's figures.
    pub fn csv(&self) -> String {
        let mut out = String::new();
        let a = &self.adapter;
        for (key, value) in [
            ("adapter", a.name()),
            ("fallback adapter", a.is_software().to_string()),
            ("browser", self.browser.clone()),
            ("timer", self.timer.text().to_string()),
            ("useful floats per dispatch (n)", self.plan.n.to_string()),
            (
                "model",
                format!("{WARP} lanes per warp, {SECTOR} B sectors"),
            ),
        ] {
            out.push_str(&format!("# {key}: {}\n", value.replace(['\n', '\r'], " ")));
        }
        out.push_str("stride_bytes,requested_bytes_per_warp,predicted_sectors_per_warp,transferred_bytes_per_warp,useful_fraction,checksum_ok,median_ms,min_ms,max_ms,raw_ms,useful_gbps,implied_transferred_gbps,measured_slowdown,predicted_slowdown,lane,lane_address,lane_sector\n");
        let opt = |v: Option<f64>| v.map(number).unwrap_or_default();
        for row in &self.rows {
            let p = &row.prediction;
            let m = &row.measurement;
            let raw: Vec<String> = m.samples_ms.iter().map(|s| number(*s)).collect();
            for (lane, address) in p.addresses.iter().enumerate() {
                out.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{lane},{address},{}\n",
                    m.stride,
                    p.useful_bytes,
                    p.sectors,
                    p.transferred_bytes,
                    number(p.fraction.value()),
                    m.checksum_ok(),
                    opt(row.time.map(|t| t.median)),
                    opt(row.time.map(|t| t.min)),
                    opt(row.time.map(|t| t.max)),
                    raw.join(" "),
                    opt(row.useful_gbps),
                    opt(row.implied_gbps),
                    opt(row.measured_slowdown),
                    number(row.predicted_slowdown),
                    address / SECTOR,
                ));
            }
        }
        out
    }

    /// The evidence as JSON: adapter, limits, browser, timer, and per stride the warp's
    /// address table, raw timings, requested and transferred bytes, and useful ÷ physical.
    pub fn json(&self) -> String {
        let evidence = Evidence {
            tool: "Coalescing Lab strided-load probe",
            model: ModelNote {
                lanes_per_warp: WARP,
                sector_bytes: SECTOR,
                value_bytes: FLOAT,
            },
            adapter: &self.adapter,
            software_adapter: self.adapter.is_software(),
            limits: &self.limits,
            browser: &self.browser,
            timer: self.timer,
            timer_note: self.timer.text(),
            useful_floats_per_dispatch: self.plan.n,
            buffer_bytes: self.plan.buffer_bytes,
            strides: self
                .rows
                .iter()
                .map(|r| StrideEvidence {
                    stride_bytes: r.measurement.stride,
                    warp_addresses: r
                        .prediction
                        .addresses
                        .iter()
                        .enumerate()
                        .map(|(lane, &address)| LaneEvidence {
                            lane: lane as u32,
                            address,
                            sector: address / SECTOR,
                        })
                        .collect(),
                    requested_bytes_per_warp: r.prediction.useful_bytes,
                    predicted_sectors_per_warp: r.prediction.sectors,
                    transferred_bytes_per_warp: r.prediction.transferred_bytes,
                    useful_fraction: r.prediction.fraction.value(),
                    checksum: r.measurement.checksum,
                    expected_checksum: r.measurement.expected,
                    checksum_ok: r.measurement.checksum_ok(),
                    dispatches_per_pass: r.measurement.reps,
                    raw_ms_per_dispatch: &r.measurement.samples_ms,
                    ms_per_dispatch: r.time,
                    useful_gbps: r.useful_gbps,
                    implied_transferred_gbps: r.implied_gbps,
                    measured_slowdown: r.measured_slowdown,
                    predicted_slowdown: r.predicted_slowdown,
                })
                .collect(),
            reading: self.reading(),
        };
        serde_json::to_string_pretty(&evidence).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// `value` rounded to `places` decimals, for sentences.
fn round_to(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

#[derive(Serialize)]
struct Evidence<'a> {
    tool: &'static str,
    model: ModelNote,
    adapter: &'a AdapterInfo,
    software_adapter: bool,
    limits: &'a Limits,
    browser: &'a str,
    timer: Timer,
    timer_note: &'static str,
    useful_floats_per_dispatch: u32,
    buffer_bytes: u64,
    strides: Vec<StrideEvidence<'a>>,
    reading: Vec<String>,
}

#[derive(Serialize)]
struct ModelNote {
    lanes_per_warp: u32,
    sector_bytes: u64,
    value_bytes: u64,
}

#[derive(Serialize)]
struct LaneEvidence {
    lane: u32,
    address: u64,
    sector: u64,
}

#[derive(Serialize)]
struct StrideEvidence<'a> {
    stride_bytes: u32,
    warp_addresses: Vec<LaneEvidence>,
    requested_bytes_per_warp: u64,
    predicted_sectors_per_warp: u64,
    transferred_bytes_per_warp: u64,
    useful_fraction: f64,
    checksum: u32,
    expected_checksum: u32,
    checksum_ok: bool,
    dispatches_per_pass: u32,
    raw_ms_per_dispatch: &'a [f64],
    ms_per_dispatch: Option<Stats>,
    useful_gbps: Option<f64>,
    implied_transferred_gbps: Option<f64>,
    measured_slowdown: Option<f64>,
    predicted_slowdown: f64,
}

/// A row of the results table, worded; the `data-*` values are machine-readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowText {
    pub stride: String,
    /// `data-stride`: the stride in bytes, a plain number.
    pub stride_value: String,
    pub useful_bytes: String,
    pub sectors: String,
    pub fraction: String,
    pub median_ms: String,
    pub spread_ms: String,
    pub useful_gbps: String,
    pub implied_gbps: String,
    pub measured_slowdown: String,
    pub predicted_slowdown: String,
    /// `data-checksum-ok`: `true`, `false`, or empty before a run.
    pub checksum_ok: String,
    /// The checksum cell, worded.
    pub checksum: String,
    /// `data-median-ms` and `data-useful-gbps`: plain numbers, empty when undefined.
    pub median_value: String,
    pub gbps_value: String,
}

impl Row {
    /// The row as the table shows it.
    pub fn text(&self) -> RowText {
        let p = &self.prediction;
        let dash = || "—".to_string();
        let ms = |v: f64| number(round_sig(v, 4));
        let gbps = |v: f64| number(round_sig(v, 4));
        let times = |x: f64| format!("{}×", number(round_to(x, 2)));
        RowText {
            stride: format!("{} B", self.measurement.stride),
            stride_value: self.measurement.stride.to_string(),
            useful_bytes: format!("{} B", p.useful_bytes),
            sectors: p.sectors.to_string(),
            fraction: percent(Some(p.fraction)),
            median_ms: self.time.map(|t| ms(t.median)).unwrap_or_else(dash),
            spread_ms: self
                .time
                .map(|t| format!("{} – {}", ms(t.min), ms(t.max)))
                .unwrap_or_else(dash),
            useful_gbps: self.useful_gbps.map(gbps).unwrap_or_else(dash),
            implied_gbps: self.implied_gbps.map(gbps).unwrap_or_else(dash),
            measured_slowdown: self.measured_slowdown.map(times).unwrap_or_else(dash),
            predicted_slowdown: times(self.predicted_slowdown),
            checksum_ok: self.measurement.checksum_ok().to_string(),
            checksum: if self.measurement.checksum_ok() {
                "✓ matches".into()
            } else {
                "✗ wrong".into()
            },
            median_value: self.time.map(|t| number(t.median)).unwrap_or_default(),
            gbps_value: self.useful_gbps.map(number).unwrap_or_default(),
        }
    }
}

/// The table before a run: the model's columns for `strides` (ascending), the measured ones
/// empty.
///
/// ```
/// use coalescing_lab::model::probe::preview;
/// let rows = preview(&[4, 128]);
/// assert_eq!((rows[1].sectors.as_str(), rows[1].predicted_slowdown.as_str()), ("32", "8×"));
/// assert_eq!((rows[1].median_value.as_str(), rows[1].checksum_ok.as_str()), ("", ""));
/// ```
pub fn preview(strides: &[u32]) -> Vec<RowText> {
    let reference = strides.first().map(|&s| predict(s).fraction.value());
    strides
        .iter()
        .map(|&stride| {
            let p = predict(stride);
            let slowdown = reference.map_or(1.0, |r| r / p.fraction.value());
            let dash = || "—".to_string();
            RowText {
                stride: format!("{stride} B"),
                stride_value: stride.to_string(),
                useful_bytes: format!("{} B", p.useful_bytes),
                sectors: p.sectors.to_string(),
                fraction: percent(Some(p.fraction)),
                median_ms: dash(),
                spread_ms: dash(),
                useful_gbps: dash(),
                implied_gbps: dash(),
                measured_slowdown: dash(),
                predicted_slowdown: format!("{}×", number(round_to(slowdown, 2))),
                checksum_ok: String::new(),
                checksum: "not run".into(),
                median_value: String::new(),
                gbps_value: String::new(),
            }
        })
        .collect()
}

/// `value` to `digits` significant digits.
fn round_sig(value: f64, digits: i32) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let magnitude = value.abs().log10().floor() as i32 + 1;
    round_to(value, digits - magnitude)
}

/// (stride in bytes, useful GB/s) pairs.
pub type Points = Vec<(f64, f64)>;

/// The chart's points: measured useful GB/s per stride, and the model's, scaled from the
/// reference stride's measurement by the predicted fractions.
pub fn chart_points(report: &Report) -> (Points, Points) {
    let measured: Vec<(f64, f64)> = report
        .rows
        .iter()
        .filter_map(|r| Some((f64::from(r.measurement.stride), r.useful_gbps?)))
        .collect();
    let reference = report.rows.first().and_then(|r| r.useful_gbps);
    let model = reference
        .map(|g| {
            report
                .rows
                .iter()
                .map(|r| (f64::from(r.measurement.stride), g / r.predicted_slowdown))
                .collect()
        })
        .unwrap_or_default();
    (measured, model)
}

/// The chart's text alternative.
pub fn chart_description(report: &Report) -> String {
    let (measured, model) = chart_points(report);
    if measured.is_empty() {
        return "No stride produced a time, so there is nothing to plot.".into();
    }
    let pairs: Vec<String> = measured
        .iter()
        .map(|(s, g)| {
            let predicted = model
                .iter()
                .find(|(m, _)| m == s)
                .map(|(_, p)| format!(" (model {})", number(round_sig(*p, 3))))
                .unwrap_or_default();
            format!("{s} B: {} GB/s{predicted}", number(round_sig(*g, 3)))
        })
        .collect();
    format!(
        "Useful GB/s against lane stride, measured, with the sector model's prediction scaled from {}: {}.",
        report.reference(),
        pairs.join("; ")
    )
}
