// The request timeline through the package (Node): where a log's requests were, the log as it
// stood at each, each request rebuilt after the one before, and the whole walk — checked against
// stateless builds of the same text and a byte count done here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';
import { commonPrefix } from './payload-checks.mjs';
import { longSession } from './long-session-fixture.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = readFileSync(root + 'examples/session.jsonl', 'utf8');
const imported = async (name) => (await cv.importSession(readFileSync(root + `tests/fixtures/${name}`, 'utf8'))).log;
const LOGS = { example, 'claude-code': await imported('claude-code.jsonl'), codex: await imported('codex.jsonl'), pi: await imported('pi.jsonl') };
const OPTIONS = { provider: 'anthropic', contextWindow: 200000 };


for (const [name, log] of Object.entries(LOGS)) {
  test(`${name}: every request is rebuilt from the log as it stood, and the walk agrees with each`, () => {
    const timeline = new cv.Timeline(log);
    assert.ok(timeline.length >= 2, `${name} sent ${timeline.length} requests`);
    assert.deepEqual(timeline.diagnostics, []);
    const lines = log.split('\n');
    const walked = [...timeline.walk(OPTIONS)];
    assert.equal(walked.length, timeline.length);
    let previousBody = null;
    for (let i = 0; i < timeline.length; i++) {
      const point = timeline.points[i];
      const text = timeline.logAt(i);
      // The log the request was built from ends just before the model's answer …
      if (!point.next) {
        const answer = JSON.parse(lines[point.line - 1]);
        assert.equal(answer.seq, point.seq);
        assert.match(answer.update?.sessionUpdate ?? '', /^(agent_message_chunk|agent_thought_chunk|tool_call)$/, `${name} #${i}: the answer starts a model turn`);
      }
      // … and holds the request's items: a stateless build of it is the same request.
      const stateless = cv.buildRequestString({ ...OPTIONS, log: text });
      assert.equal(stateless.report.items, point.items, `${name} #${i}: items`);
      const built = timeline.buildAt(i, OPTIONS);
      assert.equal(built.body, stateless.body, `${name} #${i}: the session's body is the stateless one`);
      assert.equal(built.previous, previousBody);
      const shared = previousBody === null ? undefined : commonPrefix(previousBody, stateless.body);
      assert.equal(built.report.prefix?.sharedBytes, shared, `${name} #${i}: shared bytes`);
      assert.equal(walked[i].report.prefix?.sharedBytes, shared, `${name} #${i}: the walk's shared bytes`);
      assert.equal(walked[i].report.bytes, stateless.report.bytes);
      assert.deepEqual(walked[i].report.tokens, stateless.report.tokens, `${name} #${i}: the walk's tokens`);
      previousBody = stateless.body;
    }
  });
}

test('a log that ends waiting for the model ends with the request it would send next', () => {
  const waiting = example.trimEnd().split('\n');
  const timeline = new cv.Timeline(waiting.join('\n') + '\n');
  const last = timeline.points.at(-1);
  assert.equal(last.next, true);
  assert.equal(timeline.logAt(timeline.length - 1).trimEnd(), waiting.join('\n'));
  assert.equal(timeline.buildAt(timeline.length - 1, OPTIONS).body, cv.buildRequestString({ ...OPTIONS, log: example }).body);
  // Cut after an answer, it is not waiting: no next request.
  const answered = new cv.Timeline(timeline.logAt(timeline.length - 2) + waiting[timeline.points.at(-2).line - 1] + '\n');
  assert.equal(answered.points.at(-1).next, undefined);
  assert.equal(answered.length, timeline.length - 1);
});

test('unreadable lines are reported, and the requests around them still build', () => {
  const lines = example.split('\n');
  const broken = [...lines.slice(0, 5), '{"seq": oops', ...lines.slice(5)].join('\n');
  const timeline = new cv.Timeline(broken);
  assert.deepEqual(timeline.diagnostics.map((d) => [d.code, d.line]), [['log.malformed_line', 6]]);
  assert.equal(timeline.length, new cv.Timeline(example).length);
  assert.equal([...timeline.walk(OPTIONS)].length, timeline.length);
  assert.throws(() => timeline.buildAt(timeline.length, OPTIONS), { code: 'invalid_argument' });
  assert.throws(() => new cv.Timeline(42), { code: 'invalid_argument' });
});

test('the CLI lists the same requests, and --at prints one body', async () => {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, [root + 'pkg/cli.mjs', 'timeline', '--session', root + 'examples/session.jsonl', '--provider', 'anthropic', '--context-window', '200000'], { encoding: 'utf8' });
  const rows = out.trim().split('\n').map((l) => JSON.parse(l));
  const timeline = new cv.Timeline(example);
  assert.deepEqual(rows.map((r) => r.line), timeline.points.map((p) => p.line));
  const walked = [...timeline.walk(OPTIONS)];
  assert.deepEqual(rows.map((r) => r.bytes), walked.map((w) => w.report.bytes));
  const body = execFileSync(process.execPath, [root + 'pkg/cli.mjs', 'timeline', '--session', root + 'examples/session.jsonl', '--provider', 'anthropic', '--at', '2'], { encoding: 'utf8' });
  assert.equal(body.trimEnd(), timeline.buildAt(2, { provider: 'anthropic' }).body);
  assert.throws(() => execFileSync(process.execPath, [root + 'pkg/cli.mjs', 'timeline', '--session', root + 'examples/session.jsonl', '--provider', 'anthropic', '--at', '999'], { stdio: 'pipe' }), (e) => e.status === 2);
});

test('a record out of order: every request is what a fresh load of its log builds', () => {
  const lines = example.trimEnd().split('\n');
  // Swap two records' positions: the parser keeps both, in file order; a session refuses the
  // one that goes back.
  const at = lines.findIndex((l, i) => i > 3 && l.includes('tool_call_update'));
  const swapped = [...lines];
  [swapped[at], swapped[at + 1]] = [swapped[at + 1], swapped[at]];
  const text = swapped.join('\n') + '\n';
  const timeline = new cv.Timeline(text);
  assert.ok(timeline.diagnostics.some((d) => d.code === 'log.seq_out_of_order'), JSON.stringify(timeline.diagnostics));
  const walked = [...timeline.walk(OPTIONS)];
  for (let i = 0; i < timeline.length; i++) {
    const fresh = cv.buildRequestString({ ...OPTIONS, log: timeline.logAt(i) });
    assert.equal(timeline.buildAt(i, OPTIONS).body, fresh.body, `#${i}`);
    assert.equal(walked[i].report.bytes, fresh.report.bytes, `#${i}: the walk`);
  }
});

test('a torn last line stays a torn tail in the request it would send next', () => {
  const torn = example.trimEnd() + '\n{"seq": 999, "ts": "2026-';
  const timeline = new cv.Timeline(torn);
  assert.deepEqual(timeline.diagnostics.map((d) => d.code), ['log.torn_tail']);
  const last = timeline.length - 1;
  assert.equal(timeline.points[last].next, true);
  assert.equal(timeline.logAt(last), torn);
  const built = timeline.buildAt(last, OPTIONS);
  assert.equal(built.body, cv.buildRequestString({ ...OPTIONS, log: example }).body);
  assert.equal([...timeline.walk(OPTIONS)].at(-1).report.bytes, built.report.bytes);
});

/**
 * The forecasts a session gives building the log's requests one after another, as an agent
 * would: one session, each request's lines appended before it is built.
 */
function sessionForecasts(log, options) {
  const timeline = new cv.Timeline(log);
  const lines = log.split('\n');
  const session = cv.Session.fromLog(timeline.logAt(0));
  try {
    return timeline.points.map((point, i) => {
      if (i > 0) {
        const to = point.next ? lines.length : point.line - 1;
        for (const line of lines.slice(timeline.points[i - 1].line - 1, to)) if (line.trim() !== '') session.append(line);
      }
      return session.buildBytes(timeline.optionsAt(i, options)).report.forecast;
    });
  } finally {
    session.free();
  }
}

test('every request selected on its own has the figures of the session that sent them all, under every provider, window and pruning', () => {
  const policies = cv.policies().map((p) => p.name);
  assert.deepEqual(policies.includes('off') && policies.includes('eager'), true, policies.join());
  const logs = { long: longSession(cv), 'codex-import': LOGS.codex };
  for (const [name, log] of Object.entries(logs)) {
    for (const provider of ['anthropic', 'openai-responses', 'gemini']) {
      for (const contextWindow of [200000, 8000]) {
        for (const policy of policies) {
          const options = { provider, contextWindow, ...cv.policy(policy).options };
          const expected = sessionForecasts(log, options);
          if (name === 'long' && contextWindow === 200000) assert.ok(expected.some((f) => f.cacheRead > 0), `${name} ${provider}: some request reads the cache`);
          // A fresh timeline, each request selected last to first: none is built after the one
          // before it in this order, and each still knows what every request before it cached.
          const timeline = new cv.Timeline(log);
          const selected = [];
          for (let i = timeline.length - 1; i >= 0; i--) selected[i] = timeline.buildAt(i, options).report.forecast;
          const what = `${name} ${provider} ${contextWindow} ${policy}`;
          assert.deepEqual(selected, expected, what);
          const walked = [...new cv.Timeline(log).walk(options)].map((s) => s.report.forecast);
          assert.deepEqual(walked, expected, what);
          timeline.free();
        }
      }
    }
  }
});

test('as recorded, each request goes to the provider and model its log names, without our pruning', async () => {
  // A Codex rollout's import records its provider as Codex names it (`openai`).
  assert.deepEqual([...new Set(new cv.Timeline(LOGS.codex).points.map((p) => `${p.provider} ${p.model}`))], ['openai-responses gpt-5']);
  const timeline = new cv.Timeline(longSession(cv, { provider: 'openai-responses', model: 'gpt-5', recordedAs: 'openai' }));
  assert.deepEqual([...new Set(timeline.points.map((p) => `${p.provider} ${p.model}`))], ['openai-responses gpt-5']);
  for (let i = 0; i < timeline.length; i++) {
    // A window small enough that the default policy prunes: as recorded, nothing is pruned.
    const built = timeline.buildAt(i, { asRecorded: true, contextWindow: 2000 });
    assert.deepEqual([built.report.provider, built.report.model, built.report.pruning.cleared, built.report.pruning.trimmed], ['openai-responses', 'gpt-5', 0, 0]);
    const stateless = cv.buildRequestString({ log: timeline.logAt(i), provider: 'openai-responses', model: 'gpt-5', contextWindow: 2000, pruning: { enabled: false } });
    assert.equal(built.body, stateless.body, `#${i}`);
  }
  const pruned = timeline.buildAt(timeline.length - 1, { provider: 'openai-responses', model: 'gpt-5', contextWindow: 2000 });
  assert.ok(pruned.report.pruning.cleared + pruned.report.pruning.trimmed > 0, 'the default policy prunes at that window');
  // Options without a provider take the recorded one and its model, with our pruning as given.
  const defaulted = timeline.buildAt(timeline.length - 1, { contextWindow: 2000 });
  assert.deepEqual([defaulted.report.provider, defaulted.report.model, defaulted.report.pruning.cleared], ['openai-responses', 'gpt-5', pruned.report.pruning.cleared]);
  // A log that names no model: the options say where it goes.
  const ours = new cv.Timeline(LOGS.example);
  assert.equal(ours.points[0].provider, undefined);
  assert.equal(ours.buildAt(0, { asRecorded: true, provider: 'gemini' }).report.provider, 'gemini');
  assert.throws(() => ours.optionsAt(0, { asRecorded: 'yes' }), { name: 'ContextviewTypeError' });
});
