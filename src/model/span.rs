//! Spans of indices (sectors, lines, bytes or words) and the two operations every analysis
//! runs on them: sort by first index, merge into disjoint runs. One idea: an inclusive run
//! and its union arithmetic, shared by the calculator, the warp core and the bank model.

/// An inclusive run of sector, line or byte indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// The first index in the span, included.
    pub first: u64,
    /// The last index in the span, included; never below `first`.
    pub last: u64,
}

impl Span {
    /// Number of indices in the span (at least 1).
    #[expect(
        clippy::len_without_is_empty,
        reason = "a span always holds at least one index"
    )]
    pub fn len(self) -> u64 {
        self.last - self.first + 1
    }
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

/// Sorts a warp's worth of `items` (at most 64) by `key`, ascending, by insertion: linear on
/// the orders a warp's lanes mostly come in (ascending, or nearly), and a few hundred bytes of
/// code where `sort_unstable` costs the first-result module 3.9 KB gzip of its 49
/// (docs/performance.md, "The first result without core's float formatting or sort"). The
/// kernel engine's merge keeps [`sort_ascending`].
pub(crate) fn sort_lanes<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > key(&items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Merges spans, given in ascending order of `first`, into ascending, disjoint,
/// non-adjacent runs.
pub(crate) fn merge_sorted(spans: impl Iterator<Item = Span>) -> Vec<Span> {
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
pub(crate) fn merged_len(spans: impl Iterator<Item = Span>) -> u64 {
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
    use proptest::prelude::*;

    proptest! {
        /// The insertion sort orders a warp's worth of keys as the standard sort does, on any
        /// order: ascending, descending, with ties, or none.
        #[test]
        fn sort_lanes_sorts_as_the_standard_sort(
            mut keys in prop::collection::vec(prop_oneof![0u64..8, any::<u64>()], 0..=64),
            turn in 0u8..3,
        ) {
            match turn {
                0 => keys.sort_unstable(),
                1 => keys.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let mut expected = keys.clone();
            expected.sort_unstable();
            let mut pairs: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
            sort_lanes(&mut pairs, |&(k, _)| k);
            prop_assert_eq!(pairs.iter().map(|p| p.0).collect::<Vec<_>>(), expected);
            // Stable, as a by-product: equal keys keep their lanes' order.
            prop_assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1));
        }
    }

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
