// A byte count is not noisy, so page weight is asserted here; timings live in make bench.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loads, FIRST_LOAD_GOAL, GUARDS, WHOLE_APP_GOAL } from './weight.mjs';

test('each load stays under its page-weight guard', async (t) => {
  const { first, panels, whole, files } = await loads();
  const kinds = files.map((f) => f.file.split('.').pop()).sort();
  for (const kind of ['css', 'html', 'js', 'wasm']) assert.ok(kinds.includes(kind), `dist/ has a .${kind}`);
  assert.ok(first <= GUARDS.first, `the first load is ${first} B gzip, over its ${GUARDS.first} B guard`);
  // Every panel is split out, and each has a guard.
  assert.deepEqual(Object.keys(panels).sort(), Object.keys(GUARDS.panels).sort());
  for (const [name, bytes] of Object.entries(panels)) {
    assert.ok(bytes <= GUARDS.panels[name], `the ${name} panel adds ${bytes} B gzip, over its ${GUARDS.panels[name]} B guard`);
  }
  assert.ok(whole <= GUARDS.whole, `the whole app is ${whole} B gzip, over its ${GUARDS.whole} B guard`);
  if (first > FIRST_LOAD_GOAL) t.diagnostic(`the first load, ${first} B gzip, is over the ${FIRST_LOAD_GOAL} B goal`);
  if (whole > WHOLE_APP_GOAL) t.diagnostic(`the whole app, ${whole} B gzip, is over the ${WHOLE_APP_GOAL} B goal`);
});
