//! Why a run stops: what, at which line and column, and for which block and thread. Worded
//! once here.

use super::super::cint::Undefined;
use super::super::error::Pos;
use crate::model::cuda::files::Line;
use std::fmt;

/// A run's error: where in the source, which thread met it, and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    /// Where in the source.
    pub pos: Pos,
    /// The block's and the thread's `(x, y, z)`, when a thread met it.
    pub thread: Option<([u64; 3], [u64; 3])>,
    /// What went wrong (boxed, so a result stays small).
    pub kind: Box<RunErrorKind>,
}

/// Where the threads of a block part at a barrier, beside the one that differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apart {
    /// Some lanes of a warp reach the barrier and others skip it.
    Lanes,
    /// Thread (0,0,0) waits at another barrier, the one of this line.
    Barrier(u32),
    /// The thread that differs ends the kernel without reaching the barrier.
    Ends,
    /// Thread (0,0,0) ends the kernel without reaching it.
    FirstEnds,
}

/// What stops a run.
#[derive(Clone, Debug, PartialEq)]
pub enum RunErrorKind {
    /// C++'s undefined behaviour, with the values.
    Undefined(Undefined),
    /// Host code did what the program cannot go on from, said in words.
    Host(String),
    /// Host code called `exit(status)`: the run unwinds to its end.
    Exit(i32),
    /// An address, a loop's condition or a shuffle's lane that depends on a value read from
    /// memory, which the model does not know.
    DependsOnLoad {
        /// "the address", "the loop's condition", …
        what: &'static str,
        /// The line of the load.
        load_line: u32,
    },
    /// A name that is not declared where it is used.
    Undeclared(String),
    /// A type used where it cannot be.
    Type(String),
    /// A construct outside the subset, met while running.
    Unsupported(String),
    /// A function that calls itself.
    Recursion(String),
    /// No kernel of that name in the file.
    NoKernel {
        /// The launch's kernel name.
        name: String,
        /// The kernels the file has.
        kernels: Vec<String>,
    },
    /// The launched kernel, or what it calls, was skipped as outside the subset.
    Skipped {
        /// The item's name.
        name: String,
        /// Why it was skipped.
        why: String,
    },
    /// The launch does not fit the kernel: argument count, a pointer given a number, ….
    Launch(String),
    /// `__syncthreads()` reached by some threads of a block and not others.
    Barrier {
        /// The first thread of the block that differs.
        differs: [u64; 3],
        /// Whether the thread that differs reaches it (and thread (0,0,0)'s warp does not).
        reaches: bool,
        /// The line of the innermost `if` or loop around the barrier.
        branch: Option<u32>,
        /// Where the block's threads part, as far as the run knows.
        apart: Apart,
    },
    /// A loop that ran past the step budget.
    EndlessLoop {
        /// Iterations run.
        iterations: u64,
    },
    /// One warp's loops, nested ones counted together, ran past the budget.
    WarpIterations {
        /// The budget.
        limit: u64,
    },
    /// More lane-accesses than the model counts exactly.
    TooLarge {
        /// The limit.
        limit: u64,
        /// When the first blocks' rate says so before the launch reaches the limit.
        projection: Option<Projection>,
        /// A define that would shrink the launch, when the launch names a size of the file.
        shrink: Option<Shrink>,
    },
    /// A block buffers more lane-accesses than its budget between two barriers.
    BlockTooLarge {
        /// The limit.
        limit: u64,
        /// What it counts: "lane-accesses" or "warp accesses".
        unit: &'static str,
        /// A define that would shrink the launch, when the launch names a size of the file.
        shrink: Option<Shrink>,
    },
    /// An access whose bytes run past the top of the 64-bit address space.
    AddressOverflow,
    /// Something the interpreter should never meet: a bug, to be reported.
    Internal(&'static str),
    /// A warp parked at a barrier (`warp::park`): how the interpreter stops a warp there, never
    /// a failure of the run.
    Parked,
    /// A device `printf` whose format and arguments do not print.
    Printf(crate::model::clib::printf::PrintfError),
    /// A failure met in the panel's Web Worker, as its words (`cuda_view::wire`): the page
    /// shows them as they are.
    Reported {
        /// The failure's message, whole.
        words: String,
        /// Whether it is the launch field's.
        launch: bool,
        /// Whether it is the defines field's.
        defines: bool,
    },
}

/// The rate of a launch's first blocks, carried to the whole launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projection {
    /// Blocks run.
    pub blocks_run: u64,
    /// Blocks in the launch.
    pub blocks: u64,
    /// Lane-accesses the blocks run made.
    pub made: u64,
    /// Lane-accesses the whole launch makes at that rate.
    pub projected: u64,
}

/// A define that shrinks a launch past a budget: a size the launch names (a macro or a
/// constant of the file), and a smaller value for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrink {
    /// The size's name.
    pub name: String,
    /// Its value in the file (or the defines).
    pub value: u64,
    /// The value suggested: a power of two small enough for the budget when the work grows
    /// at least in proportion to the size, but not below 256 (a matrix multiply's cube fits
    /// there long before a line would).
    pub suggested: u64,
}

impl Shrink {
    /// The advice for a launch `over` times past a budget, from the sizes it names: the
    /// largest, shrunk to a power of two at most `value ÷ (2 × over)`, and at least 256.
    /// `None` without a size, or for one already too small to shrink.
    ///
    /// ```
    /// use coalescing_lab::model::cuda::run::Shrink;
    /// let s = Shrink::of(&[("block_size".into(), 256), ("DSIZE".into(), 16384)], 1.0).unwrap();
    /// assert_eq!((s.name.as_str(), s.value, s.suggested), ("DSIZE", 16384, 8192));
    /// // 4096 times past: 8192 / 8192 = 1, raised to 256.
    /// assert_eq!(Shrink::of(&[("N".into(), 8192)], 4096.0).unwrap().suggested, 256);
    /// assert_eq!(Shrink::of(&[("N".into(), 256)], 4.0), None);
    /// assert_eq!(Shrink::of(&[], 2.0), None);
    /// ```
    pub fn of(sizes: &[(String, u64)], over: f64) -> Option<Shrink> {
        let (name, value) = sizes.iter().max_by_key(|(_, v)| *v)?;
        let target = (*value as f64 / (2.0 * over.max(1.0))).floor().max(1.0) as u64;
        let suggested = (1u64 << (63 - target.leading_zeros())).max(256);
        (suggested < *value).then(|| Shrink {
            name: name.clone(),
            value: *value,
            suggested,
        })
    }
}

/// The advice past a size budget, naming the define that shrinks the launch when there is one.
fn smaller(f: &mut fmt::Formatter<'_>, shrink: &Option<Shrink>) -> fmt::Result {
    match shrink {
        Some(s) => write!(
            f,
            "run it at a smaller size, such as the define {}={} ({} is {} here; the defines \
             field, or -D on the command line): the sectors per request and the conflicts per \
             request of most kernels do not depend on the size",
            s.name, s.suggested, s.name, s.value
        ),
        None => f.write_str(SMALLER),
    }
}

impl RunError {
    /// `kind` at `pos`, met by no particular thread.
    pub fn at(pos: Pos, kind: RunErrorKind) -> RunError {
        RunError { pos, thread: None, kind: Box::new(kind) }
    }
}

fn triple(v: [u64; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// The advice past a size budget: the figures per request of most kernels do not depend on the
/// size, so a smaller one shows the same lesson.
const SMALLER: &str = "run it at a smaller size (a smaller #define, a smaller value in the \
                       launch, or a smaller grid): the sectors per request and the conflicts \
                       per request of most kernels do not depend on the size";

impl fmt::Display for RunErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunErrorKind::Undefined(u) => write!(f, "{u}"),
            RunErrorKind::Host(why) => f.write_str(why),
            RunErrorKind::Exit(code) => write!(f, "the program called exit({code})"),
            RunErrorKind::DependsOnLoad { what, load_line } => write!(
                f,
                "{what} depends on the value loaded at {}, which this model does \
                 not know (memory holds what the launch stores; its buffers start with no data)",
                Line(*load_line)
            ),
            RunErrorKind::Undeclared(name) if name.contains("::") => {
                let scope = name.rsplit_once("::").map_or(name.as_str(), |(s, _)| s);
                let scope = scope.trim_start_matches("::");
                write!(
                    f,
                    "'{scope}' is not declared here (in {name}); if it comes from a header, give \
                     the header beside the source (under Headers on the page, with -I DIR on the \
                     command line), or add its definition to the source"
                )
            }
            RunErrorKind::Undeclared(name) => {
                write!(f, "'{name}' is not declared here")?;
                let macro_like = name.len() > 1
                    && name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if macro_like {
                    write!(
                        f,
                        "; if it is a macro from a header, give the header beside the source (under \
                         Headers on the page, with -I DIR on the command line), or add its #define to \
                         the source"
                    )?;
                }
                Ok(())
            }
            RunErrorKind::Type(why) | RunErrorKind::Launch(why) => f.write_str(why),
            RunErrorKind::Unsupported(what) => {
                write!(f, "the CUDA subset this page reads leaves out {what}")
            }
            RunErrorKind::Recursion(name) => write!(
                f,
                "{name} calls itself; recursion is left out of the subset this page reads"
            ),
            RunErrorKind::NoKernel { name, kernels } => {
                if kernels.is_empty() {
                    write!(
                        f,
                        "the launch names {name}, but the file has no __global__ kernel"
                    )
                } else {
                    write!(
                        f,
                        "the launch names {name}, but the file's kernels are {}",
                        kernels.join(", ")
                    )
                }
            }
            RunErrorKind::Skipped { name, why } => {
                write!(f, "{name} could not be read: {why}")
            }
            RunErrorKind::Barrier { differs, reaches, branch, apart } => {
                let d = triple(*differs);
                match apart {
                    Apart::Lanes => {
                        let (a, b) = if *reaches {
                            ("reaches", "do not")
                        } else {
                            ("does not reach", "do")
                        };
                        write!(
                            f,
                            "thread {d} {a} this __syncthreads() when others of its block {b}"
                        )?;
                    }
                    Apart::Barrier(line) => write!(
                        f,
                        "thread {d} waits at this __syncthreads() while thread (0,0,0) waits at \
                         the one of {}",
                        Line(*line)
                    )?,
                    Apart::Ends => write!(
                        f,
                        "thread {d} ends the kernel without reaching this __syncthreads(), where \
                         thread (0,0,0) waits"
                    )?,
                    Apart::FirstEnds => write!(
                        f,
                        "thread {d} waits at this __syncthreads(), which thread (0,0,0) never \
                         reaches: it ends the kernel first"
                    )?,
                }
                f.write_str("; every thread of a block must reach a barrier, or none")?;
                match branch {
                    Some(line) => write!(f, " (it is inside the branch at {})", Line(*line)),
                    None => Ok(()),
                }
            }
            RunErrorKind::EndlessLoop { iterations } => write!(
                f,
                "this loop ran {iterations} iterations for one warp without ending; the run \
                 stops (an endless loop?)"
            ),
            RunErrorKind::WarpIterations { limit } => write!(
                f,
                "one warp's loops ran more than {limit} iterations in all (loops inside loops \
                 multiply); the run stops at this loop"
            ),
            RunErrorKind::TooLarge { limit, projection, shrink } => {
                match projection {
                    Some(p) => write!(
                        f,
                        "its first {} of {} blocks made {} lane-accesses: at that rate the launch \
                         makes about {}, more than the {limit} this model counts exactly; ",
                        p.blocks_run, p.blocks, p.made, p.projected
                    )?,
                    None => write!(
                        f,
                        "the launch makes more than {limit} lane-accesses, the most this model \
                         counts exactly; "
                    )?,
                }
                smaller(f, shrink)
            }
            RunErrorKind::BlockTooLarge { limit, unit, shrink } => {
                write!(
                    f,
                    "one block makes more than {limit} {unit} between two barriers, the most \
                     this model holds for one block while it interleaves the block's warps; "
                )?;
                smaller(f, shrink)
            }
            RunErrorKind::AddressOverflow => {
                f.write_str("this access's bytes run past the top of the 64-bit address space")
            }
            RunErrorKind::Internal(what) => {
                write!(f, "internal error ({what}); please report this link")
            }
            RunErrorKind::Printf(e) => write!(f, "printf: {e}"),
            RunErrorKind::Parked => {
                f.write_str("internal error (a warp parked at a barrier); please report this link")
            }
            RunErrorKind::Reported { words, .. } => f.write_str(words),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let RunErrorKind::Reported { words, .. } = &*self.kind {
            return f.write_str(words);
        }
        // The launch's own problems are placed in the launch field; a run's in the source.
        if matches!(
            *self.kind,
            RunErrorKind::Launch(_) | RunErrorKind::NoKernel { .. }
        ) {
            return write!(f, "launch, column {}: {}", self.pos.column, self.kind);
        }
        if self.pos.line == 0 {
            return write!(f, "{}", self.kind);
        }
        write!(f, "{}, column {}", Line(self.pos.line), self.pos.column)?;
        if let Some((block, thread)) = self.thread {
            write!(f, ", block {}, thread {}", triple(block), triple(thread))?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for RunError {}
