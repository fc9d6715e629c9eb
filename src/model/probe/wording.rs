//! The probe's words: the reading of a result, the results table's text (before and after a
//! run) and the chart's text alternative.

use super::{chart_points, predict, Report, Row, TARGET_PASS_MS};
use crate::model::format::{number, percent, round_sig, round_to};

impl Report {
    /// The reference stride's name in sentences: "contiguous" or "the 8 B stride".
    pub(super) fn reference(&self) -> String {
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
}

/// A row of the results table, worded; the `data-*` values are machine-readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowText {
    /// The stride for people, e.g. `32 B`.
    pub stride: String,
    /// `data-stride`: the stride in bytes, a plain number.
    pub stride_value: String,
    /// Useful bytes per warp from the model, e.g. `128 B`.
    pub useful_bytes: String,
    /// Distinct 32-byte sectors per warp the model predicts.
    pub sectors: String,
    /// Useful ÷ transferred, as a percentage.
    pub fraction: String,
    /// Median ms per dispatch, 4 significant digits; "—" before a run or with a wrong checksum.
    pub median_ms: String,
    /// `min – max` milliseconds per dispatch; "—" when there is no time.
    pub spread_ms: String,
    /// Useful GB/s at the median time; "—" when there is no time.
    pub useful_gbps: String,
    /// Useful GB/s ÷ predicted fraction: what the model says moved; "—" when there is no time.
    pub implied_gbps: String,
    /// Median time ÷ the reference stride's, e.g. `3.9×`; "—" when either has no time.
    pub measured_slowdown: String,
    /// Predicted sectors ÷ the reference stride's, e.g. `8×`.
    pub predicted_slowdown: String,
    /// `data-checksum-ok`: `true`, `false`, or empty before a run.
    pub checksum_ok: String,
    /// The checksum cell, worded.
    pub checksum: String,
    /// `data-median-ms` and `data-useful-gbps`: plain numbers, empty when undefined.
    pub median_value: String,
    /// `data-useful-gbps`: a plain number, empty when undefined.
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

/// The pass length the page promises as a floor, in ms: [`TARGET_PASS_MS`] rounded down to
/// whole tens, because a pass sized from a noisy earlier estimate can fall a little short of
/// the target.
///
/// ```
/// use coalescing_lab::model::probe::{pass_floor_ms, TARGET_PASS_MS};
/// assert_eq!(pass_floor_ms(), 10.0);
/// assert!(pass_floor_ms() <= TARGET_PASS_MS);
/// ```
pub fn pass_floor_ms() -> f64 {
    (TARGET_PASS_MS / 10.0).floor() * 10.0
}
