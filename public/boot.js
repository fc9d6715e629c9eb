// Starts the app from a file rather than an inline script, so that the page's
// Content-Security-Policy can forbid inline scripts. Trunk names the JS and wasm files
// (with content hashes) in the data attributes of this script's own tag.
const tag = document.querySelector('script[data-js][data-wasm]');
// The wasm's request goes out now (it reuses the page's preload) and streams while the glue
// loads and the first content paints.
const wasmResponse = fetch(new URL(tag.dataset.wasm, tag.src));
const { default: init } = await import(new URL(tag.dataset.js, tag.src));
// Let the first content (index.html #shell) paint, and the browser record that paint, before
// the wasm's start-up work takes the main thread: public/shell.js says when (and why).
await (window.coalescingLabPainted ?? Promise.resolve());
const wasm = await init({ module_or_path: wasmResponse });
// Diagnostics for `make bench`: the size of the wasm linear memory, in bytes.
window.coalescingLab = Object.freeze({ wasmMemoryBytes: () => wasm.memory.buffer.byteLength });
