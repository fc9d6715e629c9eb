// Starts the app from a file rather than an inline script, so that the page's
// Content-Security-Policy can forbid inline scripts. Trunk names the JS and wasm files
// (with content hashes) in the data attributes of this script's own tag.
const tag = document.querySelector('script[data-js][data-wasm]');
// The wasm's request goes out now (it reuses the page's preload) and streams while the glue
// loads and the first content paints.
const wasmResponse = fetch(new URL(tag.dataset.wasm, tag.src));
const { default: init } = await import(new URL(tag.dataset.js, tag.src));
// Let the first content (index.html #shell) paint, and the browser record that paint, before
// the wasm's start-up work takes the main thread. Chromium times a text paint when the frame
// is presented, a task that comes a frame or two later; if the app's mount (which removes the
// copy) runs first, the record is dropped and the largest paint becomes the app's, after the
// whole wasm. So wait for the first largest-contentful-paint entry where the browser has them,
// for one frame where it does not, and never more than 100 ms (a hidden tab paints nothing).
await new Promise((resolve) => {
  setTimeout(resolve, 100);
  if (PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint')) {
    new PerformanceObserver((list, observer) => {
      observer.disconnect();
      resolve();
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  } else {
    requestAnimationFrame(() => setTimeout(resolve, 0));
  }
});
const wasm = await init({ module_or_path: wasmResponse });
// Diagnostics for `make bench`: the size of the wasm linear memory, in bytes.
window.coalescingLab = Object.freeze({ wasmMemoryBytes: () => wasm.memory.buffer.byteLength });
