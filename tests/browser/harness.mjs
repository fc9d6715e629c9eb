// Shared by the browser tests and the bench: serve dist/ over http on loopback, drive
// Debian's headless Chromium through chromedriver (WebDriver), and read results by test id.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { extname, join, normalize, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Builder, By, until } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { createRequire } from 'node:module';

export const DIST = resolve(import.meta.dirname, '../../dist');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/**
 * A plain static file server for `root` on 127.0.0.1, like any static host. `extra` maps
 * paths to HTML served as they are (e.g. a host page that embeds the app in an iframe).
 * `refuse(path)`, while it returns true, answers that path with 503, as a failing host would.
 */
export async function serveStatic(root = DIST, extra = {}, { refuse = () => false } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (refuse(path)) {
      res.writeHead(503).end('unavailable');
      return;
    }
    if (path in extra) {
      res.writeHead(200, { 'content-type': TYPES['.html'] }).end(extra[path]);
      return;
    }
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, close: () => new Promise((ok) => server.close(ok)) };
}

async function freePort() {
  const probe = createServer();
  await new Promise((ok) => probe.listen(0, '127.0.0.1', ok));
  const { port } = probe.address();
  await new Promise((ok) => probe.close(ok));
  return port;
}

/**
 * Chromium flags for WebGPU without a GPU: SwiftShader runs it on the CPU. Never add
 * `--use-angle=vulkan`, which loses the adapter.
 */
export const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];

/** The calculator still computes: on its tab, `idx=2*t` gives 8 sectors within 5 s. */
export async function calculatorComputes(driver) {
  await driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
  await typeInto(driver, 'idx', '2*t');
  await driver
    .wait(async () => (await results(driver)).sectors === '8', 5000)
    .catch(async (e) => assert.fail(`${e.message}: ${JSON.stringify(await results(driver))}`));
}

/**
 * Serves a copy of dist/ whose Web Worker dies on its first message, as a trap inside it (or
 * memory running out) would end it. `close()` stops the server and removes the copy.
 */
export async function serveDyingWorker() {
  const root = mkdtempSync(join(tmpdir(), 'coalescing-lab-dying-'));
  cpSync(DIST, root, { recursive: true });
  const loader = readdirSync(root).find((f) => /^cuda-worker-[0-9a-f]+_loader\.js$/.test(f));
  writeFileSync(join(root, loader), 'postMessage("ready"); onmessage = () => { throw new Error("the worker died"); };\n');
  const site = await serveStatic(root);
  return {
    url: site.url,
    close: async () => {
      await site.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Starts chromedriver and a headless Chromium session with the flags this machine needs. */
export async function startBrowser({ width = 1280, height = 900, dpr = 1, extraArgs = [] } = {}) {
  const port = await freePort();
  const driverProcess = spawn('chromedriver', [`--port=${port}`, '--allowed-ips=127.0.0.1'], {
    stdio: 'ignore',
  });
  const server = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${server}/status`)).ok) break;
    } catch {
      await sleep(100);
    }
  }
  const options = new chrome.Options()
    .setChromeBinaryPath('/usr/bin/chromium')
    .addArguments(
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--window-size=${width},${height}`,
      `--force-device-scale-factor=${dpr}`,
      ...extraArgs,
    );
  // Console errors and uncaught exceptions, read back by pageErrors().
  options.set('goog:loggingPrefs', { browser: 'ALL' });
  const driver = await new Builder().usingServer(server).forBrowser('chrome').setChromeOptions(options).build();
  const quit = async () => {
    try {
      await driver.quit();
    } finally {
      driverProcess.kill();
    }
  };
  return { driver, quit };
}

/**
 * Opens the app at `query` and waits until the calculator's results are in the DOM.
 * Installs a recorder for page errors first, so `pageErrors` sees everything after load.
 */
export async function openApp(driver, base, query = '') {
  await driver.get(`${base}/${query}`);
  // The page marks `app-ready` once the panel on show is mounted (the others are built when
  // first shown). A panel whose code is a chunk of its own shows "Loading…" until it arrives,
  // and a panel built in stages (the CUDA panel) carries `data-staging` until its last.
  await driver.wait(
    () =>
      driver.executeScript(
        "return performance.getEntriesByName('app-ready').length > 0 && !document.querySelector('[data-testid=\"panel-loading\"], [data-staging]')",
      ),
    15000,
  );
}

/**
 * Waits until the panel on show is built: a panel whose code is a chunk of its own (a tab
 * opened for the first time, or a hand-off to it) shows "Loading…" until the chunk arrives,
 * and one built in stages carries `data-staging` until its last stage.
 */
export async function panelSettled(driver) {
  await driver.wait(
    () =>
      driver.executeScript(
        "return !document.querySelector('[role=\"tabpanel\"]:not([hidden]) :is([data-testid=\"panel-loading\"], [data-staging])')",
      ),
    15000,
  );
}

/** Clicks the element with `testid`, then waits for the panel on show to be built. */
export async function clickSettled(driver, testid) {
  await driver.findElement(By.css(`[data-testid="${testid}"]`)).click();
  await panelSettled(driver);
}

/**
 * Waits until the calculator's results show its inputs: they follow an edit one paint late,
 * and the page's root element carries `data-pending` meanwhile.
 */
export async function resultsSettled(driver) {
  await driver.wait(
    () => driver.executeScript("return !document.querySelector('[data-pending]')"),
    5000,
    "the calculator's results did not catch up with its inputs within 5 s (the root kept data-pending)",
  );
}

/** The `data-value` of the result with `testid`. */
export async function valueOf(driver, testid) {
  await resultsSettled(driver);
  const el = await driver.findElement(By.css(`[data-testid="${testid}"]`));
  return el.getAttribute('data-value');
}

/** Every result's `data-value`, keyed by test id. */
export async function results(driver) {
  await resultsSettled(driver);
  return driver.executeScript(`
    const out = {};
    for (const id of ['active-lanes','requested-bytes','distinct-bytes','sectors','transferred-bytes',
                      'lines','efficiency','distinct-efficiency','misaligned-lanes']) {
      out[id] = document.querySelector('[data-testid="' + id + '"]')?.dataset.value;
    }
    return out;`);
}

/** Replaces the text of the calculator's input `param` as a user would: select all, then type. */
export async function typeInto(driver, param, text) {
  return typeIntoId(driver, `input-${param}`, text);
}

/** Replaces the text of the input with test id `testid`: select all, then type. */
export async function typeIntoId(driver, testid, text) {
  const input = await driver.findElement(By.css(`[data-testid="${testid}"]`));
  await input.click();
  await driver.executeScript('arguments[0].select()', input);
  if (text === '') {
    await input.sendKeys('\uE003'); // Backspace over the selection
  } else {
    await input.sendKeys(text);
  }
  await resultsSettled(driver);
}

/** Sets the whole text of input `param` in one input event, as a paste does. */
export async function pasteInto(driver, param, text) {
  const input = await driver.findElement(By.css(`[data-testid="input-${param}"]`));
  await driver.executeScript(
    `arguments[0].value = arguments[1];
     arguments[0].dispatchEvent(new Event('input', { bubbles: true }));`,
    input,
    text,
  );
  await resultsSettled(driver);
}

/** The shown errors as `{field: message}`. */
export async function errors(driver) {
  await resultsSettled(driver);
  return driver.executeScript(`
    const out = {};
    for (const e of document.querySelectorAll('[data-testid="input-error"]')) out[e.dataset.field] = e.textContent;
    return out;`);
}

/** Console errors and uncaught exceptions since the last call. */
export async function pageErrors(driver) {
  const logs = await driver.manage().logs().get('browser');
  return logs.filter((l) => l.level.name === 'SEVERE').map((l) => l.message);
}

/** Replaces `a.click()` so a download is captured instead of saved: resolves to {name, text|data}. */
export async function captureDownload(driver, testid, as = 'text') {
  // The blob is read from the object itself: the page's CSP rightly forbids fetching blob: URLs.
  await driver.executeScript(`
    window.__download = null;
    window.__blob = null;
    const create = URL.createObjectURL;
    URL.createObjectURL = (blob) => { window.__blob = blob; return create(blob); };
    HTMLAnchorElement.prototype.click = function () {
      window.__download = { name: this.download, href: this.href };
    };`);
  await driver.findElement(By.css(`[data-testid="${testid}"]`)).click();
  // A download may come a moment after the click (the trace's CSV is written in the worker).
  return driver.executeAsyncScript(
    `const done = arguments[arguments.length - 1];
     const until = performance.now() + 10000;
     const look = () => {
       const d = window.__download;
       if (!d) return performance.now() < until ? setTimeout(look, 20) : done(null);
       if (${JSON.stringify(as)} === 'href') return done(d);
       window.__blob.text().then((text) => done({ name: d.name, text }));
     };
     look();`,
  );
}

let axeSource;

/** Runs axe-core on the page as it is; returns "rule: target why" for every violation. */
export async function axe(driver) {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await driver.executeScript(axeSource);
  return driver.executeAsyncScript(`
    const done = arguments[arguments.length - 1];
    axe.run(document, { resultTypes: ['violations'] }).then(
      (r) => done(r.violations.flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n')[1]))),
      (e) => done(['axe failed: ' + e]));`);
}

/** Makes the page follow `value` ('light' or 'dark') as its system colour scheme. */
export async function scheme(driver, value) {
  await driver.sendDevToolsCommand('Emulation.setEmulatedMedia', {
    features: [{ name: 'prefers-color-scheme', value }],
  });
}

/**
 * Records, from the first byte of every page on, Content-Security-Policy violations in
 * `window.__violations` and error events on the window (which Chromium does not always log,
 * e.g. a ResizeObserver loop) in `window.__errorEvents`.
 */
export async function recordViolations(driver) {
  await driver.sendDevToolsCommand('Page.addScriptToEvaluateOnNewDocument', {
    source: `window.__violations = [];
      window.__errorEvents = [];
      addEventListener('securitypolicyviolation', (e) =>
        window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
      addEventListener('error', (e) => window.__errorEvents.push(String(e.message)));`,
  });
}

/** Every resource the page fetched from another origin. */
export async function foreignRequests(driver) {
  return driver.executeScript(`
    return performance.getEntriesByType('resource')
      .map((e) => e.name)
      .filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== location.origin);`);
}

/** Waits for the page's URL to match `pattern` (the app writes edits to it within 150 ms). */
export async function expectUrl(driver, pattern, timeout = 3000) {
  let url = '';
  try {
    await driver.wait(async () => pattern.test((url = await driver.getCurrentUrl())), timeout);
  } catch {
    throw new Error(`the URL ${url} did not come to match ${pattern}`);
  }
}

/**
 * Registers, for every later load of `driver`, a watch of the tasks in which a page builds its
 * parts: each zero timeout the page sets is counted as it runs, and a MutationObserver notes
 * in `window.__seen` the count at which each of `parts` (`{name: css}`) first appears, so that
 * parts built in the same task read the same count. `onMutation` and `after` are more of the
 * script, run in the observer's callback and once at the start; both may call `note(name)`.
 * Resolves to a function that unregisters it. No timing is read.
 */
export async function watchTasks(driver, parts, { onMutation = '', after = '' } = {}) {
  // Once a document, in a block of its own: a script left registered runs again on later loads.
  const source = `if (!('__seen' in window)) {
    window.__timeouts = 0;
    const setTimeoutOf = window.setTimeout.bind(window);
    window.setTimeout = (f, ms, ...rest) =>
      setTimeoutOf(() => { window.__timeouts++; if (typeof f === 'function') f(...rest); }, ms);
    window.__seen = {};
    const parts = ${JSON.stringify(parts)};
    const note = (name) => { if (!(name in window.__seen)) window.__seen[name] = window.__timeouts; };
    new MutationObserver(() => {
      for (const [name, css] of Object.entries(parts)) if (document.querySelector(css)) note(name);
      ${onMutation}
    }).observe(document, { subtree: true, childList: true, attributes: true });
    ${after}
  }`;
  const { identifier } = (await driver.sendDevToolsCommand('Page.addScriptToEvaluateOnNewDocument', { source })) ?? {};
  return async () => {
    if (identifier) await driver.sendDevToolsCommand('Page.removeScriptToEvaluateOnNewDocument', { identifier });
  };
}
