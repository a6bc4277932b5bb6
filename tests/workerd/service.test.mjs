// The session service (examples/worker) in workerd, bundled as `wrangler deploy` bundles it: the
// API end to end (the exported log replays to the same request), restarts and storage faults
// (nothing acknowledged lost, nothing written twice), authentication and bad input (the right
// status and code, the session unchanged), notifications over a WebSocket, and several clients
// on one session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as cv from '../../pkg/node.mjs';
import { mintToken } from '../../examples/worker/src/auth.mjs';
import { SECRET, bundleService, exampleConfig, root, startService, wranglerEnv } from './service-host.mjs';
import { respond } from '../js/standin.mjs';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 };
const BUILD = { provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 };
let bundle;
let persistDir;
let mf;
let acme; // a client token for sessions starting with "acme-"

async function call(method, path, { token = acme, body, headers = {} } = {}) {
  const init = { method, headers: { ...headers } };
  if (token !== null) init.headers.authorization = `Bearer ${token}`;
  if (body !== undefined) init.body = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await mf.dispatchFetch(`http://service${path}`, init);
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

const command = (id, body, headers) => call('POST', `/v1/sessions/${id}/commands`, { body, headers });
const exported = async (id) => (await call('GET', `/v1/sessions/${id}/log`)).text;

/** A short agent session: model, heads, a prompt with a tool loop, usage, a reminder. */
function script() {
  return [
    { type: 'switchModel', ...MODEL },
    { type: 'setPromptContext', context: { label: 'Forge', cwd: '/repo', tools: ['read'], os: 'linux' } },
    { type: 'userMessage', text: 'Make the parser accept trailing commas.' },
    { type: 'assistantResponse', text: 'Reading the parser.', toolCalls: [{ id: 'c1', name: 'read', input: { path: 'src/parser.rs' } }], usage: { inputTokens: 900, outputTokens: 30 } },
    { type: 'toolResult', toolCallId: 'c1', output: 'fn parse(tokens: &[Token]) { /* … */ }' },
    { type: 'recordEditedPath', path: '/repo/src/parser.rs' },
    { type: 'enqueueReminder', reminder: { kind: 'diagnostics', text: 'src/parser.rs:12: unused variable `t`' } },
  ];
}

before(async () => {
  bundle = bundleService();
  persistDir = mkdtempSync(join(tmpdir(), 'cv-service-state-'));
  mf = await startService(bundle.dir, { persist: persistDir });
  acme = await mintToken(SECRET, { prefix: 'acme-' });
});

after(async () => {
  await mf?.dispose();
  bundle?.cleanup();
  if (persistDir) rmSync(persistDir, { recursive: true, force: true });
});

test('wrangler deploy --dry-run bundles the service with its Durable Object and both wasm modules', () => {
  assert.match(bundle.stdout, /env\.SESSIONS \(SessionObject\)/);
  const wasm = bundle.files.filter((f) => f.endsWith('.wasm')).sort((a, b) => a.endsWith('_lazy_bg.wasm') - b.endsWith('_lazy_bg.wasm'));
  assert.equal(wasm.length, 2, `${bundle.files}`);
  assert.ok(readFileSync(join(bundle.dir, wasm[0])).equals(readFileSync(root + 'pkg/web/contextview_bg.wasm')), wasm[0]);
  assert.ok(readFileSync(join(bundle.dir, wasm[1])).equals(readFileSync(root + 'pkg/web/contextview_lazy_bg.wasm')), wasm[1]);
});

test('create, command, build, usage, export: the exported log replays to the same request', async () => {
  const created = await call('PUT', '/v1/sessions/acme-e2e');
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.created, true);
  const again = await call('PUT', '/v1/sessions/acme-e2e');
  assert.equal(again.status, 200);
  assert.equal(again.json.created, false);

  for (const c of script()) {
    const r = await command('acme-e2e', c);
    assert.equal(r.status, 200, `${c.type}: ${r.text}`);
    assert.equal(r.json.command, c.type);
    assert.equal(r.json.error, undefined);
  }
  const built = await call('POST', '/v1/sessions/acme-e2e/build', { body: BUILD });
  assert.equal(built.status, 200, built.text);
  assert.equal(built.json.reply.type, 'built');
  assert.ok(built.json.body.messages.length >= 3);
  assert.ok(built.text.includes('unused variable'), 'the reminder drained into the request');

  const log = await exported('acme-e2e');
  const replayed = cv.buildRequestString({ log, ...BUILD });
  assert.deepEqual(JSON.parse(replayed.body), built.json.body, 'a fresh replay of the export builds the same request');
  // The reminder the build drained was stored: a second build rewrites nothing.
  const second = await call('POST', '/v1/sessions/acme-e2e/build', { body: BUILD });
  assert.equal(JSON.stringify(second.json.body), JSON.stringify(built.json.body));
  assert.equal(second.json.reply.report.prefix.extendsPrevious, true);

  const usage = await call('GET', '/v1/sessions/acme-e2e/usage?provider=anthropic&model=claude-sonnet-4-5&contextWindow=200000');
  assert.equal(usage.status, 200);
  const local = cv.Session.fromLog(log);
  assert.deepEqual(usage.json, local.usage(BUILD));
  local.free();

  const state = await call('GET', '/v1/sessions/acme-e2e');
  assert.equal(state.status, 200);
  assert.equal(state.json.records, log.trim().split('\n').length - 1);
  assert.deepEqual(state.json.state.editedPaths, ['/repo/src/parser.rs']);
});

test('compaction: prepare, then apply; the log keeps everything', async () => {
  await call('PUT', '/v1/sessions/acme-compact');
  for (const c of script()) assert.equal((await command('acme-compact', c)).status, 200);
  await command('acme-compact', { type: 'assistantResponse', text: 'Fixed.', usage: { inputTokens: 1200, outputTokens: 10 } });
  await command('acme-compact', { type: 'userMessage', text: 'Now add a test.' });
  const prepared = await command('acme-compact', { type: 'prepareCompaction', options: { keepRecentTokens: 10, build: BUILD } });
  assert.equal(prepared.status, 200, prepared.text);
  assert.equal(prepared.json.reply.type, 'compaction');
  assert.ok(prepared.json.reply.summarised > 0);
  const summary = ['## Goal', 'Trailing commas.', '## Constraints', 'None', '## Progress', '### Done', 'Fixed the parser.',
    '### In progress', 'None', '### Blocked', 'None', '## Decisions', 'None', '## Next steps', 'Add a test.', '## Files',
    'src/parser.rs', '## Pending actions', 'None'].join('\n');
  const applied = await command('acme-compact', { type: 'applyCompaction', summary });
  assert.equal(applied.status, 200, applied.text);
  const log = await exported('acme-compact');
  assert.match(log, /compaction_checkpoint/);
  assert.match(log, /Make the parser accept trailing commas/, 'the log still holds what was summarised');
  const built = await call('POST', '/v1/sessions/acme-compact/build', { body: BUILD });
  assert.deepEqual(built.json.body, JSON.parse(cv.buildRequestString({ log: await exported('acme-compact'), ...BUILD }).body));
});

test('a retry with the same idempotency key gets the same reply and writes nothing', async () => {
  await call('PUT', '/v1/sessions/acme-idem');
  const c = { type: 'userMessage', text: 'Only once, please.' };
  const first = await command('acme-idem', c, { 'idempotency-key': 'k-1' });
  assert.equal(first.status, 200);
  const before = await exported('acme-idem');
  const retry = await command('acme-idem', c, { 'idempotency-key': 'k-1' });
  assert.equal(retry.status, 200);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(retry.json, first.json);
  assert.equal(await exported('acme-idem'), before, 'nothing written twice');
  const conflict = await command('acme-idem', { type: 'userMessage', text: 'Something else' }, { 'idempotency-key': 'k-1' });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.json.error.code, 'idempotency_conflict');
  assert.equal(await exported('acme-idem'), before);
  // The same command with its fields in another order is the same command.
  const reordered = await call('POST', '/v1/sessions/acme-idem/commands', { body: '{"text": "Only once, please.", "type": "userMessage"}', headers: { 'idempotency-key': 'k-1' } });
  assert.equal(reordered.headers.get('idempotent-replayed'), 'true');
  // A keyed build retried answers the request again (not a bare acknowledgement).
  const build = { type: 'buildRequest', options: BUILD };
  const built = await command('acme-idem', build, { 'idempotency-key': 'b-1' });
  const rebuilt = await command('acme-idem', build, { 'idempotency-key': 'b-1' });
  assert.equal(built.json.reply.type, 'built');
  assert.equal(rebuilt.json.reply.type, 'built');
  assert.deepEqual(rebuilt.json.body, built.json.body);
  assert.equal(await exported('acme-idem'), before);
  // Keys belong to their session: the same key elsewhere is a new command there.
  await call('PUT', '/v1/sessions/acme-idem-2');
  const elsewhere = await command('acme-idem-2', { type: 'userMessage', text: 'Another session.' }, { 'idempotency-key': 'k-1' });
  assert.equal(elsewhere.status, 200);
  assert.equal(elsewhere.headers.get('idempotent-replayed'), null);
  assert.ok((await exported('acme-idem-2')).includes('Another session.'));
  assert.ok(!(await exported('acme-idem-2')).includes('Only once, please.'), 'nothing of one session reaches another');
});

test('storage faults: a failed write, a lost answer, a crash after the write — each retried with its key applies once', async () => {
  await call('PUT', '/v1/sessions/acme-faults');
  await command('acme-faults', { type: 'switchModel', ...MODEL });
  const texts = [];
  for (const [i, fault] of ['write_failure', 'lost_ack', 'crash_after_write'].entries()) {
    const text = `Prompt through ${fault}.`;
    texts.push(text);
    const key = `fault-${i}`;
    const c = { type: 'userMessage', text };
    const failed = await command('acme-faults', c, { 'idempotency-key': key, 'x-test-fault': fault });
    assert.equal(failed.status, 503, `${fault}: ${failed.text}`);
    assert.equal(failed.json.error.code, 'storage_unavailable');
    const retried = await command('acme-faults', c, { 'idempotency-key': key });
    assert.equal(retried.status, 200, `${fault}: ${retried.text}`);
    assert.equal(retried.json.command, 'userMessage');
    // A wrong reply is worse than none: the retry's seqs are the records holding the prompt.
    const log = await exported('acme-faults');
    const records = log.trim().split('\n').slice(1).map((l) => JSON.parse(l));
    const holding = records.filter((r) => r.update?.content?.text === text).map((r) => r.seq);
    assert.deepEqual(holding.length, 1, `${fault}: the prompt is stored once`);
    assert.deepEqual(retried.json.reply.seqs, holding, `${fault}: the reply names the stored record`);
  }
  // Memory and storage agree: a session replayed from storage builds what the service builds.
  await command('acme-faults', { type: 'assistantResponse', text: 'Noted.' });
  await command('acme-faults', { type: 'userMessage', text: 'Go on.' });
  const built = await call('POST', '/v1/sessions/acme-faults/build', { body: BUILD });
  const log = await exported('acme-faults');
  assert.deepEqual(built.json.body, JSON.parse(cv.buildRequestString({ log, ...BUILD }).body));
  for (const t of texts) assert.equal(log.split(t).length - 1, 1, `${t} once in the log`);
});

test('a restart between commands loses nothing acknowledged, and the next request is a fresh replay\'s', async () => {
  await call('PUT', '/v1/sessions/acme-restart');
  for (const c of script()) assert.equal((await command('acme-restart', c, { 'idempotency-key': `r-${c.type}` })).status, 200);
  const before = await exported('acme-restart');
  await mf.dispose();
  mf = await startService(bundle.dir, { persist: persistDir });
  assert.equal(await exported('acme-restart'), before, 'the log survived the restart');
  // A client that never saw its answer retries the last command: stored reply, nothing written.
  const last = script().at(-1);
  const retry = await command('acme-restart', last, { 'idempotency-key': `r-${last.type}` });
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(await exported('acme-restart'), before);
  const built = await call('POST', '/v1/sessions/acme-restart/build', { body: BUILD });
  assert.deepEqual(built.json.body, JSON.parse(cv.buildRequestString({ log: await exported('acme-restart'), ...BUILD }).body));
});

test('authentication and authorisation: each refusal has its status and code, and the session is unchanged', async () => {
  await call('PUT', '/v1/sessions/acme-auth');
  await command('acme-auth', { type: 'userMessage', text: 'Hello.' });
  const before = await exported('acme-auth');
  const other = await mintToken(SECRET, { prefix: 'globex-' });
  const expired = await mintToken(SECRET, { prefix: 'acme-', ttlSeconds: -10 });
  const forged = await mintToken('another-secret-of-16-chars', { prefix: 'acme-' });
  const tampered = acme.replace(/\.([^.]*)\./, (_, p) => `.${p.slice(0, -2)}xx.`);
  const cases = [
    [null, 401, 'unauthorized'],
    ['not-the-secret', 401, 'unauthorized'],
    [forged, 401, 'unauthorized'],
    [tampered, 401, 'unauthorized'],
    [expired, 401, 'token_expired'],
    [other, 403, 'forbidden'],
    ['cv1.x.A', 401, 'unauthorized'],
    ['cv1.a.b.c', 401, 'unauthorized'],
    ['cv1..', 401, 'unauthorized'],
    [`${acme}.extra`, 401, 'unauthorized'],
  ];
  for (const [token, status, code] of cases) {
    for (const [method, path, body] of [['POST', '/v1/sessions/acme-auth/commands', { type: 'userMessage', text: 'Intruder.' }],
      ['GET', '/v1/sessions/acme-auth/log'], ['PUT', '/v1/sessions/acme-auth'], ['POST', '/v1/sessions/acme-auth/build', BUILD]]) {
      const r = await call(method, path, { token, body });
      assert.equal(r.status, status, `${method} ${path} with ${token?.slice(0, 12)}: ${r.text}`);
      assert.equal(r.json.error.code, code);
      assert.ok(!r.text.includes('Hello.'), 'nothing of the session leaks into a refusal');
    }
  }
  // The operator's secret reaches every session; a client token only its own prefix.
  assert.equal((await call('GET', '/v1/sessions/acme-auth/log', { token: SECRET })).status, 200);
  assert.equal((await call('PUT', '/v1/sessions/globex-1', { token: other })).status, 201);
  assert.equal((await call('GET', '/v1/sessions/globex-1/log', { token: acme })).status, 403);
  assert.equal(await exported('acme-auth'), before, 'the session is unchanged');
});

test('bad input: oversized bodies, malformed JSON and commands, unknown routes — 4xx with a code, never a 500', async () => {
  await call('PUT', '/v1/sessions/acme-bad');
  await command('acme-bad', { type: 'userMessage', text: 'Hello.' });
  const before = await exported('acme-bad');
  const big = JSON.stringify({ type: 'userMessage', text: 'x'.repeat(70_000) });
  const cases = [
    ['POST', '/v1/sessions/acme-bad/commands', big, 413, 'body_too_large'],
    ['POST', '/v1/sessions/acme-bad/commands', '{"type": "userMessage", "text": ', 400, 'invalid_json'],
    ['POST', '/v1/sessions/acme-bad/commands', '[1, 2]', 400, 'invalid_json'],
    ['POST', '/v1/sessions/acme-bad/commands', '{"type": "restore", "snapshot": {}}', 400, 'unknown_command'],
    ['POST', '/v1/sessions/acme-bad/commands', '{"text": "no type"}', 400, 'unknown_command'],
    ['POST', '/v1/sessions/acme-bad/commands', '{"type": "toolResult", "toolCallId": 7}', 422, 'invalid_command'],
    ['POST', '/v1/sessions/acme-bad/commands', '{"type": "rewind", "promptIndex": 99}', 422, 'invalid_prompt_index'],
    ['POST', '/v1/sessions/acme-bad/build', '{"provider": "nobody"}', 422, 'invalid_options'],
    ['POST', '/v1/sessions/acme-bad/import', 'x'.repeat(10), 409, 'session_exists'],
    ['DELETE', '/v1/sessions/acme-bad', undefined, 405, 'method_not_allowed'],
    ['GET', '/v1/sessions/acme-bad/nothing', undefined, 404, 'not_found'],
    ['GET', '/v2/anything', undefined, 404, 'not_found'],
    ['PUT', '/v1/sessions/acme-bad%2F..', undefined, 400, 'invalid_session_id'],
    ['PUT', '/v1/sessions/acme-%ZZ', undefined, 400, 'invalid_session_id'],
    ['PUT', '/v1/sessions/acme-%C0%AF', undefined, 400, 'invalid_session_id'],
    ['GET', '/v1/sessions/acme-missing/log', undefined, 404, 'no_session'],
    ['GET', '/v1/sessions/acme-bad/events', undefined, 426, 'upgrade_required'],
  ];
  for (const [method, path, body, status, code] of cases) {
    const r = await call(method, path, { body });
    assert.equal(r.status, status, `${method} ${path} ${String(body).slice(0, 40)}: ${r.text.slice(0, 300)}`);
    assert.equal(typeof r.json?.error?.code, 'string', r.text.slice(0, 200));
    assert.equal(r.json.error.code, code, `${method} ${path}`);
  }
  // A command body over the limit with no Content-Length: refused as it streams.
  const streamedBig = await mf.dispatchFetch('http://service/v1/sessions/acme-bad/commands', {
    method: 'POST', body: streamed(new TextEncoder().encode(big), 4096), duplex: 'half', headers: { authorization: `Bearer ${acme}` },
  });
  assert.equal(streamedBig.status, 413);
  assert.equal((await streamedBig.json()).error.code, 'body_too_large');
  const bigImport = await call('POST', '/v1/sessions/acme-huge/import', { body: 'x'.repeat(2_200_000) });
  assert.equal(bigImport.status, 413);
  assert.equal(bigImport.json.error.code, 'body_too_large');
  const garbage = await call('POST', '/v1/sessions/acme-garbage/import', { body: 'this is not a session\n' });
  assert.equal(garbage.status, 422, garbage.text);
  assert.equal(garbage.json.error.code, 'unknown_format');
  for (const [path, body, headers, status, code] of [
    ['/v1/sessions/acme-garbage/import?format=cursor', 'x', {}, 400, 'unknown_format'],
    ['/v1/sessions/acme-garbage/import', '  \n', {}, 400, 'empty_body'],
    ['/v1/sessions/acme-bad/commands', '{"type":"userMessage","text":"hi"}', { 'idempotency-key': 'a key with spaces' }, 400, 'invalid_idempotency_key'],
    ['/v1/sessions/acme-bad/commands', new Uint8Array([0x7b, 0xff, 0x7d]), {}, 400, 'invalid_utf8'],
  ]) {
    const r = await call('POST', path, { body, headers });
    assert.equal(r.status, status, `${path}: ${r.text}`);
    assert.equal(r.json.error.code, code);
  }
  assert.equal((await call('GET', '/v1/sessions/acme-garbage/log')).json.error.code, 'no_session', 'a refused import leaves nothing');
  assert.equal(await exported('acme-bad'), before, 'the session is unchanged');
});

test("importing any agent's file makes a new session whose log builds the imported view", async () => {
  const files = [['claude-code', 'claude-code.jsonl'], ['codex', 'codex.jsonl'], ['pi', 'pi.jsonl'], ['gemini-cli', 'gemini-cli.json'], ['copilot-cli', 'copilot-cli.jsonl'], ['aider', 'aider.chat.history.md'], ['cline', 'cline-task/cline.json'], ['roo-code', 'cline-task/roo-code.json'], ['kilo-code', 'cline-task/kilo-code.json'], ['opencode', 'opencode/ses-main.json']];
  for (const [format, file] of files) {
    const text = readFileSync(root + `tests/fixtures/${file}`, 'utf8');
    const id = `acme-import-${format}`;
    const r = await call('POST', `/v1/sessions/${id}/import?format=${format}`, { body: text });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.report.format, format);
    const local = await cv.importSession(text, format);
    assert.deepEqual(r.json.report, local.report);
    // The imported log, then the checkpoint the service gave it (a cold start reads from there).
    const lines = (await exported(id)).trimEnd().split('\n');
    assert.equal(lines.slice(0, -1).join('\n') + '\n', local.log);
    assert.equal(JSON.parse(lines.at(-1)).event.kind, 'checkpoint');
    const reopened = cv.Session.fromLog(lines.join('\n') + '\n');
    // (Gemini's API takes a conversation that ends with the model's answer, as some of these do.)
    assert.equal(reopened.buildString({ provider: 'gemini' }).body, cv.Session.fromLog(local.log).buildString({ provider: 'gemini' }).body, format);
  }
});

test('usage_update notifications and compactionDue reach a connected WebSocket', async () => {
  await call('PUT', '/v1/sessions/acme-ws');
  const res = await mf.dispatchFetch('http://service/v1/sessions/acme-ws/events', { headers: { upgrade: 'websocket', authorization: `Bearer ${acme}` } });
  assert.equal(res.status, 101);
  const ws = res.webSocket;
  const messages = [];
  ws.addEventListener('message', (e) => messages.push(JSON.parse(e.data)));
  ws.accept();
  await command('acme-ws', { type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 2000 });
  await command('acme-ws', { type: 'userMessage', text: 'Summarise the repository.' });
  await command('acme-ws', { type: 'assistantResponse', text: 'Reading.', usage: { inputTokens: 1900, outputTokens: 50 } });
  for (let i = 0; i < 50 && !messages.some((m) => m.type === 'compactionDue'); i++) await new Promise((r) => setTimeout(r, 20));
  const updates = messages.filter((m) => m.type === 'notification');
  assert.ok(updates.length > 0, JSON.stringify(messages));
  assert.equal(updates.at(-1).notification.update.sessionUpdate, 'usage_update');
  assert.equal(updates.at(-1).notification.update.size, 2000);
  assert.ok(messages.some((m) => m.type === 'compactionDue'), JSON.stringify(messages));
  ws.close();
  // Without a token, no socket; the operator's secret is not taken from a URL.
  const refused = await mf.dispatchFetch('http://service/v1/sessions/acme-ws/events', { headers: { upgrade: 'websocket' } });
  assert.equal(refused.status, 401);
  const inUrl = await mf.dispatchFetch(`http://service/v1/sessions/acme-ws/events?access_token=${SECRET}`, { headers: { upgrade: 'websocket' } });
  assert.equal(inUrl.status, 401);
  // A socket opened with a client token hears nothing once the token has expired.
  // Expiry is in whole seconds: a 3-second token lives more than 2 s, time enough to open the
  // socket on a busy machine; then wait until it has surely expired.
  const mintedAt = Date.now();
  const brief = await mintToken(SECRET, { prefix: 'acme-', ttlSeconds: 3, now: mintedAt });
  const short = await mf.dispatchFetch(`http://service/v1/sessions/acme-ws/events?access_token=${brief}`, { headers: { upgrade: 'websocket' } });
  assert.equal(short.status, 101);
  const closed = new Promise((resolve) => short.webSocket.addEventListener('close', (e) => resolve(e.code)));
  const heard = [];
  short.webSocket.addEventListener('message', (e) => heard.push(e.data));
  short.webSocket.accept();
  const expiredAt = (Math.floor(mintedAt / 1000) + 3) * 1000 + 150;
  await new Promise((r) => setTimeout(r, Math.max(0, expiredAt - Date.now())));
  await command('acme-ws', { type: 'recordUsage', usage: { inputTokens: 1950, outputTokens: 10 } });
  assert.equal(await closed, 4001);
  assert.deepEqual(heard, []);
});

test('several clients on one session: every command applied once, in one order, each reply its own', async () => {
  await call('PUT', '/v1/sessions/acme-many');
  await command('acme-many', { type: 'switchModel', ...MODEL });
  const N = 24;
  const replies = await Promise.all(Array.from({ length: N }, (_, i) =>
    command('acme-many', { type: 'userMessage', text: `client ${i} says hello` }, { 'idempotency-key': `many-${i}` })));
  const log = await exported('acme-many');
  const records = log.trim().split('\n').slice(1).map((l) => JSON.parse(l));
  const seen = new Set();
  for (const [i, r] of replies.entries()) {
    assert.equal(r.status, 200, r.text);
    const stored = records.filter((rec) => rec.update?.content?.text === `client ${i} says hello`);
    assert.equal(stored.length, 1, `client ${i} stored once`);
    assert.deepEqual(r.json.reply.seqs, [stored[0].seq], `client ${i}'s reply names its own record`);
    assert.ok(!seen.has(stored[0].seq));
    seen.add(stored[0].seq);
  }
  // One order: seqs are dense (1, 2, 3, …) and the log is exactly the commands in seq order.
  const seqs = records.map((r) => r.seq);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1));
  assert.equal(seqs.length, N + 1, 'the model switch, then one record per client');
});

test('idempotency keys are kept for their retry window, then forgotten', async () => {
  const short = await startService(bundle.dir, { bindings: { IDEMPOTENCY_TTL_SECONDS: '1' } });
  try {
    const send = async (body, key) => {
      const res = await short.dispatchFetch('http://service/v1/sessions/acme-ttl/commands', {
        method: 'POST', headers: { authorization: `Bearer ${acme}`, 'idempotency-key': key }, body: JSON.stringify(body),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), json: await res.json() };
    };
    await short.dispatchFetch('http://service/v1/sessions/acme-ttl', { method: 'PUT', headers: { authorization: `Bearer ${acme}` } });
    const c = { type: 'userMessage', text: 'Kept a second.' };
    const first = await send(c, 'ttl-1');
    assert.equal((await send(c, 'ttl-1')).replayed, 'true', 'within the window: the stored reply');
    await new Promise((r) => setTimeout(r, 2100));
    await send({ type: 'userMessage', text: 'Another.' }, 'ttl-2'); // a keyed command sweeps old keys
    const late = await send(c, 'ttl-1');
    assert.equal(late.status, 200);
    assert.equal(late.replayed, null, 'past the window the key is new again');
    assert.notDeepEqual(late.json.reply.seqs, first.json.reply.seqs);
  } finally {
    await short.dispose();
  }
});

test('wrangler dev serves the API as the README shows it', async () => {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address();
      probe.close(() => resolve(p));
    });
  });
  const home = mkdtempSync(join(tmpdir(), 'cv-wrangler-dev-'));
  const dev = spawn(join(root, 'node_modules/.bin/wrangler'),
    ['dev', '-c', exampleConfig(home), '--local', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', join(home, 'state'), '--var', `AUTH_SECRET:${SECRET}`],
    { cwd: home, env: wranglerEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  dev.stdout.on('data', (d) => { output += d; });
  dev.stderr.on('data', (d) => { output += d; });
  try {
    const base = `http://127.0.0.1:${port}`;
    let ready = false;
    for (let i = 0; i < 300 && !ready && dev.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = /Ready on/.test(output);
    }
    assert.ok(ready, `wrangler dev did not start:\n${output}`);
    const H = { authorization: `Bearer ${acme}` };
    const created = await fetch(`${base}/v1/sessions/acme-dev`, { method: 'PUT', headers: H });
    assert.equal(created.status, 201, await created.text());
    const sent = await fetch(`${base}/v1/sessions/acme-dev/commands`, { method: 'POST', headers: { ...H, 'idempotency-key': 'p1' }, body: '{"type":"userMessage","text":"List the files."}' });
    assert.equal(sent.status, 200, await sent.text());
    const built = await fetch(`${base}/v1/sessions/acme-dev/build`, { method: 'POST', headers: H, body: '{"provider":"anthropic","model":"claude-sonnet-4-5"}' });
    const reply = await built.json();
    assert.equal(reply.body.messages[0].content[0].text, 'List the files.');
    const log = await (await fetch(`${base}/v1/sessions/acme-dev/log`, { headers: H })).text();
    assert.equal(cv.buildRequestString({ log, provider: 'anthropic', model: 'claude-sonnet-4-5' }).body, JSON.stringify(reply.body));
    assert.equal((await fetch(`${base}/v1/sessions/acme-dev/log`)).status, 401);
  } finally {
    dev.kill('SIGTERM');
    await new Promise((r) => (dev.exitCode !== null ? r() : dev.once('exit', r)));
    rmSync(home, { recursive: true, force: true });
  }
});

test('a session takes at most 64 sockets; a token is minted only with a real secret and a whole TTL', async () => {
  await call('PUT', '/v1/sessions/acme-sockets');
  const open = () => mf.dispatchFetch('http://service/v1/sessions/acme-sockets/events', { headers: { upgrade: 'websocket', authorization: `Bearer ${acme}` } });
  const sockets = [];
  for (let i = 0; i < 64; i++) {
    const res = await open();
    assert.equal(res.status, 101, `socket ${i}`);
    res.webSocket.accept();
    sockets.push(res.webSocket);
  }
  const refused = await open();
  assert.equal(refused.status, 429);
  assert.equal((await refused.json()).error.code, 'too_many_sockets');
  for (const ws of sockets) ws.close();
  await assert.rejects(mintToken('short', { prefix: 'acme-' }), TypeError);
  await assert.rejects(mintToken(SECRET, { prefix: 'acme-', ttlSeconds: 1.5 }), TypeError);
  await assert.rejects(mintToken(SECRET, { prefix: 'acme/..' }), TypeError);
});

/** A body that arrives in small pieces, as a provider's stream does. */
function streamed(bytes, piece = 11) {
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += piece) controller.enqueue(bytes.subarray(at, at + piece));
      controller.close();
    },
  });
}

test("a provider's answer, streamed in: recorded as one keyed command, its updates sent to sockets as they decode", async () => {
  const id = 'acme-answer';
  await call('PUT', `/v1/sessions/${id}`);
  await command(id, { type: 'switchModel', ...MODEL });
  await command(id, { type: 'userMessage', text: 'Why does the parser test fail?' });
  const res = await mf.dispatchFetch(`http://service/v1/sessions/${id}/events`, { headers: { upgrade: 'websocket', authorization: `Bearer ${acme}` } });
  const messages = [];
  res.webSocket.addEventListener('message', (e) => messages.push(JSON.parse(e.data)));
  res.webSocket.accept();
  const bytes = readFileSync(join(root, 'tests/fixtures/answers/anthropic-thinking-tools.sse'));
  const post = (key, body = streamed(bytes)) => mf.dispatchFetch(`http://service/v1/sessions/${id}/responses?provider=anthropic`, {
    method: 'POST', body, duplex: 'half', headers: { authorization: `Bearer ${acme}`, 'idempotency-key': key },
  });
  const beforeAnswer = await exported(id);
  const first = await post('answer-1');
  assert.equal(first.status, 200, await first.clone().text());
  const reply = await first.json();
  assert.equal(reply.reply.type, 'answered');
  assert.deepEqual(reply.reply.answer.toolCalls.map((c) => c.id), ['toolu_01Read', 'toolu_02List']);
  // Notifications arrive on their own schedule: wait for them (bounded only against a hang).
  for (let i = 0; i < 500 && !messages.some((m) => m.notification?.update?.sessionUpdate === 'tool_call'); i++) await new Promise((r) => setTimeout(r, 20));
  const kinds = messages.filter((m) => m.type === 'notification').map((m) => m.notification.update.sessionUpdate);
  assert.ok(kinds.includes('agent_thought_chunk') && kinds.includes('agent_message_chunk') && kinds.includes('tool_call'), kinds.join());
  res.webSocket.close();
  // The same answer again under its key: the same reply, nothing written twice.
  const log = await exported(id);
  const again = await post('answer-1');
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(await again.json(), reply);
  assert.equal(await exported(id), log);
  // Another answer under that key is a conflict.
  const conflict = await post('answer-1', streamed(readFileSync(join(root, 'tests/fixtures/answers/anthropic-refusal.json'))));
  assert.equal(conflict.status, 409);
  assert.equal((await conflict.json()).error.code, 'idempotency_conflict');
  // The stored log is the package's own recording of the same answer.
  const local = cv.Session.fromLog(beforeAnswer);
  const p = local.dispatch({ type: 'providerAnswer', provider: 'anthropic', body: bytes.toString('utf8') }, 'x');
  const expected = p.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])).filter((l) => JSON.parse(l).seq !== undefined).map((l) => ({ ...JSON.parse(l), ts: undefined }));
  const stored = log.trim().split('\n').map((l) => JSON.parse(l)).slice(-expected.length).map((r) => ({ ...r, ts: undefined }));
  assert.deepEqual(stored, expected);
  // The tools run and the next request carries the thinking back with its signature.
  for (const call of reply.reply.answer.toolCalls) await command(id, { type: 'toolResult', toolCallId: call.id, output: 'ok' });
  const built = await call('POST', `/v1/sessions/${id}/build`, { body: BUILD });
  assert.equal(built.status, 200);
  assert.ok(JSON.stringify(built.json.body).includes('SIG-one/+=='));
});

test('an answer body over the limit is refused as it streams, and nothing of it is stored', async () => {
  const id = 'acme-answer-big';
  await call('PUT', `/v1/sessions/${id}`);
  await command(id, { type: 'switchModel', ...MODEL });
  await command(id, { type: 'userMessage', text: 'Write a lot.' });
  const before = await exported(id);
  const event = (i) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'x'.repeat(200)} ${i}"}}\n\n`;
  const big = new TextEncoder().encode('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_big","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' + Array.from({ length: 400 }, (_, i) => event(i)).join(''));
  assert.ok(big.length > 65536);
  // No Content-Length: the limit is met while the body streams. The service answers and stops
  // reading before the client has sent it all, so the client may see its upload cut instead of
  // the answer (an HTTP client's race, not the service's): sent again until the answer is seen,
  // nothing stored either way.
  let res = null;
  for (let attempt = 0; attempt < 5 && res === null; attempt++) {
    res = await mf.dispatchFetch(`http://service/v1/sessions/${id}/responses`, {
      method: 'POST', body: streamed(big, 4096), duplex: 'half', headers: { authorization: `Bearer ${acme}` },
    }).catch((e) => {
      if (e?.message !== 'fetch failed') throw e;
      return null;
    });
    assert.equal(await exported(id), before, 'nothing of a refused body is stored');
  }
  assert.equal(res?.status, 413);
  assert.equal((await res.json()).error.code, 'body_too_large');
  assert.equal(await exported(id), before);
  // The session goes on: a whole answer is taken next, and an unknown provider is refused.
  const ok = await call('POST', `/v1/sessions/${id}/responses?provider=anthropic`, { body: readFileSync(join(root, 'tests/fixtures/answers/anthropic-two-thinking-redacted.json')) });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.reply.answer.toolCalls[0].id, 'toolu_03Bash');
  const unknown = await call('POST', `/v1/sessions/${id}/responses?provider=nobody`, { body: '{}' });
  assert.deepEqual([unknown.status, unknown.json.error.code], [400, 'unknown_provider']);
});

test('the fault-injection header does nothing without the test binding', async () => {
  const plain = await startService(bundle.dir, { bindings: { TEST_FAULTS: '0' } });
  try {
    const send = (path, init = {}) => plain.dispatchFetch(`http://service${path}`, { ...init, headers: { authorization: `Bearer ${acme}`, ...init.headers } });
    assert.equal((await send('/v1/sessions/acme-nofault', { method: 'PUT' })).status, 201);
    const r = await send('/v1/sessions/acme-nofault/commands', {
      method: 'POST', headers: { 'x-test-fault': 'write_failure' }, body: JSON.stringify({ type: 'userMessage', text: 'Stored all the same.' }),
    });
    assert.equal(r.status, 200, await r.clone().text());
    const log = await (await send('/v1/sessions/acme-nofault/log')).text();
    assert.equal(log.match(/Stored all the same\./g)?.length, 1);
  } finally {
    await plain.dispose();
  }
});

test('a WebSocket ping is answered with a pong', async () => {
  await call('PUT', '/v1/sessions/acme-ping');
  const res = await mf.dispatchFetch('http://service/v1/sessions/acme-ping/events', { headers: { upgrade: 'websocket', authorization: `Bearer ${acme}` } });
  assert.equal(res.status, 101);
  const socket = res.webSocket;
  const pong = new Promise((resolve, reject) => {
    socket.addEventListener('message', (e) => resolve(e.data));
    setTimeout(() => reject(new Error('no answer to the ping within 10 s')), 10_000).unref();
  });
  socket.accept();
  socket.send('ping');
  assert.equal(await pong, 'pong');
  socket.close();
});

/** What the stand-in's `scenario` answer holds, read whole as a relay would (a drop ends it early). */
async function relayed(provider, scenario) {
  const response = respond(provider, scenario, { model: MODEL.model });
  const reader = (response.body ?? new ReadableStream({ start: (c) => c.close() })).getReader();
  const chunks = [];
  let dropped = null;
  for (;;) {
    let step;
    try {
      step = await reader.read();
    } catch (e) {
      dropped = `${e.name}: ${e.message}`;
      break;
    }
    if (step.done) break;
    chunks.push(...step.value);
  }
  const headers = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, headers, body: new Uint8Array(chunks), dropped };
}

test("a provider's failure, relayed, is recorded as the package records it and answered with what happened — never a 500", async () => {
  // (stand-in scenario, status, code, retryable, recovery)
  const cases = [
    ['rate-limited', 429, 'provider_error', true, undefined],
    ['overloaded', 502, 'provider_error', true, undefined],
    ['html-500', 502, 'provider_error', true, undefined],
    ['empty-503', 502, 'provider_error', true, undefined],
    ['overloaded-mid-stream', 502, 'provider_error', true, undefined],
    ['drop-text', 502, 'connection_dropped', true, undefined],
    ['early-end', 502, 'answer_incomplete', true, undefined],
    // The stand-in names 210,000 tokens for a one-line prompt: by its count, the prompt alone is over the window.
    ['context-length', 422, 'prompt_too_long', false, undefined],
    ['max-tokens', 200, undefined, undefined, undefined],
    // Not the model being done: 422, and the same request is not built again until the input changes.
    ['refusal', 422, 'refused', false, undefined],
  ];
  for (const [i, [scenario, status, code, retryable, recovery]] of cases.entries()) {
    const id = `acme-relay-${i}`;
    await call('PUT', `/v1/sessions/${id}`);
    await command(id, { type: 'switchModel', ...MODEL });
    await command(id, { type: 'userMessage', text: 'Why does the parser test fail?' });
    const before = await exported(id);
    const answer = await relayed('anthropic', scenario);
    const head = { 'x-provider-status': String(answer.status), 'x-provider-headers': JSON.stringify(answer.headers) };
    if (answer.dropped) head['x-provider-dropped'] = answer.dropped;
    const res = await call('POST', `/v1/sessions/${id}/responses?provider=anthropic`, { body: answer.body, headers: head });
    assert.equal(res.status, status, `${scenario}: ${res.text}`);
    if (code) {
      assert.deepEqual([res.json.error.code, res.json.error.retryable, res.json.error.recovery], [code, retryable, recovery], scenario);
      assert.equal(res.headers.get('retry-after') !== null, retryable, `${scenario}: Retry-After when a retry is worth it`);
      assert.equal(res.json.reply.type, 'answered', `${scenario}: what was recorded comes back too`);
    }
    // The log holds what the package itself records of that answer.
    const local = cv.Session.fromLog(before);
    local.dispatch({ type: 'beginAnswer', provider: 'anthropic', status: answer.status, headers: answer.headers }, 'x');
    local.answerBytes(answer.body);
    const p = local.dispatch({ type: 'endAnswer', ...(answer.dropped ? { dropped: answer.dropped } : {}) }, 'x');
    const expected = p.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])).map((l) => JSON.parse(l)).filter((r) => p.reply.seqs.includes(r.seq)).map((r) => ({ ...r, ts: undefined }));
    const stored = (await exported(id)).trim().split('\n').map((l) => JSON.parse(l)).slice(-expected.length).map((r) => ({ ...r, ts: undefined }));
    assert.deepEqual(stored, expected, scenario);
    // And the next request builds (after a refusal, once the input changed).
    if (scenario === 'refusal') {
      const refused = await call('POST', `/v1/sessions/${id}/build`, { body: BUILD });
      assert.deepEqual([refused.status, refused.json.error.code], [422, 'input_refused'], refused.text);
      await command(id, { type: 'userMessage', text: 'Then explain the parser.' });
    }
    const built = await call('POST', `/v1/sessions/${id}/build`, { body: BUILD });
    assert.equal(built.status, 200, `${scenario}: ${built.text}`);
    assert.deepEqual(cv.validatePayload('anthropic', built.json.body), [], scenario);
  }
  // A status that is no HTTP status is refused before anything is read.
  const bad = await call('POST', '/v1/sessions/acme-relay-0/responses?provider=anthropic', { body: '{}', headers: { 'x-provider-status': 'teapot' } });
  assert.deepEqual([bad.status, bad.json.error.code], [400, 'invalid_provider_status']);
  const badHeaders = await call('POST', '/v1/sessions/acme-relay-0/responses?provider=anthropic', { body: '{}', headers: { 'x-provider-status': '200', 'x-provider-headers': '[1]' } });
  assert.deepEqual([badHeaders.status, badHeaders.json.error.code], [400, 'invalid_provider_headers']);
});

test('subagents: a start sent again with its Idempotency-Key replays the parent\'s reply and makes the child once', async () => {
  const parent = 'acme-redo';
  assert.equal((await call('PUT', `/v1/sessions/${parent}`)).status, 201);
  for (const c of [
    { type: 'switchModel', ...MODEL },
    { type: 'userMessage', text: 'Audit both crates.' },
    { type: 'assistantResponse', toolCalls: [{ id: 'k1', name: 'Task', input: { prompt: 'a' } }, { id: 'k2', name: 'Task', input: { prompt: 'b' } }] },
  ]) assert.equal((await command(parent, c)).status, 200);
  const start = (key, body, headers = {}) => call('POST', `/v1/sessions/${parent}/subagents`, { body, headers: { 'idempotency-key': key, ...headers } });
  // The child's storage fails as it is made: 503, the parent's start recorded, no child yet.
  const failed = await start('start-k1', { toolCallId: 'k1', task: 'Audit crate a' }, { 'x-test-fault': 'write_failure' });
  assert.deepEqual([failed.status, failed.json.error.code], [503, 'storage_unavailable'], failed.text);
  assert.equal(failed.json.parent.reply.type, 'subagentStarted');
  const running = (await call('GET', `/v1/sessions/${parent}`)).json.state.subagents;
  assert.deepEqual(running.map((s) => [s.callId, s.sessionId]), [['k1', 'acme-redo.k1']]);
  assert.equal((await call('GET', '/v1/sessions/acme-redo.k1')).status, 404);
  // Sent again with its key: the parent's reply replayed (not a second start), the child made.
  const again = await start('start-k1', { toolCallId: 'k1', task: 'Audit crate a' });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual([again.json.parent.reply.type, again.json.child.id, again.json.child.created], ['subagentStarted', 'acme-redo.k1', true]);
  const child = await call('GET', '/v1/sessions/acme-redo.k1', { token: again.json.token });
  assert.deepEqual([child.status, child.json.state.prompts, child.json.state.parentCallId], [200, ['Audit crate a'], 'k1']);
  // Once more (the reply lost this time): the same child, not made again, a token that works.
  const third = await start('start-k1', { toolCallId: 'k1', task: 'Audit crate a' });
  assert.deepEqual([third.status, third.json.child.created, third.json.child.records], [200, false, again.json.child.records], third.text);
  assert.equal((await call('GET', '/v1/sessions/acme-redo.k1', { token: third.json.token })).json.state.prompts.length, 1);
  // The parent recorded one start for the call.
  const log = (await call('GET', `/v1/sessions/${parent}/log`)).text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(log.filter((r) => r.event?.kind === 'subagent_started').length, 1);
  // The key for another start, or another call without one, is refused.
  const conflict = await start('start-k1', { toolCallId: 'k1', task: 'Audit crate b' });
  assert.deepEqual([conflict.status, conflict.json.error.code], [409, 'idempotency_conflict']);
  const unkeyed = await call('POST', `/v1/sessions/${parent}/subagents`, { body: { toolCallId: 'k1', task: 'Audit crate a' } });
  assert.deepEqual([unkeyed.status, unkeyed.json.error.code], [422, 'subagent_call']);
  const badKey = await start('a key', { toolCallId: 'k2', task: 'Audit crate b' });
  assert.deepEqual([badKey.status, badKey.json.error.code], [400, 'invalid_idempotency_key']);
  // The other call's child is made at the first try; its key replays it too.
  const second = await start('start-k2', { toolCallId: 'k2', task: 'Audit crate b' });
  assert.deepEqual([second.status, second.json.child.created], [201, true], second.text);
  const replayed = await start('start-k2', { toolCallId: 'k2', task: 'Audit crate b' });
  assert.deepEqual([replayed.status, replayed.json.child.created, replayed.json.child.id], [200, false, 'acme-redo.k2']);
});

test('subagents: a child is its own Durable Object, made through its parent; a parent\'s token reads its children, a child\'s never its parent or siblings', async () => {
  const parent = 'acme-lead';
  assert.equal((await call('PUT', `/v1/sessions/${parent}`)).status, 201);
  for (const c of [
    { type: 'switchModel', ...MODEL },
    { type: 'setPromptContext', context: { label: 'Forge', tools: ['read', 'Task'] } },
    { type: 'userMessage', text: 'Audit both crates.' },
    { type: 'assistantResponse', toolCalls: [{ id: 't1', name: 'Task', input: { prompt: 'a' } }, { id: 't10', name: 'Task', input: { prompt: 'b' } }] },
  ]) assert.equal((await command(parent, c)).status, 200);
  const started = await call('POST', `/v1/sessions/${parent}/subagents`, { body: { toolCallId: 't1', task: 'Audit crate a' } });
  assert.equal(started.status, 201, started.text);
  assert.equal(started.json.child.id, 'acme-lead.t1');
  assert.deepEqual([started.json.child.parentSessionId, started.json.child.parentCallId], [parent, 't1']);
  assert.equal(started.json.parent.reply.type, 'subagentStarted');
  const sibling = await call('POST', `/v1/sessions/${parent}/subagents`, { body: { toolCallId: 't10', task: 'Audit crate b' } });
  assert.equal(sibling.status, 201, sibling.text);
  // The child is an ordinary session: its own state, commands and builds.
  const childToken = started.json.token;
  const state = await call('GET', '/v1/sessions/acme-lead.t1', { token: childToken });
  assert.equal(state.status, 200, state.text);
  assert.deepEqual([state.json.state.parentSessionId, state.json.state.parentCallId, state.json.state.prompts], [parent, 't1', ['Audit crate a']]);
  const answered = await call('POST', '/v1/sessions/acme-lead.t1/commands', { token: childToken, body: { type: 'assistantResponse', text: 'Crate a: clean.', usage: { inputTokens: 50, outputTokens: 5 } } });
  assert.equal(answered.status, 200, answered.text);
  // The child's token reaches neither its parent nor a sibling whose id it prefixes.
  for (const other of [parent, 'acme-lead.t10']) {
    const r = await call('GET', `/v1/sessions/${other}`, { token: childToken });
    assert.deepEqual([r.status, r.json?.error?.code], [403, 'forbidden'], other);
  }
  // The parent's token reads its children; it ends them, the report answering each call.
  assert.equal((await call('GET', '/v1/sessions/acme-lead.t10')).status, 200);
  const spent = (await call('GET', '/v1/sessions/acme-lead.t1')).json.state.spent;
  assert.equal((await command(parent, { type: 'endSubagent', toolCallId: 't1', report: 'Crate a: clean.', usage: spent })).status, 200);
  assert.equal((await command(parent, { type: 'endSubagent', toolCallId: 't10', error: 'stopped' })).status, 200);
  const built = await call('POST', `/v1/sessions/${parent}/build`, { body: BUILD });
  assert.equal(built.status, 200, built.text);
  const { subagents } = built.json.reply.report;
  assert.deepEqual([subagents.started, subagents.failed, subagents.spent.inputTokens], [2, 1, 50]);
  // Refusals: an answered call, a call the parent never made, a child id the service cannot name.
  const again = await call('POST', `/v1/sessions/${parent}/subagents`, { body: { toolCallId: 't1', task: 'x' } });
  assert.deepEqual([again.status, again.json.error.code], [422, 'subagent_call']);
  const unknown = await call('POST', `/v1/sessions/${parent}/subagents`, { body: { toolCallId: 'nope', task: 'x' } });
  assert.deepEqual([unknown.status, unknown.json.error.code], [422, 'unknown_tool_call']);
  const named = await call('POST', `/v1/sessions/${parent}/subagents`, { body: { toolCallId: 't1', task: 'x', sessionId: 'acme-x' } });
  assert.deepEqual([named.status, named.json.error.code], [400, 'invalid_subagent']);
  // A child's own subagent: started through the child with the child's token, its session
  // `<child>.<call>`; the child's token reaches it, its token neither the child nor the parent.
  for (const c of [{ type: 'userMessage', text: 'Dig deeper.' }, { type: 'assistantResponse', toolCalls: [{ id: 'g1', name: 'Task', input: { prompt: 'c' } }] }]) {
    assert.equal((await call('POST', '/v1/sessions/acme-lead.t1/commands', { token: childToken, body: c })).status, 200);
  }
  const grand = await call('POST', '/v1/sessions/acme-lead.t1/subagents', { token: childToken, body: { toolCallId: 'g1', task: 'Audit module c' } });
  assert.equal(grand.status, 201, grand.text);
  assert.deepEqual([grand.json.child.id, grand.json.child.parentSessionId, grand.json.child.parentCallId], ['acme-lead.t1.g1', 'acme-lead.t1', 'g1']);
  assert.equal((await call('GET', '/v1/sessions/acme-lead.t1.g1', { token: childToken })).status, 200);
  for (const other of ['acme-lead.t1', parent]) {
    assert.equal((await call('GET', `/v1/sessions/${other}`, { token: grand.json.token })).status, 403, other);
  }
  // A session token minted by hand works the same way.
  const tree = await mintToken(SECRET, { session: parent });
  assert.equal((await call('GET', '/v1/sessions/acme-lead.t10', { token: tree })).status, 200);
  assert.equal((await call('GET', '/v1/sessions/acme-e2e', { token: tree })).status, 403);
});
