//! The page's own URL: read the query, mirror state back. Edits replace the current entry;
//! only a tab switch on a top-level page pushes one. Inside an iframe nothing is ever pushed,
//! so an embedded page never grows its host's history.
//!
//! Replacing is throttled to one write per [`SETTLE_MS`]: `history.replaceState` costs the
//! browser a few milliseconds, too much to pay inside every keystroke's frame. The first edit
//! after a quiet spell is written in the next task; edits that follow within the window are
//! coalesced into one write at its end, and written at once if the page is hidden first
//! (`pagehide`). A run that keeps both cores busy holds the writes until it ends
//! ([`hold_writes`]).
//!
//! A panel may also hold its own edits back from the state while typing goes on, when writing
//! them costs more than a keystroke should (the CUDA panel packs its source): it registers
//! with [`hold_edits`] how to write them now, and what reads the link at once (Copy link, the
//! embed code's copy, a tab switch, the page being hidden) calls [`release_edits`] first. The
//! permalink field and the embed code follow the state, so they catch up when the typing
//! pauses.

use std::cell::RefCell;
use std::time::Duration;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// How long an edit's URL waits, so that a burst of edits writes the address bar once.
pub const SETTLE_MS: u64 = 150;

thread_local! {
    /// The query waiting to replace the current entry's.
    static PENDING: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The writer of the edits a panel holds back (the CUDA panel's: the only one).
    static HELD: RefCell<Option<std::rc::Rc<dyn Fn()>>> = const { RefCell::new(None) };
    /// The query of the page's state now, as the page registered it ([`settle_before_leaving`]).
    static STATE_QUERY: RefCell<Option<Box<dyn Fn() -> String>>> = const { RefCell::new(None) };
    /// When the address bar was last written, in `performance.now()` milliseconds.
    static LAST_WRITE: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NEG_INFINITY) };
    /// Until when in-place writes wait ([`hold_writes`]), in `performance.now()` milliseconds.
    static QUIET_UNTIL: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NEG_INFINITY) };
}

/// Holds in-place writes of the address bar for up to `ms`, or until [`release_writes`]: for
/// a run that keeps both cores busy (the kernel view's pair of workers). `replaceState` costs
/// the browser's process a few milliseconds beside the page's (its message carries the page's
/// state, form values and all), taken from the workers on a two-core machine: with it stubbed
/// out, the kernel view's naive 4096² transpose took 236 ms from the pick where it took 253
/// (14 picks each, interleaved; docs/performance.md, "The address bar written after the run").
/// A push (a tab switch) and the page being hidden still write at once.
pub fn hold_writes(ms: u64) {
    QUIET_UNTIL.with(|q| q.set(now_ms() + ms as f64));
    // The hold's own end, if nothing releases it first.
    leptos::prelude::set_timeout(flush, Duration::from_millis(ms));
}

/// Ends [`hold_writes`]'s hold: what waits is written now.
pub fn release_writes() {
    QUIET_UNTIL.with(|q| q.set(f64::NEG_INFINITY));
    flush();
}

/// Whether in-place writes are held now.
fn quiet() -> bool {
    now_ms() < QUIET_UNTIL.with(std::cell::Cell::get)
}

use super::job::now_ms;

/// The current query string, with its `?`, or empty.
pub fn query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The page's URL without query or fragment, for permalinks.
pub fn page() -> String {
    web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default()
}

/// True when the page runs inside a frame, e.g. embedded in course material.
pub fn in_frame() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    match window.parent() {
        Ok(Some(parent)) => JsValue::from(parent) != JsValue::from(window),
        _ => false,
    }
}

/// Writes `query` into the address bar: at once as a new history entry when `push` (and
/// not in a frame), otherwise in place within [`SETTLE_MS`].
pub fn write_query(query: &str, push: bool) {
    if push {
        // The entry being left gets its latest state first, so Back restores it.
        if let Some(pending) = PENDING.with(RefCell::take) {
            write_now(&pending, false);
        }
        write_now(query, true);
        return;
    }
    let since = now_ms() - LAST_WRITE.with(std::cell::Cell::get);
    let first = PENDING.with(|p| p.replace(Some(query.to_string())).is_none());
    // The next task at the earliest: a run the same edit starts may hold writes first. A
    // held write waits for the hold's release or its end, which flush it.
    if first && !quiet() {
        let wait = (SETTLE_MS as f64 - since).clamp(0.0, SETTLE_MS as f64);
        leptos::prelude::set_timeout(flush, Duration::from_millis(wait as u64));
    }
}

/// Registers `write`, which writes the edits a panel holds back into the state now, and does
/// nothing when it holds none (or its panel is gone). A panel, once built, lives as long as
/// the page, and so does this. One panel holds edits (the CUDA panel); a second would take its
/// place here.
pub fn hold_edits(write: impl Fn() + 'static) {
    HELD.with(|h| *h.borrow_mut() = Some(std::rc::Rc::new(write)));
}

/// Writes every edit a panel holds back into the state, so that what reads the state next (a
/// copied link, the address bar) is exact.
pub fn release_edits() {
    // Out of the cell first: the writer sets signals.
    if let Some(write) = HELD.with(|h| h.borrow().clone()) {
        write();
    }
}

/// Drops the pending query: after Back or Forward it would land on the wrong entry.
pub fn forget_pending() {
    PENDING.with(RefCell::take);
}

/// Writes the held edits, then the query of the state they make, into the address bar at
/// once, in place: before a tab switch pushes a new entry (so that Back returns to the last
/// edit), and when the page is hidden.
pub fn settle() {
    release_edits();
    let Some(query) = STATE_QUERY.with(|q| q.borrow().as_ref().map(|q| q())) else {
        return;
    };
    PENDING.with(RefCell::take);
    write_now(&query, false);
}

/// Keeps `query`, the query of the page's state now, for [`settle`], and settles the link
/// when the page is hidden: `pagehide` (leaving for another page, closing) and
/// `visibilitychange` (another tab, the phone's app switcher, after which a page may be
/// discarded without `pagehide`; on the way back it finds nothing to write), so that the entry
/// Back returns to, and a page restored from a discard, hold the last edit.
///
/// A Back or Forward inside the page gives no earlier hook: a write during the Navigation
/// API's `navigate` event aborts the traversal. The throttle keeps that window to edits made
/// within [`SETTLE_MS`] of an earlier one.
pub fn settle_before_leaving(query: impl Fn() -> String + 'static) {
    STATE_QUERY.with(|q| *q.borrow_mut() = Some(Box::new(query)));
    let Some(window) = web_sys::window() else {
        return;
    };
    let on_leave = Closure::<dyn Fn()>::new(settle);
    for event in ["pagehide", "visibilitychange"] {
        let _ = window.add_event_listener_with_callback(event, on_leave.as_ref().unchecked_ref());
    }
    // Lives as long as the page.
    on_leave.forget();
}

/// Writes the pending query, if any, unless writes are held.
fn flush() {
    if quiet() {
        return;
    }
    if let Some(query) = PENDING.with(RefCell::take) {
        write_now(&query, false);
    }
}

/// Writes `query` into the address bar when it changed. Called from three places, and kept
/// out of line: its copies cost the first load.
#[inline(never)]
fn write_now(query: &str, push: bool) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let current = location.search().unwrap_or_default();
    let wanted = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    if current == wanted {
        return;
    }
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let url = format!("{path}{wanted}{hash}");
    let Ok(history) = window.history() else {
        return;
    };
    // A failed history call only leaves a stale address bar; the page keeps working.
    LAST_WRITE.with(|t| t.set(now_ms()));
    let _ = if push && !in_frame() {
        history.push_state_with_url(&JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
    };
}
