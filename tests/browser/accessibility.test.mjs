// Accessibility in real headless Chromium: axe-core finds nothing on any panel, light or dark,
// full page or embedded; every control is reachable by keyboard with a visible focus ring.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, Key } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, axe as axeOn, scheme as schemeOn } from './harness.mjs';


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

const scheme = (value) => schemeOn(driver, value);
const axe = () => axeOn(driver);

const PAGES = [
  ['calculator', '?base=8'],
  ['calculator with errors and notes', '?idx=0&elem=3&zoom=1'],
  ['roofline lab', '?tab=roofline&bw=80&trail=2:80:150,1:80'],
  ['embedded calculator', '?embed=1&idx=3*t'],
  ['embedded roofline lab', '?embed=1&tab=roofline&trail=2:80'],
  ['probe without WebGPU', '?tab=probe&strides=4,8'],
  ['embedded probe without WebGPU', '?embed=1&tab=probe'],
];

for (const mode of ['light', 'dark']) {
  for (const [name, query] of PAGES) {
    test(`axe finds no violation: ${name}, ${mode}`, async () => {
      await scheme(mode);
      await openApp(driver, site.url, query);
      assert.deepEqual(await axe(), []);
    });
  }
}

test('every control is reachable with Tab and shows a focus ring', async () => {
  await scheme('light');
  await openApp(driver, site.url, '?base=8');
  const reached = new Set();
  for (let i = 0; i < 40; i++) {
    await driver.switchTo().activeElement().sendKeys(Key.TAB);
    const [id, outline] = await driver.executeScript(`
      const el = document.activeElement;
      const style = getComputedStyle(el);
      return [el.dataset.testid || el.id || el.tagName, style.outlineStyle + ' ' + style.outlineWidth];`);
    reached.add(id);
    if (id !== 'BODY') assert.notEqual(outline.split(' ')[0], 'none', `${id} has a visible focus ring`);
  }
  for (const id of ['tab-calculator', 'copy-link', 'embed', 'preset', 'input-warp', 'input-idx', 'input-line', 'use-efficiency', 'export-csv']) {
    assert.ok(reached.has(id), `${id} is reachable by Tab: ${[...reached]}`);
  }
});

test('the full page is usable at 320 CSS px without sideways scrolling', async () => {
  await driver.sendDevToolsCommand('Emulation.setDeviceMetricsOverride', {
    width: 320,
    height: 800,
    deviceScaleFactor: 2,
    mobile: true,
  });
  try {
    for (const query of ['?base=8&elem=3&zoom=1', '?tab=roofline&trail=2:80,1:80', '?tab=probe']) {
      await openApp(driver, site.url, query);
      const [scroll, inner] = await driver.executeScript(
        'return [document.documentElement.scrollWidth, window.innerWidth];',
      );
      assert.ok(scroll <= inner, `${query}: page is ${scroll} px wide at ${inner} px`);
    }
  } finally {
    await driver.sendDevToolsCommand('Emulation.clearDeviceMetricsOverride', {});
  }
});
