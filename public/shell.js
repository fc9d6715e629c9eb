// Shows the first content before the wasm has arrived: the static copy of the link's panel
// title and introduction in index.html (#shell), which the app removes when it mounts. On a
// slow phone link that text is on screen about as soon as the HTML and CSS are, instead of
// after the whole wasm. A classic file, not an inline script, for the page's CSP; it runs
// synchronously right after the copy is parsed, so the first paint is already the copy.
// It also applies the saved colour theme early, so that the first paint is in it.
(() => {
  const root = document.documentElement;
  const query = new URLSearchParams(location.search);
  // As the app decodes the link: the last `tab` wins, an unknown one is the calculator.
  const tabs = ['calculator', 'roofline', 'probe', 'kernel', 'trace', 'cuda'];
  const tab = query.getAll('tab').pop();
  root.dataset.shell = tabs.includes(tab) ? tab : 'calculator';
  // The lab's machine mode opens on other content; its shell is the title alone.
  if (root.dataset.shell === 'roofline' && query.getAll('roofs').pop() === 'custom') root.dataset.shell = 'roofline-custom';
  if (query.getAll('embed').pop() === '1') {
    root.classList.add('shell-embed');
    document.querySelector('#shell main').classList.add('embedded');
  }
  const panel = root.dataset.shell.replace('-custom', '');
  document.querySelector(`#shell .shell-tab[data-tab="${panel}"]`)?.classList.add('selected');
  const permalink = document.querySelector('#shell .permalink');
  if (permalink) permalink.value = location.href;
  // Settles once the browser has recorded the copy's paint (the first largest-contentful-paint
  // entry; one frame where there are no such entries; at once in a hidden tab, which paints
  // nothing; never more than 400 ms). public/boot.js waits for it before the wasm's start-up
  // task: Chromium times a text paint when its frame is presented, a task or two later, and a
  // mount that removed the copy first would drop the record, making the app's own text, after
  // the whole wasm, the largest paint. The wait overlaps the wasm's download; the cap is long
  // enough for a slow or busy device's first frame (100 ms was not, on a loaded test machine).
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
  try {
    const theme = localStorage.getItem('coalescing-lab:theme');
    if (theme === 'light' || theme === 'dark') {
      root.dataset.theme = theme;
      document.querySelector('#shell .theme-toggle').textContent = `Theme: ${theme}`;
    }
  } catch {
    // Storage blocked (a sandboxed frame): the app does the same and keeps the system's theme.
  }
})();
