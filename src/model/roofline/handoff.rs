//! Opening the lab from another panel, in either mode: the calculator's useful fraction scales
//! the lab's intensity, a kernel's FLOPs over DRAM bytes sets it (in machine mode: two named
//! points), and the probe's contiguous GB/s becomes a bandwidth ceiling. The kernel view and
//! the CUDA panel hand over the same [`Work`], through the same path. [`HandOff`] is
//! each panel's one path for both modes: what pressing its button changes, or why it is
//! refused, and the sentence beside the button. A course-lab hand-off leaves a note that retires itself once
//! the learner changes I or B.

use super::super::exact::Exact;
use super::super::flops::FlopsField;
use super::super::format::number;
use super::super::probe::Report;
use super::super::sectors::{Analysis, Ratio};
use super::{
    in_range, kernel_points, on_roof, parse_oi, probe_ceiling_name, probe_contiguous_gbps, Lab,
    MachineInputs, ProbeGap, OI_RANGE,
};
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
    LabInvalid {
        /// The lab's `oi` text, trimmed.
        oi: String,
    },
    /// Scaling would take the intensity below the lab's floor of 1/64 FLOP/byte.
    BelowFloor {
        /// The lab's intensity, FLOP/byte.
        oi: String,
        /// The intensity after scaling by the useful fraction, FLOP/byte.
        scaled: String,
    },
    /// The kernel moves no DRAM byte, so its intensity is undefined.
    NoTraffic,
    /// The kernel's intensity lies outside the lab's 1/64 to 1024 FLOP/byte.
    OutOfRange {
        /// The kernel's FLOPs ÷ DRAM bytes, FLOP/byte, for people.
        intensity: String,
        /// The field that counts the kernel's FLOPs, which the sentence points to.
        field: FlopsField,
    },
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
            HandOffRefusal::OutOfRange { intensity, field } => write!(
                f,
                "The kernel's intensity, {intensity} FLOP/byte, is outside the lab's 1/64 to 1024; set {} to the FLOPs {}.",
                field.param, field.per
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
    /// The lab opened from a kernel: I = `work`'s FLOPs ÷ DRAM bytes, B kept, and the note
    /// that explains it.
    ///
    /// ```
    /// use coalescing_lab::model::{exact::Exact, flops::KERNEL_FLOPS, roofline::{HandOffRefusal, Lab, Work}};
    /// let work = Work { flops: Exact::parse("1048576").unwrap(), dram_bytes: 4194304, request_bytes: 4194304, name: "kernel".into(), field: KERNEL_FLOPS };
    /// let (lab, note) = Lab::default().with_kernel_intensity(&work).unwrap();
    /// assert_eq!(lab.oi, "0.25");
    /// assert_eq!(note.text_for(&lab), Some("The kernel's 1048576 FLOPs over 4194304 DRAM bytes: intensity 0.25 FLOP/byte."));
    /// // A fraction too long to type is rounded, and said to be.
    /// let flops = Exact::ONE.times_ratio(123456789012345678, 1).unwrap();
    /// let long = Work { flops, dram_bytes: 98765432109876543, ..work.clone() };
    /// let (lab, note) = Lab::default().with_kernel_intensity(&long).unwrap();
    /// assert_eq!(lab.oi, "1.25");
    /// assert_eq!(note.text_for(&lab), Some("The kernel's 123456789012345678 FLOPs over 98765432109876543 DRAM bytes: intensity ≈ 1.25 FLOP/byte."));
    /// // Degenerate input: no DRAM traffic.
    /// let idle = Work { dram_bytes: 0, ..work };
    /// assert_eq!(Lab::default().with_kernel_intensity(&idle).unwrap_err(), HandOffRefusal::NoTraffic);
    /// ```
    pub fn with_kernel_intensity(&self, work: &Work) -> Result<(Lab, LabNote), HandOffRefusal> {
        let intensity = work.intensity().ok_or(HandOffRefusal::NoTraffic)?;
        if !in_range(intensity, OI_RANGE) {
            return Err(HandOffRefusal::OutOfRange {
                intensity: intensity.to_string(),
                field: work.field,
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
                "The kernel's {} FLOPs over {} DRAM bytes: intensity {about}{} FLOP/byte.",
                work.flops, work.dram_bytes, lab.oi
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
        let oi = parse_oi(&self.oi)
            .map_err(|_| HandOffRefusal::LabInvalid { oi: self.oi.trim().to_string() })?;
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
        let lab = Lab { oi: scaled.to_string(), ..self.clone() };
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

/// A kernel's work and traffic as "Use this kernel" reads them, from the kernel view or the
/// CUDA panel: every thread's FLOPs together over the launch's DRAM and request-level bytes.
///
/// ```
/// use coalescing_lab::model::{exact::Exact, flops::CUDA_FLOPS, roofline::Work};
/// let work = Work { flops: Exact::parse("8192").unwrap(), dram_bytes: 32768, request_bytes: 32768, name: "copy".into(), field: CUDA_FLOPS };
/// assert_eq!(work.intensity().unwrap().to_string(), "0.25");
/// // Degenerate input: no DRAM byte, no intensity.
/// assert_eq!(Work { dram_bytes: 0, ..work }.intensity(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Work {
    /// Every thread's FLOPs together, active or not.
    pub flops: Exact,
    /// Bytes read from and written back to DRAM through the cache model.
    pub dram_bytes: u64,
    /// Request-level bytes: request-level sectors × the sector size.
    pub request_bytes: u64,
    /// What machine mode names the points after: `kernel`, or the CUDA kernel's name.
    pub name: String,
    /// The field that counts the FLOPs, which a refusal points to.
    pub field: FlopsField,
}

impl Work {
    /// FLOPs ÷ DRAM bytes, FLOP/byte; `None` with no DRAM traffic.
    pub fn intensity(&self) -> Option<Exact> {
        self.flops.times_ratio(1, u128::from(self.dram_bytes))
    }
}

/// What pressing a hand-off changes; the page then shows the lab.
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    /// The lab's new inputs and the note that explains them; `None` leaves the lab as it is.
    pub lab: Option<(Lab, LabNote)>,
    /// Machine mode's new inputs; `None` leaves them as they are.
    pub roofs: Option<MachineInputs>,
}

/// A hand-off worked out against the lab as it is now, in whichever mode it is in. Each panel
/// has its own constructor, so the calculator's first load carries only its own.
///
/// ```
/// use coalescing_lab::model::inputs::Inputs;
/// use coalescing_lab::model::roofline::{HandOff, Lab, MachineInputs};
/// use coalescing_lab::model::sectors::analyze;
/// let shown = analyze(&Inputs { idx: "2*t".into(), ..Inputs::default() }).unwrap();
/// let lab = Lab { oi: "2".into(), ..Lab::default() };
/// let h = HandOff::calculator(&shown, true, &lab, &MachineInputs::default());
/// let (scaled, _) = h.opened.unwrap().lab.unwrap();
/// assert_eq!(scaled.oi, "1");
/// // Degenerate input: a field in error refuses, and says why.
/// let h = HandOff::calculator(&shown, false, &lab, &MachineInputs::default());
/// assert_eq!((h.opened, h.hint.as_str()), (None, "Not available: Fix the calculator's field marked in red first."));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HandOff {
    /// What pressing the button does; `None` while it is refused (the button is disabled).
    pub opened: Option<Opened>,
    /// The sentence beside the button: what it does, or why it is not available.
    pub hint: String,
}

/// What "Use this efficiency" does.
const CALCULATOR_HINT: &str =
    "Scales the lab's intensity by the useful fraction: bytes ÷ e at fixed FLOPs.";
/// What "Use this kernel" does in the course's lab.
const KERNEL_HINT: &str = "I = total FLOPs ÷ DRAM bytes.";
/// What "Use this kernel" does in machine mode.
const KERNEL_MACHINE_HINT: &str = "Machine mode: adds two points, I = FLOPs ÷ DRAM bytes and \
                                   I = FLOPs ÷ request-level bytes, each on its roof.";

impl HandOff {
    /// From the calculator: `shown` is the results on show, and `valid` is false while one of
    /// its fields is in error (the results on show are then the last valid scenario's).
    ///
    /// The calculator's scenario scales the lab's intensity; in machine mode the scaled intensity
    /// also becomes the point `calculator` on its roof (when there is room for it).
    pub fn calculator(shown: &Analysis, valid: bool, lab: &Lab, roofs: &MachineInputs) -> HandOff {
        // Shared memory moves no DRAM bytes: the lab's intensity is not the calculator's to change.
        let scaled = if shown.banks.is_some() {
            Err(HandOffRefusal::SharedMemory)
        } else {
            let useful = valid.then(|| {
                shown
                    .totals
                    .efficiency()
                    .unwrap_or(Ratio { numerator: 0, denominator: 1 })
            });
            lab.hand_off(useful)
        };
        let (scaled, note) = match scaled {
            Ok(opened) => opened,
            Err(why) => return HandOff::refused(why),
        };
        let roofs = roofs.custom.then(|| {
            let mut roofs = roofs.clone();
            if let Ok(point) = on_roof(&roofs, "calculator", Exact::parse(&scaled.oi)) {
                // Twelve points already: the lab's intensity still changes.
                let _ = roofs.add_point(point);
            }
            roofs
        });
        HandOff {
            opened: Some(Opened { lab: Some((scaled, note)), roofs }),
            hint: CALCULATOR_HINT.into(),
        }
    }

    /// From a kernel, the kernel view's or the CUDA panel's: its work, `None` until a run has
    /// finished.
    ///
    /// The kernel's FLOPs over DRAM bytes sets the lab's intensity; in machine mode the kernel
    /// becomes two named points instead: its intensity against DRAM bytes and against
    /// request-level bytes, which is what coalescing changes.
    pub fn kernel(work: Option<&Work>, lab: &Lab, roofs: &MachineInputs) -> HandOff {
        let waiting = |hint: &str| HandOff { opened: None, hint: hint.into() };
        let Some(work) = work else {
            return waiting(if roofs.custom {
                KERNEL_MACHINE_HINT
            } else {
                KERNEL_HINT
            });
        };
        if roofs.custom {
            return match kernel_points(
                roofs,
                &work.name,
                work.flops,
                work.dram_bytes,
                work.request_bytes,
            ) {
                Ok(machine) => HandOff {
                    opened: Some(Opened { lab: None, roofs: Some(machine) }),
                    hint: KERNEL_MACHINE_HINT.into(),
                },
                Err(why) => HandOff::refused(format!("{why}.")),
            };
        }
        match lab.with_kernel_intensity(work) {
            Ok(opened) => HandOff {
                opened: Some(Opened { lab: Some(opened), roofs: None }),
                hint: KERNEL_HINT.into(),
            },
            Err(why) => HandOff::refused(why),
        }
    }

    /// From the probe: its finished run, `None` until one has finished.
    ///
    /// The probe's contiguous GB/s becomes a bandwidth ceiling named after the adapter (a
    /// software adapter's name says so: it measures the CPU, not a GPU), and the lab switches to
    /// machine mode, started from the course's roof if it was never set up.
    pub fn probe(report: Option<&Report>, lab: &Lab, roofs: &MachineInputs) -> HandOff {
        let Some(report) = report else {
            return HandOff::refused(format!("{}.", ProbeGap::NoRun));
        };
        let gbps = match probe_contiguous_gbps(report) {
            Ok(gbps) => gbps,
            Err(why) => return HandOff::refused(format!("{why}.")),
        };
        let name = probe_ceiling_name(&report.adapter);
        let mut machine = if *roofs == MachineInputs::default() {
            MachineInputs::from_course(lab)
        } else {
            roofs.clone()
        };
        machine.custom = true;
        // Full: nothing is added, and the hint still says what the button would add.
        let _ = machine.add_bandwidth(&name, &gbps);
        let software = if report.adapter.is_software() {
            " A software adapter is not a GPU: this is your CPU's memory through an emulator."
        } else {
            ""
        };
        HandOff {
            opened: Some(Opened { lab: None, roofs: Some(machine) }),
            hint: format!(
                "Adds '{name}' at {gbps} GB/s (the 4 B stride's useful bandwidth) to the Roofline \
                 lab's machine mode.{software}"
            ),
        }
    }

    fn refused(why: impl fmt::Display) -> HandOff {
        HandOff {
            opened: None,
            hint: format!("Not available: {why}"),
        }
    }
}
