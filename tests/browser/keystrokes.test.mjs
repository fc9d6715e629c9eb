// Real keystrokes, one key at a time, in every text field of every panel: after each key the
// field keeps its focus and holds exactly what was typed. Setting a value in one go (a paste,
// WebDriver's set-value) cannot see a field that is rebuilt, and so blurred, by its own edit:
// the kernel view's statement fields lost focus after every key (hostile pass H1), and no
// value-setting test saw it.
import { test } from 'node:test';
import { session } from './session.mjs';
import assert from 'node:assert/strict';
import { By, Key } from 'selenium-webdriver';
import { openApp, panelSettled } from './harness.mjs';

const s = session();

/** Every visible text field of the panel on show, by test id, with its folded parts opened. */
async function visibleFields() {
  return s.driver.executeScript(`
    for (const d of document.querySelectorAll('[role="tabpanel"]:not([hidden]) details')) d.open = true;
    return [...document.querySelectorAll('[role="tabpanel"]:not([hidden]) input[type="text"], [role="tabpanel"]:not([hidden]) textarea')]
      .filter((e) => e.checkVisibility() && !e.disabled && e.dataset.testid)
      .map((e) => e.dataset.testid);`);
}

/** What the page says about the element with focus and the field's value. */
async function look(testid) {
  return s.driver.executeScript(
    `const e = document.querySelector('[data-testid="' + arguments[0] + '"]');
     return { value: e.value, focused: document.activeElement === e };`,
    testid,
  );
}

/**
 * Types `keys` at the end of the field one key at a time, checking focus and value after each,
 * then deletes them again with Backspace, checking each step, so the panel ends as it began.
 */
async function typeOneByOne(testid, keys) {
  const field = await s.driver.findElement(By.css(`[data-testid="${testid}"]`));
  await s.driver.executeScript('arguments[0].scrollIntoView({ block: "center" })', field);
  await field.click();
  // Ctrl+End: the end of the whole text (a text area's End is its line's end).
  await field.sendKeys(Key.CONTROL, Key.END);
  const start = (await look(testid)).value;
  let expected = start;
  for (const key of keys) {
    await s.driver.switchTo().activeElement().sendKeys(key);
    expected += key;
    // The page answers an edit in the same task or the next frame; give it both.
    await s.driver.executeAsyncScript('requestAnimationFrame(() => setTimeout(arguments[0], 0))');
    const seen = await look(testid);
    assert.deepEqual(seen, { value: expected, focused: true }, `${testid}: after typing '${expected}'`);
  }
  for (let k = 0; k < keys.length; k++) {
    await s.driver.switchTo().activeElement().sendKeys(Key.BACK_SPACE);
    expected = expected.slice(0, -1);
    await s.driver.executeAsyncScript('requestAnimationFrame(() => setTimeout(arguments[0], 0))');
    const seen = await look(testid);
    assert.deepEqual(seen, { value: expected, focused: true }, `${testid}: after Backspace to '${expected}'`);
  }
}

/** Opens `query`, waits for its panel, and types into every text field it shows. */
async function everyField(query, atLeast) {
  await openApp(s.driver, s.site.url, query);
  await panelSettled(s.driver);
  const fields = await visibleFields();
  assert.ok(fields.length >= atLeast, `${query}: ${fields.length} text fields: ${fields.join(' ')}`);
  for (const testid of fields) {
    await typeOneByOne(testid, ['1', '2']);
  }
  return fields;
}

test('the calculator: every text field keeps focus and every key', async () => {
  await everyField('', 5);
});

test('the calculator in shared memory and with a comparison: every text field keeps every key', async () => {
  await everyField('?space=shared&compare=1', 5);
});

test('the kernel view: the launch and every statement field keep focus and every key', async () => {
  const fields = await everyField('?tab=kernel&a1.idx=threadIdx.x&a2.idx=threadIdx.x*2&a2.space=shared', 14);
  for (const id of ['input-a1.idx', 'input-a1.elem', 'input-a1.base', 'input-a1.active', 'input-a2.idx', 'input-grid']) {
    assert.ok(fields.includes(id), `${id} was typed into`);
  }
});

test("the kernel view: a barrier's condition keeps focus and every key", async () => {
  const fields = await everyField('?tab=kernel&a1.idx=threadIdx.x&a2.kind=sync', 8);
  assert.ok(fields.includes('input-a2.active'), 'the barrier\'s "Reached when" was typed into');
});

test('the Roofline lab, course and machine mode: every text field keeps every key', async () => {
  await everyField('?tab=roofline', 1);
  await everyField('?tab=roofline&machine=A100', 4);
});

test('the probe: every text field keeps every key', async () => {
  await everyField('?tab=probe', 1);
});

test('the trace panel: every text field keeps every key (today it has none: a file and picks)', async () => {
  const fields = await everyField('?tab=trace', 0);
  // The panel is on show, so a text field added to it later is typed into here.
  assert.equal(await s.driver.executeScript("return !!document.querySelector('[data-testid=\"trace-file\"]')"), true);
  assert.deepEqual(fields, [], 'a new text field in the trace panel: name it in this test');
});

test('the CUDA panel: the source, the launch and every other text field keep focus and every key', async () => {
  const fields = await everyField('?tab=cuda&cpreset=copy', 3);
  for (const id of ['input-src', 'input-launch']) {
    assert.ok(fields.includes(id), `${id} was typed into`);
  }
});
