// Screenshots for a person to look at (not a test): light and dark, wide and narrow, 1× and 2×.
// Usage: node tests/browser/screenshots.mjs [query]  → tests/browser/screenshots/*.png
import { mkdir, writeFile } from 'node:fs/promises';
import { serveStatic, startBrowser, openApp } from './harness.mjs';

const out = new URL('./screenshots/', import.meta.url);
await mkdir(out, { recursive: true });
const query = process.argv[2] ?? '';
const site = await serveStatic();
const shots = [
  { name: 'wide-light', width: 1280, height: 1400, dpr: 1, dark: false },
  { name: 'wide-dark', width: 1280, height: 1400, dpr: 1, dark: true },
  { name: 'narrow-light', width: 360, height: 1800, dpr: 2, dark: false },
];
for (const shot of shots) {
  const { driver, quit } = await startBrowser(shot);
  try {
    if (shot.dark) {
      await driver.sendDevToolsCommand('Emulation.setEmulatedMedia', {
        features: [{ name: 'prefers-color-scheme', value: 'dark' }],
      });
    }
    await openApp(driver, site.url, query);
    await writeFile(new URL(`${shot.name}.png`, out), await driver.takeScreenshot(), 'base64');
  } finally {
    await quit();
  }
}
await site.close();
console.log(`screenshots in ${out.pathname}`);
