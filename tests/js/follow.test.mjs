// Following a session file while its agent writes it: the incremental import through the
// package, and `contextview import --follow` on a file that grows under it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'pkg/cli.mjs');
const fixture = (name) => readFileSync(join(root, 'tests/fixtures', name), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'contextview-follow-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** Pushes `text` in pieces of `size` characters (cutting lines anywhere); the log they make. */
function pushed(follower, text, size) {
  let log = '';
  for (let i = 0; i < text.length; i += size) log += follower.push(text.slice(i, i + size)).log;
  return log;
}

test('a file that only appends, pushed in pieces, gives the very log a whole import gives', async () => {
  const { IncrementalImport } = await cv.loadLazyModule();
  for (const [name, size] of [['copilot-cli.jsonl', 97], ['codex.jsonl', 61], ['pi.jsonl', 300]]) {
    const text = fixture(name);
    const follower = new IncrementalImport();
    const log = pushed(follower, text, size);
    const whole = await cv.importSession(text);
    assert.equal(log, whole.log, name);
    assert.equal(follower.format, whole.report.format);
    // Its report is the whole import's of the lines complete so far.
    const complete = await cv.importSession(text.slice(0, text.lastIndexOf('\n') + 1));
    assert.deepEqual(follower.report(), complete.report, name);
    follower.free();
  }
});

test('a Gemini CLI recording whose later lines rewrite and rewind: the log rewinds and builds what a whole import builds', async () => {
  const { IncrementalImport } = await cv.loadLazyModule();
  const text = fixture('gemini-cli.jsonl');
  const follower = new IncrementalImport('gemini-cli');
  let log = '';
  let rewinds = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const appended = follower.push(line);
    log += appended.log;
    rewinds += appended.rewound ? 1 : 0;
    if (appended.rewound) assert.equal(JSON.parse(appended.log.split('\n').find((l) => l.includes('"seq"'))).event.kind, 'rewind');
  }
  assert.ok(rewinds > 0);
  log += follower.settle().log;
  const whole = await cv.importSession(text);
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
    const ours = cv.Session.fromLog(log);
    const theirs = cv.Session.fromLog(whole.log);
    for (const s of [ours, theirs]) s.dispatch({ type: 'userMessage', text: 'go on' }, '2026-06-01T12:00:00Z');
    assert.equal(ours.buildString({ provider }).body, theirs.buildString({ provider }).body, provider);
  }
  // The report is the whole import's of the lines written so far (the fixture's last is cut short).
  const complete = await cv.importSession(text.slice(0, text.lastIndexOf('\n') + 1), 'gemini-cli');
  assert.deepEqual(follower.report(), complete.report);
});

test('a task file its agent rewrites whole is read again with replace', async () => {
  const { IncrementalImport } = await cv.loadLazyModule();
  const messages = JSON.parse(fixture('cline-task/roo-code.json'));
  const follower = new IncrementalImport('roo-code');
  let log = '';
  for (let n = 1; n <= messages.length; n++) {
    const version = JSON.stringify(messages.slice(0, n), null, 2);
    assert.equal(follower.replace(version.slice(0, version.length - 3)).log, '', 'half-written: nothing');
    log += follower.replace(version).log;
  }
  log += follower.settle().log;
  const whole = await cv.importSession(JSON.stringify(messages), 'roo-code');
  const text = (l) => { const s = cv.Session.fromLog(l); s.dispatch({ type: 'userMessage', text: 'next' }, '2026-06-01T12:00:00Z'); return s.buildString({ provider: 'anthropic' }).body; };
  assert.equal(text(log), text(whole.log));
});

test('a Claude Code file followed a line at a time: its last turn is pending, the log gains each request once', async () => {
  const { IncrementalImport } = await cv.loadLazyModule();
  const text = fixture('claude-code.jsonl');
  const follower = new IncrementalImport();
  assert.equal(follower.readsWhole, true, 'the format is not told yet');
  let log = '';
  let so_far = '';
  let pendingSeen = 0;
  for (const line of text.split(/(?<=\n)/)) {
    so_far += line;
    const { log: lines, pending, rewound } = follower.push(line);
    assert.equal(rewound, false);
    log += lines;
    if (pending !== '') pendingSeen++;
    // Shown, the log and its pending lines are the requests a whole import of the file so far has.
    const shown = new cv.Timeline(log + pending);
    const whole = new cv.Timeline((await cv.importSession(so_far, 'claude-code')).log);
    assert.equal(shown.length, whole.length, `after ${so_far.length} bytes`);
    shown.free();
    whole.free();
  }
  assert.equal(follower.readsWhole, false, 'a Claude Code file is pushed what it grew by');
  assert.ok(pendingSeen > 0, 'a turn was pending');
  const settled = follower.settle();
  assert.equal(settled.pending, '');
  assert.equal(log + settled.log, (await cv.importSession(text)).log, 'settled, the very log a whole import writes');
  follower.free();
});

test('followFile: a character a read cuts in half is read whole with its next bytes', async (t) => {
  const { followFile } = await import('../../pkg/inspector/follow.mjs');
  // A prompt in three scripts: two-, three- and four-byte characters for the reads to cut.
  const text = fixture('codex.jsonl').replace('"Run the tests."', '"Lancez les tests — café ✓ 🧪, s’il vous plaît."');
  const bytes = new TextEncoder().encode(text);
  const inChar = [...bytes.keys()].filter((i) => (bytes[i] & 0xc0) === 0x80);
  assert.ok(inChar.length >= 6, 'the text has characters of more than one byte');
  // The file as the handle shows it: what was written so far, its time changing with it.
  let size = 0;
  let modified = 0;
  let looks = 0;
  const handle = { getFile: async () => { looks += 1; return new File([bytes.slice(0, size)], 'rollout.jsonl', { lastModified: modified }); } };
  const seen = [];
  const errors = [];
  let follow;
  t.after(() => follow?.stop());
  // Each step ends inside a character: the first on the first read (the whole file, its format
  // not told yet), the rest on reads of what the file grew by.
  const steps = [inChar[0], inChar[2], inChar[inChar.length - 1], bytes.length];
  for (const [i, end] of steps.entries()) {
    size = end;
    modified = i + 1;
    if (i === 0) {
      follow = await followFile(cv, handle, { interval: 5, onLog: (l) => seen.push(l), onError: (e) => errors.push(e) });
    } else {
      // Two looks after the file changed: the first read it (a look ends before the next starts).
      const at = looks;
      await until(() => looks >= at + 2, 10_000, `the read up to byte ${end}`);
    }
  }
  assert.deepEqual(errors, []);
  const whole = await cv.importSession(text);
  assert.equal(seen.at(-1).log, whole.log, 'what a whole import of the file gives, every character whole');
  assert.ok(seen.every((l) => !l.log.includes('\uFFFD')), 'no character was read in halves');
  // A Codex rollout is read a line at a time: nothing is pending, so stopping adds nothing.
  const calls = seen.length;
  follow.stop();
  assert.equal(seen.length, calls);
  assert.equal(seen.at(-1).report(), null, 'a stopped follow has no report');
});

test('followFile: stop() appends the pending turn, its report made only while onLog runs', async (t) => {
  const { followFile } = await import('../../pkg/inspector/follow.mjs');
  const text = fixture('claude-code.jsonl');
  const handle = { getFile: async () => new File([text], 'session.jsonl', { lastModified: 1 }) };
  const seen = [];
  const errors = [];
  const follow = await followFile(cv, handle, { interval: 60_000, onLog: (l) => seen.push(l), onError: (e) => errors.push(e) });
  t.after(() => follow.stop());
  assert.deepEqual(errors, []);
  assert.equal(seen.length, 1);
  const whole = await cv.importSession(text);
  assert.ok(seen[0].added.length < whole.log.length, 'the last turn waits as pending');
  let reportWhileStopping;
  const settled = new Promise((resolve) => {
    seen.push = (l) => {
      reportWhileStopping = l.report();
      resolve(l);
      return Array.prototype.push.call(seen, l);
    };
  });
  follow.stop();
  const last = await settled;
  assert.equal(seen[0].added + last.added, whole.log, 'settled: the log a whole import writes');
  assert.equal(last.log, whole.log);
  assert.deepEqual(reportWhileStopping, whole.report);
  assert.equal(last.report(), null, 'made only while the follower lives');
  follow.stop();
  assert.equal(seen.length, 2, 'a second stop does nothing');
});

test('bad arguments are refused with the package\'s errors', async () => {
  const { IncrementalImport } = await cv.loadLazyModule();
  assert.throws(() => new IncrementalImport('cursor'), { code: 'invalid_argument' });
  const follower = new IncrementalImport();
  assert.throws(() => follower.push(42), { code: 'invalid_argument' });
  assert.equal(follower.push('not a session\n').log, '');
  assert.throws(() => follower.push('x'.repeat(70 * 1024)), { code: 'unknown_format' });
});

/** Resolves when `predicate()` holds, polling; rejects after `ms`. */
async function until(predicate, ms, what) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `import --follow --log LOG FILE` started: its output so far (`out()`, `err()`) and its exit code. */
function following(file, logPath) {
  const child = spawn(process.execPath, [cli, 'import', '--follow', '--interval', '40', '--log', logPath, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  return { child, out: () => stdout, err: () => stderr, exited };
}

test('import --follow prints a line per new request as the file grows, and writes the log as it grows', async () => {
  const text = fixture('codex.jsonl');
  const lines = text.split(/(?<=\n)/);
  const half = Math.ceil(lines.length / 2);
  const file = join(tmp, 'rollout.jsonl');
  const logPath = join(tmp, 'followed.jsonl');
  writeFileSync(file, lines.slice(0, half).join(''));
  const whole = await cv.importSession(text);
  const total = new cv.Timeline(whole.log).length;
  const early = new cv.Timeline((await cv.importSession(lines.slice(0, half).join(''), 'codex')).log).length;
  assert.ok(early >= 1 && total > early, `${early} then ${total} requests`);
  const { child, out, err, exited } = following(file, logPath);
  try {
    const printed = () => out().split('\n').filter(Boolean);
    await until(() => printed().length === early, 30_000, `${early} request lines (stderr: ${err()})`);
    // The agent writes the rest, a line at a time.
    for (const line of lines.slice(half)) appendFileSync(file, line);
    await until(() => printed().length === total, 30_000, `${total} request lines`);
    const rows = printed().map((l) => l.split('\t'));
    assert.deepEqual(rows.map((r) => Number(r[0])), [...Array(total).keys()]);
    for (const [, model, tokens, cost] of rows) {
      assert.match(model, /^openai-responses \S+$/);
      assert.match(tokens, /^\d+ tokens$/);
      assert.match(cost, /^(\$\d+\.\d{4}|-)$/);
    }
    // The first request's tokens as the timeline of the whole import counts them.
    const first = new cv.Timeline(whole.log).buildAt(0, { asRecorded: true }).report.tokens.request;
    assert.equal(rows[0][2], `${first} tokens`);
    await until(() => readFileSync(logPath, 'utf8') === whole.log, 10_000, 'the log to be the whole import\'s');
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, err());
  assert.match(err(), /^contextview: following /);
});

test('import --follow: a log that stops taking what it gains ends the follow with the error, not a gap', { skip: !existsSync('/dev/full') && 'no /dev/full here (a file every write to fails)' }, async () => {
  const file = join(tmp, 'codex-full.jsonl');
  writeFileSync(file, fixture('codex.jsonl'));
  const run = following(file, '/dev/full');
  const code = await run.exited;
  assert.equal(code, 1, run.err());
  assert.match(run.err(), /contextview: ENOSPC: cannot append to \/dev\/full, so following stopped/);
  assert.doesNotMatch(run.err(), /cannot read/);
});

test('import --follow on a file that is no session: it waits while the file may still tell, then exits 1 with the error', async () => {
  const file = join(tmp, 'notes.txt');
  writeFileSync(file, `${'not a session line\n'.repeat(4000)}`);
  const child = spawn(process.execPath, [cli, 'import', '--follow', '--interval', '20', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 1, stderr);
  assert.match(stderr, /contextview: unknown_format: could not recognise the session format/);
});

test('import --follow: options that need or refuse it are usage errors', () => {
  return Promise.all([
    [['import', '--log', 'x.jsonl', 'f'], /--log needs --follow/],
    [['import', '--follow', '--out', 'dir', 'f'], /--out cannot be used with --follow/],
    [['import', '--follow', '--interval', 'soon', 'f'], /--interval must be a whole number/],
  ].map(([args, message]) => new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: tmp });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message);
      resolve();
    });
  })));
});

test('import --follow, interrupted, appends to its log the turn that was still pending', async () => {
  const text = fixture('claude-code.jsonl');
  const file = join(tmp, 'claude.jsonl');
  const logPath = join(tmp, 'claude-followed.jsonl');
  writeFileSync(file, text);
  const whole = await cv.importSession(text);
  const total = new cv.Timeline(whole.log).length;
  const { child, out, err, exited } = following(file, logPath);
  try {
    await until(() => out().split('\n').filter(Boolean).length === total, 30_000, `${total} request lines (stderr: ${err()})`);
    // The last turn is shown, not stored, while the file may still change it.
    const stored = readFileSync(logPath, 'utf8');
    assert.ok(whole.log.startsWith(stored) && stored.length < whole.log.length, 'the stored log ends before the last turn');
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, err());
  assert.equal(readFileSync(logPath, 'utf8'), whole.log);
});

test('import --follow: a file its agent rewrites in place, at a larger size, is read whole again and the view goes back', async () => {
  const text = fixture('codex.jsonl');
  const lines = text.split(/(?<=\n)/);
  const file = join(tmp, 'rewritten.jsonl');
  const logPath = join(tmp, 'rewritten-followed.jsonl');
  writeFileSync(file, text);
  const { child, out, err, exited } = following(file, logPath);
  // Its last two lines taken back, a longer answer in their place: the file is larger than it
  // was, and what it held before its old end is no longer what was read.
  const answer = JSON.stringify({ timestamp: '2026-11-30T11:00:07Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Every one of the four tests passes: nothing is left to fix.'.repeat(4) }] } });
  const rewritten = `${lines.slice(0, -2).join('')}${answer}\n`;
  assert.ok(rewritten.length > text.length);
  try {
    const total = new cv.Timeline((await cv.importSession(text)).log).length;
    await until(() => out().split('\n').filter(Boolean).length === total, 30_000, `${total} request lines (stderr: ${err()})`);
    writeFileSync(file, rewritten);
    await until(() => /changed what was imported before/.test(err()), 30_000, `the rewrite to be seen (stderr: ${err()})`);
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, err());
  // The log, rewound and gone on, builds what a whole import of the rewritten file builds.
  const whole = await cv.importSession(rewritten);
  const body = (log) => {
    const s = cv.Session.fromLog(log);
    s.dispatch({ type: 'userMessage', text: 'next' }, '2026-12-01T12:00:00Z');
    return s.buildString({ provider: 'openai-responses' }).body;
  };
  assert.equal(body(readFileSync(logPath, 'utf8')), body(whole.log));
});
