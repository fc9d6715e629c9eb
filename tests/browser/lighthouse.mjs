// Lighthouse's mobile profile (simulated slow 4G, 4× CPU slowdown) against dist/ served
// gzipped, as a static host would, for `make bench`: the median of `runs` per page, and a
// blank page as the floor measured in the same run. Figures only.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join, normalize, extname } from 'node:path';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { DIST } from './harness.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const BLANK = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="A blank page"><title>Blank</title></head><body><p>Blank</p></body></html>';

/**
 * Serves `root` gzipped on loopback, as a static host would, plus a blank page at
 * /__blank.html; `extra` maps other paths to HTML served as they are (the bench's blank page
 * with its mark). Each file is compressed once.
 */
export async function serveGzipped(root = DIST, extra = {}) {
  const zippedOnce = new Map();
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let body;
    let type;
    if (path in extra) {
      [body, type] = [Buffer.from(extra[path]), TYPES['.html']];
    } else if (path === '/__blank.html') {
      [body, type] = [Buffer.from(BLANK), TYPES['.html']];
    } else {
      const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
      if (!file.startsWith(root)) return res.writeHead(403).end();
      try {
        body = await readFile(file);
      } catch {
        return res.writeHead(404).end();
      }
      type = TYPES[extname(file)] ?? 'application/octet-stream';
    }
    const zipped = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    res.writeHead(200, { 'content-type': type, ...(zipped ? { 'content-encoding': 'gzip' } : {}) });
    if (zipped && !zippedOnce.has(path)) zippedOnce.set(path, gzipSync(body, { level: 9 }));
    res.end(zipped ? zippedOnce.get(path) : body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `{page: {performance, accessibility, bestPractices, fcp, lcp, tbt, cls, si}}`, medians of `runs`. */
export async function lighthouseRows(pages, runs = 3) {
  const site = await serveGzipped();
  const chrome = await chromeLauncher.launch({
    chromePath: '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const out = {};
  try {
    for (const [name, path] of Object.entries(pages)) {
      const results = [];
      for (let i = 0; i < runs; i++) {
        const { lhr } = await lighthouse(`${site.url}${path}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility', 'best-practices'],
          formFactor: 'mobile',
          // Real throttling (slow 4G and a 4× slower CPU applied to the load itself), as the
          // phone goal is judged: Lantern's simulation of an unthrottled load hid a regression
          // in total blocking time.
          throttlingMethod: 'devtools',
        });
        const audit = (id) => lhr.audits[id]?.numericValue ?? NaN;
        results.push({
          performance: Math.round(lhr.categories.performance.score * 100),
          accessibility: Math.round(lhr.categories.accessibility.score * 100),
          bestPractices: Math.round(lhr.categories['best-practices'].score * 100),
          fcp: audit('first-contentful-paint'),
          lcp: audit('largest-contentful-paint'),
          tbt: audit('total-blocking-time'),
          cls: audit('cumulative-layout-shift'),
          si: audit('speed-index'),
        });
      }
      out[name] = Object.fromEntries(Object.keys(results[0]).map((k) => [k, median(results.map((r) => r[k]))]));
      // Each run's score and LCP too: throttled loads vary from run to run.
      out[name].runs = results.map((r) => `${r.performance}/${(r.lcp / 1000).toFixed(2)} s`);
    }
  } finally {
    await chrome.kill();
    await site.close();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await lighthouseRows({ calculator: '/', blank: '/__blank.html' }, 1), null, 1));
}
