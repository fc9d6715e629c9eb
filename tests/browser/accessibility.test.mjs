// Accessibility in real headless Chromium: axe-core finds nothing on any panel, light or dark,
// full page or embedded; every control is reachable by keyboard with a visible focus ring.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { By, Key } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp } from './harness.mjs';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

async function scheme(value) {
  await driver.sendDevToolsCommand('Emulation.setEmulatedMedia', {
    features: [{ name: 'prefers-color-scheme', value }],
  });
}

/** Runs axe on the page as it is and returns "rule: target" for every violation. */
async function axe() {
  await driver.executeScript(axeSource);
  const result = await driver.executeAsyncScript(`
    const done = arguments[arguments.length - 1];
    axe.run(document, { resultTypes: ['violations'] }).then(
      (r) => done(r.violations.flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n')[1]))),
      (e) => done(['axe failed: ' + e]));`);
  return result;
}

const PAGES = [
  ['calculator', '?base=8'],
  ['calculator with errors and notes', '?idx=0&elem=3&zoom=1'],
  ['roofline lab', '?tab=roofline&bw=80&trail=2:80:150,1:80'],
  ['embedded calculator', '?embed=1&idx=3*t'],
  ['embedded roofline lab', '?embed=1&tab=roofline&trail=2:80'],
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
    for (const query of ['?base=8&elem=3&zoom=1', '?tab=roofline&trail=2:80,1:80']) {
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
