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
    let mut send = |reply: &Reply| post(serde_json::to_string(reply).unwrap_or_default());
    let request: Request = match serde_json::from_str(text.strip_prefix(PREFIX).unwrap_or(text)) {
        Ok(r) => r,
        Err(e) => {
            let why = format!("the worker could not read the launch ({e})");
            send(&Reply::Failed(KernelError::new(KernelField::Grid, why)));
            return;
        }
    };
    let kernel = match request.inputs.kernel(request.machine) {
        Ok(kernel) => kernel,
        Err(errors) => {
            let first = errors.into_iter().next().unwrap_or_else(|| {
                KernelError::new(KernelField::Grid, "the launch does not check")
            });
            send(&Reply::Failed(first));
            return;
        }
    };
    let mut job = Job::new(&kernel);
    let mut slicer = Slicer::new(WORKER_PROGRESS_MS);
    loop {
        match slicer.run(&mut job, clock) {
            Ok(Slice::Done) => break,
            Ok(Slice::Yield) => {
                let (done, total) = job.progress();
                send(&Reply::Progress { done, total });
            }
            Err(e) => {
                send(&Reply::Failed(e));
                return;
            }
        }
    }
    match job.finish() {
        Ok(analysis) => send(&Reply::Done {
            analysis: Box::new(analysis),
            memory_bytes: memory(),
        }),
        Err(e) => send(&Reply::Failed(e)),
    }
}
