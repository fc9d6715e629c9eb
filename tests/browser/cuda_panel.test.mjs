// The CUDA source panel's later parts (tab=cuda): presets by link and by picking, the race
// and out-of-bounds reports with their marks in the source view, the worst warps and every
// warp of one execution handed to the calculator, long sources packed in the link, the CSV of
// the access rows; axe in light and dark, and 320 px, with the parts per warp and the hand-off
// of cuda_warps.test.mjs on show.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { openApp, pasteInto, pageErrors, axe, scheme, expectUrl, captureDownload, panelSettled } from './harness.mjs';

const s = session();

const status = () => s.driver.findElement(By.css('[data-testid="cuda-status"]')).getAttribute('data-value');
const inPanel = (testid) =>
  s.driver.executeScript(`return document.querySelector('#panel-cuda [data-testid="${testid}"]')?.dataset.value ?? null`);
/** Every element matching `css` as its data attributes, with its text as `text`. */
const rows = (css) =>
  s.driver.executeScript(
    `return [...document.querySelectorAll(${JSON.stringify(css)})].map((r) => ({ ...r.dataset, text: r.textContent }));`,
  );
const query = () => s.driver.getCurrentUrl().then((u) => new URL(u).search);

/** Opens the panel at `q` and waits until its run has ended (`want`: done or failed). */
async function openCuda(q, want = 'done', timeout = 60000) {
  await openApp(s.driver, s.site.url, q);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-status"]')), 15000);
  await s.driver.wait(async () => (await status()) === want, timeout);
}

/** Waits until a run started by an edit has ended with figures for `k-requests` = `requests`. */
async function ranWith(requests, timeout = 60000) {
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === requests, timeout);
}

/** Picks `value` in the select with test id `testid`, as a user would. */
async function pick(testid, value) {
  await s.driver.findElement(By.css(`[data-testid="${testid}"] option[value="${value}"]`)).click();
}

const field = (testid) => s.driver.findElement(By.css(`[data-testid="${testid}"]`)).getAttribute('value');

test('a preset by link: its source and launch, its lesson, and the naive store at 32 sectors a request', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-naive');
  assert.equal(await field('cuda-preset'), 'transpose-naive');
  assert.match(await field('input-src'), /__global__ void transposeNaive/);
  assert.equal(await field('input-launch'), 'transposeNaive<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)');
  assert.match((await rows('[data-testid="cuda-lesson"]'))[0].text, /32 sectors per store/);
  const store = (await rows('.cuda-access')).find((r) => r.kind === 'store');
  assert.equal(store.sectors, '1048576');
  assert.equal(store.requests, '32768');
  // The link stays the preset's id, not its source.
  assert.equal(await query(), '?v=1&tab=cuda&cpreset=transpose-naive');
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('picking a preset writes its source and launch into the fields; an edit makes the kernel your own', async () => {
  await openCuda('?tab=cuda');
  assert.equal(await field('cuda-preset'), '', 'the default kernel is no preset');
  assert.equal((await rows('[data-testid="cuda-lesson"]')).length, 0);
  await pick('cuda-preset', 'transpose-tiled');
  // 1024 blocks × 8 warps × 4 passes, at each of 4 sites (two global, two shared).
  await ranWith('131072');
  assert.match(await field('input-src'), /__global__ void transposeTiled/);
  assert.equal(await field('input-launch'), 'transposeTiled<<<dim3(32, 32), dim3(32, 8)>>>(odata, idata)');
  assert.match((await rows('[data-testid="cuda-lesson"]'))[0].text, /31 conflicts per request/);
  await expectUrl(s.driver, /\?v=1&tab=cuda&cpreset=transpose-tiled$/);
  // Another grid: still the preset's source, with its own launch in the link.
  await pasteInto(s.driver, 'launch', 'transposeTiled<<<dim3(16, 16), dim3(32, 8)>>>(odata, idata)');
  await ranWith('32768');
  assert.equal(await field('cuda-preset'), '');
  await expectUrl(s.driver, /\?v=1&tab=cuda&cpreset=transpose-tiled&launch=transposeTiled/);
});

test('a cpreset that names no preset gets the link notice, and the default kernel is shown', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-fast');
  const notice = await rows('[data-testid="link-warning"]');
  assert.equal(notice.length, 1);
  assert.match(notice[0].text, /^`cpreset=transpose-fast` is not a CUDA preset \(copy, copy-offset, .*bounds-partial, program-vadd, .*program-transpose\); it was ignored\.$/);
  assert.equal(await inPanel('k-requests'), '256');
  assert.equal(await query(), '?v=1&tab=cuda');
});

test('the broken transpose: a race between warps at lines 15 and 23, marked; its padded twin has none', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-race');
  const races = await rows('[data-testid="cuda-race"]');
  assert.ok(races.length >= 1);
  const r = races[0];
  assert.deepEqual([r.scope, r.lineA, r.lineB, r.kindA, r.kindB, r.block, r.warpA, r.word], ['block', '15', '23', 'store', 'load', '0,0,0', '0', 'tile[0][1]']);
  assert.ok(Number(r.occurrences) > 1);
  assert.match(r.text, /line 23 reads tile\[0\]\[1\], which warp 0 wrote at line 15 with no __syncthreads\(\) between: add one after line 15/);
  assert.equal((await rows('[data-testid="cuda-counted-anyway"]')).length, 1);
  // Both lines are marked in the source view, with text for screen readers.
  const marked = await rows('tr.cuda-src[data-race]');
  assert.ok(marked.some((l) => l.line === '15') && marked.some((l) => l.line === '23'), JSON.stringify(marked.map((l) => l.line)));
  assert.match(marked.find((l) => l.line === '15').text, /race on this line/);
  await pick('cuda-preset', 'transpose-padded');
  await s.driver.wait(async () => (await rows('[data-testid="cuda-race"]')).length === 0 && (await status()) === 'done', 60000);
  assert.equal((await rows('tr.cuda-src[data-race]')).length, 0);
  assert.match((await rows('[data-testid="cuda-checks-summary"]'))[0].text, /^No race and no access out of bounds in this launch\./);
  assert.equal((await rows('[data-testid="cuda-counted-anyway"]')).length, 0);
});

test('a copy launched past its allocation reports the first thread out of bounds, and marks its line', async () => {
  await openCuda(`?tab=cuda&cpreset=copy&launch=${encodeURIComponent('copy<<<1, 64>>>(out[48], in)')}`);
  const oob = await rows('[data-testid="cuda-oob"]');
  assert.equal(oob.length, 1);
  const o = oob[0];
  assert.deepEqual([o.line, o.block, o.thread, o.array, o.index, o.count, o.occurrences, o.space], ['5', '0,0,0', '48,0,0', 'out', '48', '48', '16', 'global']);
  assert.match(o.text, /line 5, block \(0,0,0\), thread \(48,0,0\): index 48 is outside the allocation out of 48 elements \(0 to 47\); on a GPU this faults or corrupts other data/);
  assert.match((await rows('[data-testid="cuda-counted-anyway"]'))[0].text, /still count these accesses.*fault or corrupt/);
  assert.deepEqual((await rows('tr.cuda-src[data-oob]')).map((l) => l.line), ['5']);
  // The figures count the accesses anyway: 2 warps, a load and a store each.
  assert.equal(await inPanel('k-requests'), '4');
});

/** Clicks the calculator link of the first row with test id `testid`, and returns that row and what the calculator shows. */
async function handOff(testid) {
  const [row] = await rows(`#panel-cuda [data-testid="${testid}"]`);
  await s.driver.findElement(By.css(`#panel-cuda [data-testid="${testid}-open"]`)).click();
  await panelSettled(s.driver);
  await s.driver.wait(async () => (await query()).includes('addrs='), 5000);
  const shown = await s.driver.executeScript(
    `const v = (id) => document.querySelector('#panel-calculator [data-testid="' + id + '"]')?.dataset.value ?? null;
     return { sectors: v('sectors'), wavefronts: v('wavefronts'), active: v('active-lanes') };`,
  );
  return { row, shown };
}

test('the worst warps by sectors: each row has its line, and opens in the calculator with the same sectors', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-naive');
  assert.equal(await field('cuda-measure'), 'sectors');
  const worst = await rows('#panel-cuda [data-testid="kernel-worst"]');
  assert.equal(worst.length, 10);
  // The naive store: 32 sectors where 4 would do, on line 12.
  assert.deepEqual([worst[0].line, worst[0].kind, worst[0].sectors, worst[0].excessSectors, worst[0].block, worst[0].warp], ['12', 'store', '32', '28', '0,0,0', '0']);
  const { row, shown } = await handOff('kernel-worst');
  assert.equal(shown.sectors, row.sectors);
  assert.equal(shown.active, row.active);
  const search = new URLSearchParams(await query());
  assert.equal(search.get('addrs'), row.addrs);
  assert.equal(search.get('tab'), null, 'the calculator is the default tab');
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('the worst by conflicts, and every execution of one warp on a picked line, open in the calculator alike', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-tiled');
  // A kernel with bank conflicts ranks by them at first.
  assert.equal(await field('cuda-measure'), 'conflicts');
  const [first] = await rows('#panel-cuda [data-testid="kernel-worst"]');
  assert.deepEqual([first.space, first.wavefronts, first.bankConflicts, first.sectors], ['shared', '32', '31', undefined]);
  await pick('cuda-measure', 'sectors');
  await s.driver.wait(async () => (await rows('#panel-cuda [data-testid="kernel-worst"]'))[0].space === 'global', 5000);
  // A line without accesses lists no warp.
  await s.driver.findElement(By.css('tr.cuda-src[data-line="1"]')).click();
  assert.equal((await rows('[data-testid="cuda-one-warp"]')).length, 0);
  // Pick the column read's line, then warp 3 of block 5.
  await s.driver.findElement(By.css(`.cuda-line[data-line="${first.line}"] [data-testid="cuda-pick-line"]`)).click();
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-one-warp"]')), 5000);
  assert.equal((await rows('[data-testid="cuda-warp"]')).length, 8, 'a load and a store, 4 passes');
  await s.driver.executeScript(`
    for (const [id, v] of [['cuda-pick-block', '5'], ['cuda-pick-warp', '3']]) {
      const e = document.getElementById(id);
      e.value = v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
    }`);
  await s.driver.wait(async () => (await rows('[data-testid="cuda-warp"]')).every((r) => r.block === '5,0,0' && r.warp === '3'), 5000);
  const listed = await rows('[data-testid="cuda-warp"]');
  assert.deepEqual(listed.map((r) => r.kind), ['load', 'store', 'load', 'store', 'load', 'store', 'load', 'store']);
  assert.ok(listed.every((r) => r.line === first.line));
  // A block outside the launch says so beside its field.
  await s.driver.executeScript(`const e = document.getElementById('cuda-pick-block'); e.value = '1024'; e.dispatchEvent(new Event('input', { bubbles: true }));`);
  await s.driver.wait(async () => (await rows('.cuda-one-warp [data-testid="input-error"]')).length === 1, 5000);
  assert.equal((await rows('.cuda-one-warp [data-testid="input-error"]'))[0].text, 'block: the launch has 1024 blocks, 0 to 1023; found 1024');
  assert.equal(await s.driver.findElement(By.css('#cuda-pick-block')).getAttribute('aria-invalid'), 'true');
  await s.driver.executeScript(`const e = document.getElementById('cuda-pick-block'); e.value = '5'; e.dispatchEvent(new Event('input', { bubbles: true }));`);
  await s.driver.wait(async () => (await rows('[data-testid="cuda-warp"]')).length === 8, 5000);
  const { row, shown } = await handOff('cuda-warp');
  assert.equal(row.space, 'shared');
  assert.equal(shown.wavefronts, row.wavefronts);
});

/** A kernel of more than 1500 characters: a copy with a long comment. */
const LONG = `__global__ void scale(float *a) {\n  a[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f;\n}\n${Array.from({ length: 40 }, (_, k) => `// note ${k}: each thread scales one float of its own, and no other thread's.\n`).join('')}`;

test('a long source travels packed (srcz) and comes back the same; Copy link writes it too', async () => {
  assert.ok(LONG.length > 1500);
  await openCuda('?tab=cuda');
  await pasteInto(s.driver, 'src', LONG);
  await pasteInto(s.driver, 'launch', 'scale<<<2, 64>>>(a)');
  await ranWith('8');
  await expectUrl(s.driver, /[?&]srcz=[A-Za-z0-9_-]+&launch=scale/);
  const search = await query();
  assert.ok(!new URLSearchParams(search).has('src'), 'not both forms');
  assert.ok(search.length < LONG.length / 2, `${search.length} characters for a ${LONG.length}-character source`);
  assert.equal(await s.driver.findElement(By.css('[data-testid="permalink"]')).getAttribute('value'), await s.driver.getCurrentUrl());
  // Opened again, the link gives back the source to the letter.
  await openCuda(search);
  assert.equal(await field('input-src'), LONG);
  assert.equal(await inPanel('k-requests'), '8');
  assert.equal((await rows('[data-testid="cuda-link-notice"]')).length, 0);
  // The plain form still reads.
  await openCuda(`?tab=cuda&src=${encodeURIComponent(LONG)}&launch=${encodeURIComponent('scale<<<2, 64>>>(a)')}`);
  assert.equal(await field('input-src'), LONG);
  await expectUrl(s.driver, /[?&]srcz=/);
});

test('a srcz that does not unpack is named with its reason beside the source, and the default kernel is shown', async () => {
  await openCuda('?tab=cuda&srcz=AAAA');
  const [notice] = await rows('[data-testid="cuda-link-notice"]');
  assert.equal(notice.text, '`srcz=AAAA`: the packed text is not a packed source; using the default kernel.');
  assert.equal(notice.param, 'srcz');
  assert.equal(await inPanel('k-requests'), '256');
  assert.match(await field('input-src'), /__global__ void copy/);
  // The next edit retires it.
  await pasteInto(s.driver, 'launch', 'copy<<<1, 32>>>(out, in, 32)');
  await s.driver.wait(async () => (await rows('[data-testid="cuda-link-notice"]')).length === 0, 5000);
});

test('the access rows download as the command line writes them', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-tiled');
  const file = await captureDownload(s.driver, 'cuda-csv');
  assert.equal(file.name, 'coalescing-cuda-transpose-tiled-sites.csv');
  const lines = file.text.split('\r\n');
  assert.equal(lines[0], 'row,line,column,kind,space,elem,part,requests,requested_bytes,sectors,ideal_sectors,excess_sectors,unique_sectors,dram_bytes,wavefronts,ideal_wavefronts,bank_conflicts,barriers');
  const sites = await rows('.cuda-access');
  const access = lines.filter((l) => l.startsWith('access,')).map((l) => l.split(','));
  assert.deepEqual(access.map((r) => [r[1], r[2], r[3], r[4], r[9]]), sites.map((r) => [r.line, r.column, r.kind, r.space, r.sectors]));
  assert.ok(lines.some((l) => l.startsWith('total,')));
});

/** The parts per warp and the hand-off are on show: the heat map drawn, its words, the button. */
async function perWarpShown(q) {
  for (const id of ['cuda-measure', 'cuda-heat', 'cuda-heat-description', 'cuda-heat-png', 'cuda-heat-svg', 'cuda-to-roofline', 'cuda-to-roofline-why', 'input-cflops']) {
    assert.equal((await rows(`#panel-cuda [data-testid="${id}"]`)).length, 1, `${id} in ${q}`);
  }
  await s.driver.wait(
    () => s.driver.executeScript("const c = document.querySelector('[data-testid=\"cuda-heat\"]'); return c.width > 0 && c.height > 0;"),
    5000,
  );
}

test('the new parts are axe-clean in light and dark, and fit 320 px', async () => {
  const queries = [
    '?tab=cuda&cpreset=transpose-race',
    `?tab=cuda&cpreset=copy&launch=${encodeURIComponent('copy<<<1, 64>>>(out[48], in)')}`,
    '?tab=cuda&srcz=AAAA',
    // The heat map of bank conflicts, a loop's passes, and cflops in error beside its field.
    '?tab=cuda&cpreset=transpose-tiled&cflops=x',
  ];
  for (const q of queries) {
    for (const mode of ['light', 'dark']) {
      await scheme(s.driver, mode);
      await openCuda(q);
      // With a line picked, its warp's executions are on show too.
      await s.driver.executeScript("document.querySelector('[data-testid=\"cuda-pick-line\"]')?.click()");
      await perWarpShown(q);
      assert.deepEqual(await axe(s.driver), [], `${mode}: ${q}`);
    }
  }
  await scheme(s.driver, 'light');
  await s.driver.sendDevToolsCommand('Emulation.setDeviceMetricsOverride', { width: 320, height: 800, deviceScaleFactor: 2, mobile: true });
  try {
    for (const q of queries) {
      await openCuda(q);
      await s.driver.executeScript("document.querySelector('[data-testid=\"cuda-pick-line\"]')?.click()");
      await perWarpShown(q);
      const [scroll, inner] = await s.driver.executeScript('return [document.documentElement.scrollWidth, window.innerWidth];');
      assert.ok(scroll <= inner, `${q}: the page is ${scroll} px wide at ${inner} px`);
    }
  } finally {
    await s.driver.sendDevToolsCommand('Emulation.clearDeviceMetricsOverride', {});
  }
});
