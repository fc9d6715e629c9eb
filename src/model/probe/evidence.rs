//! The evidence exports: CSV (a `#` comment block, then one row per stride and lane) and
//! JSON, both carrying the adapter, the timer, the raw timings and the model's figures.

use super::{AdapterInfo, Limits, Report, Stats, Timer, FLOAT_BYTES, SECTOR_BYTES, WARP_LANES};
use crate::model::csv::Csv;
use crate::model::format::number;
use serde::Serialize;

impl Report {
    /// The evidence as CSV (the one dialect of [`Csv`]: RFC 4180, CRLF): a header block of `#`
    /// comments (adapter, browser, timer, n), then one row per stride and lane: the warp's
    /// address table beside the stride's figures.
    pub fn csv(&self) -> String {
        let mut csv = Csv::default();
        let a = &self.adapter;
        for (key, value) in [
            ("adapter", a.name()),
            ("fallback adapter", a.is_software().to_string()),
            ("browser", self.browser.clone()),
            ("timer", self.timer.text().to_string()),
            ("useful floats per dispatch (n)", self.plan.n.to_string()),
            (
                "model",
                format!("{WARP_LANES} lanes per warp, {SECTOR_BYTES} B sectors"),
            ),
        ] {
            csv.comment(key, &value);
        }
        csv.row([
            "stride_bytes",
            "requested_bytes_per_warp",
            "predicted_sectors_per_warp",
            "transferred_bytes_per_warp",
            "useful_fraction",
            "checksum_ok",
            "median_ms",
            "min_ms",
            "max_ms",
            "raw_ms",
            "useful_gbps",
            "implied_transferred_gbps",
            "measured_slowdown",
            "predicted_slowdown",
            "lane",
            "lane_address",
            "lane_sector",
        ]);
        let opt = |v: Option<f64>| v.map(number).unwrap_or_default();
        for row in &self.rows {
            let p = &row.prediction;
            let m = &row.measurement;
            let raw: Vec<String> = m.samples_ms.iter().map(|s| number(*s)).collect();
            for (lane, address) in p.addresses.iter().enumerate() {
                csv.row([
                    m.stride.to_string(),
                    p.useful_bytes.to_string(),
                    p.sectors.to_string(),
                    p.transferred_bytes.to_string(),
                    number(p.fraction.value()),
                    m.checksum_ok().to_string(),
                    opt(row.time.map(|t| t.median)),
                    opt(row.time.map(|t| t.min)),
                    opt(row.time.map(|t| t.max)),
                    raw.join(" "),
                    opt(row.useful_gbps),
                    opt(row.implied_gbps),
                    opt(row.measured_slowdown),
                    number(row.predicted_slowdown),
                    lane.to_string(),
                    address.to_string(),
                    (address / SECTOR_BYTES).to_string(),
                ]);
            }
        }
        csv.finish()
    }

    /// The evidence as JSON: adapter, limits, browser, timer, and per stride the warp's
    /// address table, raw timings, requested and transferred bytes, and useful ÷ physical.
    pub fn json(&self) -> String {
        let evidence = Evidence {
            tool: "Coalescing Lab strided-load probe",
            model: ModelNote {
                lanes_per_warp: WARP_LANES,
                sector_bytes: SECTOR_BYTES,
                value_bytes: FLOAT_BYTES,
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
                            sector: address / SECTOR_BYTES,
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
