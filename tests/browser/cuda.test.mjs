// The CUDA source panel (tab=cuda, #27) against the release build: a source by link with its
// figures per access site, per line and for the whole kernel; a pasted file with host code; a
// picked file, a dropped one and one over the reader's limit; the launch the page proposes;
// errors with their line and column; Cancel during a long run; real keystrokes; ids unique
// with the other panels mounted; axe in light and dark, and 320 px.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { By, Key, until } from 'selenium-webdriver';
import { openApp, pasteInto, pageErrors, axe, scheme, expectUrl } from './harness.mjs';
import { cudaLink, cudaPage } from './cuda_page.mjs';

const s = session();

// The naive transpose of NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++".
const TRANSPOSE = `#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transposeNaive(float *odata, const float *idata) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j+= BLOCK_ROWS)
    odata[x*width + (y+j)] = idata[(y+j)*width + x];
}
`;
const TRANSPOSE_LAUNCH = 'transposeNaive<<<dim3(32,32), dim3(32,8)>>>(o, i)';
const link = cudaLink;
const { status, inPanel, rows, openCuda } = cudaPage(s);
const text = (testid) =>
  s.driver.executeScript(`return document.querySelector('[data-testid="${testid}"]')?.textContent ?? null`);


test('the naive transpose by link: the read costs 4 sectors a request, the write 32', async () => {
  await openCuda(link(TRANSPOSE, TRANSPOSE_LAUNCH));
  const sites = await rows('.cuda-access');
  // 1024 blocks × 8 warps × 4 iterations = 32768 requests a site; the write's 32 lanes are
  // 4096 bytes apart, so each of its requests moves 32 sectors where 4 would carry 128 bytes.
  const pick = (r) => [r.line, r.column, r.kind, r.space, r.elem, r.requests, r.sectors, r.idealSectors, r.excessSectors, r.uniqueSectors];
  assert.deepEqual(sites.map(pick), [
    ['8', '30', 'load', 'global', '4', '32768', '131072', '131072', '0', '131072'],
    ['8', '5', 'store', 'global', '4', '32768', '1048576', '131072', '917504', '131072'],
  ]);
  assert.equal(sites[0].requestedBytes, String(4 << 20));
  assert.equal(sites[0].wavefronts, undefined, 'a global site has no wavefronts');
  const lines = await rows('.cuda-line');
  assert.deepEqual(lines.map((l) => [l.line, l.requests, l.sectors, l.idealSectors, l.excessSectors, l.band]), [['8', '65536', '1179648', '262144', '917504', '4']]);
  assert.equal(await inPanel('k-requests'), '65536');
  assert.equal(await inPanel('k-sectors'), '1179648');
  assert.equal(await inPanel('k-sectors-per-request'), '18');
  assert.equal(await inPanel('k-ideal-sectors'), '262144');
  assert.equal(await inPanel('k-excess-sectors'), '917504');
  assert.equal(await inPanel('k-dram-bytes'), String(8 << 20), 'a 6 MiB cache: each 4 MiB matrix once');
  assert.match(await text('cuda-note'), /^1024 blocks of 256 threads, 8 warps each: 8192 warps\.$/);
  // The source view: line 8 is a button that lists its two accesses.
  await s.driver.findElement(By.css('.cuda-line[data-line="8"] [data-testid="cuda-pick-line"]')).click();
  const listed = await rows('[data-testid="cuda-line-access"]');
  assert.deepEqual(listed.map((l) => [l.column, l.kind]), [['30', 'load'], ['5', 'store']]);
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-pick-line"]')).getAttribute('aria-pressed'), 'true');
  await expectUrl(s.driver, /[?&]tab=cuda&src=%23define/);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('the default page shows a copy kernel at once, and Enter on a line lists its accesses', async () => {
  await openCuda('?tab=cuda');
  assert.match(await s.driver.findElement(By.css('[data-testid="input-src"]')).getAttribute('value'), /__global__ void copy/);
  assert.equal(await s.driver.findElement(By.css('[data-testid="input-launch"]')).getAttribute('value'), 'copy<<<16, 256>>>(out, in, 4096)');
  assert.equal(await inPanel('k-requests'), '256');
  assert.equal(await inPanel('k-excess-sectors'), '0');
  const line = await s.driver.findElement(By.css('.cuda-line[data-line="4"] [data-testid="cuda-pick-line"]'));
  await s.driver.executeScript('arguments[0].focus()', line);
  await s.driver.switchTo().activeElement().sendKeys(Key.ENTER);
  await s.driver.wait(async () => (await rows('[data-testid="cuda-line-access"]')).length === 2, 5000);
  assert.equal(await s.driver.getCurrentUrl().then((u) => new URL(u).search), '?v=1&tab=cuda');
});

test('a pasted file with host code: the note lists what was skipped', async () => {
  await openCuda('?tab=cuda');
  const file = '#include <cstdio>\n#include "helper.h"\n__global__ void scale(float *a) {\n  a[threadIdx.x] *= 2.0f;\n}\nint main() {\n  float *d_a;\n  scale<<<1, 256>>>(d_a);\n  return 0;\n}\n';
  await pasteInto(s.driver, 'src', file);
  // The copy kernel's launch names a kernel the file lacks: the page says so and proposes the
  // launch the file writes.
  await s.driver.wait(async () => (await text('cuda-error')) !== null, 5000);
  assert.equal(await text('cuda-error'), 'launch, column 1: the launch names copy, but the file\'s kernels are scale');
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-error"]')).getAttribute('data-field'), 'launch');
  assert.equal(await s.driver.findElement(By.css('[data-testid="input-launch"]')).getAttribute('aria-invalid'), 'true');
  const proposal = await s.driver.findElement(By.css('[data-testid="cuda-proposal"]'));
  assert.equal(await proposal.getAttribute('data-launch'), 'scale<<<1, 256>>>(d_a);');
  await s.driver.findElement(By.css('[data-testid="cuda-use-proposal"]')).click();
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === '16', 10000);
  assert.equal(await text('cuda-note'), 'Host code is skipped: main (line 6), #include <cstdio> (line 1), #include "helper.h" (line 2).');
  assert.deepEqual((await rows('.cuda-access')).map((r) => [r.line, r.kind]), [['4', 'load'], ['4', 'store']]);
  assert.equal(await s.driver.findElement(By.css('[data-testid="input-launch"]')).getAttribute('aria-invalid'), 'false');
});

test('a parse error by link names its line and column, marks the line and shows no figures', async () => {
  const src = '__global__ void k(float *a) {\n  int i = threadIdx.x\n  a[i] = 0;\n}\n';
  await openCuda(link(src, 'k<<<1, 32>>>(a)'), 'failed');
  const error = await s.driver.findElement(By.css('#cuda-error'));
  assert.equal(await error.getAttribute('role'), 'alert');
  assert.equal(await error.getAttribute('data-field'), 'src');
  assert.equal(await error.getText(), "source, line 3, column 3: expected ';' after the declaration, found 'a'");
  assert.equal(await text('cuda-error-excerpt'), '3 |   a[i] = 0;\n  |   ^');
  const area = await s.driver.findElement(By.css('[data-testid="input-src"]'));
  assert.equal(await area.getAttribute('aria-invalid'), 'true');
  assert.match(await area.getAttribute('aria-describedby'), /\bcuda-error\b/);
  assert.equal(await text('cuda-gutter-error'), '3');
  assert.deepEqual((await rows('.cuda-src[data-error]')).map((r) => r.line), ['3']);
  // Regression: the default kernel's figures were shown under a warning; an engineer reads any
  // figure on screen as the source's own, so none are shown.
  assert.equal(await inPanel('k-requests'), null);
  assert.equal(await s.driver.executeScript("return document.querySelector('[data-testid=\"cuda-results-of\"]')"), null);
  // The field keeps the link's text.
  assert.equal(await area.getAttribute('value'), src);
});

test('an address computed from a loaded value stops the run at its line, naming the load', async () => {
  await openCuda('?tab=cuda');
  await pasteInto(s.driver, 'src', '__global__ void scatter(int *out, const int *idx) {\n  int i = threadIdx.x;\n  int j = idx[i];\n  out[j] = 1;\n}\n');
  await pasteInto(s.driver, 'launch', 'scatter<<<1, 32>>>(out, idx)');
  await s.driver.wait(async () => (await status()) === 'failed', 10000);
  const message = await text('cuda-error');
  assert.match(message, /^line 4, column \d+, block \(0,0,0\), thread \(0,0,0\): the address depends on the value loaded at line 3, which this model does not know/);
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-error"]')).getAttribute('data-field'), 'src');
  assert.equal(await text('cuda-gutter-error'), '4');
  // The default kernel's figures, which the page opened on, are taken down: they are not this
  // source's.
  assert.equal(await inPanel('k-requests'), null);
});

test('Cancel during a long run keeps the last figures; an edit runs again', async () => {
  // The last finished figures: this source's, on a 2 × 2 grid (8 warps × 4 requests × 4 blocks
  // × 2 sites).
  await openCuda(link(TRANSPOSE, 'transposeNaive<<<dim3(2,2), dim3(32,8)>>>(o, i)'));
  assert.equal(await inPanel('k-requests'), '256');
  // 4096 blocks of 8 warps: a few seconds in slices.
  await pasteInto(s.driver, 'launch', 'transposeNaive<<<dim3(64,64), dim3(32,8)>>>(o, i)');
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-cancel"]')), 10000);
  const max = await s.driver.executeScript('return document.querySelector(\'[data-testid="cuda-progress"] progress\')?.max');
  assert.equal(max, 32768);
  await s.driver.executeScript('document.querySelector(\'[data-testid="cuda-cancel"]\').click()');
  assert.equal(await status(), 'cancelled');
  assert.equal((await s.driver.findElements(By.css('[data-testid="cuda-progress"]'))).length, 0);
  assert.equal(await inPanel('k-requests'), '256', 'the last finished analysis stays');
  await pasteInto(s.driver, 'launch', TRANSPOSE_LAUNCH);
  await s.driver.wait(async () => (await status()) === 'done', 60000);
  assert.equal(await inPanel('k-requests'), '65536');
});

test('a picked file, a dropped file, and a file over the 1 MiB limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-panel-'));
  try {
    await openCuda('?tab=cuda');
    const picked = join(dir, 'transpose.cu');
    writeFileSync(picked, TRANSPOSE);
    await s.driver.findElement(By.css('[data-testid="cuda-file"]')).sendKeys(picked);
    await s.driver.wait(async () => (await s.driver.findElement(By.css('[data-testid="input-src"]')).getAttribute('value')) === TRANSPOSE, 5000);
    assert.equal(await s.driver.findElement(By.css('[data-testid="input-launch"]')).getAttribute('value'), '', 'a new file waits for its launch');
    assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-proposal"]')).getAttribute('data-launch'), 'transposeNaive<<<1, 256>>>(odata, idata)');
    // Dropped on the text area.
    await s.driver.executeScript(`
      const data = new DataTransfer();
      data.items.add(new File(['__global__ void k(float *a) { a[threadIdx.x] = 0; }\\n'], 'k.cuh'));
      document.querySelector('[data-testid="input-src"]').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));`);
    await s.driver.wait(async () => (await s.driver.findElement(By.css('[data-testid="input-src"]')).getAttribute('value')).startsWith('__global__ void k('), 5000);
    assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-proposal"]')).getAttribute('data-launch'), 'k<<<1, 256>>>(a)');
    const big = join(dir, 'big.cu');
    writeFileSync(big, 'x'.repeat((1 << 20) + 1));
    await s.driver.findElement(By.css('[data-testid="cuda-file"]')).sendKeys(big);
    await s.driver.wait(async () => (await text('cuda-file-error')) !== null, 5000);
    assert.equal(await text('cuda-file-error'), 'big.cu: source, line 1, column 1: the source is 1048577 bytes; at most 1048576 are read');
    assert.match(await s.driver.findElement(By.css('[data-testid="input-src"]')).getAttribute('value'), /^__global__ void k\(/, 'the field keeps its source');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Types `keys` at the end of the field one key at a time, then Backspaces them, checking focus and value after each. */
async function typeOneByOne(testid, keys) {
  const field = await s.driver.findElement(By.css(`[data-testid="${testid}"]`));
  await s.driver.executeScript('arguments[0].scrollIntoView({ block: "center" }); arguments[0].focus(); arguments[0].setSelectionRange(arguments[0].value.length, arguments[0].value.length);', field);
  const look = () =>
    s.driver.executeScript(
      `const e = document.querySelector('[data-testid="' + arguments[0] + '"]');
       return { value: e.value, focused: document.activeElement === e };`,
      testid,
    );
  let expected = (await look()).value;
  const settle = () => s.driver.executeAsyncScript('requestAnimationFrame(() => setTimeout(arguments[0], 0))');
  for (const key of keys) {
    await s.driver.switchTo().activeElement().sendKeys(key);
    expected += key;
    await settle();
    assert.deepEqual(await look(), { value: expected, focused: true }, `${testid}: after typing '${key}'`);
  }
  for (let k = 0; k < keys.length; k++) {
    await s.driver.switchTo().activeElement().sendKeys(Key.BACK_SPACE);
    expected = expected.slice(0, -1);
    await settle();
    assert.deepEqual(await look(), { value: expected, focused: true }, `${testid}: after Backspace`);
  }
}

test('typing one key at a time into the source, the launch and the cache keeps focus and value', async () => {
  await openCuda('?tab=cuda');
  await typeOneByOne('input-src', ['/', '/', ' ', 'x', ';']);
  await typeOneByOne('input-launch', [' ', '/', '/']);
  await typeOneByOne('cuda-input-cache', ['1', '2']);
  // An error while typing does not take the focus away either.
  await typeOneByOne('input-launch', ['(']);
  await s.driver.wait(async () => (await status()) === 'done', 10000);
});

test('no id repeats with the kernel view, a trace and the CUDA panel all mounted', async () => {
  await openApp(s.driver, s.site.url, '?tab=trace&trace=samples/synthetic-transpose-tiled.traceg');
  await s.driver.wait(async () => (await s.driver.executeScript("return document.querySelector('[data-testid=\"trace-status\"]')?.dataset.value")) === 'done', 30000);
  await s.driver.findElement(By.css('[data-testid="tab-kernel"]')).click();
  await s.driver.wait(async () => (await s.driver.executeScript("return document.querySelector('[data-testid=\"kernel-status\"]')?.dataset.value")) === 'done', 30000);
  await s.driver.findElement(By.css('[data-testid="tab-cuda"]')).click();
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-status"]')), 15000);
  await s.driver.wait(async () => (await status()) === 'done', 30000);
  await s.driver.findElement(By.css('[data-testid="cuda-pick-line"]')).click();
  const repeated = await s.driver.executeScript(`
    const seen = new Map();
    for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);`);
  assert.deepEqual(repeated, []);
  // Every aria-describedby and label names an element that exists.
  const dangling = await s.driver.executeScript(`
    const out = [];
    for (const e of document.querySelectorAll('#panel-cuda [aria-describedby], #panel-cuda label[for]')) {
      const ids = (e.getAttribute('aria-describedby') ?? e.getAttribute('for')).split(/\\s+/);
      for (const id of ids) if (!document.getElementById(id)) out.push(id);
    }
    return out;`);
  assert.deepEqual(dangling, []);
});

test('the panel is axe-clean in light and dark, with figures and with an error, and fits 320 px', async () => {
  for (const [query, want] of [[link(TRANSPOSE, TRANSPOSE_LAUNCH), 'done'], [link('__global__ void k(float *a) {\n  a[threadIdx.x] = @;\n}\n', 'k<<<1, 32>>>(a)'), 'failed']]) {
    for (const mode of ['light', 'dark']) {
      await scheme(s.driver, mode);
      await openCuda(query, want);
      await s.driver.executeScript("document.querySelector('[data-testid=\"cuda-pick-line\"]')?.click()");
      assert.deepEqual(await axe(s.driver), [], `${mode}: ${query.slice(0, 60)}`);
    }
  }
  // Dark mode recolours the lines by their share of the excess.
  await scheme(s.driver, 'light');
  await openCuda(link(TRANSPOSE, TRANSPOSE_LAUNCH));
  const band = () => s.driver.executeScript("return getComputedStyle(document.querySelector('.cuda-line[data-band=\"4\"] td.code')).backgroundColor");
  const light = await band();
  await scheme(s.driver, 'dark');
  const dark = await band();
  assert.notEqual(light, dark);
  await scheme(s.driver, 'light');
  await s.driver.sendDevToolsCommand('Emulation.setDeviceMetricsOverride', { width: 320, height: 800, deviceScaleFactor: 2, mobile: true });
  try {
    for (const query of ['?tab=cuda', link(TRANSPOSE, TRANSPOSE_LAUNCH)]) {
      await openCuda(query);
      const [scroll, inner] = await s.driver.executeScript('return [document.documentElement.scrollWidth, window.innerWidth];');
      assert.ok(scroll <= inner, `${query.slice(0, 40)}: the page is ${scroll} px wide at ${inner} px`);
    }
  } finally {
    await s.driver.sendDevToolsCommand('Emulation.clearDeviceMetricsOverride', {});
  }
});
