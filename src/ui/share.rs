//! Sharing: the notice for a bad link, Copy link, the Embed snippet, file downloads, and
//! the height message an embedded page posts to its host.

use super::url;
use crate::model::permalink::{embed_snippet, link, State};
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// The message type an embedded page posts to its parent with its content height.
const HEIGHT_MESSAGE: &str = "coalescing-lab:height";

/// Lists every problem the opening link had, dismissibly.
#[component]
pub fn LinkNotice(warnings: Vec<String>) -> impl IntoView {
    let open = RwSignal::new(!warnings.is_empty());
    view! {
        <Show when=move || open.get()>
            <div class="notice" role="status" data-testid="link-notice">
                <p>
                    <strong>"This link had problems, so parts of it use defaults:"</strong>
                </p>
                <ul>
                    {warnings
                        .iter()
                        .map(|w| view! { <li data-testid="link-warning">{w.clone()}</li> })
                        .collect_view()}
                </ul>
                <button type="button" data-testid="dismiss-notice" on:click=move |_| open.set(false)>
                    "Dismiss"
                </button>
            </div>
        </Show>
    }
}

/// Copy link and Embed, for the state in `state`.
#[component]
pub fn ShareBar(#[prop(into)] state: Signal<State>) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let snippet_open = RwSignal::new(false);
    let permalink = Signal::derive(move || state.with(|s| link(&url::page(), s)));
    let snippet = Signal::derive(move || state.with(|s| embed_snippet(&url::page(), s)));
    let copy = move |text: String, what: &'static str| {
        copy_text(&text, move |ok| {
            status.set(if ok {
                format!("{what} copied to the clipboard.")
            } else {
                format!(
                    "Could not reach the clipboard: select the {} below and copy it.",
                    what.to_ascii_lowercase()
                )
            })
        });
    };
    view! {
        <div class="share">
            <div class="buttons">
                <button type="button" data-testid="copy-link" on:click=move |_| {
                    // A panel's edits held back while typing go into the link first.
                    url::release_edits();
                    copy(permalink.get(), "Link")
                }>
                    "Copy link"
                </button>
                <button
                    type="button"
                    data-testid="embed"
                    aria-expanded=Signal::derive(move || snippet_open.get().to_string())
                    on:click=move |_| snippet_open.update(|o| *o = !*o)
                >
                    "Embed"
                </button>
            </div>
            <label class="visually-hidden" for="permalink">"Permalink"</label>
            <input id="permalink" class="permalink" readonly data-testid="permalink" prop:value=permalink />
            <Show when=move || snippet_open.get()>
                <div class="embed-box">
                    <label for="embed-snippet">"Paste this into course material:"</label>
                    <textarea id="embed-snippet" readonly rows="3" data-testid="embed-snippet" prop:value=snippet></textarea>
                    <button type="button" data-testid="copy-embed" on:click=move |_| {
                        url::release_edits();
                        copy(snippet.get(), "Embed code")
                    }>
                        "Copy embed code"
                    </button>
                </div>
            </Show>
            <p class="status" aria-live="polite" data-testid="share-status">{status}</p>
        </div>
    }
}

/// Writes `text` to the clipboard, then calls `done` with whether it worked.
fn copy_text(text: &str, done: impl Fn(bool) + 'static) {
    let promise = window().navigator().clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// Offers `text` as a file download called `name`.
pub fn download_text(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(href) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    // Not revoked: a download may still be reading it, and one export is a few kilobytes.
    download_url(name, &href);
}

/// Offers the resource at `href` (a blob: or data: URL) as a download called `name`.
pub fn download_url(name: &str, href: &str) {
    let Ok(element) = document().create_element("a") else {
        return;
    };
    let anchor: web_sys::HtmlAnchorElement = element.unchecked_into();
    anchor.set_href(href);
    anchor.set_download(name);
    anchor.click();
}

/// Inside a frame, posts `{type: "coalescing-lab:height", height}` to the parent whenever the
/// page's height changes, so the host can size the iframe. Nothing else is ever posted, and
/// incoming messages are never listened to.
pub fn post_height_to_parent() {
    if !url::in_frame() {
        return;
    }
    let Ok(Some(parent)) = window().parent() else {
        return;
    };
    let Some(root) = document().document_element() else {
        return;
    };
    let measured = root.clone();
    // Only a new height is posted: edits that leave it unchanged say nothing to the host.
    let last = std::cell::Cell::new(-1.0);
    let post = Closure::<dyn Fn()>::new(move || {
        let height = f64::from(measured.scroll_height());
        if last.replace(height) == height {
            return;
        }
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &HEIGHT_MESSAGE.into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        // Only a height, which tells the host nothing private, so any origin may embed.
        let _ = parent.post_message(&message, "*");
    });
    let Ok(observer) = web_sys::ResizeObserver::new(post.as_ref().unchecked_ref()) else {
        return;
    };
    observer.observe(&root);
    // Both live as long as the page.
    post.forget();
    std::mem::forget(observer);
}
