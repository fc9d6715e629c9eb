// The trace panel against the release build: a sample by link, a file by picking, the
// per-instruction rows, the hand-off to the calculator, Cancel on a big file, malformed lines,
// and no request leaving the page's origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, pageErrors, valueOf, foreignRequests, axe, expectUrl } from './harness.mjs';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
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

const status = () => driver.findElement(By.css('[data-testid="trace-status"]')).getAttribute('data-value');
const rows = () =>
  driver.executeScript(`return [...document.querySelectorAll('[data-testid="trace-instr"]')].map((r) => ({
    opcode: r.dataset.opcode, pc: r.dataset.pc, requests: r.dataset.requests, sectors: r.dataset.sectors,
    ideal: r.dataset.idealSectors, elem: r.dataset.elem, space: r.dataset.space, conflicts: r.dataset.bankConflicts }));`);

async function whenDone(timeout = 30000) {
  await driver.wait(async () => (await status().catch(() => null)) === 'done', timeout);
}

async function pick(path) {
  await driver.findElement(By.css('[data-testid="trace-file"]')).sendKeys(path);
}

test('a sample trace by link: the column write is where the waste is', async () => {
  await driver.get(`${site.url}/?tab=trace&trace=samples/synthetic-transpose-naive.nvbit.txt`);
  await driver.wait(until.elementLocated(By.css('[data-testid="trace-status"]')), 15000);
  await whenDone();
  // 4 blocks × 8 warps × 4 iterations = 128 executions of each instruction. The write's 32
  // lanes land in 32 rows: 32 sectors where 4 would carry its 128 bytes.
  assert.deepEqual(await rows(), [
    { opcode: 'STG.E', pc: '', requests: '128', sectors: '4096', ideal: '512', elem: '4', space: 'global', conflicts: '0' },
    { opcode: 'LDG.E', pc: '', requests: '128', sectors: '512', ideal: '512', elem: '4', space: 'global', conflicts: '0' },
  ]);
  assert.equal(await valueOf(driver, 'k-requests'), '256');
  assert.equal(await valueOf(driver, 'k-sectors'), '4608');
  assert.equal(await valueOf(driver, 'k-sectors-per-request'), '18');
  assert.match(await driver.findElement(By.css('[data-testid="trace-privacy"]')).getText(), /never leaves your machine/);
  assert.deepEqual(await foreignRequests(driver), []);
  assert.deepEqual(await pageErrors(driver), []);
});

test("an instruction's worst execution opens in the calculator", async () => {
  await driver.findElement(By.css('[data-testid="trace-open"]')).click();
  await driver.wait(async () => (await driver.findElements(By.css('[data-testid="sectors"]'))).length === 1, 5000);
  assert.equal(await valueOf(driver, 'sectors'), '32');
  assert.equal(await driver.findElement(By.css('[data-testid="input-elem"]')).getAttribute('value'), '4');
});

// `tformat` is typed once read (#24): the picker shows the link's format, and a pick writes
// the link's words back, or nothing for "detect".
test('the format override travels with the link and the picker writes it back', async () => {
  await driver.get(`${site.url}/?tab=trace&tformat=+accelsim+&trace=samples/synthetic-transpose-tiled.traceg`);
  await driver.wait(until.elementLocated(By.css('[data-testid="trace-format"]')), 15000);
  await whenDone();
  const format = () => driver.findElement(By.css('[data-testid="trace-format"]'));
  assert.equal(await format().getAttribute('value'), 'accelsim');
  await expectUrl(driver, /[?&]tformat=accelsim(&|$)/);
  await driver.executeScript(
    "const s = document.querySelector('[data-testid=\"trace-format\"]'); s.value = ''; s.dispatchEvent(new Event('change'));",
  );
  await expectUrl(driver, /^(?!.*tformat)/);
  await driver.executeScript(
    "const s = document.querySelector('[data-testid=\"trace-format\"]'); s.value = 'nvbit'; s.dispatchEvent(new Event('change'));",
  );
  await expectUrl(driver, /[?&]tformat=nvbit(&|$)/);
  assert.deepEqual(await pageErrors(driver), []);
});

test('a picked Accel-Sim file: PCs, every address mode, a malformed line named and skipped', async () => {
  await driver.get(`${site.url}/?tab=trace`);
  await driver.wait(until.elementLocated(By.css('[data-testid="trace-file"]')), 15000);
  await pick(join(FIXTURES, 'modes.traceg'));
  await whenDone();
  const got = await rows();
  assert.deepEqual(got.map((r) => [r.pc, r.sectors, r.ideal]), [['0x20', '4', '1'], ['0x30', '3', '2'], ['0x10', '4', '4'], ['0x40', '0', '0']]);
  const malformed = driver.findElement(By.css('[data-testid="trace-malformed"]'));
  assert.equal(await malformed.getAttribute('data-value'), '1');
  assert.match(await malformed.getText(), /line 29: address mode '7' is not 0, 1 or 2/);
  assert.deepEqual(await axe(driver), []);
});

test('changing an opcode\'s bytes per lane reads the file again with that width', async () => {
  await pick(join(FIXTURES, 'widths.nvbit.txt'));
  await whenDone();
  const before = (await rows()).find((r) => r.opcode === 'LDG.E.64');
  assert.equal(before.elem, '8');
  const select = await driver.findElement(By.css('[data-testid="trace-instr"][data-opcode="LDG.E.64"] [data-testid="trace-width"]'));
  await select.findElement(By.css('option[value="4"]')).click();
  await driver.wait(async () => (await rows()).find((r) => r.opcode === 'LDG.E.64')?.elem === '4', 10000);
  // The addresses stay 8 bytes apart, so 8 sectors; the ideal for 32 × 4 bytes is 4.
  const after = (await rows()).find((r) => r.opcode === 'LDG.E.64');
  assert.deepEqual([before.sectors, before.ideal, after.sectors, after.ideal], ['8', '8', '8', '4']);
});

test('Cancel stops a big file and the page keeps working', async () => {
  // About 250 MB: the sample repeated; far more than a second to read.
  const sample = readFileSync(resolve(import.meta.dirname, '../../public/samples/synthetic-transpose-naive.nvbit.txt'));
  const big = join(tmpdir(), `coalescing-big-${process.pid}.nvbit.txt`);
  writeFileSync(big, Buffer.concat(Array(1400).fill(sample)));
  try {
    await pick(big);
    await driver.wait(async () => (await status()) === 'reading', 10000);
    await driver.executeScript('document.querySelector(\'[data-testid="trace-cancel"]\').click()');
    assert.equal(await status(), 'cancelled');
    assert.equal(await driver.findElements(By.css('[data-testid="trace-progress"]')).then((e) => e.length), 0);
    // Still responsive: the calculator answers.
    await driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
    assert.equal(await valueOf(driver, 'sectors'), '4');
  } finally {
    rmSync(big);
  }
  assert.deepEqual(await pageErrors(driver), []);
});

test('a link to a trace on another site is refused with a notice', async () => {
  await driver.get(`${site.url}/?tab=trace&trace=https://example.org/t.txt`);
  await driver.wait(until.elementLocated(By.css('[data-testid="trace-status"]')), 15000);
  assert.equal(await status(), 'idle');
  const notice = await driver.findElement(By.css('[data-testid="link-notice"]')).getText();
  assert.match(notice, /`trace=https:\/\/example\.org\/t\.txt` is not a path on this site/);
  assert.deepEqual(await foreignRequests(driver), []);
});
