//! The lab's machine mode (`roofs=custom`): named bandwidth ceilings (`bw.N=NAME:GBps`), named
//! compute ceilings (`peak.N=NAME:GFLOPs`), a GPU preset (`machine=`) that supplies them, and
//! named points (`pt.N=NAME:I:P[:BW[:PEAK]]`) read against them.
//!
//! A point's roof is `min(P_PEAK, I × B_BW)`: by default against the lowest bandwidth and the
//! highest peak, the hierarchical roofline's reading of one intensity per memory level. It is
//! bound by the lower of the two, and by the compute ceiling at equality, as the course's lab
//! decides. Every number stays exact as typed, and the comparison at the ridge is exact too.
//! Inputs are raw text, as the URL carries them; a bad one is named, and its default (the
//! preset's value, or nothing) is used. Knows nothing of charts or the browser.

use super::super::error::{FieldError, FieldName};
use super::super::exact::Exact;
use super::gpus::GpuPreset;
use super::machine_read::{read_ceiling, read_point};
use super::{Bound, Range, Roof};
use std::fmt;

/// Most bandwidth ceilings (`bw.1` … `bw.6`).
pub const MAX_BW: usize = 6;
/// Most compute ceilings (`peak.1` … `peak.6`).
pub const MAX_PEAK: usize = 6;
/// Most named points (`pt.1` … `pt.12`).
pub const MAX_POINTS: usize = 12;

/// Bandwidths, GB/s: 1/1000 to 10^7 (a phone's DRAM to beyond any HBM).
pub(super) const BW_RANGE: Range = ((1, 1000), (10_000_000, 1));
/// Compute ceilings and measured performance, GFLOP/s: 1/1000 to 10^8.
pub(super) const FLOPS_RANGE: Range = ((1, 1000), (100_000_000, 1));
/// A point's intensity, FLOP/byte: 1/4096 to 2^20.
pub(super) const OI_RANGE: Range = ((1, 4096), (1_048_576, 1));
/// Longest ceiling or point name.
pub(super) const MAX_NAME: usize = 24;

/// One input of the machine mode, named by its URL parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineField {
    /// `machine`: the preset.
    Preset,
    /// `bw.N`, N from 1.
    Bw(u8),
    /// `peak.N`, N from 1.
    Peak(u8),
    /// `pt.N`, N from 1.
    Point(u8),
}

impl MachineField {
    /// The URL parameter: `machine`, `bw.2`, `peak.1`, `pt.12`.
    pub fn param(self) -> String {
        match self {
            MachineField::Preset => "machine".into(),
            MachineField::Bw(n) => format!("bw.{n}"),
            MachineField::Peak(n) => format!("peak.{n}"),
            MachineField::Point(n) => format!("pt.{n}"),
        }
    }

    /// The field whose parameter is `key`, if any: `bw.1` … `bw.6`, `peak.1` … `peak.6`,
    /// `pt.1` … `pt.12` and `machine`, written exactly so.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::MachineField;
    /// assert_eq!(MachineField::from_param("pt.12"), Some(MachineField::Point(12)));
    /// assert_eq!(MachineField::from_param("bw.7"), None);
    /// assert_eq!(MachineField::from_param("bw.01"), None);
    /// ```
    pub fn from_param(key: &str) -> Option<MachineField> {
        if key == "machine" {
            return Some(MachineField::Preset);
        }
        let (kind, n) = key.split_once('.')?;
        let slot: u8 = n.parse().ok().filter(|s: &u8| s.to_string() == n)?;
        let (field, most): (fn(u8) -> MachineField, usize) = match kind {
            "bw" => (MachineField::Bw, MAX_BW),
            "peak" => (MachineField::Peak, MAX_PEAK),
            "pt" => (MachineField::Point, MAX_POINTS),
            _ => return None,
        };
        (1..=most).contains(&usize::from(slot)).then(|| field(slot))
    }
}

impl FieldName for MachineField {
    fn param(self) -> impl fmt::Display {
        MachineField::param(self)
    }
}

/// A problem with one input of the machine mode; its message says what is used instead.
pub type MachineError = FieldError<MachineField>;

/// The machine mode's inputs as text, slot by slot (empty: no entry).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MachineInputs {
    /// `roofs=custom`: the machine's ceilings replace the course's fixed roof.
    pub custom: bool,
    /// `machine`: a preset id, as typed; empty for none.
    pub preset: String,
    /// `bw.N`: `NAME:GBps`. A preset fills its slots; an explicit value overrides one.
    pub bw: [String; MAX_BW],
    /// `peak.N`: `NAME:GFLOPs`.
    pub peak: [String; MAX_PEAK],
    /// `pt.N`: `NAME:I:P[:BW[:PEAK]]`.
    pub points: [String; MAX_POINTS],
}

/// A bandwidth or compute ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeilingKind {
    /// A memory level's bandwidth, GB/s: a diagonal P = I × B.
    Bandwidth,
    /// A compute peak, GFLOP/s: a flat roof.
    Compute,
}

impl CeilingKind {
    /// `data-kind`: `bw` or `peak`.
    pub fn value(self) -> &'static str {
        match self {
            CeilingKind::Bandwidth => "bw",
            CeilingKind::Compute => "peak",
        }
    }

    /// The unit of its value.
    pub fn unit(self) -> &'static str {
        match self {
            CeilingKind::Bandwidth => "GB/s",
            CeilingKind::Compute => "GFLOP/s",
        }
    }
}

/// One valid ceiling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ceiling {
    /// Bandwidth or compute.
    pub kind: CeilingKind,
    /// Its slot N (`bw.N` or `peak.N`).
    pub slot: u8,
    /// As typed, trimmed; unique among the ceilings of its kind.
    pub name: String,
    /// GB/s for a bandwidth, GFLOP/s for a peak.
    pub value: Exact,
}

/// One named point read against its ceilings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachinePoint {
    /// Its slot N (`pt.N`).
    pub slot: u8,
    /// As typed, trimmed.
    pub name: String,
    /// Intensity against the traffic of `bw`'s memory level, FLOP/byte.
    pub oi: Exact,
    /// Measured performance, GFLOP/s.
    pub p: Exact,
    /// The bandwidth ceiling its intensity is read against.
    pub bw: Ceiling,
    /// The compute ceiling it can use.
    pub peak: Ceiling,
}

impl MachinePoint {
    /// The roof of its two ceilings: its bandwidth under its compute ceiling.
    pub fn ceilings(&self) -> Roof {
        Roof::of(&self.bw, &self.peak)
    }

    /// Memory-bound while I × B < P_PEAK, compute-bound at or beyond the ridge; exact.
    pub fn bound(&self) -> Bound {
        self.ceilings().bound(self.oi)
    }

    /// The roof min(P_PEAK, I × B_BW), GFLOP/s, exactly: the attainable performance.
    pub fn roof(&self) -> Exact {
        self.ceilings().attainable(self.oi)
    }

    /// The binding ceiling's name.
    pub fn bound_by(&self) -> &str {
        match self.bound() {
            Bound::Memory => &self.bw.name,
            Bound::Compute => &self.peak.name,
        }
    }

    /// Measured P ÷ roof: 1 on the roof, above 1 only when the numbers disagree.
    pub fn fraction(&self) -> f64 {
        self.p.value() / self.roof().value()
    }

    /// The ridge P_PEAK ÷ B_BW, FLOP/byte, exactly.
    pub fn ridge(&self) -> Exact {
        self.ceilings().ridge()
    }
}

impl Roof {
    /// The roof of a bandwidth ceiling under a compute ceiling.
    pub fn of(bw: &Ceiling, peak: &Ceiling) -> Roof {
        Roof {
            bw_gbps: bw.value,
            peak_gflops: peak.value,
        }
    }
}

/// The ridge between a bandwidth ceiling and a compute ceiling: P_PEAK ÷ B_BW, FLOP/byte;
/// [`Roof::ridge`] of [`Roof::of`] the two, under the name the ridge table and its tests use.
///
/// ```
/// use coalescing_lab::model::roofline::{ridge_between, MachineInputs};
/// let m = MachineInputs::from_preset("A100").check();
/// // FP32 19500 GFLOP/s over DRAM 1555 GB/s.
/// assert_eq!(ridge_between(&m.bandwidths[0], &m.peaks[1]).to_string(), "3900/311");
/// ```
pub fn ridge_between(bw: &Ceiling, peak: &Ceiling) -> Exact {
    Roof::of(bw, peak).ridge()
}

/// The machine mode checked: the valid ceilings and points, and every problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MachineChecked {
    /// The preset named by `machine`, if it is one.
    pub preset: Option<&'static GpuPreset>,
    /// Valid bandwidth ceilings in slot order.
    pub bandwidths: Vec<Ceiling>,
    /// Valid compute ceilings in slot order.
    pub peaks: Vec<Ceiling>,
    /// Valid points in slot order.
    pub points: Vec<MachinePoint>,
    /// The slots that override the preset, as `bw.1` etc., for the page to say so.
    pub overrides: Vec<String>,
    /// Every problem, in slot order; each message ends with what is used instead.
    pub errors: Vec<MachineError>,
}

impl MachineChecked {
    /// The default bandwidth ceiling: the lowest (DRAM, normally); the first on a tie.
    pub fn default_bw(&self) -> Option<&Ceiling> {
        let mut best: Option<&Ceiling> = None;
        for c in &self.bandwidths {
            if best.is_none_or(|b| c.value < b.value) {
                best = Some(c);
            }
        }
        best
    }

    /// The default compute ceiling: the highest; the first on a tie.
    pub fn default_peak(&self) -> Option<&Ceiling> {
        let mut best: Option<&Ceiling> = None;
        for c in &self.peaks {
            if best.is_none_or(|b| c.value > b.value) {
                best = Some(c);
            }
        }
        best
    }
}

impl MachineInputs {
    /// Machine mode with `id`'s ceilings in their slots (an unknown id leaves them empty).
    pub fn from_preset(id: &str) -> MachineInputs {
        let mut m = MachineInputs { custom: true, ..MachineInputs::default() };
        m.set_preset(id);
        m
    }

    /// Machine mode started from the course's lab: its bandwidth B (100 GB/s while B is not
    /// valid) and the synthetic 1000 GFLOP/s roof, as two named ceilings.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::{Lab, MachineInputs};
    /// let m = MachineInputs::from_course(&Lab { bw: "80".into(), ..Lab::default() });
    /// assert_eq!((m.bw[0].as_str(), m.peak[0].as_str()), ("B:80", "synthetic:1000"));
    /// ```
    pub fn from_course(lab: &super::Lab) -> MachineInputs {
        let bw = super::parse_bw(&lab.bw)
            .map(|b| b.to_string())
            .unwrap_or_else(|_| super::Lab::default().bw);
        let mut m = MachineInputs { custom: true, ..MachineInputs::default() };
        m.bw[0] = format!("B:{bw}");
        m.peak[0] = format!("synthetic:{}", super::PEAK_GFLOPS);
        m
    }

    /// Picks a preset: its id, and its ceilings in their slots, replacing all ceilings.
    /// Points stay.
    pub fn set_preset(&mut self, id: &str) {
        self.preset = GpuPreset::by_id(id).map_or(id.trim(), |p| p.id).to_string();
        self.bw = Default::default();
        self.peak = Default::default();
        let (bandwidths, peaks) = (
            self.preset_slots(CeilingKind::Bandwidth),
            self.preset_slots(CeilingKind::Compute),
        );
        for (slot, text) in self.bw.iter_mut().zip(bandwidths) {
            *slot = text.to_string();
        }
        for (slot, text) in self.peak.iter_mut().zip(peaks) {
            *slot = text.to_string();
        }
    }

    /// The preset's text for each slot of `kind`, in order (none without a preset).
    pub fn preset_slots(&self, kind: CeilingKind) -> &'static [&'static str] {
        match (GpuPreset::by_id(&self.preset), kind) {
            (Some(p), CeilingKind::Bandwidth) => p.bandwidths,
            (Some(p), CeilingKind::Compute) => p.peaks,
            (None, _) => &[],
        }
    }

    /// The preset's text for the slot of `field`; empty when the preset has none.
    pub fn preset_value(&self, field: MachineField) -> &'static str {
        let (kind, n) = match field {
            MachineField::Bw(n) => (CeilingKind::Bandwidth, n),
            MachineField::Peak(n) => (CeilingKind::Compute, n),
            MachineField::Preset | MachineField::Point(_) => return "",
        };
        self.preset_slots(kind)
            .get(usize::from(n).wrapping_sub(1))
            .copied()
            .unwrap_or("")
    }

    /// The raw text of `field`.
    pub fn get(&self, field: MachineField) -> &str {
        let at = |n: u8| usize::from(n).saturating_sub(1);
        match field {
            MachineField::Preset => &self.preset,
            MachineField::Bw(n) => self.bw.get(at(n)).map_or("", String::as_str),
            MachineField::Peak(n) => self.peak.get(at(n)).map_or("", String::as_str),
            MachineField::Point(n) => self.points.get(at(n)).map_or("", String::as_str),
        }
    }

    /// Replaces the raw text of `field`; a slot out of range is ignored.
    pub fn set(&mut self, field: MachineField, text: String) {
        let at = |n: u8| usize::from(n).wrapping_sub(1);
        let slot = match field {
            MachineField::Preset => Some(&mut self.preset),
            MachineField::Bw(n) => self.bw.get_mut(at(n)),
            MachineField::Peak(n) => self.peak.get_mut(at(n)),
            MachineField::Point(n) => self.points.get_mut(at(n)),
        };
        if let Some(slot) = slot {
            *slot = text;
        }
    }

    /// Validates the preset, every ceiling and every point.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::MachineInputs;
    /// let mut m = MachineInputs::from_preset("V100");
    /// m.points[0] = "saxpy:1/6:100".into();
    /// let c = m.check();
    /// let p = &c.points[0];
    /// assert_eq!((p.roof().to_string().as_str(), p.bound_by()), ("150", "DRAM"));
    /// ```
    pub fn check(&self) -> MachineChecked {
        let mut out = MachineChecked {
            preset: GpuPreset::by_id(&self.preset),
            ..MachineChecked::default()
        };
        if !self.preset.trim().is_empty() && out.preset.is_none() {
            out.errors.push(MachineError::new(
                MachineField::Preset,
                format!(
                    "'{}' is not a GPU preset ({}); using none",
                    self.preset.trim(),
                    GpuPreset::ids()
                ),
            ));
        }
        for (kind, texts) in [
            (CeilingKind::Bandwidth, &self.bw[..]),
            (CeilingKind::Compute, &self.peak[..]),
        ] {
            for (i, text) in texts.iter().enumerate() {
                let slot = i as u8 + 1;
                let field = match kind {
                    CeilingKind::Bandwidth => MachineField::Bw(slot),
                    CeilingKind::Compute => MachineField::Peak(slot),
                };
                let preset = self.preset_value(field);
                if out.preset.is_some() && text != preset {
                    out.overrides.push(field.param());
                }
                if text.trim().is_empty() {
                    continue;
                }
                let taken = match kind {
                    CeilingKind::Bandwidth => &out.bandwidths,
                    CeilingKind::Compute => &out.peaks,
                };
                match read_ceiling(kind, slot, text, taken) {
                    Ok(c) => match kind {
                        CeilingKind::Bandwidth => out.bandwidths.push(c),
                        CeilingKind::Compute => out.peaks.push(c),
                    },
                    Err(why) => out.errors.push(MachineError::new(field, why.to_string())),
                }
            }
        }
        for (i, text) in self.points.iter().enumerate() {
            if text.trim().is_empty() {
                continue;
            }
            let slot = i as u8 + 1;
            let mut notes = Vec::new();
            match read_point(slot, text, &out, &mut notes) {
                Ok(p) => out.points.push(p),
                Err(why) => notes.push(why),
            }
            for why in notes {
                out.errors.push(MachineError::new(
                    MachineField::Point(slot),
                    why.to_string(),
                ));
            }
        }
        out
    }
}
