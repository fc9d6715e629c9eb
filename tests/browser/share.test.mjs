// Sharing in real headless Chromium: bad-link notices, Copy link, the Embed snippet, an
// embedded page in a host's iframe, history behaviour and the exports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, typeInto, typeIntoId, errors, pageErrors, valueOf, captureDownload as capture, clickSettled } from './harness.mjs';

// A course page that embeds the app and records the height messages it receives.
const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Course host</title></head>
<body><h1>Week 3: coalescing</h1>
<iframe id="lab" src="/?v=1&amp;embed=1&amp;base=8" width="100%" height="300" title="Coalescing Lab" loading="lazy"></iframe>
<script>
  window.heights = [];
  window.others = [];
  addEventListener('message', (e) => {
    if (e.data && e.data.type === 'coalescing-lab:height') window.heights.push(e.data.height);
    else window.others.push(e.data);
  });
</script></body></html>`;

// The same app in a phone-width iframe.
const NARROW = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Narrow host</title></head>
<body style="margin:0"><iframe id="lab" src="/?v=1&amp;embed=1&amp;tab=roofline&amp;trail=2:80" width="320" height="600" title="Coalescing Lab"></iframe>
<iframe id="calc" src="/?v=1&amp;embed=1&amp;idx=0" width="320" height="600" title="Coalescing Lab"></iframe></body></html>`;

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic(undefined, { '/__host.html': HOST, '/__narrow.html': NARROW });
  browser = await startBrowser();
  driver = browser.driver;
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

// Clicks, then waits for the panel on show to be built (panels load their code on first show).
const click = (testid) => clickSettled(driver, testid);
const captureDownload = (testid, as) => capture(driver, testid, as);

test('a bad link lists every problem, keeps what was valid, and can be dismissed', async () => {
  await openApp(driver, site.url, '?elem=3&idx=2*t&zoom=2&v=9');
  const items = await driver.findElements(By.css('[data-testid="link-warning"]'));
  const texts = await Promise.all(items.map((i) => i.getText()));
  assert.deepEqual(texts, [
    '`v=9`: this link comes from a newer Coalescing Lab; it was read as version 1, so some settings may be missing.',
    '`zoom` is not a Coalescing Lab parameter; it was ignored.',
    "`elem=3` must be 1, 2, 4, 8 or 16 bytes, found '3'; using 4.",
  ]);
  assert.equal(await valueOf(driver, 'sectors'), '8', 'idx=2*t kept, elem at its default');
  assert.deepEqual(Object.keys(await errors(driver)), ['elem'], 'the field shows its error too');
  await click('dismiss-notice');
  assert.equal((await driver.findElements(By.css('[data-testid="link-notice"]'))).length, 0);
  await typeInto(driver, 'elem', '8');
  assert.equal(await valueOf(driver, 'sectors'), '16');
  assert.deepEqual(await pageErrors(driver), []);
});

test('a good link shows no notice', async () => {
  await openApp(driver, site.url, '?v=1&base=8');
  assert.equal((await driver.findElements(By.css('[data-testid="link-notice"]'))).length, 0);
});

test('Copy link copies the short canonical permalink and says so', async () => {
  await driver.sendDevToolsCommand('Browser.grantPermissions', {
    permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'],
  });
  await openApp(driver, site.url, '?sector=32&base=8&line=128');
  const expected = `${site.url}/?v=1&base=8`;
  assert.equal(await driver.findElement(By.css('[data-testid="permalink"]')).getAttribute('value'), expected);
  await click('copy-link');
  const status = await driver.findElement(By.css('[data-testid="share-status"]'));
  await driver.wait(until.elementTextIs(status, 'Link copied to the clipboard.'), 3000);
  const copied = await driver.executeAsyncScript(
    'const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, () => done(null));',
  );
  assert.equal(copied, expected);
});

test('the Embed button gives an iframe snippet for the current state', async () => {
  await openApp(driver, site.url, '?base=8');
  await click('embed');
  const snippet = await driver.findElement(By.css('[data-testid="embed-snippet"]')).getAttribute('value');
  assert.equal(
    snippet,
    `<iframe src="${site.url}/?v=1&amp;embed=1&amp;base=8" width="100%" height="900" ` +
      'title="Coalescing Lab: sector calculator" loading="lazy" style="border:0"></iframe>',
  );
});

test('embedded in a host page: it posts its height, leaves host history alone, and works', async () => {
  await driver.get(`${site.url}/__host.html`);
  const historyBefore = await driver.executeScript('return history.length');
  const frame = await driver.findElement(By.id('lab'));
  await driver.switchTo().frame(frame);
  await driver.wait(until.elementLocated(By.css('[data-testid="sectors"]')), 15000);
  assert.equal(await valueOf(driver, 'sectors'), '5', 'the embedded Ex2 scenario');
  assert.equal((await driver.findElements(By.css('header.site, footer.site, [role="tablist"]'))).length, 0, 'no site chrome');
  const full = await driver.findElement(By.css('[data-testid="open-full-page"]')).getAttribute('href');
  assert.equal(full, `${site.url}/?v=1&base=8`);
  await typeInto(driver, 'idx', '2*t');
  await typeInto(driver, 'warp', '64');
  assert.equal(await valueOf(driver, 'sectors'), '17', '64 lanes, stride 2, from byte 8');
  await driver.switchTo().defaultContent();
  await driver.wait(async () => (await driver.executeScript('return window.heights.length')) > 0, 5000);
  const first = await driver.executeScript('return window.heights');
  assert.ok(first.length > 0, 'the embed posted its height');
  assert.ok(first.every((h) => typeof h === 'number' && h > 300), `heights: ${first}`);
  // One lane makes the lane table, and so the page, shorter: a new height is posted.
  await driver.switchTo().frame(await driver.findElement(By.id('lab')));
  await typeInto(driver, 'warp', '1');
  await driver.switchTo().defaultContent();
  await driver.wait(async () => (await driver.executeScript('return window.heights.length')) > first.length, 5000);
  const last = await driver.executeScript('return window.heights[window.heights.length - 1]');
  assert.ok(last < Math.max(...first), `the page shrank: ${first} → ${last}`);
  assert.equal(await driver.executeScript('return history.length'), historyBefore, 'host history unchanged');
  assert.deepEqual(await driver.executeScript('return window.others'), [], 'only height messages are posted');
  // Messages sent to the app are ignored: it keeps working and posts nothing else.
  await driver.executeScript(`
    const w = document.getElementById('lab').contentWindow;
    w.postMessage({ type: 'coalescing-lab:height', height: 1 }, '*');
    w.postMessage('<img src=x onerror=alert(1)>', '*');`);
  await driver.switchTo().frame(await driver.findElement(By.id('lab')));
  await typeInto(driver, 'warp', '32');
  assert.equal(await valueOf(driver, 'sectors'), '9');
  assert.deepEqual(await pageErrors(driver), []);
  await driver.switchTo().defaultContent();
  assert.deepEqual(await driver.executeScript('return window.others'), []);
});

test('at the top level a tab switch is a history entry that Back undoes', async () => {
  await openApp(driver, site.url, '?base=8');
  const before = await driver.executeScript('return history.length');
  await click('tab-roofline');
  assert.equal(await driver.executeScript('return history.length'), before + 1);
  await typeIntoId(driver, 'bw-input', '80');
  assert.equal(await driver.executeScript('return history.length'), before + 1);
  await driver.navigate().back();
  await driver.wait(async () => driver.findElement(By.id('panel-calculator')).isDisplayed(), 3000);
  assert.equal(await valueOf(driver, 'sectors'), '5');
});

test('the lane table exports as CSV that a spreadsheet reader accepts', async () => {
  await openApp(driver, site.url, '?base=8');
  const file = await captureDownload('export-csv');
  assert.equal(file.name, 'coalescing-ex2-misaligned.csv');
  const rows = JSON.parse(
    execFileSync('python3', ['-c', 'import csv,sys,json; print(json.dumps(list(csv.reader(sys.stdin))))'], {
      input: file.text,
    }).toString(),
  );
  assert.deepEqual(rows[0], ['lane', 'active', 'address', 'address_hex', 'bytes', 'sectors', 'lines']);
  assert.equal(rows.length, 33);
  assert.deepEqual(rows[6], ['5', 'true', '28', '0x1c', '4', '0', '0']);
  assert.deepEqual(rows[32], ['31', 'true', '132', '0x84', '4', '4', '1']);
});

test('the roofline chart exports as a 2× PNG and as an SVG that Chromium opens', async () => {
  await openApp(driver, site.url, '?tab=roofline&bw=80&trail=2:80');
  const css = await driver.executeScript(
    'const c = document.querySelector(\'[data-testid="roofline-chart"]\'); return [c.clientWidth, c.clientHeight];',
  );
  const png = await captureDownload('roofline-chart-png', 'href');
  assert.equal(png.name, 'coalescing-roofline.png');
  assert.match(png.href, /^data:image\/png;base64,/);
  const bytes = Buffer.from(png.href.split(',')[1], 'base64');
  assert.equal(bytes.readUInt32BE(16), Math.round(Math.max(css[0], 320) * 2), 'PNG width is 2× the CSS width');
  const svg = await captureDownload('roofline-chart-svg');
  assert.equal(svg.name, 'coalescing-roofline.svg');
  assert.match(svg.text, /^<svg /);
  assert.match(svg.text, /ridge 12\.5 FLOP\/byte/);
  const size = await driver.executeAsyncScript(
    `const done = arguments[arguments.length - 1];
     const img = new Image();
     img.onload = () => done([img.naturalWidth, img.naturalHeight]);
     img.onerror = () => done(null);
     img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(arguments[0]);`,
    svg.text,
  );
  assert.ok(size && size[0] > 300 && size[1] > 200, `Chromium decodes the SVG: ${size}`);
});

test('an embedded panel fits a 320 px iframe without sideways scrolling', async () => {
  await driver.get(`${site.url}/__narrow.html`);
  for (const id of ['lab', 'calc']) {
    await driver.switchTo().defaultContent();
    await driver.switchTo().frame(await driver.findElement(By.id(id)));
    await driver.wait(
      () => driver.executeScript("return performance.getEntriesByName('app-ready').length > 0"),
      15000,
    );
    const [scroll, inner] = await driver.executeScript(
      'return [document.documentElement.scrollWidth, window.innerWidth];',
    );
    assert.ok(scroll <= inner, `${id}: page is ${scroll} px wide in a ${inner} px frame`);
  }
  await driver.switchTo().defaultContent();
});
