// A teaching file as published, main() and all: the panel proposes the file's own launch as
// written, which runs as typed because the launch field sees the file's #defines and
// constants; defines typed beside the source (as nvcc's -D) resize the program, say what they
// replaced, travel in the link, and a bad one is named in its own field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { By, Key, until } from 'selenium-webdriver';
import { session } from './session.mjs';
import { openApp, pageErrors, axe } from './harness.mjs';
import { cudaLink, cudaPage } from './cuda_page.mjs';

const s = session();
const { status, inPanel, rows, openCuda } = cudaPage(s);
const field = (param) => s.driver.findElement(By.css(`[data-testid="input-${param}"]`));
const notes = () => s.driver.executeScript("return [...document.querySelectorAll('[data-testid=\"cuda-note\"]')].map((n) => n.textContent)");

// A vector add in the shape of the course's first exercise: sizes as file-scope constants, the
// launch in main() computed from them.
const FILE = `#include <stdio.h>
const int DSIZE = 4096;
const int block_size = 256;
__global__ void vadd(const float *A, const float *B, float *C, int ds) {
  int idx = threadIdx.x + blockDim.x * blockIdx.x;
  if (idx < ds) C[idx] = A[idx] + B[idx];
}
int main() {
  float *d_A, *d_B, *d_C;
  cudaMalloc(&d_A, DSIZE * sizeof(float));
  vadd<<<(DSIZE + block_size - 1) / block_size, block_size>>>(d_A, d_B, d_C, DSIZE);
  return 0;
}
`;
const WRITTEN = 'vadd<<<(DSIZE + block_size - 1) / block_size, block_size>>>(d_A, d_B, d_C, DSIZE);';

test("the file's own launch is proposed as written and runs as typed", async () => {
  await openApp(s.driver, s.site.url, cudaLink(FILE));
  const proposal = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-proposal"]')), 10000);
  assert.equal(await proposal.getAttribute('data-launch'), WRITTEN);
  assert.equal(await proposal.getAttribute('data-missing'), '');
  assert.match(await proposal.getText(), /The file's first launch, at line 11:/);
  const use = await s.driver.findElement(By.css('[data-testid="cuda-use-proposal"]'));
  await s.driver.executeScript('arguments[0].focus()', use);
  await use.sendKeys(Key.ENTER);
  // 16 blocks of 8 warps, each a load of A, of B and a store of C.
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === '384', 15000);
  assert.equal(await field('launch').getAttribute('value'), WRITTEN);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('defines typed beside the source resize it, say what they replaced and travel in the link', async () => {
  await openCuda(cudaLink(FILE, WRITTEN));
  assert.equal(await inPanel('k-requests'), '384');
  const defines = await field('defines');
  await defines.click();
  await defines.sendKeys('DSIZE=1000');
  // 1000 threads: 31 full warps and one of 8 lanes, three accesses each.
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === '96', 15000);
  assert.equal(await defines.getAttribute('value'), 'DSIZE=1000', 'every key kept');
  assert.ok(
    (await notes()).includes('Defines: DSIZE=1000 replaced the initialiser of the constant DSIZE, line 2.'),
    (await notes()).join('\n'),
  );
  await s.driver.wait(async () => new URL(await s.driver.getCurrentUrl()).searchParams.get('defines') === 'DSIZE=1000', 5000);
  // The link opens to the same figures.
  const url = await s.driver.getCurrentUrl();
  await openCuda(url.slice(url.indexOf('?')));
  assert.equal(await inPanel('k-requests'), '96');
  assert.equal(await field('defines').getAttribute('value'), 'DSIZE=1000');
});

test('a define that does not read is named in its field, and the page keeps working', async () => {
  await openCuda(`${cudaLink(FILE, WRITTEN)}&defines=${encodeURIComponent('N=')}`, 'failed');
  const error = await s.driver.findElement(By.css('[data-testid="cuda-error"]'));
  assert.equal(await error.getAttribute('data-field'), 'defines');
  assert.equal(await error.getText(), 'defines: N= has no value: write N=VALUE, or N alone for 1');
  assert.equal(await field('defines').getAttribute('aria-invalid'), 'true');
  const defines = await field('defines');
  await defines.click();
  await defines.sendKeys('64');
  await s.driver.wait(async () => (await status()) === 'done', 15000);
  assert.equal((await rows('[data-testid="cuda-error"]')).length, 0);
  assert.deepEqual(await axe(s.driver), []);
  assert.deepEqual(await pageErrors(s.driver), []);
});

// A histogram: the bin each thread adds to is a value it loads. With no data in the launch,
// that value is unknown and the run stops at the atomic; typed with data, it runs.
const HIST = `#define BINS 16
__global__ void hist(const int *data, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i] % BINS], 1);
}
`;

test('data typed into the launch runs a histogram whose bins depend on it', async () => {
  await openCuda(cudaLink(HIST, 'hist<<<4, 64>>>(data, bins, 256)'), 'failed');
  const error = await s.driver.findElement(By.css('[data-testid="cuda-error"]'));
  assert.match(await error.getText(), /the address depends on the value loaded at line 4, which this model does not know/);
  const launch = await field('launch');
  await launch.click();
  await launch.sendKeys(Key.chord(Key.CONTROL, 'a'), 'hist<<<4, 64>>>(data[256]=rand(1), bins[16]=zero, 256)');
  // 8 warps: a load of data and an atomic on bins each.
  await s.driver.wait(async () => (await status()) === 'done' && (await inPanel('k-requests')) === '16', 15000);
  assert.equal(await launch.getAttribute('value'), 'hist<<<4, 64>>>(data[256]=rand(1), bins[16]=zero, 256)', 'every key kept');
  assert.equal((await rows('[data-testid="cuda-error"]')).length, 0);
  assert.deepEqual((await rows('.cuda-access')).map((r) => [r.line, r.kind]), [['4', 'load'], ['4', 'atomic']]);
  // The link carries the data.
  await s.driver.wait(async () => (new URL(await s.driver.getCurrentUrl()).searchParams.get('launch') || '').includes('=rand(1)'), 5000);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test("what the kernel's printf prints is shown in order, and a value it does not know is a ?", async () => {
  const src = '__global__ void hello(const float *v) {\n  if (threadIdx.x % 32 == 0) printf("warp %d: %.1f\\n", threadIdx.x / 32, v[threadIdx.x]);\n}\n';
  await openCuda(cudaLink(src, 'hello<<<1, 96>>>(v[96]=iota)'));
  const consoleText = async () => s.driver.findElement(By.css('[data-testid="cuda-console"]')).getText();
  assert.equal(await consoleText(), 'warp 0: 0.0\nwarp 1: 32.0\nwarp 2: 64.0');
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-console"]')).getAttribute('data-state'), 'done');
  // Without data the loaded value is unknown: a ?, and a note says why.
  const launch = await field('launch');
  await launch.click();
  await launch.sendKeys(Key.END, Key.BACK_SPACE, Key.BACK_SPACE, Key.BACK_SPACE, Key.BACK_SPACE, Key.BACK_SPACE,
    Key.BACK_SPACE, Key.BACK_SPACE, Key.BACK_SPACE, Key.BACK_SPACE, Key.BACK_SPACE, ')');
  await s.driver.wait(async () => (await launch.getAttribute('value')) === 'hello<<<1, 96>>>(v)', 5000);
  await s.driver.wait(async () => (await status()) === 'done' && (await consoleText()) === 'warp 0: ?\nwarp 1: ?\nwarp 2: ?', 15000);
  assert.ok((await notes()).some((n) => n.startsWith('printf: a ? stands for a value this model does not know')), (await notes()).join('\n'));
  assert.deepEqual(await axe(s.driver), []);
  assert.deepEqual(await pageErrors(s.driver), []);
});
