//! The last line of defence: a panic is logged and shown as a message with a way out,
//! never as a frozen or blank page.

use std::panic;

/// Installs a hook that logs the panic to the console and shows a visible notice with a link
/// that reloads the default scenario. Built from plain DOM calls, since Leptos may be the
/// part that failed.
pub fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("Coalescing Lab panicked: {message}").into());
        show_notice(&message);
    }));
}

fn show_notice(message: &str) -> Option<()> {
    let window = web_sys::window()?;
    let document = window.document()?;
    let body = document.body()?;
    let path = window.location().pathname().ok()?;
    let notice = document.create_element("div").ok()?;
    notice.set_class_name("panic-notice");
    notice.set_attribute("role", "alert").ok()?;
    notice.set_attribute("data-testid", "panic").ok()?;
    let text = document.create_element("p").ok()?;
    text.set_text_content(Some(&format!(
        "Something went wrong inside Coalescing Lab and the page stopped updating ({message})."
    )));
    let link = document.create_element("a").ok()?;
    link.set_attribute("href", &path).ok()?;
    link.set_text_content(Some("Reload the default scenario"));
    notice.append_child(&text).ok()?;
    notice.append_child(&link).ok()?;
    body.prepend_with_node_1(&notice).ok()
}
