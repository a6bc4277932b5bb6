// A browser app bundled with esbuild, as a consumer of the built package (pkg/) would bundle it:
// the package resolves through its "browser" condition, the .wasm comes in through the package's
// `contextview/contextview_bg.wasm` export with esbuild's `file` loader (esbuild copies it next to
// the bundle; nobody copies it by hand), and the page builds the request Node builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

import { consumerProject, pageScript, indexHtml, checkPage } from './page.mjs';

test('an esbuild browser bundle loads the wasm and builds the request Node builds', async () => {
  const dir = consumerProject('esbuild');
  writeFileSync(join(dir, 'entry.mjs'), pageScript("import wasmUrl from 'contextview/contextview_bg.wasm';\nimport lazyUrl from 'contextview/contextview_lazy_bg.wasm';", '{ module: wasmUrl, lazy: lazyUrl }'));
  const result = await build({
    absWorkingDir: dir,
    entryPoints: ['entry.mjs'],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    outdir: 'dist',
    loader: { '.wasm': 'file' },
    logLevel: 'silent',
  });
  assert.deepEqual(result.errors, []);
  const emitted = readdirSync(join(dir, 'dist'));
  assert.ok(emitted.some((f) => f.endsWith('.wasm')), `no .wasm emitted: ${emitted}`);
  writeFileSync(join(dir, 'dist/index.html'), indexHtml('./entry.js'));
  await checkPage(join(dir, 'dist'));
});
