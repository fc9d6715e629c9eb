//! Opening the lab from another panel: the calculator's useful fraction scales the lab's
//! intensity, and the kernel view's FLOPs over DRAM bytes sets it. Each hand-off is refused,
//! with its reason, whenever the lab would not open on a valid intensity, and leaves a note
//! that retires itself once the learner changes I or B.

use super::super::exact::Exact;
use super::super::format::number;
use super::super::sectors::Ratio;
use super::{in_range, parse_oi, Lab, OI_RANGE};
use std::fmt;

/// Why "Use this efficiency" cannot hand the calculator's scenario to the lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandOffRefusal {
    /// A calculator field is in error: the results on show are not this scenario's.
    CalculatorInvalid,
    /// No lane is active, so there is no useful fraction.
    NoActiveLane,
    /// The calculator reads shared memory, which moves no DRAM bytes.
    SharedMemory,
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
            HandOffRefusal::SharedMemory => f.write_str(
                "Shared memory moves no DRAM bytes, so it does not change the kernel's \
                 intensity; its cost is in wavefronts.",
            ),
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
        let percent = super::super::format::percent(Some(Ratio {
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
