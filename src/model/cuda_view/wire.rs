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
//!     headers: Default::default(),
//! };
//! let mut replies = Vec::new();
//! answer(&request.encode(), &mut || 0.0, &mut |r| replies.push(r));
//! let Ok(Reply::Done { analysis, .. }) = decode_reply(replies.last().unwrap()) else { panic!() };
//! assert_eq!(analysis.total.sectors, 8);
//! ```

use super::{failure_field, CudaField, LaunchRow, Pick};
use crate::model::cuda::error::Pos;
use crate::model::cuda::files::{Headers, Sources};
use crate::model::cuda::parse_defines;
use crate::model::cuda::run::program::{
    run_files, Observer, Printed, ProgramOptions, ProgramRun, Progress,
};
use crate::model::cuda::run::{
    read_files, CudaAnalysis, CudaFailure, CudaJob, Placement, RunError, RunErrorKind,
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
    /// The headers beside the source.
    #[serde(default, skip_serializing_if = "Headers::is_empty")]
    pub headers: Headers,
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

/// A whole program the page asks the worker to run: its `main()`, with every launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramRequest {
    /// The source, as given.
    pub source: String,
    /// The defines given beside the source, as typed (`NAME=VALUE …`).
    pub defines: String,
    /// The program's arguments after its name.
    pub argv: Vec<String>,
    /// The machine.
    pub machine: Machine,
    /// The cache's bytes (0 for none).
    pub cache_bytes: u64,
    /// `__CUDA_ARCH__`.
    pub arch: u32,
    /// The DRAM bandwidth `cudaEventElapsedTime` counts at, in GB/s.
    pub bandwidth_gb_s: f64,
    /// The launch whose analysis comes with the answer.
    pub pick: Pick,
    /// The headers beside the source.
    #[serde(default, skip_serializing_if = "Headers::is_empty")]
    pub headers: Headers,
}

impl ProgramRequest {
    /// As posted.
    pub fn encode(&self) -> String {
        serde_json::to_string(&Message::Program(Box::new(self.clone()))).unwrap_or_default()
    }
}

/// Another launch of the program run last, asked of the worker that ran it.
pub fn encode_pick(pick: Pick) -> String {
    serde_json::to_string(&Message::Pick(pick)).unwrap_or_default()
}

/// What the page posts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Message {
    Run(Request),
    Drill(Box<Drill>),
    Program(Box<ProgramRequest>),
    Pick(Pick),
}

/// A program's end, as the worker answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramReply {
    /// The console, in the order printed.
    pub console: Vec<Printed>,
    /// The exit status; `None` when the run stopped on an error.
    pub exit_code: Option<u8>,
    /// Each launch's row, in order.
    pub launches: Vec<LaunchRow>,
    /// Why the run stopped before the program's end, if it did.
    pub error: Option<Reported>,
    /// What the model could not do as a GPU would.
    pub notes: Vec<String>,
    /// The launch asked for: its analysis follows as a [`Reply::Done`] (with no placement),
    /// or, when the program made no such launch, a [`Reply::Picked`].
    pub pick: Pick,
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
    /// A running program's console since the last reply, and where it stands.
    Console {
        /// What was printed since the last reply, in order.
        pieces: Vec<Printed>,
        /// Launches finished.
        launches: usize,
        /// The running launch's warps run, and in all.
        launch: Option<(u64, u64)>,
    },
    /// A [`ProgramRequest`]'s end (boxed: a reply is mostly progress). The picked launch's
    /// analysis follows as a [`Reply::Done`], as a launch's run answers.
    Program(Box<ProgramReply>),
    /// The program made no launch `pick`: the answer to a [`ProgramRequest`] or an
    /// [`encode_pick`] ask in place of a [`Reply::Done`].
    Picked {
        /// Which.
        pick: Pick,
    },
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
    /// The path of the header `pos` is in; empty for the main file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub file: String,
}

impl Reported {
    /// The words of `failure` and where it points.
    pub fn of(failure: &CudaFailure) -> Reported {
        let (pos, thread) = match failure {
            CudaFailure::Source(e) => (e.pos, None),
            CudaFailure::Launch(_) | CudaFailure::Defines(_) => (Pos::default(), None),
            CudaFailure::Run(e) => (e.pos, e.thread),
        };
        let (k, _) = crate::model::cuda::files::split(pos.line);
        Reported {
            file: crate::model::cuda::files::file_name(k)
                .filter(|_| k > 0)
                .unwrap_or_default(),
            pos,
            thread,
            words: failure.to_string(),
            launch: failure_field(failure) == CudaField::Launch,
            defines: failure_field(failure) == CudaField::Defines,
        }
    }

    /// The failure the page shows: the same words, field and place.
    pub fn into_failure(self) -> CudaFailure {
        // The page's thread words the header's lines by this name from now on.
        let (k, _) = crate::model::cuda::files::split(self.pos.line);
        if k > 0 && !self.file.is_empty() {
            crate::model::cuda::files::name_file(k, self.file);
        }
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
        // A program's own worker answers it ([`ProgramServer`]).
        Ok(Message::Program(_) | Message::Pick(_)) => return,
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

/// Where the page's source finds its headers: the source is `main.cu`, in the folder the
/// headers' paths start from, and a header is also found by its name alone.
pub fn page_sources(headers: &Headers) -> Sources<'_> {
    Sources {
        main: "main.cu",
        dirs: &[],
        reader: headers,
    }
}

/// The job a request asks for.
fn job_of(r: &Request) -> Result<CudaJob, CudaFailure> {
    let defines = parse_defines(&r.defines).map_err(CudaFailure::Defines)?;
    let unit = read_files(&r.source, r.arch, &defines, page_sources(&r.headers))?;
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

/// A worker that runs whole programs: it answers a [`ProgramRequest`] with the console as it
/// is printed, then the program's end, and keeps the run for the page's asks for another
/// launch's analysis.
#[derive(Default)]
pub struct ProgramServer {
    run: Option<ProgramRun>,
}

impl ProgramServer {
    /// Answers `text` if it is a program's request or an ask for a launch of the last one
    /// (else returns false, and posts nothing). The console streams through `post` as the
    /// program prints, a reply every [`WORKER_PROGRESS_MS`] at most on `clock` (ms).
    pub fn answer(
        &mut self,
        text: &str,
        clock: impl FnMut() -> f64 + 'static,
        post: std::rc::Rc<dyn Fn(String)>,
    ) -> bool {
        let send = |reply: &Reply| post(serde_json::to_string(reply).unwrap_or_default());
        let request = match serde_json::from_str(text) {
            Ok(Message::Program(r)) => r,
            Ok(Message::Pick(pick)) => {
                let analysis = self.run.as_ref().and_then(|r| pick.of(&r.launches));
                send(&picked(pick, analysis));
                return true;
            }
            _ => return false,
        };
        self.run = None;
        let defines = match parse_defines(&request.defines) {
            Ok(d) => d,
            Err(e) => {
                send(&Reply::Failed(Reported::of(&CudaFailure::Defines(e))));
                return true;
            }
        };
        let options = ProgramOptions {
            machine: request.machine,
            cache_bytes: request.cache_bytes,
            arch: request.arch,
            bandwidth_gb_s: request.bandwidth_gb_s,
            argv: request.argv.clone(),
            observer: streamer(clock, post.clone()),
            ..ProgramOptions::default()
        };
        match run_files(
            &request.source,
            &defines,
            page_sources(&request.headers),
            &options,
        ) {
            Ok(run) => {
                send(&Reply::Program(Box::new(ProgramReply {
                    console: run.console.clone(),
                    exit_code: run.exit_code,
                    launches: run.launches.iter().map(LaunchRow::of).collect(),
                    error: run.error.as_ref().map(Reported::of),
                    notes: run.notes.clone(),
                    pick: request.pick,
                })));
                send(&picked(request.pick, request.pick.of(&run.launches)));
                self.run = Some(run);
            }
            Err(e) => send(&Reply::Failed(Reported::of(&e))),
        }
        true
    }
}

/// The answer for launch `pick` of a program: its analysis as a launch's run answers it
/// (no placement: a program's launch is not drilled into), or that there is no such launch.
fn picked(pick: Pick, analysis: Option<CudaAnalysis>) -> Reply {
    match analysis {
        Some(analysis) => Reply::Done {
            analysis: Box::new(analysis),
            placement: Placement::default(),
        },
        None => Reply::Picked { pick },
    }
}

/// An observer that posts what the program printed since its last post, and where the run
/// stands, every [`WORKER_PROGRESS_MS`] at most.
fn streamer(
    mut clock: impl FnMut() -> f64 + 'static,
    post: std::rc::Rc<dyn Fn(String)>,
) -> Observer {
    let mut last = clock();
    // The pieces sent: how many whole, and the bytes of the last one sent.
    let (mut pieces_sent, mut bytes_sent) = (0usize, 0usize);
    Observer::new(move |p: &Progress| {
        let now = clock();
        if now - last < WORKER_PROGRESS_MS {
            return;
        }
        last = now;
        let mut pieces = Vec::new();
        for (k, piece) in p.console.iter().enumerate().skip(pieces_sent) {
            let from = if k == pieces_sent { bytes_sent } else { 0 };
            if let Some(text) = piece.text.get(from..).filter(|t| !t.is_empty()) {
                pieces.push(Printed {
                    stream: piece.stream,
                    text: text.to_string(),
                });
            }
        }
        if let Some(piece) = p.console.last() {
            (pieces_sent, bytes_sent) = (p.console.len() - 1, piece.text.len());
        }
        let reply = Reply::Console {
            pieces,
            launches: p.launches,
            launch: p.launch,
        };
        post(serde_json::to_string(&reply).unwrap_or_default());
    })
}
