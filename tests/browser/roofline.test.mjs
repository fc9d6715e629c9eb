// The Roofline lab in real headless Chromium, against the release build in dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, typeIntoId, errors, pageErrors, valueOf, expectUrl, clickSettled } from './harness.mjs';

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic();
  browser = await startBrowser({ dpr: 2 });
  driver = browser.driver;
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

// Clicks, then waits for the panel on show to be built (panels load their code on first show).
const click = (testid) => clickSettled(driver, testid);
const text = async (testid) => driver.findElement(By.css(`[data-testid="${testid}"]`)).getText();
const trailRows = async () => driver.findElements(By.css('[data-testid="trail-row"]'));

/** Counts canvas pixels that differ from the top-left (background) pixel. */
const inkedPixels = () =>
  driver.executeScript(`
    const c = document.querySelector('[data-testid="roofline-chart"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) n++;
    }
    return n;`);

test('the course exercise works by clicking: 160 memory-bound, then 80', async () => {
  await openApp(driver, site.url);
  await click('tab-roofline');
  await expectUrl(driver, /\?v=1&tab=roofline$/);
  await click('reset');
  assert.equal(await valueOf(driver, 'attainable'), '', 'no answer before the first Step');
  assert.equal((await trailRows()).length, 0);
  await typeIntoId(driver, 'oi-input', '2');
  await typeIntoId(driver, 'bw-input', '80');
  await typeIntoId(driver, 'prediction-input', '160');
  await click('step');
  assert.equal(await valueOf(driver, 'attainable'), '160');
  assert.equal(await valueOf(driver, 'bound'), 'memory');
  assert.equal(await valueOf(driver, 'ridge'), '12.5');
  assert.equal(await text('attainable'), '160 GFLOP/s');
  assert.equal(await text('prediction-verdict'), 'You predicted 160 GFLOP/s: exactly right.');
  const announcement = await driver.findElement(By.css('[data-testid="announcement"]'));
  assert.equal(await announcement.getAttribute('aria-live'), 'polite');
  assert.match(await announcement.getAttribute('textContent'), /attains 160 GFLOP\/s, memory-bound/);
  assert.equal((await trailRows()).length, 1);
  await expectUrl(driver, /trail=2:80:160/);

  await click('reset');
  assert.equal((await trailRows()).length, 0);
  assert.equal(await valueOf(driver, 'attainable'), '');
  assert.equal(await driver.findElement(By.css('[data-testid="oi-input"]')).getAttribute('value'), '1');
  await typeIntoId(driver, 'bw-input', '80');
  await click('step');
  assert.equal(await valueOf(driver, 'attainable'), '80');
  assert.equal(await valueOf(driver, 'bound'), 'memory');
  assert.deepEqual(await pageErrors(driver), []);
});

test('changing an input after a Step leaves revealed points where they are', async () => {
  await openApp(driver, site.url, '?tab=roofline&oi=2&bw=80');
  await click('step');
  await typeIntoId(driver, 'oi-input', '64');
  assert.equal(await valueOf(driver, 'attainable'), '160', 'the revealed answer stays');
  await click('step');
  const rows = await trailRows();
  assert.deepEqual(
    await Promise.all(rows.map((r) => r.getAttribute('data-value'))),
    ['160', '1000'],
  );
  assert.equal(await valueOf(driver, 'bound'), 'compute');
});

test('a permalink with a trail reproduces the lab with that trail revealed', async () => {
  await openApp(driver, site.url, '?tab=roofline&oi=1&bw=80&trail=2:80,1:80');
  assert.equal(await driver.findElement(By.id('panel-roofline')).isDisplayed(), true);
  assert.equal(await driver.findElement(By.id('panel-calculator')).isDisplayed(), false);
  const rows = await trailRows();
  assert.equal(rows.length, 2);
  assert.equal(await rows[0].getAttribute('data-value'), '160');
  assert.equal(await valueOf(driver, 'attainable'), '80');
  assert.equal(await valueOf(driver, 'ridge'), '12.5');
  assert.match(await text('roofline-description'), /Point 1: I = 2 FLOP\/byte, P = 160 GFLOP\/s, memory-bound\. Point 2: I = 1 FLOP\/byte, P = 80 GFLOP\/s/);
});

test('bad values show an error on their field and never break the page', async () => {
  await openApp(driver, site.url, '?tab=roofline&oi=0&bw=-5&trail=2:80,x');
  assert.deepEqual(await errors(driver), {
    oi: "oi: must be an intensity from 1/64 to 1024 FLOP/byte (a decimal or a fraction such as 1/8), found '0'",
    bw: "bw: must be a bandwidth from 1 to 100000 GB/s, found '-5'",
    trail: "trail: entry 2 ('x') is not I:B (intensity:bandwidth, e.g. 2:80); it was left out.",
  });
  assert.equal(await driver.findElement(By.css('[data-testid="step"]')).isEnabled(), false);
  await typeIntoId(driver, 'oi-input', 'abc');
  await typeIntoId(driver, 'prediction-input', 'lots');
  assert.match((await errors(driver)).prediction, /^prediction: must be empty or a number/);
  await typeIntoId(driver, 'oi-input', '1/8');
  await typeIntoId(driver, 'bw-input', '8000');
  await typeIntoId(driver, 'prediction-input', '');
  await click('step');
  assert.deepEqual(await errors(driver), {});
  assert.equal(await valueOf(driver, 'attainable'), '1000');
  assert.equal(await valueOf(driver, 'bound'), 'compute', 'I × B = 1000 exactly sits on the compute roof');
  assert.equal((await trailRows()).length, 2, 'the malformed entry was left out, the valid one kept');
  assert.deepEqual(await pageErrors(driver), []);
});

test('the calculator sends its efficiency to the lab and says why', async () => {
  await openApp(driver, site.url, '?idx=2*t&oi=2');
  await click('use-efficiency');
  assert.equal(await driver.findElement(By.id('panel-roofline')).isDisplayed(), true);
  assert.equal(await driver.findElement(By.css('[data-testid="oi-input"]')).getAttribute('value'), '1');
  assert.equal(await text('lab-note'), '50 % useful bytes doubles the bytes moved, so intensity 2 → 1 FLOP/byte.');
  await openApp(driver, site.url, '?idx=0&oi=2');
  await click('use-efficiency');
  assert.equal(await driver.findElement(By.css('[data-testid="oi-input"]')).getAttribute('value'), '2', 'broadcast capped at 1');
});

test('the chart is drawn crisp at 2× once its panel shows, and redrawn on resize', async () => {
  await openApp(driver, site.url, '?bw=80');
  await click('tab-roofline');
  const size = () =>
    driver.executeScript(`
      const c = document.querySelector('[data-testid="roofline-chart"]');
      return [c.width, c.height, c.clientWidth, c.clientHeight, devicePixelRatio];`);
  // A chart takes its new width in the frame after the panel shows.
  await driver.wait(async () => {
    const [width, , clientWidth, , ratio] = await size();
    return width === Math.round(clientWidth * ratio);
  }, 3000);
  let [w, h, cw, ch, dpr] = await size();
  assert.equal(dpr, 2);
  assert.ok(cw > 200, `visible canvas has a width: ${cw}`);
  assert.equal(w, Math.round(cw * dpr));
  assert.equal(h, Math.round(ch * dpr));
  assert.ok((await inkedPixels()) > 5000, 'roofs, grid and labels are drawn');
  const before = await inkedPixels();
  await typeIntoId(driver, 'oi-input', '2');
  await click('step');
  assert.ok((await inkedPixels()) > before, 'the stepped point adds ink');
  await driver.manage().window().setRect({ width: 900, height: 900 });
  await driver.sleep(200);
  [w, h, cw, ch] = await size();
  assert.equal(w, Math.round(cw * dpr), 'backing store follows the new width');
  await driver.manage().window().setRect({ width: 1280, height: 900 });
});

test('tabs work from the keyboard', async () => {
  await openApp(driver, site.url);
  const tab = await driver.findElement(By.css('[data-testid="tab-calculator"]'));
  await tab.sendKeys('\uE014'); // ArrowRight
  const active = await driver.switchTo().activeElement();
  assert.equal(await active.getAttribute('data-testid'), 'tab-kernel');
  assert.equal(await active.getAttribute('aria-selected'), 'true');
  assert.equal(await driver.findElement(By.id('panel-kernel')).isDisplayed(), true);
  await active.sendKeys('\uE014');
  const trace = await driver.switchTo().activeElement();
  assert.equal(await trace.getAttribute('data-testid'), 'tab-trace');
  await trace.sendKeys('\uE014');
  assert.equal(await (await driver.switchTo().activeElement()).getAttribute('data-testid'), 'tab-roofline');
});

test('the theme toggle recolours the page and redraws the chart', async () => {
  await openApp(driver, site.url, '?tab=roofline&bw=80');
  const corner = () =>
    driver.executeScript(`
      const c = document.querySelector('[data-testid="roofline-chart"]');
      return Array.from(c.getContext('2d').getImageData(2, 2, 1, 1).data.slice(0, 3));`);
  const surface = () =>
    driver.executeScript("return getComputedStyle(document.documentElement).getPropertyValue('--surface').trim()");
  const toggle = await driver.findElement(By.css('[data-testid="theme-toggle"]'));
  assert.equal(await toggle.getText(), 'Theme: auto');
  await toggle.click();
  assert.equal(await driver.executeScript('return document.documentElement.dataset.theme'), 'light');
  assert.deepEqual(await corner(), [255, 255, 255]);
  await toggle.click();
  assert.equal(await toggle.getText(), 'Theme: dark');
  assert.equal(await surface(), '#1a1f26');
  await driver.sleep(100);
  assert.deepEqual(await corner(), [0x1a, 0x1f, 0x26], 'the chart is redrawn on the dark surface');
  // The choice is remembered in this browser, not in the link.
  await driver.navigate().refresh();
  await driver.wait(until.elementLocated(By.css('[data-testid="roofline-chart"]')), 10000);
  assert.equal(await driver.findElement(By.css('[data-testid="theme-toggle"]')).getText(), 'Theme: dark');
  assert.equal(await driver.executeScript('return document.documentElement.dataset.theme'), 'dark');
  assert.doesNotMatch(await driver.getCurrentUrl(), /theme/);
  await driver.findElement(By.css('[data-testid="theme-toggle"]')).click();
  assert.equal(await driver.executeScript('return document.documentElement.hasAttribute("data-theme")'), false);
  assert.equal(await driver.executeScript("return localStorage.getItem('coalescing-lab:theme')"), null);
});
