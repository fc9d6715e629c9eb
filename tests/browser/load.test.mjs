// A cold load builds only the panel on show: the others' fields arrive when first opened. How
// long a cold load's tasks take is a `make bench` row (the longest main-thread task), never an
// assertion here: `make test` must pass on a busy machine.
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

/** Which panels' fields a cold load of `query` in a fresh browser built. */
async function builtOnColdLoad(query) {
  const { driver, quit } = await startBrowser();
  try {
    await openApp(driver, site.url, query);
    return await driver.executeScript(
      "return ['input-idx', 'oi-input', 'input-strides', 'input-grid'].filter((id) => document.querySelector('[data-testid=\"' + id + '\"]'))",
    );
  } finally {
    await quit();
  }
}

for (const query of ['', '?tab=roofline', '?embed=1']) {
  test(`a cold load of '${query || '/'}' builds only its own panel`, async () => {
    assert.deepEqual(await builtOnColdLoad(query), query === '?tab=roofline' ? ['oi-input'] : ['input-idx']);
  });
}
