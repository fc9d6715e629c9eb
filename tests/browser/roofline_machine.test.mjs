// The Roofline lab's machine mode in real headless Chromium, against the release build in
// dist/: a preset by link, points by click and by keyboard, bad values named, the kernel and
// probe hand-offs (the probe on SwiftShader, labelled as software), axe, 320 px, dark mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { By, until } from 'selenium-webdriver';
import { serveStatic, startBrowser, openApp, errors, pageErrors, axe, scheme, expectUrl, typeIntoId, WEBGPU_ARGS, panelSettled } from './harness.mjs';

let site;
let browser;
let driver;

before(async () => {
  site = await serveStatic();
  // SwiftShader for the probe's hand-off; the rest of the lab does not need WebGPU.
  browser = await startBrowser({ extraArgs: WEBGPU_ARGS });
  driver = browser.driver;
});

after(async () => {
  await browser?.quit();
  await site?.close();
});

const byId = (testid) => driver.findElement(By.css(`[data-testid="${testid}"]`));
const rows = (testid) =>
  driver.executeScript(
    `return [...document.querySelectorAll('[data-testid="${testid}"]')].map((r) => ({ ...r.dataset }));`,
  );
const points = async () => (await rows('roof-point')).map(({ testid, ...rest }) => rest);

/** Counts canvas pixels that differ from the top-left (background) pixel. */
const inkedPixels = () =>
  driver.executeScript(`
    const c = document.querySelector('[data-testid="roofline-machine-chart"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) n++;
    }
    return n;`);

test('a preset by link: its ceilings, its source, and each point read exactly', async () => {
  await openApp(driver, site.url, '?tab=roofline&machine=A100&pt.1=saxpy:0.125:150&pt.2=gemm:50:15000:DRAM:FP32');
  await driver.wait(until.elementLocated(By.css('[data-testid="roof"]')), 10000);
  assert.equal(await byId('roofs-mode').isSelected(), true);
  assert.deepEqual(
    (await rows('roof')).map((r) => `${r.kind} ${r.name} ${r.value}`),
    ['bw DRAM 1555', 'peak FP64 9700', 'peak FP32 19500', 'peak Tensor 312000'],
  );
  assert.match(await byId('machine-source').getText(), /NVIDIA A100 SXM4 40 GB: .*https:\/\/glennklockwood\.com/);
  assert.deepEqual(await points(), [
    { name: 'saxpy', oi: '0.125', p: '150', boundBy: 'DRAM', bound: 'memory', attainable: '194.375', fraction: '0.7717041800643086' },
    { name: 'gemm', oi: '50', p: '15000', boundBy: 'FP32', bound: 'compute', attainable: '19500', fraction: '0.7692307692307693' },
  ]);
  assert.match(await byId('roofline-machine-description').getText(), /Point saxpy: I = 0.125 FLOP\/byte, P = 150 GFLOP\/s; roof 194.375 GFLOP\/s bound by DRAM/);
  assert.ok((await inkedPixels()) > 2000, 'the chart is drawn');
  // An explicit value overrides the preset, and the page says so.
  await typeIntoId(driver, 'input-peak.1', 'FP64:10000');
  assert.match(await byId('machine-override').getText(), /override the A100 preset: peak\.1/);
  await expectUrl(driver, /roofs=custom&machine=A100&peak\.1=FP64:10000&pt\.1=saxpy:0\.125:150/);
  assert.deepEqual(await pageErrors(driver), []);
});

test('bad values get a notice naming the field, and the default is used', async () => {
  await openApp(driver, site.url, '?tab=roofline&machine=V100&bw.2=L2&pt.1=k:1:10:L9');
  await driver.wait(until.elementLocated(By.css('[data-testid="roof-point"]')), 10000);
  const notices = await driver.executeScript(
    `return [...document.querySelectorAll('[data-testid="link-warning"]')].map((e) => e.textContent);`,
  );
  assert.ok(notices.some((n) => n.startsWith("`bw.2=L2` 'L2' is not NAME:GBps")), notices.join('\n'));
  assert.ok(notices.some((n) => n.includes("names the bandwidth ceiling 'L9', which is not defined (DRAM); using DRAM")), notices.join('\n'));
  const shown = await errors(driver);
  assert.match(shown['bw.2'], /^bw\.2: 'L2' is not NAME:GBps/);
  assert.match(shown['pt.1'], /^pt\.1: names the bandwidth ceiling 'L9'/);
  assert.equal((await points())[0].boundBy, 'DRAM', 'the point is read against the default');
  assert.deepEqual(await pageErrors(driver), []);
});

test('a point is added by a click on the chart and by the keyboard', async () => {
  await openApp(driver, site.url, '?tab=roofline&machine=H100');
  const chart = await driver.wait(until.elementLocated(By.css('[data-testid="roofline-machine-chart"]')), 10000);
  await driver.wait(async () => (await inkedPixels()) > 2000, 5000);
  await driver.actions().move({ origin: chart, x: 0, y: 0 }).click().perform();
  await driver.wait(async () => (await points()).length === 1, 3000);
  const clicked = (await points())[0];
  assert.equal(clicked.name, 'P1');
  assert.ok(Number(clicked.oi) > 0 && Number(clicked.p) > 0, JSON.stringify(clicked));
  assert.match(await byId('point-added').getText(), /Added point P1 as pt\.1/);
  await expectUrl(driver, /pt\.1=P1:/);

  // Keyboard: the chart takes focus; arrows move a cursor in tenths of a decade, Enter adds.
  await driver.executeScript('arguments[0].focus()', chart);
  const keys = ['\uE014', '\uE014', '\uE014', '\uE013', '\uE013'];
  for (const key of keys) await chart.sendKeys(key);
  assert.match(await byId('roofline-cursor').getAttribute('textContent'), /Cursor at I = 2 FLOP\/byte, P = 158 GFLOP\/s/);
  const scrolled = await driver.executeScript('return window.scrollY');
  await chart.sendKeys('\uE007');
  await driver.wait(async () => (await points()).length === 2, 3000);
  const typed = (await points())[1];
  assert.deepEqual([typed.name, typed.oi, typed.p, typed.boundBy], ['P2', '2', '158', 'DRAM']);
  assert.equal(await driver.executeScript('return window.scrollY'), scrolled, 'the arrows did not scroll the page');

  // The form does the same, with named ceilings.
  await typeIntoId(driver, 'point-name', 'fp64 kernel');
  await typeIntoId(driver, 'point-oi', '20');
  await typeIntoId(driver, 'point-p', '30000');
  await typeIntoId(driver, 'point-peak', 'FP64');
  await byId('point-add').click();
  await driver.wait(async () => (await points()).length === 3, 3000);
  const formed = (await points())[2];
  assert.deepEqual([formed.name, formed.attainable, formed.boundBy, formed.bound], ['fp64 kernel', '34000', 'FP64', 'compute']);
  // A bad value in the form is refused with its reason.
  await typeIntoId(driver, 'point-oi', 'x');
  await byId('point-add').click();
  assert.match((await errors(driver)).point, /has an intensity 'x'/);
  assert.equal((await points()).length, 3);
  await byId('remove-pt.1').click();
  assert.deepEqual((await points()).map((p) => p.name), ['P2', 'fp64 kernel']);
});

test('the switch keeps the course mode and its two runs as they were', async () => {
  await openApp(driver, site.url, '?tab=roofline');
  assert.equal(await byId('roofs-mode').isSelected(), false);
  await byId('roofs-mode').click();
  await driver.wait(until.elementLocated(By.css('[data-testid="roof"]')), 5000);
  // The machine starts from the course's roof: B = 100 GB/s and the synthetic 1000 GFLOP/s.
  assert.deepEqual((await rows('roof')).map((r) => `${r.name} ${r.value}`), ['B 100', 'synthetic 1000']);
  await expectUrl(driver, /roofs=custom&bw\.1=B:100&peak\.1=synthetic:1000/);
  await byId('roofs-mode').click();
  await expectUrl(driver, /\?v=1&tab=roofline$/);
  await typeIntoId(driver, 'oi-input', '2');
  await typeIntoId(driver, 'bw-input', '80');
  await byId('step').click();
  assert.equal(await byId('attainable').getAttribute('data-value'), '160');
  await typeIntoId(driver, 'oi-input', '1');
  await byId('step').click();
  assert.equal(await byId('attainable').getAttribute('data-value'), '80');
});

test('"Use this efficiency" in machine mode also adds a point at the scaled intensity', async () => {
  // idx = 2t moves every other 4-byte element: 50 % useful, so I = 2 becomes 1.
  await openApp(driver, site.url, '?roofs=custom&machine=A100&oi=2&idx=2*t');
  await byId('use-efficiency').click();
  await panelSettled(driver);
  await driver.wait(async () => (await points()).length === 1, 5000);
  const [point] = await points();
  assert.deepEqual([point.name, point.oi, point.attainable, point.boundBy], ['calculator', '1', '1555', 'DRAM']);
  // The lab's own intensity moved to 1 as well (the default, so out of the link).
  await expectUrl(driver, /\?v=1&tab=roofline&idx=2\*t&roofs=custom&machine=A100&pt\.1=calculator:1:1555$/);
});

test('"Use this kernel" in machine mode places it at DRAM and at request level', async () => {
  // Every block reads the same 1 KB: 4096 request-level bytes, but 1024 DRAM bytes (cached).
  await driver.get(`${site.url}/?tab=kernel&roofs=custom&machine=A100&grid=4&block=256&a1.idx=threadIdx.x&flops=64`);
  const status = () => byId('kernel-status').getAttribute('data-value');
  await driver.wait(until.elementLocated(By.css('[data-testid="kernel-status"]')), 30000);
  await driver.wait(async () => (await status()) === 'done', 30000);
  assert.match(await byId('kernel-to-roofline-why').getText(), /adds two points/);
  await byId('kernel-to-roofline').click();
  await panelSettled(driver);
  await driver.wait(async () => (await points()).length === 2, 5000);
  const placed = await points();
  assert.deepEqual(
    placed.map((p) => [p.name, p.oi, p.attainable, p.boundBy]),
    [
      ['kernel DRAM', '64', '99520', 'DRAM'],
      ['kernel requests', '16', '24880', 'DRAM'],
    ],
  );
});

test('"Add my GPU\'s bandwidth" adds the probe\'s contiguous GB/s, labelled as software', async () => {
  await driver.get(`${site.url}/?tab=probe&strides=4,32&n=2048`);
  const status = await driver.wait(until.elementLocated(By.css('[data-testid="probe-status"]')), 15000);
  await driver.wait(async () => (await status.getAttribute('data-value')) !== 'detecting', 15000);
  await byId('probe-run').click();
  await driver.wait(async () => (await status.getAttribute('data-value')) !== 'running', 120000);
  assert.equal(await status.getAttribute('data-value'), 'done');
  const why = await byId('probe-to-roofline-why').getText();
  assert.match(why, /\(software\)' at [\d.]+ GB\/s/);
  assert.match(why, /A software adapter is not a GPU/);
  const measured = await driver.executeScript(
    `return document.querySelector('[data-testid="probe-row"][data-stride="4"]').dataset.usefulGbps;`,
  );
  await byId('probe-to-roofline').click();
  await panelSettled(driver);
  await driver.wait(until.elementLocated(By.css('[data-testid="roof"]')), 5000);
  const bw = (await rows('roof')).filter((r) => r.kind === 'bw');
  const software = bw.find((r) => r.name.endsWith('(software)'));
  assert.ok(software, JSON.stringify(bw));
  assert.ok(Math.abs(Number(software.value) / Number(measured) - 1) < 0.01, `${software.value} vs ${measured}`);
  assert.match(await byId('machine-software-note').getText(), /not a GPU/);
});

test('machine mode is axe-clean in light and dark, and fits 320 px', async () => {
  const query = '?tab=roofline&machine=MI250X&bw.2=L2:9000&pt.1=stream:0.1:250&pt.2=bad';
  for (const value of ['light', 'dark']) {
    await scheme(driver, value);
    await openApp(driver, site.url, query);
    await driver.wait(until.elementLocated(By.css('[data-testid="roof-point"]')), 10000);
    assert.deepEqual(await axe(driver), [], `${value}: axe`);
    assert.ok((await inkedPixels()) > 2000, `${value}: the chart is drawn`);
  }
  await scheme(driver, 'light');
  await driver.sendDevToolsCommand('Emulation.setDeviceMetricsOverride', {
    width: 320, height: 800, deviceScaleFactor: 2, mobile: true,
  });
  try {
    await openApp(driver, site.url, query);
    await driver.wait(until.elementLocated(By.css('[data-testid="roof-point"]')), 10000);
    const [scroll, inner] = await driver.executeScript('return [document.documentElement.scrollWidth, window.innerWidth];');
    assert.ok(scroll <= inner, `page is ${scroll} px wide at ${inner} px`);
  } finally {
    await driver.sendDevToolsCommand('Emulation.clearDeviceMetricsOverride', {});
  }
  assert.deepEqual(await pageErrors(driver), []);
});
