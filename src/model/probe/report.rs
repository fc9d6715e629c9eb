//! The results of a run: what the GPU side measured, put beside the sector model's
//! prediction, with slowdowns against the smallest stride.

use super::{predict, stats, Limits, Plan, Prediction, Stats};
use serde::Serialize;

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
    /// `GPUAdapterInfo.vendor`, e.g. `nvidia`; may be empty.
    pub vendor: String,
    /// `GPUAdapterInfo.architecture`, e.g. `ampere`; may be empty.
    pub architecture: String,
    /// `GPUAdapterInfo.device`, a vendor-specific id; often empty.
    pub device: String,
    /// `GPUAdapterInfo.description`, a driver-given name; often empty.
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
    /// Bytes between consecutive threads' floats, 4 to 4096.
    pub stride: u32,
    /// What the checked passes summed (at the first and the last base offset, added), and
    /// what they should have.
    pub checksum: u32,
    /// The sum a correct run gives for this stride (`expected_checksum`).
    pub expected: u32,
    /// Dispatches per timed pass.
    pub reps: u32,
    /// Milliseconds per dispatch (a pass's time ÷ its dispatches), one per measured pass, in
    /// the order run.
    pub samples_ms: Vec<f64>,
}

impl Measurement {
    /// Whether the checked passes summed to `expected`; a row with a wrong sum gets no time.
    pub fn checksum_ok(&self) -> bool {
        self.checksum == self.expected
    }
}

/// One row of the results: prediction and measurement side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The sector model's figures for this stride.
    pub prediction: Prediction,
    /// What the GPU side measured for this stride.
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
    /// Strides, `n` and buffer size the run used.
    pub plan: Plan,
    /// How the times were taken.
    pub timer: Timer,
    /// What the browser said of the adapter.
    pub adapter: AdapterInfo,
    /// The adapter's limits the plan was sized by.
    pub limits: Limits,
    /// The browser's user agent.
    pub browser: String,
    /// One row per measured stride, ascending; the first is the slowdowns' reference.
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
