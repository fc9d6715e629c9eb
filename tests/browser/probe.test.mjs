// The GPU probe in real headless Chromium. With SwiftShader (WebGPU on the CPU) it runs end
// to end with a small n; without WebGPU flags there is no adapter, and the panel says why
// while the rest of the page keeps working. No bandwidth ratio is asserted: SwiftShader's
// timings say nothing about a GPU.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { By, until } from 'selenium-webdriver';
import {
  serveStatic,
  startBrowser,
  typeInto,
  typeIntoId,
  errors,
  pageErrors,
  valueOf,
  captureDownload,
  axe,
  scheme,
  recordViolations,
  foreignRequests,
  WEBGPU_ARGS,
} from './harness.mjs';

const STRIDES = ['4', '32', '64', '128'];

let site;
before(async () => {
  site = await serveStatic();
});
after(async () => {
  await site?.close();
});

const byId = (driver, testid) => driver.findElement(By.css(`[data-testid="${testid}"]`));

/** Opens the probe panel and waits until detection has settled. */
async function openProbe(driver, query) {
  await driver.get(`${site.url}/${query}`);
  const status = await driver.wait(until.elementLocated(By.css('[data-testid="probe-status"]')), 15000);
  await driver.wait(async () => (await status.getAttribute('data-value')) !== 'detecting', 15000);
  return status;
}

/** Waits until the run in progress ends; returns the final phase. */
async function settle(driver, status, ms = 120000) {
  await driver.wait(async () => (await status.getAttribute('data-value')) !== 'running', ms);
  return status.getAttribute('data-value');
}

async function rows(driver) {
  return driver.executeScript(`
    return [...document.querySelectorAll('[data-testid="probe-row"]')].map((r) => ({ ...r.dataset }));`);
}

describe('with WebGPU on SwiftShader', () => {
  let browser;
  let driver;
  before(async () => {
    browser = await startBrowser({ extraArgs: WEBGPU_ARGS });
    driver = browser.driver;
    await recordViolations(driver);
  });
  after(async () => {
    await browser?.quit();
  });

  test('a link fills the fields but never starts GPU work', async () => {
    const status = await openProbe(driver, '?tab=probe&strides=4,32&n=2048');
    assert.equal(await status.getAttribute('data-value'), 'ready');
    assert.equal(await byId(driver, 'input-strides').getAttribute('value'), '4,32');
    assert.equal(await byId(driver, 'input-n').getAttribute('value'), '2048');
    // Only the model's prediction is shown: no times, no checksums.
    const before = await rows(driver);
    assert.deepEqual(before.map((r) => [r.stride, r.predictedSectors, r.medianMs, r.checksumOk]), [
      ['4', '4', '', ''],
      ['32', '32', '', ''],
    ]);
    assert.equal(await byId(driver, 'probe-cancel').getAttribute('disabled'), 'true');
  });

  test('the adapter is described and the software warning is prominent', async () => {
    await openProbe(driver, '?tab=probe');
    const adapter = byId(driver, 'probe-adapter');
    assert.equal(await adapter.getAttribute('data-fallback'), 'true');
    assert.match(await adapter.getText(), /swiftshader/i);
    assert.match(await adapter.getText(), /timestamp-query/);
    const warning = byId(driver, 'probe-fallback-warning');
    assert.ok(await warning.isDisplayed());
    assert.match(await warning.getText(), /say nothing about a GPU/);
    assert.deepEqual(await driver.findElements(By.css('[data-testid="probe-unavailable"]')), []);
  });

  test('a run completes with correct checksums, a time per stride, and full exports', async () => {
    const status = await openProbe(driver, '?tab=probe&n=4096');
    await byId(driver, 'probe-run').click();
    assert.equal(await settle(driver, status), 'done', await status.getText());
    const done = await rows(driver);
    assert.deepEqual(done.map((r) => r.stride), STRIDES);
    assert.deepEqual(done.map((r) => r.predictedSectors), ['4', '32', '32', '32']);
    for (const r of done) {
      assert.equal(r.checksumOk, 'true', `stride ${r.stride}`);
      assert.ok(Number(r.medianMs) > 0, `stride ${r.stride} median ${r.medianMs}`);
      assert.ok(Number(r.usefulGbps) > 0, `stride ${r.stride} GB/s ${r.usefulGbps}`);
    }
    const progress = byId(driver, 'probe-progress');
    assert.equal(await progress.getAttribute('value'), await progress.getAttribute('max'));
    const reading = await byId(driver, 'probe-reading').getText();
    for (const s of ['32', '64', '128']) assert.match(reading, new RegExp(`${s} B stride ran .*the sector model predicts 8×`));
    assert.ok(await byId(driver, 'probe-chart').isDisplayed());
    assert.match(await byId(driver, 'probe-chart-description').getText(), /128 B: .* GB\/s \(model/);

    const json = await captureDownload(driver, 'probe-export-json');
    assert.equal(json.name, 'coalescing-probe.json');
    const evidence = JSON.parse(json.text);
    assert.equal(evidence.adapter.architecture, 'swiftshader');
    assert.equal(evidence.software_adapter, true);
    assert.match(evidence.browser, /Chrome/);
    assert.equal(evidence.useful_floats_per_dispatch, 4096);
    assert.deepEqual(evidence.strides.map((s) => String(s.stride_bytes)), STRIDES);
    for (const s of evidence.strides) {
      assert.equal(s.warp_addresses.length, 32);
      assert.equal(s.raw_ms_per_dispatch.length, 7);
      assert.equal(s.checksum, s.expected_checksum);
      assert.ok(s.useful_fraction > 0 && s.transferred_bytes_per_warp > 0);
    }
    const csv = await captureDownload(driver, 'probe-export-csv');
    assert.equal(csv.name, 'coalescing-probe.csv');
    const table = JSON.parse(
      execFileSync('python3', ['-c', 'import csv,sys,json; print(json.dumps([r for r in csv.reader(sys.stdin) if r and not r[0].startswith("#")]))'], {
        input: csv.text,
      }),
    );
    const header = table[0];
    assert.equal(header[0], 'stride_bytes');
    const strideColumn = table.slice(1).map((r) => r[0]);
    for (const s of STRIDES) assert.equal(strideColumn.filter((x) => x === s).length, 32, `stride ${s}`);
    assert.deepEqual(await pageErrors(driver), []);
  });

  test('Cancel stops a run, and Run works again afterwards', async () => {
    const status = await openProbe(driver, '?tab=probe&n=8192&strides=4,32,64,128,256,512');
    await byId(driver, 'probe-run').click();
    await driver.wait(async () => (await byId(driver, 'probe-cancel').getAttribute('disabled')) === null, 5000);
    await byId(driver, 'probe-cancel').click();
    assert.equal(await settle(driver, status), 'cancelled');
    const cancelled = await rows(driver);
    assert.equal(cancelled.length, 6, 'one row per stride after a cancelled run');
    assert.ok(cancelled.every((r) => r.medianMs === ''), 'a cancelled run reports nothing');
    await typeIntoId(driver, 'input-strides', '4,64');
    await typeIntoId(driver, 'input-n', '1024');
    await byId(driver, 'probe-run').click();
    assert.equal(await settle(driver, status), 'done');
    assert.deepEqual((await rows(driver)).map((r) => r.checksumOk), ['true', 'true']);
  });

  test('a lost device stops the run with a message, and Run works again', async () => {
    const status = await openProbe(driver, '?tab=probe&n=8192');
    // Simulate a driver reset: every new device reports itself lost shortly after creation.
    await driver.executeScript(`
      window.__lost = Object.getOwnPropertyDescriptor(GPUDevice.prototype, 'lost');
      Object.defineProperty(GPUDevice.prototype, 'lost', {
        configurable: true,
        get() {
          return new Promise((resolve) =>
            setTimeout(() => resolve({ reason: 'unknown', message: 'simulated driver reset' }), 30));
        },
      });`);
    await byId(driver, 'probe-run').click();
    assert.equal(await settle(driver, status), 'lost');
    assert.match(await status.getText(), /device was lost \(simulated driver reset\).*press Run to try again/);
    const lostRows = await rows(driver);
    assert.equal(lostRows.length, 4, 'one row per default stride after a lost run');
    assert.ok(lostRows.every((r) => r.medianMs === ''), 'nothing from the lost run is shown');
    await driver.executeScript(`Object.defineProperty(GPUDevice.prototype, 'lost', window.__lost);`);
    await byId(driver, 'probe-run').click();
    assert.equal(await settle(driver, status), 'done');
    assert.deepEqual(await pageErrors(driver), []);
  });

  test('bad fields are named, Run waits for a fix, and sizes are checked before allocating', async () => {
    const status = await openProbe(driver, '?tab=probe');
    await typeIntoId(driver, 'input-strides', '4,6,<b>x</b>');
    let shown = await errors(driver);
    assert.match(shown.strides, /^strides: 6 is not a multiple of 4 bytes/);
    assert.equal(await byId(driver, 'probe-run').getAttribute('disabled'), 'true');
    await typeIntoId(driver, 'input-strides', '4096');
    await typeIntoId(driver, 'input-n', '1048576');
    shown = await errors(driver);
    // SwiftShader binds 1 GiB: 2^20 floats at 4096 B need 4 GiB.
    assert.match(shown.n, /^n: 1048576 floats at the 4096-byte stride need a 4 GiB buffer, more than this device's largest \(1 GiB\)/);
    assert.equal(await byId(driver, 'probe-run').getAttribute('disabled'), 'true');
    assert.equal(await status.getAttribute('data-value'), 'ready');
    await typeIntoId(driver, 'input-n', '');
    assert.deepEqual(await errors(driver), {});
    assert.equal(await byId(driver, 'probe-run').getAttribute('disabled'), null);
    assert.deepEqual(await pageErrors(driver), []);
  });

  test('with results on show: axe-clean in light and dark, no CSP violation, no foreign request', async () => {
    const status = await openProbe(driver, '?tab=probe&n=1024&strides=4,128');
    await byId(driver, 'probe-run').click();
    assert.equal(await settle(driver, status), 'done');
    await driver.findElement(By.css('.warp-addresses summary')).click();
    for (const mode of ['light', 'dark']) {
      await scheme(driver, mode);
      assert.deepEqual(await axe(driver), [], mode);
    }
    await scheme(driver, 'light');
    assert.deepEqual(await driver.executeScript('return window.__violations'), []);
    assert.deepEqual(await foreignRequests(driver), []);
  });
});

describe('with WebGPU but no timestamp-query', () => {
  let browser;
  let driver;
  before(async () => {
    browser = await startBrowser({ extraArgs: WEBGPU_ARGS });
    driver = browser.driver;
    // SwiftShader offers timestamp-query; hide it, as a browser without it would.
    await driver.sendDevToolsCommand('Page.addScriptToEvaluateOnNewDocument', {
      source: `const has = GPUSupportedFeatures.prototype.has;
        GPUSupportedFeatures.prototype.has = function (name) {
          return name === 'timestamp-query' ? false : has.call(this, name);
        };`,
    });
  });
  after(async () => {
    await browser?.quit();
  });

  test('times come from the wall clock and are labelled as an upper bound', async () => {
    const status = await openProbe(driver, '?tab=probe&n=2048&strides=4,128');
    assert.equal(await byId(driver, 'probe-adapter').getAttribute('data-timestamps'), 'false');
    assert.match(await byId(driver, 'probe-adapter').getText(), /not available \(times are an upper bound\)/);
    await byId(driver, 'probe-run').click();
    assert.equal(await settle(driver, status), 'done', await status.getText());
    const measured = await rows(driver);
    assert.deepEqual(measured.map((r) => r.stride), ['4', '128']);
    for (const r of measured) {
      assert.equal(r.checksumOk, 'true');
      assert.ok(Number(r.medianMs) > 0, `stride ${r.stride} median ${r.medianMs}`);
    }
    assert.match(await byId(driver, 'probe-table-note').getText(), /upper bound/);
    const evidence = JSON.parse((await captureDownload(driver, 'probe-export-json')).text);
    assert.equal(evidence.timer, 'submit-to-done upper bound');
    assert.equal(evidence.adapter.timestampQuery, false);
    assert.deepEqual(await pageErrors(driver), []);
  });
});

describe('without WebGPU', () => {
  let browser;
  let driver;
  before(async () => {
    browser = await startBrowser();
    driver = browser.driver;
  });
  after(async () => {
    await browser?.quit();
  });

  test('the probe explains why it cannot run, and the calculator still works', async () => {
    const status = await openProbe(driver, '?tab=probe');
    assert.equal(await status.getAttribute('data-value'), 'unavailable');
    const why = await byId(driver, 'probe-unavailable').getText();
    assert.match(why, /WebGPU is not available/);
    assert.match(why, /no adapter/);
    assert.equal(await byId(driver, 'probe-run').getAttribute('disabled'), 'true');
    assert.deepEqual(await driver.findElements(By.css('[data-testid="probe-adapter"]')), []);
    await byId(driver, 'tab-calculator').click();
    await typeInto(driver, 'idx', '32*t');
    assert.equal(await valueOf(driver, 'sectors'), '32');
    assert.deepEqual(await pageErrors(driver), []);
  });
});
