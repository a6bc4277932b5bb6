// The durable session over each runtime's storage: the same cases in Node (file), Chromium
// (IndexedDB) and workerd (Durable Object), with faults injected between the session and storage.
// A case is `{name, run: async (makeStorage, check, cv)}` where `cv` is the package entry of the
// runtime (`openSession`, `Session`, `buildRequestString`). No runtime built-ins are imported.
import { faultyStorage } from '../../pkg-template/storage.mjs';

const NOW = '2026-12-02T10:00:00Z';
const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 };

const SUMMARY = [
  '## Goal', 'Make the parser accept trailing commas.', '## Constraints', 'Keep the public API.',
  '## Progress', '### Done', 'Read parser.rs and found the loop.', '### In progress', 'None', '### Blocked', 'None',
  '## Decisions', 'Fix it in the tokenizer.', '## Next steps', 'Add a regression test.', '## Files', 'src/parser.rs',
  '## Pending actions', 'None',
].join('\n');

/** The commands of a short agent session: model, heads, two prompts with a tool loop. */
function script() {
  return [
    { type: 'switchModel', ...MODEL },
    { type: 'setPromptContext', context: { label: 'Forge', cwd: '/repo', tools: ['read'], os: 'linux' } },
    { type: 'userMessage', text: 'Make the parser accept trailing commas.' },
    { type: 'assistantResponse', text: 'Reading the parser.', toolCalls: [{ id: 'c1', name: 'read', input: { path: 'src/parser.rs' } }], usage: { inputTokens: 900, outputTokens: 30 } },
    { type: 'toolResult', toolCallId: 'c1', output: 'fn parse(tokens: &[Token]) { /* … */ }' },
    { type: 'assistantResponse', text: 'The loop stops at the comma; fixing it.', toolCalls: [{ id: 'c2', name: 'read', kind: 'edit', paths: ['/repo/src/parser.rs'], input: {} }] },
    { type: 'toolResult', toolCallId: 'c2', output: 'edited' },
    { type: 'enqueueReminder', reminder: { kind: 'diagnostics', text: 'src/parser.rs:12: unused variable `t`' } },
    { type: 'buildRequest' },
    { type: 'assistantResponse', text: 'Done.', usage: { inputTokens: 1400, outputTokens: 12 } },
    { type: 'userMessage', text: 'Now add a test.' },
  ];
}

async function drive(d, commands, check) {
  for (const command of commands) {
    const p = await d.dispatch(command, NOW);
    check.equal(p.error, undefined, `${command.type} failed: ${p.error?.message}`);
  }
}

/** The next request a session would send, without writing anything. */
async function nextBody(cv, d) {
  return cv.buildRequestString({ log: (await d.snapshot()).log, ...MODEL }).body;
}

async function storedText(storage) {
  const { text, diagnostics } = await storage.load();
  return { text, diagnostics };
}

/** The session's whole log: what it let go of read back from `storage` (a working view of it). */
async function fullLog(d, storage) {
  if (d.session.needsHistory()) d.session.provideHistory(await storage.loadHistory(d.session.historyThrough()));
  return d.session.snapshot().log;
}

/** Memory and storage hold the same log, and memory claims exactly what storage holds. */
async function converged(d, storage, check, label = '') {
  const { text, diagnostics } = await storedText(storage);
  check.deepEqual(diagnostics, [], `${label} storage loads clean`);
  // The driver's snapshot reads back what the session let go of.
  const held = (await d.snapshot()).log;
  check.equal(held, text, `${label} memory equals storage`);
  const p = d.session.persistence();
  const last = held.trim().split('\n').length - 1;
  check.equal(p.committedThrough, last, `${label} everything committed`);
  check.deepEqual(p.pending, [], `${label} nothing pending`);
}

export const sessionCases = [
  {
    name: 'a session persists through storage and reopens to the same next request',
    async run(make, check, cv) {
      const notified = [];
      const due = [];
      const d = await cv.openSession(make('k'), { sessionId: 'conf-1', onNotify: (n) => notified.push(n), onCompactionDue: (e) => due.push(e) });
      await drive(d, script(), check);
      await converged(d, make('k'), check);
      check.ok(notified.length > 0 && notified.every((n) => n.sessionId === 'conf-1' && n.update.sessionUpdate === 'usage_update'), 'the client hears usage_update');
      check.equal(due.length, 0, 'nothing to compact in a 200k window');
      const reopened = await cv.openSession(make('k'));
      check.equal(await nextBody(cv, reopened), await nextBody(cv, d), 'same next request');
      check.equal(reopened.session.state().prompts.length, 2);
      check.deepEqual(reopened.session.state().editedPaths, ['/repo/src/parser.rs']);
      // A build stores what it drained into the log (a reminder) before it resolves.
      check.equal(d.session.enqueueReminder({ kind: 'diagnostics', text: 'src/parser.rs:3: unused import' }), true);
      const built = await d.buildString({ provider: 'anthropic', model: 'claude-sonnet-4-5', now: NOW });
      check.ok(built.body.includes('unused import'), 'the reminder is in the body');
      await converged(d, make('k'), check, 'after a durable build:');
      // A direct call on the session leaves its effects in the queue; settle() performs them.
      check.equal(d.session.enqueueReminder({ kind: 'diagnostics', text: 'src/parser.rs:9: unused variable' }), true);
      d.session.buildString({ provider: 'anthropic', model: 'claude-sonnet-4-5', now: NOW });
      await d.settle();
      await converged(d, make('k'), check, 'after settle:');
      // A switch to a window too small for the context asks for a compaction.
      await drive(d, [{ type: 'switchModel', provider: 'anthropic', model: 'claude-haiku-small', contextWindow: 1200 }], check);
      check.deepEqual(due.map((e) => e.reason), ['model_switch']);
    },
  },
  {
    name: 'a failed write rejects the command that wrote; the same command again stores it once, and nothing runs ahead of it',
    async run(make, check, cv) {
      const storage = faultyStorage(make('k'), [null, 'write_failure', 'write_failure', null, null, 'write_failure']);
      const d = await cv.openSession(storage, { sessionId: 'conf-2' });
      const commands = script();
      await drive(d, commands.slice(0, 1), check);
      // The second command's records are not stored: the call says so, with what it did.
      const first = await d.dispatch(commands[1], NOW).then(() => null, (e) => e);
      check.ok(first instanceof cv.StorageError, `a StorageError, not ${first}`);
      check.equal(first.code, 'write_failed');
      check.equal(first.processed?.command, 'setPromptContext', 'what the command did in memory');
      check.deepEqual(first.unstored, d.session.persistence().pending.map((p) => p.seq), 'the records storage has not confirmed');
      check.ok(first.unstored.length > 0);
      // Another command first stores what is pending; storage still fails: it does not run.
      const records = d.session.recordCount();
      const second = await d.dispatch(commands[2], NOW).then(() => null, (e) => e);
      check.equal(second?.code, 'write_failed');
      check.equal(second.processed, null, 'the command did not run');
      check.equal(d.session.recordCount(), records, 'nothing written ahead of storage');
      // Storage is back: the same command again stores what it wrote, and is not run twice.
      const again = await d.dispatch(commands[1], NOW);
      check.equal(again, first.processed, 'the first run\'s processed, stored now');
      await drive(d, commands.slice(2, 3), check);
      // A write that fails later: flush() reports it, and stores it once storage is back.
      const third = await d.dispatch(commands[3], NOW).then(() => null, (e) => e);
      check.equal(third?.code, 'write_failed');
      await d.flush(NOW);
      await drive(d, commands.slice(4), check);
      await converged(d, make('k'), check);
      // What storage holds is the script once: no prompt twice.
      const reopened = await cv.openSession(make('k'));
      check.equal(reopened.session.state().prompts.length, 2, 'each prompt once');
    },
  },
  {
    name: 'a lost acknowledgement is settled by reconcile',
    async run(make, check, cv) {
      const storage = faultyStorage(make('k'), [null, null, 'lost_ack']);
      const d = await cv.openSession(storage, { sessionId: 'conf-3' });
      await drive(d, script().slice(0, 2), check);
      const lost = await d.dispatch(script()[2], NOW).then(() => null, (e) => e);
      check.equal(lost?.code, 'write_failed', 'the lost answer is no answer');
      check.equal(lost.cause?.code, 'ack_lost');
      check.ok(d.session.persistence().pending.some((p) => p.state === 'indeterminate'), 'the lost answer is indeterminate');
      const r = await d.reconcile();
      check.equal(r.dropped.length, 0);
      check.equal(r.resent, 0, 'storage had it');
      await converged(d, make('k'), check);
    },
  },
  {
    name: 'a duplicate delivery is stored once',
    async run(make, check, cv) {
      const storage = faultyStorage(make('k'), ['duplicate_delivery', 'duplicate_delivery', 'duplicate_delivery']);
      const d = await cv.openSession(storage, { sessionId: 'conf-4' });
      await drive(d, script(), check);
      await converged(d, make('k'), check);
    },
  },
  {
    name: 'a crash between write and acknowledgement: the reopened session has the records',
    async run(make, check, cv) {
      const storage = faultyStorage(make('k'), [null, null, null, 'crash_after_write']);
      const d = await cv.openSession(storage, { sessionId: 'conf-5' });
      await drive(d, script().slice(0, 3), check);
      const crashed = await d.dispatch(script()[3], NOW).then(() => null, (e) => e);
      check.equal(crashed?.cause?.code, 'crashed');
      check.equal(d.lastStorageError?.code, 'crashed');
      // The process is gone; a new one opens what storage holds.
      const reopened = await cv.openSession(make('k'));
      check.equal(await fullLog(reopened, make('k')), await fullLog(d, make('k')), 'the written batch survived');
      await drive(reopened, script().slice(4), check);
      await converged(reopened, make('k'), check, 'after going on:');
    },
  },
  {
    name: 'a torn last write: the reopened session keeps everything before it and goes on',
    async run(make, check, cv) {
      const storage = faultyStorage(make('k'), [null, null, null, { fault: 'torn_write', keepFraction: 0.4 }]);
      const d = await cv.openSession(storage, { sessionId: 'conf-6' });
      await drive(d, script().slice(0, 3), check);
      const torn = await d.dispatch(script()[3], NOW).then(() => null, (e) => e);
      check.equal(torn?.cause?.code, 'crashed', 'the torn write is no answer');
      const reopened = await cv.openSession(make('k'));
      check.deepEqual(reopened.loadDiagnostics.map((x) => x.code), ['torn_tail']);
      const held = await fullLog(reopened, make('k'));
      // What the first session wrote: its own records, those storage confirmed read back.
      const written = await fullLog(d, make('k'));
      check.ok(written.startsWith(held) && held.length < written.length, 'a prefix of what was written');
      // The lost records are the reopened session's to write again: it redoes the step.
      const lost = written.slice(held.length).trim().split('\n').length;
      check.ok(lost >= 1);
      await drive(reopened, script().slice(3), check);
      await converged(reopened, make('k'), check);
    },
  },
  {
    name: 'a second writer: the stale session reconciles and hands back what storage refused',
    async run(make, check, cv) {
      const a = await cv.openSession(make('k'), { sessionId: 'conf-8' });
      await drive(a, script().slice(0, 3), check);
      const b = await cv.openSession(make('k'));
      await drive(a, [{ type: 'userMessage', text: 'written by A' }], check);
      // B's prompt is not stored: storage holds A's under its seq. The call says so.
      const e = await b.dispatch({ type: 'userMessage', text: 'written by B' }, NOW).then(() => null, (x) => x);
      check.ok(e instanceof cv.StorageError, `a StorageError, not ${e}`);
      check.equal(e.code, 'seq_conflict');
      check.equal(b.lastStorageError?.code, 'seq_conflict');
      check.ok(e.reconciled, 'the driver reconciled');
      check.equal(e.reconciled.dropped.length, 1);
      check.ok(e.reconciled.dropped[0].includes('written by B'), 'B gets its line back');
      check.equal(e.processed?.command, 'userMessage', 'what B\'s command did before storage refused it');
      check.ok((await fullLog(b, make('k'))).includes('written by A'), 'B now holds what A wrote');
      await converged(b, make('k'), check, 'B:');
    },
  },
  {
    name: 'the log replays to the same next request across compaction and rewind',
    async run(make, check, cv) {
      const d = await cv.openSession(make('k'), { sessionId: 'conf-7' });
      await drive(d, script(), check);
      const prepared = await d.dispatch({ type: 'prepareCompaction', options: { keepRecentTokens: 20 } }, NOW);
      check.equal(prepared.reply?.type, 'compaction');
      check.ok(prepared.reply.prompt.includes('## Pending actions'));
      await drive(d, [{ type: 'applyCompaction', summary: SUMMARY }], check);
      const compacted = await nextBody(cv, d);
      check.ok(compacted.includes('<compaction_summary>\\n## Goal'), 'the summary is in the view');
      check.equal(await nextBody(cv, await cv.openSession(make('k'))), compacted, 'after compaction');
      await drive(d, [{ type: 'rewind', promptIndex: 1 }, { type: 'userMessage', text: 'Add a benchmark instead.' }], check);
      const rewound = await nextBody(cv, d);
      check.ok(!rewound.includes('<compaction_summary>\\n') && rewound.includes('Add a benchmark instead.'), 'the rewind undid the compaction');
      check.equal(await nextBody(cv, await cv.openSession(make('k'))), rewound, 'after rewind');
      await converged(d, make('k'), check);
    },
  },
  {
    name: 'a session reopens from its last checkpoint and reads the history only when a rewind needs it',
    async run(make, check, cv) {
      const d = await cv.openSession(make('k'), { sessionId: 'conf-8' });
      await drive(d, script(), check);
      await drive(d, [{ type: 'prepareCompaction', options: { keepRecentTokens: 20 } }, { type: 'applyCompaction', summary: SUMMARY }], check);
      await drive(d, [{ type: 'userMessage', text: 'Then a benchmark.' }], check);
      const tail = typeof make('k').loadTail === 'function';
      if (tail) {
        // The history is the part before the tail a loadTail() found: asked first, it is refused.
        let refused = null;
        await make('k').loadHistory().catch((e) => { refused = e; });
        check.equal(refused?.code, 'read_failed', 'loadHistory() before loadTail()');
      }
      const reopened = await cv.openSession(make('k'));
      check.equal(reopened.session.needsHistory(), tail, tail ? 'opened from the tail: the history stays in storage' : 'read whole');
      const build = (s) => s.buildString({ provider: 'anthropic', model: 'claude-sonnet-4-5', now: NOW }).body;
      check.equal(build(reopened.session), build(d.session), 'the same next request');
      for (const s of [d, reopened]) await drive(s, [{ type: 'rewind', promptIndex: 1 }], check);
      // The rewind read the history; its own checkpoint stored, what that covers is let go again.
      check.equal(reopened.session.needsHistory(), tail, tail ? 'let go again after the rewind' : 'held');
      check.equal(build(reopened.session), build(d.session), 'the same request after a rewind across the compaction');
      check.equal((await reopened.snapshot()).log, (await d.snapshot()).log);
    },
  },
  {
    name: 'a running session lets go of what storage holds through its last checkpoint, and reads it back by seq',
    async run(make, check, cv) {
      const d = await cv.openSession(make('k'), { sessionId: 'conf-9' });
      await drive(d, script(), check);
      const before = d.session.recordCount();
      await drive(d, [{ type: 'prepareCompaction', options: { keepRecentTokens: 20 } }, { type: 'applyCompaction', summary: SUMMARY }], check);
      await drive(d, [{ type: 'userMessage', text: 'Then a benchmark.' }], check);
      const storage = make('k');
      const reads = typeof storage.loadHistory === 'function';
      check.equal(d.session.needsHistory(), reads, reads ? 'let go: storage reads it back' : 'held: storage cannot read it back');
      const { text } = await storage.load();
      const lines = text.trimEnd().split('\n').slice(1);
      if (reads) {
        const through = d.session.historyThrough();
        check.ok(Number.isInteger(through) && through > before, `through ${through}, after the ${before} records before the compaction`);
        const expected = lines.filter((l) => JSON.parse(l).seq <= through).map((l) => l + '\n').join('');
        check.equal(await storage.loadHistory(through), expected, 'loadHistory(through): the records up to it');
        check.equal(await storage.loadHistory(0), '', 'loadHistory(0): none');
        // Single records, as a session names them to read back results it let go.
        const some = [lines[3], lines[1]].map((l) => JSON.parse(l).seq);
        const expectedRecords = lines.filter((l) => some.includes(JSON.parse(l).seq)).map((l) => l + '\n').join('');
        check.equal(await storage.loadRecords([...some, 99999]), expectedRecords, 'loadRecords(seqs): those records, in seq order');
        check.equal(await storage.loadRecords([]), '', 'loadRecords([]): none');
        let bad = null;
        await storage.loadRecords([1.5]).catch((e) => { bad = e; });
        check.equal(bad?.code, 'invalid_argument', 'a seq that is not one');
        let refused = null;
        await storage.loadHistory(-1).catch((e) => { refused = e; });
        check.equal(refused?.code, 'invalid_argument', 'a seq that is not one');
      }
      const build = (s) => s.buildString({ provider: 'anthropic', model: 'claude-sonnet-4-5', now: NOW }).body;
      const reopened = await cv.openSession(make('k'));
      check.equal(build(d.session), build(reopened.session), 'it builds what the log opened again builds');
      check.equal((await d.snapshot()).log, text, 'its snapshot reads the history back');
      for (const s of [d, reopened]) await drive(s, [{ type: 'rewind', promptIndex: 1 }, { type: 'userMessage', text: 'Add a benchmark instead.' }], check);
      check.equal(build(d.session), build(reopened.session), 'a rewind across the compaction, the history read back');
      await converged(d, make('k'), check);
    },
  },
];
