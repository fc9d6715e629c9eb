//! Long work in slices: what every long job (a launch, a trace, CUDA source) offers the page,
//! and the one rule for how much of it runs before the page gets a turn. The page supplies the
//! clock and the yield; everything that decides is here, and tested natively.

/// Work that can be done a bounded amount at a time.
pub trait Pump {
    /// Why the work stopped for good.
    type Error;

    /// Does at most `budget` (at least 1) units of work. True when the work is complete; an
    /// error ends it, and every later call returns it again.
    fn pump(&mut self, budget: u64) -> Result<bool, Self::Error>;

    /// Units done, and in all (0 in all when unknown).
    fn progress(&self) -> (u64, u64);
}

/// How a slice ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The work is complete.
    Done,
    /// The slice's time is up: yield to the page, then call again.
    Yield,
}

/// The longest stretch of work before the page gets a turn, in milliseconds: under the 50 ms
/// of a long task, with room for the page's own work in the same frame.
pub const SLICE_MS: f64 = 35.0;

/// How often a Web Worker reports a long run's progress, in milliseconds. Each report is a
/// task and a frame on the page's thread, which on a two-core machine take the CPU from the
/// worker. At one report per 35 ms slice, the kernel view's naive 4096² transpose took
/// medians of 293, 269, 261 and 263 ms from the pick to the results in four sittings; at
/// 100 ms (ten moves of the bar a second), 251, 261, 261 and 258, builds alternating. The
/// tiled one was unchanged (docs/performance.md, "Fewer progress reports from the worker").
pub const WORKER_PROGRESS_MS: f64 = 100.0;

/// Decides how much work a slice does: units between two looks at the clock, doubled while a
/// chunk takes under 2 ms so the clock is read rarely, up to 2^20.
///
/// ```
/// use coalescing_lab::model::job::{Pump, Slice, Slicer};
/// struct Count(u64);
/// impl Pump for Count {
///     type Error = ();
///     fn pump(&mut self, budget: u64) -> Result<bool, ()> {
///         self.0 = (self.0 + budget).min(1000);
///         Ok(self.0 == 1000)
///     }
///     fn progress(&self) -> (u64, u64) { (self.0, 1000) }
/// }
/// // A clock that never moves: the slice runs to the end.
/// let mut work = Count(0);
/// assert_eq!(Slicer::default().run(&mut work, &mut || 0.0), Ok(Slice::Done));
/// // A clock 40 ms on at every look: one chunk, then a turn for the page.
/// let (mut work, mut t) = (Count(0), 0.0);
/// let mut clock = || { t += 40.0; t };
/// assert_eq!(Slicer::default().run(&mut work, &mut clock), Ok(Slice::Yield));
/// assert_eq!(work.progress(), (64, 1000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slicer {
    /// Units per chunk.
    budget: u64,
    slice_ms: f64,
}

impl Default for Slicer {
    fn default() -> Slicer {
        Slicer::new(SLICE_MS)
    }
}

impl Slicer {
    /// A slicer whose slices last about `slice_ms`.
    pub fn new(slice_ms: f64) -> Slicer {
        Slicer { budget: 64, slice_ms }
    }

    /// The same slicer, with a first chunk of `units` (at least 1) instead of 64: for work
    /// whose single unit may be slow.
    pub fn first_chunk(self, units: u64) -> Slicer {
        Slicer { budget: units.max(1), ..self }
    }

    /// Runs `work` in chunks until it completes or `slice_ms` has passed on `clock`. The
    /// chunk size carries over from one slice to the next.
    pub fn run<P: Pump>(
        &mut self,
        work: &mut P,
        clock: &mut impl FnMut() -> f64,
    ) -> Result<Slice, P::Error> {
        let start = clock();
        loop {
            let before = clock();
            if work.pump(self.budget)? {
                return Ok(Slice::Done);
            }
            let after = clock();
            if after - start >= self.slice_ms {
                return Ok(Slice::Yield);
            }
            // Grow the chunk while it is cheap, so the clock is read rarely.
            if after - before < 2.0 {
                self.budget = self.budget.saturating_mul(2).min(1 << 20);
            }
        }
    }
}

impl Pump for super::kernel::Job {
    type Error = super::kernel::KernelError;

    fn pump(&mut self, budget: u64) -> Result<bool, Self::Error> {
        self.step(budget)
    }

    fn progress(&self) -> (u64, u64) {
        super::kernel::Job::progress(self)
    }
}

impl Pump for super::cuda::run::CudaJob {
    type Error = super::cuda::run::CudaFailure;

    /// `budget` warps.
    fn pump(&mut self, budget: u64) -> Result<bool, Self::Error> {
        self.step(budget)
    }

    fn progress(&self) -> (u64, u64) {
        super::cuda::run::CudaJob::progress(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work of `total` units that records the budgets it was given and fails at `fail_at`.
    struct Recorder {
        done: u64,
        total: u64,
        fail_at: Option<u64>,
        budgets: Vec<u64>,
    }

    impl Pump for Recorder {
        type Error = u64;
        fn pump(&mut self, budget: u64) -> Result<bool, u64> {
            self.budgets.push(budget);
            let next = (self.done + budget).min(self.total);
            if let Some(at) = self.fail_at.filter(|&at| at < next) {
                return Err(at);
            }
            self.done = next;
            Ok(self.done == self.total)
        }
        fn progress(&self) -> (u64, u64) {
            (self.done, self.total)
        }
    }

    fn recorder(total: u64) -> Recorder {
        Recorder {
            done: 0,
            total,
            fail_at: None,
            budgets: Vec::new(),
        }
    }

    #[test]
    fn cheap_chunks_grow_and_slices_resume_where_they_stopped() {
        // Each look at the clock is 1 ms on: chunks are cheap and double, and the slice ends
        // at 35 ms.
        let mut t = 0.0;
        let mut clock = || {
            t += 1.0;
            t
        };
        let mut slicer = Slicer::default();
        let mut work = recorder(u64::MAX / 4);
        assert_eq!(slicer.run(&mut work, &mut clock), Ok(Slice::Yield));
        let first = work.budgets.clone();
        assert_eq!(first[..4], [64, 128, 256, 512]);
        assert_eq!(work.done, first.iter().sum::<u64>());
        // The next slice starts with the chunk the last one reached.
        let last = *first.last().unwrap();
        work.budgets.clear();
        assert_eq!(slicer.run(&mut work, &mut clock), Ok(Slice::Yield));
        assert_eq!(work.budgets[0], (last * 2).min(1 << 20));
        assert!(work.budgets.iter().all(|&b| b <= 1 << 20));
    }

    #[test]
    fn costly_chunks_keep_their_size() {
        // Each look is 3 ms on: a chunk costs 3 ms, so it never grows.
        let mut t = 0.0;
        let mut clock = || {
            t += 3.0;
            t
        };
        let mut work = recorder(10_000);
        assert_eq!(
            Slicer::default().run(&mut work, &mut clock),
            Ok(Slice::Yield)
        );
        assert!(work.budgets.iter().all(|&b| b == 64), "{:?}", work.budgets);
    }

    #[test]
    fn a_first_chunk_of_one_grows_while_cheap_and_stops_at_the_slice() {
        // Cheap units: the chunk doubles from 1. Costly ones (3 ms a look): it stays at 1.
        let mut work = recorder(1000);
        let mut t = 0.0;
        let mut cheap = || {
            t += 0.5;
            t
        };
        let mut slicer = Slicer::default().first_chunk(1);
        assert_eq!(slicer.run(&mut work, &mut cheap), Ok(Slice::Done));
        assert_eq!(work.budgets[..4], [1, 2, 4, 8]);
        let mut work = recorder(1000);
        let mut t = 0.0;
        let mut costly = || {
            t += 3.0;
            t
        };
        let mut slicer = Slicer::default().first_chunk(0);
        assert_eq!(slicer.run(&mut work, &mut costly), Ok(Slice::Yield));
        assert!(work.budgets.iter().all(|&b| b == 1), "{:?}", work.budgets);
        assert_eq!(work.done, 6);
    }

    #[test]
    fn an_error_stops_the_slice_and_is_returned() {
        let mut work = Recorder { fail_at: Some(100), ..recorder(1000) };
        assert_eq!(Slicer::default().run(&mut work, &mut || 0.0), Err(100));
        assert_eq!(work.done, 64);
    }

    #[test]
    fn a_kernel_job_in_slices_equals_one_run() {
        use crate::model::kernel::{analyze_kernel, presets::KernelPreset, Job, Machine};
        let Some(preset) = KernelPreset::by_id("transpose-tiled") else {
            panic!("the tiled transpose preset is missing");
        };
        let mut inputs = preset.inputs();
        inputs.grid = "4,4".into();
        let kernel = inputs.kernel(Machine::default()).unwrap();
        let mut job = Job::new(&kernel);
        let mut t = 0.0;
        let mut clock = || {
            t += 7.0;
            t
        };
        let mut slicer = Slicer::default();
        let mut slices = 0;
        while slicer.run(&mut job, &mut clock).unwrap() == Slice::Yield {
            slices += 1;
        }
        assert!(slices > 1, "the job ran in {slices} slice(s)");
        assert_eq!(job.finish().unwrap(), analyze_kernel(&kernel).unwrap());
    }
}
