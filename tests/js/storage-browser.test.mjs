// Session-log storage in headless Chromium: storage-page.html runs the shared conformance suite
// against indexedDbStorage (pkg-template/, no build needed); every case must pass. Also checks
// that the built browser entry exports the storage API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { openPage } from './static-server.mjs';
import { storageCases } from './storage-conformance.mjs';
import { sessionCases } from './session-conformance.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
let server, browser, page;
const messages = [];

before(async () => {
  ({ server, browser, page } = await openPage(chromium, root, '/tests/js/storage-page.html', messages));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('indexedDbStorage passes the conformance suite', async (t) => {
  await page.waitForFunction(() => document.body.dataset.status !== 'running', null, { timeout: 120_000 });
  const { status, results, sessionResults } = await page.evaluate(() => ({
    status: document.body.dataset.status, results: window.__storageResults, sessionResults: window.__sessionResults,
  }));
  assert.equal(status, 'done', `${status}\n${messages.join('\n')}`);
  assert.deepEqual(results.map((r) => r.name), storageCases.map((c) => c.name), 'every case ran');
  for (const r of results) {
    await t.test(r.name, () => assert.ok(r.ok, `${r.name}: ${r.error}`));
  }
  assert.deepEqual(sessionResults.map((r) => r.name), sessionCases.map((c) => c.name), 'every session case ran');
  for (const r of sessionResults) {
    await t.test(`session: ${r.name}`, () => assert.ok(r.ok, `${r.name}: ${r.error}`));
  }
});

test('the browser entry exports the storage API', async () => {
  const types = await page.evaluate(async () => {
    const cv = await import('/pkg/browser.mjs');
    return ['indexedDbStorage', 'StorageError', 'faultyStorage'].map((name) => `${name}: ${typeof cv[name]}`);
  });
  assert.deepEqual(types, ['indexedDbStorage: function', 'StorageError: function', 'faultyStorage: function']);
});

test('the page logged no errors', () => {
  assert.deepEqual(messages.filter((m) => /^(error|pageerror)/.test(m)), []);
});
