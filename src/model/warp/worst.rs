//! The worst warp accesses of a launch by each measure: a short list per measure, most first,
//! ties in the order they ran. A row is built only when a list keeps it, which is rare after
//! the first few accesses.

use super::figures::Measure;

/// How many of the worst warp accesses each list keeps.
pub const WORST: usize = 10;

/// The [`WORST`] warp accesses with the most of each [`Measure`], as the front end's rows.
///
/// ```
/// use coalescing_lab::model::warp::{Measure, WorstLists};
/// let mut worst = WorstLists::default();
/// for (n, sectors) in [3u64, 9, 9, 1].into_iter().enumerate() {
///     worst.offer([sectors, 0, 0, 0], || n);
/// }
/// assert_eq!(worst.by(Measure::Sectors), [1, 2, 0, 3]);
/// // Degenerate input: a measure nothing had lists nothing.
/// assert!(worst.by(Measure::Conflicts).is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorstLists<R> {
    /// Per measure, `(cost, row)`, most first.
    lists: [Vec<(u64, R)>; 4],
}

impl<R> Default for WorstLists<R> {
    fn default() -> WorstLists<R> {
        WorstLists {
            lists: std::array::from_fn(|_| Vec::with_capacity(WORST + 1)),
        }
    }
}

impl<R: Clone> WorstLists<R> {
    /// Offers one warp access with its cost by each measure; `row` is called only when some
    /// list keeps it: more of that measure than the last row kept, and some of it.
    #[inline]
    pub fn offer(&mut self, costs: [u64; 4], row: impl FnOnce() -> R) {
        let qualifies = |list: &Vec<(u64, R)>, cost: u64| {
            cost > 0 && (list.len() < WORST || list.last().is_some_and(|(c, _)| cost > *c))
        };
        if !self
            .lists
            .iter()
            .zip(costs)
            .any(|(list, cost)| qualifies(list, cost))
        {
            return;
        }
        let row = row();
        for (list, cost) in self.lists.iter_mut().zip(costs) {
            if qualifies(list, cost) {
                // After every row with at least as much: ties keep execution order.
                let at = list.partition_point(|(c, _)| *c >= cost);
                list.insert(at, (cost, row.clone()));
                list.truncate(WORST);
            }
        }
    }

    /// The rows kept for `measure`, most first.
    pub fn by(&self, measure: Measure) -> Vec<R> {
        self.lists
            .get(measure.at())
            .map_or_else(Vec::new, |l| l.iter().map(|(_, r)| r.clone()).collect())
    }
}
