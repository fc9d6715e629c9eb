// The page's first script, inlined into index.html's head by tools/split.mjs (the page's CSP
// allows it by its hash, and no other inline script). It runs while the head is parsed, before
// any byte of the body, so that:
// - what the copy's first layout depends on is set before it: the link's panel (`data-shell`,
//   which public/shell.js and the CSS read), an embed (`shell-embed`) and the saved theme;
// - on the default link (no query), the result written into the page at build time is shown
//   (tools/split.mjs), and the main module's wasm follows the copy's paint at once;
// - on another calculator link, the first-result module (src/bin/first-result.rs: the model
//   alone, tens of KB) is requested first, and the main module's wasm (hundreds) only once
//   its bytes are in: on a slow link the two would share the bandwidth, and the small one
//   would take twice as long. The main module's bytes then have the link to themselves; it is ready
//   about 0.4 s later on a throttled phone than when it went first (docs/performance.md, "The
//   first result before the main module"), where the first result comes 1.7 s sooner.
//   public/shell.js requests the main module's wasm, after the copy's first paint too, and
//   public/boot.js takes it from `coalescingLabWasm`.
(() => {
  const root = document.documentElement;
  const query = new URLSearchParams(location.search);
  // As the app decodes the link: the last `tab` wins, an unknown one is the calculator.
  const tabs = ['calculator', 'roofline', 'probe', 'kernel', 'trace', 'cuda'];
  const tab = query.getAll('tab').pop();
  root.dataset.shell = tabs.includes(tab) ? tab : 'calculator';
  // The lab's machine mode opens on other content; its shell is the title alone.
  if (root.dataset.shell === 'roofline' && query.getAll('roofs').pop() === 'custom') root.dataset.shell = 'roofline-custom';
  // An embed's copy has no header: set before the body is laid out, so it never shows.
  if (query.getAll('embed').pop() === '1') root.classList.add('shell-embed');
  // The saved colour theme, so that the first paint is in it.
  try {
    const theme = localStorage.getItem('coalescing-lab:theme');
    if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  } catch {
    // Storage blocked (a sandboxed frame): the app does the same and keeps the system's theme.
  }

  const boot = document.querySelector('script[data-js][data-wasm]');
  const stem = boot?.dataset.firstResult;
  let before = Promise.resolve();
  if (root.dataset.shell === 'calculator' && stem && location.search === '') {
    // The default link: its result is in the page already, written at build time by the same
    // module (tools/split.mjs), and shown by this class; there is nothing to fetch.
    root.classList.add('shell-default');
  } else if (root.dataset.shell === 'calculator' && stem) {
    const bytes = fetch(new URL(`${stem}_bg.wasm`, boot.src)).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`${r.status} ${r.url}`))));
    // Settles with the module's renderer (public/shell.js writes its HTML into the copy).
    window.coalescingLabFirstResult = new Promise((resolve, reject) => {
      const glue = document.createElement('script');
      glue.src = new URL(`${stem}.js`, boot.src);
      // wasm-bindgen's no-modules glue defines the global `wasm_bindgen`.
      glue.onload = () => wasm_bindgen({ module_or_path: bytes }).then(() => resolve(wasm_bindgen.first_result), reject);
      glue.onerror = () => reject(new Error(`${glue.src} did not load`));
      document.head.append(glue);
    });
    before = bytes.catch(() => {});
  }
  // public/shell.js requests the main module's wasm once these bytes are in and the copy has
  // painted.
  window.coalescingLabWasmAfter = before;
})();
