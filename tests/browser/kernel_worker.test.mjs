// The kernel view's launches in the page's Web Worker (src/worker.rs, src/ui/kernel/runner.rs):
// a launch past the edit's task is counted in the worker with the figures the page's own
// slices give, Cancel is taken at once, and a worker that dies mid-run (as a trap or a launch
// that exhausts memory ends it) is reported on the kernel view while every panel keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { calculatorComputes, openApp, pageErrors, typeInto } from './harness.mjs';
import { workerSession } from './session.mjs';

// Ex8a: 65536 warp instructions, far past the edit's task's 4096.
const EX8A =
  '?tab=kernel&grid=32,1024&a1.name=rows&a1.idx=blockIdx.y*1024%2BblockIdx.x*32%2BthreadIdx.x&a2.name=cols&a2.idx=(blockIdx.x*32%2BthreadIdx.x)*1024%2BblockIdx.y&flops=1';
// The naive transpose at 4096², 16 passes a thread: seconds of counting.
const LONG =
  '?tab=kernel&grid=128,128&block=32,8&loop=0:16&a1.idx=(blockIdx.y*32%2BthreadIdx.y%2B8*i)*4096%2BblockIdx.x*32%2BthreadIdx.x&a2.kind=store&a2.base=0x4000000&a2.idx=(blockIdx.x*32%2BthreadIdx.x)*4096%2BblockIdx.y*32%2BthreadIdx.y%2B8*i';

// dist/, refusing the paths `s.refusing` matches while set, and a copy whose worker dies.
const s = workerSession();
const driver = () => s.driver;

const statusOf = () => driver().executeScript(`return document.querySelector('[data-testid="kernel-status"]')?.dataset ?? {}`);
const status = async () => (await statusOf()).value;
async function waitStatus(want, timeout = 60000) {
  await driver().wait(until.elementLocated(By.css('[data-testid="kernel-status"]')), 15000);
  await driver().wait(async () => (await status()) === want, timeout);
}
const figures = () =>
  driver().executeScript(
    `return [...document.querySelectorAll('#panel-kernel .results [data-testid^="k-"], [data-testid="kernel-stmt"]')]
       .map((e) => e.dataset.testid + '=' + JSON.stringify(e.dataset)).join(' ')`,
  );

test('a launch past the edit\'s task is counted in the worker, with the figures of the page\'s own slices', async () => {
  await openApp(driver(), s.site.url, EX8A);
  await waitStatus('done');
  const byWorker = await figures();
  assert.match(byWorker, /k-requests=\{[^}]*"value":"65536"/);
  const memory = Number((await statusOf()).workerMemory);
  assert.ok(memory > 0, 'the launch was not counted in the worker');
  // The worker's script, then only its wasm, refused by the host: the page counts the launch
  // in slices of its own, with the same figures.
  for (const refused of [/cuda-worker-/, /cuda-worker-[0-9a-f]+_bg\.wasm$/]) {
    s.refusing = refused;
    try {
      await openApp(driver(), s.site.url, EX8A);
      await waitStatus('done');
      assert.equal(await figures(), byWorker, `${refused}`);
      assert.equal((await statusOf()).workerMemory, undefined, `${refused}: counted in the page`);
    } finally {
      s.refusing = null;
    }
  }
  assert.deepEqual(await pageErrors(driver()), []);
});

// EX8A with a store and a 64 KiB cache: evictions, write-backs and hits all count.
const SMALL_CACHE = `${EX8A}&a2.kind=store&cache=65536`;

// Records each worker the page starts and the role of the channel it is handed.
const WATCH_WORKERS = `window.__workers = [];
  window.Worker = class extends window.Worker {
    constructor(...args) {
      super(...args);
      const seen = { roles: [] };
      window.__workers.push(seen);
      const post = this.postMessage.bind(this);
      this.postMessage = (message, transfer) => {
        if (message && typeof message === 'object' && message.role) seen.roles.push(message.role);
        return post(message, transfer);
      };
    }
  };`;

test('the launch\'s cache is kept by a second worker, with the figures of the page\'s own slices', async () => {
  const { identifier } = await driver().sendAndGetDevToolsCommand('Page.addScriptToEvaluateOnNewDocument', { source: WATCH_WORKERS });
  try {
    await openApp(driver(), s.site.url, SMALL_CACHE);
    await waitStatus('done');
    const paired = await figures();
    assert.match(paired, /k-hit-rate=.*k-dram-bytes=|k-dram-bytes=.*k-hit-rate=/);
    assert.ok(Number((await statusOf()).workerMemory) > 0, 'the launch was not counted in the worker');
    // Two workers, one handed the engine's end of their channel, the other the cache's.
    const roles = await driver().executeScript('return window.__workers.map((w) => w.roles.join())');
    assert.deepEqual(roles.sort(), ['cache', 'engine']);
    // An edit the pair counts: the address bar, held while the workers count, follows once the
    // figures are on show.
    await typeInto(driver(), 'grid', '32,512');
    await driver().wait(async () => (await figures()) !== paired, 60000);
    await waitStatus('done');
    assert.match(await driver().executeScript('return location.search'), /[?&]grid=32,512(,1)?&/);
    // The page's own slices, with the cache model in the same thread: the same figures.
    s.refusing = /cuda-worker-/;
    try {
      await openApp(driver(), s.site.url, SMALL_CACHE);
      await waitStatus('done');
      assert.equal((await statusOf()).workerMemory, undefined, 'counted in the page');
      assert.equal(await figures(), paired);
    } finally {
      s.refusing = null;
    }
  } finally {
    await driver().sendDevToolsCommand('Page.removeScriptToEvaluateOnNewDocument', { identifier });
  }
  assert.deepEqual(await pageErrors(driver()), []);
});

test('Cancel stops the worker\'s launch at once, and an edit runs again', async () => {
  await openApp(driver(), s.site.url, LONG);
  await waitStatus('running');
  await driver().findElement(By.css('[data-testid="kernel-cancel"]')).click();
  assert.equal(await status(), 'cancelled');
  await typeInto(driver(), 'grid', '8,8');
  await waitStatus('done', 120000);
  assert.ok(Number((await statusOf()).workerMemory) > 0, 'the edit was counted in the worker');
  assert.deepEqual(await pageErrors(driver()), []);
});

test('a worker that dies mid-run is reported on the kernel view, and the other panels keep working', async () => {
  await openApp(driver(), s.dying.url, EX8A);
  // Nothing was on show yet, so the kernel runs again with the grid at its default (in the
  // edit's task), and the failure stays on the grid field.
  const error = await driver().wait(
    until.elementLocated(By.css('#panel-kernel [data-testid="input-error"][data-field="grid"]')),
    60000,
  );
  assert.match(
    await error.getText(),
    /grid: this launch stopped the engine \(.*the worker died\); the rest of the page keeps working/,
  );
  await waitStatus('done');
  assert.equal((await statusOf()).workerMemory, undefined, 'the default grid ran in the page');
  // The calculator still computes.
  await calculatorComputes(driver());
  assert.deepEqual(await pageErrors(driver()), []);
});
