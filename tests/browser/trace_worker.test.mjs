// The trace panel's reads in the page's Web Worker (src/worker.rs, src/ui/trace/reader.rs):
// a trace read by the worker shows the figures and rows of a read on the page's thread, a
// picked file travels to it as well as a link, and a worker that dies mid-read (as a trap or
// a trace that exhausts memory ends it) is reported on the trace panel while every panel keeps
// working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { By, until } from 'selenium-webdriver';
import { calculatorComputes, openApp, pageErrors } from './harness.mjs';
import { workerSession } from './session.mjs';

const SAMPLE = '?tab=trace&trace=samples/synthetic-transpose-tiled.traceg';
const SAMPLE_FILE = resolve(import.meta.dirname, '../../public/samples/synthetic-transpose-naive.nvbit.txt');

// dist/, refusing the paths `s.refusing` matches while set, and a copy whose worker dies.
const s = workerSession();
const driver = () => s.driver;

const statusOf = () => driver().executeScript(`return { ...(document.querySelector('[data-testid="trace-status"]')?.dataset ?? {}) }`);
async function waitStatus(want, timeout = 60000) {
  await driver().wait(until.elementLocated(By.css('[data-testid="trace-status"]')), 15000);
  await driver().wait(async () => (await statusOf()).value === want, timeout);
}
const shown = () =>
  driver().executeScript(
    `return [...document.querySelectorAll('#panel-trace [data-testid^="k-"], [data-testid="trace-instr"], [data-testid="trace-summary"]')]
       .map((e) => e.dataset.testid + '=' + JSON.stringify(e.dataset) + e.textContent).join(' ')`,
  );

test('a trace read in the worker shows what a read on the page\'s thread shows', async () => {
  await openApp(driver(), s.site.url, SAMPLE);
  await waitStatus('done');
  assert.equal((await statusOf()).worker, '1', 'the trace was not read in the worker');
  const byWorker = await shown();
  assert.match(byWorker, /trace-instr=/);
  // The worker's script, then only its wasm, refused by the host: the page reads it itself.
  for (const refused of [/cuda-worker-/, /cuda-worker-[0-9a-f]+_bg\.wasm$/]) {
    s.refusing = refused;
    try {
      await openApp(driver(), s.site.url, SAMPLE);
      await waitStatus('done');
      assert.equal((await statusOf()).worker, undefined, `${refused}: read in the page`);
      assert.equal(await shown(), byWorker, `${refused}`);
    } finally {
      s.refusing = null;
    }
  }
  assert.deepEqual(await pageErrors(driver()), []);
});

test('a picked file is read in the worker', async () => {
  await openApp(driver(), s.site.url, '?tab=trace');
  await driver().findElement(By.css('[data-testid="trace-file"]')).sendKeys(SAMPLE_FILE);
  await waitStatus('done');
  assert.equal((await statusOf()).worker, '1');
  const rows = await driver().executeScript(
    `return [...document.querySelectorAll('[data-testid="trace-instr"]')].map((r) => [r.dataset.opcode, r.dataset.requests, r.dataset.sectors])`,
  );
  assert.deepEqual(rows, [['STG.E', '128', '4096'], ['LDG.E', '128', '512']]);
  assert.deepEqual(await pageErrors(driver()), []);
});

test('a worker that dies mid-read is reported on the trace panel, and the other panels keep working', async () => {
  await openApp(driver(), s.dying.url, SAMPLE);
  await waitStatus('failed');
  const failed = await driver().findElement(By.css('[data-testid="trace-failed"]'));
  assert.match(
    await failed.getText(),
    /the trace reader stopped unexpectedly \(.*the worker died\); the rest of the page keeps working/,
  );
  // The calculator still computes.
  await calculatorComputes(driver());
  assert.deepEqual(await pageErrors(driver()), []);
});
