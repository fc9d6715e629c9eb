// One browser and one static server shared by the tests of a file: started before the first
// test, stopped after the last. `session().driver` and `session().site` are set once started.
import { before, after } from 'node:test';
import { serveDyingWorker, serveStatic, startBrowser } from './harness.mjs';

/** Serves dist/ (plus `extra` pages) and starts a browser for the tests of this file. */
export function session(extra = {}, options = {}) {
  const s = { site: null, browser: null, driver: null };
  before(async () => {
    s.site = await serveStatic(undefined, extra);
    s.browser = await startBrowser(options);
    s.driver = s.browser.driver;
  });
  after(async () => {
    await s.browser?.quit();
    await s.site?.close();
  });
  return s;
}

/**
 * The worker tests' session: dist/ served (`s.site`), answering 503 for the paths that
 * `s.refusing` (a RegExp) matches while it is set; a copy whose Web Worker dies on its first
 * message (`s.dying`); and a browser.
 */
export function workerSession() {
  const s = { site: null, dying: null, browser: null, driver: null, refusing: null };
  before(async () => {
    s.site = await serveStatic(undefined, {}, { refuse: (path) => s.refusing?.test(path) ?? false });
    s.dying = await serveDyingWorker();
    s.browser = await startBrowser();
    s.driver = s.browser.driver;
  });
  after(async () => {
    await s.browser?.quit();
    await s.site?.close();
    await s.dying?.close();
  });
  return s;
}
