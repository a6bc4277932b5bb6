// The lazy module in workerd: a Worker whose lazy module (importers, discovery) comes from a
// source that counts its calls (lazy-worker.mjs). The README's loop never asks for it; while it
// cannot be had, imports and discovery reject with a typed error and builds go on; the first
// import then loads it, once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMiniflare, root } from './worker-host.mjs';

import * as cv from '../../pkg/node.mjs';
import { unhappyCases } from '../js/unhappy-conformance.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
let mf;

before(async () => {
  mf = await startMiniflare(join(here, 'lazy-worker.mjs'), root, { durableObjects: {} });
});

after(async () => {
  await mf?.dispose();
});

const post = async (path, body) => (await mf.dispatchFetch(`http://localhost${path}`, { method: 'POST', body })).json();

test('the README\'s loop in workerd, every unhappy case, never asks for the lazy module', async () => {
  const r = await post('/loop');
  assert.deepEqual(r.failed, []);
  assert.equal(r.cases, unhappyCases.length);
  assert.deepEqual([r.loaded, r.calls], [false, 0]);
});

test('while the lazy module cannot be had, imports and discovery reject with lazy_module_unavailable; builds go on', async () => {
  const r = await post('/fail');
  assert.deepEqual([r.wrongSource.name, r.wrongSource.code, r.wrongSource.ours], ['ContextviewTypeError', 'invalid_argument', true]);
  for (const call of ['importSession', 'discover']) {
    const { message, ...rest } = r[call];
    assert.deepEqual(rest, { name: 'ContextviewError', code: 'lazy_module_unavailable', ours: true, cause: 'the module store is unreachable' }, call);
    assert.equal(message, 'the lazy module (importers and discovery) could not be loaded: the module store is unreachable');
  }
  assert.ok(r.build > 0);
  assert.deepEqual([r.loaded, r.calls], [false, 2], 'each call asked again');
});

test('the first import loads it, once, and imports as Node does', async () => {
  const text = readFileSync(join(root, 'tests/fixtures/codex.jsonl'), 'utf8');
  const first = await post('/import', text);
  const second = await post('/import', text);
  assert.deepEqual([first.loaded, first.calls], [true, 3]);
  assert.deepEqual([second.loaded, second.calls], [true, 3], 'loaded once');
  const local = await cv.importSession(text);
  assert.deepEqual(first.report, local.report);
  assert.equal(first.log, local.log);
});
