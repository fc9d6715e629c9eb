// The calculator built in stages on a calculator link (docs/performance.md, "The calculator
// built in stages"): behind the static copy, the app's fields, its results and its lane table each
// appear in a task of their own, in that order; then the copy is removed and the app shown,
// and only after that is `app-ready` marked, counted by `watchTasks` (harness.mjs). No timing
// is asserted.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { openApp, pageErrors, valueOf, watchTasks } from './harness.mjs';

const s = session();

const PARTS = {
  fields: '#panel-calculator form.scenario',
  results: '#panel-calculator .results',
  lanes: '#panel-calculator [data-testid="lane-row"]',
};

// The copy gone and the app shown: the swap; then the app's own mark.
const SWAP = `
  if (document.querySelector('#panel-calculator') && !document.getElementById('shell')) {
    note('swap');
    window.__swapBuilding = document.documentElement.hasAttribute('data-building');
  }`;
const READY = `
  new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => e.name === 'app-ready')) note('ready');
  }).observe({ type: 'mark' });`;

for (const [name, query] of [['the default page', ''], ['a calculator permalink', '?v=1&elem=8&idx=2*t']]) {
  test(`${name}: the calculator builds a part a task behind the copy, then swaps, then says app-ready`, async () => {
    const unwatch = await watchTasks(s.driver, PARTS, { onMutation: SWAP, after: READY });
    try {
      await openApp(s.driver, s.site.url, query);
      await s.driver.wait(() => s.driver.executeScript("return 'swap' in window.__seen"), 15000);
      const seen = await s.driver.executeScript('return window.__seen');
      for (const part of ['fields', 'results', 'lanes', 'swap']) assert.ok(part in seen, `${part} appeared: ${JSON.stringify(seen)}`);
      const order = ['fields', 'results', 'lanes', 'swap'];
      for (let i = 1; i < order.length; i++) {
        assert.ok(seen[order[i]] > seen[order[i - 1]], `${order[i]} comes in a task after ${order[i - 1]}: ${JSON.stringify(seen)}`);
      }
      assert.equal(await s.driver.executeScript('return window.__swapBuilding'), false, 'the swap clears data-building with the copy');
      // app-ready is marked in the swap's task (as the app's own mark), never before it.
      const readyBeforeSwap = await s.driver.executeScript(
        "return performance.getEntriesByName('app-ready').length > 0 && !('swap' in window.__seen)",
      );
      assert.equal(readyBeforeSwap, false);
      assert.ok(seen.ready >= seen.swap, `app-ready comes with or after the swap: ${JSON.stringify(seen)}`);
      // The numbers are the link's: the default page's 4-byte lanes, or 8-byte ones at 2t.
      assert.equal(await valueOf(s.driver, 'sectors'), query ? '16' : '4');
      assert.deepEqual(await pageErrors(s.driver), []);
    } finally {
      await unwatch();
    }
  });
}
