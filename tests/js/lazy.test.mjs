// The lazy module in Node: the importers and the discovery engine are a second .wasm, read from
// the package's files on first use. A build-and-answer loop (the README's loop against the
// stand-in, every unhappy case) never reads it; an import reads it once; a package missing it
// still builds and answers, and its imports and discoveries reject with a typed error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';
import { unhappyCases, runUnhappy } from './unhappy-conformance.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const lazyGlue = require.resolve('../../pkg/node/contextview_lazy.js');
const claudeCode = readFileSync(root + 'tests/fixtures/claude-code.jsonl', 'utf8');

test('a build-and-answer loop never loads the lazy module', async () => {
  const results = await runUnhappy(unhappyCases, cv);
  assert.deepEqual(results.filter((r) => !r.ok), [], 'every case of the loop passed');
  assert.ok(results.length > 10, `${results.length} cases`);
  assert.equal(cv.lazyModuleLoaded(), false);
  assert.equal(require.cache[lazyGlue], undefined, 'the lazy glue was never required');
});

test('Node reads the lazy module from the package: a source given for it is refused with its argument', async () => {
  await assert.rejects(cv.init({ lazy: '/elsewhere/contextview_lazy_bg.wasm' }), (e) => e instanceof cv.ContextviewTypeError && e.argument === 'lazy');
  await assert.rejects(cv.loadLazyModule(new Uint8Array(8)), (e) => e instanceof cv.ContextviewTypeError && e.argument === 'source');
  assert.equal(cv.lazyModuleLoaded(), false);
});

test('the first import loads the lazy module, once; its exports are then synchronous', async () => {
  const [imported, lazy] = await Promise.all([cv.importSession(claudeCode), cv.loadLazyModule()]);
  assert.equal(cv.lazyModuleLoaded(), true);
  assert.notEqual(require.cache[lazyGlue], undefined);
  assert.equal(await cv.loadLazyModule(), lazy, 'the same module every time');
  assert.deepEqual(Object.keys(lazy).sort(), ['IncrementalImport', 'WorkspaceEngine', 'importOpenCodeStorage', 'importSession', 'importTree']);
  assert.equal(imported.report.format, 'claude-code');
  assert.deepEqual(lazy.importSession(claudeCode), imported, 'the synchronous import gives what the promise gave');
  // The log it wrote opens in the first-load module, which never saw the importer.
  const session = cv.Session.fromLog(imported.log);
  assert.equal(session.itemCount(), cv.replay(imported.log).items.length);
  // Errors of the lazy module are the package's classes, thrown by the synchronous call and
  // rejected by the entry's.
  assert.throws(() => lazy.importSession(42), (e) => e instanceof cv.ContextviewTypeError && e.argument === 'text');
  await assert.rejects(cv.importSession('{"hello":1}\n'), (e) => e instanceof cv.ContextviewError && e.code === 'unknown_format');
});

test('a package without its lazy module builds and answers; imports and discovery reject with lazy_module_unavailable, and load once it is back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'contextview-lazy-'));
  try {
    cpSync(root + 'pkg', join(dir, 'pkg'), { recursive: true });
    renameSync(join(dir, 'pkg/web/contextview_lazy_bg.wasm'), join(dir, 'lazy.wasm'));
    writeFileSync(join(dir, 'session.jsonl'), claudeCode);
    const script = `
      import { createRequire } from 'node:module';
      import { readFileSync, renameSync } from 'node:fs';
      const require = createRequire(import.meta.url);
      const cv = await import('./pkg/node.mjs');
      const cjs = require('./pkg/index.cjs');
      const log = readFileSync(${JSON.stringify(root + 'examples/session.jsonl')}, 'utf8');
      const outcome = async (p) => {
        try { await p; return { ok: true }; } catch (e) {
          return { name: e.name, code: e.code, ours: e instanceof cv.ContextviewError, cause: e.cause?.code, message: e.message };
        }
      };
      const result = {};
      result.build = cv.buildRequest({ log, provider: 'anthropic' }).payload.messages.length;
      result.importSession = await outcome(cv.importSession(readFileSync('session.jsonl', 'utf8')));
      result.importTree = await outcome(cjs.importTree('', []));
      result.discover = await outcome(cv.discover({ cwd: '/w' }, cv.memoryFs({ '/w/AGENTS.md': 'Use tabs.' })));
      result.loaded = [cv.lazyModuleLoaded(), cjs.lazyModuleLoaded()];
      result.buildAfter = cjs.buildRequestString({ log, provider: 'gemini' }).body.length > 0;
      // The file back: the next call tries again, and loads it.
      renameSync('lazy.wasm', 'pkg/web/contextview_lazy_bg.wasm');
      result.retry = (await cjs.importSession(readFileSync('session.jsonl', 'utf8'))).report.format;
      result.loadedAfter = [cv.lazyModuleLoaded(), cjs.lazyModuleLoaded()];
      console.log(JSON.stringify(result));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.ok(result.build > 0);
    const unavailable = { name: 'ContextviewError', code: 'lazy_module_unavailable', ours: true, cause: 'ENOENT' };
    for (const call of ['importSession', 'importTree', 'discover']) {
      const { message, ...rest } = result[call];
      assert.deepEqual(rest, unavailable, call);
      assert.match(message, /^the lazy module \(importers and discovery\) could not be loaded: ENOENT/, call);
    }
    assert.deepEqual(result.loaded, [false, false]);
    assert.equal(result.buildAfter, true);
    assert.equal(result.retry, 'claude-code');
    assert.deepEqual(result.loadedAfter, [true, true]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
