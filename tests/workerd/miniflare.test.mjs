// The package's workerd entry inside workerd (Miniflare), behind a Durable Object that keeps the
// session log in storage; plus an offline `wrangler deploy --dry-run` bundle check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorker, wranglerEnv } from './worker-host.mjs';

import * as cv from '../../pkg/node.mjs';
import { receiveAnswer } from './receive-answer.mjs';
import { PROVIDERS, checkBuild } from '../js/payload-checks.mjs';
import { workspaceFixture, mentions } from '../js/discover-fixture.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
const log = readFileSync(root + 'examples/session.jsonl', 'utf8');
const lines = log.split('\n').filter((l) => l.trim() !== '');

let mf;

before(async () => {
  mf = await startWorker();
});

after(async () => {
  await mf?.dispose();
});

const call = async (path, init) => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, init);
  return { status: res.status, body: await res.json() };
};

test('append the example session line by line, then build for every provider', async () => {
  for (const [i, line] of lines.entries()) {
    const r = await call('/append?session=ex', { method: 'POST', body: line + '\n' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.lines, i + 1);
  }
  const info = await call('/info?session=ex');
  assert.equal(info.body.version, cv.version());
  assert.equal(info.body.lines, lines.length);
  assert.equal(info.body.items, cv.replay(log).items.length);

  for (const provider of PROVIDERS) {
    const expected = cv.buildRequest({ log, provider });
    const r = await call(`/build?session=ex&provider=${provider}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    checkBuild(provider, r.body.payload, r.body.report);
    assert.deepEqual(r.body.payload, expected.payload, `${provider}: workerd Session build equals Node's`);
    assert.deepEqual(r.body.report.repairs, expected.report.repairs);
    const stateless = await call(`/build?session=ex&provider=${provider}&mode=stateless`);
    assert.deepEqual(stateless.body.payload, expected.payload, `${provider}: stateless buildRequest`);
    // buildBytes in workerd: a Uint8Array the runtime sends as it is, byte for byte Node's body.
    const res = await mf.dispatchFetch(`http://localhost/build?session=ex&provider=${provider}&mode=bytes`);
    assert.equal(res.headers.get('x-body-type'), '[object Uint8Array]');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.ok(bytes.equals(Buffer.from(cv.buildRequestString({ log, provider }).body)), `${provider}: buildBytes in workerd`);
    assert.equal(Number(res.headers.get('x-report-bytes')), bytes.length);
  }
});

test('sessions are separate Durable Objects', async () => {
  const other = await call('/info?session=other');
  assert.deepEqual({ lines: other.body.lines, items: other.body.items }, { lines: 0, items: 0 });
  const empty = await call('/build?session=other&provider=anthropic');
  assert.equal(empty.status, 400);
});

test('a duplicate record is not stored twice; a bad line is refused with its code', async () => {
  const dup = await call('/append?session=ex', { method: 'POST', body: lines[3] });
  assert.equal(dup.status, 200);
  assert.equal(dup.body.added, false);
  assert.equal(dup.body.lines, lines.length);

  const bad = await call('/append?session=ex', { method: 'POST', body: '{"seq": "not a record"' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.code, /^[a-z_]+$/);
  assert.notEqual(bad.body.error.code, 'internal');
  assert.equal((await call('/info?session=ex')).body.lines, lines.length, 'refused line not persisted');
});

test('library errors come back with their code', async () => {
  const r = await call('/build?session=ex&provider=nope');
  assert.equal(r.status, 400);
  assert.match(r.body.error.code, /^[a-z_]+$/);
  assert.notEqual(r.body.error.code, 'internal');
});

test('discover over memoryFs runs in workerd and matches Node', async () => {
  const fx = workspaceFixture('/w');
  const r = await call('/discover', { method: 'POST', body: JSON.stringify({ files: fx.files, cwd: fx.paths.cwd, home: fx.paths.home, rulesFor: fx.paths.mainTs }) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const marker of fx.unconditional) assert.equal(mentions(r.body.environment.rules, marker), 1, marker);
  assert.deepEqual(r.body.attached.map((x) => x.path), [`${fx.paths.root}/.cursor/rules/z.mdc`]);
  const ws = await cv.discover({ cwd: fx.paths.cwd, home: fx.paths.home }, cv.memoryFs(fx.files));
  assert.deepEqual(r.body.environment, JSON.parse(JSON.stringify(ws.environment)), 'same environment as in Node');
  assert.deepEqual(r.body.attached, JSON.parse(JSON.stringify(await ws.rulesForPath(fx.paths.mainTs))));
  assert.deepEqual(r.body.stats, ws.stats(), 'same host calls as in Node');
  ws.free();
});

test('wrangler deploy --dry-run bundles the worker with both wasm modules', () => {
  const home = mkdtempSync(join(tmpdir(), 'contextview-wrangler-'));
  try {
    const out = join(home, 'dist');
    const r = spawnSync(join(root, 'node_modules/.bin/wrangler'),
      ['deploy', '--dry-run', '--outdir', out, '-c', join(here, 'wrangler.toml')],
      { cwd: root, encoding: 'utf8', env: wranglerEnv(home) });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const files = readdirSync(out, { recursive: true });
    // The first-load module and the lazy one, each uploaded as a module of its own (the lazy one
    // imported by the Worker only when first needed), each the package's optimised file.
    const wasm = files.filter((f) => f.endsWith('.wasm')).sort((a, b) => a.endsWith('_lazy_bg.wasm') - b.endsWith('_lazy_bg.wasm'));
    assert.equal(wasm.length, 2, `two wasm modules in ${files}`);
    assert.ok(readFileSync(join(out, wasm[0])).equals(readFileSync(root + 'pkg/web/contextview_bg.wasm')), wasm[0]);
    assert.ok(readFileSync(join(out, wasm[1])).equals(readFileSync(root + 'pkg/web/contextview_lazy_bg.wasm')), wasm[1]);
    assert.ok(files.some((f) => f === 'worker.js'), `worker.js in ${files}`);
    assert.match(r.stdout, /SESSIONS/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a provider's answer streamed into the Worker is recorded as Node records it", async () => {
  const { default: worker } = await import('./worker.mjs').catch(() => ({}));
  for (const [provider, model, file] of [
    ['anthropic', 'claude-sonnet-4-5', 'anthropic-thinking-tools.sse'],
    ['openai-chat', 'gpt-4.1', 'openai-chat-tools.sse'],
    ['openai-responses', 'gpt-5', 'openai-responses-reasoning-call.sse'],
    ['gemini', 'gemini-3-pro-preview', 'gemini-text-signature.sse'],
    ['anthropic', 'claude-sonnet-4-5', 'anthropic-overloaded-mid-stream.sse'],
  ]) {
    const bytes = readFileSync(root + 'tests/fixtures/answers/' + file);
    const res = await mf.dispatchFetch(`http://localhost/receive?provider=${provider}&model=${model}`, { method: 'POST', body: inPieces(bytes), duplex: 'half' });
    assert.equal(res.status, 200, file);
    const inWorkerd = await res.json();
    // Live updates say what each piece completed, so Node is given the same pieces.
    const inNode = await nodeReceive(provider, model, inPieces(bytes));
    assert.deepEqual(inWorkerd, inNode, file);
    assert.ok(inWorkerd.updates.length > 0 && inWorkerd.lines.some((l) => l.includes('answer_end')), file);
  }
  assert.equal(worker, undefined, 'the worker module is not importable in Node (it needs cloudflare:workers)');
});

/** The bytes as a stream of 9-byte pieces. */
function inPieces(bytes) {
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 9) controller.enqueue(bytes.subarray(at, at + 9));
      controller.close();
    },
  });
}

/** The same exchange in Node, with the package's Node entry. */
const nodeReceive = (provider, model, body) => receiveAnswer(cv, body, provider, model);
