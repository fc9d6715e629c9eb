//! One warp access measured cold: each taking-part lane's span of sectors, sorted and merged
//! into runs, the distinct requested bytes, or in shared memory the bank model's wavefronts.
//! The buffers are fixed arrays reused from one access to the next: pushing to a vector cost
//! a call per lane at the page's size-first optimisation level.

use super::super::address::{last_byte, AccessError};
use super::super::banks::{words, BankCounter, Wavefronts};
use super::super::machine::{Space, LANES};
use super::super::mul::wide_mul_i64;
use super::super::span::{merge_sorted_into, sort_ascending, Span};
use super::access::{Cost, WarpAccess};

/// A lane's address error: the lane and why.
pub type LaneError = (u32, AccessError);

/// Reusable buffers for measuring warp accesses.
#[derive(Clone, Debug)]
pub struct Scratch {
    spans: [Span; LANES],
    runs: [Span; LANES],
    run_count: usize,
    banks: BankCounter,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            spans: [Span { first: 0, last: 0 }; LANES],
            runs: [Span { first: 0, last: 0 }; LANES],
            run_count: 0,
            banks: BankCounter::default(),
        }
    }
}

/// The lanes of `access` that take part: its mask, less lanes past its addresses.
#[inline]
pub(crate) fn taking_part(access: &WarpAccess<'_>) -> u64 {
    match access.addresses.len() {
        n if n >= 64 => access.mask,
        n => access.mask & ((1u64 << n) - 1),
    }
}

impl Scratch {
    /// The sectors of the last global access measured, as merged runs, ascending.
    pub fn runs(&self) -> &[Span] {
        &self.runs[..self.run_count]
    }

    /// Measures `access` on sectors of `1 << sector_shift` bytes. An error names the lowest
    /// lane whose bytes run past 2^64.
    ///
    /// ```
    /// use coalescing_lab::model::{warp::{Scratch, WarpAccess}, AccessKind, Space};
    /// let addresses: Vec<u64> = (0..32).map(|t| 4 * t).collect();
    /// let access = WarpAccess { site: 0, kind: AccessKind::Load, space: Space::Global, elem: 4,
    ///     block: 0, warp: 0, mask: u64::from(u32::MAX), addresses: &addresses, stride: None };
    /// let cost = Scratch::default().measure(&access, 5).unwrap();
    /// assert_eq!((cost.active_lanes, cost.sectors, cost.ideal_sectors), (32, 4, 4));
    /// // With the front end's word that the lanes are 4 bytes apart: the same, unchecked.
    /// let told = WarpAccess { stride: Some(4), ..access };
    /// assert_eq!(Scratch::default().measure(&told, 5).unwrap(), cost);
    /// // Degenerate input: every lane at one address is one sector, and ideal.
    /// let same = [7u64; 32];
    /// let cost = Scratch::default().measure(&WarpAccess { addresses: &same, ..access }, 5).unwrap();
    /// assert_eq!((cost.sectors, cost.ideal_sectors, cost.requested_bytes), (1, 1, 128));
    /// ```
    #[inline]
    pub fn measure(
        &mut self,
        access: &WarpAccess<'_>,
        sector_shift: u32,
    ) -> Result<Cost, LaneError> {
        self.measure_with(access, sector_shift, true)
    }

    /// [`Scratch::measure`] of a global access without its fast path: every lane's span, sorted
    /// and merged. `make test` runs the fast path against it (`tests/warp.rs`).
    #[doc(hidden)]
    pub fn measure_lane_by_lane(
        &mut self,
        access: &WarpAccess<'_>,
        sector_shift: u32,
    ) -> Result<Cost, LaneError> {
        self.measure_with(access, sector_shift, false)
    }

    /// [`Scratch::measure`], with the affine fast path tried first when `fast` holds.
    #[inline]
    fn measure_with(
        &mut self,
        access: &WarpAccess<'_>,
        sector_shift: u32,
        fast: bool,
    ) -> Result<Cost, LaneError> {
        let elem = access.elem.max(1);
        let mask = taking_part(access);
        if access.space == Space::Shared {
            return self.measure_shared(access, mask, elem);
        }
        let addresses = access.addresses;
        if fast {
            if let Some(step) = access.stride {
                if let Some(cost) = self.measure_strided(addresses, mask, elem, sector_shift, step)
                {
                    return Ok(cost);
                }
            }
            if let Some(cost) = self.measure_affine(addresses, mask, elem, sector_shift) {
                return Ok(cost);
            }
        }
        self.measure_general(addresses, mask, elem, sector_shift)
    }

    /// The fast path (#26): the lanes of `mask` are consecutive and their addresses are
    /// `a + d × k` for the k-th of them, exactly (no wrap past 2^64), and no lane's bytes run
    /// past 2^64. Then the sectors and the distinct bytes follow from `a`, `d` and the
    /// number of lanes: with `|d|` at most a sector, the lanes' sectors form one run from the
    /// lowest lane's first to the highest lane's last; wider, the lanes' spans already ascend
    /// (or descend), and are merged without a sort. `None` sends the access down the general
    /// path, which also finds the lane to blame for bytes past 2^64.
    #[inline]
    fn measure_affine(
        &mut self,
        addresses: &[u64],
        mask: u64,
        elem: u64,
        sector_shift: u32,
    ) -> Option<Cost> {
        if mask == 0 {
            return None;
        }
        let first = mask.trailing_zeros() as usize;
        let n = mask.count_ones() as usize;
        // Consecutive lanes: `mask >> first` is n ones.
        if (mask >> first) >> (n - 1) != 1 {
            return None;
        }
        let lanes = addresses.get(first..first + n)?;
        let a = lanes[0];
        let d: i64 = match lanes.get(1) {
            Some(&b) => i64::try_from(i128::from(b) - i128::from(a)).ok()?,
            None => 0,
        };
        let z = lanes[n - 1];
        // Exactly affine, without a wrap past 2^64: the last lane is `a + d × (n − 1)` in
        // exact arithmetic, and every lane is `a + d × k` modulo 2^64; the exact values run
        // monotonically between two ends within range, so they are the addresses.
        if i128::from(a) + wide_mul_i64(d, n as i64 - 1) != i128::from(z) {
            return None;
        }
        let (low, high) = if d >= 0 { (a, z) } else { (z, a) };
        let high_last = high.checked_add(elem - 1)?;
        let stride = d.unsigned_abs();
        let lane_count = n as u64;
        let distinct = if stride >= elem {
            lane_count * elem
        } else {
            (lane_count - 1) * stride + elem
        };
        let step = d as u64;
        let sectors = if stride <= 1u64 << sector_shift || d < 0 {
            let mut expected = a;
            for &address in &lanes[1..] {
                expected = expected.wrapping_add(step);
                if address != expected {
                    return None;
                }
            }
            if stride <= 1u64 << sector_shift {
                self.runs[0] = Span {
                    first: low >> sector_shift,
                    last: high_last >> sector_shift,
                };
                self.run_count = 1;
                self.runs[0].len()
            } else {
                // Descending: the spans ascend from the last lane.
                self.merge_spans(lanes.iter().rev().copied(), elem, sector_shift)
            }
        } else {
            // Ascending and wider than a sector: checked and merged in one pass.
            let mut expected = a.wrapping_sub(step);
            let mut on_line = true;
            let sectors = self.merge_spans(
                lanes.iter().copied().inspect(|&address| {
                    expected = expected.wrapping_add(step);
                    on_line &= address == expected;
                }),
                elem,
                sector_shift,
            );
            if !on_line {
                return None;
            }
            sectors
        };
        Some(Cost {
            active_lanes: n as u32,
            requested_bytes: lane_count * elem,
            sectors,
            ideal_sectors: distinct.div_ceil(1u64 << sector_shift),
            wavefronts: None,
        })
    }

    /// The front end's fast path (#26): its word (`WarpAccess::stride`) that lane `t` of
    /// `mask` is at `addresses[f] + step × (t − f)` exactly, with no lane's bytes past 2^64.
    /// On consecutive lanes, the sectors then follow from the ends and the stride alone, as in
    /// [`Scratch::measure_affine`] but with no lane to check: one run when the stride is at
    /// most a sector; a run per lane, written without merging, when no two lanes' spans can
    /// touch; otherwise the lanes' spans, which ascend, merged. `None` (other masks) sends the
    /// access down the checked paths.
    #[inline]
    fn measure_strided(
        &mut self,
        addresses: &[u64],
        mask: u64,
        elem: u64,
        sector_shift: u32,
        step: i64,
    ) -> Option<Cost> {
        if mask == 0 {
            return None;
        }
        let first = mask.trailing_zeros();
        let lanes = mask >> first;
        // Consecutive lanes: `lanes` is all ones from bit 0.
        if lanes & lanes.wrapping_add(1) != 0 {
            return None;
        }
        let a = *addresses.get(first as usize)?;
        let n = u64::from(lanes.count_ones());
        let stride = step.unsigned_abs();
        // The last lane's address, exact by the word; the lowest and the highest of them.
        let z = a.wrapping_add((step as u64).wrapping_mul(n - 1));
        let (low, high) = if step >= 0 { (a, z) } else { (z, a) };
        let high_last = high.checked_add(elem - 1)?;
        // Within 2^64 by the word; checked all the same, so that a wrong word cannot panic.
        let requested = n.checked_mul(elem)?;
        let distinct = if stride >= elem {
            requested
        } else {
            (n - 1).checked_mul(stride)?.checked_add(elem)?
        };
        let sector = 1u64 << sector_shift;
        let sectors = if stride <= sector {
            self.runs[0] = Span {
                first: low >> sector_shift,
                last: high_last >> sector_shift,
            };
            self.run_count = 1;
            self.runs[0].len()
        } else if stride >= (elem - 1).saturating_add(sector.saturating_mul(2)) {
            // A gap of at least one whole sector between one lane's last byte and the next
            // lane's first: each lane's span is a run of its own, from the lowest address up.
            let mut sectors = 0;
            let mut address = low;
            for run in self.runs.iter_mut().take(n as usize) {
                *run = Span {
                    first: address >> sector_shift,
                    last: address.wrapping_add(elem - 1) >> sector_shift,
                };
                sectors += run.len();
                address = address.wrapping_add(stride);
            }
            self.run_count = n as usize;
            sectors
        } else {
            let ascending = (0..n).map(|k| low.wrapping_add(stride.wrapping_mul(k)));
            self.merge_spans(ascending, elem, sector_shift)
        };
        Some(Cost {
            active_lanes: n as u32,
            requested_bytes: requested,
            sectors,
            ideal_sectors: distinct.div_ceil(sector),
            wavefronts: None,
        })
    }

    /// Merges the spans of `elem` bytes from each of `addresses`, which ascend, into the runs;
    /// returns the sectors they cover. Every address's bytes end below 2^64.
    #[inline]
    fn merge_spans(
        &mut self,
        addresses: impl Iterator<Item = u64>,
        elem: u64,
        sector_shift: u32,
    ) -> u64 {
        let mut count = 0usize;
        let mut sectors = 0u64;
        for address in addresses {
            let span = Span {
                first: address >> sector_shift,
                last: address.saturating_add(elem - 1) >> sector_shift,
            };
            match count.checked_sub(1).and_then(|at| self.runs.get_mut(at)) {
                Some(run) if span.first <= run.last.saturating_add(1) => {
                    sectors += span.last.saturating_sub(run.last);
                    run.last = run.last.max(span.last);
                }
                _ => {
                    if let Some(slot) = self.runs.get_mut(count) {
                        *slot = span;
                        count += 1;
                        sectors += span.len();
                    }
                }
            }
        }
        self.run_count = count;
        sectors
    }

    /// The general path of a global access: each lane's span, sorted and merged into runs.
    fn measure_general(
        &mut self,
        addresses: &[u64],
        mask: u64,
        elem: u64,
        sector_shift: u32,
    ) -> Result<Cost, LaneError> {
        let mut m = mask;
        let mut n = 0usize;
        // Distinct requested bytes, merged as the lanes go while their addresses ascend (the
        // usual case); `None` once one descends, and then counted from a sorted copy.
        let (mut distinct, mut covered_to, mut previous) = (Some(0u64), 0u128, 0u64);
        while m != 0 {
            let t = m.trailing_zeros();
            m &= m - 1;
            let address = addresses[t as usize];
            let last = last_byte(address, elem).map_err(|e| (t, e))?;
            if let Some(d) = distinct.as_mut() {
                if address < previous {
                    distinct = None;
                } else {
                    previous = address;
                    // In 128 bits: the bytes may end at 2^64 exactly.
                    let (start, end) = (u128::from(address).max(covered_to), u128::from(last) + 1);
                    if end > start {
                        *d += (end - start) as u64;
                        covered_to = end;
                    }
                }
            }
            self.spans[n] = Span {
                first: address >> sector_shift,
                last: last >> sector_shift,
            };
            n += 1;
        }
        let spans = &mut self.spans[..n];
        sort_ascending(spans, |s| s.first);
        self.run_count = merge_sorted_into(spans, &mut self.runs);
        let distinct = match distinct {
            Some(bytes) => bytes,
            None => distinct_bytes_sorted(addresses, mask, elem),
        };
        let sectors = self.runs().iter().map(|r| r.len()).sum();
        Ok(Cost {
            active_lanes: n as u32,
            requested_bytes: n as u64 * elem,
            sectors,
            ideal_sectors: distinct.div_ceil(1u64 << sector_shift),
            wavefronts: None,
        })
    }

    /// A shared access: no sector, the bank model's wavefronts.
    fn measure_shared(
        &mut self,
        access: &WarpAccess<'_>,
        mask: u64,
        elem: u64,
    ) -> Result<Cost, LaneError> {
        let addresses = access.addresses;
        let mut m = mask;
        while m != 0 {
            let t = m.trailing_zeros();
            m &= m - 1;
            last_byte(addresses[t as usize], elem).map_err(|e| (t, e))?;
        }
        self.run_count = 0;
        let active = mask.count_ones();
        let wavefronts = if active == 0 {
            Wavefronts::default()
        } else {
            let lanes = (0..LANES as u32)
                .filter(move |t| mask & (1u64 << t) != 0)
                .map(|t| {
                    let a = addresses[t as usize];
                    (t, words(a, a + (elem - 1)))
                });
            self.banks.count(elem, lanes)
        };
        Ok(Cost {
            active_lanes: active,
            requested_bytes: u64::from(active) * elem,
            sectors: 0,
            ideal_sectors: 0,
            wavefronts: (active > 0).then_some(wavefronts),
        })
    }
}

/// The distinct bytes of `elem` from each address in `mask`, for addresses that do not
/// ascend: a sorted copy.
#[cold]
fn distinct_bytes_sorted(addresses: &[u64], mask: u64, elem: u64) -> u64 {
    let mut sorted = [0u64; LANES];
    let mut n = 0;
    let mut lanes = mask;
    while lanes != 0 {
        let t = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        sorted[n] = addresses[t];
        n += 1;
    }
    let sorted = &mut sorted[..n];
    sorted.sort_unstable();
    let (mut total, mut covered_to) = (0u128, 0u128);
    for &a in sorted.iter() {
        let end = u128::from(a) + u128::from(elem);
        let start = u128::from(a).max(covered_to);
        if end > start {
            total += end - start;
            covered_to = end;
        }
    }
    total as u64
}
