// Several files on the CUDA panel: a source whose #include "utils.cuh" no file answers says
// how to give it; a header added and typed with real keystrokes is read in its place; the
// program runs; the source view shows the header's lines under its name with their own
// numbers; the link carries the header; several files picked at once become the source and
// its headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { By, Key, until } from 'selenium-webdriver';
import { session } from './session.mjs';
import { pageErrors, axe } from './harness.mjs';
import { cudaPage, copyToClipboard as copyFor } from './cuda_page.mjs';

const s = session();
const copyToClipboard = (text) => copyFor(s, text);
const { rows, openCuda } = cudaPage(s);
const byId = (testid) => s.driver.findElement(By.css(`[data-testid="${testid}"]`));
const consoleState = () => s.driver.executeScript("return document.querySelector('[data-testid=\"cuda-console\"]')?.dataset.state ?? null");
const consoleText = () => s.driver.executeScript("return document.querySelector('[data-testid=\"cuda-console\"]')?.textContent ?? null");
const ended = async (want = 'done', timeout = 60000) => s.driver.wait(async () => (await consoleState()) === want, timeout);

// The header's loads are strided by 2: 8 sectors per request on its line 5.
const UTILS = `#pragma once
#define BLOCK 64
__device__ void load(float* tile, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = in[i * 2];
}
`;

const MAIN = `#include <cstdio>
#include "utils.cuh"
__global__ void k(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK];
  load(tile, in, n);
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tile[threadIdx.x];
}
int main() {
  float h[256];
  for (int i = 0; i < 256; i++) h[i] = i;
  float *d_in, *d_out;
  cudaMalloc(&d_in, 256 * sizeof(float));
  cudaMalloc(&d_out, 128 * sizeof(float));
  cudaMemcpy(d_in, h, 256 * sizeof(float), cudaMemcpyHostToDevice);
  k<<<128 / BLOCK, BLOCK>>>(d_out, d_in, 128);
  cudaMemcpy(h, d_out, 128 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%g %g\\n", h[1], h[127]);
  return 0;
}
`;

/** Runs the program on the panel and waits for its end. */
async function runProgram(want = 'done') {
  const run = await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-run"]')), 10000);
  await run.click();
  await ended(want);
}

test('a header added and typed beside the source is read in its place, and the link keeps it', async () => {
  await openCuda('?tab=cuda');
  await copyToClipboard(MAIN);
  const area = byId('input-src');
  await area.click();
  await area.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.chord(Key.CONTROL, 'v'));
  // No header yet: BLOCK is not declared, and the message says how to give it.
  await runProgram('failed');
  assert.match(await byId('cuda-program-end').getText(), /'BLOCK' is not declared here; .*under Headers on the page/);
  // Add a header: the focus is on its path, which is typed over with real keystrokes.
  await byId('cuda-header-add').click();
  await s.driver.wait(async () => (await s.driver.switchTo().activeElement().getAttribute('data-testid')) === 'cuda-header-path', 5000);
  const pathField = s.driver.switchTo().activeElement();
  await pathField.sendKeys(Key.chord(Key.CONTROL, 'a'), 'utils.cuh');
  assert.equal(await pathField.getAttribute('value'), 'utils.cuh');
  const text = byId('cuda-header-text');
  await text.click();
  await text.sendKeys(UTILS);
  assert.equal(await text.getAttribute('value'), UTILS, 'every key kept');
  await runProgram();
  assert.equal(await consoleText(), '2 254\n');
  assert.equal(await byId('cuda-console').getAttribute('data-exit-code'), '0');
  // The source view: the source, then the header under its path, its lines numbered as its own.
  await s.driver.wait(async () => (await rows('[data-testid="cuda-source-file"]')).length === 1, 15000);
  assert.deepEqual((await rows('[data-testid="cuda-source-file"]')).map((r) => r.file), ['utils.cuh']);
  const lines = await rows('tr.cuda-line');
  const inHeader = lines.filter((l) => l.file === 'utils.cuh');
  assert.deepEqual(inHeader.map((l) => [l.line, l.requests, l.sectors]), [['5', '8', '32']]);
  assert.ok(lines.some((l) => l.file === undefined && l.line === '8'), 'the source\'s own line 8');
  const sites = await rows('[data-testid="cuda-access"]');
  assert.ok(sites.some((r) => r.file === 'utils.cuh' && r.line === '5' && r.kind === 'load'));
  // The link carries the header, and opens with it.
  const link = await s.driver.getCurrentUrl();
  assert.ok(new URL(link).searchParams.get('hdrz'), link);
  await s.driver.get(link);
  await ended();
  assert.equal(await consoleText(), '2 254\n');
  assert.equal(await byId('cuda-header-path').getAttribute('value'), 'utils.cuh');
  assert.equal(await byId('cuda-header-text').getAttribute('value'), UTILS);
  assert.deepEqual(await axe(s.driver), []);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('several files picked at once: the one with main() is the source, the others its headers; Remove takes one away', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda-headers-'));
  const files = [['utils.cuh', UTILS], ['main.cu', MAIN]].map(([name, text]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  });
  await openCuda('?tab=cuda');
  await byId('cuda-file').sendKeys(files.join('\n'));
  await s.driver.wait(async () => (await byId('input-src').getAttribute('value')) === MAIN, 10000);
  assert.equal(await byId('cuda-header-path').getAttribute('value'), 'utils.cuh');
  assert.match(await byId('cuda-file-read').getText(), /utils\.cuh .*main\.cu/);
  await runProgram();
  assert.equal(await consoleText(), '2 254\n');
  await byId('cuda-header-remove').click();
  assert.equal((await s.driver.findElements(By.css('[data-testid="cuda-header"]'))).length, 0);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(await pageErrors(s.driver), []);
});
