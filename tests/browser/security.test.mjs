// Security and privacy in real headless Chromium: the strict Content-Security-Policy holds
// with zero violations across every panel, and no request leaves the page's own origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, typeInto, typeIntoId, pageErrors, recordViolations, foreignRequests as foreign, clickSettled } from './harness.mjs';

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic();
  browser = await startBrowser();
  driver = browser.driver;
  // Record violations from the very first byte of every page, before the app's own scripts.
  await recordViolations(driver);
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

const violations = () => driver.executeScript('return window.__violations');
// Clicks, then waits for the panel on show to be built (panels load their code on first show).
const click = (testid) => clickSettled(driver, testid);

const foreignRequests = () => foreign(driver);

test('the policy is enforced: an injected inline script is blocked and reported', async () => {
  await openApp(driver, site.url);
  const policy = await driver
    .findElement(By.css('meta[http-equiv="Content-Security-Policy"]'))
    .getAttribute('content');
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(policy, /unsafe-inline/);
  await driver.executeScript(`
    const s = document.createElement('script');
    s.textContent = 'window.__inline = true';
    document.body.append(s);`);
  await driver.sleep(100);
  assert.equal(await driver.executeScript('return window.__inline === true'), false);
  assert.deepEqual(await violations(), ['script-src-elem inline']);
  const logged = await pageErrors(driver);
  assert.equal(logged.length, 1);
  assert.match(logged[0], /violates the following Content Security Policy directive/);
});

test('every panel runs with zero violations and no request to another origin', async () => {
  await openApp(driver, site.url, '?idx=0&active=t%3C8');
  await typeInto(driver, 'idx', 't*1024');
  await typeInto(driver, 'base', '0x10');
  await click('embed');
  await click('tab-roofline');
  await typeIntoId(driver, 'oi-input', '2');
  await typeIntoId(driver, 'bw-input', '80');
  await click('step');
  await click('tab-probe');
  await typeIntoId(driver, 'input-strides', '4,8');
  // Narrow and widen the window with charts on show: they follow their width.
  await click('tab-calculator');
  const { width, height } = await driver.manage().window().getRect();
  await driver.manage().window().setRect({ width: 700, height });
  await driver.sleep(200);
  await driver.manage().window().setRect({ width, height });
  await driver.sleep(200);
  assert.deepEqual(await violations(), []);
  assert.deepEqual(await driver.executeScript('return window.__errorEvents'), []);
  assert.deepEqual(await foreignRequests(), []);
  await openApp(driver, site.url, '?embed=1&tab=roofline&trail=2:80,1:80&bogus=1');
  await driver.sleep(200);
  assert.deepEqual(await violations(), []);
  assert.deepEqual(await foreignRequests(), []);
  assert.deepEqual(await pageErrors(driver), []);
});
