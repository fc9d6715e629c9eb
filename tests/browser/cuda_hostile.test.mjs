// The CUDA panel as a hostile user and a newcomer meet it: a read below the start of an array
// is reported; a paste past the reader's limit is refused before it lands, as the file picker
// refuses such a file; a long source shows its lines with figures, not a row per line; a
// launch or cache keystroke never reads the source again; a launch copied from host code
// runs; the figures of another cache say so; and the panel leads a newcomer to the primer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { By, Key, until } from 'selenium-webdriver';
import { session } from './session.mjs';
import { pasteInto, pageErrors, axe } from './harness.mjs';
import { cudaLink, cudaPage, copyToClipboard as copyFor } from './cuda_page.mjs';

const s = session();

const link = cudaLink;
const copyToClipboard = (text) => copyFor(s, text);
const { status, inPanel, rows, openCuda } = cudaPage(s);
const reads = () => s.driver.executeScript("return Number(document.querySelector('section.cuda').dataset.sourceReads ?? 0)");
const field = (param) => s.driver.findElement(By.css(`[data-testid="input-${param}"]`));


test('a halo read below the start of its array is reported with a negative index', async () => {
  const src = '__global__ void stencil(float *out, const float *in) {\n  int i = threadIdx.x;\n  out[i] = in[i - 3] + in[i];\n}\n';
  await openCuda(link(src, 'stencil<<<1, 32>>>(out[32], in[32])'));
  const oob = await rows('[data-testid="cuda-oob"]');
  assert.equal(oob.length, 1);
  assert.deepEqual([oob[0].line, oob[0].array, oob[0].index, oob[0].count, oob[0].thread, oob[0].space], ['3', 'in', '-3', '32', '0,0,0', 'global']);
  assert.equal(oob[0].address, '0x1ffffff4');
  assert.deepEqual((await rows('tr.cuda-src[data-oob]')).map((l) => l.line), ['3']);
});

test('a paste past 1 MiB is refused before it lands, and the page keeps working', async () => {
  await openCuda('?tab=cuda');
  const before = await field('src').getAttribute('value');
  // 2 MB of valid-looking source, pasted with real keystrokes.
  await copyToClipboard('// padding line of a pasted file, forty chars\n'.repeat(45000));
  const area = await field('src');
  await area.click();
  await area.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.chord(Key.CONTROL, 'v'));
  const error = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-error"]')), 5000);
  assert.equal(await error.getAttribute('data-field'), 'src');
  assert.equal(
    await error.getText(),
    'the pasted text: source, line 1, column 1: the source is 2070000 bytes; at most 1048576 are read',
  );
  assert.equal(await area.getAttribute('value'), before, 'the field keeps its text');
  assert.ok((await rows('tr.cuda-src')).length < 20, 'no row per pasted line');
  // The calculator answers at once.
  await s.driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
  await s.driver.wait(until.elementIsVisible(s.driver.findElement(By.css('[data-testid="input-idx"]'))), 5000);
  // Text past the limit by any other way than a paste (here a script's input event) is undone
  // the same way.
  await s.driver.findElement(By.css('[data-testid="tab-cuda"]')).click();
  await pasteInto(s.driver, 'src', 'x'.repeat(1048577));
  assert.equal(await field('src').getAttribute('value'), before);
  assert.equal(
    await s.driver.findElement(By.css('[data-testid="cuda-error"]')).getText(),
    'the text: source, line 1, column 1: the source is 1048577 bytes; at most 1048576 are read',
  );
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a long source shows its lines with figures and their context, the rest as gaps', async () => {
  const pad = '// a comment line that carries no access\n'.repeat(3000);
  const src = `${pad}__global__ void copy(float *out, const float *in) {\n  int i = threadIdx.x;\n  out[i] = in[i];\n}\n${pad}`;
  await openCuda('?tab=cuda');
  await pasteInto(s.driver, 'src', src);
  await pasteInto(s.driver, 'launch', 'copy<<<1, 32>>>(out, in)');
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === '2', 30000);
  const lines = await rows('tr.cuda-src');
  assert.ok(lines.length <= 600, `${lines.length} rows`);
  assert.deepEqual(lines.filter((l) => l.requests).map((l) => l.line), ['3003']);
  const gaps = await rows('[data-testid="cuda-source-gap"]');
  assert.deepEqual(gaps.map((g) => [g.from, g.to]), [['1', '3000'], ['3006', '6004']]);
});

test('a launch or cache keystroke never reads the source again; a source keystroke does', async () => {
  // A macro chain: cheap to write, costly to expand.
  const chain = Array.from({ length: 14 }, (_, k) => `#define A${k + 1} A${k} A${k}`).join('\n');
  const src = `#define A0\n${chain}\n__global__ void k(int *out) { A14 out[threadIdx.x] = 1; }\n`;
  await openCuda(link(src, 'k<<<1, 32>>>(out)'));
  const first = await reads();
  assert.ok(first >= 1, `read ${first} times on opening`);
  const launch = await field('launch');
  await launch.click();
  await launch.sendKeys(Key.END, Key.BACK_SPACE, ')', Key.BACK_SPACE, ')');
  await s.driver.wait(async () => (await status()) === 'done', 10000);
  await launch.sendKeys(Key.HOME, Key.DELETE);
  await s.driver.wait(async () => (await status()) === 'failed', 10000);
  await launch.sendKeys('k');
  await s.driver.wait(async () => (await status()) === 'done', 10000);
  assert.equal(await reads(), first, 'launch keystrokes read nothing');
  const area = await field('src');
  await area.click();
  await area.sendKeys(Key.chord(Key.CONTROL, Key.END), '// x');
  await s.driver.wait(async () => (await status()) === 'done' && (await reads()) > first, 10000);
  assert.ok((await reads()) <= first + 4, 'at most one reading per source keystroke');
});

test('a launch copied from host code runs: sizeof, NULL, a stream and the statement\'s ;', async () => {
  const src = '__global__ void k(float *out, float *partial) {\n  extern __shared__ float s[];\n  s[threadIdx.x] = 1;\n  if (partial != NULL) partial[threadIdx.x] = s[threadIdx.x];\n  out[threadIdx.x] = 2;\n}\n';
  await openCuda(link(src, 'k<<<1, 32, 32 * sizeof(float), 0>>>(out, NULL);'));
  assert.deepEqual((await rows('.cuda-access')).map((r) => [r.line, r.kind, r.space]), [['3', 'store', 'shared'], ['5', 'store', 'global']]);
  const notes = await s.driver.executeScript("return [...document.querySelectorAll('[data-testid=\"cuda-note\"]')].map((n) => n.textContent)");
  assert.ok(notes.some((n) => n.startsWith("The launch's stream is set aside")), notes.join(' | '));
});

test('figures of the last valid cache say so while the cache field is in error', async () => {
  await openCuda('?tab=cuda');
  assert.equal(await s.driver.executeScript("return document.querySelector('[data-testid=\"cuda-results-of\"]')"), null);
  const cache = await s.driver.findElement(By.css('[data-testid="cuda-input-cache"]'));
  await cache.click();
  await s.driver.executeScript('arguments[0].select()', cache);
  await cache.sendKeys('0x100');
  const note = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-results-of"]')), 5000);
  assert.equal(await note.getAttribute('data-value'), 'earlier');
});

test('the panel says what coalescing is and leads to the primer by keyboard', async () => {
  await openCuda('?tab=cuda');
  const lead = await s.driver.findElement(By.css('#panel-cuda .lead')).getText();
  assert.match(lead, /coalesce/);
  assert.equal(await s.driver.findElement(By.css('label[for="cuda-preset"]')).getText(), 'Worked kernel');
  const primer = await s.driver.findElement(By.css('[data-testid="cuda-primer"]'));
  await s.driver.executeScript('arguments[0].focus()', primer);
  await primer.sendKeys(Key.ENTER);
  await s.driver.wait(async () => s.driver.executeScript("return document.querySelector('[data-testid=\"intro\"]')?.open === true"), 5000);
  const focused = await s.driver.executeScript("return document.activeElement.closest('[data-testid=\"intro\"]') !== null");
  assert.ok(focused, 'the focus is on the primer');
  assert.deepEqual(await axe(s.driver), []);
});

test('"Use this launch" leaves the focus in the launch, on the value still to give', async () => {
  await openCuda('?tab=cuda');
  await pasteInto(s.driver, 'src', '__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < numElements) C[i] = A[i] + B[i];\n}\n');
  await pasteInto(s.driver, 'launch', '');
  const use = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-use-proposal"]')), 10000);
  await s.driver.executeScript('arguments[0].focus()', use);
  await use.sendKeys(Key.ENTER);
  await s.driver.wait(() => s.driver.executeScript("return document.activeElement?.dataset.testid === 'input-launch'"), 5000);
  const selected = await s.driver.executeScript('const f = document.activeElement; return f.value.slice(f.selectionStart, f.selectionEnd)');
  assert.equal(selected, 'numElements');
  // Typing a value over it runs the launch.
  await s.driver.switchTo().activeElement().sendKeys('256');
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === '24', 10000);
});

test("on a phone the source view's code starts near the left, its line's figures under the number", async () => {
  await openCuda('?tab=cuda&cpreset=transpose-naive');
  const layout = () => s.driver.executeScript(`
    const row = document.querySelector('.cuda-source tr[data-line="12"]');
    const figures = row.querySelector('.phone-figures');
    return {
      code: row.querySelector('td.code').getBoundingClientRect().left,
      width: document.documentElement.clientWidth,
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      figures: getComputedStyle(figures).display === 'none' ? null : figures.innerText.replace(/\\s+/g, ' '),
      columns: [...document.querySelectorAll('.cuda-source thead th')].filter((h) => getComputedStyle(h).display !== 'none').length,
    };`);
  assert.deepEqual(await axe(s.driver), [], 'at 1280 px');
  try {
    await s.driver.manage().window().setRect({ width: 375, height: 800 });
    const phone = await layout();
    assert.ok(phone.width <= 375, `a phone's width: ${phone.width}`);
    // Only the line number's column stands before the code (it started at 263 px of 375 with
    // the three figure columns beside it).
    assert.ok(phone.code < phone.width * 0.3, `the code starts at ${phone.code} px of ${phone.width}`);
    assert.equal(phone.columns, 2);
    assert.equal(phone.overflow, 0, 'the page itself does not scroll sideways');
    assert.equal(phone.figures, 'sectors per request 4 · 32 excess sectors 917504');
    assert.deepEqual(await axe(s.driver), [], 'at 375 px');
    await s.driver.manage().window().setRect({ width: 1280, height: 900 });
    const wide = await layout();
    assert.equal(wide.figures, null, 'the figures stand in their columns on a wide screen');
    assert.equal(wide.columns, 5);
  } finally {
    await s.driver.manage().window().setRect({ width: 1280, height: 900 });
  }
});
