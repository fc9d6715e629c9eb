//! Sector analysis of one warp memory instruction: each lane's address, the aligned sectors
//! and cache lines its bytes fall in, and the warp's totals.
//!
//! Distinct counts come from merging each lane's inclusive span of indices, which costs
//! O(lanes · log lanes) whatever the addresses. The tests check this closed form against a
//! byte-by-byte oracle.
//!
//! The address arithmetic (`address`) and the span merging (`span`) it shares with the warp
//! core are leaf modules, so the calculator and the kernel cannot drift apart.

use super::super::address::{lane_address, last_byte};
use super::super::banks::{words, BankCounter, BankReport};
use super::super::expr::{EvalError, Expr, LANES};
use super::super::span::{merge_sorted, merged_len, sort_lanes};
/// The span and the ratio live in their own leaf modules; re-exported where the calculator
/// always offered them.
pub use super::super::{ratio::Ratio, span::Span};
use super::inputs::{Addressing, Field, FieldError, Inputs, Scenario, Space};

/// What one active lane requests.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// First byte, `A(t)`.
    pub address: u64,
    /// Sectors touched: one, or more when the bytes cross a sector boundary.
    pub sectors: Span,
    /// Cache lines touched.
    pub lines: Span,
    /// Whether `A(t)` is a multiple of the access size (natural alignment).
    pub aligned: bool,
}

/// One lane of the warp.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lane {
    /// Lane id, 0 to warp − 1.
    pub lane: u32,
    /// `None` for an inactive lane.
    pub access: Option<Access>,
}

/// The warp's totals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Totals {
    /// Lanes that take part.
    pub active_lanes: u32,
    /// elem × active lanes: identical requests count again.
    pub requested_bytes: u64,
    /// Size of the union of the lanes' byte ranges.
    pub distinct_bytes: u64,
    /// N_tx: distinct sectors touched.
    pub sectors: u64,
    /// N_tx × sector size.
    pub transferred_bytes: u64,
    /// Distinct cache lines touched.
    pub lines: u64,
    /// Active lanes whose address is not a multiple of elem.
    pub misaligned_lanes: u32,
    /// Active lanes whose bytes straddle a sector boundary.
    pub straddling_lanes: u32,
}

impl Totals {
    /// requested ÷ transferred; above 1 only when lanes repeat bytes. `None` with no active lane.
    pub fn efficiency(&self) -> Option<Ratio> {
        self.ratio(self.requested_bytes)
    }

    /// distinct requested ÷ transferred, never above 1. `None` with no active lane.
    pub fn distinct_efficiency(&self) -> Option<Ratio> {
        self.ratio(self.distinct_bytes)
    }

    /// True when the efficiency exceeds 100 % because lanes repeat the same bytes.
    pub fn is_broadcast(&self) -> bool {
        self.requested_bytes > self.distinct_bytes
    }

    fn ratio(&self, numerator: u64) -> Option<Ratio> {
        (self.transferred_bytes > 0).then_some(Ratio {
            numerator,
            denominator: self.transferred_bytes,
        })
    }
}

/// How the addresses were formed, for the derivation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// `A(t) = base + elem × idx(t)`, with idx as typed.
    Indexed {
        /// Byte address of element 0, as checked.
        base: u64,
        /// The index expression as the user typed it.
        idx: String,
        /// True when idx is exactly `t`, so the derivation writes `elem·t`.
        idx_is_lane: bool,
    },
    /// From the explicit address list.
    Explicit,
}

/// Everything the calculator shows for one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The memory read: global (sectors and lines) or shared (banks).
    pub space: Space,
    /// Lanes in the warp, 1 to 64.
    pub warp: u32,
    /// Bytes each lane requests.
    pub elem: u64,
    /// Bytes in a sector.
    pub sector_bytes: u64,
    /// Bytes in a cache line, a multiple of the sector.
    pub line_bytes: u64,
    /// How the addresses were formed, for the derivation's first step.
    pub formula: Formula,
    /// Whether an `active` expression masked lanes.
    pub masked: bool,
    /// Every lane, active or not, in lane order.
    pub lanes: Vec<Lane>,
    /// The touched sectors as merged runs, ascending.
    pub sector_runs: Vec<Span>,
    /// Active lanes, requested bytes, sectors, lines and efficiency for the whole warp.
    pub totals: Totals,
    /// The bank analysis, in shared memory only.
    pub banks: Option<BankReport>,
}

impl Analysis {
    /// The headline in a few words, for a bar that stays in sight on a phone: sectors and
    /// efficiency in global memory, wavefronts and conflicts in shared memory.
    ///
    /// ```
    /// use coalescing_lab::model::{inputs::Inputs, sectors::analyze};
    /// assert_eq!(analyze(&Inputs::default()).unwrap().headline(), "N_tx = 4 sectors · efficiency 100 %");
    /// let shared = Inputs { space: "shared".into(), idx: "32*t".into(), ..Inputs::default() };
    /// assert_eq!(analyze(&shared).unwrap().headline(), "32 wavefronts · 31 bank conflicts");
    /// ```
    pub fn headline(&self) -> String {
        match &self.banks {
            Some(b) => format!(
                "{} wavefront{} · {} bank conflict{}",
                b.totals.wavefronts,
                super::super::format::plural(b.totals.wavefronts),
                b.totals.conflicts(),
                super::super::format::plural(b.totals.conflicts())
            ),
            None => format!(
                "N_tx = {} sector{} · efficiency {}",
                self.totals.sectors,
                super::super::format::plural(self.totals.sectors),
                super::super::format::percent(self.totals.efficiency())
            ),
        }
    }

    /// The 4-byte words lane access `access` covers.
    pub fn words(&self, access: &Access) -> Span {
        words(access.address, access.address + (self.elem - 1))
    }
}

/// Evaluates `inputs` lane by lane. Every problem names its field; evaluation problems also
/// name the lane and the value.
///
/// ```
/// use coalescing_lab::model::inputs::Inputs;
/// use coalescing_lab::model::sectors::analyze;
/// let misaligned = Inputs { base: "8".into(), ..Inputs::default() };
/// let totals = analyze(&misaligned).unwrap().totals;
/// assert_eq!((totals.sectors, totals.transferred_bytes), (5, 160));
/// // Degenerate input: no active lane moves nothing and has no efficiency.
/// let idle = Inputs { active: "0".into(), ..Inputs::default() };
/// let totals = analyze(&idle).unwrap().totals;
/// assert_eq!((totals.sectors, totals.efficiency()), (0, None));
/// ```
pub fn analyze(inputs: &Inputs) -> Result<Analysis, Vec<FieldError>> {
    let scenario = inputs.scenario()?;
    analyze_scenario(&scenario, inputs).map_err(|e| vec![e])
}

/// Like [`analyze`], but never fails: fields in error fall back to their defaults, so that a
/// bad first link still shows results beside its error messages.
///
/// ```
/// use coalescing_lab::model::inputs::Inputs;
/// use coalescing_lab::model::sectors::analyze_repaired;
/// // A 256-byte sector with the default 128-byte line: the line follows the sector.
/// let big = Inputs { sector: "256".into(), ..Inputs::default() };
/// let a = analyze_repaired(&big);
/// assert_eq!((a.sector_bytes, a.line_bytes), (256, 256));
/// ```
pub fn analyze_repaired(inputs: &Inputs) -> Analysis {
    repair(inputs).0
}

/// The analysis of `inputs` with every field in error put back to its default (the line
/// grows to the sector when the default line is too small), and every error met on the way,
/// in the order met.
///
/// A field put back to its default may still fail against the other fields' valid values
/// (`idx=t` at a base of 2^64 − 1). Then the valid fields are kept as long as possible: the
/// first other field that shapes the addresses (base, elem, warp, active) goes back to its
/// default instead, and its error says in words which combination cannot be evaluated.
///
/// ```
/// use coalescing_lab::model::{inputs::{Field, Inputs}, sectors::repair};
/// let inputs = Inputs { warp: "1".into(), base: "18446744073709551615".into(), idx: "0".into(), ..Inputs::default() };
/// let (analysis, errors) = repair(&inputs);
/// // warp=1 was valid and is kept; the base that no index can reach from goes back to 0.
/// assert_eq!((analysis.warp, analysis.totals.sectors), (1, 1));
/// assert_eq!(errors.last().unwrap().field, Field::Base);
/// ```
pub fn repair(inputs: &Inputs) -> (Analysis, Vec<FieldError>) {
    // Fields that shape the addresses, in the order they give way when they conflict.
    const GIVE_WAY: [Field; 4] = [Field::Base, Field::Elem, Field::Warp, Field::Active];
    let mut repaired = inputs.clone();
    let mut met: Vec<FieldError> = Vec::new();
    // Each round restores at least one field for good, so these rounds reach the defaults.
    for _ in 0..=Field::ALL.len() + GIVE_WAY.len() {
        match analyze(&repaired) {
            Ok(analysis) => return (analysis, met),
            Err(errors) => {
                let next = repaired.with_defaults_for(errors.iter().map(|e| e.field));
                if next != repaired {
                    repaired = next;
                    met.extend(errors);
                    continue;
                }
                // Every field at fault holds its default already: it fails only with the
                // others' values. One of those gives way, and says with which.
                let at_default = |f: Field| repaired.get(f) == repaired.default_for(f);
                let Some(culprit) = GIVE_WAY.into_iter().find(|&f| !at_default(f)) else {
                    met.extend(errors);
                    break;
                };
                let Some(first) = errors.first() else {
                    break;
                };
                let others: Vec<String> = Field::ALL
                    .into_iter()
                    .filter(|&f| f != culprit)
                    .filter(|&f| {
                        errors.iter().any(|e| e.field == f)
                            || (GIVE_WAY.contains(&f) && !at_default(f))
                    })
                    .map(|f| format!("{}={}", f.param(), repaired.get(f).trim()))
                    .collect();
                met.push(FieldError::new(
                    culprit,
                    format!(
                        "cannot be evaluated with {} ({})",
                        super::super::format::list_and(&others),
                        first.message()
                    ),
                ));
                repaired = repaired.with_defaults_for([culprit]);
            }
        }
    }
    let fallback = analyze(&Inputs::default()).unwrap_or_else(|_| empty_analysis());
    (fallback, met)
}

fn empty_analysis() -> Analysis {
    Analysis {
        space: Space::Global,
        warp: 0,
        elem: 0,
        sector_bytes: 0,
        line_bytes: 0,
        formula: Formula::Explicit,
        masked: false,
        lanes: Vec::new(),
        sector_runs: Vec::new(),
        totals: Totals::default(),
        banks: None,
    }
}

/// Evaluates `expr` for the lanes of `mask` at once: the values, and the error of the lowest
/// failing lane, if any.
fn eval_all(expr: &Expr, mask: u64) -> ([i64; LANES], Option<EvalError>) {
    let mut values = [0; LANES];
    let error = expr.eval_lanes(mask, &mut values).err();
    (values, error)
}

fn analyze_scenario(s: &Scenario, inputs: &Inputs) -> Result<Analysis, FieldError> {
    let mut lanes = Vec::with_capacity(s.warp as usize);
    // Both expressions are evaluated for every lane at once; the loop below then meets the
    // errors lane by lane, in the same order as evaluating each lane in turn would.
    let warp_mask = u64::MAX >> (LANES as u32 - s.warp.min(LANES as u32));
    let (active_values, active_error) = match &s.active {
        None => ([1; LANES], None),
        Some(expr) => eval_all(expr, warp_mask),
    };
    let active_at = |lane: u32| active_values[lane as usize] != 0;
    let (idx_values, idx_error) = match &s.addressing {
        Addressing::Indexed { idx, .. } => {
            let mut mask = 0;
            for lane in 0..s.warp {
                if active_at(lane) {
                    mask |= 1 << lane;
                }
            }
            eval_all(idx, mask)
        }
        Addressing::Explicit(_) => ([0; LANES], None),
    };
    let failed_at =
        |error: &Option<EvalError>, lane: u32| error.clone().filter(|e| e.lane == i64::from(lane));
    for lane in 0..s.warp {
        if let Some(error) = failed_at(&active_error, lane) {
            return Err(eval_error(Field::Active, error));
        }
        let active = active_at(lane);
        let address = match (&s.addressing, active) {
            (_, false) => None,
            (Addressing::Explicit(list), true) => list.get(lane as usize).copied().flatten(),
            (Addressing::Indexed { base, .. }, true) => {
                if let Some(error) = failed_at(&idx_error, lane) {
                    return Err(eval_error(Field::Idx, error));
                }
                Some(indexed_address(
                    *base,
                    s.elem,
                    idx_values[lane as usize],
                    lane,
                )?)
            }
        };
        let access = match address {
            None => None,
            Some(address) => Some(access(address, s, lane)?),
        };
        lanes.push(Lane { lane, access });
    }
    let mut by_address: Vec<&Access> = lanes.iter().filter_map(|l| l.access.as_ref()).collect();
    // Sector and line indices never decrease as the address grows, so one sort by address
    // orders the byte, sector and line spans alike.
    sort_lanes(&mut by_address, |a| a.address);
    let active_lanes = by_address.len() as u32;
    let sector_runs = merge_sorted(by_address.iter().map(|a| a.sectors));
    let sectors: u64 = sector_runs.iter().map(|r| r.len()).sum();
    let distinct_bytes = merged_len(by_address.iter().map(|a| Span {
        first: a.address,
        last: a.address + (s.elem - 1),
    }));
    let totals = Totals {
        active_lanes,
        requested_bytes: u64::from(active_lanes) * s.elem,
        distinct_bytes,
        sectors,
        transferred_bytes: sectors * s.sector_bytes,
        lines: merged_len(by_address.iter().map(|a| a.lines)),
        misaligned_lanes: by_address.iter().filter(|a| !a.aligned).count() as u32,
        straddling_lanes: by_address.iter().filter(|a| a.sectors.len() > 1).count() as u32,
    };
    let formula = match &s.addressing {
        Addressing::Indexed { base, idx } => Formula::Indexed {
            base: *base,
            idx: inputs.idx.trim().to_string(),
            idx_is_lane: idx.is_lane(),
        },
        Addressing::Explicit(_) => Formula::Explicit,
    };
    let banks = (s.space == Space::Shared).then(|| {
        BankCounter::default().report(
            s.warp,
            s.elem,
            lanes.iter().filter_map(|l| {
                let a = l.access.as_ref()?;
                Some((l.lane, words(a.address, a.address + (s.elem - 1))))
            }),
        )
    });
    Ok(Analysis {
        space: s.space,
        warp: s.warp,
        elem: s.elem,
        sector_bytes: s.sector_bytes,
        line_bytes: s.line_bytes,
        formula,
        masked: s.active.is_some(),
        lanes,
        sector_runs,
        totals,
        banks,
    })
}

fn eval_error(field: Field, e: EvalError) -> FieldError {
    FieldError::new(field, e.to_string())
}

/// `base + elem × idx`, exact in 128 bits, then checked to be a valid start address.
fn indexed_address(base: u64, elem: u64, idx: i64, lane: u32) -> Result<u64, FieldError> {
    lane_address(base, elem, idx)
        .map_err(|reason| FieldError::new(Field::Idx, format!("lane {lane}: {reason}")))
}

fn access(address: u64, s: &Scenario, lane: u32) -> Result<Access, FieldError> {
    let last = last_byte(address, s.elem).map_err(|reason| {
        let field = match s.addressing {
            Addressing::Explicit(_) => Field::Addrs,
            Addressing::Indexed { .. } => Field::Idx,
        };
        FieldError::new(field, format!("lane {lane}: {reason}"))
    })?;
    Ok(Access {
        address,
        // Sizes are powers of two (checked in `inputs`), so a shift divides.
        sectors: Span {
            first: address >> s.sector_bytes.trailing_zeros(),
            last: last >> s.sector_bytes.trailing_zeros(),
        },
        lines: Span {
            first: address >> s.line_bytes.trailing_zeros(),
            last: last >> s.line_bytes.trailing_zeros(),
        },
        aligned: address.is_multiple_of(s.elem),
    })
}

impl super::super::machine::Machine {
    /// The machine the calculator shows for `inputs`: its warp, sector and line, with any
    /// field in error at its default, as the kernel view and the trace import read it.
    ///
    /// ```
    /// use coalescing_lab::model::{inputs::Inputs, Machine};
    /// let wave64 = Inputs { warp: "64".into(), ..Inputs::default() };
    /// assert_eq!(Machine::shown_by(&wave64).warp, 64);
    /// // Degenerate input: a bad sector falls back to the default 32 bytes.
    /// let bad = Inputs { sector: "33".into(), ..Inputs::default() };
    /// assert_eq!(Machine::shown_by(&bad), Machine::default());
    /// ```
    pub fn shown_by(inputs: &Inputs) -> super::super::machine::Machine {
        let a = analyze_repaired(inputs);
        super::super::machine::Machine {
            warp: a.warp,
            sector_bytes: a.sector_bytes,
            line_bytes: a.line_bytes,
        }
    }
}
