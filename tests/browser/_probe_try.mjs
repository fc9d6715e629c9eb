import { serveStatic, startBrowser } from './harness.mjs';
import { By, until } from 'selenium-webdriver';
import { writeFile } from 'node:fs/promises';
const srv = await serveStatic();
const { driver, quit } = await startBrowser({ width: 1280, height: 1600, extraArgs: ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'] });
try {
  await driver.get(`${srv.url}/?tab=probe&n=4096`);
  const run = await driver.wait(until.elementLocated(By.css('[data-testid="probe-run"]')), 10000);
  await driver.wait(async () => (await run.getAttribute('disabled')) === null, 15000);
  console.log('adapter:', await driver.findElement(By.css('[data-testid="probe-adapter"]')).getText());
  const t0 = Date.now();
  await run.click();
  const status = await driver.findElement(By.css('[data-testid="probe-status"]'));
  await driver.wait(async () => !['running'].includes(await status.getAttribute('data-value')), 120000);
  console.log('status', await status.getAttribute('data-value'), await status.getText(), (Date.now()-t0)+'ms');
  for (const row of await driver.findElements(By.css('[data-testid="probe-row"]'))) {
    console.log(await row.getAttribute('data-stride'), await row.getAttribute('data-median-ms'), await row.getAttribute('data-useful-gbps'), await row.getAttribute('data-predicted-sectors'), await row.getAttribute('data-checksum-ok'));
  }
  const logs = await driver.manage().logs().get('browser');
  for (const l of logs) console.log('LOG', l.level.name, l.message.slice(0, 300));
  await writeFile('/tmp/probe.png', await driver.takeScreenshot(), 'base64');
} finally { await quit(); await srv.close(); }
