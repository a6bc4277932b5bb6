// The Session API from JavaScript: reminders drained into the log, records to persist, the
// image-stripping recovery build, pruning and prefix reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const log = readFileSync(fileURLToPath(new URL('../../examples/session.jsonl', import.meta.url)), 'utf8');
const lastSeq = () => Number(JSON.parse(log.trim().split('\n').at(-1)).seq);

test('reminders are drained into the log before a build and handed back to persist', () => {
  const session = cv.Session.fromLog(log);
  const records = session.recordCount();
  assert.equal(session.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' }), true);
  assert.equal(session.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' }), false, 'deduplicated');
  const { body } = session.buildString({ provider: 'openai-chat', now: '2026-11-30T09:30:00Z' });
  assert.match(body, /<system-reminder>\\nsrc\/lib.rs:2: unused import\\n<\/system-reminder>/);
  const unsaved = session.takeUnsaved();
  assert.equal(unsaved.length, 1);
  const record = JSON.parse(unsaved[0]);
  assert.deepEqual(record, {
    seq: lastSeq() + 1,
    ts: '2026-11-30T09:30:00Z',
    event: { kind: 'reminder_injected', reminder: 'diagnostics', text: '<system-reminder>\nsrc/lib.rs:2: unused import\n</system-reminder>' },
  });
  assert.equal(session.recordCount(), records + 1);
  assert.deepEqual(session.takeUnsaved(), [], 'taken once');
  // A session restored with that record does not tell it again.
  const restored = cv.Session.fromLog(log + unsaved[0] + '\n');
  assert.equal(restored.enqueueReminder({ kind: 'diagnostics', text: 'src/lib.rs:2: unused import' }), false);
  assert.throws(() => session.enqueueReminder({ kind: 'gossip', text: 'x' }), (e) => e.code === 'invalid_argument');
});

test('a 413 makes the next build strip images, once', () => {
  const session = cv.Session.fromLog(log);
  const withImages = session.buildString({ provider: 'anthropic' });
  assert.equal(withImages.report.images.images, 1);
  assert.equal(session.onProviderError(413, '{"type":"error","error":{"type":"request_too_large"}}'), true);
  const stripped = session.buildString({ provider: 'anthropic' });
  assert.equal(stripped.report.images.stripped, true);
  assert.doesNotMatch(stripped.body, /"type":"image"/);
  assert.equal(session.buildString({ provider: 'anthropic' }).report.images.stripped, false);
  assert.equal(session.onProviderError(500, 'overloaded'), false);
});

test('reports say what pruning did and how much of the last request is repeated', () => {
  const session = cv.Session.fromLog(log);
  const first = session.buildString({ provider: 'gemini', contextWindow: 100, pruning: { keepTurns: 0, stepTurns: 1, softTrimChars: 50, softTrimHead: 10, softTrimTail: 10 } });
  assert.equal(first.report.pruning.active, true);
  assert.ok(first.report.pruning.trimmed.length + first.report.pruning.cleared.length > 0);
  assert.equal(first.report.prefix, undefined, 'no previous request yet');
  const again = session.buildString({ provider: 'gemini', contextWindow: 100, pruning: { keepTurns: 0, stepTurns: 1, softTrimChars: 50, softTrimHead: 10, softTrimTail: 10 } });
  const bytes = Buffer.byteLength(first.body); // UTF-8 bytes, as sent
  assert.deepEqual(again.report.prefix, { previousBytes: bytes, sharedBytes: bytes, extendsPrevious: true });
  assert.ok(again.report.sources.toolResults > 0 && again.report.sources.system === 0);
});
