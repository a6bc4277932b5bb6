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
  const r = run(['simulate', '--session', session, '--provider', 'anthropic', '--context-window', '200000', '--policy', 'default', '--policy', 'no-pruning']);
  assert.equal(r.code, 0, r.stderr);
  const sim = JSON.parse(r.stdout);
  const expected = cv.simulate({ log, options: { provider: 'anthropic', contextWindow: 200000 }, policies: [{ name: 'default', options: {} }, { name: 'no-pruning', options: { pruning: { enabled: false } } }] });
  assert.deepEqual(sim, expected);
  assert.deepEqual(sim.policies.map((p) => p.name), ['default', 'no-pruning']);
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
