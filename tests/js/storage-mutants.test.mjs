// Checks the storage conformance suite itself: each case must pass on a correct storage and fail
// on at least one broken one, so that no case passes vacuously. The storages here are in memory
// and keyed like IndexedDB (seq -> line, header at 0), built from the shared helpers in
// storage.mjs; each "mutant" breaks one thing a real adapter could get wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  StorageError, keyedView, loadKeyed, parseBatch, parseLine, planAppend, planRows, tearLine,
} from '../../pkg-template/storage.mjs';
import { storageCases, runCases } from './storage-conformance.mjs';

/** The ways a storage can be broken; each is one flag of memoryStorage(). */
const MUTANTS = {
  extraDiagnostic: 'load() always reports an extra diagnostic',
  emptyBatchRefused: 'append([]) is refused',
  reserialized: 'load() re-serialises each line (JSON.stringify(JSON.parse(line)))',
  volatile: 'each instance keeps its own store, so a reopened storage is empty',
  duplicatesCountedAsWritten: 'duplicates are reported as written',
  conflictOverwrites: 'a different line under a stored seq replaces it',
  noGapCheck: 'records beyond last seq + 1 are accepted',
  noHeaderCheck: 'records are accepted before any header',
  headerOverwrites: 'a different header replaces the stored one',
  invalidSkipped: 'invalid lines are skipped instead of refusing the batch',
  nonAtomic: 'lines are written one by one, so a refused batch leaves its first lines',
  writeBehind: 'append() resolves before the batch is stored (stored on the next call)',
  tornKept: 'load() returns the torn last entry',
  tornSilent: 'load() drops the torn last entry without a diagnostic',
  tornCountsAsStored: 'append() treats the torn entry as stored (re-sending its line conflicts)',
  racy: 'append() checks, yields, then writes: concurrent appends check against stale state',
  textKeyOrder: 'entries are ordered by key as text ("10" before "2")',
};

/** A keyed in-memory storage over `stores` (key -> Map<seq, line>), broken as `m` says. */
function memoryStorage(stores, key, m = {}) {
  const rows = m.volatile ? new Map() : (stores.get(key) ?? stores.set(key, new Map()).get(key));
  const order = m.textKeyOrder ? (a, b) => (String(a[0]) < String(b[0]) ? -1 : 1) : (a, b) => a[0] - b[0];
  const sorted = () => [...rows.entries()].sort(order);
  let behind = null;
  const flush = () => {
    behind?.();
    behind = null;
  };

  async function load() {
    flush();
    const entries = sorted().map(([k, line]) => ({ key: k, line }));
    let out = loadKeyed(m.tornKept ? [] : entries);
    if (m.tornKept) out = { text: entries.map((e) => e.line + '\n').join(''), diagnostics: [] };
    if (m.tornSilent) out.diagnostics = out.diagnostics.filter((d) => d.code !== 'torn_tail');
    if (m.reserialized) out.text = out.text.split('\n').map((l) => (l ? JSON.stringify(JSON.parse(l)) : l)).join('\n');
    if (m.extraDiagnostic) out.diagnostics.push({ code: 'note', message: 'loaded' });
    return out;
  }

  function check(lines) {
    if (m.invalidSkipped && Array.isArray(lines)) lines = lines.filter((l) => { try { parseLine(l); return true; } catch { return false; } });
    const parsed = parseBatch(lines);
    if (m.emptyBatchRefused && parsed.length === 0) throw new StorageError('invalid_line', 'empty batch');
    const all = sorted();
    const found = { header: rows.get(0), top: all.slice(-2).reverse(), stored: new Map(all) };
    const { view, tornKey } = keyedView(found);
    if (m.tornCountsAsStored && tornKey !== null) {
      view.lastSeq = tornKey;
      view.lineAt = (seq) => rows.get(seq);
    }
    return { parsed, view, tornKey };
  }

  /** planAppend() with the one check the mutant skips turned off. */
  function plan(view, parsed) {
    if (!(m.conflictOverwrites || m.noGapCheck || m.noHeaderCheck || m.headerOverwrites)) return planAppend(view, parsed);
    const out = { header: null, records: [], duplicates: 0 };
    let header = view.header;
    let last = view.lastSeq;
    const planned = new Map();
    for (const p of parsed) {
      if (p.kind === 'header') {
        if (header === p.line) out.duplicates++;
        else if (header !== null && !m.headerOverwrites) throw new StorageError('header_conflict', 'header');
        else header = out.header = p.line;
        continue;
      }
      if (header === null && !m.noHeaderCheck) throw new StorageError('missing_header', 'no header');
      const held = planned.get(p.seq) ?? view.lineAt(p.seq);
      if (held === p.line) {
        out.duplicates++;
        continue;
      }
      if (held !== undefined && !m.conflictOverwrites) throw new StorageError('seq_conflict', 'conflict');
      if (p.seq > last + 1 && !m.noGapCheck) throw new StorageError('seq_gap', 'gap');
      planned.set(p.seq, p.line);
      out.records.push({ seq: p.seq, line: p.line });
      last = Math.max(last, p.seq);
    }
    return out;
  }

  async function write(lines, keepFraction) {
    flush();
    if (m.nonAtomic && Array.isArray(lines) && lines.length > 1) {
      const total = { written: 0, duplicates: 0 };
      for (const line of lines) {
        const r = await write([line], keepFraction);
        total.written += r.written;
        total.duplicates += r.duplicates;
      }
      return total;
    }
    const { parsed, view, tornKey } = check(lines);
    const p = plan(view, parsed);
    const out = planRows(p);
    if (m.racy) await new Promise((resolve) => setTimeout(resolve, 1));
    const store = () => {
      if (out.length > 0 && tornKey !== null) rows.delete(tornKey);
      out.forEach(({ seq, line }, i) => rows.set(seq, keepFraction !== undefined && i === out.length - 1 ? tearLine(line, keepFraction) : line));
    };
    if (m.writeBehind) behind = store;
    else store();
    return m.duplicatesCountedAsWritten
      ? { written: out.length + p.duplicates, duplicates: 0 }
      : { written: out.length, duplicates: p.duplicates };
  }

  return { load, append: (lines) => write(lines, undefined), _writeTorn: (lines, f = 0.5) => write(lines, f) };
}

const runOn = (flags) => {
  const stores = new Map();
  return runCases(storageCases, (key) => memoryStorage(stores, key, flags), { timeoutMs: 5_000 });
};

test('every case passes on the correct in-memory storage', async () => {
  const failed = (await runOn({})).filter((r) => !r.ok);
  assert.deepEqual(failed, []);
});

test('every case fails on at least one broken storage, and every broken storage is caught', async () => {
  const caughtBy = new Map(storageCases.map((c) => [c.name, []]));
  const uncaught = [];
  for (const [mutant, what] of Object.entries(MUTANTS)) {
    const failed = (await runOn({ [mutant]: true })).filter((r) => !r.ok);
    if (failed.length === 0) uncaught.push(`${mutant}: ${what}`);
    for (const r of failed) caughtBy.get(r.name).push(mutant);
  }
  assert.deepEqual(uncaught, [], 'broken storages no case catches');
  const vacuous = [...caughtBy].filter(([, mutants]) => mutants.length === 0).map(([name]) => name);
  assert.deepEqual(vacuous, [], 'cases no broken storage fails');
});
