// The CUDA panel's Web Worker (src/worker.rs, src/ui/cuda/remote.rs): a warp that loops for a
// long time runs in the worker, so the page stays live and Cancel is taken at once; a host
// that cannot serve the worker leaves the run on the page's thread with the same figures; and
// a worker that dies mid-run (as a trap in the interpreter ends it) is reported beside the
// source while every panel keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { calculatorComputes, openApp, pageErrors } from './harness.mjs';
import { workerSession } from './session.mjs';

// One warp whose loop runs 600,000 times: a second or more of interpreting, far past the
// edit's task's budget of 2^13 iterations. Its one store is 128 bytes: four sectors.
const LOOPING = `__global__ void spin(unsigned *a)
{
    unsigned s = 0;
    for (unsigned i = 0; i < 600000u; i++)
        s += i;
    a[threadIdx.x] = s;
}
`;
const link = (source, launch) =>
  `?tab=cuda&src=${encodeURIComponent(source)}&launch=${encodeURIComponent(launch)}`;

// dist/, refusing the paths `s.refusing` matches while set, and a copy whose worker dies.
const s = workerSession();
const driver = () => s.driver;

const status = () => driver().findElement(By.css('[data-testid="cuda-status"]')).getAttribute('data-value');
const inPanel = (testid) =>
  driver().executeScript(`return document.querySelector('#panel-cuda [data-testid="${testid}"]')?.dataset.value ?? null`);

async function waitStatus(want, timeout = 60000) {
  await driver().wait(until.elementLocated(By.css('[data-testid="cuda-status"]')), 15000);
  await driver().wait(async () => (await status()) === want, timeout);
}

test('a warp that loops for long runs in the worker: the page answers and Cancel is taken at once', async () => {
  await openApp(driver(), s.site.url, link(LOOPING, 'spin<<<1, 32>>>(a)'));
  await waitStatus('running');
  // The page's thread is free: a script runs, and the Cancel button takes its click now,
  // not after the loop (which would leave the status 'done').
  await driver().findElement(By.css('[data-testid="cuda-cancel"]')).click();
  assert.equal(await status(), 'cancelled');
  // An edit runs again, to the end, with the figures of its one store.
  const launch = await driver().findElement(By.css('[data-testid="input-launch"]'));
  await launch.sendKeys(' ');
  await waitStatus('done', 120000);
  assert.equal(await inPanel('k-requests'), '1');
  assert.equal(await inPanel('k-sectors'), '4');
  assert.deepEqual(await pageErrors(driver()), []);
});

test('drilling into a warp that loops for long runs it in a worker: its execution comes, the page stays live', async () => {
  await openApp(driver(), s.site.url, link(LOOPING, 'spin<<<1, 32>>>(a)'));
  await waitStatus('done', 120000);
  // The store's line, then block 0, warp 0 (the default pick): 600,000 iterations to run again.
  await driver().findElement(By.css('.cuda-line[data-line="6"] [data-testid="cuda-pick-line"]')).click();
  await driver().wait(until.elementLocated(By.css('[data-testid="cuda-one-warp"]')), 5000);
  // The page answers while the worker runs the warp, and says where it runs.
  const drilling = await driver().findElement(By.css('[data-testid="cuda-warp-drilling"]'));
  assert.match(await drilling.getText(), /runs in the worker/);
  await driver().wait(
    async () => (await driver().executeScript('return document.querySelectorAll(\'[data-testid="cuda-warp"]\').length')) === 1,
    60000,
  );
  const row = await driver().executeScript('return { ...document.querySelector(\'[data-testid="cuda-warp"]\').dataset }');
  assert.deepEqual([row.kind, row.line, row.block, row.warp, row.sectors], ['store', '6', '0,0,0', '0', '4']);
  assert.equal((await driver().findElements(By.css('[data-testid="cuda-warp-drilling"]'))).length, 0);
  assert.deepEqual(await pageErrors(driver()), []);
});

test('a launch the worker runs gives the figures the page gives on its own thread', async () => {
  const transpose = 'transposeNaive<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)';
  await openApp(driver(), s.site.url, `?tab=cuda&cpreset=transpose-naive`);
  await waitStatus('done');
  const figures = async () =>
    driver().executeScript(
      `return [...document.querySelectorAll('#panel-cuda [data-testid^="k-"]')].map((e) => e.dataset.testid + '=' + e.dataset.value).join(' ')`,
    );
  const byWorker = await figures();
  assert.match(byWorker, /k-requests=65536/);
  // The same launch with the worker's script, then only its wasm, refused by the host: the
  // page runs it in slices, with the same figures.
  for (const refused of [/cuda-worker-/, /cuda-worker-[0-9a-f]+_bg\.wasm$/]) {
    s.refusing = refused;
    try {
      await openApp(driver(), s.site.url, `?tab=cuda&cpreset=transpose-naive`);
      await waitStatus('done');
      assert.equal(await figures(), byWorker, `${refused}`);
      assert.equal(await driver().findElement(By.css('[data-testid="input-launch"]')).getAttribute('value'), transpose);
    } finally {
      s.refusing = null;
    }
  }
});

test('a worker that dies mid-run is reported beside the source, and the other panels keep working', async () => {
  await openApp(driver(), s.dying.url, `?tab=cuda&cpreset=transpose-naive`);
  // The failure stays on the source field, and no figures are shown: the default kernel's
  // would be read as this source's.
  await driver().wait(until.elementLocated(By.css('#panel-cuda [data-testid="cuda-error"]')), 60000);
  await waitStatus('failed');
  assert.equal(await inPanel('k-requests'), null);
  const error = await driver().findElement(By.css('#panel-cuda [data-testid="cuda-error"]'));
  assert.equal(await error.getAttribute('data-field'), 'src');
  const message = await error.getText();
  assert.match(message, /the interpreter stopped unexpectedly \(.*the worker died\); the rest of the page keeps working/);
  // The calculator still computes.
  await calculatorComputes(driver());
  assert.deepEqual(await pageErrors(driver()), []);
});
