// Page weight: the gzip -9 size of everything in dist/ (html, js, wasm, css, icons),
// which is everything the page loads. Shared by the test and the bench.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { DIST } from './harness.mjs';

/** The page-weight budget in bytes: 150 KB. */
export const BUDGET_BYTES = 150_000;

/** `[{file, raw, gzip}]` for every file under dist/, and the gzip total. */
export async function pageWeight(root = DIST) {
  const files = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const body = await readFile(path);
    files.push({ file: path.slice(root.length + 1), raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
  }
  return { files, total: files.reduce((sum, f) => sum + f.gzip, 0) };
}
