// The unhappy path inside workerd (Miniflare): the test Worker runs every case of
// tests/js/unhappy-conformance.mjs (the README's loop against a stand-in provider that fails on
// demand) with the built workerd entry (GET /unhappy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './worker-host.mjs';

import { unhappyCases } from '../js/unhappy-conformance.mjs';

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
