// The session-log storage conformance suite, shared by every adapter and runtime: Node
// (storage.test.mjs, JSON Lines file), Chromium (storage-page.html, IndexedDB) and workerd
// (tests/workerd/worker.mjs, Durable Object SQL). It imports no runtime built-ins.
//
// A case is `{name, run: async (makeStorage, check) => {}}`. `makeStorage(key)` returns a new
// adapter instance; the same key gives the same backing store (so a case can "reopen" storage
// after a crash), a new or omitted key a fresh, empty one. runCases() scopes keys to the case,
// so every case starts from empty storage.
import { faultyStorage } from '../../pkg-template/storage.mjs';

// ---------------------------------------------------------------------------------------------
// Lines

const TS = '2026-01-01T00:00:00Z';

/** A header line for session `sessionId`. */
export const header = (sessionId = 'conformance') =>
  JSON.stringify({ format: 'contextview.session-log', version: 1, sessionId });

/** Record line `n`; `variant` changes its content but not its seq. */
export const record = (n, variant = 1) =>
  `{"seq":${n},"ts":"${TS}","event":{"kind":"usage_anchor","inputTokens":${n},"outputTokens":${variant}}}`;

/** A record with non-ASCII text and JSON escapes, to check that lines are stored byte for byte. */
export const unicodeRecord = (n) =>
  `{"seq":${n},"ts":"${TS}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"h\u00e9llo \u2192 \u2713 \ud83d\ude42 \\u2028 \\\" \\\\ tab\\t"}}}`;

/** Records `from`..`to`, inclusive. */
export const records = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => record(from + i));

/** The JSON Lines text of `lines`. */
export const textOf = (lines) => (lines.length ? lines.join('\n') + '\n' : '');

// ---------------------------------------------------------------------------------------------
// Assertions

class CheckFailure extends Error {
  name = 'CheckFailure';
}

function show(value) {
  let s;
  try {
    s = JSON.stringify(value);
  } catch {
    s = String(value);
  }
  s ??= String(value);
  return s.length > 400 ? `${s.slice(0, 400)}… (${s.length} chars)` : s;
}

const failure = (message, detail) => new CheckFailure(message ? `${message}: ${detail}` : detail);

/** For two different strings: where they first differ, with some context from each. */
function stringDiff(actual, expected) {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  const from = Math.max(0, i - 60);
  const window = (s) => show(s.slice(from, i + 60));
  return `strings differ at index ${i} (lengths ${actual.length} and ${expected.length}): ` +
    `got …${window(actual)}…, expected …${window(expected)}…`;
}

/** A small assertion helper that works in every runtime. */
export const check = {
  /** Fails unless `value` is truthy. */
  ok(value, message) {
    if (!value) throw failure(message, `expected a truthy value, got ${show(value)}`);
  },
  /** Fails unless `actual` and `expected` are the same value (Object.is). */
  equal(actual, expected, message) {
    if (Object.is(actual, expected)) return;
    if (typeof actual === 'string' && typeof expected === 'string') throw failure(message, stringDiff(actual, expected));
    throw failure(message, `got ${show(actual)}, expected ${show(expected)}`);
  },
  /** Fails unless `actual` and `expected` have the same JSON. */
  deepEqual(actual, expected, message) {
    const a = show(actual);
    const e = show(expected);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) throw failure(message, `got ${a}, expected ${e}`);
  },
  /**
   * Fails unless `promise` (or the promise `promise()` returns) rejects, with `code` when given.
   * Resolves to the rejection.
   */
  async rejects(promise, code, message) {
    try {
      await (typeof promise === 'function' ? promise() : promise);
    } catch (e) {
      if (code !== undefined && e?.code !== code) {
        throw failure(message, `rejected with code ${show(e?.code)} (${e?.message}), expected code ${show(code)}`);
      }
      return e;
    }
    throw failure(message, `resolved, expected a rejection${code === undefined ? '' : ` with code ${show(code)}`}`);
  },
};

/** Loads `storage` and checks that it holds exactly `lines`, with no diagnostics. */
async function expectLog(storage, lines, message = 'load') {
  const loaded = await storage.load();
  check.equal(loaded.text, textOf(lines), `${message}: text`);
  check.deepEqual(loaded.diagnostics, [], `${message}: diagnostics`);
}

const codes = (diagnostics) => diagnostics.map((d) => d.code);

// ---------------------------------------------------------------------------------------------
// Cases

/** Tears the last line of `[r(3), r(4)]` after `[h, r1, r2]` are stored; returns the key. */
async function tornAfterTwo(make, keepFraction) {
  const f = faultyStorage(await make('torn'), [null, { fault: 'torn_write', keepFraction }]);
  await f.append([header(), ...records(1, 2)]);
  await check.rejects(f.append(records(3, 4)), 'crashed', 'the torn write crashes');
  await check.rejects(f.load(), 'crashed', 'a crashed storage does not answer');
  return 'torn';
}

/** @type {{name: string, run: (makeStorage: (key?: string) => any, c: typeof check) => Promise<void>}[]} */
export const storageCases = [
  {
    name: 'load of empty storage',
    async run(make, check) {
      const s = await make();
      check.deepEqual(await s.load(), { text: '', diagnostics: [] });
      check.deepEqual(await s.load(), { text: '', diagnostics: [] }, 'a second load');
    },
  },
  {
    name: 'an empty batch writes nothing',
    async run(make, check) {
      const s = await make();
      check.deepEqual(await s.append([]), { written: 0, duplicates: 0 });
      await expectLog(s, []);
      await s.append([header(), record(1)]);
      check.deepEqual(await s.append([]), { written: 0, duplicates: 0 }, 'on a non-empty log');
      await expectLog(s, [header(), record(1)]);
    },
  },
  {
    name: 'header and records round-trip byte-identical',
    async run(make, check) {
      const s = await make();
      const lines = [header(), record(1), unicodeRecord(2), record(3)];
      check.deepEqual(await s.append(lines), { written: 4, duplicates: 0 });
      await expectLog(s, lines);
      const more = [unicodeRecord(4), record(5)];
      check.deepEqual(await s.append(more), { written: 2, duplicates: 0 });
      await expectLog(s, [...lines, ...more], 'after a second append');
    },
  },
  {
    name: 'reopen sees the same text and continues the log',
    async run(make, check) {
      const lines = [header(), ...records(1, 3)];
      const a = await make('k');
      await a.append(lines);
      const b = await make('k');
      await expectLog(b, lines, 'reopened');
      check.deepEqual(await b.append([record(4)]), { written: 1, duplicates: 0 }, 'append on the reopened storage');
      await expectLog(await make('k'), [...lines, record(4)], 'reopened again');
      await expectLog(await make('other'), [], 'another key is another, empty store');
    },
  },
  {
    name: 'two instances on one store, used in turn, see each other\'s appends',
    async run(make, check) {
      const a = await make('k');
      const b = await make('k');
      check.deepEqual(await a.append([header(), record(1)]), { written: 2, duplicates: 0 });
      check.deepEqual(await b.append([record(1), record(2)]), { written: 1, duplicates: 1 });
      check.deepEqual(await a.append([record(2), record(3)]), { written: 1, duplicates: 1 }, 'a after b');
      await check.rejects(b.append([record(3, 9)]), 'seq_conflict', 'b after a');
      check.deepEqual(await b.append([record(4)]), { written: 1, duplicates: 0 });
      await expectLog(a, [header(), ...records(1, 4)], 'a');
      await expectLog(b, [header(), ...records(1, 4)], 'b');
    },
  },
  {
    name: 'a duplicate append is a no-op counted as duplicates',
    async run(make, check) {
      const lines = [header(), ...records(1, 3)];
      const s = await make('k');
      await s.append(lines);
      check.deepEqual(await s.append(lines), { written: 0, duplicates: 4 });
      check.deepEqual(await s.append(records(2, 3)), { written: 0, duplicates: 2 }, 'records only');
      const reopened = await make('k');
      check.deepEqual(await reopened.append(lines), { written: 0, duplicates: 4 }, 'on a reopened storage, before any load');
      await expectLog(reopened, lines);
    },
  },
  {
    name: 'a partially duplicated batch writes only the new lines',
    async run(make, check) {
      const s = await make();
      await s.append([header(), ...records(1, 2)]);
      check.deepEqual(await s.append([header(), ...records(1, 4)]), { written: 2, duplicates: 3 });
      check.deepEqual(await s.append([record(5), record(5), record(6)]), { written: 2, duplicates: 1 }, 'a repeat inside the batch');
      await expectLog(s, [header(), ...records(1, 6)]);
    },
  },
  {
    name: 'seq_conflict: different content under a stored seq',
    async run(make, check) {
      const lines = [header(), ...records(1, 3)];
      const s = await make('k');
      await s.append(lines);
      await check.rejects(s.append([record(2, 9)]), 'seq_conflict', 'a stored seq');
      await check.rejects(s.append([record(3), record(4), record(4, 9)]), 'seq_conflict', 'a seq earlier in the batch');
      await check.rejects((await make('k')).append([record(3, 9)]), 'seq_conflict', 'on a reopened storage');
      await expectLog(s, lines);
    },
  },
  {
    name: 'seq_gap: a record beyond last seq + 1',
    async run(make, check) {
      const lines = [header(), ...records(1, 2)];
      const s = await make();
      await s.append(lines);
      await check.rejects(s.append([record(4)]), 'seq_gap');
      await check.rejects(s.append([record(3), record(5)]), 'seq_gap', 'a gap inside the batch');
      await expectLog(s, lines);
      const empty = await make();
      await check.rejects(empty.append([header(), record(2)]), 'seq_gap', 'the first record is not seq 1');
      await expectLog(empty, [], 'nothing written');
    },
  },
  {
    name: 'missing_header: records before any header',
    async run(make, check) {
      const s = await make();
      await check.rejects(s.append([record(1)]), 'missing_header');
      await check.rejects(s.append([record(1), header()]), 'missing_header', 'the header after the record');
      await expectLog(s, []);
      check.deepEqual(await s.append([header(), record(1)]), { written: 2, duplicates: 0 }, 'then with the header');
    },
  },
  {
    name: 'header_conflict: a different header',
    async run(make, check) {
      const s = await make();
      await s.append([header('a'), record(1)]);
      await check.rejects(s.append([header('b')]), 'header_conflict');
      await check.rejects(s.append([header('b'), record(2)]), 'header_conflict', 'with a record');
      await expectLog(s, [header('a'), record(1)]);
      check.deepEqual(await s.append([header('a'), record(2)]), { written: 1, duplicates: 1 }, 'the same header is a duplicate');
    },
  },
  {
    name: 'invalid_line: not a JSON object with a numeric seq, nor a header',
    async run(make, check) {
      const bad = [
        'not json', '', '   ', '[1,2]', '"text"', '42', 'null', '{"seq":"1","ts":"x"}', '{"seq":0}', '{"seq":-1}',
        '{"seq":1.5}', '{"ts":"no seq"}', '{"format":"other","version":1,"sessionId":"s"}',
        '{"format":"contextview.session-log","sessionId":"s"}', `${record(1)}\n`, `${record(1)}\r`,
        `{"seq":1,\n"ts":"x"}`, null, 7, { seq: 1 },
      ];
      const s = await make();
      for (const line of bad) {
        await check.rejects(s.append([header(), line]), 'invalid_line', `line ${JSON.stringify(line)}`);
      }
      await check.rejects(s.append('not an array'), 'invalid_line', 'not an array');
      await expectLog(s, []);
    },
  },
  {
    name: 'a refused batch writes nothing',
    async run(make, check) {
      const s = await make('k');
      await s.append([header(), record(1)]);
      await check.rejects(s.append([record(2), record(3), record(5)]), 'seq_gap');
      await check.rejects(s.append([record(2), record(3), 'garbage']), 'invalid_line');
      await check.rejects(s.append([record(2), record(3), record(2, 9)]), 'seq_conflict');
      await check.rejects(s.append([record(2), header('other')]), 'header_conflict');
      await expectLog(s, [header(), record(1)]);
      await expectLog(await make('k'), [header(), record(1)], 'reopened');
      check.deepEqual(await s.append(records(2, 3)), { written: 2, duplicates: 0 }, 'none of the refused lines was stored');
    },
  },
  {
    name: 'write_failure fault leaves storage unchanged and a retry succeeds',
    async run(make, check) {
      const plan = [];
      const f = faultyStorage(await make('k'), plan);
      await f.append([header(), record(1)]);
      plan.push('write_failure');
      const failed = await check.rejects(f.append(records(2, 3)), 'write_failed');
      check.equal(failed.cause?.code, 'injected', 'the cause says the failure was injected');
      check.equal(plan.length, 0, 'the fault was used');
      await expectLog(f, [header(), record(1)]);
      await expectLog(await make('k'), [header(), record(1)], 'reopened');
      check.deepEqual(await f.append(records(2, 3)), { written: 2, duplicates: 0 }, 'the retry');
      await expectLog(await make('k'), [header(), ...records(1, 3)], 'after the retry');
    },
  },
  {
    name: 'lost_ack fault: the batch is stored and the retry is a duplicate',
    async run(make, check) {
      const f = faultyStorage(await make('k'), [null, 'lost_ack']);
      await f.append([header(), record(1)]);
      await check.rejects(f.append(records(2, 3)), 'ack_lost');
      await expectLog(await make('k'), [header(), ...records(1, 3)], 'reopened');
      check.deepEqual(await f.append(records(2, 3)), { written: 0, duplicates: 2 }, 'the retry');
      await expectLog(f, [header(), ...records(1, 3)]);
    },
  },
  {
    name: 'duplicate_delivery fault: the batch is stored once',
    async run(make, check) {
      const f = faultyStorage(await make('k'), ['duplicate_delivery', 'duplicate_delivery']);
      const lines = [header(), ...records(1, 2)];
      check.deepEqual(await f.append(lines), { written: 3, duplicates: 0 });
      check.deepEqual(f.injected[0].results.map((r) => r.value), [{ written: 3, duplicates: 0 }, { written: 0, duplicates: 3 }]);
      check.deepEqual(await f.append(records(2, 3)), { written: 1, duplicates: 1 }, 'partly stored before');
      check.deepEqual(f.injected[1].results.map((r) => r.value), [{ written: 1, duplicates: 1 }, { written: 0, duplicates: 2 }]);
      await expectLog(await make('k'), [header(), ...records(1, 3)], 'reopened');
    },
  },
  {
    name: 'crash_after_write then reopen: the batch is there',
    async run(make, check) {
      const f = faultyStorage(await make('k'), [null, 'crash_after_write']);
      await f.append([header(), record(1)]);
      await check.rejects(f.append(records(2, 3)), 'crashed');
      check.ok(f.crashed, 'the wrapper reports the crash');
      await check.rejects(f.append([record(4)]), 'crashed', 'a crashed storage takes no more appends');
      const s = await make('k');
      await expectLog(s, [header(), ...records(1, 3)], 'reopened');
      check.deepEqual(await s.append(records(2, 4)), { written: 1, duplicates: 2 }, 're-sent with one more');
      await expectLog(await make('k'), [header(), ...records(1, 4)]);
    },
  },
  {
    name: 'torn_write then reopen: load drops the torn line and the re-sent batch completes the log',
    async run(make, check) {
      const key = await tornAfterTwo(make, 0.5);
      const s = await make(key);
      const first = await s.load();
      check.equal(first.text, textOf([header(), ...records(1, 3)]), 'the intact lines');
      check.deepEqual(codes(first.diagnostics), ['torn_tail']);
      check.ok(first.diagnostics.every((d) => typeof d.message === 'string' && d.message.length > 0), 'diagnostics have messages');
      check.deepEqual(codes((await s.load()).diagnostics), ['torn_tail'], 'still torn until the next append');
      check.deepEqual(await s.append(records(3, 4)), { written: 1, duplicates: 1 }, 'the re-sent batch');
      const whole = [header(), ...records(1, 4)];
      await expectLog(s, whole, 'after the repair');
      const text = (await s.load()).text;
      for (const line of text.slice(0, -1).split('\n')) JSON.parse(line);
      const again = await make(key);
      await expectLog(again, whole, 'reopened after the repair');
      check.deepEqual(await again.append([record(5)]), { written: 1, duplicates: 0 });
      await expectLog(await make(key), [...whole, record(5)], 'appended after the repair');
    },
  },
  {
    name: 'torn_write repaired by an append on a reopened storage that never loaded',
    async run(make, check) {
      for (const fraction of [0.05, 0.95]) {
        const key = await tornAfterTwo(async (k) => make(`${k}-${fraction}`), fraction);
        const s = await make(`${key}-${fraction}`);
        check.deepEqual(await s.append([record(4)]), { written: 1, duplicates: 0 }, `keep ${fraction}: the torn line re-sent`);
        await expectLog(s, [header(), ...records(1, 4)], `keep ${fraction}`);
        await expectLog(await make(`${key}-${fraction}`), [header(), ...records(1, 4)], `keep ${fraction}, reopened`);
      }
    },
  },
  {
    name: 'torn_write of the header: load is empty with torn_tail, then the log starts over',
    async run(make, check) {
      const f = faultyStorage(await make('k'), ['torn_write']);
      await check.rejects(f.append([header()]), 'crashed');
      const s = await make('k');
      const loaded = await s.load();
      check.equal(loaded.text, '');
      check.deepEqual(codes(loaded.diagnostics), ['torn_tail']);
      await check.rejects(s.append([record(1)]), 'missing_header', 'the torn header does not count');
      check.deepEqual(await s.append([header(), record(1)]), { written: 2, duplicates: 0 });
      await expectLog(await make('k'), [header(), record(1)]);
    },
  },
  {
    name: 'concurrent appends are applied in call order',
    async run(make, check) {
      const s = await make();
      const results = await Promise.all([
        s.append([header(), ...records(1, 3)]), s.append(records(4, 6)), s.append(records(3, 7)),
      ]);
      check.deepEqual(results, [{ written: 4, duplicates: 0 }, { written: 3, duplicates: 0 }, { written: 1, duplicates: 4 }]);
      await expectLog(s, [header(), ...records(1, 7)]);
    },
  },
  {
    name: 'many appends in batches of varying sizes load back identical',
    async run(make, check) {
      const s = await make('k');
      const all = [header(), ...records(1, 200)];
      const sizes = [1, 2, 3, 5, 8, 13, 21, 4, 1, 7];
      let at = 0;
      for (let i = 0; at < all.length; i++) {
        const batch = all.slice(at, at + sizes[i % sizes.length]);
        check.deepEqual(await s.append(batch), { written: batch.length, duplicates: 0 }, `batch ${i}`);
        at += batch.length;
      }
      await expectLog(s, all);
      await expectLog(await make('k'), all, 'reopened');
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Runner

let runs = 0;

const slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40);

function describeError(e) {
  if (!(e instanceof Error)) return `thrown: ${show(e)}`;
  const head = `${e.name}${e.code ? ` [${e.code}]` : ''}: ${e.message}`;
  const stack = typeof e.stack === 'string' ? e.stack.split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 6).join('\n') : '';
  return stack ? `${head}\n${stack}` : head;
}

function withTimeout(promise, ms, name) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`case "${name}" did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs `cases` one after another against `makeStorage(key)` (which may return a promise).
 * Keys are scoped per case run, so each case starts from empty storage. Never throws; resolves
 * to `[{name, ok, error?}]` with `error` a string (name, code, message, a few stack lines).
 * @param {typeof storageCases} cases
 * @param {(key: string) => any} makeStorage
 * @param {{timeoutMs?: number, context?: any}} [options] per-case time limit (default 30 s);
 *   `context` is passed to each case as its third argument (the session cases take the package)
 */
export async function runCases(cases, makeStorage, { timeoutMs = 30_000, context } = {}) {
  const results = [];
  for (const c of cases) {
    const scope = `${++runs}-${slug(c.name)}`;
    let fresh = 0;
    const make = (key) => makeStorage(`${scope}-${key === undefined ? `fresh${fresh++}` : slug(key)}`);
    try {
      await withTimeout(Promise.resolve().then(() => c.run(make, check, context)), timeoutMs, c.name);
      results.push({ name: c.name, ok: true });
    } catch (e) {
      results.push({ name: c.name, ok: false, error: describeError(e) });
    }
  }
  return results;
}
