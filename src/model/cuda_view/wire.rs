//! What the CUDA source panel and its Web Worker say to each other: a run asked for, and the
//! worker's progress, figures or failure, each as one JSON text posted between the threads.
//!
//! The worker (`src/worker.rs`) runs the launch with the interpreter the page would run, so
//! the figures are the same; it sends them with the run's [`Placement`], which lets the page
//! drill into one warp on a job of its own. A run's failure crosses as its words and where
//! it points ([`RunErrorKind::Reported`]): the page shows it, to the letter, as it shows one
//! of its own.
//!
//! ```
//! use coalescing_lab::model::cuda_view::wire::{answer, decode_reply, Reply, Request};
//! use coalescing_lab::model::kernel::Machine;
//! let request = Request {
//!     source: "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }".into(),
//!     launch: "k<<<1, 64>>>(a)".into(),
//!     machine: Machine { warp: 32, sector_bytes: 32, line_bytes: 128 },
//!     cache_bytes: 0,
//!     arch: 700,
//!     defines: String::new(),
//! };
//! let mut replies = Vec::new();
//! answer(&request.encode(), &mut || 0.0, &mut |r| replies.push(r));
//! let Ok(Reply::Done { analysis, .. }) = decode_reply(replies.last().unwrap()) else { panic!() };
//! assert_eq!(analysis.total.sectors, 8);
//! ```

use super::{failure_field, CudaField};
use crate::model::cuda::error::Pos;
use crate::model::cuda::parse_defines;
use crate::model::cuda::run::{
    read_source_with, CudaAnalysis, CudaFailure, CudaJob, Placement, RunError, RunErrorKind,
    WarpExecution,
};
use crate::model::job::{Slice, Slicer, WORKER_PROGRESS_MS};
use crate::model::machine::Machine;
use serde::{Deserialize, Serialize};

/// A run the page asks the worker for: what [`CudaJob::new`] takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The source, as given.
    pub source: String,
    /// The launch, as given.
    pub launch: String,
    /// The machine.
    pub machine: Machine,
    /// The cache's bytes (0 for none).
    pub cache_bytes: u64,
    /// `__CUDA_ARCH__`.
    pub arch: u32,
    /// The defines given beside the source, as typed (`NAME=VALUE …`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub defines: String,
}

impl Request {
    /// As posted.
    pub fn encode(&self) -> String {
        serde_json::to_string(&Message::Run(self.clone())).unwrap_or_default()
    }
}

/// One warp's executions asked for, of a finished run: the page's drill-down into a warp that
/// loops too long to run on the page's thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drill {
    /// The run, as it was asked for.
    pub request: Request,
    /// Where that run put its sites and shared arrays.
    pub placement: Placement,
    /// The block, linear.
    pub block: u64,
    /// The warp within it.
    pub warp: u32,
}

impl Drill {
    /// As posted.
    pub fn encode(&self) -> String {
        serde_json::to_string(&Message::Drill(Box::new(self.clone()))).unwrap_or_default()
    }
}

/// What the page posts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Message {
    Run(Request),
    Drill(Box<Drill>),
}

/// What the worker answers, several times for one run: progress, then the figures or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// Warps run so far, of all.
    Progress {
        /// Warps run.
        done: u64,
        /// Warps in the launch.
        total: u64,
    },
    /// The run finished.
    Done {
        /// Its figures (boxed: a reply is mostly progress).
        analysis: Box<CudaAnalysis>,
        /// Where it put its sites and shared arrays.
        placement: Placement,
    },
    /// The run stopped.
    Failed(Reported),
    /// A [`Drill`]'s answer: the warp's executions in its order, or why not.
    Executions(Result<Vec<WarpExecution>, Reported>),
}

/// A failure as words and where they point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reported {
    /// Where in the source.
    pub pos: Pos,
    /// The block and thread that met it.
    pub thread: Option<([u64; 3], [u64; 3])>,
    /// The failure's message, whole.
    pub words: String,
    /// Whether it is the launch field's.
    pub launch: bool,
    /// Whether it is the defines field's.
    #[serde(default)]
    pub defines: bool,
}

impl Reported {
    /// The words of `failure` and where it points.
    pub fn of(failure: &CudaFailure) -> Reported {
        let (pos, thread) = match failure {
            CudaFailure::Source(e) => (e.pos, None),
            CudaFailure::Launch(_) | CudaFailure::Defines(_) => (Pos::default(), None),
            CudaFailure::Run(e) => (e.pos, e.thread),
        };
        Reported {
            pos,
            thread,
            words: failure.to_string(),
            launch: failure_field(failure) == CudaField::Launch,
            defines: failure_field(failure) == CudaField::Defines,
        }
    }

    /// The failure the page shows: the same words, field and place.
    pub fn into_failure(self) -> CudaFailure {
        CudaFailure::Run(RunError {
            pos: self.pos,
            thread: self.thread,
            kind: Box::new(RunErrorKind::Reported {
                words: self.words,
                launch: self.launch,
                defines: self.defines,
            }),
        })
    }
}

pub use crate::model::error::WireError;

/// Reads a reply as posted.
pub fn decode_reply(text: &str) -> Result<Reply, WireError> {
    serde_json::from_str(text).map_err(|e| WireError(e.to_string()))
}

/// Answers one posted request: runs it in slices of [`WORKER_PROGRESS_MS`] on `clock` (ms),
/// posting progress after each slice, then the figures or the failure, through `post`.
pub fn answer(text: &str, clock: &mut impl FnMut() -> f64, post: &mut impl FnMut(String)) {
    let mut send = |reply: &Reply| post(serde_json::to_string(reply).unwrap_or_default());
    let request = match serde_json::from_str(text) {
        Ok(Message::Run(r)) => r,
        Ok(Message::Drill(d)) => {
            send(&Reply::Executions(drill(*d)));
            return;
        }
        Err(e) => {
            let kind = RunErrorKind::Internal("a request the worker cannot read");
            let mut failure = Reported::of(&CudaFailure::Run(RunError::at(Pos::default(), kind)));
            failure.words = format!("{} ({e})", failure.words);
            send(&Reply::Failed(failure));
            return;
        }
    };
    let job = job_of(&request);
    let mut job = match job {
        Ok(job) => job,
        Err(e) => {
            send(&Reply::Failed(Reported::of(&e)));
            return;
        }
    };
    let mut slicer = Slicer::new(WORKER_PROGRESS_MS);
    loop {
        match slicer.run(&mut job, clock) {
            Ok(Slice::Done) => {
                send(&Reply::Done {
                    analysis: Box::new(job.finish()),
                    placement: job.placement(),
                });
                return;
            }
            Ok(Slice::Yield) => {
                let (done, total) = job.progress();
                send(&Reply::Progress { done, total });
            }
            Err(e) => {
                send(&Reply::Failed(Reported::of(&e)));
                return;
            }
        }
    }
}

/// The job a request asks for.
fn job_of(r: &Request) -> Result<CudaJob, CudaFailure> {
    let defines = parse_defines(&r.defines).map_err(CudaFailure::Defines)?;
    let unit = read_source_with(&r.source, r.arch, &defines)?;
    CudaJob::of_unit(unit, &r.launch, r.machine, r.cache_bytes)
}

/// A warp's executions on a job made afresh from the run's request, placed as that run was.
fn drill(d: Drill) -> Result<Vec<WarpExecution>, Reported> {
    let r = d.request;
    let mut job = job_of(&r).map_err(|e| Reported::of(&e))?;
    job.adopt(d.placement);
    job.warp_executions(d.block, d.warp)
        .map_err(|e| Reported::of(&CudaFailure::Run(e)))
}
