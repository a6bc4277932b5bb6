// A provider's answer back into the log from JavaScript: the streaming form over a Response the
// host's fetch returned (a local mock of each API here), a durable session storing the answer
// when the body ends, the provider's error as a ProviderError, and `contextview respond`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const fixture = (name) => readFileSync(fileURLToPath(new URL(`../fixtures/answers/${name}`, import.meta.url)));
const cli = fileURLToPath(new URL('../../pkg/cli.mjs', import.meta.url));
const NOW = '2026-12-03T10:00:00Z';
const GEMINI_CALLS = [['k3f9a2x1', 'read_file', { path: 'a.rs' }], ['p0q8w7e6', 'read_file', { path: 'b.rs' }], ['z9y8x7w6', 'list_dir', {}]];

/** A stand-in for the provider's endpoint: its answer as a Response whose body arrives in small pieces. */
function mockFetch(bytes, { status = 200, piece = 5 } = {}) {
  const calls = [];
  const fetch = async (url, init) => {
    // What went over the wire, copied as it was sent (not the caller's buffer).
    calls.push({ url, sent: new TextDecoder().decode(init.body.slice()) });
    const body = new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += piece) controller.enqueue(bytes.subarray(at, at + piece));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, calls };
}

const cases = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5', file: 'anthropic-thinking-tools.sse', key: 'messages', back: 'SIG-one/+==',
    calls: [['toolu_01Read', 'read_file', { path: 'src/parser.rs', limit: 200 }], ['toolu_02List', 'list_dir', {}]] },
  { provider: 'openai-chat', model: 'gpt-4.1', file: 'openai-chat-tools.sse', key: 'messages', back: 'call_B',
    calls: [['call_A', 'bash', { command: 'ls' }], ['call_B', 'read_file', { path: 'Cargo.toml' }]] },
  { provider: 'openai-responses', model: 'gpt-5', file: 'openai-responses-reasoning-call.sse', key: 'input', back: 'gAAAAB-final-R1a',
    calls: [['call_R1b', 'read_file', { path: 'src/lib.rs' }]] },
  { provider: 'gemini', model: 'gemini-3-flash-preview', file: 'gemini-parallel-calls.json', key: 'contents', back: 'GSIG/call==', calls: GEMINI_CALLS },
];

for (const c of cases) {
  test(`${c.provider}: one agent turn — build, send, receive the streamed answer, run its tools, build again`, async () => {
    const session = cv.Session.create('turn');
    session.dispatch({ type: 'switchModel', provider: c.provider, model: c.model, contextWindow: 200000 }, NOW);
    session.dispatch({ type: 'userMessage', text: 'Why does the parser test fail?' }, NOW);
    const { fetch, calls } = mockFetch(fixture(c.file));
    const { body } = session.buildBytes({ provider: c.provider, model: c.model });
    const response = await fetch('https://provider.invalid/v1', { method: 'POST', body });
    // What was sent is the request as built: the same text a second build gives, and valid.
    const built = session.buildString({ provider: c.provider, model: c.model }).body;
    assert.equal(calls[0].sent, built);
    assert.deepEqual(cv.validatePayload(c.provider, JSON.parse(calls[0].sent)), []);

    const stream = cv.receive(session, response, { now: NOW });
    const updates = [];
    for await (const update of stream) updates.push(update);
    const processed = await stream.done();
    assert.equal(processed.error, undefined);
    const { answer } = processed.reply;
    assert.equal(answer.status, 'complete');
    assert.deepEqual(answer.toolCalls.map((t) => [t.id, t.name, t.input]), c.calls, 'the calls the answer asks for');
    // The calls the UI saw while streaming are the calls to run.
    assert.deepEqual(updates.filter((u) => u.sessionUpdate === 'tool_call').map((u) => u.toolCallId), answer.toolCalls.map((t) => t.id));
    for (const call of answer.toolCalls) {
      const p = session.dispatch({ type: 'toolResult', toolCallId: call.id, output: `ran ${call.name}` }, NOW);
      assert.equal(p.error, undefined, JSON.stringify(p.error));
    }
    const next = session.buildString({ provider: c.provider, model: c.model });
    assert.ok(next.body.includes(c.back), `${c.back} goes back: ${next.body}`);
    assert.deepEqual(cv.validatePayload(c.provider, JSON.parse(next.body)), []);
  });
}

test('text arrives before the body ends: a client sees the answer while it streams', async () => {
  const session = cv.Session.create('live');
  session.dispatch({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5' }, NOW);
  session.dispatch({ type: 'userMessage', text: 'hi' }, NOW);
  const bytes = fixture('anthropic-thinking-tools.sse');
  const half = bytes.indexOf(Buffer.from('tool_use')) ;
  let release;
  const gate = new Promise((r) => (release = r));
  const body = new ReadableStream({
    async start(controller) {
      controller.enqueue(bytes.subarray(0, half));
      await gate;
      controller.enqueue(bytes.subarray(half));
      controller.close();
    },
  });
  const stream = cv.receive(session, body, { now: NOW });
  const seen = [];
  for await (const update of stream) {
    seen.push(update.sessionUpdate);
    if (update.sessionUpdate === 'agent_message_chunk') release();
  }
  assert.ok(seen.indexOf('agent_message_chunk') < seen.indexOf('tool_call'), seen.join());
  assert.equal((await stream.done()).reply.answer.stopReason, 'tool_use');
});

test("the provider's error is a ProviderError, thrown once what arrived is recorded", async () => {
  const session = cv.Session.create('err');
  session.dispatch({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5' }, NOW);
  session.dispatch({ type: 'userMessage', text: 'hi' }, NOW);
  const stream = cv.receive(session, new Response(fixture('anthropic-overloaded-mid-stream.sse')), { now: NOW });
  let thrown;
  try {
    for await (const _ of stream);
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof cv.ProviderError && thrown.code === 'provider_error', String(thrown));
  assert.equal(thrown.providerError.kind, 'overloaded_error');
  const lines = thrown.processed.effects.flatMap((e) => (e.type === 'persist' ? e.lines : []));
  assert.ok(lines.some((l) => l.includes('Half an answ')), 'the text that arrived is recorded');
  assert.ok(lines.some((l) => l.includes('"status":"failed"')), lines.join('\n'));
  // An error body (HTTP 429 here) records only how the answer ended, and says what the provider said.
  const e = await cv.receive(session, new Response(fixture('gemini-error-body.json'), { status: 429 }), { provider: 'gemini', now: NOW }).done().catch((e) => e);
  assert.ok(e instanceof cv.ProviderError);
  assert.deepEqual([e.providerError.kind, e.providerError.status, e.status, e.retryable], ['RESOURCE_EXHAUSTED', 429, 429, true]);
  const ended = e.processed.effects.flatMap((x) => (x.type === 'persist' ? x.lines : [])).map((l) => JSON.parse(l))
    .filter((r) => e.processed.reply.seqs.includes(r.seq));
  assert.deepEqual(ended.map((r) => [r.event.kind, r.event.status, r.event.error.kind]), [['answer_end', 'failed', 'RESOURCE_EXHAUSTED']]);
  // A command while an answer is being received is refused; bytes with none begun throw.
  assert.throws(() => session.answerBytes(new Uint8Array([1])), (e) => e.code === 'no_answer_begun');
});

test('a durable session stores the answer when its body ends, and reopens to the same next request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cv-answer-'));
  const storage = cv.nodeFileStorage(join(dir, 's.jsonl'));
  const s = await cv.openSession(storage, { sessionId: 'durable-answer' });
  await s.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5', contextWindow: 200000 }, NOW);
  await s.dispatch({ type: 'userMessage', text: 'Read lib.rs' }, NOW);
  const stream = s.receive(new Response(fixture('openai-responses-reasoning-call.sse')), { now: NOW });
  const updates = [];
  for await (const update of stream) updates.push(update);
  const { reply } = await stream.done();
  // The body came in one piece: its reasoning summary as one thought, then the call, whole.
  assert.deepEqual(updates.map((u) => [u.sessionUpdate, u.content?.text ?? u.toolCallId]), [
    ['agent_thought_chunk', '**Plan**\n\nRead the file.\n\nThen edit it.'],
    ['tool_call', 'call_R1b'],
  ]);
  const stored = readFileSync(join(dir, 's.jsonl'), 'utf8');
  assert.ok(stored.includes('"answer_end"') && stored.includes('gAAAAB-final-R1a'), stored);
  await s.dispatch({ type: 'toolResult', toolCallId: reply.answer.toolCalls[0].id, output: 'fn main() {}' }, NOW);
  const reopened = await cv.openSession(cv.nodeFileStorage(join(dir, 's.jsonl')));
  const options = { provider: 'openai-responses', model: 'gpt-5' };
  assert.equal(reopened.session.buildString(options).body, s.session.buildString(options).body);
});

test('contextview respond prints the records an answer adds; appended, the log builds with them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cv-respond-'));
  const log = join(dir, 'session.jsonl');
  const session = cv.Session.create('cli');
  const stored = [
    session.dispatch({ type: 'switchModel', provider: 'gemini', model: 'gemini-3-pro-preview' }, NOW),
    session.dispatch({ type: 'userMessage', text: 'Why?' }, NOW),
  ].flatMap((p) => p.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])));
  writeFileSync(log, stored.join('\n') + '\n');
  const lastSeq = JSON.parse(stored.at(-1)).seq;
  const answer = join(dir, 'answer.sse');
  writeFileSync(answer, fixture('gemini-text-signature.sse'));
  const out = execFileSync('node', [cli, 'respond', '--session', log, '--provider', 'gemini', '--response', answer, '--now', NOW], { encoding: 'utf8' });
  const lines = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.seq), lines.map((_, i) => lastSeq + 1 + i), 'numbered after the log');
  assert.equal(lines.at(-1).event.kind, 'answer_end');
  appendFileSync(log, out);
  // An empty answer (the connection closed before a byte): recorded as a partial answer, exit 1, retry.
  const empty = spawnSync('node', [cli, 'respond', '--session', log, '--provider', 'gemini', '--response', '-', '--now', NOW], { input: '', encoding: 'utf8' });
  assert.equal(empty.status, 1, empty.stderr);
  const [emptyEnd] = empty.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual([emptyEnd.seq, emptyEnd.event.kind, emptyEnd.event.status], [lastSeq + lines.length + 1, 'answer_end', 'partial']);
  assert.match(empty.stderr, /answer\.empty[\s\S]*retry after \d+ ms \(answer_incomplete\)/);
  const body = execFileSync('node', [cli, 'build', '--session', log, '--provider', 'gemini', '--model', 'gemini-3-pro-preview'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  assert.ok(body.includes('"thoughtSignature":"GSIG/text+=="'), body);
  // From stdin, and an error answer with its status: exit 1 with the provider's error and the
  // retry decision on stderr; the failure is one record, to append like any other.
  const failed = spawnSync('node', [cli, 'respond', '--session', log, '--provider', 'gemini', '--response', '-', '--status', '429'], { input: fixture('gemini-error-body.json'), encoding: 'utf8' });
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /provider_error: RESOURCE_EXHAUSTED \(429\)[\s\S]*retry after \d+ ms \(rate_limited\)/);
  const failure = failed.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(failure.map((r) => [r.event.kind, r.event.status, r.event.error.status]), [['answer_end', 'failed', 429]]);
  const proxy = spawnSync('node', [cli, 'respond', '--session', log, '--provider', 'gemini', '--response', '-', '--status', '502'], { input: '<html><title>502 Bad Gateway</title></html>', encoding: 'utf8' });
  assert.equal(proxy.status, 1);
  assert.match(proxy.stderr, /provider_error: bad_gateway \(502\): 502 Bad Gateway[\s\S]*retry after \d+ ms \(server_error\)/);
});
