// The CUDA source panel per warp and beyond (#27): the heat map with its text alternative and
// exports, the measure picker that colours it and ranks the worst warps, a loop's passes told
// apart, the Roofline hand-off with its FLOPs per thread (`cflops`) in both of the lab's
// modes, and the source's link written once the typing pauses, exact whenever it is read.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { openApp, pageErrors, expectUrl, captureDownload, panelSettled, typeIntoId } from './harness.mjs';

const s = session();

const status = () => s.driver.findElement(By.css('[data-testid="cuda-status"]')).getAttribute('data-value');
/** Every element matching `css` as its data attributes, with its text as `text`. */
const rows = (css) =>
  s.driver.executeScript(
    `return [...document.querySelectorAll(${JSON.stringify(css)})].map((r) => ({ ...r.dataset, text: r.textContent }));`,
  );
const text = (testid) => s.driver.findElement(By.css(`[data-testid="${testid}"]`)).getText();
const query = () => s.driver.getCurrentUrl().then((u) => new URL(u).search);
const worst = () => rows('#panel-cuda [data-testid="kernel-worst"]');

/** Opens the panel at `q` and waits until its run has ended. */
async function openCuda(q, want = 'done') {
  await openApp(s.driver, s.site.url, q);
  await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-status"]')), 15000);
  await s.driver.wait(async () => (await status()) === want, 60000);
}

/** Picks `value` in the select with test id `testid`, as a user would. */
async function pick(testid, value) {
  await s.driver.findElement(By.css(`[data-testid="${testid}"] option[value="${value}"]`)).click();
}

/** How many distinct colours the canvas `testid` holds, sampled on a grid. */
const colours = (testid) =>
  s.driver.executeScript(
    `const c = document.querySelector('[data-testid="${testid}"]');
     const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
     const seen = new Set();
     for (let y = 0; y < c.height; y += 7) for (let x = 0; x < c.width; x += 7) {
       const k = (y * c.width + x) * 4; seen.add(d[k] + ',' + d[k + 1] + ',' + d[k + 2]);
     }
     return seen.size;`,
  );

test('the heat map is drawn per warp, with its text alternative, for the tiled transpose', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-tiled');
  const canvas = await s.driver.findElement(By.css('#panel-cuda canvas[data-testid="cuda-heat"]'));
  await s.driver.wait(async () => (await colours('cuda-heat')) > 3, 5000);
  assert.equal(await canvas.getAttribute('aria-describedby'), 'cuda-heat-description');
  assert.equal(await canvas.getAttribute('role'), 'img');
  assert.equal(
    await text('cuda-heat-description'),
    "Heat map of bank conflicts per warp: 94 rows of 11 blocks, 8 warps per block; from 124 to 124 bank conflicts per warp (summed over the warp's accesses and their loop passes, the mean over a row's blocks).",
  );
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('the measure picker recolours the heat map and reorders the worst warps', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-tiled');
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-measure"]')).getAttribute('value'), 'conflicts');
  const byConflicts = await worst();
  assert.ok(byConflicts.every((r) => r.space === 'shared' && r.bankConflicts === '31'), JSON.stringify(byConflicts));
  await pick('cuda-measure', 'sectors');
  await s.driver.wait(async () => (await worst())[0].space === 'global', 5000);
  const bySectors = await worst();
  assert.notDeepEqual(bySectors.map((r) => [r.line, r.column]), byConflicts.map((r) => [r.line, r.column]));
  assert.ok(bySectors.every((r) => r.space === 'global'));
  assert.match(await text('cuda-heat-description'), /^Heat map of sectors per warp: .*from 32 to 32 sectors per warp/);
  await pick('cuda-measure', 'wavefronts');
  await s.driver.wait(async () => /^Heat map of wavefronts per warp/.test(await text('cuda-heat-description')), 5000);
  assert.equal((await worst())[0].wavefronts, '32');
  // The pick travels with the link (`cmeasure`), as the kernel view's `kmeasure` does.
  await s.driver.wait(async () => (await s.driver.getCurrentUrl()).endsWith('&cmeasure=wavefronts'), 5000);
  await openCuda('?tab=cuda&cpreset=transpose-tiled&cmeasure=excess');
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-measure"]')).getAttribute('value'), 'excess');
  assert.match(await text('cuda-heat-description'), /^Heat map of excess sectors per warp/);
});

test('the heat map downloads as a 2× PNG and as an SVG that Chromium opens', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-tiled');
  const width = await s.driver.executeScript('return document.querySelector(\'[data-testid="cuda-heat"]\').clientWidth');
  const png = await captureDownload(s.driver, 'cuda-heat-png', 'href');
  assert.equal(png.name, 'coalescing-cuda-transpose-tiled-heat-map.png');
  assert.match(png.href, /^data:image\/png;base64,/);
  const bytes = Buffer.from(png.href.split(',')[1], 'base64');
  assert.equal(bytes.readUInt32BE(16), Math.round(Math.max(width, 320) * 2), 'PNG width is 2× the CSS width');
  const svg = await captureDownload(s.driver, 'cuda-heat-svg');
  assert.equal(svg.name, 'coalescing-cuda-transpose-tiled-heat-map.svg');
  assert.match(svg.text, /^<svg /);
  assert.match(svg.text, /strongest: 124 bank conflicts per warp/);
  const size = await s.driver.executeAsyncScript(
    `const done = arguments[arguments.length - 1];
     const img = new Image();
     img.onload = () => done([img.naturalWidth, img.naturalHeight]);
     img.onerror = () => done(null);
     img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(arguments[0]);`,
    svg.text,
  );
  assert.ok(size && size[0] > 300 && size[1] > 200, `Chromium decodes the SVG: ${size}`);
  // Your own kernel's files are named custom.
  await openCuda('?tab=cuda');
  assert.equal((await captureDownload(s.driver, 'cuda-heat-svg')).name, 'coalescing-cuda-custom-heat-map.svg');
});

test('a loop\'s passes are numbered: in the worst warps and in one warp\'s executions', async () => {
  await openCuda('?tab=cuda&cpreset=transpose-naive');
  const listed = await worst();
  // The store's 32 sectors, warp by warp in the loop's order: pass 1 of warps 0 to 7, then pass 2.
  assert.deepEqual(listed.map((r) => [r.block, r.warp, r.pass]), [
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((w) => ['0,0,0', String(w), '1']),
    ['0,0,0', '0', '2'],
    ['0,0,0', '1', '2'],
  ]);
  const [first] = await s.driver.findElements(By.css('#panel-cuda [data-testid="kernel-worst-open"]'));
  assert.equal(await first.getText(), 'Open block (0,0,0) warp 0, pass 1');
  // The same line, one warp: a load and a store in each of 4 passes.
  await s.driver.findElement(By.css(`.cuda-line[data-line="${listed[0].line}"] [data-testid="cuda-pick-line"]`)).click();
  await s.driver.wait(async () => (await rows('[data-testid="cuda-warp"]')).length === 8, 5000);
  const warp = await rows('[data-testid="cuda-warp"]');
  assert.deepEqual(warp.map((r) => [r.kind, r.pass]), [
    ['load', '1'], ['store', '1'], ['load', '2'], ['store', '2'],
    ['load', '3'], ['store', '3'], ['load', '4'], ['store', '4'],
  ]);
});

test('"Use this kernel in the Roofline lab" opens the lab at cflops × threads ÷ DRAM bytes; cflops travels in the link', async () => {
  // The copy kernel: 16 blocks of 256 threads, 16 FLOPs each, over 4096 floats read and written.
  await openCuda('?tab=cuda&cflops=16');
  assert.equal(await s.driver.findElement(By.css('[data-testid="input-cflops"]')).getAttribute('value'), '16');
  assert.equal(await text('cuda-to-roofline-why'), 'I = total FLOPs ÷ DRAM bytes.');
  await s.driver.findElement(By.css('[data-testid="cuda-to-roofline"]')).click();
  await panelSettled(s.driver);
  await s.driver.wait(async () => s.driver.findElement(By.id('panel-roofline')).isDisplayed(), 5000);
  assert.equal(await s.driver.findElement(By.css('[data-testid="oi-input"]')).getAttribute('value'), '2');
  assert.equal(await text('lab-note'), "The kernel's 65536 FLOPs over 32768 DRAM bytes: intensity 2 FLOP/byte.");
  await expectUrl(s.driver, /[?&]tab=roofline&oi=2&cflops=16$/);
  // The link opens the panel again with its FLOPs.
  await openCuda((await query()).replace('tab=roofline', 'tab=cuda'));
  assert.equal(await s.driver.findElement(By.css('[data-testid="input-cflops"]')).getAttribute('value'), '16');
  // Typed: the link follows, and a fraction is a count: 1/16 × 4096 threads ÷ 32768 bytes is
  // 1/128 FLOP/byte, below the lab's 1/64.
  await typeIntoId(s.driver, 'input-cflops', '1/16');
  await expectUrl(s.driver, /[?&]cflops=1\/16$/);
  await s.driver.wait(async () => /^Not available/.test(await text('cuda-to-roofline-why')), 5000);
  assert.equal(
    await text('cuda-to-roofline-why'),
    "Not available: The kernel's intensity, 0.0078125 FLOP/byte, is outside the lab's 1/64 to 1024; set cflops to the FLOPs per thread.",
  );
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a cflops that is not a count is named in the notice and beside its field, and the hand-off says why', async () => {
  await openCuda('?tab=cuda&cflops=-1');
  const notice = await rows('[data-testid="link-warning"]');
  assert.deepEqual(notice.map((n) => n.text), [
    "`cflops=-1` must be a non-negative number of FLOPs per thread, a decimal or a fraction such as 1/4, found '-1'; using none.",
  ]);
  const [error] = await rows('#panel-cuda [data-testid="input-error"]');
  assert.equal(error.field, 'cflops');
  assert.equal(error.text, "cflops: must be a non-negative number of FLOPs per thread, a decimal or a fraction such as 1/4, found '-1'");
  assert.equal(await s.driver.findElement(By.css('[data-testid="input-cflops"]')).getAttribute('aria-invalid'), 'true');
  assert.equal(await s.driver.findElement(By.css('[data-testid="cuda-to-roofline"]')).getAttribute('disabled'), 'true');
  assert.match(await text('cuda-to-roofline-why'), /^Not available: The kernel's intensity, 0 FLOP\/byte, is outside the lab's 1\/64 to 1024; set cflops to the FLOPs per thread\.$/);
  // The bad value stays in the link as typed, as every field's does.
  assert.equal(await query(), '?v=1&tab=cuda&cflops=-1');
});

test('in machine mode the CUDA kernel becomes two points named after it, as the kernel view\'s does', async () => {
  await openCuda('?tab=cuda&roofs=custom&machine=A100&cflops=16');
  assert.match(await text('cuda-to-roofline-why'), /adds two points/);
  await s.driver.findElement(By.css('[data-testid="cuda-to-roofline"]')).click();
  await panelSettled(s.driver);
  await s.driver.wait(async () => (await rows('[data-testid="roof-point"]')).length === 2, 5000);
  const points = await rows('[data-testid="roof-point"]');
  // 65536 FLOPs over 32768 DRAM bytes and over 32768 request-level bytes (a coalesced copy).
  assert.deepEqual(points.map((p) => [p.name, p.oi, p.boundBy]), [
    ['copy DRAM', '2', 'DRAM'],
    ['copy requests', '2', 'DRAM'],
  ]);
  await expectUrl(s.driver, /pt\.1=copy%20DRAM:2:/);
});

/** Records every address-bar write's `src` in `window.__written`. */
const recordWrites = () =>
  s.driver.executeScript(
    `window.__written = [];
     const replace = history.replaceState.bind(history);
     history.replaceState = (state, title, url) => {
       window.__written.push(new URL(url, location.href).searchParams.get('src'));
       return replace(state, title, url);
     };`,
  );
const srcInUrl = () => s.driver.executeScript('return new URLSearchParams(location.search).get("src")');
const field = () => s.driver.findElement(By.css('[data-testid="input-src"]')).getAttribute('value');

test('the source\'s link is written once the typing pauses, and has every keystroke', async () => {
  await openCuda('?tab=cuda');
  const area = await s.driver.findElement(By.css('[data-testid="input-src"]'));
  await area.click();
  await s.driver.executeScript('arguments[0].setSelectionRange(arguments[0].value.length, arguments[0].value.length)', area);
  await recordWrites();
  const typed = '// every keystroke of this comment reaches the link, none lost\n';
  const started = Date.now();
  await area.sendKeys(typed);
  const took = Date.now() - started;
  const expected = await field();
  assert.ok(expected.endsWith(typed), 'no keystroke lost in the field');
  await s.driver.wait(async () => (await srcInUrl()) === expected, 3000);
  // One burst of typing is one write of the whole text; the address bar's own throttle alone
  // wrote a partial source every 150 ms, each packed from scratch.
  const written = await s.driver.executeScript('return window.__written');
  assert.ok(written.length <= 2, `${written.length} writes in ${took} ms of typing ${typed.length} keys`);
  assert.equal(written.at(-1), expected);
  assert.equal(await srcInUrl(), expected);
  assert.deepEqual(await pageErrors(s.driver), []);
});

test('a link read at once after typing is exact: Copy link, and the page being hidden', async () => {
  await openCuda('?tab=cuda');
  const area = await s.driver.findElement(By.css('[data-testid="input-src"]'));
  // Copy link right after the last keystroke: the permalink holds it.
  await s.driver.executeScript(
    `const a = arguments[0];
     a.value += '// a';
     a.dispatchEvent(new Event('input', { bubbles: true }));
     document.querySelector('[data-testid="copy-link"]').click();`,
    area,
  );
  const copied = await s.driver.findElement(By.css('[data-testid="permalink"]')).getAttribute('value');
  assert.equal(new URL(copied).searchParams.get('src'), await field());
  // The page hidden right after a keystroke (a tab switch, the phone's app switcher, leaving):
  // the address bar holds it before the handler returns.
  for (const event of ['visibilitychange', 'pagehide']) {
    const written = await s.driver.executeScript(
      `const a = arguments[0];
       a.value += '\\n// ${event}';
       a.dispatchEvent(new Event('input', { bubbles: true }));
       return new Promise((done) => queueMicrotask(() => {
         window.dispatchEvent(new Event('${event}'));
         done(new URLSearchParams(location.search).get('src'));
       }));`,
      area,
    );
    assert.equal(written, await field(), event);
  }
  // A tab switch right after a keystroke: Back returns to the source as typed.
  await s.driver.executeScript(
    `const a = arguments[0];
     a.value += '\\n// back';
     a.dispatchEvent(new Event('input', { bubbles: true }));
     document.querySelector('[data-testid="tab-calculator"]').click();`,
    area,
  );
  const typed = await field();
  await s.driver.navigate().back();
  await s.driver.wait(async () => (await srcInUrl()) === typed, 3000);
  await s.driver.wait(async () => (await field()) === typed, 3000);
});
