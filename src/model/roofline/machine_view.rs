//! The machine mode in words and machine values: the ceiling and point rows with their
//! `data-*` values, the ridges between every bandwidth and every peak, the chart's text
//! alternative, and the points handed over by the kernel view and the calculator.

use super::super::error::FieldError;
use super::super::exact::Exact;
use super::super::format::{number, percent_tenths};
use super::machine::{
    Ceiling, CeilingKind, MachineChecked, MachineField, MachineInputs, MachinePoint, MAX_BW,
    MAX_POINTS,
};
pub use super::machine_read::{clean_name, short_decimal, typeable};
use std::fmt;

/// One ceiling as a row: `data-kind`, `data-name`, `data-value` and its text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CeilingRow {
    /// `bw` or `peak`.
    pub kind: &'static str,
    /// `bw.N` or `peak.N`.
    pub param: String,
    /// The ceiling's name as typed, e.g. `DRAM` or `FP64`: `data-name`.
    pub name: String,
    /// The exact value as text (GB/s or GFLOP/s).
    pub value: String,
    /// For people, with its unit.
    pub text: String,
}

/// Every valid ceiling, bandwidths first.
///
/// ```
/// use coalescing_lab::model::roofline::{ceiling_rows, MachineInputs};
/// let rows = ceiling_rows(&MachineInputs::from_preset("A100").check());
/// let first: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r.kind, r.name.as_str(), r.value.as_str())).take(2).collect();
/// assert_eq!(first, [("bw", "DRAM", "1555"), ("peak", "FP64", "9700")]);
/// ```
pub fn ceiling_rows(machine: &MachineChecked) -> Vec<CeilingRow> {
    machine
        .bandwidths
        .iter()
        .chain(&machine.peaks)
        .map(|c| CeilingRow {
            kind: c.kind.value(),
            param: format!("{}.{}", c.kind.value(), c.slot),
            name: c.name.clone(),
            value: c.value.to_string(),
            text: ceiling_text(c),
        })
        .collect()
}

fn ceiling_text(c: &Ceiling) -> String {
    format!("{} {}", number(c.value.value()), c.kind.unit())
}

/// One point as a row, with its `data-*` values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PointRow {
    /// `pt.N`.
    pub param: String,
    /// The point's name as typed.
    pub name: String,
    /// `data-oi`: I as typed (exact).
    pub oi: String,
    /// `data-p`: measured P as typed (exact).
    pub p: String,
    /// `data-bound-by`: the binding ceiling's name.
    pub bound_by: String,
    /// `memory` or `compute`.
    pub bound: &'static str,
    /// `data-attainable`: the roof, exact.
    pub attainable: String,
    /// The roof for people, GFLOP/s.
    pub attainable_text: String,
    /// `data-fraction`: P ÷ roof, the shortest round-tripping decimal.
    pub fraction: String,
    /// The fraction for people, e.g. `40 %`.
    pub fraction_text: String,
    /// The ridge P_PEAK ÷ B_BW for people, FLOP/byte.
    pub ridge: String,
    /// The roof in words: its value, what binds it and the two ceilings read, e.g.
    /// `194.375, DRAM (DRAM × Tensor)`.
    pub roof_text: String,
}

/// Every valid point as a row, in slot order.
///
/// ```
/// use coalescing_lab::model::roofline::{point_rows, MachineInputs};
/// let mut m = MachineInputs::from_preset("V100");
/// m.points[0] = "k:2:900:DRAM:FP32".into();
/// let r = &point_rows(&m.check())[0];
/// assert_eq!((r.attainable.as_str(), r.bound_by.as_str(), r.fraction.as_str()), ("1800", "DRAM", "0.5"));
/// ```
pub fn point_rows(machine: &MachineChecked) -> Vec<PointRow> {
    machine.points.iter().map(point_row).collect()
}

fn point_row(p: &MachinePoint) -> PointRow {
    let fraction = p.fraction();
    PointRow {
        param: format!("pt.{}", p.slot),
        name: p.name.clone(),
        oi: p.oi.to_string(),
        p: p.p.to_string(),
        bound_by: p.bound_by().to_string(),
        bound: p.bound().value(),
        attainable: p.roof().to_string(),
        attainable_text: number(p.roof().value()),
        fraction: fraction.to_string(),
        fraction_text: format!("{} %", percent_tenths(fraction)),
        ridge: number(p.ridge().value()),
        roof_text: format!(
            "{}, {} ({} × {})",
            number(p.roof().value()),
            p.bound_by(),
            p.bw.name,
            p.peak.name
        ),
    }
}

/// The ridge between each bandwidth ceiling and each compute ceiling: (bandwidth name, peak
/// name, P_PEAK ÷ B_BW for people).
///
/// ```
/// use coalescing_lab::model::roofline::{ridge_rows, MachineInputs};
/// let rows = ridge_rows(&MachineInputs::from_preset("V100").check());
/// assert_eq!(rows[1], ("DRAM".to_string(), "FP32".to_string(), "17.4444".to_string()));
/// ```
pub fn ridge_rows(machine: &MachineChecked) -> Vec<(String, String, String)> {
    let mut rows = Vec::new();
    for bw in &machine.bandwidths {
        for peak in &machine.peaks {
            rows.push((
                bw.name.clone(),
                peak.name.clone(),
                number(super::Roof::of(bw, peak).ridge().value()),
            ));
        }
    }
    rows
}

/// The machine chart's text alternative: the ceilings, then each point.
///
/// ```
/// use coalescing_lab::model::roofline::{machine_description, MachineInputs};
/// let m = MachineInputs::from_preset("V100");
/// assert_eq!(
///     machine_description(&m.check()),
///     "Log–log roofline of the NVIDIA Tesla V100 SXM2: bandwidth ceilings DRAM 900 GB/s; compute \
///      ceilings FP64 7800 GFLOP/s, FP32 15700 GFLOP/s, Tensor 125000 GFLOP/s. No point placed yet."
/// );
/// // Degenerate input: nothing defined.
/// assert!(machine_description(&MachineInputs::default().check()).contains("none"));
/// ```
pub fn machine_description(machine: &MachineChecked) -> String {
    let list = |kind: CeilingKind| {
        let all = match kind {
            CeilingKind::Bandwidth => &machine.bandwidths,
            CeilingKind::Compute => &machine.peaks,
        };
        if all.is_empty() {
            return "none".to_string();
        }
        all.iter()
            .map(|c| format!("{} {}", c.name, ceiling_text(c)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let whose = machine
        .preset
        .map(|p| format!(" of the {}", p.label))
        .unwrap_or_default();
    let mut text = format!(
        "Log–log roofline{whose}: bandwidth ceilings {}; compute ceilings {}.",
        list(CeilingKind::Bandwidth),
        list(CeilingKind::Compute)
    );
    if machine.points.is_empty() {
        text.push_str(" No point placed yet.");
    }
    for row in machine.points.iter().map(point_row) {
        text.push_str(&format!(
            " Point {}: I = {} FLOP/byte, P = {} GFLOP/s; roof {} GFLOP/s bound by {}, {} of it.",
            row.name, row.oi, row.p, row.attainable_text, row.bound_by, row.fraction_text
        ));
    }
    text
}

/// A point placed on its own roof: `NAME:I:ROOF`, read against the default ceilings. The
/// kernel view and the calculator predict traffic, not time, so the point sits where the
/// roof allows; a measured P replaces it.
///
/// ```
/// use coalescing_lab::model::{exact::Exact, roofline::{on_roof, MachineInputs}};
/// let m = MachineInputs::from_preset("A100");
/// assert_eq!(on_roof(&m, "k", Exact::parse("0.25")), Ok("k:0.25:388.75".to_string()));
/// // Degenerate input: no DRAM traffic, no intensity.
/// assert!(on_roof(&m, "k", None).is_err());
/// ```
pub fn on_roof(
    machine: &MachineInputs,
    name: &str,
    oi: Option<Exact>,
) -> Result<String, PointError> {
    let oi = oi.ok_or(PointError::NoIntensity)?;
    let oi_text = typeable(oi);
    let probe = format!("{name}:{oi_text}:1");
    let mut trial = machine.clone();
    trial.points = Default::default();
    trial.points[0] = probe;
    let checked = trial.check();
    let Some(point) = checked.points.first() else {
        // The point's own problem: the first clause of its field's message.
        let field = super::machine::MachineField::Point(1);
        let message = checked
            .errors
            .iter()
            .find(|e| e.field == field)
            .and_then(|e| e.message().split("; ").next())
            .unwrap_or_default()
            .to_string();
        return Err(PointError::Refused(FieldError::new(field, message)));
    };
    Ok(format!("{name}:{oi_text}:{}", typeable(point.roof())))
}

/// The kernel view's two points: intensity against DRAM bytes and against request-level bytes
/// (sectors × sector size), each on its roof, named `NAME DRAM` and `NAME requests`.
///
/// ```
/// use coalescing_lab::model::{exact::Exact, roofline::{kernel_points, MachineInputs}};
/// let m = MachineInputs::from_preset("A100");
/// let flops = Exact::parse("1024").unwrap();
/// let added = kernel_points(&m, "saxpy", flops, 4096, 8192).unwrap();
/// assert_eq!(added.points[..2], ["saxpy DRAM:0.25:388.75".to_string(), "saxpy requests:0.125:194.375".to_string()]);
/// // Degenerate input: nothing moved.
/// assert!(kernel_points(&m, "k", flops, 0, 0).is_err());
/// ```
pub fn kernel_points(
    machine: &MachineInputs,
    name: &str,
    flops: Exact,
    dram_bytes: u64,
    request_bytes: u64,
) -> Result<MachineInputs, KernelPointError> {
    let mut out = machine.clone();
    let name = clean_name(name);
    let name: String = name.chars().take(15).collect();
    for (level, bytes) in [("DRAM", dram_bytes), ("requests", request_bytes)] {
        let point = on_roof(
            &out,
            &format!("{name} {level}"),
            flops.times_ratio(1, u128::from(bytes)),
        )
        .map_err(|why| KernelPointError::Placed { level, why })?;
        out.add_point(point)
            .map_err(|why| KernelPointError::Added { level, why })?;
    }
    Ok(out)
}

/// Why the kernel view's points cannot be added to machine mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelPointError {
    /// The point read against `level`'s traffic (`DRAM` or `requests`) has no place on its
    /// roof: why, as [`on_roof`] says it.
    Placed {
        /// Whose traffic the point is read against: `DRAM` or `requests`.
        level: &'static str,
        /// Why [`on_roof`] found it no place.
        why: PointError,
    },
    /// The point read against `level`'s traffic could not be added: why, as
    /// [`MachineInputs::add_point`] says it.
    Added {
        /// Whose traffic the point is read against: `DRAM` or `requests`.
        level: &'static str,
        /// Why [`MachineInputs::add_point`] refused it.
        why: PointError,
    },
}

impl fmt::Display for KernelPointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelPointError::Placed { level, why } => write!(f, "the {level} point {why}"),
            KernelPointError::Added { why, .. } => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for KernelPointError {}

/// Every slot of one kind is in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// All [`MAX_POINTS`] points.
    Points,
    /// All [`MAX_BW`] bandwidth ceilings.
    Bandwidths,
}

impl fmt::Display for Full {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Full::Points => write!(f, "all {MAX_POINTS} points are in use; remove one first"),
            Full::Bandwidths => write!(
                f,
                "all {MAX_BW} bandwidth ceilings are in use; remove one first"
            ),
        }
    }
}

impl std::error::Error for Full {}

/// Why a point was not put on the chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointError {
    /// The kernel or scenario moves no byte: it has no intensity to place.
    NoIntensity,
    /// Every point slot is taken.
    Full(Full),
    /// The point's field refuses it; the text is the field's message.
    Refused(FieldError<MachineField>),
}

impl fmt::Display for PointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PointError::NoIntensity => write!(f, "moves no byte, so it has no intensity"),
            PointError::Full(full) => write!(f, "{full}"),
            PointError::Refused(e) => write!(f, "{}", e.message()),
        }
    }
}

impl std::error::Error for PointError {}

/// The probe's contribution: a bandwidth ceiling named after the adapter (marked `(software)`
/// for a software adapter, which measures the CPU, not a GPU) at the contiguous stride's
/// (4 B) useful GB/s, as (name, GB/s text); or why there is none.
///
/// ```
/// use coalescing_lab::model::probe::AdapterInfo;
/// use coalescing_lab::model::roofline::probe_ceiling_name;
/// let info = AdapterInfo { description: "SwiftShader Device (Subzero)".into(), fallback: true, ..AdapterInfo::default() };
/// assert_eq!(probe_ceiling_name(&info), "SwiftShader D (software)");
/// // Degenerate input: an adapter that says nothing about itself.
/// assert_eq!(probe_ceiling_name(&AdapterInfo::default()), "my GPU");
/// ```
pub fn probe_ceiling_name(info: &super::super::probe::AdapterInfo) -> String {
    let named = [
        &info.description,
        &info.device,
        &info.architecture,
        &info.vendor,
    ]
    .into_iter()
    .map(|s| clean_name(s))
    .find(|s| s != "unnamed")
    .unwrap_or_else(|| "my GPU".into());
    if info.is_software() {
        let base: String = named.chars().take(13).collect();
        format!("{} (software)", base.trim())
    } else {
        named
    }
}

/// Why a probe run gives no bandwidth ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeGap {
    /// No probe run has finished.
    NoRun,
    /// The run measured no 4-byte stride.
    NoContiguousStride,
    /// The 4-byte stride's checksum failed, so it has no GB/s.
    ChecksumFailed,
}

impl fmt::Display for ProbeGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProbeGap::NoRun => "no probe run has finished",
            ProbeGap::NoContiguousStride => {
                "the run has no contiguous stride (4 B) to measure bandwidth with"
            }
            ProbeGap::ChecksumFailed => {
                "the contiguous stride's checksum failed, so it has no GB/s"
            }
        })
    }
}

impl std::error::Error for ProbeGap {}

/// The contiguous (4-byte stride) row's useful GB/s from a probe run, as text the fields
/// accept; or why there is none.
pub fn probe_contiguous_gbps(report: &super::super::probe::Report) -> Result<String, ProbeGap> {
    report
        .rows
        .iter()
        .find(|r| r.measurement.stride == 4)
        .ok_or(ProbeGap::NoContiguousStride)?
        .useful_gbps
        .filter(|g| *g > 0.0)
        .map(short_decimal)
        .ok_or(ProbeGap::ChecksumFailed)
}

impl MachineInputs {
    /// Adds `text` as a point: in place of the point of the same name if there is one (so
    /// a hand-off pressed twice does not duplicate its points), in the first free slot
    /// otherwise. Returns its slot, or why not; a point the check would leave out is not
    /// added, and takes no slot.
    ///
    /// ```
    /// use coalescing_lab::model::roofline::MachineInputs;
    /// let mut m = MachineInputs::from_preset("A100");
    /// assert_eq!(m.add_point("k:1:10".into()), Ok(1));
    /// assert_eq!(m.add_point("k:2:10".into()), Ok(1), "the same name: replaced");
    /// assert_eq!(m.points[0], "k:2:10");
    /// let out = m.add_point("far:126000000000000000000:1".into()).unwrap_err().to_string();
    /// assert!(out.contains("outside 1/4096 to 1048576 FLOP/byte"), "{out}");
    /// assert!(m.points[1].is_empty(), "a rejected point takes no slot");
    /// m.points = std::array::from_fn(|k| format!("k{k}:1:1"));
    /// assert_eq!(m.add_point("k:1:10".into()).unwrap_err().to_string(), "all 12 points are in use; remove one first");
    /// ```
    pub fn add_point(&mut self, text: String) -> Result<u8, PointError> {
        let name = text.split(':').next().unwrap_or("").trim().to_string();
        let same = |t: &String| t.split(':').next().is_some_and(|n| n.trim() == name);
        let Some(i) = self
            .points
            .iter()
            .position(|t| !name.is_empty() && same(t))
            .or_else(|| self.points.iter().position(|p| p.trim().is_empty()))
        else {
            return Err(PointError::Full(Full::Points));
        };
        let before = std::mem::replace(&mut self.points[i], text);
        let slot = i as u8 + 1;
        if let Some(e) = self
            .check()
            .errors
            .into_iter()
            .find(|e| e.field == MachineField::Point(slot))
        {
            self.points[i] = before;
            return Err(PointError::Refused(e));
        }
        Ok(slot)
    }

    /// Adds a bandwidth ceiling `name` (replacing the value of one already so named), in the
    /// first free slot otherwise; returns its slot, or why not.
    pub fn add_bandwidth(&mut self, name: &str, gbps: &str) -> Result<u8, Full> {
        let name = clean_name(name);
        let text = format!("{name}:{gbps}");
        let same = |t: &String| t.split_once(':').is_some_and(|(n, _)| n.trim() == name);
        let Some(i) = self
            .bw
            .iter()
            .position(same)
            .or_else(|| self.bw.iter().position(|t| t.trim().is_empty()))
        else {
            return Err(Full::Bandwidths);
        };
        self.bw[i] = text;
        Ok(i as u8 + 1)
    }

    /// A point name not yet used: `P1`, `P2`, …
    pub fn fresh_point_name(&self) -> String {
        let used = |name: &str| {
            self.points
                .iter()
                .any(|t| t.split(':').next().is_some_and(|n| n.trim() == name))
        };
        (1..)
            .map(|n| format!("P{n}"))
            .find(|name| !used(name))
            .unwrap_or_default()
    }
}
