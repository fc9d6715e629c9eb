//! What the kernel view and the page's Web Worker say to each other: a launch asked for, as
//! the inputs it was checked from, and the worker's progress, figures or failure, each as one
//! JSON text posted between the threads.
//!
//! The worker checks the same inputs on the same machine into the same [`Kernel`] the page
//! would run (checking is deterministic), so the figures are the page's own. A launch whose
//! distinct sectors outgrow memory, or a bug that traps, then ends the worker and never the
//! page: the kernel view says so and every other panel keeps working.
//!
//! ```
//! use coalescing_lab::model::kernel::wire::{answer, decode_reply, Reply, Request};
//! use coalescing_lab::model::kernel::{KernelInputs, Machine};
//! let request = Request { inputs: KernelInputs::default(), machine: Machine::default() };
//! let text = request.encode();
//! assert!(Request::is_one(&text));
//! let mut replies = Vec::new();
//! answer(&text, &mut || 0.0, &mut || 1 << 16, &mut |r| replies.push(r));
//! let Ok(Reply::Done { analysis, memory_bytes }) = decode_reply(replies.last().unwrap()) else {
//!     panic!()
//! };
//! assert_eq!(memory_bytes, 1 << 16);
//! let kernel = KernelInputs::default().kernel(Machine::default()).unwrap();
//! let page = coalescing_lab::model::kernel::analyze_kernel(&kernel).unwrap();
//! assert_eq!(*analysis, page);
//! ```

use super::inputs::{KernelError, KernelField, KernelInputs, Machine};
use super::{Job, KernelAnalysis};
use crate::model::error::WireError;
use crate::model::job::{Slice, Slicer, WORKER_PROGRESS_MS};
use serde::{Deserialize, Serialize};

/// What starts a kernel view's request among the worker's messages (the CUDA panel's are
/// bare JSON).
const PREFIX: &str = "kernel:";

/// A launch the kernel view asks the worker for: the inputs its [`super::Kernel`] was checked
/// from, with every field valid (a repaired link's, with its bad fields at their defaults).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The fields.
    pub inputs: KernelInputs,
    /// The calculator's machine, as the page shows it.
    pub machine: Machine,
}

impl Request {
    /// As posted.
    pub fn encode(&self) -> String {
        format!(
            "{PREFIX}{}",
            serde_json::to_string(self).unwrap_or_default()
        )
    }

    /// Whether a posted text is a kernel view's request.
    pub fn is_one(text: &str) -> bool {
        text.starts_with(PREFIX)
    }
}

/// What the worker answers, several times for one launch: progress, then the figures or why
/// not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// Warp instructions counted so far, of all.
    Progress {
        /// Counted.
        done: u64,
        /// In the launch.
        total: u64,
    },
    /// The launch is counted.
    Done {
        /// Its figures (boxed: a reply is mostly progress).
        analysis: Box<KernelAnalysis>,
        /// The worker's memory when it finished, in bytes: what the run needed at most, since
        /// wasm memory never shrinks.
        memory_bytes: u64,
    },
    /// The launch stopped, on the field it names.
    Failed(KernelError),
}

/// Reads a reply as posted.
pub fn decode_reply(text: &str) -> Result<Reply, WireError> {
    serde_json::from_str(text).map_err(|e| WireError(e.to_string()))
}

/// Answers one posted request: counts the launch in slices of [`WORKER_PROGRESS_MS`] on
/// `clock` (ms), posting progress after each slice, then the figures with `memory` (bytes), or
/// the failure, through `post`.
pub fn answer(
    text: &str,
    clock: &mut impl FnMut() -> f64,
    memory: &mut impl FnMut() -> u64,
    post: &mut impl FnMut(String),
) {
    if let Some(job) = run(text, clock, post, None) {
        done(job, memory, post);
    }
}

/// How often, in milliseconds, a run whose cache is kept by another worker hands it the
/// accesses counted meanwhile: often enough that the other worker keeps pace, so that little
/// of its work is left when the launch's last warp is counted.
pub const HANDOFF_MS: f64 = 8.0;

/// [`answer`] with the cache model kept by another worker, which `feed` sends the cache's
/// words to ([`crate::model::warp::CacheServer`] meets them). With a cache, the launch is then
/// counted, `feed` gets the stream's end, and the run waits for that worker's answer:
/// [`Waiting::complete`]. `None` when the run has already been answered (with no cache, or
/// on a failure).
///
/// ```
/// use coalescing_lab::model::kernel::wire::{answer, answer_handing_off, Request};
/// use coalescing_lab::model::kernel::{presets::KernelPreset, Machine};
/// use coalescing_lab::model::warp::CacheServer;
/// let inputs = KernelPreset::by_id("transpose-tiled").unwrap().inputs();
/// let text = Request { inputs, machine: Machine::default() }.encode();
/// let mut kept = Vec::new();
/// answer(&text, &mut || 0.0, &mut || 0, &mut |r| kept.push(r));
/// // A clock 5 ms on at every look: slices, each feeding the server what it counted.
/// let (mut t, mut server, mut answers, mut replies) = (0.0, CacheServer::default(), vec![], vec![]);
/// let waiting = answer_handing_off(&text, &mut || { t += 5.0; t }, &mut || 0,
///     &mut |r| replies.push(r),
///     &mut |words| answers.extend(server.receive(&words).unwrap()));
/// assert!(answers.len() == 1 && replies.len() > 1, "progress, then the server's answer");
/// waiting.unwrap().complete(&answers[0], &mut || 0, &mut |r| replies.push(r));
/// assert_eq!(replies.last(), kept.last(), "the same figures, the same text");
/// ```
pub fn answer_handing_off(
    text: &str,
    clock: &mut impl FnMut() -> f64,
    memory: &mut impl FnMut() -> u64,
    post: &mut impl FnMut(String),
    feed: &mut impl FnMut(Vec<u32>),
) -> Option<Waiting> {
    let mut job = run(text, clock, post, Some(feed))?;
    if !job.handed_off {
        done(job, memory, post);
        return None;
    }
    feed(job.job.cache_words(true));
    Some(Waiting(job))
}

/// A launch counted, waiting for the cache worker's answer.
#[derive(Debug)]
pub struct Waiting(Counted);

impl Waiting {
    /// Adds the cache worker's `answer` and posts the figures, or why not.
    pub fn complete(
        mut self,
        answer: &[u32],
        memory: &mut impl FnMut() -> u64,
        post: &mut impl FnMut(String),
    ) {
        if let Err(e) = self.0.job.absorb_cache(answer) {
            return post(encode(&Reply::Failed(e)));
        }
        done(self.0, memory, post);
    }
}

/// A launch counted to its end in a worker, its cache kept there or not.
#[derive(Debug)]
struct Counted {
    job: Job,
    handed_off: bool,
}

fn encode(reply: &Reply) -> String {
    serde_json::to_string(reply).unwrap_or_default()
}

/// Reads the request and counts its launch, in slices, posting progress; with `feed`, the
/// cache is handed off and its words fed after every slice. `None` once a failure is posted.
fn run(
    text: &str,
    clock: &mut impl FnMut() -> f64,
    post: &mut impl FnMut(String),
    mut feed: Option<&mut dyn FnMut(Vec<u32>)>,
) -> Option<Counted> {
    let mut send = |reply: &Reply| post(encode(reply));
    let request: Request = match serde_json::from_str(text.strip_prefix(PREFIX).unwrap_or(text)) {
        Ok(r) => r,
        Err(e) => {
            let why = format!("the worker could not read the launch ({e})");
            send(&Reply::Failed(KernelError::new(KernelField::Grid, why)));
            return None;
        }
    };
    let kernel = match request.inputs.kernel(request.machine) {
        Ok(kernel) => kernel,
        Err(errors) => {
            let first = errors.into_iter().next().unwrap_or_else(|| {
                KernelError::new(KernelField::Grid, "the launch does not check")
            });
            send(&Reply::Failed(first));
            return None;
        }
    };
    let mut job = Job::new(&kernel);
    let handed_off = feed.is_some() && job.hand_off_cache();
    let slice_ms = if handed_off {
        HANDOFF_MS
    } else {
        WORKER_PROGRESS_MS
    };
    let mut slicer = Slicer::new(slice_ms);
    let mut reported = clock();
    loop {
        match slicer.run(&mut job, clock) {
            Ok(Slice::Done) => break,
            Ok(Slice::Yield) => {
                if let Some(feed) = feed.as_mut().filter(|_| handed_off) {
                    feed(job.cache_words(false));
                }
                let now = clock();
                if now - reported >= WORKER_PROGRESS_MS - slice_ms / 2.0 {
                    reported = now;
                    let (done, total) = job.progress();
                    send(&Reply::Progress { done, total });
                }
            }
            Err(e) => {
                send(&Reply::Failed(e));
                return None;
            }
        }
    }
    Some(Counted { job, handed_off })
}

/// Posts a counted launch's figures, or why not.
fn done(counted: Counted, memory: &mut impl FnMut() -> u64, post: &mut impl FnMut(String)) {
    let reply = match counted.job.finish() {
        Ok(analysis) => Reply::Done {
            analysis: Box::new(analysis),
            memory_bytes: memory(),
        },
        Err(e) => Reply::Failed(e),
    };
    post(encode(&reply));
}
