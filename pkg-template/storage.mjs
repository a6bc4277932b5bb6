// Session-log storage, the part every adapter shares: the StorageError class, parsing and
// classifying log lines, the idempotence/contiguity check an append runs before it writes, the
// in-memory view of a loaded log, and a fault-injection wrapper for tests.
//
// The adapters (storage-node.mjs, storage-indexeddb.mjs, storage-durable-object.mjs) only move
// lines to and from their store; every rule about what may be appended lives here, so the three
// behave the same and one conformance suite (tests/js/storage-conformance.mjs) covers them all.
// No runtime built-ins are used: this module loads in Node, browsers and workerd.

import { ContextviewError, ContextviewTypeError } from './errors.mjs';

/** The `format` of a session log's header line. */
export const LOG_FORMAT = 'contextview.session-log';

/**
 * A storage refusal or failure. `code` is one of: `invalid_line`, `missing_header`,
 * `header_conflict`, `seq_conflict`, `seq_gap` (the batch was refused and nothing was written),
 * `write_failed`, `read_failed` (the underlying store failed; `cause` holds its error), `timeout`
 * (the store did not answer within the session's `storageTimeoutMs`: the write may or may not
 * have happened).
 *
 * When a session's call rejects with one because storage did not take what it wrote, the error
 * also says what the call did: `processed` (the command as it ran in memory, or null when it did
 * not run), `unstored` (the seqs of the records storage has not confirmed) and, after another
 * writer's records were found in storage, `reconciled`.
 */
export class StorageError extends ContextviewError {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(code, message, { cause: options?.cause });
    this.name = 'StorageError';
    /** What the session's call did in memory (its processed command), when storage did not take it. */
    this.processed = null;
    /** The seqs of the records storage has not confirmed. */
    this.unstored = [];
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True when `value` is not a string holding valid JSON: a torn (half-written) entry. */
export function isTorn(value) {
  if (typeof value !== 'string') return true;
  try {
    JSON.parse(value);
    return false;
  } catch {
    return true;
  }
}

/**
 * Classifies one log line. A header is a JSON object without `seq` whose `format` is
 * {@link LOG_FORMAT}, with a numeric `version` and a string `sessionId`; a record is a JSON
 * object whose `seq` is a positive integer. Anything else, or a line holding a line break,
 * throws StorageError `invalid_line`.
 * @param {unknown} line
 * @param {string} [where] names the line in the error message
 * @returns {{kind: 'header', line: string} | {kind: 'record', seq: number, line: string}}
 */
export function parseLine(line, where = 'line') {
  const invalid = (why) => new StorageError('invalid_line', `${where} ${why}`);
  if (typeof line !== 'string') throw invalid('is not a string');
  if (/[\r\n]/.test(line)) throw invalid('contains a line break (pass one line per array element, without "\\n")');
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    throw invalid('is not valid JSON');
  }
  if (!isObject(value)) throw invalid('is not a JSON object');
  if (!Object.hasOwn(value, 'seq')) {
    if (value.format === LOG_FORMAT && typeof value.version === 'number' && typeof value.sessionId === 'string') {
      return { kind: 'header', line };
    }
    throw invalid(`has no "seq" and is not a header (format "${LOG_FORMAT}", numeric version, string sessionId)`);
  }
  if (!Number.isSafeInteger(value.seq) || value.seq < 1) throw invalid('has a "seq" that is not a positive integer');
  return { kind: 'record', seq: value.seq, line };
}

/**
 * Parses a batch for append(): every line must pass {@link parseLine}. Throws StorageError
 * `invalid_line` (naming the line's index) for the first line that does not.
 * @param {unknown} lines
 */
export function parseBatch(lines) {
  if (!Array.isArray(lines)) throw new StorageError('invalid_line', 'append() takes an array of lines');
  return lines.map((line, i) => parseLine(line, `line ${i} of the batch`));
}

/** The distinct record seqs of a parsed batch (what a keyed store must look up before planning). */
export function batchSeqs(parsed) {
  return [...new Set(parsed.filter((p) => p.kind === 'record').map((p) => p.seq))];
}

/**
 * @typedef {object} LogView What an append needs to know about the stored log.
 * @property {string|null} header the stored header line, or null
 * @property {number} lastSeq the highest stored seq (0 when there is none)
 * @property {(seq: number) => string|undefined} lineAt the stored line with this seq, if any
 */

/**
 * @typedef {object} AppendPlan
 * @property {string|null} header the header line to write, or null
 * @property {{seq: number, line: string}[]} records the records to write, in seq order
 * @property {number} duplicates lines skipped because storage already holds them
 */

/**
 * The idempotence and contiguity check: decides what a batch adds to the stored log, or throws
 * the StorageError that refuses the whole batch. Within a batch, earlier lines count as stored
 * for later ones.
 * - header: written only when nothing is stored; an identical header is a duplicate, a
 *   different one `header_conflict`;
 * - a record before any header: `missing_header`;
 * - a record whose seq is stored: byte-identical is a duplicate, different is `seq_conflict`
 *   (also when the seq is below the last stored one but was never stored: the log skipped it);
 * - a record whose seq is above last + 1: `seq_gap`.
 * @param {LogView} view
 * @param {ReturnType<typeof parseBatch>} parsed
 * @returns {AppendPlan}
 */
export function planAppend(view, parsed) {
  let header = view.header;
  let last = view.lastSeq;
  const planned = new Map();
  const plan = { header: null, records: [], duplicates: 0 };
  if (header === null && last > 0) {
    throw new StorageError('missing_header', 'storage holds records but no header line; it needs repair');
  }
  parsed.forEach((entry, i) => {
    if (entry.kind === 'header') {
      if (header === null) {
        header = plan.header = entry.line;
      } else if (header === entry.line) {
        plan.duplicates++;
      } else {
        throw new StorageError('header_conflict', `line ${i} of the batch is a header that differs from the stored one`);
      }
      return;
    }
    const { seq, line } = entry;
    if (header === null) {
      throw new StorageError('missing_header', `line ${i} of the batch (seq ${seq}) comes before any header line`);
    }
    if (seq <= last) {
      const held = planned.get(seq) ?? view.lineAt(seq);
      if (held === line) {
        plan.duplicates++;
      } else if (held === undefined) {
        throw new StorageError('seq_conflict', `seq ${seq} is below the last stored seq ${last} and the log skipped it`);
      } else {
        throw new StorageError('seq_conflict', `seq ${seq} is already stored with different content`);
      }
    } else if (seq === last + 1) {
      planned.set(seq, line);
      plan.records.push({ seq, line });
      last = seq;
    } else {
      throw new StorageError('seq_gap', `seq ${seq} would leave a gap: the last seq is ${last}`);
    }
  });
  return plan;
}

/** The lines a plan writes, in order, as `{seq, line}` with the header under seq 0. */
export function planRows(plan) {
  return plan.header === null ? plan.records : [{ seq: 0, line: plan.header }, ...plan.records];
}

/**
 * A stored log held in memory: the header line and the records by seq, in seq order.
 * Implements {@link LogView}.
 */
export class LogState {
  constructor() {
    /** @type {string|null} */
    this.header = null;
    /** @type {Map<number, string>} */
    this.records = new Map();
    this.lastSeq = 0;
  }

  /** @param {number} seq */
  lineAt(seq) {
    return this.records.get(seq);
  }

  /** Records what a successful write of `plan` added. */
  apply(plan) {
    if (plan.header !== null) this.header = plan.header;
    for (const { seq, line } of plan.records) {
      this.records.set(seq, line);
      this.lastSeq = seq;
    }
  }

  /** The log as JSON Lines: '' when empty, else the header and the records, each ending in '\n'. */
  text() {
    if (this.header === null) return '';
    let out = this.header + '\n';
    for (const line of this.records.values()) out += line + '\n';
    return out;
  }
}

/**
 * Builds the in-memory log from stored entries, in storage order, after the caller has dropped
 * a torn tail. Entries that cannot be part of the log are skipped with an `invalid_entry`
 * diagnostic: unparseable lines, a second header, records before the header, records whose seq
 * does not increase. For keyed stores (`keyed: true`) each entry's `key` must be its seq (0 for
 * the header).
 * @param {{line: unknown, key?: unknown}[]} entries
 * @param {{code: string, message: string}[]} diagnostics pushed to
 * @param {{keyed?: boolean}} [options]
 */
export function scanEntries(entries, diagnostics, { keyed = false } = {}) {
  const state = new LogState();
  entries.forEach(({ line, key }, i) => {
    const where = keyed ? `the entry under key ${String(key)}` : `line ${i + 1}`;
    const skip = (why) => diagnostics.push({ code: 'invalid_entry', message: `${where} was skipped: ${why}` });
    let entry;
    try {
      entry = parseLine(line, where);
    } catch (e) {
      skip(e.message.slice(where.length + 1));
      return;
    }
    if (keyed && key !== (entry.kind === 'header' ? 0 : entry.seq)) {
      skip(`its content does not belong under this key`);
    } else if (entry.kind === 'header') {
      if (state.header === null) state.header = entry.line;
      else skip('a second header');
    } else if (state.header === null) {
      skip('a record before the header');
    } else if (entry.seq <= state.lastSeq) {
      skip(`seq ${entry.seq} does not increase (last seq ${state.lastSeq})`);
    } else {
      state.records.set(entry.seq, entry.line);
      state.lastSeq = entry.seq;
    }
  });
  return state;
}

/** The diagnostic load() reports for a dropped torn tail. */
export function tornTailDiagnostic(what) {
  return {
    code: 'torn_tail',
    message: `${what} was dropped: it is incomplete (an interrupted write); the next append removes it`,
  };
}

/**
 * load() for keyed stores (IndexedDB, Durable Objects): `entries` are `{key, line}` in key
 * order. A value at the highest key that is not valid JSON is a torn tail: dropped with a
 * `torn_tail` diagnostic.
 * @returns {{text: string, diagnostics: {code: string, message: string}[]}}
 */
export function loadKeyed(entries) {
  const diagnostics = [];
  let kept = entries;
  const top = entries.at(-1);
  if (top && isTorn(top.line)) {
    kept = entries.slice(0, -1);
    diagnostics.push(tornTailDiagnostic(`the entry under key ${String(top.key)}`));
  }
  const state = scanEntries(kept, diagnostics, { keyed: true });
  return { text: state.text(), diagnostics };
}

/**
 * The {@link LogView} of a keyed store from what an append looked up inside its transaction:
 * the value under key 0, the (at most) two highest `[key, value]` pairs, highest first, and the
 * stored values of the batch's seqs. A torn value at the highest key counts as not stored; its
 * key is returned as `tornKey` (else null) so the append can remove it.
 * @param {{header: unknown, top: [number, unknown][], stored: Map<number, unknown>}} found
 * @returns {{view: LogView, tornKey: number|null}}
 */
export function keyedView({ header, top, stored }) {
  const tornKey = top.length > 0 && isTorn(top[0][1]) ? top[0][0] : null;
  const highest = tornKey === null ? top[0] : top[1];
  const view = {
    header: tornKey === 0 || header === undefined || header === null ? null : String(header),
    lastSeq: highest ? Number(highest[0]) : 0,
    lineAt: (seq) => (seq === tornKey ? undefined : stored.get(seq)),
  };
  return { view, tornKey };
}

/**
 * How much of `length` units a torn write keeps: `keepFraction` of it, at least one unit and at
 * least one unit short of the whole.
 */
export function tornLength(length, keepFraction = 0.5) {
  return Math.min(length - 1, Math.max(1, Math.floor(length * keepFraction)));
}

/** The first part of a line, as a torn write leaves it (see {@link tornLength}). */
export function tearLine(line, keepFraction = 0.5) {
  return line.slice(0, tornLength(line.length, keepFraction));
}

// ---------------------------------------------------------------------------------------------
// Fault injection (tests): a wrapper that makes the next append() calls fail the way real
// storage and networks do.

/** The seqs a loadRecords(`seqs`) reads, checked: an array of record seqs, ascending, once each. */
export function recordSeqs(seqs) {
  if (!Array.isArray(seqs) || !seqs.every((s) => Number.isSafeInteger(s) && s > 0)) {
    throw new ContextviewTypeError('seqs', '`seqs` must be an array of record seqs (positive integers), as `session.neededRecords()` gives them');
  }
  return [...new Set(seqs)].sort((a, b) => a - b);
}

/**
 * The last record a loadHistory(`through`) reads: `through` (a session's `historyThrough()`),
 * else the record the checkpoint of the last loadTail() covered. `where` names the storage.
 */
export function historyEnd(through, tailThrough, where) {
  if (through !== undefined && through !== null) {
    if (!Number.isSafeInteger(through) || through < 0) throw new ContextviewTypeError('through', `\`through\` must be a record's seq (a non-negative integer), got ${typeof through === 'number' ? through : typeof through}`);
    return through;
  }
  if (tailThrough === null) throw new StorageError('read_failed', `${where}: loadHistory() before loadTail()`);
  return tailThrough;
}

/**
 * Finds a log's tail going back from its end, row by row: the rows from the last readable
 * checkpoint on, and the records after the one it covers (`through`). The keyed storages feed it
 * their rows in descending seq order until `push` says it has what it needs.
 */
export function tailScan() {
  const rows = [];
  let through = null;
  return {
    /** Takes the next row going back; false once the rows the checkpoint covers are reached. */
    push(seq, line) {
      if (through !== null && seq <= through) return false;
      rows.push(line);
      if (through === null && typeof line === 'string' && line.includes('"kind":"checkpoint"')) {
        try {
          const value = JSON.parse(line);
          if (value?.event?.kind === 'checkpoint' && Number.isSafeInteger(value.event.through)) through = value.event.through;
        } catch {
          // Not a readable checkpoint: keep looking further back.
        }
      }
      return true;
    },
    /** `{tail, through}`, or null: no readable checkpoint, or a torn line in the tail. */
    result() {
      if (through === null || rows.some(isTorn)) return null;
      return { tail: rows.slice().reverse().join('\n') + '\n', through };
    },
  };
}

/** The faults faultyStorage() can inject. */
export const FAULTS = Object.freeze(['write_failure', 'lost_ack', 'duplicate_delivery', 'crash_after_write', 'torn_write']);

function faultError(code, message, cause) {
  const error = new ContextviewError(code, message, { cause });
  error.name = 'InjectedFault';
  return error;
}

/**
 * Wraps a storage so that each append() takes the next entry of `plan` (an array it shifts
 * from; push more at any time) and injects that fault. An entry is a fault name, or
 * `{fault, keepFraction}` for `torn_write`; `null`, `undefined` or `'none'` (or an empty plan)
 * means a normal call. The faults:
 * - `write_failure`: rejects with StorageError `write_failed`; the inner storage is not called.
 * - `lost_ack`: the inner append runs, then the call rejects with code `ack_lost` whatever the
 *   outcome (a refusal is kept as `cause`): the caller cannot know whether the batch is stored.
 * - `duplicate_delivery`: the batch is delivered to the inner storage twice; resolves with the
 *   first delivery's result (both are recorded in `injected`).
 * - `crash_after_write`: the inner append runs, then the call rejects with code `crashed`.
 * - `torn_write`: the inner storage's test hook `_writeTorn(lines, keepFraction)` stores the
 *   batch with its last line cut short, then the call rejects with code `crashed`.
 * After `crash_after_write` or `torn_write` the wrapper stays crashed: every later load() or
 * append() rejects with code `crashed`, as a process that died would not answer. Reopen the
 * backing store with a new adapter instead. (Crashes reject rather than never settle, so that a
 * test run cannot hang.)
 * Every injected fault is recorded in `injected` as `{fault, results}`.
 * @template {{load(): Promise<any>, append(lines: string[]): Promise<any>}} S
 * @param {S} inner
 * @param {Array<string|{fault: string, keepFraction?: number}|null|undefined>} [plan]
 */
export function faultyStorage(inner, plan = []) {
  if (inner === null || typeof inner !== 'object' || typeof inner.load !== 'function' || typeof inner.append !== 'function') {
    throw new ContextviewTypeError('inner', '`inner` must be a SessionStorage (load() and append(lines))');
  }
  if (!Array.isArray(plan)) throw new ContextviewTypeError('plan', '`plan` must be an array of faults');
  const injected = [];
  let crashed = false;
  const crashedError = () => faultError('crashed', 'the storage crashed (injected); reopen the backing store');

  async function append(lines) {
    if (crashed) throw crashedError();
    const next = plan.shift();
    const { fault, keepFraction = 0.5 } = typeof next === 'string' || next == null ? { fault: next } : next;
    if (fault == null || fault === 'none') return inner.append(lines);
    if (!FAULTS.includes(fault)) throw new ContextviewTypeError('plan', `unknown fault "${fault}" (known: ${FAULTS.join(', ')})`);
    const record = { fault, results: [] };
    injected.push(record);
    const settle = (p) => p.then(
      (value) => (record.results.push({ ok: true, value }), { ok: true, value }),
      (error) => (record.results.push({ ok: false, error }), { ok: false, error }));
    switch (fault) {
      case 'write_failure':
        throw new StorageError('write_failed', 'write failed (injected)', { cause: faultError('injected', 'injected write failure') });
      case 'lost_ack': {
        const r = await settle(inner.append(lines));
        throw faultError('ack_lost', 'the acknowledgement was lost (injected); the batch may or may not be stored', r.ok ? undefined : r.error);
      }
      case 'duplicate_delivery': {
        const first = await settle(inner.append(lines));
        await settle(inner.append(lines));
        if (!first.ok) throw first.error;
        return first.value;
      }
      case 'crash_after_write': {
        const r = await settle(inner.append(lines));
        crashed = true;
        throw faultError('crashed', 'crashed after the write (injected)', r.ok ? undefined : r.error);
      }
      case 'torn_write': {
        if (typeof inner._writeTorn !== 'function') throw new ContextviewTypeError('inner', 'torn_write needs a storage with a _writeTorn(lines, keepFraction) hook');
        const r = await settle(inner._writeTorn(lines, keepFraction));
        crashed = true;
        throw faultError('crashed', 'crashed in the middle of the write (injected torn write)', r.ok ? undefined : r.error);
      }
    }
    throw new ContextviewError('internal', `unhandled fault "${fault}"`);
  }

  return {
    /** The inner storage. */
    inner,
    /** The remaining plan (the same array that was passed in). */
    plan,
    /** The faults injected so far: `{fault, results: [{ok, value?, error?}]}`. */
    injected,
    /** True after a crash fault. */
    get crashed() {
      return crashed;
    },
    async load() {
      if (crashed) throw crashedError();
      return inner.load();
    },
    /** The inner storage's history read (for a session opened from its tail), when it has one. */
    async loadHistory(through) {
      if (crashed) throw crashedError();
      if (typeof inner.loadHistory !== 'function') throw new StorageError('read_failed', 'the inner storage cannot read a history');
      return inner.loadHistory(through);
    },
    /** The inner storage's read of single records, when it has one. */
    async loadRecords(seqs) {
      if (crashed) throw crashedError();
      if (typeof inner.loadRecords !== 'function') throw new StorageError('read_failed', 'the inner storage cannot read single records');
      return inner.loadRecords(seqs);
    },
    append,
  };
}
