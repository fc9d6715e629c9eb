// The sector calculator in real headless Chromium, against the release build in dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, Key, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, results, typeInto, typeIntoId, pasteInto, errors, pageErrors, valueOf, expectUrl } from './harness.mjs';

// The course's table (warp 32, elem 4, line 128): the spec, as the page must show it.
const COURSE = [
  { preset: 'ex1-sequential', query: '', sectors: 4, transferred: 128, distinct: 128, eff: '1', deff: '1', lines: 1 },
  { preset: 'ex2-misaligned', query: 'base=8', sectors: 5, transferred: 160, distinct: 128, eff: '0.8', deff: '0.8', lines: 2 },
  { preset: 'ex3-stride-2', query: 'idx=2*t', sectors: 8, transferred: 256, distinct: 128, eff: '0.5', deff: '0.5', lines: 2 },
  { preset: 'ex4-stride-sector', query: 'idx=8*t', sectors: 32, transferred: 1024, distinct: 128, eff: '0.125', deff: '0.125', lines: 8 },
  { preset: 'ex5-huge-stride', query: 'idx=1024*t', sectors: 32, transferred: 1024, distinct: 128, eff: '0.125', deff: '0.125', lines: 32 },
  { preset: 'ex6-reversed', query: 'idx=31-t', sectors: 4, transferred: 128, distinct: 128, eff: '1', deff: '1', lines: 1 },
  { preset: 'ex7-broadcast', query: 'idx=0', sectors: 1, transferred: 32, distinct: 4, eff: '4', deff: '0.125', lines: 1 },
  { preset: 'ex8a-column', query: 'idx=t*1024', sectors: 32, transferred: 1024, distinct: 128, eff: '0.125', deff: '0.125', lines: 32 },
  {
    preset: 'ex8b-mixed',
    query: 'idx=t%3C16%20?%20t%20:%201000%2B64*(t-16)',
    sectors: 18, transferred: 576, distinct: 128, eff: '0.2222222222222222', deff: '0.2222222222222222', lines: 17,
  },
  { preset: 'ex9-aos-float3-x', query: 'idx=3*t', sectors: 12, transferred: 384, distinct: 128, eff: '0.3333333333333333', deff: '0.3333333333333333', lines: 3 },
  { preset: 'column-128b-rows', query: 'idx=32*t', sectors: 32, transferred: 1024, distinct: 128, eff: '0.125', deff: '0.125', lines: 32 },
  { preset: 'ex2-128b-transactions', query: 'base=8&sector=128', sectors: 2, transferred: 256, distinct: 128, eff: '0.5', deff: '0.5', lines: 2 },
];

const expected = (row) => ({
  'active-lanes': '32',
  'requested-bytes': '128',
  'distinct-bytes': String(row.distinct),
  sectors: String(row.sectors),
  'transferred-bytes': String(row.transferred),
  lines: String(row.lines),
  efficiency: row.eff,
  'distinct-efficiency': row.deff,
  'misaligned-lanes': '0',
});

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

test('the default page shows Example 1 with every lane and no errors', async () => {
  await openApp(driver, site.url);
  assert.deepEqual(await results(driver), expected(COURSE[0]));
  const rows = await driver.findElements(By.css('[data-testid="lane-row"]'));
  assert.equal(rows.length, 32);
  const last = rows[31];
  assert.equal(await last.getAttribute('data-lane'), '31');
  assert.equal(await last.getAttribute('data-active'), 'true');
  assert.equal(await last.getAttribute('data-address'), '124');
  assert.equal(await last.getAttribute('data-sectors'), '3');
  assert.equal(await valueOf(driver, 'preset'), null, 'the picker is an input, not a result');
  assert.equal(await driver.findElement(By.css('[data-testid="preset"]')).getAttribute('value'), 'ex1-sequential');
  assert.deepEqual(await pageErrors(driver), []);
});

test('typing into a field changes every result at once and rewrites the URL in place', async () => {
  await openApp(driver, site.url);
  const historyBefore = await driver.executeScript('return history.length');
  await typeInto(driver, 'base', '8');
  assert.deepEqual(await results(driver), expected(COURSE[1]));
  await expectUrl(driver, /\?v=1&base=8$/);
  await typeInto(driver, 'idx', '2*t');
  assert.equal(await valueOf(driver, 'sectors'), '9', 'base 8, stride 2: bytes 8…263 span sectors 0…8');
  await expectUrl(driver, /\?v=1&base=8&idx=2\*t$/);
  assert.equal(await driver.executeScript('return history.length'), historyBefore, 'replaceState, never a new entry');
  const lane1 = await driver.findElement(By.css('[data-testid="lane-row"][data-lane="1"]'));
  assert.equal(await lane1.getAttribute('data-address'), '16');
  const derivation = await driver.findElement(By.css('[data-testid="derivation"]')).getText();
  assert.match(derivation, /A\(t\) = 8 \+ 4·\(2\*t\)/);
  assert.match(derivation, /N_tx = 9/);
});

test('every preset fills the inputs and reproduces its row of the course table', async () => {
  await openApp(driver, site.url);
  const picker = await driver.findElement(By.css('[data-testid="preset"]'));
  for (const row of COURSE) {
    await picker.findElement(By.css(`option[value="${row.preset}"]`)).click();
    assert.deepEqual(await results(driver), expected(row), row.preset);
  }
  const idx = await driver.findElement(By.css('[data-testid="input-idx"]')).getAttribute('value');
  assert.equal(idx, 't', 'the last preset, Ex2 on 128 B transactions, indexes by t');
});

test('every course scenario loaded as a permalink shows the same numbers', async () => {
  for (const row of COURSE) {
    await openApp(driver, site.url, row.query ? `?${row.query}` : '');
    assert.deepEqual(await results(driver), expected(row), row.query);
    const picked = await driver.findElement(By.css('[data-testid="preset"]')).getAttribute('value');
    assert.equal(picked, row.preset, `the picker names ${row.preset}`);
  }
});

test('the broadcast example explains why efficiency reads 400 %', async () => {
  await openApp(driver, site.url, '?idx=0');
  const shown = await driver.findElement(By.css('[data-testid="efficiency"]')).getText();
  assert.equal(shown, '400 %');
  const note = await driver.findElement(By.css('[data-testid="broadcast-note"]')).getText();
  assert.match(note, /N_tx = 1 with 4 distinct useful bytes/);
});

test('no active lane reads n/a with empty values', async () => {
  await openApp(driver, site.url, '?active=0');
  assert.equal(await valueOf(driver, 'sectors'), '0');
  assert.equal(await valueOf(driver, 'efficiency'), '');
  assert.equal(await valueOf(driver, 'distinct-efficiency'), '');
  assert.equal(await driver.findElement(By.css('[data-testid="efficiency"]')).getText(), 'n/a');
  const rows = await driver.findElements(By.css('[data-testid="lane-row"][data-active="false"]'));
  assert.equal(rows.length, 32);
  assert.equal(await rows[0].getAttribute('data-address'), '');
});

test('a bad input shows its error on the right field and keeps the last valid results', async () => {
  await openApp(driver, site.url, '?base=8');
  await typeInto(driver, 'idx', 't +');
  assert.deepEqual(await errors(driver), { idx: 'idx: expected a number, t, a function or \'(\', found end of input' });
  assert.equal(await valueOf(driver, 'sectors'), '5', 'last valid results stay on screen');
  const input = await driver.findElement(By.css('[data-testid="input-idx"]'));
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  await typeInto(driver, 'idx', 'abs(10 / (t - 3))');
  assert.deepEqual(await errors(driver), { idx: 'idx: lane 3: division by zero in 10 / 0 (column 8)' });
  await typeInto(driver, 'idx', 't');
  assert.deepEqual(await errors(driver), {});
  assert.equal(await valueOf(driver, 'sectors'), '5');
  await typeInto(driver, 'warp', '65');
  assert.deepEqual(await errors(driver), { warp: "warp: must be a whole number of lanes from 1 to 64, found '65'" });
  await typeInto(driver, 'warp', '64');
  assert.equal(await valueOf(driver, 'active-lanes'), '64');
  assert.deepEqual(await pageErrors(driver), []);
});

test('a bad link reports each bad parameter on its field and still shows results', async () => {
  await openApp(driver, site.url, '?elem=3&sector=48&idx=2*t');
  assert.deepEqual(await errors(driver), {
    elem: "elem: must be 1, 2, 4, 8 or 16 bytes, found '3'",
    sector: "sector: must be a power of two from 8 to 1024 bytes, found '48'",
  });
  assert.equal(await driver.findElement(By.css('[data-testid="input-elem"]')).getAttribute('value'), '3');
  assert.equal(await valueOf(driver, 'sectors'), '8', 'stride 2 kept; elem and sector at their defaults');
  await typeInto(driver, 'elem', '4');
  await typeInto(driver, 'sector', '32');
  assert.deepEqual(await errors(driver), {});
  assert.deepEqual(await pageErrors(driver), []);
});

test('hostile text stays text and never breaks the page', async () => {
  await openApp(driver, site.url, '?idx=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E');
  const message = (await errors(driver)).idx;
  assert.equal(message, "idx: unexpected character '=' at column 9");
  assert.equal(await driver.executeScript('return document.querySelectorAll("img").length'), 0);
  await pasteInto(driver, 'addrs', '1,2,'.repeat(2500));
  assert.match((await errors(driver)).addrs, /^addrs: entry 5001 \(''\) is not an address/);
  await pasteInto(driver, 'addrs', '');
  await typeInto(driver, 'idx', 't');
  assert.deepEqual(await errors(driver), {});
  assert.equal(await valueOf(driver, 'sectors'), '4');
  assert.deepEqual(await pageErrors(driver), []);
});

test('the sector map is drawn with its text alternative and follows every edit', async () => {
  await openApp(driver, site.url, '?base=8');
  const caption = () => driver.findElement(By.css('[data-testid="sector-map-description"]')).getText();
  assert.match(await caption(), /^5 sectors of 32 B\. Sector 0: lanes 0–5, 24 of 32 bytes used\./);
  const ink = () =>
    driver.executeScript(`
      const c = document.querySelector('[data-testid="sector-map"]');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) n++;
      return [n, c.width, c.clientWidth];`);
  const [before, width, cssWidth] = await ink();
  assert.ok(before > 3000, `the map is drawn: ${before} pixels`);
  assert.equal(width, cssWidth, 'backing store matches CSS width at 1×');
  await typeInto(driver, 'idx', '1024*t');
  assert.match(await caption(), /^32 sectors of 32 B\. Sector 0: lane 0, 4 of 32 bytes used\. Then 4064 untouched bytes\./);
  const [after] = await ink();
  assert.notEqual(after, before, 'redrawn for the new pattern');
  await typeInto(driver, 'active', '0');
  assert.equal(await caption(), 'No sector: no lane is active.');
});

test('predict=1 poses a question: results stay hidden until Reveal, then the feedback says how far off', async () => {
  await driver.get(`${site.url}/?base=8&predict=1`);
  await driver.wait(until.elementLocated(By.css('[data-testid="reveal"]')), 10000);
  assert.equal((await driver.findElements(By.css('[data-testid="sectors"]'))).length, 0, 'no answer shown');
  const row = await driver.findElement(By.css('[data-testid="lane-row"][data-lane="31"]'));
  assert.equal(await row.getAttribute('data-address'), '132', 'addresses stay visible to work from');
  assert.equal(await row.getAttribute('data-sectors'), '', 'sectors are held back');
  // An empty prediction is refused with a message on its field.
  await driver.findElement(By.css('[data-testid="reveal"]')).click();
  assert.deepEqual(await errors(driver), { 'predict-ntx': 'predicted N_tx: enter a whole number of sectors, such as 4' });
  // A wrong answer: how far off, and in which direction.
  await typeIntoId(driver, 'predict-ntx', '4');
  await typeIntoId(driver, 'predict-efficiency', '100 %');
  await driver.findElement(By.css('[data-testid="reveal"]')).click();
  const feedback = await driver.findElement(By.css('[data-testid="prediction-feedback"]'));
  assert.equal(
    await feedback.getText(),
    'Not quite: the warp touches 5 sectors, 1 more than your 4. Efficiency is 80 %, 20 points below your 100 % (read as a percentage).',
  );
  assert.equal(await feedback.getAttribute('aria-live'), 'polite');
  assert.equal(await valueOf(driver, 'sectors'), '5', 'the results and derivation are revealed');
  assert.equal(await row.getAttribute('data-sectors'), '4');
  // Predict again, and this time get it right, by keyboard alone.
  await driver.findElement(By.css('[data-testid="predict-again"]')).click();
  const ntx = await driver.findElement(By.css('[data-testid="predict-ntx"]'));
  await ntx.sendKeys('5', Key.ENTER);
  assert.equal(
    await driver.findElement(By.css('[data-testid="prediction-feedback"]')).getText(),
    'Right: the warp touches 5 sectors.',
  );
  await expectUrl(driver, /predict=1/);
  assert.deepEqual(await pageErrors(driver), []);
});

test('an architecture preset fills warp, sector and line, and explicit values override it visibly', async () => {
  await openApp(driver, site.url);
  await driver.findElement(By.css('[data-testid="input-arch"] option[value="cdna3"]')).click();
  const value = (param) => driver.findElement(By.css(`[data-testid="input-${param}"]`)).getAttribute('value');
  assert.deepEqual([await value('warp'), await value('sector'), await value('line')], ['64', '128', '128']);
  assert.equal(await valueOf(driver, 'sectors'), '2', '64 lanes of 4 B in 128 B units');
  await expectUrl(driver, /\?v=1&arch=cdna3$/);
  assert.match(await driver.findElement(By.css('[data-testid="arch-note"]')).getText(), /64-lane wavefronts/);
  await typeInto(driver, 'warp', '32');
  assert.match(await driver.findElement(By.id('input-warp-hint')).getText(), /\(overrides AMD CDNA3 \(MI300\): 64\)/);
  await expectUrl(driver, /\?v=1&arch=cdna3&warp=32$/);
  await openApp(driver, site.url, '?arch=gcn&base=8');
  assert.equal(await valueOf(driver, 'transferred-bytes'), '320');
  await openApp(driver, site.url, '?arch=kepler');
  assert.deepEqual(Object.keys(await errors(driver)), ['arch']);
  assert.equal(await valueOf(driver, 'sectors'), '4', 'an unknown architecture falls back to Volta');
});

test('the address ramp names the regime for each course pattern', async () => {
  const regimeOf = async (query) => {
    await openApp(driver, site.url, query);
    return driver.findElement(By.css('[data-testid="ramp-description"]')).getAttribute('data-value');
  };
  assert.equal(await regimeOf(''), 'coalesced');
  assert.equal(await regimeOf('?idx=0'), 'broadcast');
  assert.equal(await regimeOf('?idx=2*t'), 'partial waste');
  assert.equal(await regimeOf('?idx=8*t'), 'one sector per lane');
  assert.equal(await regimeOf('?idx=t%3C16%20?%20t%20:%201000%2B64*(t-16)'), 'mixed');
  assert.match(
    await driver.findElement(By.css('[data-testid="ramp-description"]')).getText(),
    /^Address ramp, mixed: no single slope\.$/,
  );
  const ink = await driver.executeScript(`
    const c = document.querySelector('[data-testid="ramp"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== d[0]) n++;
    return n;`);
  assert.ok(ink > 2000, `the ramp is drawn: ${ink}`);
});

test('Ex8a row against column, built through the matrix builder', async () => {
  await openApp(driver, site.url);
  await driver.findElement(By.css('[data-testid="builders"] summary')).click();
  await driver.findElement(By.css('[data-testid="builder-kind"] option[value="matrix"]')).click();
  await typeIntoId(driver, 'builder-cols', '1024');
  await typeIntoId(driver, 'builder-pitch', '1024');
  await driver.findElement(By.css('[data-testid="builder-traversal"] option[value="row"]')).click();
  await driver.findElement(By.css('[data-testid="builder-apply"]')).click();
  const idx = () => driver.findElement(By.css('[data-testid="input-idx"]')).getAttribute('value');
  assert.equal(await idx(), 't');
  assert.equal(await valueOf(driver, 'sectors'), '4', 'along a row: coalesced');
  await driver.findElement(By.css('[data-testid="builder-traversal"] option[value="column"]')).click();
  await driver.findElement(By.css('[data-testid="builder-apply"]')).click();
  assert.equal(await idx(), '1024*t');
  assert.equal(await valueOf(driver, 'sectors'), '32', 'down a column: one sector per lane');
  // The float3 .x example, then the same field as a structure of arrays, in one click.
  await driver.findElement(By.css('[data-testid="builder-kind"] option[value="structures"]')).click();
  await driver.findElement(By.css('[data-testid="builder-apply"]')).click();
  assert.equal(await idx(), '3*t');
  assert.equal(await valueOf(driver, 'sectors'), '12');
  // "Compare with the structure of arrays" keeps the array of structures as A and shows the
  // structure of arrays as B beside it, instead of replacing A.
  await driver.findElement(By.css('[data-testid="builder-soa"]')).click();
  assert.equal(await idx(), '3*t');
  assert.equal(await valueOf(driver, 'a.sectors'), '12');
  assert.equal(await valueOf(driver, 'b.sectors'), '4');
  // Errors show on their field while typing, and Apply waits for a valid form.
  await typeIntoId(driver, 'builder-field-bytes', '3');
  assert.deepEqual(await errors(driver), { 'field-bytes': 'the field must be 1, 2, 4, 8 or 16 bytes, found 3' });
  assert.equal(await driver.findElement(By.css('[data-testid="builder-apply"]')).getAttribute('disabled'), 'true');
});

test('a lane is linked between the sector map and the lane table, by pointer and by keyboard', async () => {
  await openApp(driver, site.url, '?base=8');
  const highlighted = () =>
    driver.executeScript(
      'return [...document.querySelectorAll(\'[data-testid="lane-row"].highlight\')].map((r) => r.dataset.lane)',
    );
  const map = await driver.findElement(By.css('[data-testid="sector-map"]'));
  // Keyboard: the map takes focus, arrows walk the lanes, Escape lets go.
  await map.sendKeys(Key.ARROW_RIGHT);
  assert.deepEqual(await highlighted(), ['0']);
  await map.sendKeys(Key.ARROW_RIGHT, Key.ARROW_RIGHT);
  assert.deepEqual(await highlighted(), ['2']);
  await map.sendKeys(Key.ESCAPE);
  assert.deepEqual(await highlighted(), []);
  // Pointer over lane 0's dot (16 px in, plus half a byte of a 4-byte slot).
  const [width] = await driver.executeScript('return [arguments[0].clientWidth]', map);
  const lane0 = await driver.executeScript(
    'return arguments[0]',
    16 + Math.min((width - 32) / 5, 140) * (8.5 / 32),
  );
  const rect = await map.getRect();
  await driver.actions().move({ origin: map, x: Math.round(lane0 - rect.width / 2), y: 0 }).perform();
  assert.deepEqual(await highlighted(), ['0']);
  // And the reverse: a row under the pointer rings its lane on the map.
  const before = await driver.executeScript('return arguments[0].toDataURL()', map);
  await driver.actions().move({ origin: await driver.findElement(By.css('[data-testid="lane-row"][data-lane="20"]')) }).perform();
  assert.deepEqual(await highlighted(), ['20']);
  assert.notEqual(await driver.executeScript('return arguments[0].toDataURL()', map), before, 'the map redrew');
  // Keyboard from the table's side: Down and Up walk the lanes there too.
  // (The pointer is parked on the page title first, so rows scrolling under it stay quiet.)
  await driver.actions().move({ origin: await driver.findElement(By.css('[data-testid="lane-row"][data-lane="21"] td')) }).perform();
  assert.deepEqual(await highlighted(), ['21']);
  await driver.actions().move({ origin: await driver.findElement(By.css('h1')) }).perform();
  assert.deepEqual(await highlighted(), [], 'leaving the table lets go of the lane');
  await driver.executeScript("document.querySelector('.lane-table').focus()");
  const table = await driver.switchTo().activeElement();
  await table.sendKeys(Key.ESCAPE, Key.ARROW_DOWN, Key.ARROW_DOWN);
  assert.deepEqual(await highlighted(), ['1']);
  await table.sendKeys(Key.ARROW_UP);
  assert.deepEqual(await highlighted(), ['0']);
});

test('a comparison permalink shows B beside A with the ratio, and the course pairs fill both', async () => {
  await openApp(driver, site.url, '?compare=1&idx=t&b.idx=t*1024');
  assert.equal(
    await driver.findElement(By.css('[data-testid="comparison"]')).getText(),
    'Scenario B moves 8× more bytes than scenario A (1024 B against 128 B), in 8× more sectors (32 against 4).',
  );
  assert.equal(await valueOf(driver, 'a.sectors'), '4');
  assert.equal(await valueOf(driver, 'b.sectors'), '32');
  assert.equal(await valueOf(driver, 'sectors'), '4', "A's own results keep their ids");
  await typeInto(driver, 'b.idx', '2*t');
  assert.equal(await valueOf(driver, 'b.transferred-bytes'), '256');
  await expectUrl(driver, /compare=1.*b\.idx=2\*t/);
  await driver.findElement(By.css('[data-testid="pair"] option[value="row-column"]')).click();
  assert.equal(
    await driver.findElement(By.css('[data-testid="comparison"]')).getText(),
    'Column traversal moves 8× more bytes than row traversal (1024 B against 128 B), in 8× more sectors (32 against 4).',
  );
  await driver.findElement(By.css('[data-testid="pair"] option[value="volta-fermi"]')).click();
  assert.equal(await valueOf(driver, 'b.transferred-bytes'), '256');
  assert.equal(await driver.findElement(By.css('[data-testid="input-b.arch"]')).getAttribute('value'), 'fermi-l1');
  await driver.findElement(By.css('[data-testid="compare"]')).click();
  assert.equal((await driver.findElements(By.css('[data-testid="comparison"]'))).length, 0);
  await driver.sleep(300);
  assert.doesNotMatch(await driver.getCurrentUrl(), /compare=1|b\./);
  assert.deepEqual(await pageErrors(driver), []);
});
