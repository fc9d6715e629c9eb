//! Sector analysis of one warp memory instruction: each lane's address, the aligned sectors
//! and cache lines its bytes fall in, and the warp's totals.
//!
//! Distinct counts come from merging each lane's inclusive span of indices, which costs
//! O(lanes · log lanes) whatever the addresses. The tests check this closed form against a
//! byte-by-byte oracle.
//!
//! Why one file of ~560 lines: the calculator's analysis and the address, merge and sort
//! helpers the kernel engine shares with it are one set of formulas, kept in one place so the
//! two panels cannot drift apart.

use super::banks::{words, BankCounter, BankReport};
use super::expr::{EvalError, Expr, LANES};
use super::inputs::{Addressing, Field, FieldError, Inputs, Scenario, Space};

/// An inclusive run of sector, line or byte indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub first: u64,
    pub last: u64,
}

impl Span {
    /// Number of indices in the span (at least 1).
    #[allow(clippy::len_without_is_empty)] // a span always holds at least one index
    pub fn len(self) -> u64 {
        self.last - self.first + 1
    }
}

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

/// A fraction kept exact, shown as a decimal or a percentage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    pub numerator: u64,
    pub denominator: u64,
}

impl Ratio {
    /// The ratio as a float; the denominator is never zero.
    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
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
        base: u64,
        idx: String,
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
    pub warp: u32,
    pub elem: u64,
    pub sector_bytes: u64,
    pub line_bytes: u64,
    pub formula: Formula,
    /// Whether an `active` expression masked lanes.
    pub masked: bool,
    /// Every lane, active or not, in lane order.
    pub lanes: Vec<Lane>,
    /// The touched sectors as merged runs, ascending.
    pub sector_runs: Vec<Span>,
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
                super::format::plural(b.totals.wavefronts),
                b.totals.conflicts(),
                super::format::plural(b.totals.conflicts())
            ),
            None => format!(
                "N_tx = {} sector{} · efficiency {}",
                self.totals.sectors,
                super::format::plural(self.totals.sectors),
                super::format::percent(self.totals.efficiency())
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
                        super::format::list_and(&others),
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
    sort_ascending(&mut by_address, |a| a.address);
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

/// `base + elem × idx` as a start address, or why it is none: "address 0 + 4 × -1 = -4 is
/// negative". The reason names no lane; callers say whose address it is. Shared with the
/// kernel view, so that both panels refuse the same addresses with the same words.
// The usual cases are inlined: the kernel view calls these once per lane access from its own
// wasm chunk, where a call into the main module goes through the function table.
#[inline(always)]
pub(crate) fn lane_address(base: u64, elem: u64, idx: i64) -> Result<u64, String> {
    // The usual case in 64 bits; 128-bit arithmetic only to word an error exactly.
    match u64::try_from(idx)
        .ok()
        .and_then(|i| elem.checked_mul(i))
        .and_then(|offset| base.checked_add(offset))
    {
        Some(address) => Ok(address),
        None => lane_address_wide(base, elem, idx),
    }
}

/// [`lane_address`] when a negative index or an overflow needs 128 bits.
#[cold]
#[inline(never)]
fn lane_address_wide(base: u64, elem: u64, idx: i64) -> Result<u64, String> {
    let address = i128::from(base) + i128::from(elem) * i128::from(idx);
    if address < 0 {
        return Err(format!(
            "address {base} + {elem} × {idx} = {address} is negative"
        ));
    }
    u64::try_from(address)
        .map_err(|_| format!("address {base} + {elem} × {idx} = {address} is past 2^64"))
}

/// The last byte of `elem` bytes from `address`, or why they run past 2^64 (no lane named).
#[inline(always)]
pub(crate) fn last_byte(address: u64, elem: u64) -> Result<u64, String> {
    match address.checked_add(elem - 1) {
        Some(last) => Ok(last),
        None => Err(past_end(address, elem)),
    }
}

#[cold]
#[inline(never)]
fn past_end(address: u64, elem: u64) -> String {
    format!("{elem} bytes at address {address} run past 2^64")
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

/// Sorts `items` by `key`, ascending. Most patterns arrive in order (or reversed): checking
/// is cheaper than sorting.
pub(crate) fn sort_ascending<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    if items.iter().rev().is_sorted_by_key(&key) {
        items.reverse();
    } else if !items.is_sorted_by_key(&key) {
        items.sort_unstable_by_key(key);
    }
}

/// Merges spans, given in ascending order of `first`, into ascending, disjoint,
/// non-adjacent runs.
fn merge_sorted(spans: impl Iterator<Item = Span>) -> Vec<Span> {
    let spans: Vec<Span> = spans.collect();
    let mut runs = spans.clone();
    let count = merge_sorted_into(&spans, &mut runs);
    runs.truncate(count);
    runs
}

/// [`merge_sorted`] into a buffer the caller reuses (the kernel view merges a million warps):
/// the runs go to the front of `runs`, which must be at least as long as `spans`, and their
/// number is returned.
pub(crate) fn merge_sorted_into(spans: &[Span], runs: &mut [Span]) -> usize {
    let mut count: usize = 0;
    for span in spans {
        match count.checked_sub(1).and_then(|at| runs.get_mut(at)) {
            Some(run) if span.first <= run.last.saturating_add(1) => {
                run.last = run.last.max(span.last);
            }
            _ => {
                if let Some(slot) = runs.get_mut(count) {
                    *slot = *span;
                    count += 1;
                }
            }
        }
    }
    count
}

/// The number of indices the spans cover together, given in ascending order of `first`:
/// the total length of [`merge_sorted`]'s runs, without building them.
fn merged_len(spans: impl Iterator<Item = Span>) -> u64 {
    let mut total = 0;
    let mut open: Option<Span> = None;
    for span in spans {
        match open.as_mut() {
            Some(run) if span.first <= run.last.saturating_add(1) => {
                run.last = run.last.max(span.last);
            }
            _ => {
                total += open.map_or(0, Span::len);
                open = Some(span);
            }
        }
    }
    total + open.map_or(0, Span::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_len_is_the_length_of_the_merged_runs() {
        let s = |first, last| Span { first, last };
        let spans = [
            s(0, 1),
            s(2, 2),
            s(5, 6),
            s(6, 7),
            s(9, 9),
            s(9, 20),
            s(12, 13),
        ];
        let runs = merge_sorted(spans.into_iter());
        assert_eq!(
            merged_len(spans.into_iter()),
            runs.iter().map(|r| r.len()).sum::<u64>()
        );
        assert_eq!(merged_len(std::iter::empty()), 0);
    }

    #[test]
    fn merge_joins_overlapping_and_adjacent_spans_only() {
        let s = |first, last| Span { first, last };
        let runs = merge_sorted([s(0, 1), s(2, 2), s(5, 6), s(6, 7), s(9, 9)].into_iter());
        assert_eq!(runs, vec![s(0, 2), s(5, 7), s(9, 9)]);
        assert_eq!(
            merge_sorted([s(0, 0), s(u64::MAX, u64::MAX)].into_iter()).len(),
            2
        );
        // A span swallowed by an earlier, longer one.
        assert_eq!(merge_sorted([s(0, 9), s(2, 3)].into_iter()), vec![s(0, 9)]);
    }
}
