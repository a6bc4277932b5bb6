// The Session API from JavaScript: reminders drained into the log, records to persist, the
// image-stripping recovery build, pruning and prefix reports, the command queue and its effects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const log = readFileSync(fileURLToPath(new URL('../../examples/session.jsonl', import.meta.url)), 'utf8');
const lastSeq = () => Number(JSON.parse(log.trim().split('\n').at(-1)).seq);

test('reminders are drained into the log before a build and handed back to persist', () => {
  const session = cv.Session.fromLog(log);
  const records = session.recordCount();
  assert.equal(session.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' }), true);
  assert.equal(session.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' }), false, 'deduplicated');
  const { body } = session.buildString({ provider: 'openai-chat', now: '2026-11-30T09:30:00Z' });
  assert.match(body, /<system-reminder>\\nsrc\/lib.rs:2: unused import\\n<\/system-reminder>/);
  const effects = session.takeEffects();
  assert.equal(effects.length, 1);
  assert.equal(effects[0].type, 'persist');
  const unsaved = effects[0].lines;
  assert.equal(unsaved.length, 1, 'the header is stored already: only the drained record');
  const record = JSON.parse(unsaved[0]);
  assert.deepEqual(record, {
    seq: lastSeq() + 1,
    ts: '2026-11-30T09:30:00Z',
    event: { kind: 'reminder_injected', reminder: 'diagnostics', text: '<system-reminder>\nsrc/lib.rs:2: unused import\n</system-reminder>' },
  });
  assert.equal(session.recordCount(), records + 1);
  assert.deepEqual(session.takeEffects(), [], 'handed out once');
  assert.equal(session.ack(effects[0].ticket, 'committed').persistence.committedThrough, lastSeq() + 1);
  // A session restored with that record does not tell it again.
  const restored = cv.Session.fromLog(log + unsaved[0] + '\n');
  assert.equal(restored.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' }), false);
  assert.throws(() => session.enqueueReminder({ kind: 'gossip', text: 'x' }), (e) => e.code === 'invalid_argument');
});

test('a 413 makes the next build strip images, once', () => {
  const session = cv.Session.fromLog(log);
  const withImages = session.buildString({ provider: 'anthropic' });
  assert.equal(withImages.report.images.images, 1);
  assert.equal(session.onProviderError(413, '{"type":"error","error":{"type":"request_too_large"}}'), true);
  const stripped = session.buildString({ provider: 'anthropic' });
  assert.equal(stripped.report.images.stripped, true);
  assert.doesNotMatch(stripped.body, /"type":"image"/);
  assert.equal(session.buildString({ provider: 'anthropic' }).report.images.stripped, false);
  assert.equal(session.onProviderError(500, 'overloaded'), false);
});

test('reports say what pruning did and how much of the last request is repeated', () => {
  const session = cv.Session.fromLog(log);
  const first = session.buildString({ provider: 'gemini', contextWindow: 100, pruning: { keepTurns: 0, stepTurns: 1, softTrimChars: 50, softTrimHead: 10, softTrimTail: 10 } });
  assert.equal(first.report.pruning.active, true);
  assert.ok(first.report.pruning.trimmed + first.report.pruning.cleared > 0);
  // A first build names every result it prunes; the same build again names none.
  assert.deepEqual([first.report.pruning.newlyTrimmed.length, first.report.pruning.newlyCleared.length], [first.report.pruning.trimmed, first.report.pruning.cleared]);
  assert.equal(first.report.prefix, undefined, 'no previous request yet');
  const again = session.buildString({ provider: 'gemini', contextWindow: 100, pruning: { keepTurns: 0, stepTurns: 1, softTrimChars: 50, softTrimHead: 10, softTrimTail: 10 } });
  const bytes = Buffer.byteLength(first.body); // UTF-8 bytes, as sent
  assert.deepEqual(again.report.prefix, { previousBytes: bytes, sharedBytes: bytes, extendsPrevious: true, rewrittenBytes: 0 });
  assert.equal(again.report.pruning.invalidatedBytes, 0, 'the boundary did not move');
  assert.deepEqual([again.report.pruning.newlyTrimmed, again.report.pruning.newlyCleared], [[], []], 'nothing newly pruned');
  assert.equal(again.report.pruning.trimmed + again.report.pruning.cleared, first.report.pruning.trimmed + first.report.pruning.cleared);
  assert.ok(again.report.sources.toolResults > 0 && again.report.sources.system === 0);
});

test('usage() is the ledger count the next build reports, and anchors on reported usage', () => {
  const session = cv.Session.fromLog(log);
  const options = { provider: 'anthropic' };
  const usage = session.usage(options);
  assert.equal(typeof usage.used, 'number');
  assert.equal(usage.size, 200000);
  assert.equal(usage.family, 'anthropic');
  const { report } = session.buildString(options);
  assert.deepEqual(report.tokens.context, usage);
  assert.equal(report.tokens.request, Object.values(report.tokens.bySource).reduce((a, b) => a + b, 0));
  // A usage record from the provider becomes the anchor: the count starts from it.
  session.append(JSON.stringify({ seq: lastSeq() + 1, ts: '2026-11-30T09:40:00Z', event: { kind: 'usage_anchor', provider: 'anthropic', inputTokens: 150000, outputTokens: 10 } }));
  const anchored = session.usage(options);
  assert.equal(anchored.anchored, true);
  assert.equal(anchored.used, 150010);
  assert.equal(anchored.threshold, 'prune');
  assert.throws(() => session.usage({ provider: 'nope' }), (e) => e.code === 'invalid_options');
});

test('a session routes OpenAI requests to one prompt cache: its id', () => {
  const session = cv.Session.fromLog(log);
  const sessionId = JSON.parse(log.split('\n')[0]).sessionId;
  for (const provider of ['openai-chat', 'openai-responses']) {
    const { payload } = session.build({ provider });
    assert.equal(payload.prompt_cache_key, sessionId);
    const keyed = session.build({ provider, cache: { key: 'team-a' } }).payload;
    assert.equal(keyed.prompt_cache_key, 'team-a');
  }
  const anthropic = session.build({ provider: 'anthropic', system: 'Be brief.' }).payload;
  assert.deepEqual(anthropic.cache_control, { type: 'ephemeral' });
});

test('rules that attach on read reach the next request once, as one reminder', async () => {
  const files = {
    '/r/.cursor/rules/ts.mdc': '---\nglobs: "**/*.ts"\n---\nUse strict TypeScript.\n',
    '/r/src/a.ts': 'export const a = 1;\n',
  };
  const ws = await cv.discover({ cwd: '/r', home: '/home/none' }, cv.memoryFs(files));
  const rules = await ws.rulesForPath('/r/src/a.ts');
  assert.deepEqual(rules.map((r) => r.path), ['/r/.cursor/rules/ts.mdc']);
  const session = cv.Session.fromLog(log);
  assert.equal(session.enqueueRules('/r/src/a.ts', rules), true);
  assert.equal(session.enqueueRules('/r/src/a.ts', rules), false, 'told once');
  assert.equal(session.enqueueRules('/r/src/b.ts', []), false, 'no rules, no reminder');
  const { body } = session.buildString({ provider: 'openai-chat' });
  assert.match(body, /Rules that apply to \/r\/src\/a\.ts:\\n\\nFrom \/r\/\.cursor\/rules\/ts\.mdc:\\nUse strict TypeScript\./);
  assert.equal(session.takeEffects()[0].lines.length, 1);
  assert.throws(() => session.enqueueRules('/r/x.ts', [{ path: 1 }]), (e) => e.code === 'invalid_argument');
});

test('commands go through the queue; replies, effects and errors come back as data', () => {
  const session = cv.Session.create('js-1');
  const ids = [
    session.submit({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5', contextWindow: 400000 }, '2026-12-02T10:00:00Z'),
    session.submit({ type: 'setPromptContext', context: { label: 'Forge', cwd: '/w', tools: ['read', 'Task'], audience: 'subagent', task: 'Count the files.' } }),
    session.submit({ type: 'userMessage', text: 'go' }),
    session.submit({ type: 'toolResult', toolCallId: 'nope', output: 'x' }),
    session.submit({ type: 'buildRequest' }),
  ];
  assert.deepEqual(ids, [1, 2, 3, 4, 5]);
  const done = session.process();
  assert.deepEqual(done.map((p) => p.command), ['switchModel', 'setPromptContext', 'userMessage', 'toolResult', 'buildRequest']);
  assert.equal(done[0].effects[0].type, 'persist');
  assert.match(done[0].effects[0].lines[0], /"sessionId":"js-1"/, 'the header goes with the first batch');
  assert.equal(done[3].error.code, 'unknown_tool_call');
  const payload = JSON.parse(done[4].reply.body);
  assert.equal(payload.model, 'gpt-5');
  assert.equal(payload.max_output_tokens, 8192, "the subagent's output budget reaches OpenAI too");
  assert.match(payload.instructions, /You are a subagent of Forge/);
  assert.match(payload.instructions, /You can call: read\./, 'a subagent cannot delegate');
  const claude = JSON.parse(session.dispatch({ type: 'buildRequest', options: { provider: 'anthropic', model: 'claude-sonnet-4-5' } }).reply.body);
  assert.equal(claude.max_tokens, 8192, "the subagent's output budget");
  assert.throws(() => session.dispatch({ type: 'nope' }), (e) => e.code === 'invalid_command');
  session.submit({ type: 'flush' });
  assert.throws(() => session.dispatch({ type: 'flush' }), (e) => e.code === 'queue_not_empty');
  assert.equal(session.process().length, 1);
  assert.throws(() => session.ack(99, 'committed'), (e) => e.code === 'unknown_ticket');
  const state = session.state();
  assert.deepEqual([state.model, state.contextWindow, state.prompts, state.queuedCommands], ['claude-sonnet-4-5', 200000, ['go'], 0],
    'the model of the last build, with its own window');
  const restored = cv.Session.restore(session.snapshot());
  assert.equal(restored.dispatch({ type: 'buildRequest' }).reply.body, session.dispatch({ type: 'buildRequest' }).reply.body);
  assert.throws(() => cv.Session.restore({ format: 'x' }), (e) => e.code === 'invalid_snapshot');
  const heads = cv.renderHeads({ cwd: '/w', gitStatus: '' });
  assert.equal(heads.firstUserPrefix, '<user_info>\nWorkspace: /w\n</user_info>\n\n<git_status>\n(clean)\n</git_status>');
  assert.throws(() => cv.renderHeads({ templates: { primary: '{{x}}' } }), (e) => e.code === 'invalid_template');
});

test('the head budget: sections share it by priority, what does not fit is cut with a marker and listed', () => {
  const status = Array.from({ length: 300 }, (_, i) => ` M src/file${i}.rs`).join('\n');
  const memory = 'The user prefers short answers.';
  const context = { cwd: '/w', gitStatus: status, memory, model: 'gpt-5' };
  const whole = cv.renderHeads(context);
  assert.deepEqual(whole.allocation.sections.map((s) => [s.section, s.granted === s.need, s.cuts]), [
    ['userInfo', true, undefined], ['gitStatus', true, undefined], ['memory', true, undefined]]);
  const need = whole.allocation.need;
  // Memory raised above git status; 100 tokens fewer than everything: git status gives way.
  const cut = cv.renderHeads({ ...context, headBudget: { tokens: need - 100, sections: { memory: { priority: 90 } } } });
  assert.equal(cut.allocation.budget, need - 100);
  assert.ok(cut.allocation.used <= need - 100);
  const git = cut.allocation.sections.find((s) => s.section === 'gitStatus');
  assert.equal(git.granted, git.need - 100);
  assert.equal(git.cuts.length, 1);
  assert.deepEqual([git.cuts[0].section, git.cuts[0].what, git.cuts[0].action], ['gitStatus', 'gitStatus', 'shortened']);
  assert.match(git.cuts[0].reason, /gitStatus was granted \d+ of its \d+ tokens at priority 60/);
  assert.ok(cut.firstUserPrefix.includes(`<memory>\n${memory}\n</memory>`), 'memory whole');
  assert.ok(cut.firstUserPrefix.includes('<git_status>\nM src/file0.rs\n M src/file1.rs'), 'git status keeps its start (trimmed as a whole)');
  assert.match(cut.firstUserPrefix, /\[… \d+ more bytes not shown: over the head budget \(headBudget\) …\]/);
  // Wrong budgets are refused with where they are wrong.
  assert.throws(() => cv.renderHeads({ headBudget: { windowShare: 1.5 } }),
    (e) => e instanceof cv.ContextviewError && /headBudget\.windowShare/.test(e.message) && /above 0 and at most 1/.test(e.message));
  assert.throws(() => cv.renderHeads({ headBudget: { sections: { skils: {} } } }), (e) => e instanceof cv.ContextviewError && /skils/.test(e.message));
  assert.throws(() => cv.renderHeads({ headBudget: { tokens: 'many' } }), (e) => e instanceof cv.ContextviewError && /headBudget\.tokens/.test(e.message));
  // A session records the cuts with its heads; its builds report them.
  const session = cv.Session.create('budget');
  session.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5' });
  session.dispatch({ type: 'setPromptContext', context: { ...context, headBudget: { tokens: need - 100 } } });
  session.dispatch({ type: 'userMessage', text: 'go' });
  const built = session.dispatch({ type: 'buildRequest' }).reply;
  assert.deepEqual(built.report.headCuts.map((c) => [c.section, c.what, c.action]), [['gitStatus', 'gitStatus', 'shortened']]);
  const fromLog = cv.buildRequest({ provider: 'openai-responses', log: session.snapshot().log });
  assert.deepEqual(fromLog.report.headCuts, built.report.headCuts);
});

test('the head budget orders rules by their source and bounds each request\'s reminders', () => {
  const lines = (tag, n) => Array.from({ length: n }, (_, i) => `${tag} line ${i}: keep the build green.`).join('\n');
  const rule = (path, source, home) => ({ path, canonical: path, source, dir: '/w', home, activation: { kind: 'always' }, text: lines('rule', 20), bytes: 0, truncated: false });
  const rules = [rule('/home/me/.claude/CLAUDE.md', 'claude_md', true), rule('/w/AGENTS.md', 'agents_md', false), rule('/w/.cursor/rules/a.mdc', 'cursor_rules', false)];
  const context = { cwd: '/w', rules, model: 'gpt-5' };
  const need = cv.renderHeads(context).allocation.need;
  // Room for all but one rule (and too little for a useful part of it): which one leaves.
  const leaving = (ruleSources) => cv.renderHeads({ ...context, headBudget: { tokens: need - 160, ruleSources } })
    .allocation.sections.flatMap((s) => (s.cuts ?? []).map((c) => [c.what, c.action]));
  assert.deepEqual(leaving(undefined), [['/home/me/.claude/CLAUDE.md', 'left_out']]);
  assert.deepEqual(leaving({ cursor_rules: -1 }), [['/w/.cursor/rules/a.mdc', 'left_out']]);
  assert.deepEqual(leaving({ home: 5, cursor_rules: 1 }), [['/w/AGENTS.md', 'left_out']]);
  assert.throws(() => cv.renderHeads({ headBudget: { ruleSources: { cursor: 1 } } }), (e) => e instanceof cv.ContextviewError && /ruleSources/.test(e.message) && /cursor/.test(e.message));
  // A reserve for the reminders is held from the prefix and shown in the allocation.
  const held = cv.renderHeads({ ...context, headBudget: { tokens: need, sections: { reminders: { reserve: 100 } } } }).allocation;
  assert.deepEqual(held.sections.at(-1), { section: 'reminders', priority: 90, reserve: 100, grow: 1, need: 100, granted: 100, used: 0 });
  assert.ok(held.used <= need - 100);
  // A session's reminders take what the prefix leaves: the stop hook whole, the diagnostics cut,
  // the date held for the next request.
  const session = cv.Session.create('reminders');
  session.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5' });
  session.dispatch({ type: 'setPromptContext', context: { cwd: '/w', headBudget: { tokens: 400 } } });
  session.dispatch({ type: 'userMessage', text: 'go' });
  const diagnostics = Array.from({ length: 300 }, (_, i) => `src/a.rs:${i}: unused variable`).join('\n');
  session.dispatch({ type: 'enqueueReminder', reminder: { kind: 'date', text: 'Today is 2026-12-05.' } });
  session.dispatch({ type: 'enqueueReminder', reminder: { kind: 'diagnostics', text: diagnostics } });
  session.dispatch({ type: 'enqueueReminder', reminder: { kind: 'stop_hook', text: 'Tests fail.' } });
  const first = session.dispatch({ type: 'buildRequest' }).reply;
  assert.deepEqual(first.report.headCuts.map((c) => [c.section, c.what, c.action]), [['reminders', 'diagnostics', 'shortened'], ['reminders', 'date', 'deferred']]);
  assert.match(first.report.headCuts[0].reason, /over the head budget \(400 tokens\)/);
  assert.ok(first.body.includes('Tests fail.') && first.body.includes('src/a.rs:0: unused variable') && !first.body.includes('src/a.rs:299:'));
  assert.ok(!first.body.includes('Today is 2026-12-05.'));
  const second = session.dispatch({ type: 'buildRequest' }).reply;
  assert.equal(second.report.headCuts, undefined);
  assert.ok(second.body.includes('Today is 2026-12-05.'));
});

test('a record written without `now` carries the clock\'s time; a given `now` is kept as given', () => {
  const session = cv.Session.create('clock');
  const before = Date.now();
  const p = session.dispatch({ type: 'userMessage', text: 'hi' });
  const after = Date.now();
  const lines = p.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])).map((l) => JSON.parse(l)).filter((r) => r.seq);
  assert.equal(lines.length, 1);
  const ts = Date.parse(lines[0].ts);
  assert.match(lines[0].ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(ts >= before - 1 && ts <= after + 1, `${lines[0].ts} between ${new Date(before).toISOString()} and ${new Date(after).toISOString()}`);
  const given = session.dispatch({ type: 'userMessage', text: 'again' }, '2026-01-02T03:04:05Z');
  assert.equal(JSON.parse(given.effects.find((e) => e.type === 'persist').lines.at(-1)).ts, '2026-01-02T03:04:05Z');
});

test('a build given no provider or model takes the session\'s, as a buildRequest command does: one way to make a build\'s input', () => {
  const NOW = '2026-12-04T10:00:00Z';
  const session = cv.Session.create('defaults');
  // No model yet: the options must name a provider.
  session.dispatch({ type: 'userMessage', text: 'Hello.' }, NOW);
  assert.throws(() => session.buildString({}), (e) => e.code === 'invalid_options' && e.message === 'no provider: pass `provider` or switch the model first');
  session.dispatch({ type: 'switchModel', provider: 'anthropic', model: 'claude-opus-4-1', contextWindow: 100000 }, NOW);
  // The session's window comes with its model.
  assert.equal(session.usage({}).size, 100000);
  const command = (options) => {
    const p = session.dispatch({ type: 'buildRequest', options }, NOW);
    assert.equal(p.error, undefined, JSON.stringify(p.error));
    return p.reply.body;
  };
  for (const options of [{}, { provider: 'anthropic' }, { provider: 'gemini' }, { provider: 'anthropic', model: 'claude-sonnet-4-5' }]) {
    const built = session.buildString(options);
    assert.equal(built.body, command(options), JSON.stringify(options));
    // Another provider than the session's gets that provider's default model.
    const [provider, model] = [options.provider ?? 'anthropic', options.model ?? (options.provider === 'gemini' ? built.report.model : 'claude-opus-4-1')];
    assert.deepEqual([built.report.provider, built.report.model], [provider, model], JSON.stringify(options));
  }
  // A command's build is what the session last built with: the facade reads the same.
  assert.equal(session.buildString({}).report.model, 'claude-sonnet-4-5');
  // A model switched is read at the next build with the same options.
  session.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5-mini' }, NOW);
  assert.deepEqual((({ provider, model }) => [provider, model])(session.buildString({}).report), ['openai-responses', 'gpt-5-mini']);
  // Wrong-typed options still name where they are wrong.
  assert.throws(() => session.buildString({ maxTokens: 'many' }), (e) => e.code === 'invalid_options' && e.details?.path === 'maxTokens');
  session.free();
});
