// Session-log storage in a SQLite-backed Cloudflare Durable Object (`ctx.storage`). Lines live in
// one table shared by every log of the object:
//   cv_log(log TEXT, seq INTEGER, line TEXT, PRIMARY KEY (log, seq))   -- the header at seq 0
// A session opens from the log's last checkpoint: loadTail() reads the table from its end back to
// it, loadHistory() the rest when a rewind or a snapshot asks for it.
// An append looks up what it needs, runs the shared check and inserts, all inside one
// `storage.transactionSync()`, so a batch is stored whole or not at all; the Durable Object's
// output gate holds the response until the write is durable. Nothing is cached: SQL reads are
// local and synchronous.
import { ContextviewTypeError } from './errors.mjs';
import {
  StorageError, batchSeqs, keyedView, loadKeyed, parseBatch, planAppend, planRows, tailScan, tearLine, historyEnd, recordSeqs,
} from './storage.mjs';

const CREATE = `CREATE TABLE IF NOT EXISTS cv_log (
  log TEXT NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (log, seq))`;

/**
 * Session-log storage for the log named `log` in a SQLite-backed Durable Object's storage
 * (`this.ctx.storage`). Several logs can share one object. `load()` rejects with StorageError
 * `read_failed`, `append()` with the refusals of the shared check (see storage.mjs) or
 * `write_failed` (the SQL failed; `cause` holds its error).
 * @param {{sql: {exec(query: string, ...bindings: unknown[]): {toArray(): any[]}}, transactionSync<T>(fn: () => T): T}} storage
 * @param {{log?: string}} [options]
 * @returns {import('./index.d.ts').SessionStorage & {log: string}}
 */
export function durableObjectStorage(storage, options = {}) {
  if (!storage?.sql || typeof storage.transactionSync !== 'function') {
    throw new ContextviewTypeError('storage', 'durableObjectStorage: pass ctx.storage of a SQLite-backed Durable Object');
  }
  if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
  const { log = 'log' } = options;
  if (typeof log !== 'string' || log === '') throw new ContextviewTypeError('options.log', `\`options.log\` must be the log's name (a non-empty string), not ${typeof log === 'string' ? '""' : typeof log}`);
  const sql = (query, ...bindings) => storage.sql.exec(query, ...bindings).toArray();
  let created = false;
  const ensureTable = () => {
    if (!created) sql(CREATE);
    created = true;
  };

  async function load() {
    let rows;
    try {
      ensureTable();
      rows = sql('SELECT seq, line FROM cv_log WHERE log = ? ORDER BY seq', log);
    } catch (e) {
      throw new StorageError('read_failed', `cannot read log "${log}": ${e?.message}`, { cause: e });
    }
    return loadKeyed(rows.map((r) => ({ key: r.seq, line: r.line })));
  }

  async function write(lines, keepFraction) {
    const parsed = parseBatch(lines);
    let refusal = null;
    try {
      ensureTable(); // outside the transaction: a refused batch rolls back, the table stays
      return storage.transactionSync(() => {
        const found = {
          header: sql('SELECT line FROM cv_log WHERE log = ? AND seq = 0', log)[0]?.line,
          top: sql('SELECT seq, line FROM cv_log WHERE log = ? ORDER BY seq DESC LIMIT 2', log).map((r) => [r.seq, r.line]),
          stored: new Map(),
        };
        for (const seq of batchSeqs(parsed)) {
          const row = sql('SELECT line FROM cv_log WHERE log = ? AND seq = ?', log, seq)[0];
          if (row) found.stored.set(seq, row.line);
        }
        const { view, tornKey } = keyedView(found);
        let plan;
        try {
          plan = planAppend(view, parsed);
        } catch (e) {
          refusal = e;
          throw e;
        }
        const rows = planRows(plan);
        if (rows.length > 0 && tornKey !== null) sql('DELETE FROM cv_log WHERE log = ? AND seq = ?', log, tornKey);
        rows.forEach(({ seq, line }, i) => {
          const torn = keepFraction !== undefined && i === rows.length - 1;
          sql('INSERT INTO cv_log (log, seq, line) VALUES (?, ?, ?)', log, seq, torn ? tearLine(line, keepFraction) : line);
        });
        return { written: rows.length, duplicates: plan.duplicates };
      });
    } catch (e) {
      if (e === refusal) throw e;
      throw new StorageError('write_failed', `cannot append to log "${log}": ${e?.message}`, { cause: e });
    }
  }

  /** The checkpoint the last loadTail() opened from covers records through this seq. */
  let tailThrough = null;

  /**
   * The header line and the lines from the last checkpoint on, read from the end of the table
   * until the checkpoint and the records it covers: a long session's history is not read.
   * Null when the log has no readable checkpoint, or a torn line in its tail (load() then).
   */
  async function loadTail() {
    let head;
    const scan = tailScan();
    try {
      ensureTable();
      head = sql('SELECT line FROM cv_log WHERE log = ? AND seq = 0', log)[0]?.line ?? '';
      const cursor = storage.sql.exec('SELECT seq, line FROM cv_log WHERE log = ? AND seq > 0 ORDER BY seq DESC', log);
      for (const row of (typeof cursor[Symbol.iterator] === 'function' ? cursor : cursor.toArray())) {
        if (!scan.push(row.seq, row.line)) break;
      }
    } catch (e) {
      throw new StorageError('read_failed', `cannot read log "${log}": ${e?.message}`, { cause: e });
    }
    const found = scan.result();
    if (!found) return null;
    tailThrough = found.through;
    return { head, ...found };
  }

  /**
   * The lines of records 1..`through` (a session's `historyThrough()`); without it, those
   * between the header and the tail the last loadTail() returned.
   */
  async function loadHistory(through) {
    const last = historyEnd(through, tailThrough, `log "${log}"`);
    let rows;
    try {
      rows = sql('SELECT line FROM cv_log WHERE log = ? AND seq > 0 AND seq <= ? ORDER BY seq', log, last);
    } catch (e) {
      throw new StorageError('read_failed', `cannot read log "${log}": ${e?.message}`, { cause: e });
    }
    return rows.map((r) => r.line).join('\n') + (rows.length ? '\n' : '');
  }

  /** The lines of the records `seqs` (a session's `neededRecords()`), in seq order. */
  async function loadRecords(seqs) {
    const wanted = recordSeqs(seqs);
    const lines = [];
    try {
      // A statement's bindings are limited: a few dozen seqs at a time.
      for (let i = 0; i < wanted.length; i += 50) {
        const part = wanted.slice(i, i + 50);
        const rows = sql(`SELECT line FROM cv_log WHERE log = ? AND seq IN (${part.map(() => '?').join(', ')}) ORDER BY seq`, log, ...part);
        for (const row of rows) lines.push(row.line);
      }
    } catch (e) {
      throw new StorageError('read_failed', `cannot read log "${log}": ${e?.message}`, { cause: e });
    }
    return lines.map((l) => l + '\n').join('');
  }

  return {
    log,
    load,
    loadTail,
    loadHistory,
    loadRecords,
    append: (lines) => write(lines, undefined),
    /**
     * Test hook for faultyStorage's `torn_write`: appends like append() but stores the last
     * written line cut to its first `keepFraction`.
     */
    _writeTorn: (lines, keepFraction = 0.5) => write(lines, keepFraction),
  };
}
