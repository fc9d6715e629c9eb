//! What the trace panel and the page's Web Worker say to each other: a trace to read (its
//! options; the file or the address travels beside the text), and the worker's progress, then
//! the figures with the table's first rows, then more rows or the whole CSV on demand.
//!
//! The worker reads the trace with the importer the page would use, so the figures are the
//! same; it keeps the analysis, because a trace may hold 10^6 static instructions and the page
//! shows a hundred rows at a time. A trace that exhausts memory, or a bug that traps, ends the
//! worker and never the page.
//!
//! ```
//! use coalescing_lab::model::trace::wire::{decode_reply, Ask, Reply, Served, FIRST_ROWS};
//! use coalescing_lab::model::trace::{Importer, TraceOptions};
//! let mut importer = Importer::new(TraceOptions::default());
//! importer.feed(b"");
//! let mut served = Served::default();
//! let Reply::Done { analysis, statics, .. } = served.done(importer.finish(), 0) else { panic!() };
//! assert_eq!((analysis.instructions.len(), statics), (0, 0));
//! let text = Ask::Csv.encode();
//! assert_eq!(Ask::decode(&text), Some(Ask::Csv));
//! let reply = served.answer(&Ask::Csv).unwrap();
//! assert!(matches!(decode_reply(&reply.encode()), Ok(Reply::Csv(csv)) if csv.starts_with("opcode,")));
//! # let _ = FIRST_ROWS;
//! ```

use super::{instruction_csv, Instruction, TraceAnalysis, TraceOptions};
use crate::model::error::WireError;
use serde::{Deserialize, Serialize};

/// What starts a trace panel's message among the worker's messages.
const PREFIX: &str = "trace:";

/// Rows of the table that come with the figures; the page asks for more as it shows them.
pub const FIRST_ROWS: usize = 100;

/// What the trace panel asks of the worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ask {
    /// Read the trace posted beside this text (a `File`, or an address on this site).
    Read(TraceOptions),
    /// The table's rows `from..to` of the trace read last (fewer at its end).
    Rows {
        /// The first.
        from: usize,
        /// One past the last.
        to: usize,
    },
    /// The whole table as CSV ([`instruction_csv`]).
    Csv,
}

impl Ask {
    /// As posted.
    pub fn encode(&self) -> String {
        format!(
            "{PREFIX}{}",
            serde_json::to_string(self).unwrap_or_default()
        )
    }

    /// A posted text as an ask; `None` when it is not a trace panel's.
    pub fn decode(text: &str) -> Option<Ask> {
        serde_json::from_str(text.strip_prefix(PREFIX)?).ok()
    }
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// Bytes read so far, and in all when known.
    Progress {
        /// Read.
        bytes: u64,
        /// The file's or the response's length.
        total: Option<u64>,
    },
    /// The trace is read: its figures, with the first [`FIRST_ROWS`] of its table.
    Done {
        /// The analysis, whose `instructions` are the table's first rows only.
        analysis: Box<TraceAnalysis>,
        /// Static instructions in all: the table's length.
        statics: u64,
        /// The worker's memory when it finished, in bytes: what the read needed at most.
        memory_bytes: u64,
    },
    /// Rows an [`Ask::Rows`] asked for.
    Rows(Vec<Instruction>),
    /// The table as CSV.
    Csv(String),
    /// The trace could not be read: the browser's or the host's words.
    Failed(String),
}

impl Reply {
    /// As posted.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Reads a reply as posted.
pub fn decode_reply(text: &str) -> Result<Reply, WireError> {
    serde_json::from_str(text).map_err(|e| WireError(e.to_string()))
}

/// The trace the worker read last, kept for the page's asks.
#[derive(Debug, Default)]
pub struct Served(Option<TraceAnalysis>);

impl Served {
    /// Keeps `analysis` and gives the page's reply: the figures and the first rows, with the
    /// worker's `memory_bytes`.
    pub fn done(&mut self, analysis: TraceAnalysis, memory_bytes: u64) -> Reply {
        let statics = analysis.instructions.len() as u64;
        let mut shown = analysis.clone();
        shown.instructions.truncate(FIRST_ROWS);
        self.0 = Some(analysis);
        Reply::Done {
            analysis: Box::new(shown),
            statics,
            memory_bytes,
        }
    }

    /// The reply to `ask` about the trace kept; `None` for a read (the worker's to do) or
    /// before any trace was read.
    pub fn answer(&self, ask: &Ask) -> Option<Reply> {
        let a = self.0.as_ref()?;
        match *ask {
            Ask::Read(_) => None,
            Ask::Rows { from, to } => {
                let end = to.min(a.instructions.len());
                let rows = a.instructions.get(from.min(end)..end).unwrap_or_default();
                Some(Reply::Rows(rows.to_vec()))
            }
            Ask::Csv => Some(Reply::Csv(instruction_csv(a))),
        }
    }
}
