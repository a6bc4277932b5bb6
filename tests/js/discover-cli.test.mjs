// `contextview discover` as a user runs it, on our fixture written to a temp directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { workspaceFixture, writeTree, mentions } from './discover-fixture.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'pkg/cli.mjs');
const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'contextview-discover-cli-')));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const fx = workspaceFixture(tmp);
writeTree(fx.files);

function run(args, cwd = tmp) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd, maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertUsageError(args, pattern) {
  const r = run(args);
  assert.equal(r.code, 2, `exit 2 for ${JSON.stringify(args)}; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^contextview: [^\n]+\n$/, `one line on stderr: ${JSON.stringify(r.stderr)}`);
  if (pattern) assert.match(r.stderr, pattern);
}

test('discover --cwd --home prints the Environment as JSON and a summary line', () => {
  const r = run(['discover', '--cwd', fx.paths.cwd, '--home', fx.paths.home]);
  assert.equal(r.code, 0, r.stderr);
  const env = JSON.parse(r.stdout);
  assert.ok(r.stdout.includes('\n  "rules"'), 'pretty-printed');
  assert.ok(Array.isArray(env.rules) && Array.isArray(env.skills) && Array.isArray(env.diagnostics));
  for (const marker of fx.unconditional) assert.equal(mentions(env.rules, marker), 1, marker);
  assert.deepEqual(env.skills.map((s) => s.name).sort(), Object.keys(fx.skills).sort());
  assert.equal(env.repoRoot, fx.paths.root);
  const m = r.stderr.match(/^contextview: discover: (\d+) rules?, (\d+) skills?, (\d+) diagnostics?; (\d+) host calls? \((\d+) readDir, (\d+) readFile\)\n$/);
  assert.ok(m, `summary line: ${JSON.stringify(r.stderr)}`);
  assert.equal(Number(m[1]), env.rules.length);
  assert.equal(Number(m[2]), env.skills.length);
  assert.equal(Number(m[3]), env.diagnostics.length);
  assert.equal(Number(m[4]), Number(m[5]) + Number(m[6]));
  assert.ok(Number(m[5]) > 0 && Number(m[6]) > 0);
});

test('discover with a relative --cwd resolves it against the working directory', () => {
  const r = run(['discover', '--cwd', 'b', '--home', fx.paths.home], fx.paths.a);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).repoRoot, fx.paths.root);
});

test('discover --help', () => {
  const r = run(['discover', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /usage: contextview discover --cwd DIR/);
  assert.match(run(['--help']).stdout, /discover/);
});

test('discover usage errors exit 2 with one line', () => {
  assertUsageError(['discover'], /missing --cwd/);
  assertUsageError(['discover', '--home', fx.paths.home], /missing --cwd/);
  assertUsageError(['discover', '--cwd', join(tmp, 'nope')], /cannot read --cwd directory .*nope: ENOENT/);
  assertUsageError(['discover', '--cwd', join(fx.paths.root, 'AGENTS.md')], /not a directory/);
  assertUsageError(['discover', '--cwd', fx.paths.cwd, '--home', join(tmp, 'nohome')], /--home/);
  assertUsageError(['discover', '--cwd', fx.paths.cwd, '--bogus'], /bogus/);
  assertUsageError(['discover', '--cwd', fx.paths.cwd, 'extra'], /extra/);
});
