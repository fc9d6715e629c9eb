//! The lab in words and machine values: the latest Step's readouts, the trail table's rows and
//! the chart's text alternative.

use super::super::exact::Exact;
use super::super::format::number;
use super::super::readouts::Readout;
use super::{Point, Roof, PEAK_GFLOPS};

/// The results of the latest Step: attainable P, the bound and the ridge. Before the first
/// Step the values are empty and the text says to Step.
///
/// ```
/// use coalescing_lab::model::roofline::{parse_trail, step_readouts};
/// let trail = parse_trail("2:80").unwrap();
/// let r = step_readouts(trail.last());
/// let pairs: Vec<(&str, &str)> = r.iter().map(|r| (r.id, r.value.as_str())).collect();
/// assert_eq!(pairs, [("attainable", "160"), ("bound", "memory"), ("ridge", "12.5")]);
/// // Degenerate input: nothing stepped yet reveals nothing.
/// assert!(step_readouts(None).iter().all(|r| r.value.is_empty()));
/// ```
pub fn step_readouts(latest: Option<&Point>) -> Vec<Readout> {
    let show = |f: &dyn Fn(&Point) -> String, before: &str| match latest {
        Some(p) => f(p),
        None => before.to_string(),
    };
    vec![
        Readout {
            id: "attainable",
            label: "Attainable P",
            text: show(
                &|p| format!("{} GFLOP/s", number(p.attainable_gflops())),
                "Step to reveal",
            ),
            value: show(&|p| p.attainable_gflops().to_string(), ""),
            detail: format!("min({PEAK_GFLOPS}, I × B)"),
            headline: true,
        },
        Readout {
            id: "bound",
            label: "Bound",
            text: show(&|p| p.bound().text().to_string(), "—"),
            value: show(&|p| p.bound().value().to_string(), ""),
            detail: "which roof limits the point".into(),
            headline: false,
        },
        Readout {
            id: "ridge",
            label: "Ridge point",
            text: show(
                &|p| format!("{} FLOP/byte", number(p.ridge_flop_per_byte())),
                "—",
            ),
            value: show(&|p| p.ridge_flop_per_byte().to_string(), ""),
            detail: format!("{PEAK_GFLOPS} / B: where the roofs meet"),
            headline: false,
        },
    ]
}

/// One row of the trail table, worded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TrailRow {
    /// 1-based step number, as on the chart.
    pub step: usize,
    /// The step's intensity I, FLOP/byte, exact as in the trail.
    pub oi: String,
    /// The step's bandwidth B, GB/s, exact as in the trail.
    pub bw: String,
    /// Attainable GFLOP/s for people.
    pub attainable: String,
    /// Attainable GFLOP/s for `data-value`: full precision, as the `attainable` readout's.
    pub attainable_value: String,
    /// `memory` or `compute`.
    pub bound: &'static str,
    /// The ridge, FLOP/byte, where this bandwidth meets the compute ceiling; for people.
    pub ridge: String,
    /// The prediction's verdict, or "—".
    pub verdict: String,
}

/// The trail as table rows, oldest first.
///
/// ```
/// use coalescing_lab::model::roofline::{parse_trail, trail_rows};
/// let rows = trail_rows(&parse_trail("2:80:150,1/64:1").unwrap());
/// assert_eq!((rows[0].attainable.as_str(), rows[0].bound, rows[0].ridge.as_str()), ("160", "memory", "12.5"));
/// assert_eq!(rows[0].verdict, "You predicted 150 GFLOP/s: 10 GFLOP/s too low (6.3 % under).");
/// assert_eq!((rows[1].oi.as_str(), rows[1].verdict.as_str()), ("0.015625", "—"));
/// ```
pub fn trail_rows(trail: &[Point]) -> Vec<TrailRow> {
    trail
        .iter()
        .enumerate()
        .map(|(i, p)| TrailRow {
            step: i + 1,
            oi: p.oi.to_string(),
            bw: p.bw.to_string(),
            attainable: number(p.attainable_gflops()),
            attainable_value: p.attainable_gflops().to_string(),
            bound: p.bound().value(),
            ridge: number(p.ridge_flop_per_byte()),
            verdict: p.prediction_verdict().unwrap_or_else(|| "—".into()),
        })
        .collect()
}

/// The chart's text alternative: what a sighted learner sees, in one paragraph.
///
/// ```
/// use coalescing_lab::model::{exact::Exact, roofline::{chart_description, parse_trail}};
/// let bw = Exact::parse("80").unwrap();
/// assert_eq!(
///     chart_description(bw, &[]),
///     "Log–log roofline for B = 80 GB/s: the memory roof rises along P = 80 × I up to the ridge at \
///      12.5 FLOP/byte, then the flat compute roof at 1000 GFLOP/s. No point stepped yet."
/// );
/// assert!(chart_description(bw, &parse_trail("2:80").unwrap()).ends_with("Point 1: I = 2 FLOP/byte, P = 160 GFLOP/s, memory-bound."));
/// ```
pub fn chart_description(bw: Exact, trail: &[Point]) -> String {
    let mut text = format!(
        "Log–log roofline for B = {bw} GB/s: the memory roof rises along P = {bw} × I up to the \
         ridge at {} FLOP/byte, then the flat compute roof at {PEAK_GFLOPS} GFLOP/s.",
        number(Roof::course(bw).ridge().value())
    );
    if trail.is_empty() {
        text.push_str(" No point stepped yet.");
    }
    for (i, p) in trail.iter().enumerate() {
        text.push_str(&format!(
            " Point {}: I = {} FLOP/byte, P = {} GFLOP/s, {}.",
            i + 1,
            p.oi,
            number(p.attainable_gflops()),
            p.bound().text()
        ));
    }
    text
}
