import { serveStatic, startBrowser, WEBGPU_ARGS, scheme } from './harness.mjs';
import { By, until } from 'selenium-webdriver';
import { writeFile } from 'node:fs/promises';
const srv = await serveStatic();
{
  const { driver, quit } = await startBrowser({ width: 1280, height: 1900, extraArgs: WEBGPU_ARGS });
  try {
    await scheme(driver, 'dark');
    await driver.get(`${srv.url}/?tab=probe&n=4096`);
    const run = await driver.wait(until.elementLocated(By.css('[data-testid="probe-run"]')), 10000);
    await driver.wait(async () => (await run.getAttribute('disabled')) === null, 15000);
    await run.click();
    await driver.sleep(150);
    await writeFile('/tmp/probe-running.png', await driver.takeScreenshot(), 'base64');
    const status = await driver.findElement(By.css('[data-testid="probe-status"]'));
    await driver.wait(async () => (await status.getAttribute('data-value')) !== 'running', 60000);
    await driver.findElement(By.css('.warp-addresses summary')).click();
    await writeFile('/tmp/probe-dark.png', await driver.takeScreenshot(), 'base64');
  } finally { await quit(); }
}
{
  const { driver, quit } = await startBrowser({ width: 320, height: 1400, extraArgs: [] });
  try {
    await driver.get(`${srv.url}/?tab=probe`);
    await driver.sleep(1500);
    await writeFile('/tmp/probe-narrow-nogpu.png', await driver.takeScreenshot(), 'base64');
  } finally { await quit(); }
}
await srv.close();
