// A storage that fails, in headless Chromium: the fault suite (storage-faults.mjs) over
// indexedDbStorage through the package's browser entry, its writes refused with the browser's
// QuotaExceededError (storage-faults-page.html); then the browser's own quota, given small
// through the DevTools protocol (`Storage.overrideQuotaForOrigin`) before the page loads and
// filled with a ballast database, refusing a session's write at the call that made it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { serveStatic, CHROMIUM, CHROMIUM_ARGS } from './static-server.mjs';
import { faultCases } from './storage-faults.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
let server, browser, page;
const messages = [];
/** The origin's quota: room for the suite's logs, and a ballast that fills it quickly. */
const QUOTA = 6 << 20;

before(async () => {
  server = await serveStatic(root.replace(/\/$/, ''));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: server.url, quotaSize: QUOTA });
  await page.goto(`${server.url}/tests/js/storage-faults-page.html`);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('indexedDbStorage over its quota: every fault case passes in Chromium', async (t) => {
  await page.waitForFunction(() => document.body.dataset.status !== 'running', null, { timeout: 120_000 });
  const { status, results } = await page.evaluate(() => ({ status: document.body.dataset.status, results: window.__faultResults }));
  assert.equal(status, 'done', `${status}\n${messages.join('\n')}`);
  assert.deepEqual(results.map((r) => r.name), faultCases.map((c) => c.name), 'every case ran');
  for (const r of results) await t.test(r.name, () => assert.ok(r.ok, `${r.name}: ${r.error}`));
});

test("a write over the browser's own quota rejects the call that made it, the browser's QuotaExceededError its cause", async () => {
  const outcome = await page.evaluate(async () => {
    const cv = await import('/pkg/browser.mjs');
    const storage = cv.indexedDbStorage(`cv-quota-${Date.now()}`);
    const d = await cv.openSession(storage, { sessionId: 'quota' });
    await d.dispatch({ type: 'switchModel', provider: 'gemini', model: 'gemini-2.5-flash' });
    // The browser counts what was written lazily: filled, and tried again, until it refuses.
    try {
      for (let round = 0; round < 30; round++) {
        await window.__fill();
        storage.close();
        const prompt = { type: 'userMessage', text: `Why does the parser test fail? (${round})` };
        const error = await d.dispatch(prompt).then(() => null, (e) => e);
        if (error) return { code: error.code, storage: error.cause?.code, name: error.cause?.cause?.name, unstored: error.unstored.length > 0, round };
      }
      return 'never refused';
    } finally {
      await window.__empty();
    }
  });
  assert.equal(typeof outcome, 'object', String(outcome));
  assert.deepEqual({ ...outcome, round: undefined }, { code: 'write_failed', storage: 'write_failed', name: 'QuotaExceededError', unstored: true, round: undefined });
});

test('the page logged no errors', () => {
  assert.deepEqual(messages.filter((m) => /^(error|pageerror)/.test(m)), []);
});
