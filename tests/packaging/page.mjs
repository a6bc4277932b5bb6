// What the bundler tests share: a consumer project whose node_modules/contextview is the packed
// package (installed.mjs), the page script every bundle is made from, and the check that the bundled page, served
// over loopback in headless Chromium, builds the request Node builds.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import * as cv from '../../pkg/node.mjs';
import { serveStatic, CHROMIUM, CHROMIUM_ARGS } from '../js/static-server.mjs';
import { installInto } from './installed.mjs';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const log = readFileSync(join(root, 'examples/session.jsonl'), 'utf8');
const piSession = readFileSync(join(root, 'tests/fixtures/pi.jsonl'), 'utf8');

/** A fresh consumer project under target/packaging/<name>, with the packed package installed. */
export function consumerProject(name) {
  const dir = join(root, 'target/packaging', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  installInto(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `${name}-consumer`, private: true, type: 'module' }));
  return dir;
}

/**
 * The page's script: `prelude` imports, then `init(<initArg>)` and a build of the example
 * session, then an import of another agent's session (which loads the lazy module), with the
 * `.wasm` files fetched before and after it.
 */
export function pageScript(prelude, initArg = '') {
  return `import { init, Session, importSession, lazyModuleLoaded } from 'contextview';
${prelude}
const log = ${JSON.stringify(log)};
const wasmFetched = () => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm'));
try {
  await init(${initArg});
  const session = Session.fromLog(log);
  const bytes = session.buildBytes({ provider: 'anthropic' }).body;
  window.__result = { body: new TextDecoder().decode(bytes), isBytes: bytes instanceof Uint8Array, lazyLoaded: lazyModuleLoaded(), wasm: wasmFetched() };
  const imported = await importSession(${JSON.stringify(piSession)});
  window.__imported = { log: imported.log, lazyLoaded: lazyModuleLoaded(), wasm: wasmFetched() };
  document.body.dataset.status = 'ok';
} catch (e) {
  document.body.dataset.status = 'error: ' + (e && e.message);
}
`;
}

/** An index.html loading `script` as a module. */
export const indexHtml = (script) =>
  `<!doctype html><meta charset="utf-8"><body data-status="loading"><script type="module" src="${script}"></script></body>`;

/**
 * Serves `dir` over loopback, opens `path` in headless Chromium and runs `fn(page, errors,
 * server)` (`errors`: the page's uncaught errors so far); closes both whatever happens.
 */
export async function inChromium(dir, path, fn) {
  const server = await serveStatic(dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}${path}`);
    return await fn(page, errors, server);
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Serves `dist`, opens index.html in Chromium, and checks the page built Node's body. */
export async function checkPage(dist) {
  await inChromium(dist, '/index.html', async (page, errors, server) => {
    await page.waitForFunction(() => document.body.dataset.status !== 'loading', null, { timeout: 30_000 });
    const status = await page.evaluate(() => document.body.dataset.status);
    assert.equal(status, 'ok', errors.join('\n'));
    const got = await page.evaluate(() => window.__result);
    assert.equal(got.isBytes, true);
    assert.equal(got.body, cv.buildRequestString({ log, provider: 'anthropic' }).body);
    assert.ok(server.requests.some((p) => p.endsWith('.wasm')), `the page fetched no .wasm: ${server.requests}`);
    // The build fetched the first-load module alone; the import then fetched the lazy one, as
    // the bundler emitted it, and imported as Node does.
    assert.equal(got.lazyLoaded, false);
    assert.equal(got.wasm.length, 1, `${got.wasm}`);
    const imported = await page.evaluate(() => window.__imported);
    assert.equal(imported.lazyLoaded, true);
    assert.equal(imported.wasm.length, 2, `${imported.wasm}`);
    // (webpack names its assets by their hash alone: the file differs from the first.)
    assert.notEqual(imported.wasm[1], imported.wasm[0]);
    assert.equal(imported.log, (await cv.importSession(piSession)).log);
    assert.deepEqual(errors, []);
  });
}
