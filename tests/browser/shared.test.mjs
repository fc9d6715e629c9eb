// Shared memory in the calculator: the bank readouts, the bank map, the lane rows' banks,
// prediction, comparison and the CSV, against the release build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, typeIntoId, errors, pageErrors, valueOf, captureDownload, expectUrl, axe, scheme } from './harness.mjs';

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

const count = async (css) => (await driver.findElements(By.css(css))).length;
const text = (testid) => driver.findElement(By.css(`[data-testid="${testid}"]`)).getText();
const attr = (testid, name) => driver.findElement(By.css(`[data-testid="${testid}"]`)).getAttribute(name);
const laneAttrs = (name) =>
  driver.executeScript(
    `return [...document.querySelectorAll('[data-testid="lane-row"]')].map((r) => r.getAttribute(${JSON.stringify(name)}));`,
  );

test('the column of a 32×32 float tile: 32 wavefronts, 31 conflicts, every lane in bank 0', async () => {
  await openApp(driver, site.url, '?space=shared&idx=32*t');
  assert.equal(await valueOf(driver, 'wavefronts'), '32');
  assert.equal(await valueOf(driver, 'ideal-wavefronts'), '1');
  assert.equal(await valueOf(driver, 'bank-conflicts'), '31');
  // Sectors and lines give way to the bank figures.
  assert.equal(await count('[data-testid="sectors"]'), 0);
  assert.equal(await count('[data-testid="sector-map"]'), 0);
  assert.equal(await count('[data-testid="bank-map"]'), 1);
  assert.equal(await attr('bank-map-description', 'data-busiest-bank'), '0');
  assert.match(await text('bank-map-description'), /bank 0 delivers 32 distinct words to lanes 0–31 \(32-way conflict\)/);
  assert.deepEqual(await laneAttrs('data-bank'), Array(32).fill('0'));
  assert.deepEqual(await laneAttrs('data-conflicted'), Array(32).fill('true'));
  // The model is stated beside the map, with its source.
  assert.match(await text('bank-model'), /32 banks of 4 bytes.*CUDA C\+\+ Programming Guide, Compute Capability 5\.x, Shared Memory/);
  const steps = await text('derivation');
  assert.match(steps, /word\(t\) = ⌊A\(t\)\/4⌋, bank\(t\) = word\(t\) mod 32/);
  assert.match(steps, /bank conflicts = 32 − 1 = 31$/);
  // No DRAM traffic to hand to the Roofline lab, and the page says why.
  assert.equal(await attr('use-efficiency', 'disabled'), 'true');
  assert.match(await text('use-efficiency-why'), /Shared memory moves no DRAM bytes/);
  assert.deepEqual(await pageErrors(driver), []);
});

test('choosing shared memory in the form switches the figures and the link', async () => {
  await openApp(driver, site.url);
  assert.equal(await valueOf(driver, 'sectors'), '4');
  await driver.findElement(By.css('[data-testid="input-space"] option[value="shared"]')).click();
  // Example 1 in shared memory: 32 consecutive floats fill the 32 banks once.
  assert.equal(await valueOf(driver, 'wavefronts'), '1');
  assert.equal(await valueOf(driver, 'bank-conflicts'), '0');
  assert.deepEqual(await laneAttrs('data-bank'), [...Array(32).keys()].map(String));
  await expectUrl(driver, /space=shared/);
  // The sector and line fields say they are not used.
  assert.match(await driver.findElement(By.id('input-sector-hint')).getText(), /not used in shared memory/);
  // The padded preset from the picker: one wavefront.
  await driver.findElement(By.css('[data-testid="preset"] option[value="shared-tile-column-padded"]')).click();
  assert.equal(await valueOf(driver, 'wavefronts'), '1');
  assert.equal(await attr('bank-map-description', 'data-busiest-bank'), '0');
  assert.match(await text('bank-map-description'), /No bank delivers two distinct words/);
  await driver.findElement(By.css('[data-testid="input-space"] option[value="global"]')).click();
  assert.equal(await valueOf(driver, 'sectors'), '32');
  assert.equal(await count('[data-testid="bank-map"]'), 0);
});

test('a lane whose bytes span two words lists both banks', async () => {
  // float2 along a row: lane t covers words 2t and 2t+1; two groups of 16 lanes.
  await openApp(driver, site.url, '?space=shared&elem=8');
  assert.equal(await valueOf(driver, 'wavefronts'), '2');
  assert.equal(await valueOf(driver, 'ideal-wavefronts'), '2');
  const banks = await laneAttrs('data-bank');
  assert.equal(banks[0], '0,1');
  assert.equal(banks[15], '30,31');
  assert.equal(banks[16], '0,1');
  // A misaligned float at byte 2 spans words 0 and 1.
  await openApp(driver, site.url, '?space=shared&warp=2&addrs=2,-');
  assert.deepEqual(await laneAttrs('data-bank'), ['0,1', '']);
});

test('predicting in shared memory asks for wavefronts and judges them', async () => {
  await openApp(driver, site.url, '?predict=1&space=shared&idx=32*t');
  assert.match(await driver.findElement(By.css('label[for="predict-ntx"]')).getText(), /Predicted wavefronts/);
  assert.equal(await count('[data-testid="predict-efficiency"]'), 0);
  // The bank columns are the answer: withheld until Reveal.
  assert.deepEqual(await laneAttrs('data-bank'), Array(32).fill(''));
  await typeIntoId(driver, 'predict-ntx', '32');
  await driver.findElement(By.css('[data-testid="reveal"]')).click();
  assert.equal(
    await text('prediction-feedback'),
    'Right: the warp needs 32 wavefronts (31 of them bank conflicts).',
  );
  assert.equal(await valueOf(driver, 'bank-conflicts'), '31');
});

test('comparing the padded tile with the 32-wide one says how many more wavefronts', async () => {
  await openApp(driver, site.url, '?space=shared&idx=33*t&compare=1&b.space=shared&b.idx=32*t');
  assert.equal(
    await text('comparison'),
    'Scenario B needs 32× more wavefronts than scenario A (32 against 1), with 31 bank conflicts against 0.',
  );
  assert.equal(await valueOf(driver, 'a.wavefronts'), '1');
  assert.equal(await valueOf(driver, 'b.wavefronts'), '32');
  assert.equal(await count('[data-testid="a.bank-map"]'), 1);
  assert.equal(await count('[data-testid="b.bank-map"]'), 1);
  assert.equal(await count('[data-testid="input-b.space"]'), 1);
});

test('the lane table exports words, banks and conflicts in shared memory', async () => {
  await openApp(driver, site.url, '?space=shared&idx=2*t');
  const file = await captureDownload(driver, 'export-csv');
  assert.equal(file.name, 'coalescing-shared-stride-2.csv');
  const rows = file.text.trim().split('\r\n');
  assert.equal(rows[0], 'lane,active,address,address_hex,bytes,words,banks,conflicted');
  // Lane 16 reads word 32, bank 0, which lane 0 (word 0) shares: 2-way.
  assert.equal(rows[17], '16,true,128,0x80,4,32,0,true');
  assert.equal(rows.length, 33);
});

test('a bad space in a link names the field and falls back to global memory', async () => {
  await openApp(driver, site.url, '?space=local&idx=2*t');
  assert.match((await errors(driver)).space ?? '', /^space: must be global or shared, found 'local'/);
  assert.equal(await valueOf(driver, 'sectors'), '8');
  assert.deepEqual(await pageErrors(driver), []);
});

test('the bank map exports as SVG and PNG, and shared mode passes axe in light and dark', async () => {
  await openApp(driver, site.url, '?space=shared&idx=32*t');
  const svg = await captureDownload(driver, 'bank-map-svg');
  assert.equal(svg.name, 'coalescing-shared-tile-column-bank-map.svg');
  assert.match(svg.text, /^<svg/);
  assert.match(svg.text, /busiest: bank 0, 32 words \(32-way\)/);
  const png = await captureDownload(driver, 'bank-map-png', 'href');
  assert.equal(png.name, 'coalescing-shared-tile-column-bank-map.png');
  assert.match(png.href, /^data:image\/png;base64,/);
  for (const mode of ['light', 'dark']) {
    await scheme(driver, mode);
    assert.deepEqual(await axe(driver), [], mode);
  }
  await scheme(driver, 'light');
});

// Review finding L3: a short map sat above about 270 px of empty canvas. The canvas is now no
// taller than the map needs (its rows at their tallest, the legend right under them), and a
// map of many rows keeps the grid's full height.
test('the bank map is as tall as its rows need, with no empty band under the legend', async () => {
  const height = () => driver.executeScript("return document.querySelector('[data-testid=\"bank-map\"]').getBoundingClientRect().height");
  await openApp(driver, site.url, '?space=shared&idx=t');
  await driver.wait(async () => (await height()) > 0, 5000);
  // One row: 22 px of bank numbers, one 26 px row, 8 px, one or two 16 px legend rows, 6 px.
  const short = await height();
  assert.ok(short >= 78 && short <= 110, `one row: ${short} px`);
  await openApp(driver, site.url, '?space=shared&idx=32*t');
  await driver.wait(async () => (await height()) > 200, 5000);
  assert.ok((await height()) >= 280, 'thirty-two rows fill the grid shape');
  assert.deepEqual(await pageErrors(driver), []);
});
