// Importing other agents' sessions through the package and the CLI, on our own small fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'pkg/cli.mjs');
const fixture = (name) => join(root, 'tests/fixtures', name);
const tmp = mkdtempSync(join(tmpdir(), 'contextview-import-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const run = (args) => {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: tmp });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

const FIXTURES = { 'claude-code': 'claude-code.jsonl', codex: 'codex.jsonl', pi: 'pi.jsonl' };

for (const [format, file] of Object.entries(FIXTURES)) {
  test(`importSession detects and imports ${format}`, async () => {
    const { log, report } = await cv.importSession(readFileSync(fixture(file), 'utf8'));
    assert.equal(report.format, format);
    assert.deepEqual(report.diagnostics, []);
    const parsed = cv.parseLog(log);
    assert.deepEqual(parsed.diagnostics, []);
    assert.equal(parsed.header.importedFrom, format);
    assert.equal(parsed.records.length, report.records);
    // The imported log builds for every provider; the last thing in each fixture is a user prompt.
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
      const { payload } = cv.buildRequest({ log, provider });
      assert.ok(JSON.stringify(payload).length > 100, provider);
    }
  });

  test(`cli import --from ${format}, then build from its output`, () => {
    const r = run(['import', '--from', format, fixture(file)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^contextview: import ${format}: \\d+ lines -> \\d+ records`));
    const out = join(tmp, `${format}.jsonl`);
    writeFileSync(out, r.stdout);
    const b = run(['build', '--session', out, '--provider', 'openai-responses']);
    assert.equal(b.code, 0, b.stderr);
    assert.ok(JSON.parse(b.stdout).input.length >= 3);
  });
}

test('a Gemini CLI recording, whole or in lines, imports with what the CLI sends its model', async () => {
  for (const file of ['gemini-cli.json', 'gemini-cli.jsonl']) {
    const { log, report } = await cv.importSession(readFileSync(fixture(file), 'utf8'));
    assert.equal(report.format, 'gemini-cli', file);
    assert.deepEqual(report.fidelity.missing, [], file);
    const parsed = cv.parseLog(log);
    assert.deepEqual(parsed.diagnostics, [], file);
    assert.equal(parsed.header.importedFrom, 'gemini-cli', file);
    // Each recording ends with the model's answer: a request for any API but Anthropic's
    // (which would take it as a prefill) builds from it.
    for (const provider of ['openai-chat', 'openai-responses', 'gemini']) {
      const { payload } = cv.buildRequest({ log, provider });
      assert.ok(JSON.stringify(payload).length > 100, `${file} ${provider}`);
    }
  }
  // The lines' form: its cut last line said with its number, its notices, command, rewound
  // messages and the echo of its tool responses counted.
  const { report } = await cv.importSession(readFileSync(fixture('gemini-cli.jsonl'), 'utf8'), 'gemini-cli');
  assert.deepEqual(report.diagnostics.map((d) => [d.code, d.line]), [['import.malformed_line', 21]]);
  assert.deepEqual(report.unmapped, { info: 1, 'message:superseded': 2, 'user:command': 1, 'user:function_response': 2 });
  assert.deepEqual(report.fidelity.source, { prompts: 2, assistantTexts: 2, reasoning: 0, toolCalls: 5, images: 2 });
});

test('cli import --from gemini-cli of a whole recording, then build from its output', () => {
  const r = run(['import', '--from', 'gemini-cli', fixture('gemini-cli.json')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^contextview: import gemini-cli: \d+ lines -> \d+ records/);
  assert.match(r.stderr, /not mapped: error 1, info 1/);
  const out = join(tmp, 'gemini-cli.jsonl');
  writeFileSync(out, r.stdout);
  const b = run(['build', '--session', out, '--provider', 'gemini']);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(JSON.parse(b.stdout).contents.at(-1).role, 'model');
});

test('cli import of a Gemini CLI recording finds its subagents beside it, and tree walks them', () => {
  const chats = fixture('gemini-cli-subagents/chats');
  const out = join(tmp, 'gemini-tree');
  const r = run(['import', '--out', out, join(chats, 'session-2026-06-02T09-00-9d2e0a41.jsonl')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /subagent [^\n]*c0ffee00-aaaa-4bbb-8ccc-000000000001\.jsonl: gemini-cli: \d+ lines -> \d+ records/);
  assert.match(r.stderr, /2 subagent\(s\) answered its calls; 1 of their sessions imported; not given: c0ffee00-aaaa-4bbb-8ccc-000000000002/);
  assert.deepEqual(r.stdout.trim().split('\n').map((p) => p.slice(out.length + 1)).sort(), ['9d2e0a41-3333-4c1e-9a3e-000000000003.jsonl', 'c0ffee00-aaaa-4bbb-8ccc-000000000001.jsonl']);
  const t = run(['tree', '--session', join(out, '9d2e0a41-3333-4c1e-9a3e-000000000003.jsonl')]);
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /invoke_agent__a1 [^\n]*\[completed\]\n[│ ]+c0ffee00-aaaa-4bbb-8ccc-000000000001  gemini-2\.5-flash  2 requests/);
  assert.match(t.stdout, /invoke_agent__a2 [^\n]*\[failed\]\n[│ ]+c0ffee00-aaaa-4bbb-8ccc-000000000002  \(its log was not found\)/);
});

test('a Copilot CLI events file imports what the CLI replays to its model', async () => {
  const text = readFileSync(fixture('copilot-cli.jsonl'), 'utf8');
  const { log, report } = await cv.importSession(text);
  assert.equal(report.format, 'copilot-cli');
  assert.deepEqual(report.fidelity.missing, []);
  assert.deepEqual(report.diagnostics.map((d) => [d.code, d.line]), [['import.malformed_line', 41]]);
  assert.equal(report.unmapped['subagent:assistant.message'], 1);
  // Up to its compaction, the file builds for every API (its last answer ends it: all but Anthropic's).
  const before = text.split('\n').filter((l) => l.trim()).slice(0, text.split('\n').findIndex((l) => l.includes('"session.compaction_start"'))).join('\n');
  const early = await cv.importSession(before, 'copilot-cli');
  for (const provider of ['openai-chat', 'openai-responses', 'gemini']) {
    const { payload } = cv.buildRequest({ log: early.log, provider });
    assert.match(JSON.stringify(payload), /Background agent 'explore' completed\./, provider);
  }
  assert.equal(cv.parseLog(log).header.importedFrom, 'copilot-cli');
  const r = run(['import', '--from', 'copilot-cli', fixture('copilot-cli.jsonl')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^contextview: import copilot-cli: 41 lines -> \d+ records/);
  // Its subagent's events make a session of their own, linked to the task call.
  const tree = await cv.importTree(text, []);
  const child = cv.parseLog(tree.children[0].log).header;
  assert.deepEqual([child.sessionId, child.parentCallId, tree.children[0].report.fromProgress], ['7a1d0c55-4444-4c1e-9a3e-000000000004/agent-call_t1', 'call_t1', true]);
  const out = join(tmp, 'copilot-out');
  const o = run(['import', '--out', out, fixture('copilot-cli.jsonl')]);
  assert.equal(o.code, 0, o.stderr);
  assert.equal(o.stdout.trim().split('\n').length, 2, o.stdout);
  const t = run(['tree', '--session', join(out, '7a1d0c55-4444-4c1e-9a3e-000000000004.jsonl')]);
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /call_t1 [^\n]*\[completed\]\n[│ ]+7a1d0c55-4444-4c1e-9a3e-000000000004\/agent-call_t1 /);
});

test('a Cline task imports as sent, a Roo Code task with its subtask linked, a Kilo Code task when named', async () => {
  const cline = readFileSync(fixture('cline-task/cline.json'), 'utf8');
  const { log, report } = await cv.importSession(cline);
  assert.equal(report.format, 'cline');
  assert.deepEqual(report.fidelity.missing, []);
  assert.equal(cv.parseLog(log).header.sessionId, 'cline-1780000000100');
  // Its last answer was Claude's: the request that follows it goes there, thinking signed.
  const next = cv.Session.fromLog(log);
  next.dispatch({ type: 'userMessage', text: 'and the logout page?' }, '2026-06-01T10:00:00Z');
  assert.match(next.buildString({ provider: 'anthropic' }).body, /"signature":"sig-c1"/);

  const roo = readFileSync(fixture('cline-task/roo-code.json'), 'utf8');
  const subtask = readFileSync(fixture('cline-task/roo-code-subtask.json'), 'utf8');
  const tree = await cv.importTree(roo, [subtask]);
  assert.equal(tree.parent.report.format, 'roo-code');
  assert.deepEqual([tree.missing, tree.unlinked], [[], []]);
  const child = cv.parseLog(tree.children[0].log).header;
  assert.deepEqual([child.sessionId, child.parentCallId], ['7f3c0d2e-0000-4000-8000-00000000c0de', 'call_r2']);
  // The summary stands for what it condensed: the first prompt is not sent again.
  const session = cv.Session.fromLog(tree.parent.log);
  session.dispatch({ type: 'userMessage', text: 'go on' }, '2026-06-01T10:00:00Z');
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
    const body = session.buildString({ provider }).body;
    assert.match(body, /## Conversation Summary/, provider);
    assert.doesNotMatch(body, /Add tests for the parser/, provider);
  }

  const kilo = readFileSync(fixture('cline-task/kilo-code.json'), 'utf8');
  assert.equal((await cv.importSession(kilo)).report.format, 'roo-code');
  const r = run(['import', '--from', 'kilo-code', fixture('cline-task/kilo-code.json')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^contextview: import kilo-code: 9 lines -> \d+ records/);
  assert.equal(cv.parseLog(r.stdout).header.importedFrom, 'kilo-code');
});

test('a Cline task with its chat: the truncation its chat recorded hides what it hid, and each request is anchored', async () => {
  const api = readFileSync(fixture('cline-task/truncated/api_conversation_history.json'), 'utf8');
  const chat = readFileSync(fixture('cline-task/truncated/ui_messages.json'), 'utf8');
  const tree = await cv.importTree(api, [chat]);
  assert.deepEqual([tree.children.length, tree.parent.report.fidelity.missing], [0, []]);
  const records = cv.parseLog(tree.parent.log).records;
  assert.equal(records.filter((r) => r.event?.kind === 'compaction_checkpoint').length, 1);
  assert.equal(records.filter((r) => r.event?.kind === 'usage_anchor').length, 5);
  const session = cv.Session.fromLog(tree.parent.log);
  session.dispatch({ type: 'userMessage', text: 'and the docs?' }, '2026-06-01T10:00:00Z');
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
    const body = session.buildString({ provider }).body;
    assert.match(body, /Refactor the parser/, provider);
    assert.doesNotMatch(body, /fn lex\(\)/, `${provider}: the range took the lexer's read away`);
  }
  // The CLI reads the chat beside the history.
  const r = run(['import', fixture('cline-task/truncated/api_conversation_history.json')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, tree.parent.log);
});

test('an OpenCode export imports what OpenCode sends, with the subagent its task call ran', async () => {
  const main = readFileSync(fixture('opencode/ses-main.json'), 'utf8');
  const subagent = readFileSync(fixture('opencode/ses-subagent.json'), 'utf8');
  const tree = await cv.importTree(main, [subagent]);
  assert.equal(tree.parent.report.format, 'opencode');
  assert.deepEqual([tree.missing, tree.unlinked, tree.parent.report.fidelity.missing], [[], [], []]);
  const child = cv.parseLog(tree.children[0].log).header;
  assert.deepEqual([child.sessionId, child.parentSessionId, child.parentCallId], ['ses_7a01c0ffee02OpQrStUvWxYzAb', 'ses_7a01c0ffee01AbCdEfGhIjKlMn', 'toolu_o2']);
  // The reverted prompt is not sent; the summary stands for what came before it.
  const session = cv.Session.fromLog(tree.parent.log);
  session.dispatch({ type: 'userMessage', text: 'and the tests?' }, '2026-06-01T10:00:00Z');
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
    const body = session.buildString({ provider }).body;
    assert.match(body, /the cart query scans the whole table/, provider);
    assert.doesNotMatch(body, /composite index|Why is checkout slow/, provider);
  }
  const r = run(['import', fixture('opencode/ses-main.json')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^contextview: import opencode: 10 lines -> \d+ records/);
});

test('an OpenCode storage folder imports as its export does, with its subagent, and names each file it leaves out', async () => {
  const storage = fixture('opencode-storage');
  // A directory listing promises no order: the files are given in reverse.
  const list = (dir) => readdirSync(dir).sort().reverse().map((name) => join(dir, name));
  const filesOf = (session) => {
    const messages = list(join(storage, 'message', session));
    return {
      session: readFileSync(join(storage, 'session/9a1c0e4f5b6a', `${session}.json`), 'utf8'),
      messages: messages.map((m) => readFileSync(m, 'utf8')),
      parts: messages.flatMap((m) => list(join(storage, 'part', basename(m, '.json')))).map((p) => readFileSync(p, 'utf8')),
    };
  };
  const [main, subagent] = [filesOf('ses_7a01c0ffee01AbCdEfGhIjKlMn'), filesOf('ses_7a01c0ffee02OpQrStUvWxYzAb')];
  const fromStorage = await cv.importOpenCodeStorage(main, [subagent]);
  const fromExport = await cv.importTree(readFileSync(fixture('opencode/ses-main.json'), 'utf8'), [readFileSync(fixture('opencode/ses-subagent.json'), 'utf8')]);
  assert.deepEqual(fromStorage, fromExport);
  assert.equal(cv.parseLog(fromStorage.children[0].log).header.parentCallId, 'toolu_o2');
  // The CLI, given the session's file in the folder, finds its messages, parts and subagent (and
  // not the project's other session).
  const sessionFile = join(storage, 'session/9a1c0e4f5b6a/ses_7a01c0ffee01AbCdEfGhIjKlMn.json');
  const r = run(['import', sessionFile]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, fromExport.parent.log);
  assert.match(r.stderr, /^contextview: import opencode: 10 lines -> \d+ records/);
  assert.match(r.stderr, /1 subagent\(s\) answered its calls; 1 of their sessions imported\n/);
  assert.doesNotMatch(r.stderr, /ses_7a01c0ffee00|not a subagent/);
  // Its messages are files of their own: it cannot be followed as one file, and says so.
  const followed = run(['import', '--follow', sessionFile]);
  assert.equal(followed.code, 2, followed.stderr);
  assert.match(followed.stderr, /OpenCode session's file in its storage folder/);
  // A part cut short (written while it was read): left out, named by its path; the rest imports.
  const copy = join(tmp, 'opencode-storage');
  cpSync(storage, copy, { recursive: true });
  const cut = join(copy, 'part/msg_b0e5d4c3b208Aa11Bb22Cc33Dd/prt_b0e5d4c3b208Aa11Bb22Cc33Dd02.json');
  writeFileSync(cut, readFileSync(cut, 'utf8').slice(0, 40));
  const broken = run(['import', join(copy, 'session/9a1c0e4f5b6a/ses_7a01c0ffee01AbCdEfGhIjKlMn.json')]);
  assert.equal(broken.code, 0, broken.stderr);
  assert.ok(broken.stderr.includes(`  error ${cut}: import.storage_file_left_out: not JSON (`), broken.stderr);
  assert.match(r.stdout, /Adding an index on cart\.user_id fixes it/);
  assert.doesNotMatch(broken.stdout, /Adding an index on cart\.user_id fixes it/);
  // Wrong-typed arguments name themselves.
  await assert.rejects(cv.importOpenCodeStorage('{}'), { name: 'ContextviewTypeError', message: /`session` must be an object/ });
  await assert.rejects(cv.importOpenCodeStorage({ ...main, parts: [1] }), { name: 'ContextviewTypeError', message: /`session\.parts` must be an array of strings/ });
  await assert.rejects(cv.importOpenCodeStorage(main, [{ session: '' }]), { name: 'ContextviewTypeError', message: /`children\[0\]\.messages`/ });
});

test('an Aider chat history imports its last run as the view, and says what a transcript cannot give back', async () => {
  const text = readFileSync(fixture('aider.chat.history.md'), 'utf8');
  const { log, report } = await cv.importSession(text);
  assert.equal(report.format, 'aider');
  assert.deepEqual(report.fidelity.missing, []);
  assert.equal(report.unmapped['reply:without_prompt'], 1);
  const { payload } = cv.buildRequest({ log, provider: 'openai-chat' });
  assert.deepEqual(payload.messages.map((m) => [m.role, m.content]), [['user', 'List the public functions of src/lib.rs.'], ['assistant', '`parse` and `parse_all`.']]);
  const r = run(['import', '--from', 'aider', fixture('aider.chat.history.md')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^contextview: import aider: \d+ lines -> \d+ records/);
  assert.match(r.stderr, /typed:command 2/);
});

test('cli import without --from detects the format', () => {
  const r = run(['import', fixture('pi.jsonl')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /import pi: [^]*\n  not mapped: thinking_level_change 1/);
});

test('cli import: usage errors exit 2 with one line', () => {
  for (const args of [['import'], ['import', '--from', 'cursor', fixture('pi.jsonl')], ['import', join(tmp, 'missing.jsonl')], ['import', 'a', 'b']]) {
    const r = run(args);
    assert.equal(r.code, 2, `${args}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.split('\n').length, 2, r.stderr);
  }
});

test('an unrecognisable file is refused with a stable code', async () => {
  const weird = join(tmp, 'weird.jsonl');
  writeFileSync(weird, '{"hello":"world"}\n');
  const r = run(['import', weird]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^contextview: unknown_format: /);
  await assert.rejects(cv.importSession('{"hello":1}\n'), (e) => e.code === 'unknown_format');
  await assert.rejects(cv.importSession('', 'cursor'), (e) => e.code === 'invalid_argument');
});

test('bad lines are diagnostics with line numbers, not failures', async () => {
  const text = readFileSync(fixture('codex.jsonl'), 'utf8') + '{"truncated":\n';
  const { report } = await cv.importSession(text, 'codex');
  assert.deepEqual(report.diagnostics.map((d) => [d.code, d.line]), [['import.malformed_line', 11]]);
  assert.ok(report.records > 5);
});

test('the import report says what the source saw and warns when the view lacks any of it', async () => {
  // A complete import: counts on both sides, no warning.
  const whole = run(['import', fixture('claude-code.jsonl')]);
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(whole.stderr, /\n  the source's model saw \d+ prompts, \d+ texts, \d+ reasoning, \d+ tool calls, \d+ images; the view holds /);
  assert.doesNotMatch(whole.stderr, /WARNING/);
  assert.equal(run(['import', '--strict', fixture('claude-code.jsonl')]).code, 0);

  // An image whose data is not base64 cannot reach the view: named, with its line.
  const lossy = join(tmp, 'lossy.jsonl');
  writeFileSync(lossy, [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not*base64' } }] } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'I see.' }] } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = run(['import', lossy]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /WARNING: 1 element\(s\) the source agent's model saw are missing from the view:\n    image from line 1\n/);
  const { report } = await cv.importSession(readFileSync(lossy, 'utf8'));
  assert.deepEqual(report.fidelity.missing, [{ kind: 'image', line: 1 }]);
  assert.equal(report.fidelity.source.images, 1);
  assert.equal(report.fidelity.view.images, 0);
  assert.equal(run(['import', '--strict', lossy]).code, 1);
});
