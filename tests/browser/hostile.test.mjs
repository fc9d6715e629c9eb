// Regressions from the new-student and hostile-user report: each test names the finding it
// pins, and fails on the build the report was made against.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, Key, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, typeInto, typeIntoId, errors, pageErrors, valueOf, expectUrl, clickSettled } from './harness.mjs';

const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Host</title></head>
<body><iframe id="lab" src="/?v=1&amp;embed=1" width="100%" height="300" title="Coalescing Lab"></iframe>
<script>
  window.heights = [];
  addEventListener('message', (e) => { if (e.data && e.data.type === 'coalescing-lab:height') window.heights.push(e.data.height); });
</script></body></html>`;

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic(undefined, { '/__host.html': HOST });
  browser = await startBrowser();
  driver = browser.driver;
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

// Clicks, then waits for the panel on show to be built (panels load their code on first show).
const click = (testid) => clickSettled(driver, testid);
const count = async (css) => (await driver.findElements(By.css(css))).length;
const text = (testid) => driver.findElement(By.css(`[data-testid="${testid}"]`)).getText();
const attr = (testid, name) => driver.findElement(By.css(`[data-testid="${testid}"]`)).getAttribute(name);

test('a prediction verdict is retired when the scenario changes (finding 1)', async () => {
  await driver.get(`${site.url}/?predict=1&idx=t%3C16%20?%20t%20:%201000%2B64*(t-16)`);
  await driver.wait(until.elementLocated(By.css('[data-testid="reveal"]')), 15000);
  await typeIntoId(driver, 'predict-ntx', '18');
  await click('reveal');
  assert.equal(await text('prediction-feedback'), 'Right: the warp touches 18 sectors.');
  await typeInto(driver, 'idx', 't');
  // The results hide again and a new prediction is asked for: no verdict beside N_tx 4.
  assert.equal(await count('[data-testid="prediction-feedback"]'), 0);
  assert.equal(await count('[data-testid="sectors"]'), 0);
  assert.equal(await count('[data-testid="reveal"]'), 1);
});

test('a builder writes the whole scenario, its mask included (finding 2)', async () => {
  await openApp(driver, site.url);
  await driver.findElement(By.css('[data-testid="builders"] summary')).click();
  await driver.findElement(By.css('[data-testid="builder-kind"] option[value="matrix"]')).click();
  await driver.findElement(By.css('[data-testid="builder-traversal"] option[value="row"]')).click();
  await typeIntoId(driver, 'builder-col', '1000');
  await click('builder-apply');
  assert.equal(await driver.findElement(By.css('[data-testid="input-active"]')).getAttribute('value'), 't < 24');
  await driver.findElement(By.css('[data-testid="builder-kind"] option[value="strided"]')).click();
  await typeIntoId(driver, 'builder-stride', '1');
  await click('builder-apply');
  assert.equal(await valueOf(driver, 'active-lanes'), '32');
  assert.equal(await valueOf(driver, 'sectors'), '4');
});

test('a pending prediction keeps every answer back: comparison and CSV (findings 3, 4)', async () => {
  await driver.get(`${site.url}/?predict=1&compare=1&b.idx=2*t`);
  await driver.wait(until.elementLocated(By.css('[data-testid="reveal"]')), 15000);
  for (const id of ['a.sectors', 'b.sectors', 'a.efficiency', 'comparison', 'a.sector-map', 'b.ramp']) {
    assert.equal(await count(`[data-testid="${id}"]`), 0, `${id} is hidden`);
  }
  assert.match(await text('comparison-withheld'), /once you reveal your prediction/);
  assert.equal(await attr('export-csv', 'disabled'), 'true');
  assert.match(await text('export-csv-why'), /Available after Reveal/);
  await typeIntoId(driver, 'predict-ntx', '4');
  await click('reveal');
  assert.equal(await valueOf(driver, 'b.sectors'), '8');
  assert.equal(await attr('export-csv', 'disabled'), null);
});

test('a default that still fails keeps the valid fields and says which combination fails (finding 5)', async () => {
  await openApp(driver, site.url, '?warp=1&base=18446744073709551615&idx=0');
  assert.equal(await valueOf(driver, 'active-lanes'), '1', 'warp=1 is kept');
  const warnings = await Promise.all(
    (await driver.findElements(By.css('[data-testid="link-warning"]'))).map((w) => w.getText()),
  );
  assert.ok(warnings.some((w) => w.startsWith('`base=18446744073709551615` cannot be evaluated with warp=1 and idx=t')), warnings.join('\n'));
});

test('"Use this efficiency" is enabled only when both sides are valid, and says why (finding 6)', async () => {
  for (const [query, why] of [
    ['?idx=t/0', /Fix the calculator's field marked in red first/],
    ['?oi=1/64&idx=2*t', /would fall to 0.0078125 FLOP\/byte, below the lab's floor of 1\/64/],
    ['?oi=abc', /The Roofline lab's intensity 'abc' is not valid/],
  ]) {
    await openApp(driver, site.url, query);
    assert.equal(await attr('use-efficiency', 'disabled'), 'true', query);
    assert.match(await text('use-efficiency-why'), why, query);
  }
  // A valid hand-off opens the lab with its note, which retires when B changes (house-in-order bug).
  await openApp(driver, site.url, '?oi=2&idx=2*t');
  await click('use-efficiency');
  assert.equal(await text('lab-note'), '50 % useful bytes doubles the bytes moved, so intensity 2 → 1 FLOP/byte.');
  assert.deepEqual(await errors(driver), {});
  await typeIntoId(driver, 'bw-input', '80');
  assert.equal(await count('[data-testid="lab-note"]'), 0);
});

test('a long trail keeps its latest 64 points with a notice, and a bad entry only drops itself (findings 7, 8)', async () => {
  const long = Array.from({ length: 1000 }, (_, i) => `1:${i + 1}`).join(',');
  await driver.get(`${site.url}/?tab=roofline&trail=${long}`);
  await driver.wait(until.elementLocated(By.css('[data-testid="trail-row"]')), 15000);
  assert.equal(await count('[data-testid="trail-row"]'), 64);
  const notice = await driver.findElement(By.css('[data-testid="link-notice"]')).getText();
  assert.match(notice, /936 of the oldest were left out/);
  await openApp(driver, site.url, '?tab=roofline&trail=1/64:1:=1%2B1,3/7:1000/3:0.5,1024:100000');
  assert.equal(await count('[data-testid="trail-row"]'), 2);
  assert.deepEqual(await errors(driver), {
    trail: "trail: entry 1 ('1/64:1:=1+1') has a prediction that is not a number of GFLOP/s; it was left out.",
  });
});

test('Enter in the prediction field Steps; Reset keeps the run dimmed until cleared (learner findings)', async () => {
  await openApp(driver, site.url, '?tab=roofline&oi=2&bw=80');
  const field = await driver.findElement(By.css('[data-testid="prediction-input"]'));
  await field.sendKeys('160', Key.ENTER);
  assert.equal(await count('[data-testid="trail-row"]'), 1);
  assert.equal(await text('prediction-verdict'), 'You predicted 160 GFLOP/s: exactly right.');
  await click('reset');
  assert.equal(await count('[data-testid="trail-row"]'), 0);
  await expectUrl(driver, /prev=2:80:160/);
  await click('clear-previous');
  assert.equal(await count('[data-testid="clear-previous"]'), 0);
});

test('exact means equal, and the learner\'s number reads as typed (finding 9)', async () => {
  await openApp(driver, site.url, '?tab=roofline&oi=2&bw=80');
  await typeIntoId(driver, 'prediction-input', '160.0000000001');
  await click('step');
  const verdict = await text('prediction-verdict');
  assert.ok(verdict.startsWith('You predicted 160.0000000001 GFLOP/s:'), verdict);
  assert.ok(!verdict.includes('exactly right'), verdict);
  // The trail row's machine value has the readout's precision.
  await openApp(driver, site.url, '?tab=roofline&trail=1/7:1000');
  assert.equal(await driver.findElement(By.css('[data-testid="trail-row"]')).getAttribute('data-value'), await valueOf(driver, 'attainable'));
});

test('accessible names do not stutter, and each chart\'s buttons name their chart', async () => {
  await openApp(driver, site.url);
  const name = async (css) => driver.findElement(By.css(css)).getAccessibleName();
  assert.equal(await name('[data-testid="input-warp"]'), 'Lanes in the warp');
  assert.equal(await name('[data-testid="input-idx"]'), 'Element index idx(t)');
  assert.equal(await name('[data-testid="sector-map-png"]'), 'Download PNG (2×) of the sector map');
  assert.equal(await name('[data-testid="ramp-svg"]'), 'Download SVG of the address ramp');
  await openApp(driver, site.url, '?tab=roofline&oi=abc');
  assert.equal(
    await driver.findElement(By.css('[data-testid="oi-slider"]')).getAttribute('aria-valuetext'),
    '1 FLOP/byte; the typed intensity is not valid',
  );
});

test('thousands of unknown parameters make a short notice (finding: tall notice)', async () => {
  const junk = Array.from({ length: 400 }, (_, i) => `junk${i}=1`).join('&');
  await openApp(driver, site.url, `?${junk}`);
  assert.equal(await count('[data-testid="link-warning"]'), 6);
  const height = await driver.executeScript('return document.querySelector(\'[data-testid="link-notice"]\').offsetHeight');
  assert.ok(height < 400, `notice ${height} px tall`);
});

test('the embed posts a height only when it changes', async () => {
  await driver.get(`${site.url}/__host.html`);
  await driver.wait(async () => (await driver.executeScript('return window.heights.length')) > 0, 15000);
  await driver.sleep(300);
  const before = await driver.executeScript('return window.heights.length');
  await driver.switchTo().frame(driver.findElement(By.id('lab')));
  await typeInto(driver, 'base', '4');
  await typeInto(driver, 'base', '8');
  await driver.sleep(300);
  await driver.switchTo().defaultContent();
  const heights = await driver.executeScript('return window.heights');
  assert.ok(heights.length >= before);
  for (let i = 1; i < heights.length; i++) assert.notEqual(heights[i], heights[i - 1], `repeated: ${heights}`);
});

test('an edit is in the address bar at once, not 150 ms later', async () => {
  await openApp(driver, site.url);
  await typeInto(driver, 'base', '8');
  assert.match(await driver.executeScript('return location.search'), /base=8/);
  assert.deepEqual(await pageErrors(driver), []);
});

test('"memory-bound" stays on one line in its card, even at phone width', async () => {
  await openApp(driver, site.url, '?tab=roofline&trail=2:80');
  for (const width of [1280, 500]) {
    await driver.manage().window().setRect({ width, height: 900 });
    const lines = await driver.executeScript(`
      const dd = document.querySelector('[data-testid="bound"]');
      const range = document.createRange();
      range.selectNodeContents(dd);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;`);
    assert.equal(lines, 1, `one line at ${width} px`);
  }
  await driver.manage().window().setRect({ width: 1280, height: 900 });
  assert.equal(await valueOf(driver, 'bound'), 'memory');
});
