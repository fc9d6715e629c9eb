// The page's boot script: reports a wasm trap, then starts the app.
// A trap in the wasm (running out of its 4 GiB, or a bug past the panic hook) throws a
// WebAssembly.RuntimeError out of whichever handler was running. The app's state may then be
// half-updated, so it is said plainly, once, with a way out, instead of a page that silently
// stops answering. A panic has already shown its own notice (src/ui/panic.rs).
function reportTrap(error) {
  if (!(error instanceof WebAssembly.RuntimeError) || document.querySelector('[data-testid="panic"]')) return;
  const notice = document.createElement('div');
  notice.className = 'panic-notice';
  notice.setAttribute('role', 'alert');
  notice.dataset.testid = 'panic';
  const text = document.createElement('p');
  text.textContent = `Coalescing Lab's engine stopped (${error.message}) and the page may no longer update. The link keeps your scenario.`;
  const link = document.createElement('a');
  link.href = location.href;
  link.textContent = 'Reload this page';
  notice.append(text, link);
  document.body.prepend(notice);
}
addEventListener('error', (e) => reportTrap(e.error));
addEventListener('unhandledrejection', (e) => reportTrap(e.reason));

// Starts the app from a file rather than an inline script, so that the page's
// Content-Security-Policy can forbid inline scripts. Trunk names the JS and wasm files
// (with content hashes) in the data attributes of this script's own tag.
const tag = document.querySelector('script[data-js][data-wasm]');
// The wasm's request went out from public/shell.js once the copy had painted (and, on a
// calculator link, after the first result's module: public/start.js); it streams while the
// glue loads. Without shell.js (a copy that failed to run), it goes out now.
const wasmResponse = window.coalescingLabWasm ?? fetch(new URL(tag.dataset.wasm, tag.src));
// The glue (12 KB, not preloaded) is requested once the wasm's response has begun: before
// that, on a calculator link, the link's bandwidth is the first result's (measured: the first
// result 1111 → 988 ms median of 7 throttled loads, the app's start unchanged).
await wasmResponse.catch(() => {});
const { default: init } = await import(new URL(tag.dataset.js, tag.src));
// Let the first content (index.html #shell) paint, and the browser record that paint, before
// the wasm's start-up work takes the main thread: public/shell.js says when (and why).
await (window.coalescingLabPainted ?? Promise.resolve());
const wasm = await init({ module_or_path: wasmResponse });
// Diagnostics for `make bench`: the size of the wasm linear memory, in bytes.
window.coalescingLab = Object.freeze({ wasmMemoryBytes: () => wasm.memory.buffer.byteLength });

