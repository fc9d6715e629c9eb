//! Predict first, then reveal: checking a learner's predicted N_tx (and, optionally, the
//! efficiency) against the analysis, and saying how far off it was, in which direction.
//!
//! A [`Verdict`] belongs to the scenario it was made for: once the scenario changes, it no
//! longer speaks about what is on screen, and the page asks for a new prediction.

use super::super::exact::Exact;
use super::super::format::plural;
use super::super::format::{percent, percent_tenths};
use super::inputs::{Inputs, Space};
use super::sectors::Analysis;
use std::fmt;

/// The two prediction fields, named by their input ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredictField {
    /// `predict-ntx`: the predicted number of distinct sectors.
    Sectors,
    /// `predict-efficiency`: the predicted efficiency, optional.
    Efficiency,
}

impl PredictField {
    /// The field's name as the learner sees it.
    pub fn label(self) -> &'static str {
        match self {
            PredictField::Sectors => "predicted N_tx",
            PredictField::Efficiency => "predicted efficiency",
        }
    }
}

/// A prediction that could not be read; the field says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PredictError {
    /// The field at fault.
    pub field: PredictField,
    /// The field's name as the learner sees it in this memory space.
    label: &'static str,
    message: &'static str,
}

impl fmt::Display for PredictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.label, self.message)
    }
}

impl std::error::Error for PredictError {}

/// How the learner wrote the efficiency, said back to them so the reading is never a guess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// With a `%` sign: `80 %` is 0.8.
    Percentage,
    /// A bare number is a ratio: `0.8` is 80 %, and `4` is 400 % (the course's broadcast).
    Ratio,
}

/// What the learner predicted, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Predicted number of distinct sectors.
    pub sectors: u64,
    /// Predicted efficiency as a ratio (0.8 for 80 %), and how it was written, if given.
    pub efficiency: Option<(f64, Written)>,
}

/// Reads the two prediction fields. N_tx is a whole number. The efficiency may be left empty,
/// written as a percentage with its sign (`80 %`), or as a ratio (`0.8`, or `4` for a
/// broadcast at 400 %): a bare number is always a ratio, so nothing is guessed.
///
/// ```
/// use coalescing_lab::model::predict::{read, Written};
/// assert_eq!(read("5", "80 %").unwrap().efficiency, Some((0.8, Written::Percentage)));
/// assert_eq!(read("5", "0.8").unwrap().efficiency, Some((0.8, Written::Ratio)));
/// assert_eq!(read("1", "4").unwrap().efficiency, Some((4.0, Written::Ratio)));
/// assert_eq!(read(" 5 ", "").unwrap().sectors, 5);
/// // Degenerate input: N_tx is required.
/// assert_eq!(
///     read("", "").unwrap_err().to_string(),
///     "predicted N_tx: enter a whole number of sectors, such as 4"
/// );
/// ```
pub fn read(sectors: &str, efficiency: &str) -> Result<Prediction, PredictError> {
    read_in(Space::Global, sectors, efficiency)
}

/// [`read`] for an instruction in `space`: in shared memory the count is of wavefronts.
///
/// ```
/// use coalescing_lab::model::{inputs::Space, predict::read_in};
/// assert_eq!(
///     read_in(Space::Shared, "many", "").unwrap_err().to_string(),
///     "predicted wavefronts: enter a whole number of wavefronts, such as 1"
/// );
/// ```
pub fn read_in(space: Space, sectors: &str, efficiency: &str) -> Result<Prediction, PredictError> {
    let sectors = sectors.trim().parse::<u64>().map_err(|_| PredictError {
        field: PredictField::Sectors,
        label: count_label(space),
        message: match space {
            Space::Global => "enter a whole number of sectors, such as 4",
            Space::Shared => "enter a whole number of wavefronts, such as 1",
        },
    })?;
    let text = efficiency.trim();
    let efficiency = if text.is_empty() {
        None
    } else {
        let (number, written) = match text.strip_suffix('%') {
            Some(n) => (n.trim(), Written::Percentage),
            None => (text, Written::Ratio),
        };
        // Exact decimals, as in the Roofline lab: no float parser in the page for one field.
        let value = Exact::parse(number)
            .map(Exact::value)
            .ok_or(PredictError {
                field: PredictField::Efficiency,
                label: PredictField::Efficiency.label(),
                message: "leave it empty, or enter a ratio such as 0.8 (or 4 for a broadcast) or a percentage such as 80 %",
            })?;
        Some(match written {
            Written::Percentage => (value / 100.0, written),
            Written::Ratio => (value, written),
        })
    };
    Ok(Prediction { sectors, efficiency })
}

/// The count's name in `space`: "predicted N_tx", or "predicted wavefronts".
pub fn count_label(space: Space) -> &'static str {
    match space {
        Space::Global => PredictField::Sectors.label(),
        Space::Shared => "predicted wavefronts",
    }
}

/// The feedback after Reveal, one sentence per predicted figure. The efficiency's sentence
/// says how the learner's number was read.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, predict::{feedback, read}, sectors::analyze};
/// let ex2 = analyze(&Inputs { base: "8".into(), ..Inputs::default() }).unwrap();
/// assert_eq!(
///     feedback(&ex2, read("4", "100 %").unwrap()),
///     "Not quite: the warp touches 5 sectors, 1 more than your 4. \
///      Efficiency is 80 %, 20 points below your 100 % (read as a percentage)."
/// );
/// assert_eq!(feedback(&ex2, read("5", "").unwrap()), "Right: the warp touches 5 sectors.");
/// ```
pub fn feedback(a: &Analysis, p: Prediction) -> String {
    if let Some(banks) = &a.banks {
        return shared_feedback(banks.totals, p);
    }
    let mut text = judged("touches", a.totals.sectors, "sector", p.sectors, "");
    if let Some((guess, written)) = p.efficiency {
        let truth = a.totals.efficiency();
        let shown = percent(truth);
        let yours = percent_tenths(guess);
        let read_as = match written {
            Written::Percentage => "read as a percentage".to_string(),
            Written::Ratio => format!("your {} read as a ratio", trim_ratio(guess)),
        };
        match truth.map(|r| r.value()) {
            None => text.push_str(" Efficiency is undefined: no lane is active."),
            Some(value) => {
                let points = percent_tenths(value - guess);
                text.push_str(&if points == 0.0 {
                    format!(" Efficiency {shown}: right too ({yours} %, {read_as}).")
                } else {
                    format!(
                        " Efficiency is {shown}, {} points {} your {yours} % ({read_as}).",
                        points.abs(),
                        if points > 0.0 { "above" } else { "below" }
                    )
                });
            }
        }
    }
    text
}

/// "Right: the warp touches 5 sectors." or "Not quite: the warp touches 5 sectors, 1 more than
/// your 4.", with `after` before the full stop.
fn judged(verb: &str, actual: u64, unit: &str, predicted: u64, after: &str) -> String {
    let counted = format!("the warp {verb} {actual} {unit}{}", plural(actual));
    if predicted == actual {
        return format!("Right: {counted}{after}.");
    }
    let (diff, word) = if actual > predicted {
        (actual - predicted, "more")
    } else {
        (predicted - actual, "fewer")
    };
    format!("Not quite: {counted}, {diff} {word} than your {predicted}{after}.")
}

/// The feedback in shared memory: the wavefronts, and the conflicts among them.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, predict::{feedback, read}, sectors::analyze};
/// let column = analyze(&Inputs { space: "shared".into(), idx: "32*t".into(), ..Inputs::default() }).unwrap();
/// assert_eq!(
///     feedback(&column, read("1", "").unwrap()),
///     "Not quite: the warp needs 32 wavefronts, 31 more than your 1 (31 of them bank conflicts)."
/// );
/// ```
fn shared_feedback(t: super::super::banks::Wavefronts, p: Prediction) -> String {
    let conflicts = match t.conflicts() {
        0 => " (no bank conflict)".to_string(),
        n => format!(" ({n} of them bank conflict{})", plural(n)),
    };
    let mut text = judged("needs", t.wavefronts, "wavefront", p.sectors, &conflicts);
    if p.efficiency.is_some() {
        text.push_str(
            " Efficiency is not judged here: it is a global-memory figure, and shared memory \
             is counted in wavefronts.",
        );
    }
    text
}

/// A ratio as the learner would have typed it: `4`, `0.8`, `0.0625`.
fn trim_ratio(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A revealed prediction's feedback, tied to the scenario it was made for.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, predict::{read, Verdict}, sectors::analyze};
/// let ex1 = Inputs::default();
/// let verdict = Verdict::new(&ex1, &analyze(&ex1).unwrap(), read("4", "").unwrap());
/// assert_eq!(verdict.feedback_for(&ex1), Some("Right: the warp touches 4 sectors."));
/// // Any change of the scenario retires the verdict: it spoke about another warp.
/// let ex3 = Inputs { idx: "2*t".into(), ..Inputs::default() };
/// assert_eq!(verdict.feedback_for(&ex3), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    scenario: Inputs,
    feedback: String,
}

impl Verdict {
    /// Judges `prediction` against `analysis`, the analysis of `scenario`.
    pub fn new(scenario: &Inputs, analysis: &Analysis, prediction: Prediction) -> Verdict {
        Verdict {
            scenario: scenario.clone(),
            feedback: feedback(analysis, prediction),
        }
    }

    /// The feedback, while `scenario` is still the one it was made for; `None` once it changed.
    pub fn feedback_for(&self, scenario: &Inputs) -> Option<&str> {
        (self.scenario == *scenario).then_some(self.feedback.as_str())
    }
}
