// A byte count is not noisy, so the page-weight budget is asserted here; timings live in make bench.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageWeight, BUDGET_BYTES } from './weight.mjs';

test('everything the page loads fits in 150 KB gzip', async () => {
  const { files, total } = await pageWeight();
  const kinds = files.map((f) => f.file.split('.').pop()).sort();
  for (const kind of ['css', 'html', 'js', 'wasm']) assert.ok(kinds.includes(kind), `dist/ has a .${kind}`);
  assert.ok(total <= BUDGET_BYTES, `page weight ${total} B gzip is over the ${BUDGET_BYTES} B budget`);
});
