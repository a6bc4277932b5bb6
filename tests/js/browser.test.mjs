// The playground page (www/playground.html) in headless Chromium via playwright-core, served from 127.0.0.1.
// Checks the browser entry end to end and that its payloads equal the Node build's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import * as cv from '../../pkg/node.mjs';
import { openPage } from './static-server.mjs';
import { PROVIDERS, checkBuild } from './payload-checks.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const log = readFileSync(root + 'examples/session.jsonl', 'utf8');
let server, browser, page;
const consoleMessages = [];
const wasmResponses = [];

before(async () => {
  ({ server, browser, page } = await openPage(chromium, root, '/www/playground.html', consoleMessages, (p) => {
    p.on('response', (r) => { if (r.url().endsWith('.wasm')) wasmResponses.push(r); });
  }));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function waitForBuild(provider) {
  await page.waitForFunction((p) => {
    const s = document.body.dataset.status;
    return s === 'ok' ? window.__contextviewResult?.provider === p : s.startsWith('error');
  }, provider, { timeout: 30_000 });
  return page.evaluate(() => ({ status: document.body.dataset.status, result: window.__contextviewResult }));
}

test('page loads the wasm and builds for every provider', async () => {
  for (const [i, provider] of PROVIDERS.entries()) {
    if (i > 0) await page.selectOption('#provider', provider);
    const { status, result } = await waitForBuild(provider);
    assert.equal(status, 'ok', `${provider}: ${status}`);
    assert.equal(result.version, cv.version());
    assert.deepEqual(result.violations, [], `${provider}: validatePayload in the browser`);
    const expected = cv.buildRequest({ log, provider });
    assert.deepEqual(result.payload, expected.payload, `${provider}: browser payload equals the Node build's`);
    const s = checkBuild(provider, result.payload, { ...expected.report, ...result.report });
    assert.equal(result.report.items, expected.report.items);
    assert.equal(result.report.bytes, expected.report.bytes);
    assert.equal(result.tools, 0);
    assert.ok(s.images > 0 && s.calls.length > 0);
    const shown = JSON.parse(await page.textContent('#payload'));
    assert.deepEqual(shown, expected.payload, `${provider}: the page shows the payload`);
  }
  mkdirSync(root + 'target', { recursive: true });
  await page.screenshot({ path: root + 'target/www.png', fullPage: false });
});

test('wasm is served as application/wasm and the page logged no errors', async () => {
  assert.equal(wasmResponses.length, 1, 'fetched once');
  assert.equal(wasmResponses[0].status(), 200);
  assert.equal(wasmResponses[0].headers()['content-type'], 'application/wasm');
  assert.deepEqual(consoleMessages.filter((m) => /^(error|warning|pageerror)/.test(m)), []);
});

test('the lazy module: one that cannot be fetched is a typed error and builds go on; then it loads, late and once', async () => {
  const text = readFileSync(root + 'tests/fixtures/pi.jsonl', 'utf8');
  const before = wasmResponses.length;
  // An OpenCode session's storage files (one file each for the session, a message, a part).
  const storage = {
    session: JSON.stringify({ id: 'ses_page', directory: '/w', time: { created: 1780300000000 } }, null, 2),
    messages: [JSON.stringify({ id: 'msg_1', sessionID: 'ses_page', role: 'user', time: { created: 1780300000000 } }, null, 2)],
    parts: [JSON.stringify({ id: 'prt_1', sessionID: 'ses_page', messageID: 'msg_1', type: 'text', text: 'Why is the page slow?' }, null, 2)],
  };
  const r = await page.evaluate(async ({ log, text, storage }) => {
    const cvModule = await import('/pkg/browser.mjs');
    const outcome = async (p) => {
      try {
        await p;
        return { ok: true };
      } catch (e) {
        return { name: e.name, code: e.code, ours: e instanceof cvModule.ContextviewError, cause: typeof e.cause?.message, argument: e.argument };
      }
    };
    const loadedBefore = cvModule.lazyModuleLoaded();
    const wrongSource = await outcome(cvModule.init({ lazy: 5 }));
    await cvModule.init({ lazy: '/nowhere/contextview_lazy_bg.wasm' });
    const importSession = await outcome(cvModule.importSession(text));
    const discover = await outcome(cvModule.discover({ cwd: '/w' }, cvModule.memoryFs({ '/w/AGENTS.md': 'Use tabs.' })));
    const loadedAfterFailures = cvModule.lazyModuleLoaded();
    const build = cvModule.buildRequest({ log, provider: 'openai-chat' }).payload.messages.length;
    const lazy = await cvModule.loadLazyModule(new URL('/pkg/web/contextview_lazy_bg.wasm', location.href));
    const imported = await cvModule.importSession(text);
    const fromStorage = await cvModule.importOpenCodeStorage(storage);
    const again = await cvModule.loadLazyModule();
    return {
      loadedBefore, wrongSource, importSession, discover, loadedAfterFailures, build, keys: Object.keys(lazy).sort(),
      same: again === lazy, loaded: cvModule.lazyModuleLoaded(), imported, fromStorage,
    };
  }, { log, text, storage });
  assert.equal(r.loadedBefore, false, 'the builds above never loaded it');
  assert.deepEqual(r.wrongSource, { name: 'ContextviewTypeError', code: 'invalid_argument', ours: true, cause: 'undefined', argument: 'lazy' }, 'a source that is none is refused, as a rejection');
  const unavailable = { name: 'ContextviewError', code: 'lazy_module_unavailable', ours: true, cause: 'string', argument: undefined };
  assert.deepEqual(r.importSession, unavailable);
  assert.deepEqual(r.discover, unavailable);
  assert.equal(r.loadedAfterFailures, false);
  assert.ok(r.build > 0);
  assert.deepEqual(r.keys, ['IncrementalImport', 'WorkspaceEngine', 'importOpenCodeStorage', 'importSession', 'importTree']);
  assert.deepEqual([r.same, r.loaded], [true, true]);
  const local = await cv.importSession(text);
  assert.deepEqual(r.imported, local, 'the page imports as Node does');
  assert.deepEqual(r.fromStorage, await cv.importOpenCodeStorage(storage), 'and a storage folder\'s files');
  assert.match(r.fromStorage.parent.log, /Why is the page slow\?/);
  // The two tries at the missing module, then the module itself: fetched once.
  const fetched = wasmResponses.slice(before).map((res) => [new URL(res.url()).pathname, res.status()]);
  assert.deepEqual(fetched, [
    ['/nowhere/contextview_lazy_bg.wasm', 404],
    ['/nowhere/contextview_lazy_bg.wasm', 404],
    ['/pkg/web/contextview_lazy_bg.wasm', 200],
  ]);
});

test("the page receives a provider's streamed answer as Node does", async () => {
  const exchange = async (cvModule, response) => {
    const now = '2026-12-03T10:00:00Z';
    const session = cvModule.Session.create('page');
    session.dispatch({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5' }, now);
    session.dispatch({ type: 'userMessage', text: 'hi' }, now);
    const stream = cvModule.receive(session, response, { now });
    const updates = [];
    for await (const update of stream) updates.push(update);
    const processed = await stream.done();
    return { updates, lines: processed.effects.flatMap((e) => e.lines ?? []), answer: processed.reply.answer };
  };
  const inPage = await page.evaluate(async (source) => {
    const cvModule = await import('/pkg/browser.mjs');
    await cvModule.init();
    const exchange = eval(`(${source})`);
    return exchange(cvModule, await fetch('/tests/fixtures/answers/anthropic-thinking-tools.sse'));
  }, exchange.toString());
  const inNode = await exchange(cv, new Response(readFileSync(root + 'tests/fixtures/answers/anthropic-thinking-tools.sse')));
  assert.deepEqual(inPage, inNode);
  assert.equal(inPage.answer.toolCalls.length, 2);
});
