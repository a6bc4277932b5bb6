// Subagents as linked child sessions, from JavaScript: a parent's delegation calls answered by
// sessions of their own, in memory and in storage; reports back in call order; a child whose
// storage fails leaves its call answered; reopened, each side finds the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const NOW = '2026-12-05T10:00:00Z';

function ok(processed) {
  assert.equal(processed.error, undefined, JSON.stringify(processed.error));
  return processed;
}

/** A parent whose model asked for `n` subagents in one turn. */
function parentCommands(n) {
  return [
    { type: 'switchModel', provider: 'openai-responses', model: 'gpt-5' },
    { type: 'setPromptContext', context: { label: 'Forge', cwd: '/repo', tools: ['read', 'grep', 'spawn_agent'] } },
    { type: 'userMessage', text: 'Check every package.' },
    { type: 'assistantResponse', text: 'Delegating.', toolCalls: Array.from({ length: n }, (_, i) => ({ id: `s${i + 1}`, name: 'spawn_agent', input: { task: `package ${i + 1}` } })),
      usage: { inputTokens: 500, outputTokens: 40 } },
  ];
}

/** The Responses request's function call outputs, in order. */
function outputs(body) {
  return JSON.parse(body).input.filter((i) => i.type === 'function_call_output').map((i) => [i.call_id, i.output]);
}

test('children started from a parent\'s calls, ended in any order, answer in call order; usage rolls up', () => {
  const parent = cv.Session.create('p');
  for (const c of parentCommands(3)) ok(parent.dispatch(c, NOW));
  const children = [1, 2, 3].map((i) => {
    const started = ok(parent.dispatch({ type: 'startSubagent', toolCallId: `s${i}`, task: `Check package ${i}` }, NOW));
    assert.equal(started.reply.type, 'subagentStarted');
    const { child } = started.reply;
    assert.deepEqual([child.header.sessionId, child.header.parentSessionId, child.header.parentCallId], [`p/s${i}`, 'p', `s${i}`]);
    assert.equal(child.context.audience, 'subagent');
    assert.deepEqual(child.context.tools, ['read', 'grep', 'spawn_agent'], 'the parent\'s tools; the subagent audience leaves out spawn_agent');
    const session = cv.Session.forSubagent(child, NOW);
    // Its first command's effects carry the records forSubagent wrote: header, model, heads, task.
    const lines = session.takeEffects().filter((e) => e.type === 'persist').flatMap((e) => e.lines).map((l) => JSON.parse(l));
    assert.equal(lines[0].parentCallId, `s${i}`, 'the header first');
    assert.deepEqual(lines.filter((r) => r.seq).map((r) => r.event?.kind ?? r.update?.sessionUpdate), ['model_switch', 'prompt_head_snapshot', 'user_message_chunk']);
    ok(session.dispatch({ type: 'assistantResponse', text: `Package ${i}: clean.`, usage: { inputTokens: 100 * i, outputTokens: 5 } }, NOW));
    return session;
  });
  const body = children[0].buildString({ provider: 'openai-responses' }).body;
  const request = JSON.parse(body);
  assert.ok(!request.tools?.some((t) => t.name === 'spawn_agent'), 'a subagent cannot start agents');
  assert.match(request.instructions, /subagent of Forge/);
  for (const i of [3, 1, 2]) {
    const child = children[i - 1];
    ok(parent.dispatch({ type: 'endSubagent', toolCallId: `s${i}`, report: child.finalAnswer(), usage: child.state().spent }, NOW));
  }
  const built = parent.buildString({ provider: 'openai-responses' });
  assert.deepEqual(outputs(built.body), [['s1', 'Package 1: clean.'], ['s2', 'Package 2: clean.'], ['s3', 'Package 3: clean.']]);
  assert.deepEqual(built.report.subagents, {
    started: 3, running: 0, failed: 0,
    spent: { requests: 3, inputTokens: 600, outputTokens: 15, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
  assert.deepEqual(parent.state().subagents.map((l) => [l.callId, l.sessionId, l.status]), [['s1', 'p/s1', 'completed'], ['s2', 'p/s2', 'completed'], ['s3', 'p/s3', 'completed']]);
  // Refusals are data, with their codes.
  assert.equal(parent.dispatch({ type: 'endSubagent', toolCallId: 's1', report: 'again' }).error.code, 'no_subagent');
  assert.equal(parent.dispatch({ type: 'startSubagent', toolCallId: 's1', task: 'again' }).error.code, 'subagent_call');
  // Wrong-typed arguments throw the package's own errors.
  assert.throws(() => cv.Session.forSubagent(42), (e) => e instanceof cv.ContextviewError && e.code === 'invalid_argument');
  assert.throws(() => cv.Session.forSubagent({ header: {} }), (e) => e instanceof cv.ContextviewError && e.code === 'invalid_argument');
});

test('in storage: a child whose storage fails leaves its call answered; reopened, parent and children find each other', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cv-subagents-'));
  try {
    const parent = await cv.openSession(cv.nodeFileStorage(join(dir, 'parent.jsonl')), { sessionId: 'p' });
    for (const c of parentCommands(2)) ok(await parent.dispatch(c, NOW));
    const a = ok(await parent.dispatch({ type: 'startSubagent', toolCallId: 's1', task: 'Check package 1', reportTokens: 40 }, NOW)).reply.child;
    const b = ok(await parent.dispatch({ type: 'startSubagent', toolCallId: 's2', task: 'Check package 2' }, NOW)).reply.child;
    const childA = await cv.openSubagent(a, cv.nodeFileStorage(join(dir, 'a.jsonl')));
    // b's storage crashes on its first write after the child started.
    const plan = [];
    const childB = await cv.openSubagent(b, cv.faultyStorage(cv.nodeFileStorage(join(dir, 'b.jsonl')), plan));
    assert.equal(childB.lastStorageError, null);
    plan.push('crash_after_write');
    // The crash rejects the call that wrote: the child learns it at once.
    await assert.rejects(childB.dispatch({ type: 'assistantResponse', text: 'Half way.' }, NOW),
      (e) => e instanceof cv.StorageError && e.code === 'write_failed' && e.cause?.code === 'crashed' && e.processed?.command === 'assistantResponse');
    assert.equal(childB.lastStorageError?.code, 'crashed');
    const long = Array.from({ length: 40 }, (_, i) => `Finding ${i}: a dependency is pinned to a yanked version.`).join('\n');
    ok(await childA.dispatch({ type: 'assistantResponse', text: long, usage: { inputTokens: 300, outputTokens: 400 } }, NOW));
    ok(await parent.dispatch({ type: 'endSubagent', toolCallId: 's2', error: `its storage failed: ${childB.lastStorageError.message}` }, NOW));
    ok(await parent.dispatch({ type: 'endSubagent', toolCallId: 's1', report: childA.finalAnswer(), usage: childA.session.state().spent }, NOW));
    const { body, report } = await parent.buildString({ provider: 'openai-responses' });
    const [[id1, out1], [id2, out2]] = outputs(body);
    assert.deepEqual([id1, id2], ['s1', 's2']);
    assert.ok(out1.startsWith('Finding 0: a dependency is pinned') && out1.endsWith('over its budget of 40 (reportTokens) …]'), out1);
    assert.equal(out2, 'Error: The subagent stopped before it reported: its storage failed: crashed after the write (injected)', 'a failed result, as this API marks one');
    assert.deepEqual([report.subagents.started, report.subagents.failed, report.subagents.spent.inputTokens], [2, 1, 300]);
    // Reopened from storage: the parent lists its children; a child knows its parent and call.
    const reopened = await cv.openSession(cv.nodeFileStorage(join(dir, 'parent.jsonl')));
    assert.deepEqual(reopened.session.state().subagents.map((l) => [l.callId, l.sessionId, l.status, l.trimmed ?? false]),
      [['s1', 'p/s1', 'completed', true], ['s2', 'p/s2', 'failed', false]]);
    assert.equal((await reopened.buildString({ provider: 'openai-responses' })).body, body);
    const childAgain = await cv.openSubagent(a, cv.nodeFileStorage(join(dir, 'a.jsonl')));
    const state = childAgain.session.state();
    assert.deepEqual([state.sessionId, state.parentSessionId, state.parentCallId], ['p/s1', 'p', 's1']);
    assert.equal(childAgain.finalAnswer(), long);
    await assert.rejects(() => cv.openSubagent(null, cv.nodeFileStorage(join(dir, 'c.jsonl'))), (e) => e instanceof cv.ContextviewTypeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('importTree: a Claude Code session and its agents\' files, linked; what is missing or unlinked is listed', async () => {
  const dir = fileURLToPath(new URL('../fixtures/claude-subagents/', import.meta.url));
  const read = (p) => readFileSync(join(dir, p), 'utf8');
  const tree = await cv.importTree(read('s-main.jsonl'), [read('s-main/subagents/agent-bbb2.jsonl'), read('agent-zzz9.jsonl')], 'claude-code');
  assert.deepEqual(tree.parent.report.subagents, ['s-main/agent-aaa1', 's-main/agent-bbb2']);
  assert.deepEqual([tree.missing, tree.unlinked], [['s-main/agent-aaa1'], ['s-main/agent-zzz9']]);
  const child = cv.Session.fromLog(tree.children[0].log);
  assert.deepEqual([child.state().parentSessionId, child.state().parentCallId], ['s-main', 'toolu_2']);
  assert.equal(child.finalAnswer(), 'Crate b: clean.');
  const parent = cv.Session.fromLog(tree.parent.log);
  assert.deepEqual(parent.state().subagents.map((l) => [l.callId, l.task]), [['toolu_1', 'Audit crate a'], ['toolu_2', 'Audit crate b']]);
  await assert.rejects(cv.importTree(read('s-main.jsonl'), 'not an array'), (e) => e instanceof cv.ContextviewTypeError && e.argument === 'children');
  await assert.rejects(cv.importTree(read('s-main.jsonl'), [42]), (e) => e instanceof cv.ContextviewTypeError && e.argument === 'children');
});

test('state() and a timeline list the children started before a compaction that began a new chain', async () => {
  const text = readFileSync(fileURLToPath(new URL('../fixtures/claude-subagents/s-inline-compacted.jsonl', import.meta.url)), 'utf8');
  const tree = await cv.importTree(text, [], 'claude-code');
  assert.deepEqual(tree.children.map((c) => cv.Session.fromLog(c.log).finalAnswer()), ['Crate d: one unchecked index in src/buf.rs.', 'Crate e: clean.']);
  const parent = cv.Session.fromLog(tree.parent.log);
  assert.deepEqual(parent.state().subagents.map((l) => [l.callId, l.sessionId, l.status]), [['toolu_d', 's-inline/sidechain-s1', 'completed'], ['toolu_e', 's-inline/sidechain-e1', 'completed']]);
  // The inspector's subagents table reads the timeline's list.
  assert.deepEqual(new cv.Timeline(tree.parent.log).subagents().map((l) => [l.callId, l.task, l.status]), [['toolu_d', 'Audit crate d', 'completed'], ['toolu_e', 'Audit crate e', 'completed']]);
  // A session without children says so with an empty list, not undefined.
  assert.deepEqual(cv.Session.fromLog(cv.Session.create('lone').snapshot().log).state().subagents, []);
});

test('the subagent and head budget cases every runtime runs pass in Node', async (t) => {
  const { treeCases, runTree, FIXTURE_FILES } = await import('./tree-conformance.mjs');
  const dir = fileURLToPath(new URL('../fixtures/claude-subagents/', import.meta.url));
  const fixtures = Object.fromEntries(Object.entries(FIXTURE_FILES).map(([k, p]) => [k, readFileSync(join(dir, p), 'utf8')]));
  const results = await runTree(treeCases, cv, fixtures);
  assert.deepEqual(results.map((r) => r.name), treeCases.map((c) => c.name));
  for (const r of results) await t.test(r.name, () => assert.ok(r.ok, r.error));
});

test('a timeline walks a session with its subagents: each child\'s requests after the one whose answer made its call', async () => {
  const dir = fileURLToPath(new URL('../fixtures/claude-subagents/', import.meta.url));
  const read = (p) => readFileSync(join(dir, p), 'utf8');
  const tree = await cv.importTree(read('s-main.jsonl'), [read('s-main/subagents/agent-aaa1.jsonl'), read('s-main/subagents/agent-bbb2.jsonl')], 'claude-code');
  const options = { provider: 'anthropic', contextWindow: 200000 };
  const parent = new cv.Timeline(tree.parent.log);
  const steps = [...parent.walkTree(tree.children.map((c) => c.log), options)];
  assert.deepEqual(steps.map((s) => [s.sessionId, s.depth, s.callId ?? null, s.index]), [
    ['s-main', 0, null, 0],
    ['s-main/agent-aaa1', 1, 'toolu_1', 0], ['s-main/agent-aaa1', 1, 'toolu_1', 1],
    ['s-main/agent-bbb2', 1, 'toolu_2', 0], ['s-main/agent-bbb2', 1, 'toolu_2', 1],
    ['s-main', 0, null, 1],
  ]);
  // Each step is what that session's own walk builds.
  const own = (log) => [...new cv.Timeline(log).walk(options)].map((s) => s.report.bytes);
  assert.deepEqual(steps.filter((s) => s.depth === 0).map((s) => s.report.bytes), own(tree.parent.log));
  assert.deepEqual(steps.filter((s) => s.callId === 'toolu_2').map((s) => s.report.bytes), own(tree.children[1].log));
  // A child not given is not walked; bad input is the package's error.
  assert.equal([...parent.walkTree([], options)].length, 2);
  assert.throws(() => [...parent.walkTree('nope', options)], (e) => e instanceof cv.ContextviewTypeError && e.argument === 'children');
});
