// The unhappy path in Node: every case of unhappy-conformance.mjs (the README's loop against a
// stand-in provider that fails on demand) with the built Node entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as cv from '../../pkg/node.mjs';
import { unhappyCases, runUnhappy } from './unhappy-conformance.mjs';

test('every unhappy-path case passes in Node', async (t) => {
  const results = await runUnhappy(unhappyCases, cv);
  assert.deepEqual(results.map((r) => r.name), unhappyCases.map((c) => c.name), 'every case ran');
  for (const r of results) await t.test(r.name, () => assert.ok(r.ok, r.error));
});
