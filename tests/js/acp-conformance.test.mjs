// Every ACP record the package writes is an official ACP v1 `session/update`, read by the
// official TypeScript SDK (@agentclientprotocol/sdk) the way its client reads each
// `session/update` notification it receives: through the SDK's schema for a session
// notification. The schema reads leniently (it drops fields it does not know and fills some it
// lacks), so the check is that it gives back the same JSON: a field we misspell, mistype or put
// in the wrong place fails here. The updates come from every path that writes them: the example
// log, every shape we type, a session driven by commands, every importer's fixture (and the real
// sessions, when the corpus is beside the repository), and every provider answer's fixture, as
// it streams and as it is recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';
// The SDK's client runs this schema on each `session/update` it receives; the package does not
// export it by name, so it is read from its file.
import { zSessionNotification } from '../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (rel) => readFileSync(root + rel, 'utf8');
const NOW = '2026-12-03T00:00:00Z';

/** Values the ACP schema declares as defaults, which a reader may leave out or fill in. */
function isSchemaDefault(key, value) {
  switch (key) {
    case 'status': return value === 'pending';
    case 'kind': return value === 'other';
    case 'content': case 'locations': return Array.isArray(value) && value.length === 0;
    default: return false;
  }
}

/** Fails unless the official SDK reads `update` back as the same JSON. */
function assertOfficial(update, where) {
  const notification = { sessionId: 'sess-1', update };
  const parsed = zSessionNotification.safeParse(notification);
  assert.ok(parsed.success, `${where}: not an ACP session/update: ${parsed.error?.message}\n${JSON.stringify(update)}`);
  const back = JSON.parse(JSON.stringify(parsed.data));
  // Defaults the schema fills in that we left out, and defaults we wrote that it left out.
  for (const [key, value] of Object.entries(back.update)) {
    if (!(key in update) && isSchemaDefault(key, value)) delete back.update[key];
  }
  for (const [key, value] of Object.entries(update)) {
    if (!(key in back.update) && isSchemaDefault(key, value)) back.update[key] = value;
  }
  assert.deepEqual(back, notification, `${where}: the ACP SDK reads this update differently`);
}

/** The ACP updates a log's records hold. */
function updatesOf(log) {
  const parsed = cv.parseLog(log);
  assert.deepEqual(parsed.diagnostics, []);
  return parsed.records.filter((r) => r.update).map((r) => r.update);
}

test('the schema this suite reads with refuses what is not an update, and a misspelt field', () => {
  // So that the checks below can fail: the schema is the SDK's, and it is strict where it counts.
  assert.equal(zSessionNotification.safeParse({ sessionId: 's', update: { sessionUpdate: 'no_such_update' } }).success, false);
  assert.equal(zSessionNotification.safeParse({ sessionId: 's', update: { sessionUpdate: 'tool_call', title: 't' } }).success, false, 'a tool call without its id');
  assert.throws(() => assertOfficial({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', rawInptu: {} }, 'misspelt'), /reads this update differently/);
  // A plan entry with a value the schema lacks is dropped from the plan: read back differently.
  assert.throws(() => assertOfficial({ sessionUpdate: 'plan', entries: [{ content: 'do', priority: 'urgent', status: 'pending' }] }, 'bad value'), /reads this update differently/);
});

test('the example session\'s updates are official ACP', () => {
  const updates = updatesOf(read('examples/session.jsonl'));
  assert.ok(updates.length > 20, `${updates.length}`);
  updates.forEach((u, i) => assertOfficial(u, `examples/session.jsonl update ${i}`));
});

test('every update shape we type is official ACP, and a log of them is read back as written', () => {
  const lines = read('tests/fixtures/acp-updates.jsonl').trim().split('\n');
  assert.equal(lines.length, 10);
  const header = JSON.stringify({ format: 'contextview.session-log', version: 1, sessionId: 'shapes', createdAt: NOW });
  const log = [header, ...lines.map((l, i) => JSON.stringify({ seq: i + 1, ts: NOW, update: JSON.parse(l) }))].join('\n') + '\n';
  const updates = updatesOf(log);
  assert.deepEqual(updates, lines.map((l) => JSON.parse(l)));
  updates.forEach((u, i) => assertOfficial(u, `acp-updates.jsonl line ${i + 1}`));
  // Through a session and out again: every shape kept as written.
  const session = cv.Session.fromLog(log);
  assert.deepEqual(updatesOf(session.snapshot().log), updates);
  session.free();
});

test('every update a session writes from commands is official ACP', () => {
  const s = cv.Session.create('acp');
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC';
  const commands = [
    { type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 },
    { type: 'userMessage', text: 'Fix it', images: [{ data: png, mimeType: 'image/png' }] },
    { type: 'assistantResponse', reasoning: { text: 'Plan.', signature: 'sig' }, text: 'Looking.',
      toolCalls: [{ id: 'c1', name: 'read', kind: 'read', input: { path: 'a.rs' }, paths: ['/a.rs'] },
                  { id: 'c2', name: 'edit', kind: 'edit', input: {}, paths: ['/b.rs'] }],
      usage: { inputTokens: 10, outputTokens: 5 } },
    { type: 'toolResult', toolCallId: 'c1', output: 'fn a() {}' },
    { type: 'toolResult', toolCallId: 'c2', output: 'failed', isError: true, images: [{ data: png, mimeType: 'image/png' }] },
    { type: 'enqueueReminder', reminder: { kind: 'diagnostics', text: '1 error' } },
    { type: 'buildRequest' },
  ];
  for (const command of commands) {
    const processed = s.dispatch(command, NOW);
    assert.equal(processed.error, undefined, JSON.stringify(processed.error));
  }
  const updates = updatesOf(s.snapshot().log);
  s.free();
  const kinds = new Set(updates.map((u) => u.sessionUpdate));
  assert.deepEqual([...kinds].sort(), ['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'user_message_chunk']);
  assert.ok(updates.length >= 7, JSON.stringify(updates));
  updates.forEach((u, i) => assertOfficial(u, `command session update ${i}`));
});

test('every update the importers write is official ACP', async () => {
  const files = ['claude-code.jsonl', 'codex.jsonl', 'pi.jsonl', 'gemini-cli.json', 'gemini-cli.jsonl', 'copilot-cli.jsonl', 'copilot-cli-assets.jsonl', 'copilot-cli-legacy.jsonl', 'aider.chat.history.md']
    .map((f) => [`tests/fixtures/${f}`, read(`tests/fixtures/${f}`)]);
  const corpus = root + '../shared/corpus/sessions';
  if (existsSync(corpus)) {
    for (const name of readdirSync(corpus)) files.push([`corpus ${name}`, readFileSync(`${corpus}/${name}`, 'utf8')]);
  } else {
    console.log('# SKIPPED: ../shared/corpus not found; the fixtures alone are checked');
  }
  let checked = 0;
  for (const [where, text] of files) {
    const { log } = await cv.importSession(text);
    const updates = updatesOf(log);
    assert.ok(updates.length > 0, `${where}: the import wrote no updates`);
    updates.forEach((u, i) => assertOfficial(u, `${where} update ${i}`));
    checked += updates.length;
  }
  assert.ok(checked > 100, `${checked}`);
});

/** Each answer fixture's API, by its name. */
function providerOf(name) {
  for (const [prefix, provider] of [['anthropic-', 'anthropic'], ['openai-chat-', 'openai-chat'], ['openrouter-', 'openai-chat'],
    ['openai-responses-', 'openai-responses'], ['gemini-', 'gemini']]) {
    if (name.startsWith(prefix)) return provider;
  }
  throw new Error(`no API for the answer fixture ${name}`);
}

test('every update an answer streams or records is official ACP', async () => {
  const dir = root + 'tests/fixtures/answers';
  let streamed = 0;
  let recorded = 0;
  for (const name of readdirSync(dir).sort()) {
    const provider = providerOf(name);
    const session = cv.Session.create('answer');
    session.dispatch({ type: 'switchModel', provider, model: 'm', contextWindow: 200000 }, NOW);
    session.dispatch({ type: 'userMessage', text: 'Go.' }, NOW);
    const before = updatesOf(session.snapshot().log).length;
    const type = name.endsWith('.sse') ? 'text/event-stream' : 'application/json';
    const stream = cv.receive(session, new Response(readFileSync(`${dir}/${name}`), { headers: { 'content-type': type } }), { now: NOW });
    try {
      for await (const update of stream) {
        assertOfficial(update, `${name} streamed`);
        streamed += 1;
      }
      await stream.done();
    } catch (e) {
      // A provider's error or a cut-short answer is thrown; what it recorded is still checked.
      assert.ok(e instanceof cv.ContextviewError, `${name}: ${e}`);
    }
    const updates = updatesOf(session.snapshot().log).slice(before);
    session.free();
    for (const u of updates) {
      assertOfficial(u, `${name} recorded`);
      recorded += 1;
    }
  }
  assert.ok(streamed > 40 && recorded > 40, `${streamed} streamed, ${recorded} recorded`);
});
