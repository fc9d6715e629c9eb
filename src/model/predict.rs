//! Predict first, then reveal: checking a learner's predicted N_tx (and, optionally, the
//! efficiency) against the analysis, and saying how far off it was, in which direction.

use super::derivation::plural;
use super::format::percent;
use super::roofline::Exact;
use super::sectors::Analysis;

/// What the learner predicted, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Predicted number of distinct sectors.
    pub sectors: u64,
    /// Predicted efficiency as a fraction (0.8 for 80 %), if given.
    pub efficiency: Option<f64>,
}

/// Reads the two prediction fields. N_tx is a whole number; the efficiency may be left empty,
/// or written as a percentage (`80`, `80 %`) or a fraction (`0.8`).
///
/// ```
/// use coalescing_lab::model::predict::read;
/// assert_eq!(read("5", "80 %").unwrap().efficiency, Some(0.8));
/// assert_eq!(read("5", "0.8").unwrap().efficiency, Some(0.8));
/// assert_eq!(read(" 5 ", "").unwrap().sectors, 5);
/// // Degenerate input: N_tx is required.
/// assert_eq!(read("", "").unwrap_err(), "predicted N_tx: enter a whole number of sectors, such as 4");
/// ```
pub fn read(sectors: &str, efficiency: &str) -> Result<Prediction, String> {
    let sectors = sectors
        .trim()
        .parse::<u64>()
        .map_err(|_| "predicted N_tx: enter a whole number of sectors, such as 4".to_string())?;
    let text = efficiency.trim();
    let efficiency = if text.is_empty() {
        None
    } else {
        let (number, is_percent) = match text.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (text, false),
        };
        // Exact decimals, as in the Roofline lab: no float parser in the page for one field.
        let value = Exact::parse(number)
            .map(Exact::value)
            .ok_or_else(|| {
                "predicted efficiency: leave it empty, or enter a percentage such as 80 % or a fraction such as 0.8".to_string()
            })?;
        // Above 1 without a sign can only be a percentage; 1 itself reads as 100 %.
        Some(if is_percent || value > 1.0 {
            value / 100.0
        } else {
            value
        })
    };
    Ok(Prediction {
        sectors,
        efficiency,
    })
}

/// The feedback after Reveal, one sentence per predicted figure.
///
/// ```
/// use coalescing_lab::model::{inputs::Inputs, predict::{feedback, read}, sectors::analyze};
/// let ex2 = analyze(&Inputs { base: "8".into(), ..Inputs::default() }).unwrap();
/// assert_eq!(
///     feedback(&ex2, read("4", "100").unwrap()),
///     "Not quite: the warp touches 5 sectors, 1 more than your 4. \
///      Efficiency is 80 %, 20 points below your 100 %."
/// );
/// assert_eq!(feedback(&ex2, read("5", "").unwrap()), "Right: the warp touches 5 sectors.");
/// ```
pub fn feedback(a: &Analysis, p: Prediction) -> String {
    let actual = a.totals.sectors;
    let mut text = if p.sectors == actual {
        format!("Right: the warp touches {actual} sector{}.", plural(actual))
    } else {
        let (diff, word) = if actual > p.sectors {
            (actual - p.sectors, "more")
        } else {
            (p.sectors - actual, "fewer")
        };
        format!(
            "Not quite: the warp touches {actual} sector{}, {diff} {word} than your {}.",
            plural(actual),
            p.sectors
        )
    };
    if let Some(guess) = p.efficiency {
        let truth = a.totals.efficiency();
        let shown = percent(truth);
        match truth.map(|r| r.value()) {
            None => text.push_str(" Efficiency is undefined: no lane is active."),
            Some(value) => {
                let points = ((value - guess) * 1000.0).round() / 10.0;
                let yours = (guess * 1000.0).round() / 10.0;
                text.push_str(&if points == 0.0 {
                    format!(" Efficiency {shown}: right too.")
                } else {
                    format!(
                        " Efficiency is {shown}, {} points {} your {yours} %.",
                        points.abs(),
                        if points > 0.0 { "above" } else { "below" }
                    )
                });
            }
        }
    }
    text
}
