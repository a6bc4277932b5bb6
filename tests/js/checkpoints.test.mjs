// Checkpoints from JavaScript: a log with checkpoints opens from the last one, builds what the
// same log without them builds, hands the rest of the history over when a rewind needs it, and
// holds in wasm memory what the view reaches — not the history before the checkpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

import * as cv from '../../pkg/node.mjs';

const NOW = '2026-12-05T09:00:00Z';
const SUMMARY = '## Goal\nMake the parser accept trailing commas.\n## Constraints\nKeep the API.\n## Progress\n### Done\nRead it.\n### In progress\nThe fix.\n### Blocked\nNone\n## Decisions\nNone\n## Next steps\nTest.\n## Files\nsrc/parser.rs\n## Pending actions\nNone';

/** A session with `rounds` tool rounds of `outputBytes` each, compacted after `compactAt`. */
export function longLog(rounds, outputBytes, compactAt) {
  const s = cv.Session.create('long');
  const ok = (command) => {
    const p = s.dispatch(command, NOW);
    assert.equal(p.error, undefined, JSON.stringify(p.error));
    return p;
  };
  ok({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 });
  for (let round = 0; round < rounds; round++) {
    if (round % 10 === 0) ok({ type: 'userMessage', text: `Task ${round}: fix module ${round}.` });
    ok({ type: 'assistantResponse', text: `Step ${round}.`, toolCalls: [{ id: `c${round}`, name: 'read', input: { path: `src/m${round}.rs` } }] });
    ok({ type: 'toolResult', toolCallId: `c${round}`, output: `// m${round}\n` + 'let x = read(input)?;\n'.repeat(Math.ceil(outputBytes / 22)) });
    if (round === compactAt) {
      ok({ type: 'prepareCompaction', options: { keepRecentTokens: 2000 } });
      ok({ type: 'applyCompaction', summary: SUMMARY });
    }
  }
  ok({ type: 'userMessage', text: 'Now the lexer.' });
  return s.snapshot().log;
}

const strip = (log) => log.split('\n').filter((l) => !l.includes('"kind":"checkpoint"')).join('\n');

test('a log opens from its last checkpoint and builds what the log without checkpoints builds', () => {
  const log = longLog(60, 2000, 40);
  assert.equal(log.split('\n').filter((l) => l.includes('"kind":"checkpoint"')).length, 1, 'one checkpoint, after the compaction');
  const opened = cv.Session.fromLog(log);
  const replayed = cv.Session.fromLog(strip(log));
  assert.equal(opened.recordCount(), replayed.recordCount() + 1);
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
    assert.equal(opened.buildString({ provider }).body, replayed.buildString({ provider }).body, provider);
  }
  // A rewind across the compaction needs the history: the facade hands it over from the text.
  for (const s of [opened, replayed]) {
    const p = s.dispatch({ type: 'rewind', promptIndex: 2 }, NOW);
    assert.equal(p.error, undefined, JSON.stringify(p.error));
  }
  assert.equal(opened.buildString({ provider: 'anthropic' }).body, replayed.buildString({ provider: 'anthropic' }).body);
  assert.equal(strip(opened.snapshot().log), strip(replayed.snapshot().log));
});

test('fromTail opens a tail from its checkpoint, refuses what is not one, and checks the history given back', async () => {
  const log = longLog(30, 2000, 20);
  const lines = log.trimEnd().split('\n');
  const at = lines.findLastIndex((l) => l.includes('"kind":"checkpoint"'));
  const [head, history, tail] = [lines[0], lines.slice(1, at).join('\n') + '\n', lines.slice(at).join('\n') + '\n'];
  assert.equal(cv.Session.fromTail(head, lines.slice(at + 1).join('\n') + '\n'), null, 'no checkpoint in it');
  const s = cv.Session.fromTail(head, tail);
  assert.equal(s.needsHistory(), true);
  assert.equal(s.buildString({ provider: 'anthropic' }).body, cv.Session.fromLog(log).buildString({ provider: 'anthropic' }).body);
  assert.throws(() => s.snapshot(), (e) => e.code === 'history_needed' && e.details.needs.type === 'history' && e.details.needs.through === s.historyThrough());
  // A command that needs the history waits for it: its effect says what to read, nothing else
  // runs before it, and the answer runs it once.
  const through = s.historyThrough();
  assert.equal(through, JSON.parse(lines[at - 1]).seq);
  const waits = s.dispatch({ type: 'snapshot' }, NOW);
  assert.deepEqual(waits, { id: 1, command: 'snapshot', waiting: { type: 'history', through }, effects: [{ type: 'readHistory', command: 1, through }] });
  assert.deepEqual(s.state().waiting, { command: 1, type: 'snapshot', need: { type: 'history', through } });
  assert.throws(() => s.dispatch({ type: 'flush' }, NOW), (e) => e.code === 'command_waiting');
  assert.throws(() => s.provideRecords(tail), (e) => e.code === 'not_asked');
  assert.throws(() => s.provideHistory(history.split('\n').slice(1).join('\n')), (e) => e.code === 'history_mismatch');
  assert.equal(s.needsHistory(), true, 'a refused history changes nothing');
  const ran = s.provideHistory(history);
  assert.equal(ran.command, 'snapshot');
  assert.equal(ran.waiting, undefined);
  assert.equal(ran.reply.log, log);
  assert.equal(s.state().waiting, undefined);
  assert.throws(() => s.provideHistory(history), (e) => e.code === 'not_asked', 'answered twice');
  assert.equal(s.snapshot().log, log);
  // Driven by a storage that cannot read history back: the command is given up, the call says
  // why as a storage error, and nothing waits after it.
  const lines2 = [head, ...tail.trimEnd().split('\n')];
  const memory = { load: async () => ({ text: lines2.join('\n') + '\n', diagnostics: [] }), append: async (batch) => { lines2.push(...batch); return { written: batch.length, duplicates: 0 }; } };
  const driven = new cv.DurableSession(cv.Session.fromTail(head, tail), memory);
  await assert.rejects(driven.dispatch({ type: 'rewind', promptIndex: 0 }, NOW), (e) => e instanceof cv.StorageError && e.code === 'read_failed' && /no loadHistory/.test(e.message));
  assert.equal(driven.session.state().waiting, undefined);
  // Given up when the history never comes: its own code, and the session takes commands again.
  const gaveUp = cv.Session.fromTail(head, tail);
  assert.equal(gaveUp.dispatch({ type: 'rewind', promptIndex: 0 }, NOW).waiting.type, 'history');
  assert.equal(gaveUp.abandon().error.code, 'records_unavailable');
  assert.equal(gaveUp.abandon(), null);
  assert.equal(gaveUp.dispatch({ type: 'flush' }, NOW).error, undefined);
});

/** Wasm memory grown by opening `log` and building once, in a fresh instance of its own. */
function grown(log) {
  const child = `
    import { readFileSync } from 'node:fs';
    const { initSync, Session } = await import(${JSON.stringify(new URL('../../pkg/web/contextview.js', import.meta.url).href)});
    const wasm = initSync({ module: readFileSync(new URL(${JSON.stringify(new URL('../../pkg/web/contextview_bg.wasm', import.meta.url).href)})) });
    const log = readFileSync(0, 'utf8');
    const before = wasm.memory.buffer.byteLength;
    const s = Session.fromLog(log);
    s.buildString({ provider: 'anthropic' });
    process.stdout.write(String(wasm.memory.buffer.byteLength - before));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', child], { input: log, encoding: 'utf8', maxBuffer: 1 << 20 }));
}

test('what came before the last checkpoint is not held in wasm memory', () => {
  // 16 MB of tool output before the compaction, two results after it.
  const log = longLog(82, 200_000, 80);
  const history = strip(log.slice(0, log.lastIndexOf('"kind":"checkpoint"')));
  assert.ok(history.length > 16_000_000, `${history.length} bytes before the checkpoint`);
  const withCheckpoint = grown(log);
  const replayed = grown(strip(log));
  assert.ok(replayed > history.length, `replayed whole: ${replayed} bytes grown`);
  // What is held is the tail (two results of 200 KB), the items the view reaches and the
  // request built from them: a few times the request, whatever the history's length.
  assert.ok(withCheckpoint < history.length / 4, `opened from the checkpoint: ${withCheckpoint} bytes grown for ${history.length} bytes of history`);
});

test('setCheckpointEvery adds checkpoints by size; they reach storage with the command that wrote past the size', () => {
  const s = cv.Session.create('by-size');
  s.setCheckpointEvery(50_000);
  const kinds = [];
  const run = (command) => {
    const p = s.dispatch(command, NOW);
    assert.equal(p.error, undefined, JSON.stringify(p.error));
    for (const e of p.effects) if (e.type === 'persist') for (const line of e.lines) kinds.push(JSON.parse(line).event?.kind ?? JSON.parse(line).update?.sessionUpdate ?? 'header');
  };
  run({ type: 'switchModel', provider: 'openai-chat', model: 'gpt-4.1', contextWindow: 1000000 });
  run({ type: 'userMessage', text: 'Read everything.' });
  for (let round = 0; round < 12; round++) {
    run({ type: 'assistantResponse', toolCalls: [{ id: `c${round}`, name: 'read', input: {} }] });
    run({ type: 'toolResult', toolCallId: `c${round}`, output: 'x'.repeat(10_000) });
  }
  const checkpoints = kinds.filter((k) => k === 'checkpoint').length;
  // 120 KB of results: a checkpoint after the first 50 KB; the next waits for 50 KB more or the
  // checkpoint's own size, whichever is larger.
  assert.ok(checkpoints >= 1 && checkpoints <= 2, `${checkpoints} checkpoints in ${kinds.length} records`);
  const reopened = cv.Session.fromLog(s.snapshot().log);
  assert.equal(reopened.buildString({ provider: 'openai-chat' }).body, s.buildString({ provider: 'openai-chat' }).body);
  s.setCheckpointEvery(null);
  assert.throws(() => s.setCheckpointEvery(-1), (e) => e.code === 'invalid_argument');
});

test('an imported session is given a checkpoint on demand, stored like any record', async () => {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(new URL('../fixtures/claude-code.jsonl', import.meta.url), 'utf8');
  const { log } = await cv.importSession(text, 'claude-code');
  const s = cv.Session.fromLog(log);
  const seq = s.checkpoint();
  assert.equal(typeof seq, 'number');
  assert.equal(s.checkpoint(), null, 'nothing new to cover');
  const [persist] = s.takeEffects();
  assert.equal(persist.type, 'persist');
  assert.equal(JSON.parse(persist.lines.at(-1)).event.kind, 'checkpoint');
  const reopened = cv.Session.fromLog(log + persist.lines.at(-1) + '\n');
  assert.equal(reopened.recordCount(), s.recordCount());
  assert.equal(reopened.buildString({ provider: 'anthropic' }).body, s.buildString({ provider: 'anthropic' }).body);
});

test('a file storage reads its tail from the end of the file, across read chunks and CRLF lines', async () => {
  const { mkdtempSync, writeFileSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'cv-tail-'));
  try {
    // Lines of 200 KB: the 1 MB reads going back end inside them.
    const log = longLog(46, 200_000, 40);
    const lines = log.trimEnd().split('\n');
    const last = lines.findLastIndex((l) => JSON.parse(l).event?.kind === 'checkpoint');
    const through = JSON.parse(lines[last]).event.through;
    const first = lines.findIndex((l, i) => i > 0 && JSON.parse(l).seq > through);
    const expected = { head: lines[0], tail: lines.slice(first).join('\n') + '\n', through };
    for (const [name, text] of [['lf', log], ['crlf', log.replaceAll('\n', '\r\n')]]) {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, text);
      const storage = cv.nodeFileStorage(path);
      assert.deepEqual(await storage.loadTail(), expected, name);
      assert.equal(await storage.loadHistory(), lines.slice(1, first).join('\n') + '\n', name);
      // openSession starts there; a rewind reads the history from the file.
      const durable = await cv.openSession(storage);
      assert.equal(durable.session.needsHistory(), true, name);
      assert.equal(durable.session.buildString({ provider: 'anthropic' }).body, cv.Session.fromLog(log).buildString({ provider: 'anthropic' }).body, name);
      const p = await durable.dispatch({ type: 'rewind', promptIndex: 1 }, NOW);
      assert.equal(p.error, undefined, JSON.stringify(p.error));
      // The rewind's checkpoint is stored: what it covers is let go again, and read forward
      // from the file by seq (across the reads and the CRLF lines too).
      const through = durable.session.historyThrough();
      assert.equal(typeof through, 'number', name);
      const now = readFileSync(path, 'utf8').replaceAll('\r\n', '\n').split('\n').slice(1).filter((l) => l && JSON.parse(l).seq <= through);
      assert.ok(now.length > first, name);
      assert.equal(await storage.loadHistory(through), now.map((l) => l + '\n').join(''), name);
      assert.equal((await durable.snapshot()).log, readFileSync(path, 'utf8').replaceAll('\r\n', '\n'), name);
    }
    // A torn tail, or no checkpoint: null, and load() says what it found.
    const torn = join(dir, 'torn.jsonl');
    writeFileSync(torn, log + '{"seq":99999,"ts":"x","upd');
    assert.equal(await cv.nodeFileStorage(torn).loadTail(), null);
    const plain = join(dir, 'plain.jsonl');
    writeFileSync(plain, lines.filter((l) => !l.includes('"kind":"checkpoint"')).join('\n') + '\n');
    assert.equal(await cv.nodeFileStorage(plain).loadTail(), null);
    assert.equal(await cv.nodeFileStorage(join(dir, 'missing.jsonl')).loadTail(), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Wasm memory grown by a running session of 80 tool rounds of 200 KB compacted every 10, a
 * build after each, its records acknowledged as stored as it goes; `release`: it lets go of
 * what storage holds (and of the results its requests clear or trim). */
function grownRunning(release) {
  const child = `
    import { readFileSync } from 'node:fs';
    const { initSync, Session } = await import(${JSON.stringify(new URL('../../pkg/web/contextview.js', import.meta.url).href)});
    const wasm = initSync({ module: readFileSync(new URL(${JSON.stringify(new URL('../../pkg/web/contextview_bg.wasm', import.meta.url).href)})) });
    const before = wasm.memory.buffer.byteLength;
    const s = Session.create('running');
    s.setReleaseStored(${release});
    let stored = 0;
    const ok = (command) => {
      const p = s.dispatch(command, ${JSON.stringify(NOW)});
      if (p.error) throw new Error(JSON.stringify(p.error));
      for (const e of [...p.effects, ...s.takeEffects()]) {
        if (e.type !== 'persist') continue;
        for (const line of e.lines) stored += line.length;
        s.ack(e.ticket, 'committed');
      }
    };
    ok({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 });
    for (let round = 0; round < 80; round++) {
      if (round % 10 === 0) ok({ type: 'userMessage', text: 'Task ' + round });
      ok({ type: 'assistantResponse', toolCalls: [{ id: 'c' + round, name: 'read', input: {} }] });
      ok({ type: 'toolResult', toolCallId: 'c' + round, output: 'let x = read(input)?;\\n'.repeat(9100) });
      s.buildString({ provider: 'anthropic' });
      if (round % 10 === 9) {
        ok({ type: 'prepareCompaction', options: { keepRecentTokens: 2000 } });
        ok({ type: 'applyCompaction', summary: ${JSON.stringify(SUMMARY)} });
      }
    }
    s.buildString({ provider: 'anthropic' });
    process.stdout.write(JSON.stringify({ grown: wasm.memory.buffer.byteLength - before, stored, needsHistory: s.needsHistory() }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

test('a running session that lets go of what storage holds does not keep its history in wasm memory', (t) => {
  const kept = grownRunning(false);
  const released = grownRunning(true);
  t.diagnostic(`${kept.stored} bytes stored; wasm memory grew ${kept.grown} bytes holding them, ${released.grown} letting go`);
  assert.ok(kept.stored > 16_000_000 && released.stored === kept.stored, `${kept.stored} and ${released.stored} bytes stored`);
  assert.equal(kept.needsHistory, false);
  assert.equal(released.needsHistory, true, 'the history is with storage');
  // Holding everything costs more than the log; letting go, what ten rounds and their request
  // cost, whatever came before.
  assert.ok(kept.grown > kept.stored * 0.8, `everything held: ${kept.grown} bytes grown`);
  assert.ok(released.grown < kept.stored / 3, `let go: ${released.grown} bytes grown for ${released.stored} bytes stored`);
});

test('a session opened whole lets go of what storage confirmed, and asks for it back by seq', () => {
  const log = longLog(12, 2_000, 5);
  const s = cv.Session.fromLog(strip(log));
  assert.equal(s.historyThrough(), null, 'it holds its history');
  assert.throws(() => s.setReleaseStored('yes'), (e) => e instanceof TypeError && e.code === 'invalid_argument');
  s.setReleaseStored(true);
  let stored = strip(log);
  const run = (command) => {
    const p = s.dispatch(command, NOW);
    assert.equal(p.error, undefined, JSON.stringify(p.error));
    for (const e of [...p.effects, ...s.takeEffects()]) {
      if (e.type !== 'persist') continue;
      stored += e.lines.map((l) => l + '\n').join('');
      s.ack(e.ticket, 'committed');
    }
  };
  run({ type: 'prepareCompaction', options: { keepRecentTokens: 500 } });
  run({ type: 'applyCompaction', summary: SUMMARY });
  assert.equal(s.needsHistory(), true);
  const through = s.historyThrough();
  const lines = stored.trimEnd().split('\n').slice(1);
  assert.equal(through, JSON.parse(lines.at(-1)).seq - 1, 'every record storage confirmed but the last');
  assert.equal(s.recordCount(), lines.length);
  assert.throws(() => s.snapshot(), (e) => e.code === 'history_needed');
  const history = lines.filter((l) => JSON.parse(l).seq <= through).map((l) => l + '\n').join('');
  assert.throws(() => s.provideHistory(history.slice(0, -30)), (e) => e.code === 'history_mismatch');
  s.provideHistory(history);
  assert.equal(s.snapshot().log, stored);
  assert.equal(s.buildString({ provider: 'anthropic' }).body, cv.Session.fromLog(stored).buildString({ provider: 'anthropic' }).body);
});

test('a file storage appends after reading only the ends of the file: its header, and back from its end', async () => {
  const { mkdtempSync, writeFileSync, readFileSync, appendFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'cv-ends-'));
  try {
    const log = longLog(46, 200_000, 40);
    const path = join(dir, 'long.jsonl');
    writeFileSync(path, log);
    const storage = cv.nodeFileStorage(path);
    const durable = await cv.openSession(storage);
    const p = await durable.dispatch({ type: 'userMessage', text: 'Go on.' }, NOW);
    assert.equal(p.error, undefined);
    assert.equal(durable.lastStorageError, null);
    assert.ok(storage.bytesRead < log.length / 4, `opened and appended reading ${storage.bytesRead} of ${log.length} bytes`);
    assert.ok(readFileSync(path, 'utf8').includes('Go on.'), 'the record was appended');
    // A batch sent again is found by reading back from the end: stored once.
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const again = cv.nodeFileStorage(path);
    assert.deepEqual(await again.append(lines.slice(-3)), { written: 0, duplicates: 3 });
    assert.ok(again.bytesRead < log.length / 4, `${again.bytesRead} bytes read`);
    // One that differs from what is stored is refused.
    const changed = JSON.parse(lines.at(-1));
    changed.ts = '2026-12-05T10:00:00Z';
    await assert.rejects(cv.nodeFileStorage(path).append([JSON.stringify(changed)]), (e) => e.code === 'seq_conflict');
    // A torn tail is cut before the next write, found from the end too.
    appendFileSync(path, '{"seq":99999,"ts":"x","upd');
    const after = cv.nodeFileStorage(path);
    const next = { ...JSON.parse(lines.at(-1)), seq: JSON.parse(lines.at(-1)).seq + 1 };
    assert.deepEqual(await after.append([JSON.stringify(next)]), { written: 1, duplicates: 0 });
    assert.ok(after.bytesRead < log.length / 4, `${after.bytesRead} bytes read`);
    const { text, diagnostics } = await after.load();
    assert.deepEqual(diagnostics, []);
    assert.equal(text, lines.join('\n') + '\n' + JSON.stringify(next) + '\n');
    assert.ok(after.bytesRead > text.length, 'load() reads the whole file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a DurableSession lets go of the results its requests clear and reads their records back when a request sends them whole', async () => {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'cv-results-'));
  try {
    const path = join(dir, 'pruned.jsonl');
    const storage = cv.nodeFileStorage(path);
    await assert.rejects(cv.openSession(storage, { sessionId: 'pruned', checkpointEvery: '1MB' }), (e) => e.code === 'invalid_argument');
    const durable = await cv.openSession(storage, { sessionId: 'pruned', checkpointEvery: 60_000 });
    const run = async (command) => {
      const p = await durable.dispatch(command, NOW);
      assert.equal(p.error, undefined, JSON.stringify(p.error));
      return p;
    };
    await run({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 30000 });
    await run({ type: 'userMessage', text: 'Port every module.' });
    const half = 'let token = lexer.next()?;\n'.repeat(110);
    let cleared = [];
    for (let round = 0; round < 40; round++) {
      await run({ type: 'assistantResponse', toolCalls: [{ id: `c${round}`, name: 'read', input: {} }], usage: { inputTokens: 2000 + 1500 * round, outputTokens: 30 } });
      await run({ type: 'toolResult', toolCallId: `c${round}`, output: `// m${round}\n${half}MIDDLE-${round}\n${half}` });
      cleared = (await durable.buildString({ provider: 'anthropic' })).report.pruning.cleared;
    }
    assert.ok(cleared >= 5, `${cleared} results cleared`);
    // Checkpoints by size in a session that prunes and never compacts: each holds what the
    // requests reach, not every output.
    const stored = readFileSync(path, 'utf8').trimEnd().split('\n');
    const checkpoints = stored.filter((l) => l.includes('"kind":"checkpoint"'));
    const records = stored.filter((l) => !l.includes('"kind":"checkpoint"'));
    assert.ok(checkpoints.length >= 2, `${checkpoints.length} checkpoints`);
    const bytes = (lines) => lines.reduce((n, l) => n + l.length, 0);
    assert.ok(checkpoints.at(-1).length < bytes(records) / 4, `the last checkpoint is ${checkpoints.at(-1).length} bytes beside ${bytes(records)} of records`);
    const opened = cv.Session.fromLog(readFileSync(path, 'utf8'));
    assert.equal(opened.buildString({ provider: 'anthropic' }).body, cv.Session.fromLog(records.join('\n') + '\n').buildString({ provider: 'anthropic' }).body, 'opened from it: the same request');
    const replayed = () => cv.Session.fromLog(readFileSync(path, 'utf8'));
    assert.equal((await durable.buildString({ provider: 'anthropic' })).body, replayed().buildString({ provider: 'anthropic' }).body, 'the same request as the log replayed');
    // Pruning off: every result whole; the driver reads their records back from the file.
    const off = { provider: 'anthropic', pruning: { enabled: false } };
    assert.throws(() => durable.session.buildString(off), (e) => e.code === 'history_needed', 'the cleared results were let go');
    const whole = await durable.buildString(off);
    // (The log replayed whole, without its checkpoints: they carry results let go too.)
    assert.equal(whole.body, cv.Session.fromLog(strip(readFileSync(path, 'utf8'))).buildString(off).body);
    // Opened from its text, from a checkpoint carrying results let go: the text it keeps has the
    // records, with no one to ask — through a build and a command alike.
    assert.equal(cv.Session.fromLog(readFileSync(path, 'utf8')).buildString(off).body, whole.body);
    const command = cv.Session.fromLog(readFileSync(path, 'utf8')).dispatch({ type: 'buildRequest', options: off }, NOW);
    assert.equal(command.error, undefined, JSON.stringify(command.error));
    assert.equal(command.reply.body, whole.body);
    assert.ok(whole.body.includes('MIDDLE-0\\n'), 'the oldest result, whole');
    // The plain Session says what to read back, and refuses what is not it.
    const s = cv.Session.fromLog(readFileSync(path, 'utf8'));
    s.setReleaseStored(true);
    s.buildString({ provider: 'anthropic' });
    assert.throws(() => s.buildString(off), (e) => e.code === 'history_needed' && e.details.needs.type === 'records' && e.details.needs.seqs.join() === s.neededRecords().join());
    const seqs = s.neededRecords();
    assert.ok(seqs.length >= 5, `${seqs.length} records to read back`);
    const lines = await storage.loadRecords(seqs);
    assert.equal(lines.trimEnd().split('\n').length, seqs.length);
    assert.throws(() => s.provideRecords(lines.replace('MIDDLE-', 'MIDDLE_')), (e) => e.code === 'history_mismatch');
    assert.throws(() => s.provideRecords(42), (e) => e instanceof TypeError && e.code === 'invalid_argument');
    s.provideRecords(lines);
    assert.deepEqual(s.neededRecords(), []);
    assert.equal(s.buildString(off).body, whole.body);
    // A read-back that fails, or gives torn lines, is a typed error and sends nothing; the next
    // request, storage working again, is whole.
    const reopened = async (loadRecords) => {
      const d = await cv.openSession({ load: storage.load, append: storage.append, loadTail: storage.loadTail, loadHistory: storage.loadHistory, loadRecords });
      await d.buildString({ provider: 'anthropic' });
      return d;
    };
    const failing = await reopened(async () => { throw new cv.StorageError('read_failed', 'the disk is gone'); });
    await assert.rejects(failing.buildString(off), (e) => e.code === 'read_failed');
    const torn = await reopened(async (seqs) => (await storage.loadRecords(seqs)).slice(0, -200));
    await assert.rejects(torn.buildString(off), (e) => e.code === 'history_mismatch');
    assert.equal(torn.session.state().waiting, undefined, 'the build was given up, nothing waits');
    assert.deepEqual(torn.session.neededRecords(), []);
    torn.storage.loadRecords = storage.loadRecords;
    assert.equal((await torn.buildString(off)).body, whole.body);
    // What a failed attempt wrote (a reminder it drained into the log) is stored all the same.
    failing.session.enqueueReminder({ kind: 'diagnostics', text: 'src/m3.rs:1 unused' });
    await assert.rejects(failing.buildString(off), (e) => e.code === 'read_failed');
    assert.deepEqual(failing.session.persistence().pending, [], 'nothing left unstored');
    assert.ok(readFileSync(path, 'utf8').includes('src/m3.rs:1 unused'), 'the drained reminder is in storage');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
