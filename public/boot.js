// Starts the app from a file rather than an inline script, so that the page's
// Content-Security-Policy can forbid inline scripts. Trunk names the JS and wasm files
// (with content hashes) in the data attributes of this script's own tag.
const tag = document.querySelector('script[data-js][data-wasm]');
const { default: init } = await import(new URL(tag.dataset.js, tag.src));
const wasm = await init({ module_or_path: new URL(tag.dataset.wasm, tag.src) });
// Diagnostics for `make bench`: the size of the wasm linear memory, in bytes.
window.coalescingLab = Object.freeze({ wasmMemoryBytes: () => wasm.memory.buffer.byteLength });
