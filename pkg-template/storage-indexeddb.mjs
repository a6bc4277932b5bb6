// Session-log storage in IndexedDB (browsers). One database per log, named as the caller says,
// with one object store `lines` whose keys are seqs (the header under key 0) and whose values
// are the lines, verbatim.
//
// An append looks up what it needs (the header, the two highest entries, the stored lines of the
// batch's seqs), runs the shared check and writes, all inside one readwrite transaction; it
// resolves on the transaction's `complete`. Nothing is cached between calls, so several tabs
// may append to the same log: IndexedDB serialises their transactions. Transactions ask for
// `durability: 'strict'` (flushed to disk before `complete`) where the browser supports it.
import { ContextviewTypeError } from './errors.mjs';
import {
  StorageError, batchSeqs, keyedView, loadKeyed, parseBatch, planAppend, planRows, tailScan, tearLine, historyEnd, recordSeqs,
} from './storage.mjs';

const STORE = 'lines';
const DB_VERSION = 1;

/** Opens (creating on first use) the database `name`. */
function openDatabase(indexedDB, name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, DB_VERSION);
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * Session-log storage in the IndexedDB database `name` (one database per log).
 * `load()` rejects with StorageError `read_failed`, `append()` with the refusals of the shared
 * check (see storage.mjs) or `write_failed` (the transaction failed or aborted; `cause` holds
 * its error).
 * @param {string} name
 * @param {{indexedDB?: IDBFactory}} [options] the factory to use (default: the global one)
 * @returns {import('./index.d.ts').SessionStorage & {name: string, close(): void}}
 */
export function indexedDbStorage(name, options = {}) {
  if (typeof name !== 'string' || name === '') throw new ContextviewTypeError('name', `\`name\` must be the database's name (a non-empty string), not ${typeof name === 'string' ? '""' : typeof name}`);
  if (options === null || typeof options !== 'object') throw new ContextviewTypeError('options', '`options` must be an object');
  const { indexedDB = globalThis.indexedDB } = options;
  if (!indexedDB) throw new ContextviewTypeError('options.indexedDB', 'indexedDbStorage: no IndexedDB in this runtime (pass { indexedDB })');
  /** @type {Promise<IDBDatabase> | null} */
  let db = null;

  function database(failCode) {
    if (!db) {
      db = openDatabase(indexedDB, name).then((d) => {
        // Let another tab upgrade or delete the database; reopen on the next call.
        d.onversionchange = () => { d.close(); db = null; };
        d.onclose = () => { db = null; };
        return d;
      });
      db.catch(() => { db = null; });
    }
    return db.catch((e) => {
      throw new StorageError(failCode, `cannot open IndexedDB database "${name}": ${e?.message ?? e}`, { cause: e });
    });
  }

  /** Runs `body(store, finish)` in one transaction; resolves with what `finish` was given. */
  async function transaction(mode, failCode, body) {
    const d = await database(failCode);
    return new Promise((resolve, reject) => {
      let tx;
      try {
        tx = d.transaction(STORE, mode, { durability: mode === 'readwrite' ? 'strict' : 'default' });
      } catch (e) {
        reject(new StorageError(failCode, `IndexedDB transaction on "${name}" failed to start: ${e?.message}`, { cause: e }));
        return;
      }
      let result;
      let refusal = null;
      const finish = (value) => { result = value; };
      // A refusal of the shared check stays what it is; anything IndexedDB threw (a
      // QuotaExceededError from a put, a DataCloneError) is the store failing.
      const refuse = (error) => {
        refusal = error instanceof StorageError ? error
          : new StorageError(failCode, `IndexedDB refused on "${name}": ${error?.name ?? 'Error'}: ${error?.message ?? error}`, { cause: error });
        tx.abort();
      };
      tx.oncomplete = () => resolve(result);
      tx.onabort = () => reject(refusal ?? new StorageError(failCode,
        `IndexedDB transaction on "${name}" aborted: ${tx.error?.message ?? 'unknown reason'}`, { cause: tx.error }));
      try {
        body(tx.objectStore(STORE), finish, refuse);
      } catch (e) {
        refuse(e);
      }
    });
  }

  function load() {
    return transaction('readonly', 'read_failed', (store, finish) => {
      const keys = store.getAllKeys();
      const values = store.getAll();
      values.onsuccess = () => {
        finish(loadKeyed(keys.result.map((key, i) => ({ key, line: values.result[i] }))));
      };
    });
  }

  /** The checkpoint the last loadTail() opened from covers records through this seq. */
  let tailThrough = null;

  /**
   * The header line and the lines from the last checkpoint on, read with a cursor from the end
   * back to the checkpoint and the records it covers. Null when the log has no readable
   * checkpoint, or a torn line in its tail (load() then).
   */
  async function loadTail() {
    const found = await transaction('readonly', 'read_failed', (store, finish) => {
      const scan = tailScan();
      const header = store.get(0);
      const cursor = store.openCursor(IDBKeyRange.lowerBound(1), 'prev');
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (c && scan.push(c.key, c.value)) return c.continue();
        const tail = scan.result();
        finish(tail && { head: header.result ?? '', ...tail });
      };
    });
    if (found) tailThrough = found.through;
    return found;
  }

  /**
   * The lines of records 1..`through` (a session's `historyThrough()`); without it, those
   * between the header and the tail the last loadTail() returned.
   */
  function loadHistory(through) {
    let last;
    try {
      last = historyEnd(through, tailThrough, `IndexedDB "${name}"`);
    } catch (e) {
      return Promise.reject(e);
    }
    return transaction('readonly', 'read_failed', (store, finish) => {
      const values = store.getAll(IDBKeyRange.bound(1, Math.max(1, last)));
      values.onsuccess = () => finish(last < 1 ? '' : values.result.map((line) => line + '\n').join(''));
    });
  }

  /** The lines of the records `seqs` (a session's `neededRecords()`), in seq order. */
  function loadRecords(seqs) {
    let wanted;
    try {
      wanted = recordSeqs(seqs);
    } catch (e) {
      return Promise.reject(e);
    }
    return transaction('readonly', 'read_failed', (store, finish) => {
      const lines = new Array(wanted.length);
      let left = wanted.length;
      if (left === 0) return finish('');
      wanted.forEach((seq, i) => {
        const get = store.get(seq);
        get.onsuccess = () => {
          lines[i] = get.result;
          if (--left === 0) finish(lines.filter((l) => typeof l === 'string').map((l) => l + '\n').join(''));
        };
      });
    });
  }

  function write(lines, keepFraction) {
    let parsed;
    try {
      parsed = parseBatch(lines);
    } catch (e) {
      return Promise.reject(e);
    }
    const seqs = batchSeqs(parsed);
    return transaction('readwrite', 'write_failed', (store, finish, refuse) => {
      const found = { header: undefined, top: [], stored: new Map() };
      let pending = 2 + seqs.length;
      const done = () => {
        if (--pending > 0) return;
        try {
          finish(decide(store, found, parsed, keepFraction));
        } catch (e) {
          refuse(e);
        }
      };
      const header = store.get(0);
      header.onsuccess = () => { found.header = header.result; done(); };
      const top = store.openCursor(null, 'prev');
      top.onsuccess = () => {
        const c = top.result;
        if (c) {
          found.top.push([c.key, c.value]);
          if (found.top.length < 2) return c.continue();
        }
        done();
      };
      for (const seq of seqs) {
        const req = store.get(seq);
        req.onsuccess = () => {
          if (req.result !== undefined) found.stored.set(seq, req.result);
          done();
        };
      }
    });
  }

  /** Plans the batch against what the transaction found and issues its writes. */
  function decide(store, found, parsed, keepFraction) {
    const { view, tornKey } = keyedView(found);
    const plan = planAppend(view, parsed);
    const rows = planRows(plan);
    if (rows.length > 0 && tornKey !== null) store.delete(tornKey);
    rows.forEach(({ seq, line }, i) => {
      const torn = keepFraction !== undefined && i === rows.length - 1;
      store.put(torn ? tearLine(line, keepFraction) : line, seq);
    });
    return { written: rows.length, duplicates: plan.duplicates };
  }

  return {
    name,
    load,
    loadTail,
    loadHistory,
    loadRecords,
    append: (lines) => write(lines, undefined),
    /**
     * Test hook for faultyStorage's `torn_write`: appends like append() but stores the last
     * written line's value cut to its first `keepFraction`.
     */
    _writeTorn: (lines, keepFraction = 0.5) => write(lines, keepFraction),
    /** Closes the connection (a later call reopens it). */
    close() {
      db?.then((d) => d.close(), () => {});
      db = null;
    },
  };
}
