// A page built with Vite (`vite build`), as a consumer of the built package (pkg/) would build
// it: the package resolves through its "browser" condition, `init()` with no argument fetches the
// .wasm the module names with `new URL(…, import.meta.url)`, which Vite emits as an asset of the
// build (nobody copies it by hand), and the page builds the request Node builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';

import { consumerProject, pageScript, indexHtml, checkPage } from './page.mjs';

test('a Vite build of a page emits the wasm and builds the request Node builds', async () => {
  const dir = consumerProject('vite');
  writeFileSync(join(dir, 'main.js'), pageScript(''));
  writeFileSync(join(dir, 'index.html'), indexHtml('./main.js'));
  await build({ root: dir, configFile: false, logLevel: 'silent', build: { outDir: 'dist', target: 'es2022' } });
  const assets = readdirSync(join(dir, 'dist/assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `no .wasm emitted: ${assets}`);
  await checkPage(join(dir, 'dist'));
});
