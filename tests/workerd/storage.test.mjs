// Session-log storage inside workerd (Miniflare): the test Worker's Durable Object runs the
// shared conformance suite against durableObjectStorage on its SQLite storage (GET
// /storage-conformance); every case must pass. The Worker imports the built workerd entry
// (pkg/workerd.mjs), as miniflare.test.mjs does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './worker-host.mjs';

import { storageCases } from '../js/storage-conformance.mjs';
import { sessionCases } from '../js/session-conformance.mjs';
import { faultCases } from '../js/storage-faults.mjs';

let mf;

before(async () => {
  mf = await startWorker();
});

after(async () => {
  await mf?.dispose();
});

test('durableObjectStorage passes the conformance suite in a SQLite-backed Durable Object', async (t) => {
  const res = await mf.dispatchFetch('http://localhost/storage-conformance?session=storage-conformance');
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.results.map((r) => r.name), storageCases.map((c) => c.name), 'every case ran');
  for (const r of body.results) {
    await t.test(r.name, () => assert.ok(r.ok, `${r.name}: ${r.error}`));
  }
  assert.deepEqual(body.sessionResults.map((r) => r.name), sessionCases.map((c) => c.name), 'every session case ran');
  for (const r of body.sessionResults) {
    await t.test(`session: ${r.name}`, () => assert.ok(r.ok, `${r.name}: ${r.error}`));
  }
  // Every case that writes uses its own log name (more than one, for the reopen case).
  assert.ok(body.logs > storageCases.length / 2, `the cases' logs share one object's table (${body.logs} logs)`);
  assert.deepEqual(body.exports, { durableObjectStorage: 'function', StorageError: 'function', faultyStorage: 'function' },
    'the workerd entry exports the storage API');
});

test('a Durable Object whose SQL storage refuses writes: every fault case passes in workerd', async (t) => {
  const res = await mf.dispatchFetch('http://localhost/storage-faults?session=storage-faults');
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.results.map((r) => r.name), faultCases.map((c) => c.name), 'every case ran');
  for (const r of body.results) await t.test(r.name, () => assert.ok(r.ok, `${r.name}: ${r.error}`));
});
