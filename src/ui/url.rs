//! The page's own URL: read the query once, mirror state back with `replaceState`.
//! Never pushes history or scrolls, so an embedded page leaves its host's history alone.

use wasm_bindgen::JsValue;

/// The current query string, with its `?`, or empty.
pub fn query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Replaces the query string in place, keeping path and fragment, when it changed.
pub fn replace_query(query: &str) {
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
    if let Ok(history) = window.history() {
        let url = format!("{path}{wanted}{hash}");
        // A failed replaceState only leaves a stale address bar; the page keeps working.
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}
