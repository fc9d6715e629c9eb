//! Where a trace is read: in the page's Web Worker (`ui::worker`, `model::trace::wire`),
//! which keeps the analysis and hands the page the figures and the table's rows a hundred at
//! a time, so that neither a 200 MB file nor 10^6 static instructions hold the page's thread,
//! and a read that exhausts memory or traps ends the worker with a message, never the page;
//! or, where the build or the browser has no worker, on the page's thread in slices.
//!
//! Each read gets a worker of its own: a new read, or Cancel, terminates the last one.

use super::Source;
use crate::model::job::SLICE_MS;
use crate::model::trace::wire::{decode_reply, Ask, Reply};
use crate::model::trace::{instruction_csv, Importer, TraceAnalysis, TraceOptions};
use crate::stream;
use crate::ui::job::{next_turn, now_ms};
use crate::ui::share::download_text;
use crate::ui::worker::{self, Remote};
use leptos::prelude::*;
use std::cell::Cell;
use wasm_bindgen::JsValue;

/// The CSV's file name.
const CSV_NAME: &str = "coalescing-trace.csv";

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Status {
    Idle,
    /// Bytes read, and in all when known.
    Reading(f64, Option<f64>),
    Done,
    Cancelled,
    Failed(String),
}

/// The trace on show and the read going on.
#[derive(Clone, Copy)]
pub(super) struct Reader {
    /// The analysis on show; from the worker, its table's rows so far.
    pub(super) analysis: RwSignal<Option<TraceAnalysis>>,
    /// Static instructions in all: the table's whole length.
    pub(super) statics: RwSignal<usize>,
    /// Reads finished so far: a new one starts the table at its first page again.
    pub(super) reads: RwSignal<u64>,
    /// The worker's memory once it read the trace on show, in bytes.
    pub(super) worker_memory: RwSignal<Option<u64>>,
    pub(super) status: RwSignal<Status>,
    generation: StoredValue<u64>,
    /// The worker of the read going on.
    remote: worker::Slot,
    /// The worker that holds the analysis on show (its rows past the first, its CSV), and
    /// its read's ticket; `None` when the page's thread read it.
    serving: StoredValue<Option<(u64, Remote)>, LocalStorage>,
    /// Rows asked of the serving worker so far: a second "Show more" before the first rows
    /// come asks for the rows after them, never the same ones twice.
    asked: StoredValue<usize>,
    /// A worker failed to start: reads stay on the page's thread from then on.
    broken: StoredValue<bool>,
    /// The source of the read going on, for a read on the page's thread instead.
    reading: StoredValue<Option<(Source, TraceOptions)>, LocalStorage>,
}

impl Reader {
    pub(super) fn new() -> Reader {
        Reader {
            analysis: RwSignal::new(None),
            statics: RwSignal::new(0),
            reads: RwSignal::new(0),
            worker_memory: RwSignal::new(None),
            status: RwSignal::new(Status::Idle),
            generation: StoredValue::new(0),
            remote: StoredValue::new_local(None),
            serving: StoredValue::new_local(None),
            asked: StoredValue::new(0),
            broken: StoredValue::new(false),
            reading: StoredValue::new_local(None),
        }
    }

    /// Reads `from` by `options`, cancelling the read going on.
    pub(super) fn start(self, from: Source, options: TraceOptions) {
        let ticket = self.bump();
        self.status.set(Status::Reading(0.0, None));
        self.reading
            .set_value(Some((from.clone(), options.clone())));
        if !self.broken.get_value() && worker::available() {
            self.remote_read(ticket, from, options);
        } else {
            self.in_page(ticket, from, options);
        }
    }

    /// Stops the read going on; the figures on show stand, and so does the worker that
    /// serves their table.
    pub(super) fn cancel(self) {
        self.bump();
        self.status.set(Status::Cancelled);
    }

    /// A new ticket: the worker of the read going on goes.
    fn bump(self) -> u64 {
        let ticket = self.generation.get_value() + 1;
        self.generation.set_value(ticket);
        self.remote.set_value(None);
        ticket
    }

    fn current(self, ticket: u64) -> bool {
        self.generation.try_get_value() == Some(ticket)
    }

    /// Shows `analysis`, whose table's rows past its own are `serving`'s.
    fn show(self, analysis: TraceAnalysis, statics: usize, serving: Option<(u64, Remote)>) {
        self.asked
            .set_value(analysis.instructions.len().min(statics));
        self.serving.set_value(serving);
        self.statics.set(statics);
        let _ = self.analysis.try_set(Some(analysis));
        self.reads.update(|n| *n += 1);
        let _ = self.status.try_set(Status::Done);
    }

    /// The table's rows up to `to`: at once from the page's analysis; asked of the worker
    /// when it holds them.
    pub(super) fn rows_up_to(self, to: usize) {
        let from = self.asked.get_value();
        if from < to.min(self.statics.get_untracked()) {
            self.asked.set_value(to);
            self.ask(&Ask::Rows { from, to });
        }
    }

    /// Whether the worker holds the analysis on show.
    pub(super) fn served(self) -> bool {
        self.serving.with_value(Option::is_some)
    }

    /// Downloads the whole table as CSV.
    pub(super) fn csv(self) {
        if self.served() {
            return self.ask(&Ask::Csv);
        }
        if let Some(text) = self
            .analysis
            .with_untracked(|a| a.as_ref().map(instruction_csv))
        {
            download_text(CSV_NAME, "text/csv", &text);
        }
    }

    fn ask(self, ask: &Ask) {
        self.serving.update_value(|r| {
            if let Some((_, r)) = r {
                r.send(ask.encode());
            }
        });
    }

    /// Posts the read to a worker of its own.
    fn remote_read(self, ticket: u64, from: Source, options: TraceOptions) {
        let spawned = Remote::spawn(
            move || {
                self.remote
                    .update_value(|r| r.as_mut().map_or((), Remote::started))
            },
            move |text| self.reply(ticket, text),
            move |message| self.died(ticket, message),
        );
        let Some(mut remote) = spawned else {
            return self.instead(ticket);
        };
        let source = match from {
            Source::File(file) => JsValue::from(file),
            // The worker's own address is its script's: the path goes as the page reads it.
            Source::Path(path) => JsValue::from_str(&absolute(&path)),
        };
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(
            &message,
            &"text".into(),
            &Ask::Read(options).encode().into(),
        );
        let _ = js_sys::Reflect::set(&message, &"source".into(), &source);
        remote.send_value(message.into());
        self.remote.set_value(Some(remote));
    }

    /// One message from the worker of read `ticket`: the read going on, or the one on show.
    fn reply(self, ticket: u64, text: &str) {
        let serving = self
            .serving
            .with_value(|s| s.as_ref().is_some_and(|(t, _)| *t == ticket));
        if !self.current(ticket) && !serving {
            return;
        }
        let reply = match decode_reply(text) {
            Ok(reply) => reply,
            Err(why) => return self.status.set(Status::Failed(why.to_string())),
        };
        match reply {
            Reply::Progress { bytes, total } => self
                .status
                .set(Status::Reading(bytes as f64, total.map(|t| t as f64))),
            Reply::Done { analysis, statics, memory_bytes } => {
                self.reading.set_value(None);
                self.worker_memory.set(Some(memory_bytes));
                let worker = self.remote.try_update_value(Option::take).flatten();
                self.show(*analysis, statics as usize, worker.map(|w| (ticket, w)));
            }
            Reply::Rows(rows) => self.analysis.update(|a| {
                if let Some(a) = a {
                    a.instructions.extend(rows);
                }
            }),
            Reply::Csv(text) => download_text(CSV_NAME, "text/csv", &text),
            Reply::Failed(why) => {
                self.reading.set_value(None);
                self.status.set(Status::Failed(why));
            }
        }
    }

    /// The worker of read `ticket` did not start, or died (a trap, or memory).
    fn died(self, ticket: u64, message: String) {
        if self
            .serving
            .with_value(|s| s.as_ref().is_some_and(|(t, _)| *t == ticket))
        {
            // The one on show: its figures stand, its other rows and CSV are gone.
            self.serving.set_value(None);
            if self
                .status
                .with_untracked(|s| matches!(s, Status::Reading(..)))
            {
                return;
            }
        } else if !self.current(ticket) {
            return;
        } else {
            if !worker::drop_failed(self.remote) {
                return self.instead(ticket);
            }
        }
        self.reading.set_value(None);
        self.status.set(Status::Failed(format!(
            "the trace reader stopped unexpectedly ({message}); the rest of the page keeps \
             working. Please report the trace's format and size"
        )));
    }

    /// No worker: the read waiting for one goes on the page's thread.
    fn instead(self, ticket: u64) {
        self.broken.set_value(true);
        if let Some((from, options)) = self.reading.get_value() {
            self.in_page(ticket, from, options);
        }
    }

    /// Reads on the page's thread, in slices with a turn for the page between them.
    fn in_page(self, ticket: u64, from: Source, options: TraceOptions) {
        leptos::task::spawn_local(async move {
            match read(from, options, ticket, self).await {
                Ok(Some(result)) if self.current(ticket) => {
                    let statics = result.instructions.len();
                    self.worker_memory.set(None);
                    self.show(result, statics, None);
                }
                Ok(_) => {}
                Err(why) => {
                    if self.current(ticket) {
                        let _ = self.status.try_set(Status::Failed(why));
                    }
                }
            }
        });
    }
}

/// `path` against the page's address.
fn absolute(path: &str) -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .and_then(|base| web_sys::Url::new_with_base(path, &base).ok())
        .map_or_else(|| path.to_string(), |url| url.href())
}

/// Streams `source` through an importer; `Ok(None)` when cancelled (a newer ticket).
async fn read(
    source: Source,
    options: TraceOptions,
    ticket: u64,
    reader: Reader,
) -> Result<Option<TraceAnalysis>, String> {
    let (stream, total) = match source {
        Source::File(file) => (file.stream(), Some(file.size())),
        Source::Path(path) => stream::fetched(window().fetch_with_str(&path), &path).await?,
    };
    let mut importer = Importer::new(options);
    let slice = Cell::new(now_ms());
    let read = stream::feed(stream, &mut importer, |bytes| {
        let slice = &slice;
        async move {
            if !reader.current(ticket) {
                return false;
            }
            if now_ms() - slice.get() >= SLICE_MS {
                let _ = reader.status.try_set(Status::Reading(bytes as f64, total));
                next_turn().await;
                slice.set(now_ms());
            }
            reader.current(ticket)
        }
    })
    .await?;
    Ok(read.then(|| importer.finish()))
}
