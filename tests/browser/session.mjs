// One browser and one static server shared by the tests of a file: started before the first
// test, stopped after the last. `session().driver` and `session().site` are set once started.
import { before, after } from 'node:test';
import { serveStatic, startBrowser } from './harness.mjs';

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
