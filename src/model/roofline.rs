//! The Roofline lab's arithmetic: attainable P = min(peak, I × B) against a fixed, synthetic
//! 1000 GFLOP/s compute roof, with I in FLOP/byte and B in GB/s (10^9 bytes/s).
//!
//! Numbers are kept exact as typed (decimals or fractions such as `1/64`), so the boundary
//! I × B = 1000 is decided exactly, never by floating-point luck. The lab's inputs are raw text,
//! like the calculator's, and the trail of stepped points is text too (`I:B` or `I:B:P`,
//! comma separated), so the URL carries it unchanged.
//! Knows nothing of charts or the browser.

use super::readouts::Readout;
use super::sectors::Ratio;
use std::fmt;

/// The synthetic compute ceiling, GFLOP/s. Fixed by the course: the model does not benchmark.
pub const PEAK_GFLOPS: u64 = 1000;

/// A non-negative number kept exactly as `numerator / denominator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    numerator: u128,
    denominator: u128,
}

/// Most digits accepted in one number, so products stay exact in 128 bits.
const MAX_DIGITS: usize = 15;

impl Exact {
    /// Zero.
    pub const ZERO: Exact = Exact {
        numerator: 0,
        denominator: 1,
    };

    /// One.
    pub const ONE: Exact = Exact {
        numerator: 1,
        denominator: 1,
    };

    /// Parses a plain decimal (`2`, `0.5`, `.5`) or a fraction of whole numbers (`1/64`).
    ///
    /// ```
    /// use coalescing_lab::model::roofline::Exact;
    /// assert_eq!(Exact::parse("1/64").unwrap().value(), 0.015625);
    /// assert_eq!(Exact::parse(" 2.50 ").unwrap().value(), 2.5);
    /// // Degenerate inputs: no sign, exponent, infinity or division by zero.
    /// for bad in ["", "-1", "1e3", "inf", "NaN", "1/0", "1..2", "."] {
    ///     assert_eq!(Exact::parse(bad), None, "{bad}");
    /// }
    /// ```
    pub fn parse(text: &str) -> Option<Exact> {
        let text = text.trim();
        if let Some((top, bottom)) = text.split_once('/') {
            let numerator = whole(top.trim())?;
            let denominator = whole(bottom.trim())?;
            return (denominator > 0).then(|| Exact::new(numerator, denominator));
        }
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let digits = int.len() + frac.len();
        let plain = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        if digits == 0 || digits > MAX_DIGITS || !plain(int) || !plain(frac) {
            return None;
        }
        let numerator = format!("{int}{frac}").parse().ok()?;
        Some(Exact::new(numerator, 10u128.pow(frac.len() as u32)))
    }

    fn new(numerator: u128, denominator: u128) -> Exact {
        let g = gcd(numerator, denominator).max(1);
        Exact {
            numerator: numerator / g,
            denominator: denominator / g,
        }
    }

    /// `self × numerator ÷ denominator`, exact; `None` when the denominator is 0 or the
    /// product does not fit in 128 bits.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::Exact;
    /// let half = Exact::parse("0.5").unwrap();
    /// assert_eq!(half.times_ratio(3, 4).map(|e| e.to_string()), Some("0.375".to_string()));
    /// assert_eq!(half.times_ratio(3, 0), None);
    /// ```
    pub fn times_ratio(self, numerator: u128, denominator: u128) -> Option<Exact> {
        let n = self.numerator.checked_mul(numerator)?;
        let d = self.denominator.checked_mul(denominator)?;
        (d > 0).then(|| Exact::new(n, d))
    }

    /// The nearest float.
    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }

    fn times(self, other: Exact) -> Exact {
        Exact::new(
            self.numerator * other.numerator,
            self.denominator * other.denominator,
        )
    }

    /// Compares `self` with `numerator / denominator` exactly.
    fn cmp_ratio(self, numerator: u128, denominator: u128) -> std::cmp::Ordering {
        (self.numerator * denominator).cmp(&(numerator * self.denominator))
    }

    /// Written back as text that parses to the same value: a decimal when it terminates
    /// within 9 places, otherwise a reduced fraction.
    fn text(self) -> String {
        for places in 0..=9u32 {
            let scale = 10u128.pow(places);
            let Some(shifted) = self.numerator.checked_mul(scale) else {
                break;
            };
            if shifted % self.denominator == 0 {
                let scaled = shifted / self.denominator;
                let int = scaled / scale;
                let frac = scaled % scale;
                return if places == 0 {
                    int.to_string()
                } else {
                    format!("{int}.{frac:0width$}", width = places as usize)
                };
            }
        }
        format!("{}/{}", self.numerator, self.denominator)
    }
}

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

fn whole(text: &str) -> Option<u128> {
    let ok =
        !text.is_empty() && text.len() <= MAX_DIGITS && text.chars().all(|c| c.is_ascii_digit());
    if ok {
        text.parse().ok()
    } else {
        None
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Which roof limits a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// I × B < peak: the bandwidth diagonal.
    Memory,
    /// I × B ≥ peak: the flat compute roof. At the ridge both roofs meet; it counts here.
    Compute,
}

impl Bound {
    /// `data-value` of the `bound` result.
    pub fn value(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }

    /// For people.
    pub fn text(self) -> &'static str {
        match self {
            Bound::Memory => "memory-bound",
            Bound::Compute => "compute-bound",
        }
    }
}

/// One evaluated point of the lab.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Operational intensity I, FLOP/byte.
    pub oi: Exact,
    /// Bandwidth B, GB/s.
    pub bw: Exact,
    /// The learner's prediction, GFLOP/s, if one was made.
    pub prediction: Option<Exact>,
}

impl Point {
    /// P = min(peak, I × B), GFLOP/s.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::{Exact, Point};
    /// let p = |i, b| Point { oi: Exact::parse(i).unwrap(), bw: Exact::parse(b).unwrap(), prediction: None };
    /// assert_eq!(p("2", "80").attainable_gflops(), 160.0);
    /// assert_eq!(p("1024", "100000").attainable_gflops(), 1000.0);
    /// ```
    pub fn attainable_gflops(&self) -> f64 {
        match self.bound() {
            Bound::Compute => PEAK_GFLOPS as f64,
            Bound::Memory => self.oi.times(self.bw).value(),
        }
    }

    /// Memory-bound below the ridge, compute-bound at or beyond it, decided exactly.
    pub fn bound(&self) -> Bound {
        match self.oi.times(self.bw).cmp_ratio(u128::from(PEAK_GFLOPS), 1) {
            std::cmp::Ordering::Less => Bound::Memory,
            _ => Bound::Compute,
        }
    }

    /// The ridge point peak / B, FLOP/byte: the intensity where the roofs meet.
    pub fn ridge_flop_per_byte(&self) -> f64 {
        ridge(self.bw)
    }

    /// How far the prediction was from the answer, in words; `None` without a prediction.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::{Exact, Point};
    /// let mut p = Point { oi: Exact::parse("2").unwrap(), bw: Exact::parse("80").unwrap(), prediction: None };
    /// p.prediction = Exact::parse("160");
    /// assert_eq!(p.prediction_verdict().unwrap(), "You predicted 160 GFLOP/s: exactly right.");
    /// p.prediction = Exact::parse("200");
    /// assert_eq!(p.prediction_verdict().unwrap(), "You predicted 200 GFLOP/s: 40 GFLOP/s too high (25 % over).");
    /// ```
    pub fn prediction_verdict(&self) -> Option<String> {
        let predicted = self.prediction?;
        let actual = self.attainable_gflops();
        let guess = predicted.value();
        let off = guess - actual;
        let relative = (off.abs() / actual * 1000.0).round() / 10.0;
        Some(if off.abs() <= actual * 1e-12 {
            format!("You predicted {predicted} GFLOP/s: exactly right.")
        } else {
            format!(
                "You predicted {predicted} GFLOP/s: {} GFLOP/s too {} ({relative} % {}).",
                number(off.abs()),
                if off > 0.0 { "high" } else { "low" },
                if off > 0.0 { "over" } else { "under" },
            )
        })
    }

    /// The sentence announced to screen readers after a Step.
    pub fn announcement(&self, step: usize) -> String {
        let mut text = format!(
            "Step {step}: intensity {} FLOP/byte at {} GB/s attains {} GFLOP/s, {}; ridge at {} FLOP/byte.",
            self.oi,
            self.bw,
            number(self.attainable_gflops()),
            self.bound().text(),
            number(self.ridge_flop_per_byte())
        );
        if let Some(verdict) = self.prediction_verdict() {
            text.push(' ');
            text.push_str(&verdict);
        }
        text
    }
}

/// peak / B in FLOP/byte.
pub fn ridge(bw: Exact) -> f64 {
    Exact::new(
        u128::from(PEAK_GFLOPS) * bw.denominator,
        bw.numerator.max(1),
    )
    .value()
}

/// A float for people and for `data-value`: the shortest text that round-trips, with at most
/// 6 significant digits for values that don't terminate.
///
/// ```
/// use coalescing_lab::model::roofline::number;
/// assert_eq!(number(160.0), "160");
/// assert_eq!(number(12.5), "12.5");
/// assert_eq!(number(1000.0 / 3.0), "333.333");
/// ```
pub fn number(value: f64) -> String {
    let short = value.to_string();
    if short.len() <= 10 {
        return short;
    }
    let digits = 6 - (value.abs().log10().floor() as i32 + 1).clamp(-6, 6);
    let fixed = format!("{value:.prec$}", prec = digits.max(0) as usize);
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

/// One input of the lab, named by its URL parameter (the prediction has none of its own:
/// it travels inside the trail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    Oi,
    Bw,
    Prediction,
    Trail,
}

impl Knob {
    /// The parameter name used in `data-field` and the URL.
    pub fn param(self) -> &'static str {
        match self {
            Knob::Oi => "oi",
            Knob::Bw => "bw",
            Knob::Prediction => "prediction",
            Knob::Trail => "trail",
        }
    }
}

/// A problem with one input of the lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnobError {
    pub knob: Knob,
    pub message: String,
}

impl fmt::Display for KnobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.knob.param(), self.message)
    }
}

/// The lab's inputs as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lab {
    /// Operational intensity, FLOP/byte, 1/64 to 1024.
    pub oi: String,
    /// Bandwidth, GB/s, 1 to 100000.
    pub bw: String,
    /// Predicted attainable GFLOP/s; empty for none.
    pub prediction: String,
    /// Points already stepped: `I:B` or `I:B:P`, comma separated.
    pub trail: String,
}

impl Default for Lab {
    /// What Reset restores: I = 1 FLOP/byte, B = 100 GB/s, no prediction, no trail.
    fn default() -> Lab {
        Lab {
            oi: "1".into(),
            bw: "100".into(),
            prediction: String::new(),
            trail: String::new(),
        }
    }
}

/// Operational intensity bounds, FLOP/byte: 1/64 to 1024.
const OI_RANGE: ((u128, u128), (u128, u128)) = ((1, 64), (1024, 1));
/// Bandwidth bounds, GB/s: 1 to 100000.
const BW_RANGE: ((u128, u128), (u128, u128)) = ((1, 1), (100_000, 1));

fn in_range(x: Exact, ((lo_n, lo_d), (hi_n, hi_d)): ((u128, u128), (u128, u128))) -> bool {
    x.cmp_ratio(lo_n, lo_d).is_ge() && x.cmp_ratio(hi_n, hi_d).is_le()
}

fn parse_oi(text: &str) -> Result<Exact, String> {
    Exact::parse(text)
        .filter(|x| in_range(*x, OI_RANGE))
        .ok_or_else(|| {
            format!(
                "must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '{}'",
                text.trim()
            )
        })
}

fn parse_bw(text: &str) -> Result<Exact, String> {
    Exact::parse(text)
        .filter(|x| in_range(*x, BW_RANGE))
        .ok_or_else(|| {
            format!(
                "must be a bandwidth from 1 to 100000 GB/s, found '{}'",
                text.trim()
            )
        })
}

fn parse_prediction(text: &str) -> Result<Option<Exact>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    Exact::parse(text).map(Some).ok_or_else(|| {
        format!(
            "must be empty or a number of GFLOP/s such as 160, found '{}'",
            text.trim()
        )
    })
}

/// Parses a trail: `I:B` or `I:B:P` entries, comma separated; empty is no trail.
///
/// ```
/// use coalescing_lab::model::roofline::parse_trail;
/// let trail = parse_trail("2:80:160,1:80").unwrap();
/// assert_eq!(trail.len(), 2);
/// assert_eq!(trail[0].attainable_gflops(), 160.0);
/// assert_eq!(parse_trail("").unwrap().len(), 0);
/// assert_eq!(
///     parse_trail("2:80,x").unwrap_err().to_string(),
///     "trail: entry 2 ('x') is not I:B (intensity:bandwidth, e.g. 2:80)"
/// );
/// ```
pub fn parse_trail(text: &str) -> Result<Vec<Point>, KnobError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(i, entry)| {
            let entry = entry.trim();
            let fail = |why: String| KnobError {
                knob: Knob::Trail,
                message: format!("entry {} ('{entry}') {why}", i + 1),
            };
            let mut parts = entry.split(':');
            let (Some(oi), Some(bw), prediction, None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(fail("is not I:B (intensity:bandwidth, e.g. 2:80)".into()));
            };
            Ok(Point {
                oi: parse_oi(oi)
                    .map_err(|_| fail("has an intensity outside 1/64 to 1024 FLOP/byte".into()))?,
                bw: parse_bw(bw)
                    .map_err(|_| fail("has a bandwidth outside 1 to 100000 GB/s".into()))?,
                prediction: parse_prediction(prediction.unwrap_or(""))
                    .map_err(|_| fail("has a prediction that is not a number of GFLOP/s".into()))?,
            })
        })
        .collect()
}

/// The lab checked: the point the inputs describe now, and the trail already stepped.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The current inputs as a point, if they are valid.
    pub current: Option<Point>,
    /// Points already stepped, oldest first; empty when the trail is malformed.
    pub trail: Vec<Point>,
    /// Every problem, in form order.
    pub errors: Vec<KnobError>,
}

impl Lab {
    /// The raw text of `knob`.
    pub fn get(&self, knob: Knob) -> &str {
        match knob {
            Knob::Oi => &self.oi,
            Knob::Bw => &self.bw,
            Knob::Prediction => &self.prediction,
            Knob::Trail => &self.trail,
        }
    }

    /// Replaces the raw text of `knob`.
    pub fn set(&mut self, knob: Knob, text: String) {
        let slot = match knob {
            Knob::Oi => &mut self.oi,
            Knob::Bw => &mut self.bw,
            Knob::Prediction => &mut self.prediction,
            Knob::Trail => &mut self.trail,
        };
        *slot = text;
    }

    /// Validates every input and the trail.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::Lab;
    /// let lab = Lab { oi: "0".into(), ..Lab::default() };
    /// let checked = lab.check();
    /// assert_eq!(checked.current, None);
    /// assert_eq!(
    ///     checked.errors[0].to_string(),
    ///     "oi: must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '0'"
    /// );
    /// ```
    pub fn check(&self) -> Checked {
        let mut errors = Vec::new();
        let mut keep = |knob: Knob, r: Result<_, String>| {
            r.map_err(|message| errors.push(KnobError { knob, message }))
                .ok()
        };
        let oi = keep(Knob::Oi, parse_oi(&self.oi).map(Some));
        let bw = keep(Knob::Bw, parse_bw(&self.bw).map(Some));
        let prediction = keep(Knob::Prediction, parse_prediction(&self.prediction));
        let current = match (oi, bw, prediction) {
            (Some(Some(oi)), Some(Some(bw)), Some(prediction)) => {
                Some(Point { oi, bw, prediction })
            }
            _ => None,
        };
        let trail = parse_trail(&self.trail).unwrap_or_else(|e| {
            errors.push(e);
            Vec::new()
        });
        Checked {
            current,
            trail,
            errors,
        }
    }

    /// Step: appends the current point (with its prediction) to the trail. A malformed trail is
    /// replaced; invalid inputs leave the lab unchanged and return `false`.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::Lab;
    /// let mut lab = Lab { oi: "2".into(), bw: "80".into(), prediction: "160".into(), ..Lab::default() };
    /// assert!(lab.step());
    /// assert_eq!(lab.trail, "2:80:160");
    /// lab.oi = "1".into();
    /// lab.prediction.clear();
    /// assert!(lab.step());
    /// assert_eq!(lab.trail, "2:80:160,1:80");
    /// ```
    pub fn step(&mut self) -> bool {
        let checked = self.check();
        let Some(point) = checked.current else {
            return false;
        };
        let mut entries: Vec<String> = checked.trail.iter().map(entry).collect();
        entries.push(entry(&point));
        self.trail = entries.join(",");
        true
    }

    /// The lab opened from the calculator: the same lab with I scaled by the useful fraction
    /// `e` (bytes ÷ e at fixed FLOPs), e capped at 1 for a broadcast. Returns the new lab and
    /// the sentence that explains it; `None` when the intensity is invalid or e is undefined.
    ///
    /// ```
    /// use coalescing_lab::model::{roofline::Lab, sectors::Ratio};
    /// let lab = Lab { oi: "2".into(), ..Lab::default() };
    /// let (scaled, why) = lab.scaled_by(Ratio { numerator: 128, denominator: 256 }).unwrap();
    /// assert_eq!(scaled.oi, "1");
    /// assert_eq!(why, "50 % useful bytes doubles the bytes moved, so intensity 2 → 1 FLOP/byte.");
    /// ```
    pub fn scaled_by(&self, useful: Ratio) -> Option<(Lab, String)> {
        let oi = parse_oi(&self.oi).ok()?;
        if useful.denominator == 0 || useful.numerator == 0 {
            return None;
        }
        let capped = useful.numerator.min(useful.denominator);
        let e = Exact::new(u128::from(capped), u128::from(useful.denominator));
        let scaled = oi.times(e);
        let percent = super::format::percent(Some(Ratio {
            numerator: capped,
            denominator: useful.denominator,
        }));
        let effect = match (e.numerator, e.denominator) {
            (1, 1) => "leaves the bytes moved unchanged".to_string(),
            (1, 2) => "doubles the bytes moved".to_string(),
            (n, d) => format!("multiplies the bytes moved by {}", Exact::new(d, n)),
        };
        let broadcast = if useful.numerator > useful.denominator {
            " (a broadcast's efficiency above 100 % counts as 100 %)"
        } else {
            ""
        };
        let why = format!(
            "{percent} useful bytes{broadcast} {effect}, so intensity {oi} → {scaled} FLOP/byte."
        );
        Some((
            Lab {
                oi: scaled.to_string(),
                ..self.clone()
            },
            why,
        ))
    }
}

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
    pub oi: String,
    pub bw: String,
    /// Attainable GFLOP/s for people.
    pub attainable: String,
    /// `memory` or `compute`.
    pub bound: &'static str,
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
            bound: p.bound().value(),
            ridge: number(p.ridge_flop_per_byte()),
            verdict: p.prediction_verdict().unwrap_or_else(|| "—".into()),
        })
        .collect()
}

/// The chart's text alternative: what a sighted learner sees, in one paragraph.
///
/// ```
/// use coalescing_lab::model::roofline::{chart_description, parse_trail, Exact};
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
        number(ridge(bw))
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

/// The intensity slider: positions are powers of two, 2^-6 = 1/64 … 2^10 = 1024.
pub struct OiSlider;

impl OiSlider {
    /// Leftmost position: 2^-6 = 1/64 FLOP/byte.
    pub const MIN: i32 = -6;
    /// Rightmost position: 2^10 = 1024 FLOP/byte.
    pub const MAX: i32 = 10;

    /// The position nearest to the typed intensity (log2, rounded); 0 (I = 1) when invalid.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::OiSlider;
    /// assert_eq!(OiSlider::position("1/64"), -6);
    /// assert_eq!(OiSlider::position("3"), 2);
    /// assert_eq!(OiSlider::position("oops"), 0);
    /// ```
    pub fn position(text: &str) -> i32 {
        parse_oi(text)
            .map(|x| (x.value().log2().round() as i32).clamp(Self::MIN, Self::MAX))
            .unwrap_or(0)
    }

    /// The intensity at a position, as text the field accepts.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::OiSlider;
    /// assert_eq!(OiSlider::text(-6), "1/64");
    /// assert_eq!(OiSlider::text(3), "8");
    /// assert_eq!(OiSlider::text(99), "1024");
    /// ```
    pub fn text(position: i32) -> String {
        let p = position.clamp(Self::MIN, Self::MAX);
        if p >= 0 {
            (1u32 << p).to_string()
        } else {
            format!("1/{}", 1u32 << -p)
        }
    }
}

fn entry(point: &Point) -> String {
    match point.prediction {
        Some(p) => format!("{}:{}:{p}", point.oi, point.bw),
        None => format!("{}:{}", point.oi, point.bw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_are_written_back_as_text_that_parses_to_them() {
        let text = |s: &str| Exact::parse(s).unwrap().to_string();
        assert_eq!(text("2/4"), "0.5");
        assert_eq!(text("8/18"), "4/9");
        assert_eq!(text("0"), "0");
        assert_eq!(text("1/64"), "0.015625");
        assert_eq!(text("007.50"), "7.5");
        let huge = Exact::new(u128::MAX / 3, 7);
        assert!(huge.to_string().contains('/'), "no overflow when scaling");
    }
}
