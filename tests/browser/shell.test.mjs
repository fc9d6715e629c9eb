// The first content (index.html #shell, public/shell.js): the link's panel title and
// introduction, shown before the wasm arrives. Its texts must be the app's own, it must sit
// where the app puts them, and the switch to the app must not shift the layout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, panelSettled, serveStatic, startBrowser } from './harness.mjs';

let site;
let browser;
let refusing = false;
before(async () => {
  // While `refusing`, the main wasm never arrives, so the shell stays, as on a slow link.
  site = await serveStatic(undefined, {}, { refuse: (path) => refusing && /_bg\.wasm$/.test(path) });
  browser = await startBrowser({ width: 412, height: 823 });
});
after(async () => {
  await browser?.quit();
  await site?.close();
});

/** The visible title and introduction, their text and where the introduction sits. */
const READ = `
  const visible = (css) => [...document.querySelectorAll(css)].find((e) => e.offsetParent);
  const title = visible(arguments[0] + ' h2');
  const lead = visible(arguments[0] + ' .lead');
  const text = (e) => e ? e.textContent.replace(/\\s+/g, ' ').trim() : null;
  return { title: text(title), lead: text(lead), top: lead ? Math.round(lead.getBoundingClientRect().top) : null };`;

const LINKS = ['', '?embed=1', '?tab=kernel', '?tab=trace', '?tab=roofline', '?tab=probe', '?tab=probe&embed=1', '?tab=nonsense'];

for (const link of LINKS) {
  // A bad link also gets the app's notice above the panel, which the shell cannot foresee.
  const bad = link.includes('nonsense');
  test(`the first content for "${link || 'the default link'}" is the app's own, in the app's place`, async () => {
    const { driver } = browser;
    refusing = true;
    await driver.get(`${site.url}/${link}`);
    await driver.wait(() => driver.executeScript("return !!document.documentElement.dataset.shell"), 5000);
    const shell = await driver.executeScript(READ, '#shell');
    refusing = false;
    await openApp(driver, site.url, link);
    assert.equal(await driver.executeScript("return document.getElementById('shell')"), null, 'the app removed the shell');
    const app = await driver.executeScript(READ, 'main [role="tabpanel"]:not([hidden])');
    assert.ok(app.title && app.lead, `the app shows a title and an introduction: ${JSON.stringify(app)}`);
    if (bad) {
      delete shell.top;
      delete app.top;
    }
    assert.deepEqual(shell, app);
  });
}

test('machine mode opens on the lab title alone, without the course introduction', async () => {
  const { driver } = browser;
  refusing = true;
  await driver.get(`${site.url}/?tab=roofline&roofs=custom`);
  await driver.wait(() => driver.executeScript("return !!document.documentElement.dataset.shell"), 5000);
  const shell = await driver.executeScript(READ, '#shell');
  refusing = false;
  assert.equal(shell.title, 'Roofline lab');
  assert.equal(shell.lead, null);
});

// The copy's paint is recorded as a largest paint, before the app's: if the wasm's start-up ran
// before Chromium had timed it, the copy's record was dropped when the app removed it, and the
// largest paint became the app's own, after the whole wasm (public/shell.js and boot.js wait).
test('a cold load of each first panel shifts no layout (CLS 0), and its copy is recorded as a largest paint', async () => {
  for (const link of ['', '?embed=1', '?tab=roofline']) {
    const cold = await startBrowser({ width: 412, height: 823 });
    try {
      // No polling while it loads: a script run through the driver is a task of its own.
      await cold.driver.get(`${site.url}/${link}`);
      await cold.driver.sleep(1000);
      await panelSettled(cold.driver);
      const { shifts, paints, ready } = await cold.driver.executeAsyncScript(`
        const done = arguments[arguments.length - 1];
        const result = { shifts: [], paints: [], ready: performance.getEntriesByName('app-ready')[0]?.startTime };
        new PerformanceObserver((list) => result.shifts.push(...list.getEntries().filter((e) => !e.hadRecentInput).map((e) => e.value)))
          .observe({ type: 'layout-shift', buffered: true });
        new PerformanceObserver((list) => result.paints.push(...list.getEntries().map((e) => e.startTime)))
          .observe({ type: 'largest-contentful-paint', buffered: true });
        setTimeout(() => done(result), 300);`);
      assert.deepEqual(shifts, [], `layout shifts on "${link}"`);
      assert.ok(ready > 0, `app-ready mark on "${link}"`);
      assert.ok(paints.length > 0, `no largest-contentful-paint entry on "${link}"`);
      // The first entry is the copy's (later ones may be a built panel's larger content).
      assert.ok(
        paints[0] < ready,
        `largest paints at ${paints.map(Math.round)} ms on "${link}": none before the app's first result at ${Math.round(ready)} ms`,
      );
    } finally {
      await cold.quit();
    }
  }
});
