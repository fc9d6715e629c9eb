// Shows the first content before the wasm has arrived: the static copy of the link's panel
// title and introduction in index.html (#shell), which the app removes when it mounts. On a
// slow phone link that text is on screen about as soon as the HTML and CSS are, instead of
// after the whole wasm. A classic file, not an inline script, for the page's CSP; it runs
// synchronously right after the copy is parsed. What the copy's first layout depends on (the
// panel, an embed, the saved colour theme) is set before, by the head's public/start.js.
(() => {
  const root = document.documentElement;
  // `data-shell`, the link's panel, and the embed's `shell-embed` are set by the head's first
  // script (public/start.js), before the body is laid out.
  const panel = (root.dataset.shell ?? '').replace('-custom', '');
  // The link's first result, from the model alone (src/bin/first-result.rs), which the head's
  // first script (public/start.js) has requested for a calculator link: a phone on a slow link
  // has its numbers seconds before the main module. The app replaces the whole copy when it
  // mounts; if it has already, or the module fails to load, the app's own result is the first.
  const slot = document.querySelector('#shell [data-first-result]');
  // The default link's result came with the page (tools/split.mjs, public/start.js): it is on
  // screen with the copy's first contentful paint, which the mark takes as its time.
  if (root.classList.contains('shell-default')) {
    if (PerformanceObserver.supportedEntryTypes?.includes('paint')) {
      new PerformanceObserver((list, observer) => {
        const paint = list.getEntriesByName('first-contentful-paint')[0];
        if (!paint) return;
        observer.disconnect();
        performance.mark('first-result', { startTime: paint.startTime });
      }).observe({ type: 'paint', buffered: true });
    } else {
      requestAnimationFrame(() => setTimeout(() => performance.mark('first-result'), 0));
    }
  }
  window.coalescingLabFirstResult
    ?.then((render) => {
      if (!slot?.isConnected) return;
      slot.innerHTML = render(location.search);
      performance.mark('first-result');
    })
    .catch(() => {});
  const permalink = document.querySelector('#shell .permalink');
  if (permalink) permalink.value = location.href;
  // Settles once the browser has recorded the copy's paint (the first largest-contentful-paint
  // entry; one frame where there are no such entries; at once in a hidden tab, which paints
  // nothing; never more than 400 ms). public/boot.js waits for it before the wasm's start-up
  // task: Chromium times a text paint when its frame is presented, a task or two later, and a
  // mount that removed the copy first would drop the record, making the app's own text, after
  // the whole wasm, the largest paint. The main module's wasm is requested once it settles
  // (below); the cap is long enough for a slow or busy device's first frame (100 ms was not, on
  // a loaded test machine).
  const painted = new Promise((resolve) => {
    setTimeout(resolve, 400);
    if (document.visibilityState === 'hidden') {
      resolve();
    } else if (PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint')) {
      new PerformanceObserver((list, observer) => {
        observer.disconnect();
        resolve();
      }).observe({ type: 'largest-contentful-paint', buffered: true });
    } else {
      requestAnimationFrame(() => setTimeout(resolve, 0));
    }
  });
  window.coalescingLabPainted = painted;
  // The main module's wasm (hundreds of KB) is requested once the copy has painted (and, on a
  // calculator link, once the first result's bytes are in: public/start.js). Before that, the
  // link's bandwidth is the copy's and the first result's; the download overlaps the wait for
  // the main module's glue, and its start-up waits for this paint anyway (public/boot.js).
  // Measured: docs/performance.md, "The main module after the copy's paint".
  const boot = document.querySelector('script[data-js][data-wasm]');
  if (boot) {
    window.coalescingLabWasm = Promise.all([window.coalescingLabWasmAfter, painted]).then(() =>
      fetch(new URL(boot.dataset.wasm, boot.src)),
    );
  }
  // A link straight to a panel: its chunks (named by the build, tools/split.mjs) download
  // alongside the main module instead of after it. The page's own fetch of each reuses these.
  // They are requested once the copy has painted: nothing needs them before the main module
  // has started, which takes longer, and the copy's paint does not wait for their bytes.
  // Chunks are named by their split module; the kernel view and the trace panel share one
  // (src/ui/lazy.rs).
  const module = { kernel: 'kernel_trace', trace: 'kernel_trace' }[panel] ?? panel;
  const chunks = JSON.parse(document.currentScript?.dataset.chunks ?? '{}')[module] ?? [];
  painted.then(() => {
    for (const file of chunks) {
      const link = document.createElement('link');
      Object.assign(link, { rel: 'preload', as: 'fetch', href: file, crossOrigin: 'anonymous' });
      link.type = 'application/wasm';
      document.head.append(link);
    }
  });
  // The saved theme, applied by public/start.js, named on the copy's toggle.
  const theme = root.dataset.theme;
  if (theme) document.querySelector('#shell .theme-toggle').textContent = `Theme: ${theme}`;
})();
