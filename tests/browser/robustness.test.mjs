// Bad input by the hundred: random and hostile strings typed into every field of every panel.
// Afterwards there is no page error and no panic notice, and every string stayed text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, pageErrors } from './harness.mjs';

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '"><script>alert(1)</script>',
  '',
  ' ',
  '9'.repeat(40),
  '-9223372036854775808',
  '0x' + 'f'.repeat(17),
  '((((((((((((((((((((((((((((((((((t))))))))))))))))))))))))))))))))))',
  '1/0',
  't % 0',
  'ℵ₀ · t — ✓ 🚀',
  '\u202Et\u202C',
  'x'.repeat(10000),
  '1,2,3,-,'.repeat(3000),
  '2:80,1/64:1:0.5,1024:100000',
  'NaN',
  'Infinity',
  '%00%ZZ&=?#',
];

/** A deterministic stream of strings: hostile ones and random printable/Unicode noise. */
function* strings(seed = 7) {
  let x = seed;
  const next = () => ((x = (x * 1103515245 + 12345) % 2147483648), x);
  for (;;) {
    if (next() % 3 === 0) {
      yield HOSTILE[next() % HOSTILE.length];
    } else {
      const length = next() % 24;
      let s = '';
      for (let i = 0; i < length; i++) {
        const r = next() % 10;
        s += r < 7 ? String.fromCharCode(32 + (next() % 95)) : String.fromCodePoint(0xa0 + (next() % 0x2fff));
      }
      yield s;
    }
  }
}

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

test('300 random and hostile edits across every field of every panel break nothing', async () => {
  await openApp(driver, site.url);
  const fields = [
    ...['warp', 'elem', 'base', 'idx', 'active', 'addrs', 'sector', 'line'].map((p) => ['calculator', `input-${p}`]),
    ...['oi-input', 'bw-input', 'prediction-input'].map((id) => ['roofline', id]),
    ...['input-strides', 'input-n'].map((id) => ['probe', id]),
  ];
  const source = strings();
  for (let edit = 0; edit < 300; edit++) {
    const [tab, id] = fields[edit % fields.length];
    const text = source.next().value;
    // A panel is built when first shown, so its field may appear a moment after the click.
    const typed = await driver.executeAsyncScript(
      `const [tab, id, text, step, done] = arguments;
       document.querySelector('[data-testid="tab-' + tab + '"]').click();
       const edit = () => {
         const input = document.querySelector('[data-testid="' + id + '"]');
         if (!input) return setTimeout(edit, 5);
         input.value = text;
         input.dispatchEvent(new Event('input', { bubbles: true }));
         if (tab === 'roofline' && step) document.querySelector('[data-testid="step"]').click();
         done(input.value);
       };
       edit();`,
      tab,
      id,
      text,
      edit % 7 === 0,
    );
    assert.equal(typed, text.replace(/[\r\n]/g, ''), `edit ${edit}: the field keeps the text as typed`);
  }
  assert.deepEqual(await pageErrors(driver), []);
  assert.equal((await driver.findElements(By.css('[data-testid="panic"]'))).length, 0, 'no panic notice');
  // No markup from the edits: no image, and no inline script but the head's own start-up
  // script (public/start.js, allowed by its hash in the CSP).
  assert.equal(
    await driver.executeScript(
      'return document.querySelectorAll("img, body script:not([src])").length + document.head.querySelectorAll("script:not([src])").length',
    ),
    1,
  );
  // Every error message quotes text literally, never as markup.
  const errorsText = await driver.executeScript(
    'return [...document.querySelectorAll(\'[data-testid="input-error"]\')].map((e) => e.innerHTML).join("\\n")',
  );
  assert.doesNotMatch(errorsText, /<img|<script/);
  // And the page still computes: back to Example 1 through the preset picker.
  await driver.findElement(By.css('[data-testid="tab-calculator"]')).click();
  await driver.findElement(By.css('[data-testid="preset"] option[value="ex1-sequential"]')).click();
  assert.equal(await driver.findElement(By.css('[data-testid="sectors"]')).getAttribute('data-value'), '4');
});
