//! The shared-memory bank model: how many wavefronts one warp request needs, and how many of
//! them are bank conflicts.
//!
//! The rule, from the CUDA C++ Programming Guide (compute capability 5.x and later, "Shared
//! Memory"; cited with its wording in docs/model.md, "Shared memory (`space=shared`)"):
//! - shared memory has 32 banks of 4 bytes: byte `a` lies in word `a / 4`, and word `w` in
//!   bank `w mod 32`;
//! - a warp's request is served in groups of consecutive lanes: 32 lanes for 1-, 2- and
//!   4-byte accesses, 16 lanes for 8-byte and 8 lanes for 16-byte accesses;
//! - within a group, lanes that touch the same word share it (a broadcast, or one write for a
//!   store); a bank delivers one distinct word per wavefront, so the group needs as many
//!   wavefronts as its busiest bank has distinct words;
//! - the request's wavefronts are the sum over its groups; the ideal is one per group with an
//!   active lane; bank conflicts are wavefronts − ideal.
//!
//! These are the model's counterparts of Nsight Compute's
//! `l1tex__data_pipe_lsu_wavefronts_mem_shared` and
//! `l1tex__data_bank_conflicts_pipe_lsu_mem_shared`.

use super::span::{sort_lanes, Span};

/// Banks of shared memory.
pub const BANKS: u32 = 32;
/// Bytes in one bank word.
pub const WORD_BYTES: u64 = 4;
/// Bytes in one row of the bank map: one word in each bank.
pub const ROW_BYTES: u64 = WORD_BYTES * BANKS as u64;

/// The model stated for people, with its source, as the page shows it beside the bank map.
pub const RULE: &str =
    "Model: 32 banks of 4 bytes; byte a lies in word a/4, in bank (a/4) mod 32. \
    A warp is served in groups of consecutive lanes: 32 for 1-, 2- and 4-byte accesses, 16 for \
    8-byte, 8 for 16-byte. In each group a bank delivers one distinct word per wavefront; lanes \
    reading the same word share it, and a word several lanes store is written once. Bank \
    conflicts = wavefronts − one per group. Source: CUDA C++ Programming Guide, Compute \
    Capability 5.x, Shared Memory (the 8- and 16-byte groups follow its older compute \
    capability 2.x rule; the 5.x text is silent on them). Confirm with Nsight Compute's \
    shared-memory wavefronts and bank conflicts.";

/// Lanes served together for an access of `elem` bytes: 32 up to 4 bytes, 16 for 8 bytes, 8
/// for 16 bytes.
///
/// ```
/// use coalescing_lab::model::banks::group_lanes;
/// assert_eq!([1, 2, 4, 8, 16].map(group_lanes), [32, 32, 32, 16, 8]);
/// ```
pub fn group_lanes(elem: u64) -> u32 {
    match elem {
        0..=4 => 32,
        5..=8 => 16,
        _ => 8,
    }
}

/// The words that the bytes `[address, last]` (inclusive) lie in.
pub fn words(address: u64, last: u64) -> Span {
    Span {
        first: address / WORD_BYTES,
        last: last / WORD_BYTES,
    }
}

/// The bank of word `word`.
pub fn bank_of(word: u64) -> u32 {
    (word % u64::from(BANKS)) as u32
}

/// Wavefronts and their ideal for one request or a sum of requests.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Wavefronts {
    /// Wavefronts the banks need.
    pub wavefronts: u64,
    /// One per lane group with an active lane.
    pub ideal: u64,
}

impl Wavefronts {
    /// Bank conflicts: the wavefronts beyond the ideal.
    pub fn conflicts(&self) -> u64 {
        self.wavefronts - self.ideal
    }

    /// Adds another request's counts.
    pub fn add(&mut self, other: Wavefronts) {
        self.wavefronts += other.wavefronts;
        self.ideal += other.ideal;
    }
}

/// One group of lanes served together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its first and last lane id (the last group of a short warp is shorter).
    pub lanes: (u32, u32),
    /// Active lanes in it.
    pub active: u32,
    /// Distinct words each bank delivers to it.
    pub words_per_bank: [u32; BANKS as usize],
    /// Its wavefronts: the most words any bank delivers; 0 with no active lane.
    pub wavefronts: u32,
}

impl Group {
    /// The busiest bank and its distinct words, lowest bank first on ties; `None` when the
    /// group has no active lane.
    pub fn busiest(&self) -> Option<(u32, u32)> {
        (self.wavefronts > 0).then(|| {
            let bank = self
                .words_per_bank
                .iter()
                .position(|&n| n == self.wavefronts)
                .unwrap_or(0);
            (bank as u32, self.wavefronts)
        })
    }
}

/// The bank analysis of one warp request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankReport {
    /// Lanes per group for this access size.
    pub group_lanes: u32,
    /// The lane groups in lane order: 32 lanes for accesses up to 4 bytes, 16 for 8, 8 for 16.
    pub groups: Vec<Group>,
    /// Wavefronts and ideal summed over the groups.
    pub totals: Wavefronts,
}

impl BankReport {
    /// The busiest bank of the request: (group index, bank, distinct words), the group with
    /// the most wavefronts first, then the lowest group; `None` with no active lane.
    pub fn busiest(&self) -> Option<(usize, u32, u32)> {
        let mut best: Option<(usize, u32, u32)> = None;
        for (g, group) in self.groups.iter().enumerate() {
            if let Some((bank, words)) = group.busiest() {
                if best.is_none_or(|(_, _, most)| words > most) {
                    best = Some((g, bank, words));
                }
            }
        }
        best
    }

    /// Whether the lane's words meet a bank that delivers more than one distinct word to the
    /// lane's group: the lane waits for a conflict.
    pub fn conflicted(&self, lane: u32, words: Span) -> bool {
        let Some(group) = self.groups.get((lane / self.group_lanes) as usize) else {
            return false;
        };
        (words.first..=words.last).any(|w| group.words_per_bank[bank_of(w) as usize] > 1)
    }
}

/// Counts wavefronts with a buffer reused from one request to the next (the kernel view counts
/// millions of them).
#[derive(Clone, Debug, Default)]
pub struct BankCounter {
    words: Vec<u64>,
}

impl BankCounter {
    /// The wavefronts of one request: `lanes` gives each active lane's id and word span, in
    /// ascending lane order; `elem` sets the groups.
    ///
    /// ```
    /// use coalescing_lab::model::banks::{words, BankCounter};
    /// // A column of a 32×32 float tile: every lane in bank 0, 32 distinct words.
    /// let column = (0..32u32).map(|t| (t, words(128 * u64::from(t), 128 * u64::from(t) + 3)));
    /// let w = BankCounter::default().count(4, column);
    /// assert_eq!((w.wavefronts, w.ideal, w.conflicts()), (32, 1, 31));
    /// ```
    pub fn count(&mut self, elem: u64, lanes: impl Iterator<Item = (u32, Span)>) -> Wavefronts {
        let mut totals = Wavefronts::default();
        self.each_group(elem, lanes, |_, _, _, wavefronts| {
            totals.add(Wavefronts {
                wavefronts: u64::from(wavefronts),
                ideal: 1,
            });
        });
        totals
    }

    /// Calls `f(group, active lanes, words per bank, wavefronts)` for each group with an
    /// active lane, in lane order.
    fn each_group(
        &mut self,
        elem: u64,
        lanes: impl Iterator<Item = (u32, Span)>,
        mut f: impl FnMut(u32, u32, &[u32; BANKS as usize], u32),
    ) {
        let size = group_lanes(elem);
        let mut current: Option<u32> = None;
        let mut active = 0;
        self.words.clear();
        let mut flush = |words: &mut Vec<u64>, group: u32, active: u32| {
            let mut per_bank = [0u32; BANKS as usize];
            sort_lanes(words, |&w| w);
            words.dedup();
            for &w in words.iter() {
                per_bank[bank_of(w) as usize] += 1;
            }
            let wavefronts = per_bank.iter().copied().max().unwrap_or(0);
            f(group, active, &per_bank, wavefronts);
            words.clear();
        };
        for (lane, span) in lanes {
            let group = lane / size;
            if let Some(previous) = current.filter(|&g| g != group) {
                flush(&mut self.words, previous, active);
                active = 0;
            }
            current = Some(group);
            active += 1;
            self.words.extend(span.first..=span.last);
        }
        if let Some(group) = current {
            flush(&mut self.words, group, active);
        }
    }

    /// The full report of one request of a `warp`-lane warp: every group, active or not.
    /// `lanes` as for [`BankCounter::count`].
    ///
    /// ```
    /// use coalescing_lab::model::banks::{words, BankCounter};
    /// // float2 along a row: two groups of 16 lanes, each reading 128 consecutive bytes.
    /// let row = (0..32u32).map(|t| (t, words(8 * u64::from(t), 8 * u64::from(t) + 7)));
    /// let r = BankCounter::default().report(32, 8, row);
    /// assert_eq!((r.groups.len(), r.totals.wavefronts, r.totals.conflicts()), (2, 2, 0));
    /// ```
    pub fn report(
        &mut self,
        warp: u32,
        elem: u64,
        lanes: impl Iterator<Item = (u32, Span)>,
    ) -> BankReport {
        let size = group_lanes(elem);
        let mut groups: Vec<Group> = (0..warp.div_ceil(size))
            .map(|g| Group {
                lanes: (g * size, ((g + 1) * size).min(warp) - 1),
                active: 0,
                words_per_bank: [0; BANKS as usize],
                wavefronts: 0,
            })
            .collect();
        let mut totals = Wavefronts::default();
        self.each_group(elem, lanes, |g, active, per_bank, wavefronts| {
            if let Some(group) = groups.get_mut(g as usize) {
                group.active = active;
                group.words_per_bank = *per_bank;
                group.wavefronts = wavefronts;
            }
            totals.add(Wavefronts {
                wavefronts: u64::from(wavefronts),
                ideal: 1,
            });
        });
        BankReport { group_lanes: size, groups, totals }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_out_of_group_order_are_not_merged_wrongly() {
        // Lanes arrive in ascending order by contract; a lone lane per group still counts.
        let lanes = [(0u32, words(0, 3)), (31, words(128, 131))];
        let w = BankCounter::default().count(4, lanes.into_iter());
        assert_eq!((w.wavefronts, w.ideal), (2, 1));
    }

    #[test]
    fn a_group_without_active_lanes_has_no_busiest_bank() {
        let r = BankCounter::default().report(64, 4, [(40u32, words(4, 7))].into_iter());
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.groups[0].busiest(), None);
        assert_eq!(r.groups[1].busiest(), Some((1, 1)));
        assert_eq!(r.busiest(), Some((1, 1, 1)));
        assert_eq!(r.totals, Wavefronts { wavefronts: 1, ideal: 1 });
    }
}
