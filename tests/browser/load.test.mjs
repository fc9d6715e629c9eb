// The first load on this machine's full CPU: no main-thread task longer than 200 ms while the
// default page loads (issue "First load on a phone": it stands in for Lighthouse's Total
// Blocking Time, which `make test` does not run), in a fresh browser, so nothing is cached.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveStatic, startBrowser, openApp } from './harness.mjs';

let site;

before(async () => {
  site = await serveStatic();
});

after(async () => {
  await site?.close();
});

/** The longest main-thread tasks of one cold load of `query` in a fresh browser, and which
 * panels' fields it built. */
async function coldLoad(query) {
  const { driver, quit } = await startBrowser();
  try {
    await openApp(driver, site.url, query);
    const tasks = await driver.executeAsyncScript(`
      const done = arguments[arguments.length - 1];
      const tasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) tasks.push(Math.round(e.duration)); })
        .observe({ type: 'longtask', buffered: true });
      setTimeout(() => done(tasks), 200);`);
    const built = await driver.executeScript(
      "return ['input-idx', 'oi-input', 'input-strides', 'input-grid'].filter((id) => document.querySelector('[data-testid=\"' + id + '\"]'))",
    );
    return { tasks, built };
  } finally {
    await quit();
  }
}

for (const query of ['', '?tab=roofline', '?embed=1']) {
  test(`a cold load of '${query || '/'}' has no task over 200 ms, and only its own panel is built`, async () => {
    // Timings on a shared 2-core machine are noisy: a load passes if one of up to three cold
    // loads keeps every task within 200 ms. A regression shows in all three.
    const loads = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const load = await coldLoad(query);
      loads.push(load);
      // Panels not on show are built when first opened: their fields are not in the page yet.
      assert.deepEqual(load.built, query === '?tab=roofline' ? ['oi-input'] : ['input-idx']);
      if (load.tasks.every((t) => t <= 200)) break;
    }
    assert.ok(loads.some((l) => l.tasks.every((t) => t <= 200)), `long tasks: ${loads.map((l) => l.tasks).join(' | ')}`);
  });
}
