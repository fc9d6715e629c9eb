//! Memory traces from real GPU runs: NVBit's `mem_trace` text and Accel-Sim's `.traceg`, read
//! in chunks from any source, counted per static instruction and for the whole kernel with the
//! kernel view's definitions and cache model.
//!
//! - `opcode`: memory space and width from a SASS opcode;
//! - `nvbit`, `accelsim`: one line of each format;
//! - `tally`: the counting;
//! - `synth`: writing either format from a model kernel (samples and round-trip tests);
//! - `view`: the per-instruction table, worded once for the page, the CLI and the CSV;
//! - `wire`: what the trace panel and the page's Web Worker post to each other.
//!
//! [`Importer`] takes bytes as they come ([`Importer::feed`]), keeps only an unfinished line
//! and, for Accel-Sim, the current thread block, and never the file. Pure: std and serde only.
//!
//! One idea, kept in one file: the importer's state machine (chunks, line ends, the two
//! formats' dispatch); the formats, the tally, the rows and the notes are modules of their own.

pub mod accelsim;
mod note;
pub mod nvbit;
pub mod opcode;
pub mod synth;
mod tally;
pub mod view;
pub mod wire;

pub use note::Note;

pub use super::warp::POOLED_AFTER;
pub use tally::{Instruction, Worst};
pub use view::{instruction_csv, instruction_rows, worst_addrs, InstructionRow};

use super::address::AccessError;
use super::kernel::{Figures, Machine};
use super::warp::RoundRobin;
use accelsim::AccelSimError;
use nvbit::NvbitError;
use std::fmt;

/// Lanes a trace records per warp: NVIDIA's 32.
pub const TRACE_LANES: usize = 32;

/// Why a trace line could not be counted; [`TraceAnalysis::first_malformed`] pairs it, worded,
/// with its line number.
///
/// ```
/// use coalescing_lab::model::trace::{nvbit::NvbitError, TraceLineError};
/// assert_eq!(TraceLineError::TooLong.to_string(), "longer than 65536 bytes");
/// let e = TraceLineError::Nvbit(NvbitError::NotHex { lane: 0, token: "0xZZ".into() });
/// assert_eq!(e.to_string(), "lane 0: '0xZZ' is not a 0x hex address");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceLineError {
    /// A lane's bytes leave the address space.
    Lane {
        /// The lane, 0 to 31.
        lane: u32,
        /// How its bytes fall outside the 0 to 2^64 − 1 address space.
        reason: AccessError,
    },
    /// The line is longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// The line is not UTF-8.
    NotUtf8,
    /// NVBit's reader refused the line.
    Nvbit(NvbitError),
    /// Accel-Sim's reader refused the line.
    AccelSim(AccelSimError),
    /// An execution of an instruction the importer never interned: a bug, never a silent
    /// zero.
    UnknownInstruction(usize),
}

impl fmt::Display for TraceLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceLineError::Lane { lane, reason } => write!(f, "lane {lane}: {reason}"),
            TraceLineError::TooLong => write!(f, "longer than {MAX_LINE_BYTES} bytes"),
            TraceLineError::NotUtf8 => f.write_str("not UTF-8 text"),
            TraceLineError::Nvbit(e) => fmt::Display::fmt(e, f),
            TraceLineError::AccelSim(e) => fmt::Display::fmt(e, f),
            TraceLineError::UnknownInstruction(at) => write!(
                f,
                "internal error: instruction {at} was never read; please report this trace"
            ),
        }
    }
}

impl std::error::Error for TraceLineError {}

impl From<NvbitError> for TraceLineError {
    fn from(e: NvbitError) -> TraceLineError {
        TraceLineError::Nvbit(e)
    }
}

impl From<AccelSimError> for TraceLineError {
    fn from(e: AccelSimError) -> TraceLineError {
        TraceLineError::AccelSim(e)
    }
}

/// The longest line read; a longer one is malformed and skipped.
pub const MAX_LINE_BYTES: usize = 1 << 16;
/// Malformed lines shown with their line numbers; the rest are only counted.
pub const MALFORMED_SHOWN: usize = 5;
/// Accel-Sim records held for one thread block's replay; a longer block is replayed in parts.
pub const BLOCK_BUFFER: usize = 1 << 16;

/// One warp memory instruction as a trace records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// The instruction's PC, where the format has one (Accel-Sim).
    pub pc: Option<u64>,
    /// The SASS opcode as written, e.g. `LDG.E.64`: it gives the space, direction and width.
    pub opcode: &'a str,
    /// Active lanes, bit `l` for lane `l`.
    pub mask: u64,
    /// Each lane's address; meaningless for inactive lanes.
    pub addresses: [u64; TRACE_LANES],
    /// The thread block (x, y, z): NVBit's `CTA`, Accel-Sim's `thread block =`.
    pub block: [u32; 3],
    /// NVBit: the hardware warp slot; Accel-Sim: the warp within the block.
    pub warp: u32,
    /// NVBit's `grid_launch_id`: which kernel launch the line belongs to (Accel-Sim has one
    /// launch per file).
    pub launch: Option<u64>,
}

/// Distinct kernel launches a trace's note counts exactly.
pub const MAX_LAUNCHES_TRACKED: usize = 4096;

/// The two formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Format {
    /// NVBit's `mem_trace` tool output.
    Nvbit,
    /// Accel-Sim's SASS kernel trace (`.traceg`).
    AccelSim,
}

impl Format {
    /// The name in links and on the command line: `nvbit` or `accelsim`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Nvbit => "nvbit",
            Format::AccelSim => "accelsim",
        }
    }

    /// The format named `text`, if any.
    pub fn parse(text: &str) -> Option<Format> {
        match text.trim() {
            "nvbit" => Some(Format::Nvbit),
            "accelsim" => Some(Format::AccelSim),
            _ => None,
        }
    }

    /// The format a line says it belongs to, if it says.
    ///
    /// ```
    /// use coalescing_lab::model::trace::Format;
    /// assert_eq!(Format::detect("MEMTRACE: CTX 0x1 - LAUNCH - …"), Some(Format::Nvbit));
    /// assert_eq!(Format::detect("-kernel name = _Z6vecAddPdS_S_i"), Some(Format::AccelSim));
    /// assert_eq!(Format::detect("result = 42"), None);
    /// ```
    pub fn detect(line: &str) -> Option<Format> {
        let line = line.trim_start();
        if line.starts_with("MEMTRACE:") || line.starts_with("CTA ") {
            Some(Format::Nvbit)
        } else if line.starts_with("-kernel")
            || line.starts_with("-accelsim")
            || line.starts_with("#BEGIN_TB")
            || line.starts_with("#traces format")
            || line.starts_with("thread block = ")
        {
            Some(Format::AccelSim)
        } else {
            None
        }
    }
}

/// How to read a trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceOptions {
    /// `None`: detected from the content.
    pub format: Option<Format>,
    /// Bytes per lane for opcodes whose modifier the user overrides.
    pub widths: Vec<(String, u64)>,
    /// Warp width, sector and line sizes to count on; traces record 32 lanes.
    pub machine: Machine,
    /// 0 for no cache.
    pub cache_bytes: u64,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            format: None,
            widths: Vec::new(),
            machine: Machine::default(),
            // The kernel view's default: V100's 6 MiB L2.
            cache_bytes: super::machine::DEFAULT_CACHE_BYTES,
        }
    }
}

/// What a whole trace says.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceAnalysis {
    /// `None` when no line was recognised.
    pub format: Option<Format>,
    /// The machine the trace was counted on.
    pub machine: Machine,
    /// The modelled cache's size in bytes, 0 for none.
    pub cache_bytes: u64,
    /// The kernel view's figures for the whole trace.
    pub total: Figures,
    /// One row per static instruction: the most excess sectors (then bank conflicts) first.
    pub instructions: Vec<Instruction>,
    /// Bytes fed, the whole file when finished.
    pub bytes: u64,
    /// Lines read, counting malformed and over-long ones.
    pub lines: u64,
    /// Memory-instruction lines read (active lanes or not).
    pub executions: u64,
    /// Instruction lines that touch no memory (Accel-Sim).
    pub non_memory: u64,
    /// Kernel launches seen (NVBit launch lines; Accel-Sim headers).
    pub kernels: u64,
    /// Lines that are not trace output, e.g. the application's own prints.
    pub other_lines: u64,
    /// Lines that could not be read; only the first [`MALFORMED_SHOWN`] are listed.
    pub malformed: u64,
    /// The first [`MALFORMED_SHOWN`] malformed lines: (line number, a [`TraceLineError`] worded).
    pub first_malformed: Vec<(u64, String)>,
    /// Remarks for the page: pooled write-backs, blocks replayed in parts.
    pub notes: Vec<String>,
}

/// An Accel-Sim record held for its block's replay.
#[derive(Clone, Debug)]
struct Held {
    line: u64,
    at: usize,
    mask: u64,
    addresses: [u64; TRACE_LANES],
    block: [u32; 3],
    warp: u32,
}

/// A trace being read, chunk by chunk.
///
/// ```
/// use coalescing_lab::model::trace::{Importer, TraceOptions};
/// let lanes: String = (0..32).map(|t| format!("0x{:016x} ", 0x1000 + 4 * t)).collect();
/// let text = format!("MEMTRACE: CTX 0x0000000000000001 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - LDG.E - {lanes}\n");
/// let mut importer = Importer::new(TraceOptions::default());
/// // Any split of the bytes gives the same result.
/// let (a, b) = text.as_bytes().split_at(100);
/// importer.feed(a);
/// importer.feed(b);
/// let analysis = importer.finish();
/// assert_eq!((analysis.total.requests, analysis.total.sectors), (1, 4));
/// assert_eq!(analysis.instructions[0].opcode, "LDG.E");
/// ```
#[derive(Clone, Debug)]
pub struct Importer {
    format: Option<Format>,
    pending: Vec<u8>,
    /// Skipping the rest of an over-long line.
    skipping: bool,
    /// The last line ended at a `\r`: a `\n` right after it ends nothing.
    after_cr: bool,
    /// The file is UTF-16, which is not read.
    utf16: bool,
    reader: accelsim::Reader,
    /// The current Accel-Sim block's records, per warp.
    held: RoundRobin<Held>,
    tally: tally::Tally,
    analysis: TraceAnalysis,
    /// The remarks so far, each once, in the order they arose.
    notes: Vec<Note>,
    /// Distinct `grid_launch_id`s seen, up to [`MAX_LAUNCHES_TRACKED`].
    launches: std::collections::BTreeSet<u64>,
}

impl Importer {
    /// An importer with nothing read yet, reading by `options`.
    pub fn new(options: TraceOptions) -> Importer {
        Importer {
            format: options.format,
            pending: Vec::new(),
            skipping: false,
            after_cr: false,
            utf16: false,
            reader: accelsim::Reader::default(),
            held: RoundRobin::default(),
            tally: tally::Tally::new(options.machine, options.cache_bytes, options.widths),
            notes: Vec::new(),
            launches: std::collections::BTreeSet::new(),
            analysis: TraceAnalysis {
                format: options.format,
                machine: options.machine,
                cache_bytes: options.cache_bytes,
                total: Figures::default(),
                instructions: Vec::new(),
                bytes: 0,
                lines: 0,
                executions: 0,
                non_memory: 0,
                kernels: 0,
                other_lines: 0,
                malformed: 0,
                first_malformed: Vec::new(),
                notes: Vec::new(),
            },
        }
    }

    /// Bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.analysis.bytes
    }

    /// Reads the next bytes of the trace. Lines end at `\n`, `\r\n` or a lone `\r` (old Mac
    /// files); a UTF-16 file is recognised by its byte-order mark and not read.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.analysis.bytes += chunk.len() as u64;
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            let (head, tail) = rest.split_at(end);
            let was_cr = tail[0] == b'\r';
            rest = &tail[1..];
            // The `\n` of a `\r\n` that a chunk boundary split, or of one in this chunk.
            if std::mem::replace(&mut self.after_cr, was_cr)
                && !was_cr
                && head.is_empty()
                && self.pending.is_empty()
            {
                continue;
            }
            if self.skipping {
                self.skipping = false;
                self.pending.clear();
                continue;
            }
            if self.pending.is_empty() {
                self.line(head);
            } else {
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(head);
                self.line(&line);
                line.clear();
                self.pending = line;
            }
        }
        if !rest.is_empty() {
            self.after_cr = false;
        }
        if self.skipping {
            return;
        }
        self.pending.extend_from_slice(rest);
        if self.pending.len() > MAX_LINE_BYTES {
            self.analysis.lines += 1;
            let n = self.analysis.lines;
            self.malformed(n, TraceLineError::TooLong);
            self.pending.clear();
            self.skipping = true;
        }
    }

    /// Reads the last line and returns the analysis.
    pub fn finish(mut self) -> TraceAnalysis {
        if !self.pending.is_empty() && !self.skipping {
            let line = std::mem::take(&mut self.pending);
            self.line(&line);
        }
        self.replay();
        let over_budget = self.tally.unique_over_budget();
        let (total, mut rows) = self.tally.finish();
        let mut a = self.analysis;
        a.total = total;
        a.format = self.format;
        if over_budget {
            self.notes
                .push(Note::UniqueLowerBound { unique: total.unique_sectors });
        }
        if self.launches.len() > 1 {
            self.notes
                .push(Note::Launches { count: self.launches.len() });
        }
        if rows.len() > POOLED_AFTER {
            self.notes.push(Note::Pooled { instructions: rows.len() });
        }
        rows.sort_by_key(|i| {
            std::cmp::Reverse((i.excess_sectors(), i.wavefronts.conflicts(), i.sectors))
        });
        a.instructions = rows;
        a.notes = self.notes.iter().map(Note::to_string).collect();
        a
    }

    fn malformed(&mut self, line: u64, why: TraceLineError) {
        self.analysis.malformed += 1;
        if self.analysis.first_malformed.len() < MALFORMED_SHOWN {
            self.analysis.first_malformed.push((line, why.to_string()));
        }
    }

    fn line(&mut self, bytes: &[u8]) {
        self.analysis.lines += 1;
        let n = self.analysis.lines;
        // A UTF-16 file starts with its byte-order mark: seen on the first line, however
        // the bytes arrive, and nothing of it is read.
        if n == 1 && (bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff])) {
            self.utf16 = true;
            self.notes.push(Note::Utf16);
        }
        if self.utf16 {
            return;
        }
        if bytes.len() > MAX_LINE_BYTES {
            self.malformed(n, TraceLineError::TooLong);
            return;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            self.malformed(n, TraceLineError::NotUtf8);
            return;
        };
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.trim().is_empty() {
            return;
        }
        let format = match self.format {
            Some(f) => f,
            None => match Format::detect(text) {
                Some(f) => {
                    self.format = Some(f);
                    f
                }
                None => {
                    self.analysis.other_lines += 1;
                    return;
                }
            },
        };
        let outcome = match format {
            Format::Nvbit => self.nvbit(text),
            Format::AccelSim => self.accelsim(text, n),
        };
        if let Err(why) = outcome {
            self.malformed(n, why);
        }
    }

    fn nvbit(&mut self, text: &str) -> Result<(), TraceLineError> {
        match nvbit::parse(text)? {
            nvbit::Line::Access(r) => {
                self.analysis.executions += 1;
                if let Some(id) = r.launch {
                    if self.launches.len() < MAX_LAUNCHES_TRACKED {
                        self.launches.insert(id);
                    }
                }
                let at = self.tally.intern(r.pc, r.opcode);
                self.tally
                    .execute(at, r.mask, &r.addresses, r.block, r.warp)
            }
            nvbit::Line::Launch => {
                self.analysis.kernels += 1;
                Ok(())
            }
            nvbit::Line::Other => {
                self.analysis.other_lines += 1;
                Ok(())
            }
        }
    }

    fn accelsim(&mut self, text: &str, n: u64) -> Result<(), TraceLineError> {
        if text.starts_with("-kernel name") {
            self.analysis.kernels += 1;
        }
        match self.reader.parse(text)? {
            accelsim::Line::Access(r) => {
                self.analysis.executions += 1;
                let at = self.tally.intern(r.pc, r.opcode);
                self.held.push(
                    r.warp as usize,
                    Held {
                        line: n,
                        at,
                        mask: r.mask,
                        addresses: r.addresses,
                        block: r.block,
                        warp: r.warp,
                    },
                );
                if self.held.len() >= BLOCK_BUFFER {
                    if !self.notes.contains(&Note::BlockInParts) {
                        self.notes.push(Note::BlockInParts);
                    }
                    self.replay();
                }
                Ok(())
            }
            accelsim::Line::Block(_) | accelsim::Line::BlockEnd => {
                self.replay();
                Ok(())
            }
            accelsim::Line::NonMemory => {
                self.analysis.non_memory += 1;
                Ok(())
            }
            accelsim::Line::Header | accelsim::Line::Warp(_) => Ok(()),
        }
    }

    /// Replays the held block: its warps round-robin, one instruction each in turn, which is
    /// the kernel view's order when the warps run the same instructions.
    fn replay(&mut self) {
        let mut held = std::mem::take(&mut self.held);
        held.drain(|h| {
            if let Err(why) = self
                .tally
                .execute(h.at, h.mask, &h.addresses, h.block, h.warp)
            {
                self.malformed(h.line, why);
            }
        });
        self.held = held;
    }
}

/// Reads a whole trace held in memory: [`Importer::feed`] once, then [`Importer::finish`].
pub fn analyze_trace(text: &[u8], options: TraceOptions) -> TraceAnalysis {
    let mut importer = Importer::new(options);
    importer.feed(text);
    importer.finish()
}
