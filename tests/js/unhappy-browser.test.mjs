// The unhappy path in headless Chromium: unhappy-page.html runs every case of
// unhappy-conformance.mjs (the README's loop against a stand-in provider that fails on demand)
// with the built browser entry.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { openPage } from './static-server.mjs';
import { unhappyCases } from './unhappy-conformance.mjs';
import { treeCases } from './tree-conformance.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
let server, browser, page;
const messages = [];
// Every request the page makes, by path.
const requests = [];
const fetched = (name) => requests.filter((path) => path.endsWith(`/${name}`)).length;

before(async () => {
  ({ server, browser, page } = await openPage(chromium, root, '/tests/js/unhappy-page.html', messages, (p) => {
    p.on('request', (r) => requests.push(new URL(r.url()).pathname));
  }));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('every unhappy-path case passes in Chromium, and the loop fetched the first-load module alone', async (t) => {
  await page.waitForFunction(() => document.body.dataset.status !== 'running', null, { timeout: 120_000 });
  const { status, results, loaded } = await page.evaluate(() => ({ status: document.body.dataset.status, results: window.__results, loaded: window.__loadedAfterLoop }));
  assert.equal(status, 'loop-done', `${status}\n${messages.join('\n')}`);
  assert.deepEqual(results.map((r) => r.name), unhappyCases.map((c) => c.name), 'every case ran');
  for (const r of results) await t.test(r.name, () => assert.ok(r.ok, r.error));
  assert.equal(fetched('contextview_bg.wasm'), 1);
  assert.deepEqual(requests.filter((path) => path.includes('contextview_lazy')), [], 'nothing of the lazy module fetched');
  assert.equal(loaded, false);
});

test('the subagent and head budget cases pass in Chromium; their import fetched the lazy module, once', async (t) => {
  await page.evaluate(() => window.__goOn());
  await page.waitForFunction(() => document.body.dataset.status !== 'loop-done', null, { timeout: 120_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.status), 'done', messages.join('\n'));
  assert.deepEqual([fetched('contextview_lazy.js'), fetched('contextview_lazy_bg.wasm')], [1, 1]);
  assert.equal(await page.evaluate(() => window.__loadedAfterTree), true);
  const results = await page.evaluate(() => window.__tree);
  assert.deepEqual(results.map((r) => r.name), treeCases.map((c) => c.name), 'every case ran');
  for (const r of results) await t.test(r.name, () => assert.ok(r.ok, r.error));
});

test('the page logged no errors', () => {
  assert.deepEqual(messages.filter((m) => /^(error|pageerror)/.test(m)), []);
});
