// The kernel view in real headless Chromium against the release build: presets by link and
// by picking, an error that names the thread, the hand-off of a warp to the calculator,
// Cancel, the Roofline hand-off, accessibility, 320 px and dark mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, typeInto, pasteInto, errors, pageErrors, valueOf, axe, scheme, expectUrl, panelSettled } from './harness.mjs';

// The kernel view embedded at phone width.
const NARROW = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Narrow host</title></head>
<body style="margin:0"><iframe id="kernel" src="/?v=1&amp;embed=1&amp;tab=kernel&amp;grid=4&amp;block=16,16" width="320" height="900" title="Coalescing Lab"></iframe></body></html>`;

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic(undefined, { '/__narrow.html': NARROW });
  browser = await startBrowser();
  driver = browser.driver;
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

const status = () => driver.findElement(By.css('[data-testid="kernel-status"]')).getAttribute('data-value');
const count = async (css) => (await driver.findElements(By.css(css))).length;

/** Opens the kernel view at `query` and waits until its analysis is done. */
async function openKernel(query, timeout = 30000) {
  await driver.get(`${site.url}/?tab=kernel${query}`);
  await driver.wait(until.elementLocated(By.css('[data-testid="k-sectors"]')), timeout);
  await driver.wait(async () => (await status()) === 'done', timeout);
}

/** Every statement row's machine values, by statement number. */
async function statementRows() {
  return driver.executeScript(`
    return [...document.querySelectorAll('[data-testid="kernel-stmt"]')].map((r) => ({
      stmt: r.dataset.stmt, requests: r.dataset.requests, requestedBytes: r.dataset.requestedBytes,
      sectors: r.dataset.sectors, unique: r.dataset.uniqueSectors, dram: r.dataset.dramBytes }));`);
}

test('Ex8a by link: rows cost 4 sectors a request, columns 32, and the matrix is read from DRAM once', async () => {
  await openKernel('&grid=32,1024&a1.name=rows&a1.idx=blockIdx.y*1024%2BblockIdx.x*32%2BthreadIdx.x&a2.name=cols&a2.idx=(blockIdx.x*32%2BthreadIdx.x)*1024%2BblockIdx.y&flops=1');
  const rows = await statementRows();
  assert.equal(rows.length, 2);
  // 32768 warps each; rows: 4 sectors a warp; columns: 32.
  assert.deepEqual(rows.map((r) => [r.stmt, r.requests, r.sectors]), [['1', '32768', '131072'], ['2', '32768', '1048576']]);
  assert.equal(await valueOf(driver, 'k-requests'), '65536');
  assert.equal(await valueOf(driver, 'k-unique-sectors'), '131072', 'the same 4 MiB matrix, read twice');
  assert.equal(await valueOf(driver, 'k-dram-bytes'), String(4 << 20), 'a 6 MiB cache keeps it: DRAM reads it once');
  assert.equal(await driver.findElement(By.css('[data-testid="kernel-preset"]')).getAttribute('value'), 'ex8a');
  assert.deepEqual(await pageErrors(driver), []);
});

test('the naive transpose by picking: read 4 sectors a request, write 32; the worst warps are writes', async () => {
  await openKernel('');
  await driver.findElement(By.css('[data-testid="kernel-preset"] option[value="transpose-naive"]')).click();
  await driver.wait(async () => (await valueOf(driver, 'k-requests')) === '1048576' && (await status()) === 'done', 60000);
  const rows = await statementRows();
  assert.deepEqual(rows.map((r) => Number(r.sectors) / Number(r.requests)), [4, 32]);
  assert.equal(await valueOf(driver, 'k-sectors-per-request'), '18');
  const worst = await driver.findElements(By.css('[data-testid="kernel-worst"]'));
  assert.equal(worst.length, 10);
  for (const row of worst) {
    assert.equal(await row.getAttribute('data-stmt'), '2');
    assert.equal(await row.getAttribute('data-sectors'), '32');
  }
  await expectUrl(driver, /tab=kernel&grid=128,128,1&block=32,8,1&loop=0:4/);
});

test('an expression error names the statement, the block, the thread and the values', async () => {
  // A link whose expression fails while running: the field says why, and the results are the
  // kernel's with that field at its default.
  await openKernel('&block=64&a1.idx=threadIdx.x/(threadIdx.x-40)');
  assert.deepEqual(await errors(driver), {
    'a1.idx': 'a1.idx: block (0,0,0) thread (20,0,0): address 0 + 4 × -1 = -4 is negative',
  });
  assert.equal(await valueOf(driver, 'k-sectors'), '8', 'threadIdx.x over 64 threads');
  await openKernel('');
  await pasteInto(driver, 'a1.idx', '1000 / (5 - threadIdx.x) + 1000');
  await driver.wait(async () => (await status()) === 'failed', 10000);
  assert.deepEqual(await errors(driver), {
    'a1.idx': 'a1.idx: block (0,0,0) thread (5,0,0): division by zero in 1000 / 0 (column 6)',
  });
  // The last finished results stay on screen, marked, and the page keeps working.
  assert.equal(await valueOf(driver, 'k-sectors'), '4');
  // Undoing the edit returns to the kernel on show: its results stand, and the error goes.
  await pasteInto(driver, 'a1.idx', 'threadIdx.x');
  await driver.wait(async () => (await status()) === 'done', 10000);
  assert.deepEqual(await errors(driver), {});
  await typeInto(driver, 'block', '2048');
  assert.deepEqual(Object.keys(await errors(driver)), ['block']);
  assert.deepEqual(await pageErrors(driver), []);
});

test('a warp row opens the same warp instruction in the calculator, with the same sectors', async () => {
  await openKernel('&grid=2&block=16,16&a1.idx=(blockIdx.x*16%2BthreadIdx.y)*100%2BthreadIdx.x');
  const row = await driver.findElement(By.css('[data-testid="kernel-warp"][data-warp="1"]'));
  const sectors = await row.getAttribute('data-sectors');
  const lane0 = await row.getAttribute('data-lane0-address');
  assert.equal(lane0, String(4 * (2 * 100)), 'warp 1 of block 0 starts on row 2');
  const href = await row.findElement(By.css('a')).getAttribute('href');
  assert.match(href, /addrs=/);
  await row.findElement(By.css('a')).click();
  await driver.wait(async () => driver.findElement(By.id('panel-calculator')).isDisplayed(), 5000);
  assert.equal(await valueOf(driver, 'sectors'), sectors);
  const first = await driver.findElement(By.css('[data-testid="lane-row"][data-lane="0"]'));
  assert.equal(await first.getAttribute('data-address'), lane0);
});

test('Cancel stops a long run and keeps the last results; an edit starts a new run', async () => {
  await openKernel('');
  await driver.findElement(By.css('[data-testid="kernel-preset"] option[value="transpose-naive"]')).click();
  await driver.wait(until.elementLocated(By.css('[data-testid="kernel-cancel"]')), 10000);
  const max = await driver.executeScript('return document.querySelector(\'[data-testid="kernel-progress"] progress\')?.max');
  assert.equal(max, 1048576);
  // Clicked from the page's side: the progress line re-renders as the run advances.
  await driver.executeScript('document.querySelector(\'[data-testid="kernel-cancel"]\').click()');
  assert.equal(await status(), 'cancelled');
  assert.equal(await count('[data-testid="kernel-progress"]'), 0);
  assert.equal(await valueOf(driver, 'k-requests'), '1', 'the last finished analysis stays');
  await typeInto(driver, 'loop', '0:1');
  await driver.wait(async () => (await status()) === 'done', 60000);
  assert.equal(await valueOf(driver, 'k-requests'), '262144');
});

test('"Use this kernel in the Roofline lab" opens the lab at total FLOPs ÷ DRAM bytes', async () => {
  // 4 blocks of 256 threads, one float each, 64 FLOPs a thread: 65536 FLOPs over 4096 bytes.
  await openKernel('&grid=4&block=256&a1.idx=blockIdx.x*256%2BthreadIdx.x&flops=64');
  await driver.findElement(By.css('[data-testid="kernel-to-roofline"]')).click();
  await panelSettled(driver);
  await driver.wait(async () => driver.findElement(By.id('panel-roofline')).isDisplayed(), 5000);
  assert.equal(await driver.findElement(By.css('[data-testid="oi-input"]')).getAttribute('value'), '16');
  assert.match(await driver.findElement(By.css('[data-testid="lab-note"]')).getText(), /65536 FLOPs over 4096 DRAM bytes: intensity 16 FLOP\/byte/);
  // Without FLOPs there is no intensity, and the button says why.
  await openKernel('');
  assert.equal(await driver.findElement(By.css('[data-testid="kernel-to-roofline"]')).getAttribute('disabled'), 'true');
  assert.match(await driver.findElement(By.css('[data-testid="kernel-to-roofline-why"]')).getText(), /outside the lab's 1\/64 to 1024/);
});

test('the kernel view is axe-clean in light and dark, and fits 320 px', async () => {
  await openKernel('&grid=4&block=16,16&a1.idx=threadIdx.y*16%2BthreadIdx.x');
  for (const mode of ['light', 'dark']) {
    await scheme(driver, mode);
    assert.deepEqual(await axe(driver), [], mode);
  }
  await scheme(driver, 'light');
  await driver.get(`${site.url}/__narrow.html`);
  await driver.switchTo().frame(driver.findElement(By.id('kernel')));
  try {
    await driver.wait(until.elementLocated(By.css('[data-testid="k-sectors"]')), 30000);
    const [scroll, client] = await driver.executeScript('return [document.documentElement.scrollWidth, document.documentElement.clientWidth]');
    assert.ok(client >= 300 && client <= 320, `the frame is phone-wide: ${client}`);
    assert.ok(scroll <= client, `scrolls sideways: ${scroll} > ${client}`);
  } finally {
    await driver.switchTo().defaultContent();
  }
});
