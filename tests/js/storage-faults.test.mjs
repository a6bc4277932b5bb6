// A storage that fails, in Node, through the package as a host uses it: the fault suite
// (storage-faults.mjs) over JSON Lines files whose disk is full — `node:fs/promises`' `open` for
// appending refuses with ENOSPC while a log is broken, as the package calls it. Then the suite
// against two mutants it must catch: a storage that says it stored a batch it dropped, and a
// session that goes on when a write fails.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as cv from '../../pkg/node.mjs';
import { runCases } from './storage-conformance.mjs';
import { faultCases } from './storage-faults.mjs';

const dir = mkdtempSync(join(tmpdir(), 'cv-faults-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// The disk is full for the files in `full`: appends to them fail as the kernel says so.
const full = new Set();
const open = fsp.open;
fsp.open = async (path, flags, ...rest) => {
  if (flags === 'a' && full.has(String(path))) {
    throw Object.assign(new Error(`ENOSPC: no space left on device, open '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'open', path: String(path) });
  }
  return open(path, flags, ...rest);
};
syncBuiltinESMExports();
after(() => {
  fsp.open = open;
  syncBuiltinESMExports();
});

/** A log in a file of its own, whose disk can fill up. */
function harness(key) {
  const path = join(dir, `${key}.jsonl`);
  return {
    storage: cv.nodeFileStorage(path),
    breakWrites: () => void full.add(path),
    heal: () => void full.delete(path),
    reopen: () => cv.nodeFileStorage(path),
  };
}

for (const c of faultCases) {
  test(`fault: ${c.name}`, async () => {
    const [result] = await runCases([c], harness, { context: cv });
    assert.ok(result.ok, `${result.name}: ${result.error}`);
  });
}

test('the disk-full fault reaches the call with the kernel\'s words', async () => {
  const h = harness('words');
  const d = await cv.openSession(h.storage, { sessionId: 'words' });
  h.breakWrites();
  const e = await d.dispatch({ type: 'userMessage', text: 'hi' }).then(() => null, (x) => x);
  assert.equal(e?.code, 'write_failed');
  assert.equal(e.cause?.code, 'write_failed', 'the storage\'s own StorageError');
  assert.equal(e.cause.cause?.code, 'ENOSPC', 'and the kernel\'s');
  assert.match(e.message, /ENOSPC: no space left on device/);
});

// --- the mutants the suite must catch --------------------------------------------------------

/** A storage that says it stored the batches it drops while broken (no error: a lie). */
function lying(key) {
  const h = harness(`lying-${key}`);
  let broken = false;
  const inner = h.storage;
  const storage = { ...inner, append: async (lines) => (broken ? { written: lines.length, duplicates: 0 } : inner.append(lines)) };
  return { ...h, storage, breakWrites: () => void (broken = true), heal: () => void (broken = false) };
}

/** The package with a session that goes on when storage fails (what it did before it said so). */
function ignoring() {
  class Ignoring extends cv.DurableSession {
    async dispatch(command, now) {
      try {
        return await super.dispatch(command, now);
      } catch (e) {
        if (e instanceof cv.StorageError && e.processed) return e.processed;
        throw e;
      }
    }
  }
  const openSession = async (storage, options) => {
    const d = await cv.openSession(storage, options);
    return new Ignoring(d.session, d.storage, options);
  };
  return { ...cv, openSession, DurableSession: Ignoring };
}

test('the fault suite catches a storage that reports success without writing', async () => {
  const results = await runCases(faultCases.slice(0, 3), lying, { context: cv, timeoutMs: 10_000 });
  assert.deepEqual(results.map((r) => r.ok), [false, false, false], JSON.stringify(results, null, 2));
});

test('the fault suite catches a session that ignores a failed write', async () => {
  const results = await runCases(faultCases.slice(0, 3), (key) => harness(`ignoring-${key}`), { context: ignoring(), timeoutMs: 10_000 });
  assert.deepEqual(results.map((r) => r.ok), [false, false, false], JSON.stringify(results, null, 2));
});
