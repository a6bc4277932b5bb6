// A page bundled with webpack 5, as a consumer of the built package (pkg/) would bundle it, with
// a minimal configuration (entry, output, mode): the package resolves through its "browser" condition,
// the .wasm the module names with `new URL(…, import.meta.url)` becomes an asset of the bundle
// (nobody copies it by hand), `init()` fetches it, and the page builds the request Node builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webpack from 'webpack';

import { consumerProject, pageScript, indexHtml, checkPage } from './page.mjs';

test('a webpack 5 bundle emits the wasm and builds the request Node builds', async () => {
  const dir = consumerProject('webpack');
  writeFileSync(join(dir, 'main.js'), pageScript(''));
  const stats = await new Promise((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        context: dir,
        entry: './main.js',
        target: 'web',
        output: { path: join(dir, 'dist'), filename: 'main.js', publicPath: 'auto' },
        performance: { hints: false },
      },
      (err, stats) => (err ? reject(err) : resolve(stats)),
    ),
  );
  assert.equal(stats.hasErrors(), false, stats.toString('errors-only'));
  const emitted = readdirSync(join(dir, 'dist'));
  assert.ok(emitted.some((f) => f.endsWith('.wasm')), `no .wasm emitted: ${emitted}`);
  writeFileSync(join(dir, 'dist/index.html'), indexHtml('./main.js'));
  await checkPage(join(dir, 'dist'));
});
