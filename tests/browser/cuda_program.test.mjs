// A whole program on the CUDA panel: a file with a main() pasted with real keystrokes runs
// with Run; the console holds what it prints (stdout and stderr in order) with its exit
// status; each launch has its row; picking one shows its figures; the link carries the pick
// and the arguments; Cancel stops a long program; a program the page cannot run says which
// line and why, and the launch field takes over again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { By, Key, until } from 'selenium-webdriver';
import { session } from './session.mjs';
import { openApp, pageErrors, axe } from './harness.mjs';
import { cudaLink, cudaPage, copyToClipboard as copyFor } from './cuda_page.mjs';

const s = session();
const copyToClipboard = (text) => copyFor(s, text);
const { inPanel, rows, openCuda } = cudaPage(s);
const byId = (testid) => s.driver.findElement(By.css(`[data-testid="${testid}"]`));
const consoleState = () => s.driver.executeScript("return document.querySelector('[data-testid=\"cuda-console\"]')?.dataset.state ?? null");
const consoleText = () => s.driver.executeScript("return document.querySelector('[data-testid=\"cuda-console\"]')?.textContent ?? null");
const ended = async (want = 'done', timeout = 60000) => s.driver.wait(async () => (await consoleState()) === want, timeout);
const param = async (name) => new URL(await s.driver.getCurrentUrl()).searchParams.get(name);

// Two kernels, three launches: scale twice over 1000 floats, then a stride-2 update; the
// program checks its result and prints on both streams.
const PROGRAM = `#include <cstdio>
#include <cstdlib>
__global__ void scale(float* a, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * k;
}
__global__ void stride2(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i < n) a[2 * i] += 1.0f;
}
int main(int argc, char** argv) {
  const int N = 1000;
  float* h = (float*)malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) h[i] = 1.0f;
  float* d;
  cudaMalloc(&d, N * sizeof(float));
  cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);
  for (int r = 0; r < 2; r++) {
    printf("launch %d\\n", r);
    scale<<<(N + 127) / 128, 128>>>(d, N, 2.0f);
  }
  stride2<<<(N + 255) / 256, 256>>>(d, N);
  cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
  fprintf(stderr, "h[0]=%.1f h[1]=%.1f argc=%d\\n", h[0], h[1], argc);
  if (argc > 1) printf("first argument: %s\\n", argv[1]);
  return h[1] == 4.0f ? 0 : 1;
}
`;


test('a pasted program runs with Run: its console, its exit status, a row per launch, and a launch picked', async () => {
  await openCuda('?tab=cuda');
  await copyToClipboard(PROGRAM);
  const area = byId('input-src');
  await area.click();
  await area.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.chord(Key.CONTROL, 'v'));
  const run = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-run"]')), 10000);
  // Arguments typed with real keystrokes.
  const argv = byId('cuda-argv');
  await argv.click();
  await argv.sendKeys('--check now');
  assert.equal(await argv.getAttribute('value'), '--check now', 'every key kept');
  await run.click();
  await ended();
  // 1000 ones doubled twice: 4; stride2 adds 1 to the even indices: h[0] = 5, h[1] = 4.
  assert.equal(await consoleText(), 'launch 0\nlaunch 1\nh[0]=5.0 h[1]=4.0 argc=3\nfirst argument: --check\n');
  assert.equal(await byId('cuda-console').getAttribute('data-exit-code'), '0');
  assert.equal((await rows('[data-testid="cuda-console"] .stderr')).length, 1, 'stderr marked');
  assert.match(await byId('cuda-program-end').getText(), /exited with status 0/);
  const launches = await rows('[data-testid="cuda-launch"]');
  assert.deepEqual(launches.map((l) => [l.index, l.kernel, l.line, l.grid, l.block, l.sharedBytes]), [
    ['0', 'scale', '20', '8,1,1', '128,1,1', '0'],
    ['1', 'scale', '20', '8,1,1', '128,1,1', '0'],
    ['2', 'stride2', '22', '4,1,1', '256,1,1', '0'],
  ]);
  // scale: 1000 lanes in 32 warps load and store 4000 bytes each way: 125 sectors each.
  assert.deepEqual([launches[0].requests, launches[0].sectors, launches[0].idealSectors], ['64', '250', '250']);
  // stride2: 500 lanes load and store every other float. A full warp's 32 floats at a stride
  // of 8 bytes span 256 bytes, 8 sectors; 500 lanes are 15 full warps and one of 20 lanes (5
  // sectors): (15 × 8 + 5) × 2 = 250 sectors in 16 × 2 = 32 requests.
  assert.deepEqual([launches[2].requests, launches[2].sectors], ['32', '250']);
  // All launches summed on show: 64 + 64 + 32 requests.
  assert.equal(await param('pick'), 'all');
  await s.driver.wait(async () => (await inPanel('k-requests')) === '160', 10000);
  assert.equal(await s.driver.findElement(By.id('cuda-results-title')).getText(), 'All launches');
  // Pick the third launch with the keyboard.
  const pick = byId('cuda-launch-pick');
  await pick.click();
  await pick.sendKeys(Key.END, Key.ENTER);
  await s.driver.wait(async () => (await inPanel('k-requests')) === '32', 10000);
  await s.driver.wait(async () => (await param('pick')) === '2', 5000);
  assert.equal(await byId('cuda-launch-pick').getAttribute('value'), '2');
  assert.deepEqual((await rows('[data-testid="cuda-launch"].picked')).map((l) => l.index), ['2']);
  assert.deepEqual((await rows('.cuda-access')).map((r) => [r.line, r.kind]), [['9', 'load'], ['9', 'store']]);
  assert.equal(await s.driver.findElement(By.id('cuda-results-title')).getText(), 'Launch 2');
  assert.equal(await param('argv'), '--check now');
  assert.equal((await rows('[data-testid="cuda-console"]')).length, 1, 'one console');
  assert.deepEqual(await axe(s.driver), []);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a link with pick runs the program at once, with its arguments, and shows that launch', async () => {
  await openApp(s.driver, s.site.url, `${cudaLink(PROGRAM)}&argv=x&pick=1`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-console"]')), 15000);
  await ended();
  assert.equal(await consoleText(), 'launch 0\nlaunch 1\nh[0]=5.0 h[1]=4.0 argc=2\nfirst argument: x\n');
  await s.driver.wait(async () => (await inPanel('k-requests')) === '64', 10000);
  assert.equal(await byId('cuda-launch-pick').getAttribute('value'), '1');
  // "Run one launch instead" leaves the program: the launch field's proposal is back.
  await byId('cuda-program-exit').click();
  await s.driver.wait(async () => (await param('pick')) === null, 5000);
  assert.equal((await rows('[data-testid="cuda-console"]')).length, 0);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-proposal"]')), 10000);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('Cancel stops a long program, and the page keeps working', async () => {
  const src = '#include <cstdio>\nint main() {\n  long s = 0;\n  for (long i = 0; i < 16000000; i++) s += i % 7;\n  printf("%ld\\n", s);\n  return 0;\n}\n';
  await openApp(s.driver, s.site.url, `${cudaLink(src)}&pick=all`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-program-cancel"]')), 15000);
  assert.equal(await consoleState(), 'running');
  await byId('cuda-program-cancel').click();
  await ended('failed', 5000);
  assert.match(await byId('cuda-program-end').getText(), /^Cancelled/);
  assert.equal((await rows('[data-testid="cuda-program-cancel"]')).length, 0);
  // The page still answers: Run again is offered.
  assert.equal(await byId('cuda-run').isEnabled(), true);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a program the page cannot run says which line and why', async () => {
  const src = '#include <cstdio>\n#include <cublas_v2.h>\nint main() {\n  printf("start\\n");\n  cublasHandle_t h;\n  cublasCreate(&h);\n  return 0;\n}\n';
  await openApp(s.driver, s.site.url, `${cudaLink(src)}&pick=all`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-console"]')), 15000);
  await ended('failed');
  const end = await byId('cuda-program-end').getText();
  assert.match(end, /^The program stopped: .*line [56]/, end);
  assert.equal(await byId('cuda-console').getAttribute('data-exit-code'), null);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('at 320 px the program fits the screen', async () => {
  await s.driver.manage().window().setRect({ width: 320, height: 800 });
  try {
    await openApp(s.driver, s.site.url, `${cudaLink(PROGRAM)}&pick=all`);
    await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-console"]')), 15000);
    await ended();
    const overflow = await s.driver.executeScript('return document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    assert.deepEqual(await axe(s.driver), []);
  } finally {
    await s.driver.manage().window().setRect({ width: 1280, height: 900 });
  }
});

test("a launch's load of device memory that nothing wrote is initcheck's finding, with its line and allocation", async () => {
  // 100 floats allocated, the first 40 copied: lanes 40..99 read bytes nothing wrote.
  const src = `#include <cstdlib>
__global__ void sum(float* out, const float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 1.0f;
}
int main() {
  float* h = (float*)calloc(100, sizeof(float));
  float *a, *out;
  cudaMalloc(&a, 100 * sizeof(float));
  cudaMalloc(&out, 100 * sizeof(float));
  cudaMemcpy(a, h, 40 * sizeof(float), cudaMemcpyHostToDevice);
  sum<<<2, 64>>>(out, a, 100);
  cudaDeviceSynchronize();
  return 0;
}
`;
  await openApp(s.driver, s.site.url, `${cudaLink(src)}&pick=0`);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-uninit"]')), 30000);
  const found = await rows('[data-testid="cuda-uninit"]');
  assert.deepEqual(found.map((u) => [u.line, u.array, u.index, u.thread, u.block, u.occurrences]), [['4', 'a', '40', '40,0,0', '0,0,0', '60']]);
  assert.equal(await byId('cuda-checks-summary').getText(), 'No race and no access out of bounds. 1 load reads device memory that no copy, memset or store has written (initcheck).');
  assert.equal(await byId('cuda-checks').getAttribute('data-uninit'), '1');
  assert.deepEqual(await axe(s.driver), []);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a whole-program preset picked from the list runs, and its link says so', async () => {
  await openCuda('?tab=cuda');
  const picker = byId('cuda-preset');
  await picker.click();
  await picker.sendKeys('Program: row');
  await picker.sendKeys(Key.ENTER);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-console"]')), 15000);
  await ended();
  assert.equal(await consoleText(), 'row sums correct\ncolumn sums correct\n');
  assert.equal(await byId('cuda-console').getAttribute('data-exit-code'), '0');
  // Row sums: 32 sectors a load; column sums: 4 (tests/cuda_program_presets.rs derives both).
  assert.deepEqual((await rows('[data-testid="cuda-launch"]')).map((l) => [l.kernel, l.sectors, l.idealSectors]), [
    ['row_sums', '65568', '8224'],
    ['column_sums', '8224', '8224'],
  ]);
  assert.match(await byId('cuda-lesson').getText(), /^The same sums two ways/);
  await s.driver.wait(async () => (await param('cpreset')) === 'program-rowcol' && (await param('pick')) === 'all', 5000);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test("a program fixed after a refusal runs, and the refusal goes", async () => {
  // `$` does not read: named beside the source; the program fixed by typing runs.
  await openApp(s.driver, s.site.url, `${cudaLink('#include <cstdio>\nint main() {\n  printf("ok\\n");\n  return $;\n}\n')}&pick=all`);
  const error = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-error"]')), 15000);
  assert.equal(await error.getAttribute('data-field'), 'src');
  assert.match(await error.getText(), /line 4/);
  const area = byId('input-src');
  await area.click();
  await area.sendKeys(Key.chord(Key.CONTROL, Key.END), Key.ARROW_UP, Key.ARROW_UP, Key.END, Key.BACK_SPACE, Key.BACK_SPACE, '0;');
  await s.driver.wait(async () => (await area.getAttribute('value')).includes('return 0;'), 5000);
  await s.driver.wait(async () => (await consoleState()) === 'done', 30000);
  assert.equal(await consoleText(), 'ok\n');
  assert.equal((await rows('[data-testid="cuda-error"]')).length, 0);
  assert.deepEqual(await pageErrors(s.driver), []);
});
