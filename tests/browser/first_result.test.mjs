// The first result (src/bin/first-result.rs, public/shell.js): while the main module is on its
// way, the model alone writes the link's result into the static copy. Its figures and words
// must be the app's, in the app's place, and a hostile link must stay text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, pageErrors, serveStatic, startBrowser } from './harness.mjs';

let site;
let refusing = false;
before(async () => {
  // While `refusing`, the main module never arrives (the first-result module does), so the
  // copy stays, as on a slow link.
  site = await serveStatic(undefined, {}, { refuse: (path) => refusing && /\/coalescing-lab-[0-9a-f]+_bg\.wasm$/.test(path) });
});
after(() => site?.close());

/** Each readout card (label, text, data-value, detail, where it sits), the notes and the headline bar. */
const READ = `
  const root = document.querySelector(arguments[0]);
  const text = (e) => e ? e.textContent.replace(/\\s+/g, ' ').trim() : null;
  const readouts = [...root.querySelectorAll('.results dl.readouts .readout')].map((r) => {
    const box = r.getBoundingClientRect();
    const term = r.querySelector('dt .term');
    return {
      label: text(term ?? r.querySelector('dt')),
      tip: text(r.querySelector('dt .tip')),
      text: text(r.querySelector('dd:not(.detail)')),
      value: r.querySelector('dd:not(.detail)').dataset.value,
      detail: text(r.querySelector('dd.detail')),
      headline: r.classList.contains('headline'),
      at: [Math.round(box.left), Math.round(box.top + scrollY), Math.round(box.width)],
    };
  });
  const notes = [...root.querySelectorAll('.results .note.broadcast, .results .note.warning')].map(text);
  const bar = root.querySelector('.headline-bar');
  return { readouts, notes, headline: text(bar), stale: !!root.querySelector('.results .stale'),
           outdated: !!root.querySelector('.results dl.readouts.outdated'),
           pairs: [...root.querySelectorAll('.compare-bar select option')].map(text) };`;

async function copyOf(driver, link) {
  refusing = true;
  try {
    await driver.get(`${site.url}/${link}`);
    await driver.wait(() => driver.executeScript("return performance.getEntriesByName('first-result').length > 0"), 10000);
    return await driver.executeScript(READ, '#shell [data-shell="calculator"]');
  } finally {
    refusing = false;
  }
}

const LINKS = [
  ['the default link', ''],
  ['a strided column', '?idx=t*1024'],
  ['a misaligned read', '?base=2'],
  ['a broadcast', '?idx=0&elem=8'],
  ['shared memory with conflicts', '?space=shared&idx=t*32'],
  ['a wave64 AMD warp with inactive lanes', '?arch=cdna3&idx=3*t&active=t%253!%3D1'],
  ['an embed', '?embed=1&idx=2*t'],
  ['sparse explicit addresses on an 8-lane warp', '?warp=8&addrs=0,-,4096,-,1048576,8,-,0x7ffffff0'],
];

for (const [viewport, width, height, phone] of [['a phone', 412, 823, true], ['a desktop', 1280, 900, false]]) {
  test(`on ${viewport}, the copy's first result is the app's, figure for figure and in its place`, async () => {
    const { driver, quit } = await startBrowser({ width, height });
    try {
      for (const [name, link] of LINKS) {
        const copy = await copyOf(driver, link);
        await openApp(driver, site.url, link);
        const app = await driver.executeScript(READ, 'main [role="tabpanel"]:not([hidden]) .calculator');
        assert.ok(copy.readouts.length >= 7, `${name}: the copy has its readouts: ${JSON.stringify(copy)}`);
        // On a phone the form stands above the results, and its height (the lesson, the
        // builders, the hints at the phone's width) is the app's to know: the copy's
        // placeholder is a screen tall, so the results sit below the fold in both, but not at
        // the same height. Across, and on a desktop in full, they sit where the app puts them.
        const place = (side) => (phone ? { ...side, readouts: side.readouts.map((r) => ({ ...r, at: [r.at[0], r.at[2]] })) } : side);
        assert.deepEqual(place(copy), place(app), name);
      }
    } finally {
      await quit();
    }
  });
}

test('a link in error, predict mode and another panel: the copy says only what the app will', async () => {
  const { driver, quit } = await startBrowser({ width: 412, height: 823 });
  try {
    // A field in error: the results of its default, marked as such, as the app shows them.
    const bad = await copyOf(driver, '?idx=t%2B%2B&elem=3');
    await openApp(driver, site.url, '?idx=t%2B%2B&elem=3');
    const app = await driver.executeScript(READ, 'main [role="tabpanel"]:not([hidden]) .calculator');
    assert.ok(bad.stale && bad.outdated && app.stale && app.outdated, JSON.stringify({ bad, app }));
    assert.deepEqual(bad.readouts.map(({ at, ...r }) => r), app.readouts.map(({ at, ...r }) => r));
    assert.equal(bad.headline, app.headline);

    // Scenario B beside A: the phone's headline bar alone, where the app's stands.
    const bar = `const b = document.querySelector(arguments[0] + ' .headline-bar'); const r = b.getBoundingClientRect();
      return [b.textContent, Math.round(r.top), Math.round(r.height)];`;
    await copyOf(driver, '?base=8&compare=1');
    const copyBar = await driver.executeScript(bar, '#shell');
    await openApp(driver, site.url, '?base=8&compare=1');
    assert.deepEqual(copyBar, await driver.executeScript(bar, 'main [role="tabpanel"]:not([hidden])'));
    assert.equal(copyBar[0], 'N_tx = 5 sectors · efficiency 80 %');

    // Predict mode: no figure before the learner commits.
    const held = await copyOf(driver, '?predict=1&idx=2*t');
    assert.deepEqual(held.readouts, []);
    assert.equal(held.headline, 'Predict, then reveal');
    const html = await driver.executeScript("return document.querySelector('#shell [data-first-result]').innerHTML");
    assert.ok(!html.includes('data-value'), html);

    // Another panel's link never loads the module.
    await driver.get(`${site.url}/?tab=kernel&idx=2*t`);
    await driver.sleep(1500);
    const loaded = await driver.executeScript(
      "return [performance.getEntriesByName('first-result').length, performance.getEntriesByType('resource').filter((e) => e.name.includes('first-result')).length]",
    );
    assert.deepEqual(loaded, [0, 0]);
  } finally {
    await quit();
  }
});

test("the default link's result comes with the page; another link never shows it", async () => {
  const { driver, quit } = await startBrowser({ width: 412, height: 823 });
  try {
    // The link with no query: written at build time (tools/split.mjs), on screen at the copy's
    // first paint, with no module fetched.
    await copyOf(driver, '');
    const shown = await driver.executeScript(`
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      const mark = performance.getEntriesByName('first-result')[0];
      const cards = [...document.querySelectorAll('#shell .shell-default-result .readout')];
      return [mark.startTime === paint.startTime, cards.length, cards.every((c) => c.getClientRects().length > 0),
        performance.getEntriesByType('resource').filter((e) => e.name.includes('first-result')).length];`);
    assert.deepEqual(shown, [true, 9, true, 0]);
    // Another link, its module refused too: the default's figures stay hidden, never shown as
    // this link's, and nothing else claims to be its result.
    const refuse = await serveStatic(undefined, {}, { refuse: (path) => /\/(coalescing-lab|first-result)-[0-9a-f]+_bg\.wasm$/.test(path) });
    try {
      await driver.get(`${refuse.url}/?idx=t*1024`);
      await driver.sleep(1500);
      const hidden = await driver.executeScript(`
        const cards = [...document.querySelectorAll('#shell .readout')];
        return [cards.length > 0, cards.some((c) => c.getClientRects().length > 0), performance.getEntriesByName('first-result').length];`);
      assert.deepEqual(hidden, [true, false, 0]);
    } finally {
      await refuse.close();
    }
  } finally {
    await quit();
  }
});

test('a hostile link is written as text, and the page raises nothing', async () => {
  const { driver, quit } = await startBrowser({ width: 1280, height: 900 });
  try {
    const link = `?idx=${encodeURIComponent('<img src=x onerror=alert(1)>')}&base=${encodeURIComponent('"><script>alert(2)</script>')}`;
    await copyOf(driver, link);
    const found = await driver.executeScript(
      "const s = document.querySelector('#shell [data-first-result]'); return [s.querySelectorAll('img, script').length, s.querySelectorAll('.readout').length]",
    );
    assert.deepEqual(found, [0, 9]);
    await pageErrors(driver); // the refused main module's, above
    await openApp(driver, site.url, link);
    assert.deepEqual(await pageErrors(driver), []);
  } finally {
    await quit();
  }
});
