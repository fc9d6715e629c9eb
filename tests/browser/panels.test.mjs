// The panels' code arrives in chunks of its own (tools/split.mjs, src/ui/lazy.rs): a cold
// link straight to a panel works, each chunk is fetched once, and a chunk that fails to load
// leaves the rest of the page working, with a Retry that fetches it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { openApp, serveStatic, startBrowser, typeInto, valueOf } from './harness.mjs';

/** Something each panel shows only once its code has arrived and it is built. */
const BUILT = {
  roofline: 'roofline-description',
  probe: 'probe-status',
  kernel: 'k-sectors',
  trace: 'trace-privacy',
};

/** Each panel's split module: the kernel view and the trace panel share one (src/ui/lazy.rs). */
const MODULE = { roofline: 'roofline', probe: 'probe', kernel: 'kernel_trace', trace: 'kernel_trace' };

/** The wasm files the page has fetched, by name without the build's hash. */
async function fetchedWasm(driver) {
  const names = await driver.executeScript(
    "return performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm'))",
  );
  return names.map((n) => n.replace(/-[0-9a-f]+(_bg)?\.wasm$/, '$1.wasm'));
}

for (const [panel, testid] of Object.entries(BUILT)) {
  test(`a cold link straight to tab=${panel} builds the panel from its chunk`, async () => {
    const site = await serveStatic();
    const { driver, quit } = await startBrowser();
    try {
      await openApp(driver, site.url, `?tab=${panel}`);
      await driver.wait(until.elementLocated(By.css(`[data-testid="${testid}"]`)), 10000);
      const marks = await driver.executeScript(
        `return performance.getEntriesByName('panel-ready:${panel}').length`,
      );
      assert.equal(marks, 1, 'the panel is marked ready once');
      const file = `split_${MODULE[panel]}.wasm`;
      assert.ok((await fetchedWasm(driver)).includes(file), `${file} was fetched`);
    } finally {
      await quit();
      await site.close();
    }
  });
}

test('the first load fetches only the main module and the first result (none on the default link); every panel chunk is fetched once', async () => {
  const site = await serveStatic();
  const { driver, quit } = await startBrowser();
  try {
    const beforeReady = `
      const ready = performance.getEntriesByName('app-ready')[0].startTime;
      return performance.getEntriesByType('resource')
        .filter((e) => e.name.endsWith('.wasm') && e.startTime < ready)
        .map((e) => new URL(e.name).pathname.split('/').pop());`;
    // A calculator link also fetches the first-result module (src/bin/first-result.rs), first.
    await openApp(driver, site.url, '?idx=2*t');
    const atFirstResult = await driver.executeScript(beforeReady);
    assert.equal(atFirstResult.length, 2, `before the first result: ${atFirstResult}`);
    assert.match(atFirstResult[0], /^first-result-[0-9a-f]+_bg\.wasm$/);
    assert.match(atFirstResult[1], /^coalescing-lab-[0-9a-f]+_bg\.wasm$/);
    // The default link's result came with the page (tools/split.mjs): the main module alone.
    await openApp(driver, site.url);
    const atDefault = await driver.executeScript(beforeReady);
    assert.equal(atDefault.length, 1, `before the first result: ${atDefault}`);
    assert.match(atDefault[0], /^coalescing-lab-[0-9a-f]+_bg\.wasm$/);
    // Open every panel, twice over, then go back to the calculator.
    for (let round = 0; round < 2; round++) {
      for (const [panel, testid] of Object.entries(BUILT)) {
        await driver.findElement(By.css(`[data-testid="tab-${panel}"]`)).click();
        await driver.wait(until.elementLocated(By.css(`[data-testid="${testid}"]`)), 10000);
      }
      await driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
    }
    const fetched = await fetchedWasm(driver);
    for (const module of new Set(Object.values(MODULE))) {
      assert.equal(fetched.filter((n) => n === `split_${module}.wasm`).length, 1, `split_${module}.wasm once: ${fetched}`);
    }
    const counts = {};
    for (const n of fetched) counts[n] = (counts[n] ?? 0) + 1;
    assert.deepEqual(Object.values(counts).filter((c) => c !== 1), [], `each wasm once: ${JSON.stringify(counts)}`);
  } finally {
    await quit();
    await site.close();
  }
});

test('a panel whose chunk fails says so, the calculator keeps working, and Retry loads it', async () => {
  let refusing = true;
  const site = await serveStatic(undefined, {}, { refuse: (path) => refusing && /split_kernel_trace-/.test(path) });
  const { driver, quit } = await startBrowser();
  try {
    await openApp(driver, site.url);
    await driver.findElement(By.css('[data-testid="tab-kernel"]')).click();
    const failed = await driver.wait(until.elementLocated(By.css('[data-testid="panel-failed"]')), 10000);
    assert.match(await failed.getText(), /kernel view's code did not load/);
    assert.equal(await failed.getAttribute('role'), 'alert');
    // The calculator still computes.
    await driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
    await typeInto(driver, 'idx', '32*t');
    await driver.wait(async () => (await valueOf(driver, 'sectors')) === '32', 5000);
    // The host recovers; Retry fetches the chunk again and builds the panel.
    refusing = false;
    await driver.findElement(By.css('[data-testid="tab-kernel"]')).click();
    await driver.findElement(By.css('[data-testid="panel-retry"]')).click();
    await driver.wait(until.elementLocated(By.css('[data-testid="k-sectors"]')), 10000);
    assert.equal((await driver.findElements(By.css('[data-testid="panel-failed"]'))).length, 0);
  } finally {
    await quit();
    await site.close();
  }
});
