//! The Roofline lab's arithmetic: attainable P = min(peak, I × B) against a fixed, synthetic
//! 1000 GFLOP/s compute roof, with I in FLOP/byte and B in GB/s (10^9 bytes/s).
//!
//! Numbers are kept exact as typed (decimals or fractions such as `1/64`), so the boundary
//! I × B = 1000 is decided exactly, never by floating-point luck. The lab's inputs are raw text,
//! like the calculator's, and the trail of stepped points is text too (`I:B` or `I:B:P`,
//! comma separated), so the URL carries it unchanged.
//! Knows nothing of charts or the browser.
//!
//! Why one file of ~780 lines: the lab's knobs, their checks, the trail and the hand-off all
//! read and write the same `Lab` text; splitting it (e.g. the trail into `roofline/trail.rs`)
//! is the next step once the kernel view lands (#16), and is left out of this refactor so as
//! not to collide with the permalink changes in flight.

use super::error::{FieldError, FieldName};
use super::exact::{Exact, NumberError};
use super::format::{number, percent_tenths};
use super::readouts::Readout;
use super::sectors::Ratio;
use std::fmt;

/// The synthetic compute ceiling, GFLOP/s. Fixed by the course: the model does not benchmark.
pub const PEAK_GFLOPS: u64 = 1000;

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
    /// use coalescing_lab::model::{exact::Exact, roofline::Point};
    /// let p = |i, b| Point { oi: Exact::parse(i).unwrap(), bw: Exact::parse(b).unwrap(), prediction: None };
    /// assert_eq!(p("2", "80").attainable_gflops(), 160.0);
    /// assert_eq!(p("1024", "100000").attainable_gflops(), 1000.0);
    /// ```
    pub fn attainable_gflops(&self) -> f64 {
        self.attainable().value()
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
    /// use coalescing_lab::model::{exact::Exact, roofline::Point};
    /// let mut p = Point { oi: Exact::parse("2").unwrap(), bw: Exact::parse("80").unwrap(), prediction: None };
    /// p.prediction = Exact::parse("160");
    /// assert_eq!(p.prediction_verdict().unwrap(), "You predicted 160 GFLOP/s: exactly right.");
    /// p.prediction = Exact::parse("200");
    /// assert_eq!(p.prediction_verdict().unwrap(), "You predicted 200 GFLOP/s: 40 GFLOP/s too high (25 % over).");
    /// ```
    pub fn prediction_verdict(&self) -> Option<String> {
        let predicted = self.prediction?;
        let actual = self.attainable_gflops();
        if predicted == self.attainable() {
            return Some(format!("You predicted {predicted} GFLOP/s: exactly right."));
        }
        let off = predicted.value() - actual;
        let relative = percent_tenths(off.abs() / actual);
        Some(format!(
            "You predicted {predicted} GFLOP/s: {} GFLOP/s too {} ({relative} % {}).",
            number(off.abs()),
            if off > 0.0 { "high" } else { "low" },
            if off > 0.0 { "over" } else { "under" },
        ))
    }

    /// P = min(peak, I × B), exactly.
    fn attainable(&self) -> Exact {
        match self.bound() {
            Bound::Compute => Exact::new(u128::from(PEAK_GFLOPS), 1),
            Bound::Memory => self.oi.times(self.bw),
        }
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
    let (numerator, denominator) = bw.parts();
    Exact::new(u128::from(PEAK_GFLOPS) * denominator, numerator.max(1)).value()
}

/// One input of the lab, named by its URL parameter (the prediction has none of its own:
/// it travels inside the trail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    Oi,
    Bw,
    Prediction,
    Trail,
    /// The previous run's trail, kept dimmed on the chart after Reset (`prev`).
    Previous,
}

impl Knob {
    /// The parameter name used in `data-field` and the URL.
    pub fn param(self) -> &'static str {
        match self {
            Knob::Oi => "oi",
            Knob::Bw => "bw",
            Knob::Prediction => "prediction",
            Knob::Trail => "trail",
            Knob::Previous => "prev",
        }
    }
}

/// A problem with one input of the lab.
pub type KnobError = FieldError<Knob>;

impl FieldName for Knob {
    fn param(self) -> impl fmt::Display {
        Knob::param(self)
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
    /// The previous run's points, in the trail's format: shown dimmed so that two runs (the
    /// course's I = 2 and I = 1) share one chart. Reset and the course runs move the trail here.
    pub previous: String,
}

impl Default for Lab {
    /// What Reset restores: I = 1 FLOP/byte, B = 100 GB/s, no prediction, no trail.
    fn default() -> Lab {
        Lab {
            oi: "1".into(),
            bw: "100".into(),
            prediction: String::new(),
            trail: String::new(),
            previous: String::new(),
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

/// Reads a number of the lab: what is wrong with its syntax comes first, then its range.
fn parse_in(
    text: &str,
    range: ((u128, u128), (u128, u128)),
    what: &str,
    example: &str,
) -> Result<Exact, String> {
    match Exact::read(text) {
        Ok(x) if in_range(x, range) => Ok(x),
        Ok(_) | Err(NumberError::Negative) => {
            Err(format!("must be {what}, found '{}'", text.trim()))
        }
        Err(NumberError::Empty) => Err(format!("is empty; enter {example}")),
        Err(e) => Err(format!("'{}' {e}; enter {example}", text.trim())),
    }
}

fn parse_oi(text: &str) -> Result<Exact, String> {
    parse_in(
        text,
        OI_RANGE,
        "an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8)",
        "an intensity from 1/64 to 1024 FLOP/byte, such as 2 or 1/8",
    )
}

fn parse_bw(text: &str) -> Result<Exact, String> {
    parse_in(
        text,
        BW_RANGE,
        "a bandwidth from 1 to 100000 GB/s",
        "a bandwidth from 1 to 100000 GB/s, such as 80",
    )
}

fn parse_prediction(text: &str) -> Result<Option<Exact>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    Exact::read(text).map(Some).map_err(|e| {
        format!(
            "must be empty or a number of GFLOP/s such as 160: '{}' {e}",
            text.trim()
        )
    })
}

/// Most points a trail keeps. A longer link keeps its latest points, and a Step past the cap
/// drops the oldest, so the chart, the table and each Step's work stay small.
pub const MAX_TRAIL: usize = 64;

/// A trail read from text: the valid points, and a note for each entry left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trail {
    /// The latest valid points, oldest first, at most [`MAX_TRAIL`].
    pub points: Vec<Point>,
    /// Valid points dropped from the front to keep [`MAX_TRAIL`].
    pub dropped: usize,
    /// One error per malformed entry, naming it; those entries are left out.
    pub errors: Vec<KnobError>,
}

/// Reads a trail: `I:B` or `I:B:P` entries, comma separated; empty is no trail. A malformed
/// entry is named and left out, and the valid ones are kept.
///
/// ```
/// use coalescing_lab::model::roofline::read_trail;
/// let trail = read_trail("2:80:160,x,1:80");
/// assert_eq!(trail.points.len(), 2);
/// assert_eq!(
///     trail.errors[0].to_string(),
///     "trail: entry 2 ('x') is not I:B (intensity:bandwidth, e.g. 2:80)"
/// );
/// // Degenerate input: no trail.
/// assert_eq!(read_trail(" ").points.len(), 0);
/// ```
pub fn read_trail(text: &str) -> Trail {
    read_points(text, Knob::Trail)
}

fn read_points(text: &str, knob: Knob) -> Trail {
    let mut trail = Trail::default();
    if text.trim().is_empty() {
        return trail;
    }
    for (i, entry) in text.split(',').enumerate() {
        match read_entry(knob, i, entry.trim()) {
            Ok(point) => trail.points.push(point),
            Err(e) => trail.errors.push(e),
        }
    }
    trail.dropped = trail.points.len().saturating_sub(MAX_TRAIL);
    trail.points.drain(..trail.dropped);
    trail
}

fn read_entry(knob: Knob, i: usize, entry: &str) -> Result<Point, KnobError> {
    let fail = |why: &str| KnobError::new(knob, format!("entry {} ('{entry}') {why}", i + 1));
    let mut parts = entry.split(':');
    let (Some(oi), Some(bw), prediction, None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(fail("is not I:B (intensity:bandwidth, e.g. 2:80)"));
    };
    Ok(Point {
        oi: parse_oi(oi).map_err(|_| fail("has an intensity outside 1/64 to 1024 FLOP/byte"))?,
        bw: parse_bw(bw).map_err(|_| fail("has a bandwidth outside 1 to 100000 GB/s"))?,
        prediction: parse_prediction(prediction.unwrap_or(""))
            .map_err(|_| fail("has a prediction that is not a number of GFLOP/s"))?,
    })
}

/// Parses a whole trail strictly: every entry must be valid.
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
    let trail = read_trail(text);
    match trail.errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(trail.points),
    }
}

/// The lab checked: the point the inputs describe now, and the trail already stepped.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The current inputs as a point, if they are valid.
    pub current: Option<Point>,
    /// Points already stepped, oldest first: the valid entries of the trail.
    pub trail: Vec<Point>,
    /// The previous run's valid points, oldest first.
    pub previous: Vec<Point>,
    /// Every problem with the inputs, in form order, then each trail entry left out.
    pub errors: Vec<KnobError>,
    /// Valid trail points left out to keep [`MAX_TRAIL`].
    pub dropped: usize,
}

/// Why "Use this efficiency" cannot hand the calculator's scenario to the lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandOffRefusal {
    /// A calculator field is in error: the results on show are not this scenario's.
    CalculatorInvalid,
    /// No lane is active, so there is no useful fraction.
    NoActiveLane,
    /// The lab's own intensity is not valid.
    LabInvalid { oi: String },
    /// Scaling would take the intensity below the lab's floor of 1/64 FLOP/byte.
    BelowFloor { oi: String, scaled: String },
    /// The kernel moves no DRAM byte, so its intensity is undefined.
    NoTraffic,
    /// The kernel's intensity lies outside the lab's 1/64 to 1024 FLOP/byte.
    OutOfRange { intensity: String },
}

impl fmt::Display for HandOffRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandOffRefusal::CalculatorInvalid => {
                f.write_str("Fix the calculator's field marked in red first.")
            }
            HandOffRefusal::NoActiveLane => {
                f.write_str("No lane is active, so there is no useful fraction to hand over.")
            }
            HandOffRefusal::LabInvalid { oi } => write!(
                f,
                "The Roofline lab's intensity '{oi}' is not valid; fix it in the lab first."
            ),
            HandOffRefusal::BelowFloor { oi, scaled } => write!(
                f,
                "Intensity {oi} would fall to {scaled} FLOP/byte, below the lab's floor of 1/64; raise the lab's intensity first."
            ),
            HandOffRefusal::NoTraffic => {
                f.write_str("The kernel moves no DRAM byte, so it has no intensity.")
            }
            HandOffRefusal::OutOfRange { intensity } => write!(
                f,
                "The kernel's intensity, {intensity} FLOP/byte, is outside the lab's 1/64 to 1024; set flops to the FLOPs per thread per iteration."
            ),
        }
    }
}

/// The sentence the lab shows after a hand-off, while its intensity and bandwidth are still
/// the ones handed over. Typing a new I or B, or moving the slider, retires it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabNote {
    oi: String,
    bw: String,
    text: String,
}

impl LabNote {
    /// The note, while `lab` still has the intensity and bandwidth it was written for.
    ///
    /// ```
    /// use coalescing_lab::model::{roofline::Lab, sectors::Ratio};
    /// let lab = Lab { oi: "2".into(), ..Lab::default() };
    /// let (mut scaled, note) = lab.hand_off(Some(Ratio { numerator: 1, denominator: 2 })).unwrap();
    /// assert!(note.text_for(&scaled).is_some());
    /// scaled.oi = "3".into();
    /// assert_eq!(note.text_for(&scaled), None);
    /// ```
    pub fn text_for(&self, lab: &Lab) -> Option<&str> {
        (lab.oi == self.oi && lab.bw == self.bw).then_some(self.text.as_str())
    }
}

impl Lab {
    /// The raw text of `knob`.
    pub fn get(&self, knob: Knob) -> &str {
        match knob {
            Knob::Oi => &self.oi,
            Knob::Bw => &self.bw,
            Knob::Prediction => &self.prediction,
            Knob::Trail => &self.trail,
            Knob::Previous => &self.previous,
        }
    }

    /// Replaces the raw text of `knob`.
    pub fn set(&mut self, knob: Knob, text: String) {
        let slot = match knob {
            Knob::Oi => &mut self.oi,
            Knob::Bw => &mut self.bw,
            Knob::Prediction => &mut self.prediction,
            Knob::Trail => &mut self.trail,
            Knob::Previous => &mut self.previous,
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
            r.map_err(|message| errors.push(KnobError::new(knob, message)))
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
        let trail = read_trail(&self.trail);
        let previous = read_points(&self.previous, Knob::Previous);
        errors.extend(trail.errors);
        errors.extend(previous.errors);
        Checked {
            current,
            trail: trail.points,
            previous: previous.points,
            errors,
            dropped: trail.dropped + previous.dropped,
        }
    }

    /// Reset: back to I = 1 and B = 100 with an empty trail. The run just made becomes the
    /// previous run, shown dimmed until it is cleared; an empty run keeps the previous one.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::Lab;
    /// let mut lab = Lab { oi: "2".into(), bw: "80".into(), trail: "2:80:160".into(), ..Lab::default() };
    /// lab.reset();
    /// assert_eq!((lab.trail.as_str(), lab.previous.as_str(), lab.oi.as_str()), ("", "2:80:160", "1"));
    /// lab.reset();
    /// assert_eq!(lab.previous, "2:80:160", "an empty run keeps the previous one");
    /// ```
    pub fn reset(&mut self) {
        self.start_run(&Lab::default().oi, &Lab::default().bw);
    }

    /// Starts a new run at `oi` and `bw` (the course's run buttons), as [`Lab::reset`] does.
    pub fn start_run(&mut self, oi: &str, bw: &str) {
        let previous = if read_trail(&self.trail).points.is_empty() {
            std::mem::take(&mut self.previous)
        } else {
            std::mem::take(&mut self.trail)
        };
        *self = Lab {
            oi: oi.to_string(),
            bw: bw.to_string(),
            previous,
            ..Lab::default()
        };
    }

    /// Step: appends the current point (with its prediction) to the trail. Malformed entries
    /// are left out, and past [`MAX_TRAIL`] the oldest point goes; invalid inputs leave the lab
    /// unchanged and return `false`.
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
        let keep = checked.trail.len().saturating_sub(MAX_TRAIL - 1);
        let mut entries: Vec<String> = checked.trail[keep..].iter().map(entry).collect();
        entries.push(entry(&point));
        self.trail = entries.join(",");
        true
    }

    /// The lab opened from the kernel view: I = total FLOPs ÷ DRAM bytes (`intensity`, `None`
    /// when no DRAM byte moved), B kept, and the note that explains it.
    ///
    /// ```
    /// use coalescing_lab::model::{exact::Exact, roofline::{HandOffRefusal, Lab}};
    /// let (lab, note) = Lab::default().with_kernel_intensity(Exact::parse("0.25"), "1048576 FLOPs over 4194304 DRAM bytes").unwrap();
    /// assert_eq!(lab.oi, "0.25");
    /// assert_eq!(note.text_for(&lab), Some("The kernel's 1048576 FLOPs over 4194304 DRAM bytes: intensity 0.25 FLOP/byte."));
    /// // A fraction too long to type is rounded, and said to be.
    /// let long = Exact::ONE.times_ratio(123456789012345678, 98765432109876543);
    /// let (lab, note) = Lab::default().with_kernel_intensity(long, "x").unwrap();
    /// assert_eq!(lab.oi, "1.25");
    /// assert_eq!(note.text_for(&lab), Some("The kernel's x: intensity ≈ 1.25 FLOP/byte."));
    /// // Degenerate input: no DRAM traffic.
    /// assert_eq!(Lab::default().with_kernel_intensity(None, "").unwrap_err(), HandOffRefusal::NoTraffic);
    /// ```
    pub fn with_kernel_intensity(
        &self,
        intensity: Option<Exact>,
        counted: &str,
    ) -> Result<(Lab, LabNote), HandOffRefusal> {
        let intensity = intensity.ok_or(HandOffRefusal::NoTraffic)?;
        if !in_range(intensity, OI_RANGE) {
            return Err(HandOffRefusal::OutOfRange {
                intensity: intensity.to_string(),
            });
        }
        // A fraction too long for the lab's field is rounded to 6 significant digits, and the
        // note says so.
        let exact = intensity.to_string();
        let (oi, about) = if Exact::read(&exact).is_ok() {
            (exact, "")
        } else {
            (number(intensity.value()), "≈ ")
        };
        let lab = Lab { oi, ..self.clone() };
        let note = LabNote {
            oi: lab.oi.clone(),
            bw: lab.bw.clone(),
            text: format!(
                "The kernel's {counted}: intensity {about}{} FLOP/byte.",
                lab.oi
            ),
        };
        Ok((lab, note))
    }

    /// The lab opened from the calculator: the same lab with I scaled by the useful fraction
    /// `e` (bytes ÷ e at fixed FLOPs), e capped at 1 for a broadcast, and the note that
    /// explains it. `useful` is `None` when a calculator field is in error. Refused, with the
    /// reason, whenever the lab would not open on a valid intensity.
    ///
    /// ```
    /// use coalescing_lab::model::{roofline::{HandOffRefusal, Lab}, sectors::Ratio};
    /// let lab = Lab { oi: "2".into(), ..Lab::default() };
    /// let (scaled, note) = lab.hand_off(Some(Ratio { numerator: 128, denominator: 256 })).unwrap();
    /// assert_eq!(scaled.oi, "1");
    /// assert_eq!(note.text_for(&scaled), Some("50 % useful bytes doubles the bytes moved, so intensity 2 → 1 FLOP/byte."));
    /// // Degenerate input: the calculator has no valid scenario.
    /// assert_eq!(lab.hand_off(None).unwrap_err(), HandOffRefusal::CalculatorInvalid);
    /// ```
    pub fn hand_off(&self, useful: Option<Ratio>) -> Result<(Lab, LabNote), HandOffRefusal> {
        let useful = useful.ok_or(HandOffRefusal::CalculatorInvalid)?;
        if useful.denominator == 0 || useful.numerator == 0 {
            return Err(HandOffRefusal::NoActiveLane);
        }
        let oi = parse_oi(&self.oi).map_err(|_| HandOffRefusal::LabInvalid {
            oi: self.oi.trim().to_string(),
        })?;
        let capped = useful.numerator.min(useful.denominator);
        let e = Exact::new(u128::from(capped), u128::from(useful.denominator));
        let scaled = oi.times(e);
        if !in_range(scaled, OI_RANGE) {
            return Err(HandOffRefusal::BelowFloor {
                oi: oi.to_string(),
                scaled: scaled.to_string(),
            });
        }
        let percent = super::format::percent(Some(Ratio {
            numerator: capped,
            denominator: useful.denominator,
        }));
        let effect = match e.parts() {
            (1, 1) => "leaves the bytes moved unchanged".to_string(),
            (1, 2) => "doubles the bytes moved".to_string(),
            (n, d) => format!("multiplies the bytes moved by {}", Exact::new(d, n)),
        };
        let broadcast = if useful.numerator > useful.denominator {
            " (a broadcast's efficiency above 100 % counts as 100 %)"
        } else {
            ""
        };
        let lab = Lab {
            oi: scaled.to_string(),
            ..self.clone()
        };
        let note = LabNote {
            oi: lab.oi.clone(),
            bw: lab.bw.clone(),
            text: format!(
                "{percent} useful bytes{broadcast} {effect}, so intensity {oi} → {scaled} FLOP/byte."
            ),
        };
        Ok((lab, note))
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
    /// Attainable GFLOP/s for `data-value`: full precision, as the `attainable` readout's.
    pub attainable_value: String,
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
