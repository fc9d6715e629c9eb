// make bench: the budget table, measured on the release build in headless Chromium.
// Figures only; nothing here passes or fails a build.
import { serveStatic, startBrowser, openApp } from './harness.mjs';
import { pageWeight, BUDGET_BYTES } from './weight.mjs';

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
};
const rows = [];
const row = (figure, value, budget, within) => rows.push({ figure, value, budget, verdict: within ? 'within' : 'over' });

const { total } = await pageWeight();
row('page weight (gzip -9 of dist/)', `${(total / 1000).toFixed(1)} KB`, `≤ ${BUDGET_BYTES / 1000} KB`, total <= BUDGET_BYTES);

const site = await serveStatic();
const { driver, quit } = await startBrowser();
try {
  const loads = [];
  for (let i = 0; i < 10; i++) {
    await openApp(driver, site.url, `?n=${i}`);
    loads.push(
      await driver.executeScript(`
        const m = performance.getEntriesByName('app-ready')[0];
        return m ? m.startTime : NaN;`),
    );
  }
  const t = stats(loads);
  row('time to first result (10 loads)', `${t.median.toFixed(0)} ms (min ${t.min.toFixed(0)}, max ${t.max.toFixed(0)})`, '≤ 250 ms', t.median <= 250);
} finally {
  await quit();
  await site.close();
}

const width = (k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length));
const cols = ['figure', 'value', 'budget', 'verdict'];
const line = (r) => `| ${cols.map((k) => String(r[k]).padEnd(width(k))).join(' | ')} |`;
console.log(line(Object.fromEntries(cols.map((k) => [k, k]))));
console.log(`|${cols.map((k) => '-'.repeat(width(k) + 2)).join('|')}|`);
rows.forEach((r) => console.log(line(r)));
console.log(`\nmeasured ${new Date().toISOString().slice(0, 10)} on ${process.arch}, ${(await import('node:os')).cpus().length} cores, release build`);
