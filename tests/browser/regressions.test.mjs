// Regressions of the hostile and newcomer pass (shared/reviews/hostile-newcomer-pass.md) that
// only a page can show: each test names its finding and failed before its fix. The model's
// side of each is pinned natively in tests/hostile.rs.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { startBrowser, openApp, valueOf, errors, pageErrors } from './harness.mjs';

const lanes = (base, step) => Array.from({ length: 32 }, (_, t) => `0x${(base + step * t).toString(16).padStart(16, '0')}`).join(' ');
const launchLine = (launch) => `MEMTRACE: CTX 0x0000000000000001 - LAUNCH - Kernel pc 0x0000000000000000 - Kernel name k - grid launch id ${launch} - grid size 1,1,1 - block size 32,1,1 - nregs 16 - shmem 0 - cuda stream id 0`;
const nvbitLine = (launch) => `${launchLine(launch)}\nMEMTRACE: CTX 0x1 - grid_launch_id ${launch} - CTA 0,0,0 - warp 0 - LDG.E - ${lanes(0x1000, 4)}`;

const s = session({
    '/__two-launches.txt': `${nvbitLine(0)}\n${nvbitLine(1)}\n`,
    '/__garbage.txt': 'hello\nthis is not a trace\n',
  });

const status = () => s.driver.findElement(By.css('[data-testid="kernel-status"]')).getAttribute('data-value');

async function openKernel(query) {
  await s.driver.get(`${s.site.url}/?tab=kernel${query}`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="kernel-status"]')), 30000);
  await s.driver.wait(async () => (await status()) === 'done', 60000);
}

test('H4: a shared warp row carries wavefronts and conflicts, and no sectors', async () => {
  await openKernel('&block=64&a1.space=shared&a1.elem=16&a1.idx=threadIdx.x*2&a2.idx=threadIdx.x&a2.name=g');
  const row = await s.driver.findElement(By.css('[data-testid="kernel-warp"][data-warp="0"]'));
  assert.equal(await row.getAttribute('data-sectors'), '');
  assert.equal(await row.getAttribute('data-wavefronts'), '8');
  assert.equal(await row.getAttribute('data-bank-conflicts'), '4');
});

test('M5: the tiled transpose ranks its worst warps by bank conflicts; the naive one by sectors', async () => {
  await openKernel('');
  await s.driver.findElement(By.css('[data-testid="kernel-preset"] option[value="transpose-tiled"]')).click();
  await s.driver.wait(async () => (await valueOf(s.driver, 'k-requests')) === '2097152' && (await status()) === 'done', 90000);
  assert.equal(await s.driver.findElement(By.css('[data-testid="kernel-measure"]')).getAttribute('value'), 'conflicts');
  const worst = await s.driver.findElements(By.css('[data-testid="kernel-worst"]'));
  assert.equal(worst.length, 10);
  for (const row of worst) assert.equal(await row.getAttribute('data-bank-conflicts'), '31');
  assert.match(await s.driver.findElement(By.css('[data-testid="kernel-heat-description"]')).getText(), /^Heat map of bank conflicts per warp/);
  // Picked by hand, sectors rank the global rows again.
  await s.driver.findElement(By.css('[data-testid="kernel-measure"] option[value="sectors"]')).click();
  await s.driver.wait(async () => (await s.driver.findElement(By.css('[data-testid="kernel-worst"]')).getAttribute('data-sectors')) === '4', 5000);
});

test('M6: while a run goes on and after Cancel, the figures say which kernel they are of', async () => {
  await openKernel('');
  await s.driver.findElement(By.css('[data-testid="kernel-preset"] option[value="transpose-naive"]')).click();
  // The progress row is rebuilt as the run goes; press Cancel as soon as it is there.
  await s.driver.wait(
    () => s.driver.executeScript("const b = document.querySelector('[data-testid=\"kernel-cancel\"]'); if (b) b.click(); return !!b;"),
    10000,
  );
  await s.driver.wait(async () => (await status()) === 'cancelled', 5000);
  const label = () => s.driver.executeScript("return document.querySelector('[data-testid=\"kernel-results-of\"]')?.dataset.value");
  assert.equal(await label(), 'grid 1×1×1, block 32×1×1, statement a1');
  assert.equal(await valueOf(s.driver, 'k-requests'), '1');
});

test('M7: a base near 2^64 is blamed on the base, which falls back, and the launch runs', async () => {
  await openKernel('&a1.base=18446744073709551600');
  const shown = await errors(s.driver);
  assert.deepEqual(Object.keys(shown), ['a1.base']);
  assert.match(shown['a1.base'], /is past 2\^64/);
  assert.equal(await valueOf(s.driver, 'k-sectors'), '4', 'the kernel ran with base 0');
});

test('M8: an empty loop says so and the pickers stay quiet; so does a barrier', async () => {
  for (const query of ['&loop=10:0', '&loop=5:5']) {
    await openKernel(query);
    assert.deepEqual(await errors(s.driver), {}, `${query}: no field error`);
    assert.match(await s.driver.findElement(By.css('[data-testid="kernel-note"]')).getText(), /runs no iteration/);
  }
  await openKernel('&a1.idx=threadIdx.x&a2.kind=sync');
  assert.deepEqual(await errors(s.driver), {}, 'a barrier is no picker error');
  const options = await s.driver.findElements(By.css('[data-testid="kernel-pick-stmt"] option'));
  assert.equal(options.length, 1, 'only the memory statement can be picked');
});

test('M2: the machine-mode cursor stops at the chart, and Enter never counts a rejected point', async () => {
  await openApp(s.driver, s.site.url, '?tab=roofline&machine=A100');
  const chart = await s.driver.wait(until.elementLocated(By.css('[data-testid="roofline-machine-chart"]')), 10000);
  await s.driver.executeScript('arguments[0].focus()', chart);
  for (let k = 0; k < 201; k++) await chart.sendKeys('\uE014');
  for (let k = 0; k < 200; k++) await chart.sendKeys('\uE015');
  const cursor = await s.driver.findElement(By.css('[data-testid="roofline-cursor"]')).getAttribute('textContent');
  const [, oi] = cursor.match(/I = ([0-9.]+) FLOP\/byte/);
  assert.ok(Number(oi) <= 1048576, cursor);
  await chart.sendKeys('\uE007');
  await s.driver.wait(async () => (await s.driver.findElement(By.css('[data-testid="point-added"]')).getText()) !== '', 3000);
  const said = await s.driver.findElement(By.css('[data-testid="point-added"]')).getText();
  const points = await s.driver.findElements(By.css('[data-testid="roof-point"]'));
  const inUrl = (await s.driver.getCurrentUrl()).match(/pt\.\d+=/g) ?? [];
  // Whatever Enter did, the table, the URL and the sentence agree.
  assert.equal(points.length, inUrl.length, `${said} / ${await s.driver.getCurrentUrl()}`);
  if (said.startsWith('Added')) assert.equal(points.length, 1);
  else assert.match(said, /^Not added: /);
});

test('M10 and L8: two launches are said to be counted together, in correct plurals', async () => {
  await s.driver.get(`${s.site.url}/?tab=trace&trace=__two-launches.txt`);
  const summary = await s.driver.wait(until.elementLocated(By.css('[data-testid="trace-summary"]')), 30000);
  assert.equal(
    await summary.getText(),
    'NVBit mem_trace: 4 lines, 2 memory-instruction executions, 1 static instruction; 2 kernel launches, counted together as one, with the cache kept from one to the next.',
  );
});

test('L14: a file with no trace in it says so instead of "Trace read."', async () => {
  await s.driver.get(`${s.site.url}/?tab=trace&trace=__garbage.txt`);
  const status = await s.driver.wait(until.elementLocated(By.css('[data-testid="trace-status"]')), 30000);
  await s.driver.wait(async () => (await status.getAttribute('data-value')) === 'done', 10000);
  assert.match(await status.getAttribute('textContent'), /^No trace found/);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('L11: at 1280 px no results table is wider than its region', async () => {
  const overflowing = () =>
    s.driver.executeScript(`return [...document.querySelectorAll('[role=tabpanel]:not([hidden]) .lane-table, [role=tabpanel]:not([hidden]) .machine table')]
      .filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
      .map((e) => (e.querySelector('caption')?.textContent ?? e.className) + ' ' + e.scrollWidth + '/' + e.clientWidth)`);
  await openKernel('');
  await s.driver.findElement(By.css('[data-testid="kernel-preset"] option[value="transpose-tiled"]')).click();
  await s.driver.wait(async () => (await valueOf(s.driver, 'k-requests')) === '2097152' && (await status()) === 'done', 90000);
  assert.deepEqual(await overflowing(), [], 'kernel view');
  await s.driver.get(`${s.site.url}/?tab=trace&trace=samples/synthetic-transpose-tiled.traceg`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="trace-instr"]')), 30000);
  assert.deepEqual(await overflowing(), [], 'trace');
  await openApp(s.driver, s.site.url, '?tab=roofline&machine=A100&pt.1=saxpy:0.125:150&pt.2=gemm:50:15000');
  await s.driver.wait(until.elementLocated(By.css('[data-testid="roof-point"]')), 10000);
  assert.deepEqual(await overflowing(), [], 'machine mode');
});

test('M9: a newcomer finds the introduction, a lesson per example, and terms that explain themselves', async () => {
  await openApp(s.driver, s.site.url, '?idx=t*1024');
  const intro = await s.driver.findElement(By.css('[data-testid="intro"]'));
  await intro.findElement(By.css('summary')).click();
  assert.match(await intro.getText(), /an efficiency of 12\.5 %/);
  assert.equal((await s.driver.findElements(By.css('[data-testid="glossary"] dt'))).length, 20);
  assert.match(await s.driver.findElement(By.css('[data-testid="preset-lesson"]')).getText(), /^A warp walks down a column/);
  // A term explains itself on keyboard focus.
  const term = await s.driver.findElement(By.css('.readout .term'));
  const tip = await s.driver.findElement(By.css(`#${await term.getAttribute('aria-describedby')}`));
  assert.equal(await tip.isDisplayed(), false);
  await s.driver.executeScript('arguments[0].focus()', term);
  assert.equal(await tip.isDisplayed(), true);
  assert.match(await tip.getText(), /distinct sectors/);
  // In predict mode the lesson, which names the answer, waits for Reveal.
  await openApp(s.driver, s.site.url, '?idx=t*1024&predict=1');
  assert.match(await s.driver.findElement(By.css('[data-testid="preset-lesson"]')).getText(), /appears once you reveal/);
});

test('M9: on a phone the headline stays in sight while a field is edited', async () => {
  const phone = await startBrowser({ width: 390, height: 800 });
  try {
    await openApp(phone.driver, s.site.url, '?idx=1024*t');
    const bar = await phone.driver.findElement(By.css('[data-testid="headline-bar"]'));
    assert.equal(await bar.getText(), 'N_tx = 32 sectors · efficiency 12.5 %');
    const inView = await phone.driver.executeScript(
      'const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight + 1;',
      bar,
    );
    assert.equal(inView, true, 'the bar is on screen at the top of the page');
  } finally {
    await phone.quit();
  }
});

test('M9: at 1280 px, ticking Predict keeps the prediction field in view', async () => {
  await openApp(s.driver, s.site.url, '');
  const box = await s.driver.findElement(By.css('[data-testid="predict-mode"]'));
  await s.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', box);
  await box.click();
  await s.driver.wait(until.elementLocated(By.css('#predict-ntx')), 5000);
  await s.driver.sleep(200);
  const visible = await s.driver.executeScript(
    "const r = document.getElementById('predict-ntx').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;",
  );
  assert.equal(visible, true);
});

// #28's gap, closed with #24's parameter table: the measure travels with the link.
test('kmeasure: the link picks the ranking measure, and a pick writes it back', async () => {
  await openKernel('&kmeasure=excess');
  const picker = () => s.driver.findElement(By.css('[data-testid="kernel-measure"]'));
  assert.equal(await picker().getAttribute('value'), 'excess');
  await s.driver.findElement(By.css('[data-testid="kernel-measure"] option[value="wavefronts"]')).click();
  await s.driver.wait(async () => /[?&]kmeasure=wavefronts(&|$)/.test(await s.driver.getCurrentUrl()), 5000);
  assert.deepEqual(await pageErrors(s.driver), []);
});

// #28's gap: the kernel and trace panels mounted at once show readouts with tooltips; their
// ids are numbered per list, so none repeats anywhere in the document.
test('tooltip ids: no id repeats with the kernel view and a trace both on the page', async () => {
  await s.driver.get(`${s.site.url}/?tab=trace&trace=samples/synthetic-transpose-tiled.traceg`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="trace-status"]')), 15000);
  await s.driver.wait(async () => (await s.driver.findElement(By.css('[data-testid="trace-status"]')).getAttribute('data-value')) === 'done', 30000);
  await s.driver.findElement(By.css('[data-testid="tab-kernel"]')).click();
  await s.driver.wait(until.elementLocated(By.css('[data-testid="kernel-status"]')), 15000);
  await s.driver.wait(async () => (await status()) === 'done', 30000);
  const repeated = await s.driver.executeScript(`
    const seen = new Map();
    for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);`);
  assert.deepEqual(repeated, []);
  // Both panels' readouts carry glossary tooltips, so the check is not vacuous.
  const terms = await s.driver.executeScript(`
    const count = (panel) => document.querySelectorAll('#panel-' + panel + ' .term[aria-describedby]').length;
    return [count('kernel'), count('trace')];`);
  assert.ok(terms[0] > 0 && terms[1] > 0, `tooltips per panel (kernel, trace): ${terms}`);
});
