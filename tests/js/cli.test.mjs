// The CLI (pkg/cli.mjs) as a user runs it: exit codes, stdout/stderr split.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';
import { PROVIDERS, checkBuild } from './payload-checks.mjs';
import { geminiSession, byHand, GEMINI_3_PRO } from './simulate-fixture.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'pkg/cli.mjs');
const session = join(root, 'examples/session.jsonl');
const log = readFileSync(session, 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'contextview-cli-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

function run(args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: tmp, maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertUsageError(args, pattern) {
  const r = run(args);
  assert.equal(r.code, 2, `exit 2 for ${JSON.stringify(args)}; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '');
  const lines = r.stderr.split('\n');
  assert.equal(lines.length, 2, `one line (plus newline) on stderr: ${JSON.stringify(r.stderr)}`);
  assert.equal(lines[1], '');
  assert.match(lines[0], /^contextview: /);
  if (pattern) assert.match(lines[0], pattern);
}

for (const provider of PROVIDERS) {
  test(`build --provider ${provider}`, () => {
    const r = run(['build', '--session', session, '--provider', provider]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.endsWith('}\n'));
    const payload = JSON.parse(r.stdout);
    const { body, report, diagnostics } = cv.buildRequestString({ log, provider });
    assert.equal(r.stdout, body + '\n', 'stdout is exactly the body');
    checkBuild(provider, payload, report);
    const err = r.stderr.trimEnd().split('\n');
    // The summary, the tokens, a line per repair, a line per warning (the log's, then the build's).
    const warnings = [...diagnostics, ...(report.diagnostics ?? [])].filter((d) => d.severity === 'warning' || d.severity === 'error');
    assert.equal(err.length, 2 + report.repairs.length + warnings.length, r.stderr);
    assert.deepEqual(err.slice(2 + report.repairs.length).map((l) => l.split(': ')[1]), warnings.map((d) => d.code));
    // The example's reasoning was made by an Anthropic model: every other API gets it as text, and says so.
    assert.equal(warnings.some((d) => d.code === 'reasoning.downgraded'), provider !== 'anthropic', r.stderr);
    assert.match(err[0], new RegExp(`^contextview: ${provider}: ${report.items} items, ${report.bytes} bytes, ${report.repairs.length} repairs?\\b`));
    const c = report.tokens.context;
    assert.match(err[1], new RegExp(`^  tokens: ~${report.tokens.request} in this request \\(.*\\); context ${c.used} of ${c.size} \\(\\d+\\.\\d%\\), (anchored on reported usage|estimated), threshold ${c.threshold}$`));
  });
}

// The native suite's whole-payload snapshots (tests/it/snapshots) hold what the core builds of the
// example (written as a JSON value, keys sorted, so compared here as values); the package must
// build the same.
test('build with the example\'s system prompt and tools: the payload the native suite pins', () => {
  const snapshotName = { anthropic: 'anthropic', 'openai-chat': 'openai_chat', 'openai-responses': 'openai_responses', gemini: 'gemini' };
  for (const provider of PROVIDERS) {
    const r = run(['build', '--session', session, '--provider', provider, '--system', join(root, 'examples/system.md'), '--tools', join(root, 'examples/tools.json')]);
    assert.equal(r.code, 0, r.stderr);
    const snap = readFileSync(join(root, `tests/it/snapshots/it__example_session__${snapshotName[provider]}_payload.snap`), 'utf8');
    const pinned = JSON.parse(snap.slice(snap.indexOf('\n---\n') + 5));
    assert.deepEqual(JSON.parse(r.stdout), pinned, `${provider}: the package builds what the native suite pins`);
  }
});

test('build --report writes the whole report; a small --context-window shows in the summary', () => {
  const file = join(tmp, 'report.json');
  const r = run(['build', '--session', session, '--provider', 'anthropic', '--report', file, '--context-window', '600']);
  assert.equal(r.code, 0, r.stderr);
  const written = JSON.parse(readFileSync(file, 'utf8'));
  const { report } = cv.buildRequestString({ log, provider: 'anthropic', contextWindow: 600 });
  assert.deepEqual(written, report);
  assert.equal(written.tokens.context.size, 600);
  assert.notEqual(written.tokens.context.threshold, 'ok', 'the example session is over half of 600 tokens');
  assert.match(r.stderr, new RegExp(`context ${report.tokens.context.used} of 600 \\(`));
});

test('build with --system, --tools, --model, --max-tokens', () => {
  const system = join(tmp, 'system.txt');
  const tools = join(tmp, 'tools.json');
  writeFileSync(system, 'Be brief.');
  writeFileSync(tools, JSON.stringify([{ name: 'grep', description: 'search', inputSchema: { type: 'object', properties: {} } }]));
  const r = run(['build', '--session', session, '--provider', 'anthropic', '--system', system, '--tools', tools, '--model', 'claude-x', '--max-tokens', '99']);
  assert.equal(r.code, 0, r.stderr);
  const p = JSON.parse(r.stdout);
  assert.equal(p.model, 'claude-x');
  assert.equal(p.max_tokens, 99);
  assert.equal(p.system[0].text, 'Be brief.');
  assert.deepEqual(p.tools.map((t) => t.name), ['grep']);
});

test('build with --provider-options: each API\'s settings in the body; a broken rule exits 1 in the provider\'s words', () => {
  const file = join(tmp, 'provider-options.json');
  writeFileSync(file, JSON.stringify({
    anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4096 },
    gemini: { generationConfig: { temperature: 0.3 } },
  }));
  const a = run(['build', '--session', session, '--provider', 'anthropic', '--provider-options', file]);
  assert.equal(a.code, 0, a.stderr);
  const p = JSON.parse(a.stdout);
  assert.deepEqual([p.max_tokens, p.thinking], [4096, { type: 'enabled', budget_tokens: 2048 }]);
  const g = run(['build', '--session', session, '--provider', 'gemini', '--provider-options', file]);
  assert.equal(g.code, 0, g.stderr);
  assert.deepEqual(JSON.parse(g.stdout).generationConfig, { temperature: 0.3 });
  writeFileSync(file, JSON.stringify({ anthropic: { thinking: { type: 'enabled', budget_tokens: 9000 } } }));
  const bad = run(['build', '--session', session, '--provider', 'anthropic', '--provider-options', file]);
  assert.equal(bad.code, 1);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /^contextview: invalid_options: .*`max_tokens` must be greater than `thinking.budget_tokens`\./);
});

test('simulate prices every request under each policy, as the package does', () => {
  const r = run(['simulate', '--session', session, '--provider', 'anthropic', '--context-window', '200000', '--policy', 'default', '--policy', 'off']);
  assert.equal(r.code, 0, r.stderr);
  const sim = JSON.parse(r.stdout);
  const expected = cv.simulate({ log, options: { provider: 'anthropic', contextWindow: 200000 }, policies: [{ name: 'default', options: {} }, { name: 'off', options: { pruning: { enabled: false } } }] });
  assert.deepEqual(sim, expected);
  assert.deepEqual(sim.policies.map((p) => p.name), ['default', 'off']);
  const requests = new cv.Timeline(log).length;
  assert.equal(sim.policies[0].requests.length, requests);
  const t = sim.policies[0].totals;
  assert.equal(t.tokens, sim.policies[0].requests.reduce((a, q) => a + q.tokens, 0));
  assert.ok(Math.abs(t.dollars - sim.policies[0].requests.reduce((a, q) => a + q.dollars, 0)) < 1e-12);
  const err = r.stderr.trimEnd().split('\n');
  assert.equal(err.length, 3, r.stderr);
  assert.match(err[1], new RegExp(`^  default: ${requests} requests, ${t.tokens} input tokens `));
  const unknown = run(['simulate', '--session', session, '--provider', 'anthropic', '--model', 'mistral-large']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^contextview: unknown_model: no prices for anthropic `mistral-large`/);
  assert.equal(run(['simulate', '--session', session, '--provider', 'anthropic', '--policy', 'cheapest']).code, 2);
});

test("simulate --policy takes the library's names or a JSON file; any other name is refused with the names", () => {
  const help = run(['simulate', '--help']);
  assert.match(help.stdout, /\(policies: default, eager, off, or a JSON file \{name, options\}; default: default\)/);
  // The names the CLI and the inspector used before this vocabulary, and names that never were.
  for (const name of ['eager2', 'no-pruning', 'prune-every-turn', 'Off']) {
    assertUsageError(['simulate', '--session', session, '--provider', 'anthropic', '--policy', name],
      new RegExp(`^contextview: unknown policy '${name}': not one of default, eager, off, and no file by that name \\(a policy is a name or a JSON file \\{name, options\\}\\)$`));
  }
  const mine = join(tmp, 'mine.json');
  writeFileSync(mine, JSON.stringify({ name: 'mine', options: { pruning: { keepSteps: 4 } } }));
  const r = run(['simulate', '--session', session, '--provider', 'anthropic', '--policy', 'eager', '--policy', mine]);
  assert.equal(r.code, 0, r.stderr);
  const sim = JSON.parse(r.stdout);
  assert.deepEqual(sim, cv.simulate({ log, options: { provider: 'anthropic' }, policies: [
    { name: 'eager', options: { pruning: { stepTurns: 1, keepSteps: 2, batchSteps: 1, hardClearSteps: 2 } } }, { name: 'mine', options: { pruning: { keepSteps: 4 } } },
  ] }));
  writeFileSync(mine, JSON.stringify({ options: {} }));
  assertUsageError(['simulate', '--session', session, '--provider', 'anthropic', '--policy', mine], /must hold \{name, options\}$/);
});

test('simulate --cost-models: the figures of a session of our own, worked out by hand at the rows given', () => {
  const { text, sent } = geminiSession(cv);
  const file = join(tmp, 'gemini-session.jsonl');
  writeFileSync(file, text);
  // Each request's input tokens, as a build of the log as it stood counts them.
  const t = sent.map((l) => cv.buildRequestString({ log: l, provider: 'gemini' }).report.tokens.request);
  assert.ok(t[0] >= 4096 && t[0] < t[1] && t[1] < t[2], `${t}`);
  const figures = (p) => ({ ...p.totals, requests: p.requests.map((r) => [r.read, r.written, r.uncached, r.output, r.model, r.pricedAs]) });
  const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} != ${b}`);

  // At the built-in row of the model the log switched to: gemini-3-pro.
  const builtIn = run(['simulate', '--session', file, '--provider', 'gemini']);
  assert.equal(builtIn.code, 0, builtIn.stderr);
  let sim = JSON.parse(builtIn.stdout);
  let expected = byHand(t, GEMINI_3_PRO);
  let shown = figures(sim.policies[0]);
  assert.deepEqual(shown.requests, expected.requests.map((e) => [e.read, e.written, e.uncached, e.output, 'gemini-3-pro-preview', 'gemini-3-pro']));
  assert.deepEqual([shown.tokens, shown.read, shown.written, shown.uncached, shown.output], [expected.totals.tokens, expected.totals.read, expected.totals.written, 0, 800]);
  close(shown.dollars, expected.totals.dollars, 'dollars at gemini-3-pro');
  assert.match(builtIn.stderr, /^contextview: simulate gemini gemini-3-pro-preview \(window 1048576; prices of gemini-3-pro, 2026-12-04\)\n/);
  const pct = (100 * expected.totals.cachedShare).toFixed(1);
  assert.match(builtIn.stderr, new RegExp(`\n  default: 3 requests, ${expected.totals.tokens} input tokens \\(${pct}% from cache, ${expected.totals.written} written\\), 800 output, \\$${expected.totals.dollars.toFixed(4)}; `));

  // At a row of the host's own for the model: $1 in, $4 out, $0.10 read per million, the same
  // cache rules. It wins over the built-in row.
  const rows = join(tmp, 'rows.json');
  writeFileSync(rows, JSON.stringify([{ provider: 'gemini', modelPrefix: 'gemini-3-pro-preview', prices: { input: 1, output: 4, cacheRead: 0.1, cacheWrite: 0 }, caching: { kind: 'implicit', minTokens: 4096, ttlSeconds: 300 } }]));
  const hosted = run(['simulate', '--session', file, '--provider', 'gemini', '--cost-models', rows]);
  assert.equal(hosted.code, 0, hosted.stderr);
  sim = JSON.parse(hosted.stdout);
  expected = byHand(t, { input: 1, output: 4, cacheRead: 0.1 });
  shown = figures(sim.policies[0]);
  assert.deepEqual(shown.requests.map((r) => r.slice(0, 4)), expected.requests.map((e) => [e.read, e.written, e.uncached, e.output]));
  assert.deepEqual(shown.requests.map((r) => r[5]), ['gemini-3-pro-preview', 'gemini-3-pro-preview', 'gemini-3-pro-preview']);
  sim.policies[0].requests.forEach((r, i) => close(r.dollars, expected.requests[i].dollars, `request ${i} at the host's row`));
  close(shown.dollars, expected.totals.dollars, "dollars at the host's row");

  // A model given on the command line is every request's: gemini-2.5-flash ($0.30 in, $2.50
  // out, $0.03 read; cached from 2,048 tokens, so as above).
  const flash = run(['simulate', '--session', file, '--provider', 'gemini', '--model', 'gemini-2.5-flash']);
  assert.equal(flash.code, 0, flash.stderr);
  sim = JSON.parse(flash.stdout);
  const tf = sent.map((l) => cv.buildRequestString({ log: l, provider: 'gemini', model: 'gemini-2.5-flash' }).report.tokens.request);
  close(sim.policies[0].totals.dollars, byHand(tf, { input: 0.3, output: 2.5, cacheRead: 0.03 }).totals.dollars, 'dollars at gemini-2.5-flash');
  assert.deepEqual(sim.policies[0].requests.map((r) => r.model), ['gemini-2.5-flash', 'gemini-2.5-flash', 'gemini-2.5-flash']);
});

test('simulate on a log that switched models: each request at the model of its time, the models listed', () => {
  const s = cv.Session.create('switched');
  const lines = [];
  const runs = [
    ['2026-12-04T10:00:00Z', { type: 'switchModel', provider: 'gemini', model: 'gemini-2.5-flash' }],
    ['2026-12-04T10:00:01Z', { type: 'userMessage', text: 'Where is the parser?' }],
    ['2026-12-04T10:00:05Z', { type: 'assistantResponse', text: 'In src/parse.rs.' }],
    ['2026-12-04T10:01:00Z', { type: 'switchModel', provider: 'gemini', model: 'gemini-3-pro-preview' }],
    ['2026-12-04T10:01:01Z', { type: 'userMessage', text: 'Read it.' }],
  ];
  for (const [at, command] of runs) for (const e of s.dispatch(command, at).effects) if (e.type === 'persist') lines.push(...e.lines);
  s.free();
  const file = join(tmp, 'switched.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  const r = run(['simulate', '--session', file, '--provider', 'gemini']);
  assert.equal(r.code, 0, r.stderr);
  const sim = JSON.parse(r.stdout);
  assert.deepEqual(sim.policies[0].requests.map((q) => [q.model, q.pricedAs]), [['gemini-2.5-flash', 'gemini-2.5-flash'], ['gemini-3-pro-preview', 'gemini-3-pro']]);
  assert.equal(sim.model, 'gemini-3-pro-preview');
  assert.match(r.stderr, /\n  requests by model: gemini-2.5-flash 1, gemini-3-pro-preview 1\n/);
});

test('--help', () => {
  for (const args of [['--help'], ['build', '--help']]) {
    const r = run(args);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /usage: contextview/);
    assert.match(r.stdout, /--session/);
    assert.equal(r.stderr, '');
  }
});

test('usage errors exit 2 with one line', () => {
  assertUsageError([], /missing command/);
  assertUsageError(['frobnicate'], /unknown command 'frobnicate'/);
  assertUsageError(['build', '--session', join(tmp, 'missing.jsonl'), '--provider', 'gemini'], /cannot read session file .*missing\.jsonl: ENOENT/);
  assertUsageError(['build', '--session', tmp, '--provider', 'gemini'], /cannot read session file/);
  assertUsageError(['build', '--session', session, '--provider', 'mistral'], /unknown provider 'mistral'/);
  assertUsageError(['build', '--session', session], /missing --provider/);
  assertUsageError(['build', '--provider', 'anthropic'], /missing --session/);
  assertUsageError(['build', '--session', session, '--provider', 'anthropic', '--bogus'], /bogus/);
  assertUsageError(['build', '--session', session, '--provider', 'anthropic', 'extra'], /extra/);
  assertUsageError(['build', '--session', session, '--provider', 'anthropic', '--max-tokens', '-5'], /--max-tokens/);
  const bad = join(tmp, 'bad.json');
  writeFileSync(bad, '{nope');
  assertUsageError(['build', '--session', session, '--provider', 'anthropic', '--tools', bad], /not valid JSON/);
  assertUsageError(['build', '--session', session, '--provider', 'anthropic', '--system', join(tmp, 'nope.txt')], /cannot read system file/);
});

test('a library error exits 1 with its code', () => {
  const tools = join(tmp, 'nameless.json');
  writeFileSync(tools, JSON.stringify([{ description: 'no name' }]));
  const r = run(['build', '--session', session, '--provider', 'openai-chat', '--tools', tools]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^contextview: [a-z_]+: \S.*\n$/);
});

test('bin entry is executable with a node shebang', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'pkg/package.json'), 'utf8'));
  const bin = join(root, 'pkg', pkg.bin.contextview);
  assert.equal(bin, cli);
  assert.ok(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n'));
  assert.ok(statSync(bin).mode & 0o111, 'executable bit');
});

test('import writes a session and its subagents as linked logs; tree walks them with what each used', () => {
  const fixture = join(root, 'tests/fixtures/claude-subagents');
  const out = join(tmp, 'tree');
  // The subagents' files are found where Claude Code keeps them: <session>/subagents/.
  const r = run(['import', '--out', out, join(fixture, 's-main.jsonl')]);
  assert.equal(r.code, 0, r.stderr);
  const written = r.stdout.trim().split('\n');
  assert.deepEqual(written, [join(out, 's-main.jsonl'), join(out, 's-main_agent-aaa1.jsonl'), join(out, 's-main_agent-bbb2.jsonl')]);
  assert.match(r.stderr, /2 subagent\(s\) answered its calls; 2 of their sessions imported/);
  const header = JSON.parse(readFileSync(written[1], 'utf8').split('\n')[0]);
  assert.deepEqual([header.sessionId, header.parentSessionId, header.parentCallId], ['s-main/agent-aaa1', 's-main', 'toolu_1']);
  // Without --out, the session's log on stdout as before; a child file it does not link is named.
  const alone = run(['import', '--children', fixture, join(fixture, 's-main.jsonl')]);
  assert.equal(alone.code, 0, alone.stderr);
  assert.ok(alone.stdout.startsWith('{"format":"contextview.session-log"'));
  assert.match(alone.stderr, /not given: s-main\/agent-aaa1, s-main\/agent-bbb2/);
  assert.match(alone.stderr, /not a subagent of this session: s-main\/agent-zzz9/);
  // The tree: each call, the session that answered it, and what that session's requests used —
  // drawn for a terminal, and as JSON with --json.
  const drawn = run(['tree', '--session', written[0]]);
  assert.equal(drawn.code, 0, drawn.stderr);
  assert.deepEqual(drawn.stdout.trimEnd().split('\n'), [
    's-main  claude-sonnet-4-5  2 requests, 1,900 tokens in, 92 out',
    '├─ toolu_1  Audit crate a  [completed]',
    '│  s-main/agent-aaa1  claude-sonnet-4-5  2 requests, 650 tokens in, 60 out',
    '└─ toolu_2  Audit crate b  [completed]',
    '   s-main/agent-bbb2  claude-sonnet-4-5  2 requests, 650 tokens in, 60 out',
  ]);
  const t = run(['tree', '--session', written[0], '--json']);
  assert.equal(t.code, 0, t.stderr);
  const tree = JSON.parse(t.stdout);
  assert.equal(tree.sessionId, 's-main');
  assert.deepEqual(tree.spent, { requests: 2, inputTokens: 1900, outputTokens: 92, cacheReadTokens: 0, cacheWriteTokens: 0 });
  assert.deepEqual(tree.subagents.map((s) => [s.callId, s.sessionId, s.status, s.task, s.session?.spent.requests, s.session?.spent.inputTokens]), [
    ['toolu_1', 's-main/agent-aaa1', 'completed', 'Audit crate a', 2, 650],
    ['toolu_2', 's-main/agent-bbb2', 'completed', 'Audit crate b', 2, 650],
  ]);
  // A child's log not beside it is reported missing, not guessed.
  rmSync(written[2]);
  const partial = JSON.parse(run(['tree', '--session', written[0], '--json']).stdout);
  assert.deepEqual(partial.subagents.map((s) => Boolean(s.missing)), [false, true]);
  assert.ok(run(['tree', '--session', written[0]]).stdout.includes('   s-main/agent-bbb2  (its log was not found)'));
  assert.equal(run(['tree']).code, 2, 'a missing --session is a usage error');
});

test('tree lists every child the log started, those before a compaction that began a new chain too', () => {
  const out = join(tmp, 'tree-compacted');
  const r = run(['import', '--out', out, join(root, 'tests/fixtures/claude-subagents/s-inline-compacted.jsonl')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /2 subagent\(s\) answered its calls; 2 of their sessions imported/);
  const drawn = run(['tree', '--session', join(out, 's-inline.jsonl')]);
  assert.equal(drawn.code, 0, drawn.stderr);
  // The parent's three answers (600+700+30 in, 40+3+10 out) count, the two before the compaction too.
  assert.deepEqual(drawn.stdout.trimEnd().split('\n'), [
    's-inline  claude-sonnet-4-20250514  3 requests, 1,330 tokens in, 53 out',
    '├─ toolu_d  Audit crate d  [completed]',
    '│  s-inline/sidechain-s1  claude-sonnet-4-20250514  2 requests, 650 tokens in, 50 out',
    '└─ toolu_e  Audit crate e  [completed]',
    '   s-inline/sidechain-e1  claude-sonnet-4-20250514  1 request, 20 tokens in, 5 out',
  ]);
});

test('heads: the prompt heads a directory gives, the prefix cut to the head budget, as renderHeads cuts them', async () => {
  const dir = join(tmp, 'heads-ws');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, 'AGENTS.md'), Array.from({ length: 400 }, (_, i) => `Rule line ${i}: keep the build green and the diff small.`).join('\n'));
  const r = run(['heads', '--cwd', dir, '--home', dir, '--budget', '500', '--model', 'gpt-5']);
  assert.equal(r.code, 0, r.stderr);
  const heads = JSON.parse(r.stdout);
  // The same with the API: the workspace discovered, its heads rendered with that budget.
  const ws = await cv.discover({ cwd: dir, home: dir }, cv.nodeFs());
  const expected = cv.renderHeads({ cwd: ws.environment.cwd, rules: ws.environment.rules, skills: ws.environment.skillListing, model: 'gpt-5', headBudget: { tokens: 500 } });
  ws.free();
  assert.deepEqual(heads, expected);
  assert.equal(heads.allocation.budget, 500);
  assert.ok(heads.allocation.used <= 500);
  assert.deepEqual(heads.allocation.sections.find((s) => s.section === 'rules').cuts.map((c) => c.action), ['shortened']);
  assert.match(r.stderr, /rules +priority +80: \d+ of \d+ tokens, cut: .*AGENTS\.md shortened/);
  assert.equal(run(['heads', '--cwd', dir, '--budget', 'lots']).code, 2);
  // A context file under what discovery finds: its memory, priorities, the reminders' reserve.
  const given = { memory: 'The user prefers short answers.', gitStatus: ' M src/lib.rs', headBudget: { sections: { memory: { priority: 95 }, reminders: { reserve: 50 } }, ruleSources: { agents_md: 5 } } };
  const file = join(tmp, 'heads-context.json');
  writeFileSync(file, JSON.stringify(given));
  const withContext = run(['heads', '--cwd', dir, '--home', dir, '--context', file, '--budget', '500', '--model', 'gpt-5']);
  assert.equal(withContext.code, 0, withContext.stderr);
  const again = await cv.discover({ cwd: dir, home: dir }, cv.nodeFs());
  const byApi = cv.renderHeads({ ...given, cwd: again.environment.cwd, rules: again.environment.rules, skills: again.environment.skillListing, model: 'gpt-5', headBudget: { ...given.headBudget, tokens: 500 } });
  again.free();
  assert.deepEqual(JSON.parse(withContext.stdout), byApi);
  assert.ok(byApi.firstUserPrefix.includes('<memory>\nThe user prefers short answers.\n</memory>'), 'memory, above the rules, whole');
  assert.deepEqual(byApi.allocation.sections.at(-1).section, 'reminders');
  assert.match(withContext.stderr, /reminders +priority +90: 50 of the 50 reserved held for each request's reminders/);
  writeFileSync(file, '[1]');
  assert.equal(run(['heads', '--cwd', dir, '--context', file]).code, 2, 'a context that is no object is a usage error');
});
