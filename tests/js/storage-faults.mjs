// A storage that fails, through the package's public API, the same in Node (a JSON Lines file
// whose disk is full), Chromium (IndexedDB over its quota) and workerd (a Durable Object whose
// SQL storage throws): each fault rejects the call that wrote with a StorageError naming the
// cause, no request leaves ahead of what storage took, nothing acknowledged is lost, and once
// storage is back the same conversation goes on, nothing written twice.
//
// A case is `{name, run: async (make, check, cv)}` (run by storage-conformance.mjs's runCases).
// `make(key)` gives the runtime's harness over one log: `{storage, breakWrites(), heal(),
// reopen()}` — `breakWrites()` makes the store itself refuse writes the way that runtime's
// store does, `heal()` undoes it, `reopen()` is a new adapter over the same store. No runtime
// built-ins are imported.
import { respond } from './standin.mjs';

const NOW = '2026-12-06T10:00:00Z';
const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 };
const TOOLS = [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];

/** The rejection `promise` ends in, or a failure when it resolves. */
async function rejection(promise, check, what) {
  const outcome = await promise.then((value) => ({ value }), (error) => ({ error }));
  check.ok('error' in outcome, `${what}: resolved (${JSON.stringify(outcome.value)?.slice(0, 200)}) instead of rejecting`);
  return outcome.error;
}

/** The call's error is a StorageError naming its cause, from a store that failed. */
function isStorageFailure(e, cv, check, what) {
  check.ok(e instanceof cv.StorageError && e instanceof cv.ContextviewError, `${what}: a StorageError, not ${e?.stack ?? e}`);
  check.ok(['write_failed', 'timeout'].includes(e.code), `${what}: code ${e.code}`);
  if (e.code === 'write_failed') check.ok(e.cause !== undefined && e.cause !== null, `${what}: the store's own error is its cause`);
  check.ok(e.message.includes('storage did not take'), `${what}: ${e.message}`);
}

/** The log storage holds, read by a new adapter: its records' kinds, and their lines. */
async function stored(h, cv) {
  const reopened = await cv.openSession(h.reopen());
  const log = (await reopened.snapshot()).log;
  const records = log.trim().split('\n').slice(1).map((l) => JSON.parse(l));
  return { reopened, records, prompts: reopened.session.state().prompts.map((p) => p.text ?? p) };
}

/** A fetcher answering as Anthropic does, counting its calls; `before` runs as each starts. */
function standIn(before = () => {}) {
  const fetcher = async (body) => {
    fetcher.calls += 1;
    await before(fetcher.calls, body);
    return respond('anthropic', 'ok', { model: MODEL.model });
  };
  fetcher.calls = 0;
  return fetcher;
}

/** A session over `h`'s log, asked one question, its records stored. */
async function asked(h, cv, sessionId) {
  const d = await cv.openSession(h.storage, { sessionId });
  await d.dispatch({ type: 'switchModel', ...MODEL }, NOW);
  await d.dispatch({ type: 'userMessage', text: 'Why does the parser test fail?' }, NOW);
  return d;
}

/** A storage whose calls do not answer while it hangs (a store that stopped responding). */
function hanging(inner) {
  const hang = { on: false };
  const never = () => new Promise(() => {});
  const storage = {
    load: () => (hang.on ? never() : inner.load()),
    append: (lines) => (hang.on ? never() : inner.append(lines)),
  };
  return { storage, hang };
}

export const faultCases = [
  {
    name: 'a command storage does not take rejects, naming the cause; nothing runs after it until it is stored; the same command again stores it once',
    async run(make, check, cv) {
      const h = make('commands');
      const d = await asked(h, cv, 'faults-1');
      await h.breakWrites();
      const second = { type: 'userMessage', text: 'And the lexer test?' };
      const e = await rejection(d.dispatch(second, NOW), check, 'the command');
      isStorageFailure(e, cv, check, 'the command');
      check.equal(e.processed?.command, 'userMessage', 'what the command did in memory');
      check.ok(e.unstored.length > 0, 'the records storage has not confirmed');
      // Nothing goes ahead of them: another command, and a turn, reject before they run.
      const records = d.session.recordCount();
      const other = await rejection(d.dispatch({ type: 'recordEditedPath', path: '/repo/src/lexer.rs' }, NOW), check, 'the next command');
      check.equal(other.processed, null, 'the next command did not run');
      const fetcher = standIn();
      const turn = await rejection(d.send(fetcher, { build: { tools: TOOLS }, now: NOW }).done(), check, 'the turn');
      check.ok(turn instanceof cv.StorageError, `the turn: ${turn}`);
      check.equal(fetcher.calls, 0, 'no request left ahead of storage');
      check.equal(d.session.recordCount(), records, 'nothing written ahead of storage');
      // Storage back: the same command again stores what it wrote and is not run twice.
      await h.heal();
      const again = await d.dispatch(second, NOW);
      check.equal(again, e.processed, 'the first run, stored now');
      const done = await d.send(fetcher, { build: { tools: TOOLS }, now: NOW }).done();
      check.deepEqual(done.toolCalls.map((c) => c.name), ['read_file'], 'the conversation goes on');
      const { prompts, records: held } = await stored(h, cv);
      check.deepEqual(prompts, ['Why does the parser test fail?', 'And the lexer test?'], 'each prompt once');
      check.equal(held.filter((r) => r.event?.kind === 'answer_end').length, 1, 'the answer once');
    },
  },
  {
    name: 'a turn whose answer storage does not take stops at once; done() again, storage back, finishes it without sending again',
    async run(make, check, cv) {
      const h = make('answer');
      const d = await asked(h, cv, 'faults-2');
      // The build's records are stored; the store fails while the answer arrives.
      const fetcher = standIn(() => h.breakWrites());
      const turn = d.send(fetcher, { build: { tools: TOOLS }, now: NOW });
      const e = await rejection(turn.done(), check, 'the turn');
      isStorageFailure(e, cv, check, 'the turn');
      check.equal(e.processed?.command, 'endAnswer', 'the answer, as it was recorded in memory');
      check.equal(fetcher.calls, 1, 'one request');
      // Still failing: done() says so again, and sends nothing.
      const still = await rejection(turn.done(), check, 'done() while storage fails');
      check.ok(still instanceof cv.StorageError, `${still}`);
      await h.heal();
      const result = await turn.done();
      check.deepEqual(result.toolCalls.map((c) => [c.id, c.name]), [['toolu_01Read', 'read_file']], 'the turn ends with its call');
      check.equal(fetcher.calls, 1, 'the request was not sent again');
      const { records } = await stored(h, cv);
      check.equal(records.filter((r) => r.event?.kind === 'answer_end').length, 1, 'the answer stored once');
      check.equal(records.filter((r) => r.update?.sessionUpdate === 'tool_call').length, 1, 'its call stored once');
    },
  },
  {
    name: 'a build storage does not take sends nothing; done() again, storage back, sends it',
    async run(make, check, cv) {
      const h = make('build');
      const d = await asked(h, cv, 'faults-3');
      // The build drains a reminder into the log: that write fails.
      d.session.enqueueReminder({ kind: 'diagnostics', text: 'src/parser.rs:12: unused variable `t`' });
      await h.breakWrites();
      const fetcher = standIn();
      const turn = d.send(fetcher, { build: { tools: TOOLS }, now: NOW });
      const e = await rejection(turn.done(), check, 'the turn');
      isStorageFailure(e, cv, check, 'the turn');
      check.equal(fetcher.calls, 0, 'nothing sent ahead of the reminder');
      await h.heal();
      const result = await turn.done();
      check.equal(result.toolCalls.length, 1);
      check.equal(fetcher.calls, 1, 'sent once, with the reminder');
      const { records } = await stored(h, cv);
      check.equal(records.filter((r) => r.event?.kind === 'reminder_injected').length, 1, 'the reminder stored once');
    },
  },
  {
    name: 'a storage that does not answer: the call rejects with a timeout, and the same call goes on once it answers',
    async run(make, check, cv) {
      const h = make('hang');
      const { storage, hang } = hanging(h.storage);
      const d = await cv.openSession(storage, { sessionId: 'faults-4', storageTimeoutMs: 200 });
      await d.dispatch({ type: 'switchModel', ...MODEL }, NOW);
      hang.on = true;
      const prompt = { type: 'userMessage', text: 'Why does the parser test fail?' };
      const e = await rejection(d.dispatch(prompt, NOW), check, 'the command');
      check.ok(e instanceof cv.StorageError && e.code === 'timeout', `a timeout, not ${e}`);
      check.ok(e.message.includes('within 200 ms'), e.message);
      hang.on = false;
      await d.dispatch(prompt, NOW);
      const { prompts } = await stored(h, cv);
      check.deepEqual(prompts, ['Why does the parser test fail?'], 'stored once');
    },
  },
  {
    name: "a subagent whose storage fails is not started: openSubagent rejects, and once storage is back the child is made",
    async run(make, check, cv) {
      const parentStorage = make('parent');
      const parent = await cv.openSession(parentStorage.storage, { sessionId: 'faults-5' });
      await parent.dispatch({ type: 'switchModel', ...MODEL }, NOW);
      await parent.dispatch({ type: 'userMessage', text: 'Audit the crate.' }, NOW);
      await parent.dispatch({ type: 'assistantResponse', toolCalls: [{ id: 'call_1', name: 'Task', input: { prompt: 'Audit it' } }] }, NOW);
      const started = await parent.dispatch({ type: 'startSubagent', toolCallId: 'call_1', task: 'Audit it' }, NOW);
      check.equal(started.error, undefined);
      const child = started.reply.child;
      check.equal(child.storageName, 'faults-5%2Fcall_1', 'a storage name safe for its id');
      const h = make(child.storageName);
      await h.breakWrites();
      const e = await rejection(cv.openSubagent(child, h.storage), check, 'openSubagent');
      isStorageFailure(e, cv, check, 'openSubagent');
      await h.heal();
      const made = await cv.openSubagent(child, h.reopen());
      check.equal(made.session.state().parentCallId, 'call_1');
      const { records } = await stored(h, cv);
      check.ok(records.some((r) => r.update?.sessionUpdate === 'user_message_chunk' && r.update.content.text === 'Audit it'), 'the child\'s task is stored');
    },
  },
];
