// The unhappy path inside workerd (Miniflare): the test Worker runs every case of
// tests/js/unhappy-conformance.mjs (the README's loop against a stand-in provider that fails on
// demand) with the built workerd entry (GET /unhappy); and the subagent and head budget cases
// (tests/js/tree-conformance.mjs, POST /tree).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startWorker } from './worker-host.mjs';

import { unhappyCases } from '../js/unhappy-conformance.mjs';
import { treeCases, FIXTURE_FILES } from '../js/tree-conformance.mjs';

let mf;

before(async () => {
  mf = await startWorker();
});

after(async () => {
  await mf?.dispose();
});

test('every unhappy-path case passes in workerd', async (t) => {
  const res = await mf.dispatchFetch('http://localhost/unhappy');
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.results.map((r) => r.name), unhappyCases.map((c) => c.name), 'every case ran');
  for (const r of body.results) await t.test(r.name, () => assert.ok(r.ok, r.error));
});

test('the subagent and head budget cases pass in workerd', async (t) => {
  const dir = fileURLToPath(new URL('../fixtures/claude-subagents/', import.meta.url));
  const fixtures = Object.fromEntries(Object.entries(FIXTURE_FILES).map(([k, p]) => [k, readFileSync(dir + p, 'utf8')]));
  const res = await mf.dispatchFetch('http://localhost/tree', { method: 'POST', body: JSON.stringify(fixtures) });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.results.map((r) => r.name), treeCases.map((c) => c.name), 'every case ran');
  for (const r of body.results) await t.test(r.name, () => assert.ok(r.ok, r.error));
});
