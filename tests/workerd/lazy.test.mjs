// The lazy module in workerd: a Worker whose lazy module (importers, discovery) comes from a
// source that counts its calls (lazy-worker.mjs). The README's loop never asks for it; while it
// cannot be had, imports and discovery reject with a typed error and builds go on; the first
// import then loads it, once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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

test('a file followed as it grows imports in workerd as a whole import does', async () => {
  for (const file of ['codex.jsonl', 'claude-code.jsonl']) {
    const text = readFileSync(join(root, 'tests/fixtures', file), 'utf8');
    const r = await post('/follow', text);
    // Pushed in three parts, each cut inside a line, then settled: the whole import's log.
    assert.equal(r.pushes, 3);
    assert.equal(r.log, (await cv.importSession(text)).log, file);
  }
});

test("an OpenCode storage folder's files import in workerd as in Node", async () => {
  const storage = join(root, 'tests/fixtures/opencode-storage');
  const filesOf = (session) => {
    const messages = readdirSync(join(storage, 'message', session)).map((m) => join(storage, 'message', session, m));
    const parts = messages.flatMap((m) => readdirSync(join(storage, 'part', basename(m, '.json'))).map((p) => join(storage, 'part', basename(m, '.json'), p)));
    const read = (path) => readFileSync(path, 'utf8');
    return { session: read(join(storage, 'session/9a1c0e4f5b6a', `${session}.json`)), messages: messages.map(read), parts: parts.map(read) };
  };
  const body = { parent: filesOf('ses_7a01c0ffee01AbCdEfGhIjKlMn'), children: [filesOf('ses_7a01c0ffee02OpQrStUvWxYzAb')] };
  const r = await post('/opencode-storage', JSON.stringify(body));
  assert.deepEqual(r.tree, await cv.importOpenCodeStorage(body.parent, body.children));
  assert.deepEqual([r.tree.missing, r.tree.unlinked, r.tree.children.length], [[], [], 1]);
});
