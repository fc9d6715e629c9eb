//! The Roofline lab's arithmetic: attainable P = min(peak, I × B) against a fixed, synthetic
//! 1000 GFLOP/s compute roof, with I in FLOP/byte and B in GB/s (10^9 bytes/s).
//!
//! Numbers are kept exact as typed (decimals or fractions such as `1/64`), so the boundary
//! I × B = 1000 is decided exactly, never by floating-point luck. The lab's inputs are raw text,
//! like the calculator's, and the trail of stepped points is text too (`I:B` or `I:B:P`,
//! comma separated), so the URL carries it unchanged.
//! Knows nothing of charts or the browser.
//!
//! - `roof`: one roof (a bandwidth under a compute ceiling): bound, attainable P and ridge, exact,
//!   for the course's point and machine mode's alike;
//! - `trail`: the stepped points read from their text, capped and with bad entries named;
//! - `handoff`: the lab opened from the calculator or the kernel view, or refused with why;
//! - `wording`: the Step's readouts, the trail table's rows and the chart's description;
//! - `machine*`, `gpus`: the machine mode (`roofs=custom`, docs/model.md, "Machine mode").

use super::error::{FieldError, FieldName};
mod gpus;
mod handoff;
mod machine;
mod machine_link;
mod machine_read;
mod machine_view;
mod roof;
mod trail;
mod wording;
pub use self::{gpus::*, machine::*, machine_view::*};
pub use handoff::{HandOff, HandOffRefusal, LabNote, Opened, Work};
pub use roof::{Bound, Roof};
use trail::read_points;
pub use trail::{parse_trail, read_trail, Trail, MAX_TRAIL};
pub use wording::{chart_description, step_readouts, trail_rows, TrailRow};

use super::exact::{Exact, NumberError};
use super::format::{number, percent_tenths};
use std::fmt;

/// The synthetic compute ceiling, GFLOP/s. Fixed by the course: the model does not benchmark.
pub const PEAK_GFLOPS: u64 = 1000;

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

    /// The course's roof at this point's bandwidth: B under the synthetic [`PEAK_GFLOPS`].
    pub fn roof(&self) -> Roof {
        Roof::course(self.bw)
    }

    /// Memory-bound below the ridge, compute-bound at or beyond it, decided exactly.
    pub fn bound(&self) -> Bound {
        self.roof().bound(self.oi)
    }

    /// The ridge point peak / B, FLOP/byte: the intensity where the roofs meet.
    pub fn ridge_flop_per_byte(&self) -> f64 {
        self.roof().ridge().value()
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
        self.roof().attainable(self.oi)
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

/// One input of the lab, named by its URL parameter (the prediction has none of its own:
/// it travels inside the trail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    /// Operational intensity I, FLOP/byte, 1/64 to 1024: `oi`.
    Oi,
    /// Bandwidth B, GB/s, 1 to 100000: `bw`.
    Bw,
    /// The learner's predicted GFLOP/s; in links it rides as the third part of a trail entry.
    Prediction,
    /// The points run so far, `I:B[:P]` entries comma-separated: `trail`.
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

/// A range as people write it, from the same bounds the checks use: `1/64 to 1024`.
fn range_text(((lo_n, lo_d), (hi_n, hi_d)): Range) -> String {
    let bound = |n: u128, d: u128| {
        if d == 1 {
            n.to_string()
        } else {
            format!("{n}/{d}")
        }
    };
    format!("{} to {}", bound(lo_n, lo_d), bound(hi_n, hi_d))
}

impl Knob {
    /// How to fill the knob in, from the bounds its check uses.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::Knob;
    /// assert_eq!(Knob::Oi.hint(), "1/64 to 1024; a decimal or a fraction such as 1/8");
    /// assert_eq!(Knob::Bw.hint(), "1 to 100000");
    /// ```
    pub fn hint(self) -> String {
        match self {
            Knob::Oi => format!(
                "{}; a decimal or a fraction such as 1/8",
                range_text(OI_RANGE)
            ),
            Knob::Bw => range_text(BW_RANGE),
            Knob::Prediction => "optional: commit to a number before you Step".into(),
            Knob::Trail | Knob::Previous => String::new(),
        }
    }
}

/// A closed range of exact numbers, as `((low numerator, low denominator), (high …, …))`.
type Range = ((u128, u128), (u128, u128));

/// Operational intensity bounds, FLOP/byte: 1/64 to 1024.
const OI_RANGE: Range = ((1, 64), (1024, 1));
/// Bandwidth bounds, GB/s: 1 to 100000.
const BW_RANGE: Range = ((1, 1), (100_000, 1));

/// Whether `x` lies in `range`, bounds included, decided exactly.
fn in_range(x: Exact, ((lo_n, lo_d), (hi_n, hi_d)): Range) -> bool {
    Exact::new(lo_n, lo_d) <= x && x <= Exact::new(hi_n, hi_d)
}

/// Why the text of one of the lab's numbers is refused: the knob it was typed in, the text as
/// typed, and what is wrong with it. `Display` gives the knob's message, without the knob.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ReadError {
    knob: Knob,
    text: String,
    problem: Problem,
}

/// What is wrong with a number of the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Problem {
    /// A number, but outside the knob's range.
    OutOfRange,
    /// Not a number the page reads.
    Number(NumberError),
}

impl ReadError {
    fn new(knob: Knob, text: &str, problem: Problem) -> ReadError {
        ReadError {
            knob,
            text: text.trim().to_string(),
            problem,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        let (what, example) = match self.knob {
            Knob::Bw => (
                format!("a bandwidth from {} GB/s", range_text(BW_RANGE)),
                format!("a bandwidth from {} GB/s, such as 80", range_text(BW_RANGE)),
            ),
            // A prediction has no range: any number of GFLOP/s is a prediction.
            Knob::Prediction => {
                return match self.problem {
                    Problem::Number(e) => write!(
                        f,
                        "must be empty or a number of GFLOP/s such as 160: '{text}' {e}"
                    ),
                    Problem::OutOfRange => write!(
                        f,
                        "must be empty or a number of GFLOP/s such as 160, found '{text}'"
                    ),
                };
            }
            Knob::Oi | Knob::Trail | Knob::Previous => (
                format!(
                    "an intensity from {} FLOP/byte (a decimal or a fraction such as 1/8)",
                    range_text(OI_RANGE)
                ),
                format!(
                    "an intensity from {} FLOP/byte, such as 2 or 1/8",
                    range_text(OI_RANGE)
                ),
            ),
        };
        match self.problem {
            Problem::OutOfRange | Problem::Number(NumberError::Negative) => {
                write!(f, "must be {what}, found '{text}'")
            }
            Problem::Number(NumberError::Empty) => write!(f, "is empty; enter {example}"),
            Problem::Number(e) => write!(f, "'{text}' {e}; enter {example}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for KnobError {
    fn from(e: ReadError) -> KnobError {
        KnobError::new(e.knob, e.to_string())
    }
}

/// Reads a number of the lab: what is wrong with its syntax comes first, then its range.
fn parse_in(text: &str, knob: Knob, range: Range) -> Result<Exact, ReadError> {
    match Exact::read(text) {
        Ok(x) if in_range(x, range) => Ok(x),
        Ok(_) => Err(ReadError::new(knob, text, Problem::OutOfRange)),
        Err(e) => Err(ReadError::new(knob, text, Problem::Number(e))),
    }
}

fn parse_oi(text: &str) -> Result<Exact, ReadError> {
    parse_in(text, Knob::Oi, OI_RANGE)
}

fn parse_bw(text: &str) -> Result<Exact, ReadError> {
    parse_in(text, Knob::Bw, BW_RANGE)
}

fn parse_prediction(text: &str) -> Result<Option<Exact>, ReadError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    Exact::read(text)
        .map(Some)
        .map_err(|e| ReadError::new(Knob::Prediction, text, Problem::Number(e)))
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
        let mut keep = |r: Result<_, ReadError>| r.map_err(|e| errors.push(e.into())).ok();
        let oi = keep(parse_oi(&self.oi).map(Some));
        let bw = keep(parse_bw(&self.bw).map(Some));
        let prediction = keep(parse_prediction(&self.prediction));
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
