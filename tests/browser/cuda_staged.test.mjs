// The CUDA panel built in stages on a cold `tab=cuda` link (docs/performance.md, "The CUDA
// panel in stages"): the panel's head, its fields, its results column, the first run's
// readouts, the access sites and the figures per warp each appear in a task of their own, in
// that order, and the status says done only after the last. Each zero timeout the page sets is
// counted as it runs, and a MutationObserver notes the count at which each part first appears:
// parts built in the same task read the same count. No timing is asserted.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { openApp, pageErrors, watchTasks } from './harness.mjs';

const s = session();

const PARTS = {
  head: '#cuda-title',
  fields: '#panel-cuda form.scenario',
  column: '#cuda-results-title',
  readouts: '#panel-cuda [data-testid="k-requests"]',
  sites: '#cuda-sites-title',
  perWarp: '#cuda-worst-title',
  done: '[data-testid="cuda-status"][data-value="done"]',
};


test('a cold tab=cuda link builds the panel a part a task, and says done after the last', async () => {
  const unwatch = await watchTasks(s.driver, PARTS);
  try {
    await openApp(s.driver, s.site.url, '?tab=cuda');
    await s.driver.wait(until.elementLocated(By.css(PARTS.done)), 30000);
    const seen = await s.driver.executeScript('return window.__seen');
    assert.deepEqual(Object.keys(seen).sort(), Object.keys(PARTS).sort(), `every part appeared: ${JSON.stringify(seen)}`);
    const order = ['head', 'fields', 'column', 'readouts', 'sites', 'perWarp'];
    for (let i = 1; i < order.length; i++) {
      assert.ok(seen[order[i]] > seen[order[i - 1]], `${order[i]} comes in a task after ${order[i - 1]}: ${JSON.stringify(seen)}`);
    }
    assert.ok(seen.done >= seen.perWarp, `done is said with or after the figures per warp: ${JSON.stringify(seen)}`);
    // The figures are the default kernel's: 16 blocks of 256 threads, one load and one store a
    // warp, 128 warps.
    const requests = await s.driver.executeScript(`return document.querySelector('${PARTS.readouts}').dataset.value`);
    assert.equal(requests, '256');
    assert.equal(await s.driver.executeScript("return document.querySelector('[data-staging]')"), null);
    assert.deepEqual(await pageErrors(s.driver), []);
  } finally {
    await unwatch();
  }
});
