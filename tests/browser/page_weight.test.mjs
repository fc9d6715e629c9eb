// A byte count is not noisy, so page weight is asserted here; timings live in make bench.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageWeight, BUDGET_BYTES, GUARD_BYTES } from './weight.mjs';

test('everything the page loads stays under the page-weight guard', async (t) => {
  const { files, total } = await pageWeight();
  const kinds = files.map((f) => f.file.split('.').pop()).sort();
  for (const kind of ['css', 'html', 'js', 'wasm']) assert.ok(kinds.includes(kind), `dist/ has a .${kind}`);
  assert.ok(total <= GUARD_BYTES, `page weight ${total} B gzip is over the ${GUARD_BYTES} B guard`);
  if (total > BUDGET_BYTES) t.diagnostic(`page weight ${total} B gzip is over the ${BUDGET_BYTES} B budget`);
});
