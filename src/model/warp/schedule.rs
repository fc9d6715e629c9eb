//! The order warps meet the cache between two barriers: round robin, one memory instruction
//! of each warp in turn, in warp order. It is the kernel view's order for warps that run the
//! same instructions, and the order a trace's block and CUDA source are replayed in.

/// Per-warp queues of what each warp did, replayed round robin.
///
/// ```
/// use coalescing_lab::model::warp::RoundRobin;
/// let mut order = RoundRobin::default();
/// for (warp, op) in [(0, "a0"), (0, "b0"), (1, "a1"), (2, "a2"), (2, "b2"), (2, "c2")] {
///     order.push(warp, op);
/// }
/// assert_eq!(order.len(), 6);
/// let mut seen = Vec::new();
/// order.drain(|op| seen.push(op));
/// assert_eq!(seen, ["a0", "a1", "a2", "b0", "b2", "c2"]);
/// // Degenerate input: an empty schedule replays nothing, and drained ones are empty.
/// order.drain(|_| panic!("nothing held"));
/// assert_eq!(order.len(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct RoundRobin<T> {
    queues: Vec<Vec<T>>,
    held: usize,
}

impl<T> Default for RoundRobin<T> {
    fn default() -> RoundRobin<T> {
        RoundRobin { queues: Vec::new(), held: 0 }
    }
}

impl<T> RoundRobin<T> {
    /// Holds `item` as warp `warp`'s next memory instruction.
    pub fn push(&mut self, warp: usize, item: T) {
        if self.queues.len() <= warp {
            self.queues.resize_with(warp + 1, Vec::new);
        }
        if let Some(queue) = self.queues.get_mut(warp) {
            queue.push(item);
            self.held += 1;
        }
    }

    /// Items held.
    pub fn len(&self) -> usize {
        self.held
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// Hands every held item to `f`, round robin: the first of each warp in warp order, then
    /// the second, and so on; a warp with fewer is skipped once it runs out. The queues keep
    /// their memory for the next block.
    pub fn drain(&mut self, mut f: impl FnMut(T)) {
        let longest = self.queues.iter().map(Vec::len).max().unwrap_or(0);
        let mut queues: Vec<std::vec::Drain<'_, T>> =
            self.queues.iter_mut().map(|q| q.drain(..)).collect();
        for _ in 0..longest {
            for queue in &mut queues {
                if let Some(item) = queue.next() {
                    f(item);
                }
            }
        }
        self.held = 0;
    }
}
