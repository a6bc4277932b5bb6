// Session-log storage in Node: the shared conformance suite against nodeFileStorage (JSON Lines
// files in a temporary directory), then what only a file can show: the bytes on disk, torn tails
// written by hand, and lazy loading. Imports pkg-template/ so that it runs without a build.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { nodeFileStorage } from '../../pkg-template/storage-node.mjs';
import { StorageError, faultyStorage } from '../../pkg-template/storage.mjs';
import { storageCases, runCases, header, record, records, textOf } from './storage-conformance.mjs';

const dir = mkdtempSync(join(tmpdir(), 'contextview-storage-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const fileFor = (key) => join(dir, `${key}.jsonl`);

for (const c of storageCases) {
  test(`conformance: ${c.name}`, async () => {
    const [result] = await runCases([c], (key) => nodeFileStorage(fileFor(key)));
    assert.ok(result.ok, `${result.name}: ${result.error}`);
  });
}

test('the file holds the log verbatim', async () => {
  const path = join(dir, 'verbatim.jsonl');
  const s = nodeFileStorage(path);
  const lines = [header(), ...records(1, 3)];
  await s.append(lines);
  assert.equal(readFileSync(path, 'utf8'), textOf(lines));
});

test('load reads an existing file; append loads lazily and continues it', async () => {
  const path = join(dir, 'existing.jsonl');
  writeFileSync(path, textOf([header(), ...records(1, 2)]));
  const s = nodeFileStorage(path);
  assert.deepEqual(await s.append(records(2, 3)), { written: 1, duplicates: 1 });
  assert.equal(readFileSync(path, 'utf8'), textOf([header(), ...records(1, 3)]));
});

test('a torn tail written by hand: no final newline, or a last line that is not JSON', async () => {
  const whole = textOf([header(), ...records(1, 2)]);
  for (const [label, tail] of [['no newline, valid JSON', record(3)], ['no newline', '{"seq":3,"ts'],
    ['newline, not JSON', '{"seq":3,"ts\n'], ['cut inside a UTF-8 sequence', Buffer.from('{"seq":3,"t":"é').subarray(0, -1)]]) {
    const path = join(dir, `torn-${label.replace(/\W+/g, '-')}.jsonl`);
    writeFileSync(path, Buffer.concat([Buffer.from(whole), Buffer.from(tail)]));
    const s = nodeFileStorage(path);
    const loaded = await s.load();
    assert.equal(loaded.text, whole, label);
    assert.deepEqual(loaded.diagnostics.map((d) => d.code), ['torn_tail'], label);
    assert.equal(readFileSync(path).length, Buffer.byteLength(whole) + Buffer.from(tail).length, `${label}: load does not write`);
    assert.deepEqual(await s.append([record(3)]), { written: 1, duplicates: 0 }, label);
    assert.equal(readFileSync(path, 'utf8'), textOf([header(), ...records(1, 3)]), `${label}: truncated, then appended`);
  }
});

test('a refused append does not repair the torn tail (it writes nothing)', async () => {
  const path = join(dir, 'torn-refused.jsonl');
  const before = textOf([header(), record(1)]) + '{"seq":2';
  writeFileSync(path, before);
  const s = nodeFileStorage(path);
  await assert.rejects(s.append([record(3)]), { code: 'seq_gap' });
  assert.equal(readFileSync(path, 'utf8'), before);
});

test('a file with CRLF line endings loads, and appends continue it', async () => {
  const path = join(dir, 'crlf.jsonl');
  writeFileSync(path, [header(), record(1), ''].join('\r\n'));
  const s = nodeFileStorage(path);
  assert.deepEqual(await s.load(), { text: textOf([header(), record(1)]), diagnostics: [] });
  assert.deepEqual(await s.append(records(1, 2)), { written: 1, duplicates: 1 });
  assert.equal(readFileSync(path, 'utf8'), `${header()}\r\n${record(1)}\r\n${record(2)}\n`);
});

test('entries that cannot be part of the log are skipped with invalid_entry', async () => {
  const path = join(dir, 'invalid.jsonl');
  writeFileSync(path, [record(1), header(), 'garbage', record(1), '', record(2), header('b'), record(2), record(3)].join('\n') + '\n');
  const loaded = await nodeFileStorage(path).load();
  assert.equal(loaded.text, textOf([header(), ...records(1, 3)]));
  assert.deepEqual(loaded.diagnostics.map((d) => d.code), ['invalid_entry', 'invalid_entry', 'invalid_entry', 'invalid_entry']);
  assert.match(loaded.diagnostics[0].message, /^line 1 was skipped: a record before the header/);
});

test('a file that cannot be read rejects the append and the load, keeping the cause', async () => {
  mkdirSync(join(dir, 'a-directory.jsonl'));
  const s = nodeFileStorage(join(dir, 'a-directory.jsonl'));
  const e = await s.append([header()]).catch((x) => x);
  assert.ok(e instanceof StorageError);
  assert.equal(e.code, 'read_failed');
  assert.equal(e.cause?.code, 'EISDIR');
  const r = await nodeFileStorage(dir).load().catch((x) => x); // a directory
  assert.equal(r.code, 'read_failed');
});

test('a file storage makes its directory, or refuses at creation when it cannot', async () => {
  const deep = join(dir, 'made', 'for', 'it', 'log.jsonl');
  const s = nodeFileStorage(deep);
  assert.deepEqual(await s.append([header(), record(1)]), { written: 2, duplicates: 0 });
  assert.equal(readFileSync(deep, 'utf8'), textOf([header(), record(1)]));
  // A directory under a file cannot be made: refused now, not at the first write.
  writeFileSync(join(dir, 'plain-file'), 'x');
  assert.throws(() => nodeFileStorage(join(dir, 'plain-file', 'log.jsonl')),
    (e) => e instanceof StorageError && e.code === 'write_failed' && ['ENOTDIR', 'EEXIST'].includes(e.cause?.code) && e.message.includes('cannot make the directory'));
  // Not a path at all: the argument is named.
  for (const wrong of [5, '', null, undefined, {}]) {
    assert.throws(() => nodeFileStorage(wrong), (e) => e instanceof TypeError && e.code === 'invalid_argument' && e.argument === 'path', String(wrong));
  }
});

test('faultyStorage rejects an unknown fault and needs _writeTorn for torn_write', async () => {
  const inner = nodeFileStorage(join(dir, 'faults.jsonl'));
  await assert.rejects(faultyStorage(inner, ['nope']).append([header()]), TypeError);
  const noHook = faultyStorage({ load: inner.load, append: inner.append }, ['torn_write']);
  await assert.rejects(noHook.append([header()]), /_writeTorn/);
  assert.equal((await inner.load()).text, '');
});

test('the node entry exports the storage API', async () => {
  const cv = await import('../../pkg/node.mjs');
  for (const name of ['nodeFileStorage', 'faultyStorage', 'StorageError']) assert.equal(typeof cv[name], 'function', name);
});

// The durable session (the package's openSession over this storage), with faults injected.
import * as cv from '../../pkg/node.mjs';
import { sessionCases } from './session-conformance.mjs';

for (const c of sessionCases) {
  test(`session: ${c.name}`, async () => {
    const [result] = await runCases([c], (key) => nodeFileStorage(fileFor(`session-${key}`)), { context: cv });
    assert.ok(result.ok, `${result.name}: ${result.error}`);
  });
}
