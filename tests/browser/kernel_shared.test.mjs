// The kernel view with shared memory: the tiled transpose and its padded tile against the naive
// one, statement by statement and side by side, barriers, and a barrier that only part of a
// block reaches. Against the release build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, errors, pageErrors, valueOf, expectUrl } from './harness.mjs';

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic();
  browser = await startBrowser();
  driver = browser.driver;
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

const status = () => driver.findElement(By.css('[data-testid="kernel-status"]')).getAttribute('data-value');
const count = async (css) => (await driver.findElements(By.css(css))).length;

async function whenDone(timeout = 60000) {
  // Right after a navigation the panel may not be built yet: keep polling until it is.
  await driver.wait(async () => (await status().catch(() => null)) === 'done', timeout);
}

async function pick(testid, value) {
  await driver.findElement(By.css(`[data-testid="${testid}"] option[value="${value}"]`)).click();
}

/** Statement rows: number, kind label, requests, sectors, wavefronts, conflicts, barriers. */
async function statementRows() {
  return driver.executeScript(`
    return [...document.querySelectorAll('[data-testid="kernel-stmt"]')].map((r) => [
      r.dataset.stmt, r.dataset.space, r.dataset.requests, r.dataset.sectors,
      r.dataset.wavefronts, r.dataset.bankConflicts, r.dataset.barriers]);`);
}

test('the tiled transpose: 4 sectors a request both ways, a 32-way conflicted tile read, one barrier per block', async () => {
  await driver.get(`${site.url}/?tab=kernel`);
  await driver.wait(until.elementLocated(By.css('[data-testid="kernel-preset"]')), 15000);
  await pick('kernel-preset', 'transpose-tiled');
  await whenDone();
  assert.deepEqual(await statementRows(), [
    ['1', 'global', '524288', '2097152', '0', '0', '0'],
    ['2', 'shared', '524288', '0', '524288', '0', '0'],
    ['3', '', '0', '0', '0', '0', '16384'],
    ['4', 'shared', '524288', '0', '16777216', '16252928', '0'],
    ['5', 'global', '524288', '2097152', '0', '0', '0'],
  ]);
  assert.equal(await valueOf(driver, 'k-sectors-per-request'), '4');
  assert.equal(await valueOf(driver, 'k-wavefronts'), '17301504');
  assert.equal(await valueOf(driver, 'k-bank-conflicts'), '16252928');
  assert.equal(await valueOf(driver, 'k-barriers'), '16384');
  assert.equal(await valueOf(driver, 'k-dram-bytes'), String(128 << 20));
  assert.match(await driver.findElement(By.css('[data-testid="kernel-bank-model"]')).getText(), /^Model: 32 banks of 4 bytes/);
  await expectUrl(driver, /a3\.kind=sync/);
  // The barrier's form asks only for its condition and name.
  assert.equal(await count('[data-testid="input-a3.idx"]'), 0);
  assert.equal(await driver.findElement(By.css('[data-testid="input-a3.active"]')).getAttribute('value'), 'i == 3');
  assert.deepEqual(await pageErrors(driver), []);
});

test('side by side with the naive transpose and the padded tile', async () => {
  await pick('kernel-compare', 'transpose-naive');
  await driver.wait(async () => (await driver.findElement(By.css('[data-testid="kernel-comparison"]')).getText()) !== '', 60000);
  // A is the tiled transpose; B the naive one: the write's 32 sectors a request.
  assert.equal(
    await driver.findElement(By.css('[data-testid="kernel-comparison"]')).getText(),
    'Kernel B moves 4.5× more request-level sectors than kernel A (18874368 against 4194304) and the same DRAM bytes (128 MiB); ' +
      'fewer shared wavefronts (0 against 17301504), with 0 bank conflicts against 16252928; 0 barriers against 16384.',
  );
  assert.equal(await valueOf(driver, 'b.k-sectors-per-request'), '18');
  assert.equal(await valueOf(driver, 'a.k-barriers'), '16384');
  await expectUrl(driver, /kcompare=transpose-naive/);
  // Now the padded tile as A: no conflicts left, the same global traffic.
  await pick('kernel-preset', 'transpose-tiled-padded');
  await whenDone();
  assert.equal(await valueOf(driver, 'k-bank-conflicts'), '0');
  assert.equal(await valueOf(driver, 'k-wavefronts'), '1048576');
  assert.equal(await valueOf(driver, 'a.k-bank-conflicts'), '0');
  await pick('kernel-compare', 'transpose-tiled');
  await driver.wait(async () => /16252928 bank conflicts against 0/.test(await driver.findElement(By.css('[data-testid="kernel-comparison"]')).getText()), 60000);
  assert.match(
    await driver.findElement(By.css('[data-testid="kernel-comparison"]')).getText(),
    /^Kernel B moves the same request-level sectors as kernel A \(4194304\) and the same DRAM bytes \(128 MiB\); 16\.5× more shared wavefronts \(17301504 against 1048576\), with 16252928 bank conflicts against 0; 16384 barriers against 16384\.$/,
  );
  assert.deepEqual(await pageErrors(driver), []);
});

test('a barrier reached by half a warp stops the run and names the thread on its field', async () => {
  await driver.get(`${site.url}/?tab=kernel&a1.idx=threadIdx.x&a2.kind=sync&a2.active=threadIdx.x%3C16`);
  await driver.wait(async () => (await errors(driver).catch(() => ({})))['a2.active'] !== undefined, 15000);
  assert.equal(
    (await errors(driver))['a2.active'],
    'a2.active: block (0,0,0) thread (16,0,0): does not reach __syncthreads() when thread (0,0,0) does; every thread of a block must reach a barrier, or none',
  );
  assert.deepEqual(await pageErrors(driver), []);
});

test('a shared statement by link: a warp opens in the calculator in shared memory', async () => {
  await driver.get(`${site.url}/?tab=kernel&a1.space=shared&a1.idx=threadIdx.x*32`);
  await whenDone();
  assert.equal(await valueOf(driver, 'k-wavefronts'), '32');
  assert.equal(await valueOf(driver, 'k-bank-conflicts'), '31');
  assert.equal(await valueOf(driver, 'k-sectors'), '0');
  const row = driver.findElement(By.css('[data-testid="kernel-warp"]'));
  assert.equal(await row.getAttribute('data-wavefronts'), '32');
  await driver.findElement(By.css('[data-testid="kernel-warp-open"]')).click();
  await driver.wait(async () => (await count('[data-testid="wavefronts"]')) === 1, 5000);
  assert.equal(await valueOf(driver, 'wavefronts'), '32');
  assert.equal(await valueOf(driver, 'bank-conflicts'), '31');
});
