// A browser app bundled with esbuild, as a consumer of the built package (pkg/) would bundle it:
// the package resolves through its "browser" condition, the .wasm comes in through the package's
// `contextview/contextview_bg.wasm` export with esbuild's `file` loader (esbuild copies it next to
// the bundle; nobody copies it by hand), and the page, served over loopback and loaded in
// headless Chromium, builds the same request body as Node does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

import * as cv from '../../pkg/node.mjs';
import { serveStatic, CHROMIUM, CHROMIUM_ARGS } from '../js/static-server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const log = readFileSync(join(root, 'examples/session.jsonl'), 'utf8');

const ENTRY = `import { init, Session } from 'contextview';
import wasmUrl from 'contextview/contextview_bg.wasm';

const log = ${JSON.stringify(log)};
try {
  await init(wasmUrl);
  const session = Session.fromLog(log);
  const bytes = session.buildBytes({ provider: 'anthropic' }).body;
  window.__result = { body: new TextDecoder().decode(bytes), isBytes: bytes instanceof Uint8Array };
  document.body.dataset.status = 'ok';
} catch (e) {
  document.body.dataset.status = 'error: ' + (e && e.message);
}
`;

test('an esbuild browser bundle loads the wasm and builds the request Node builds', async () => {
  const dir = join(root, 'target/packaging/esbuild');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(root, 'pkg'), join(dir, 'node_modules/contextview'), 'dir');
  writeFileSync(join(dir, 'entry.mjs'), ENTRY);
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
  writeFileSync(join(dir, 'dist/index.html'), '<!doctype html><meta charset="utf-8"><body data-status="loading"><script type="module" src="./entry.js"></script></body>');

  const server = await serveStatic(join(dir, 'dist'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.body.dataset.status !== 'loading', null, { timeout: 30_000 });
    const status = await page.evaluate(() => document.body.dataset.status);
    assert.equal(status, 'ok', errors.join('\n'));
    const got = await page.evaluate(() => window.__result);
    assert.equal(got.isBytes, true);
    assert.equal(got.body, cv.buildRequestString({ log, provider: 'anthropic' }).body);
    assert.ok(server.requests.some((p) => p.endsWith('.wasm')), `the page fetched no .wasm: ${server.requests}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
