// The TypeScript the package declares for the values it returns is what it returns: values the
// package really gives back — parsed logs, replays, built requests and their reports, a session's
// state, snapshots, processed commands, effects, answers, prices, endpoints, simulations, imports
// and a discovered environment — are written out as object literals typed with their declared
// types and compiled with TypeScript's strict checks. A field the Rust side renames, adds or
// drops without the declaration following is an excess or a missing property here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';
import { geminiSession } from './simulate-fixture.mjs';
import { workspaceFixture } from './discover-fixture.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(`${root}/${path}`, 'utf8');
const NOW = '2026-12-01T10:00:00Z';

/** `[declared type, value]` pairs the package returned. */
async function returned() {
  const out = [];
  const give = (type, value) => out.push([type, value]);
  const log = read('examples/session.jsonl');
  give('ParsedLog', cv.parseLog(log));
  give('Replay', cv.replay(log));
  give('RequestPoints', cv.requestPoints(log));
  const tools = JSON.parse(read('examples/tools.json'));
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
    const built = cv.buildRequestString({ provider, log, system: 'Be careful.', tools, now: NOW, maxTokens: 2048 });
    give('BuildStringResult', { ...built, body: '' });
    for (const v of cv.validatePayload(provider, { messages: 'not a list' })) give('Violation', v);
  }
  for (const model of cv.costModels()) give('CostModel', model);
  give('Endpoint', cv.endpoint({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'k' }));
  for (const policy of cv.policies()) give('Policy', policy);
  const sim = geminiSession(cv);
  give('Simulation', cv.simulate({ log: sim.text, options: { provider: 'gemini' }, policies: ['off', 'default'] }));

  // A session through a build, a provider's answer (with a tool call), its result and a second build.
  const session = cv.Session.create('typed');
  const effects = [];
  const run = (command) => {
    const p = session.dispatch(command, NOW);
    give('Processed', p);
    effects.push(...p.effects);
    return p;
  };
  run({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 });
  run({ type: 'userMessage', text: 'Why does the parser test fail?' });
  run({ type: 'buildRequest', options: { maxTokens: 1024, tools } });
  const answer = read('tests/fixtures/answers/anthropic-thinking-tools.sse');
  give('AnswerSummary', session.readAnswer({ body: answer, status: 200 }));
  const answered = run({ type: 'providerAnswer', body: answer, status: 200 });
  for (const call of answered.reply?.answer?.toolCalls ?? []) run({ type: 'toolResult', toolCallId: call.id, output: 'ok' });
  run({ type: 'buildRequest', options: { maxTokens: 1024, tools } });
  run({ type: 'prepareCompaction', options: { keepRecentTokens: 10 } });
  run({ type: 'snapshot' });
  session.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' });
  session.buildString({ maxTokens: 1024 });
  effects.push(...session.takeEffects());
  assert.ok(new Set(effects.map((e) => e.type)).size >= 2, JSON.stringify(effects.map((e) => e.type)));
  for (const effect of effects) give('Effect', effect);
  const persist = effects.find((e) => e.type === 'persist');
  give('AckResult', session.ack(persist.ticket, 'committed'));
  give('PersistenceStatus', session.persistence());
  give('SessionState', session.state());
  give('SessionSnapshot', session.snapshot());
  give('ContextUsage', session.usage({}));
  for (const d of cv.Session.fromLog('{"format":"contextview.session-log","version":1,"sessionId":"x"}\nnot json\n').diagnostics()) give('Diagnostic', d);
  give('Reconciled', cv.Session.fromLog(log).reconcile(log));
  session.free();

  give('Heads', cv.renderHeads({ cwd: '/repo', model: 'gpt-5', headBudget: { tokens: 500 } }));
  give('ImportResult', await cv.importSession(read('tests/fixtures/claude-code.jsonl')));
  give('ImportResult', await cv.importSession(read('tests/fixtures/codex.jsonl')));
  give('ImportResult', await cv.importSession(read('tests/fixtures/pi.jsonl')));
  const sub = (name) => read(`tests/fixtures/claude-subagents/${name}`);
  give('ImportTreeResult', await cv.importTree(sub('s-main.jsonl'), [sub('s-main/subagents/agent-bbb2.jsonl'), sub('agent-zzz9.jsonl')], 'claude-code'));
  const fx = workspaceFixture('/w');
  const ws = await cv.discover({ cwd: fx.paths.cwd, home: fx.paths.home }, cv.memoryFs(fx.files));
  give('Environment', ws.environment);
  return out;
}

test('every value the package returns fits the TypeScript it declares for it', { timeout: 120_000 }, async () => {
  const values = await returned();
  assert.deepEqual([...new Set(values.map(([type]) => type))].sort(), [
    'AckResult', 'AnswerSummary', 'BuildStringResult', 'ContextUsage', 'CostModel', 'Diagnostic', 'Effect', 'Endpoint',
    'Environment', 'Heads', 'ImportResult', 'ImportTreeResult', 'ParsedLog', 'PersistenceStatus', 'Policy', 'Processed',
    'Reconciled', 'Replay', 'RequestPoints', 'SessionSnapshot', 'SessionState', 'Simulation', 'Violation',
  ]);
  const dir = `${root}/target/declared-types`;
  mkdirSync(dir, { recursive: true });
  const lines = [`import type * as cv from 'contextview';`, ''];
  values.forEach(([type, value], i) => lines.push(`export const v${i}: cv.${type} = ${JSON.stringify(value)};`));
  writeFileSync(`${dir}/values.ts`, lines.join('\n') + '\n');
  writeFileSync(`${dir}/tsconfig.json`, JSON.stringify({
    compilerOptions: {
      target: 'es2022', module: 'es2022', moduleResolution: 'bundler', strict: true, noEmit: true,
      exactOptionalPropertyTypes: false, lib: ['esnext', 'dom'], types: [],
      paths: { contextview: [`${root}/pkg/index.d.ts`] },
    },
    files: ['values.ts'],
  }));
  let output = '';
  try {
    execFileSync(`${root}/node_modules/.bin/tsc`, ['-p', dir], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    output = `${e.stdout}${e.stderr}`;
  }
  assert.equal(output.slice(0, 4000), '', 'values that do not fit their declared type');
});
