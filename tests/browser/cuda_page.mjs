// What the CUDA panel's browser tests share: its link, and reading the panel of a session `s`
// (session.mjs) by its automation ids.
import { By, Key, until } from 'selenium-webdriver';
import { openApp } from './harness.mjs';

/** A `tab=cuda` link with `src` as typed and, when given, `launch`. */
export const cudaLink = (src, launch) =>
  `?tab=cuda&src=${encodeURIComponent(src)}${launch === undefined ? '' : `&launch=${encodeURIComponent(launch)}`}`;

/** The panel of session `s`: its run's status, a readout's value, rows, and opening a link. */
export function cudaPage(s) {
  const status = () => s.driver.findElement(By.css('[data-testid="cuda-status"]')).getAttribute('data-value');
  return {
    status,
    /** The `data-value` of the panel's result `testid`, or null when it is not shown. */
    inPanel: (testid) =>
      s.driver.executeScript(`return document.querySelector('#panel-cuda [data-testid="${testid}"]')?.dataset.value ?? null`),
    /** Every element matching `css`, as its data attributes. */
    rows: (css) =>
      s.driver.executeScript(`return [...document.querySelectorAll(${JSON.stringify(css)})].map((r) => ({ ...r.dataset }));`),
    /** Opens the panel at `query` and waits until its run has ended (`want`: done or failed). */
    openCuda: async (query, want = 'done', timeout = 60000) => {
      await openApp(s.driver, s.site.url, query);
      await s.driver.wait(until.elementLocated(By.css('[data-testid="cuda-status"]')), 15000);
      await s.driver.wait(async () => (await status()) === want, timeout);
    },
  };
}

/** Puts `text` on the clipboard of session `s`'s browser with real keystrokes (select all,
 * copy) from a scratch text area that goes afterwards. */
export async function copyToClipboard(s, text) {
  const scratch = await s.driver.executeScript(
    `const t = document.createElement('textarea');
     t.id = 'scratch';
     t.value = arguments[0];
     document.body.append(t);
     return t;`,
    text,
  );
  await scratch.click();
  await scratch.sendKeys(Key.chord(Key.CONTROL, 'a'), Key.chord(Key.CONTROL, 'c'));
  await s.driver.executeScript("document.getElementById('scratch').remove()");
}
