// Memory stays bounded whatever the input (hostile pass H2, H3, M1): a launch whose every
// sector lies on a page of its own, a trace of 10^5 distinct instructions, and hundreds of
// kernel edits. Sizes are asserted (bytes, not times); each bound is far below what the
// findings measured before their fixes.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { valueOf, pasteInto, pageErrors, captureDownload } from './harness.mjs';

const MiB = 1 << 20;

/** An Accel-Sim trace of one warp running `n` distinct load instructions once each. */
function manyInstructions(n) {
  const lines = ['-kernel name = many', '-grid dim = (1,1,1)', '-block dim = (32,1,1)', '', '#BEGIN_TB', 'thread block = 0,0,0', 'warp = 0', `insts = ${n}`];
  for (let pc = 0; pc < n; pc++) {
    lines.push(`${(pc * 16).toString(16).padStart(4, '0')} ffffffff 1 R1 LDG.E 1 R2 4 1 0x${(0x10000 + pc * 256).toString(16)} 8 0`);
  }
  lines.push('#END_TB', '');
  return lines.join('\n');
}

const s = session({ '/__many.traceg': manyInstructions(100_000) });

const wasmBytes = () => s.driver.executeScript('return window.coalescingLab.wasmMemoryBytes()');
const kernelStatus = () => s.driver.findElement(By.css('[data-testid="kernel-status"]')).getAttribute('data-value');

test('a launch with every sector 4 MiB apart is counted exactly in bounded memory', async (t) => {
  // The finding's link: 2^20 threads, one load each, 4 MiB apart. It took all 4 GiB of wasm
  // memory and trapped; a sector now costs tens of bytes.
  await s.driver.get(`${s.site.url}/?tab=kernel&grid=4096&block=256&a1.idx=(blockIdx.x*256%2BthreadIdx.x)*1048576`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="k-sectors"]')), 30000);
  await s.driver.wait(async () => (await kernelStatus()) === 'done', 120000);
  assert.equal(await valueOf(s.driver, 'k-unique-sectors'), String(1 << 20));
  assert.equal(await valueOf(s.driver, 'k-requests'), String(1 << 15));
  // The launch is counted in the page's worker (32768 warp instructions, past the edit's
  // task), which reports its own wasm memory at the end; the page's stays small.
  const worker = Number(
    await s.driver.findElement(By.css('[data-testid="kernel-status"]')).getAttribute('data-worker-memory'),
  );
  t.diagnostic(`worker's wasm memory: ${worker / MiB} MiB`);
  assert.ok(worker > 0, 'the launch was not counted in the worker');
  assert.ok(worker < 400 * MiB, `the worker's wasm memory ${worker / MiB} MiB after 2^20 isolated sectors`);
  const bytes = await wasmBytes();
  t.diagnostic(`the page's wasm memory: ${bytes / MiB} MiB`);
  assert.ok(bytes < 64 * MiB, `the page's wasm memory ${bytes / MiB} MiB after 2^20 isolated sectors`);
  // The other panels still work.
  await s.driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
  await s.driver.wait(until.elementLocated(By.css('[data-testid="sectors"]')), 10000);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a trace of 10^5 distinct instructions shows a bounded table and the CSV has every row', async (t) => {
  await s.driver.get(`${s.site.url}/?tab=trace&trace=__many.traceg`);
  const status = () => s.driver.findElement(By.css('[data-testid="trace-status"]')).getAttribute('data-value');
  await s.driver.wait(until.elementLocated(By.css('[data-testid="trace-status"]')), 30000);
  await s.driver.wait(async () => (await status()) === 'done', 120000);
  assert.equal(await valueOf(s.driver, 'k-requests'), '100000');
  const rows = async () => (await s.driver.findElements(By.css('[data-testid="trace-instr"]'))).length;
  assert.equal(await rows(), 100, 'the first 100 rows, not 10^5');
  const shown = await s.driver.findElement(By.css('[data-testid="trace-rows-shown"]'));
  assert.equal(await shown.getAttribute('data-total'), '100000');
  await s.driver.findElement(By.css('[data-testid="trace-more"]')).click();
  await s.driver.wait(async () => (await rows()) === 200, 5000);
  // Two quick presses, before the worker's rows come, then one more: each row once.
  await s.driver.executeScript(`const more = () => document.querySelector('[data-testid="trace-more"]');
    more().click(); more().click();`);
  await new Promise((r) => setTimeout(r, 1500));
  while ((await rows()) < 400) {
    const before = await rows();
    await s.driver.findElement(By.css('[data-testid="trace-more"]')).click();
    await s.driver.wait(async () => (await rows()) > before, 5000);
  }
  const pcs = await s.driver.executeScript(
    `return [...document.querySelectorAll('[data-testid="trace-instr"]')].map((r) => r.dataset.pc)`,
  );
  assert.equal(new Set(pcs).size, pcs.length, `${pcs.length} rows, ${new Set(pcs).size} distinct`);
  const csv = await captureDownload(s.driver, 'trace-csv');
  assert.equal(csv.text.trimEnd().split('\n').length, 100_001, 'a header and every instruction');
  // Read in the page's worker, which keeps the analysis and reports its memory; the page
  // holds the rows on show only.
  const worker = Number(
    await s.driver.findElement(By.css('[data-testid="trace-status"]')).getAttribute('data-worker-memory'),
  );
  // Before: 525 MB at 10^5 instructions, about 5 KB each.
  t.diagnostic(`worker's wasm memory: ${worker / MiB} MiB`);
  assert.ok(worker > 0, 'the trace was not read in the worker');
  assert.ok(worker < 160 * MiB, `the worker's wasm memory ${worker / MiB} MiB after 10^5 instructions`);
  const bytes = await wasmBytes();
  t.diagnostic(`the page's wasm memory: ${bytes / MiB} MiB`);
  assert.ok(bytes < 64 * MiB, `the page's wasm memory ${bytes / MiB} MiB after 10^5 instructions`);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('kernel edits do not grow memory', async (t) => {
  // About 6 KB leaked per edit of a small kernel (1.4 → 11.6 MB over 2000 edits).
  await s.driver.get(`${s.site.url}/?tab=kernel&grid=8&block=256&loop=0:2`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="kernel-status"]')), 30000);
  await s.driver.wait(async () => (await kernelStatus()) === 'done', 30000);
  const edit = async (k) => {
    await pasteInto(s.driver, 'a1.idx', k % 2 ? 'threadIdx.x * 2' : 'threadIdx.x');
    await s.driver.executeAsyncScript('requestAnimationFrame(() => setTimeout(arguments[0], 0))');
  };
  for (let k = 0; k < 100; k++) await edit(k);
  const warm = await wasmBytes();
  for (let k = 0; k < 600; k++) await edit(k);
  const after = await wasmBytes();
  // wasm memory grows in 64 KiB pages and never shrinks: 600 edits at 6 KB each were 3.6 MB.
  t.diagnostic(`wasm memory: ${warm} → ${after} bytes`);
  assert.ok(after - warm <= MiB, `wasm memory grew from ${warm} to ${after} bytes over 600 edits`);
  assert.equal(await kernelStatus(), 'done');
});
