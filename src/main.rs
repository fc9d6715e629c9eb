//! Mounts the app and installs the panic hook; nothing else.

// No panic reaches a user: outside tests, a missing value is handled, never unwrapped.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

#[cfg(target_arch = "wasm32")]
fn main() {
    coalescing_lab::ui::install_panic_hook();
    // The static first content (index.html #shell) goes in the same task as the mount, so no
    // frame shows both or neither; on a calculator link it stays until the calculator's last
    // build stage, with the app hidden until then (src/ui/lazy.rs, `built`).
    coalescing_lab::ui::take_shell();
    leptos::mount::mount_to_body(coalescing_lab::ui::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Coalescing Lab is a web page: run `make serve` and open http://127.0.0.1:8080");
}
