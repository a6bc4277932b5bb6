// Opening a long session: a generated log with images and compactions (examples/long_session.rs),
// opened by `Session.fromLog` from its last checkpoint, against the same log with its checkpoints
// deleted (replayed from the start), each in a fresh Node process with a fresh wasm instance:
// the time `fromLog` takes, and wasm linear memory after opening and after one build (its peak:
// it never shrinks), and whether it stays inside a Durable Object's 128 MB; beside it, the live
// heap after opening and one build as a DurableSession runs it (examples/resident.rs, native)
// against the goal (≤ 2× the request plus ~100 bytes per record not held). Run by `make bench`
// after `make build`.
//
// `node benches/open.bench.mjs [MB …]` (default 20 50 200) prints a table and the figures as JSON.
import { readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MB = 1024 * 1024;
const here = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

/** The generated log of `mb` MB, made once (native, release) and kept under target/. */
function longLog(mb) {
  const dir = `${root}target/bench-logs`;
  const path = `${dir}/long-${mb}mb.jsonl`;
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('cargo', ['run', '--quiet', '--release', '--example', 'long_session', '--', String(mb * MB), path], { cwd: root, stdio: 'inherit' });
  }
  return path;
}

/** In the child: open one log once, build once; time and memory. */
async function one(path, strip) {
  let log = readFileSync(path, 'utf8');
  if (strip === 'strip') log = log.split('\n').filter((l) => !l.includes('"kind":"checkpoint"')).join('\n');
  const { initSync, Session } = await import('../pkg/web/contextview.js');
  const wasm = initSync({ module: readFileSync(new URL('../pkg/web/contextview_bg.wasm', import.meta.url)) });
  const memory = () => wasm.memory.buffer.byteLength;
  const before = memory();
  const t0 = performance.now();
  const session = Session.fromLog(log);
  const openMs = performance.now() - t0;
  const loaded = memory();
  const { body } = session.buildBytes({ provider: 'anthropic' });
  const built = memory();
  const records = session.recordCount();
  const held = session.state().records;
  process.stdout.write(JSON.stringify({ logBytes: Buffer.byteLength(log), records, held, bodyBytes: body.length, openMs, before, loaded, built }));
}

/**
 * In the child: a running session — the generated workload driven through a Session command by
 * command, a build after each tool result, every persist acknowledged as stored — for `mb` MB of
 * records; `release`: it lets go of what storage confirmed. Wasm memory grown, and what the
 * last request and the items since the last compaction weigh.
 */
async function running(mb, release) {
  const { initSync, Session } = await import('../pkg/web/contextview.js');
  const wasm = initSync({ module: readFileSync(new URL('../pkg/web/contextview_bg.wasm', import.meta.url)) });
  const before = wasm.memory.buffer.byteLength;
  const s = Session.create('running');
  s.setReleaseStored(release === 'release');
  const NOW = '2026-12-05T09:00:00Z';
  const SUMMARY = '## Goal\nPort the parser.\n## Constraints\nNone\n## Progress\n### Done\nRead.\n### In progress\nNext.\n### Blocked\nNone\n## Decisions\nNone\n## Next steps\nGo on.\n## Files\nsrc/\n## Pending actions\nNone';
  let stored = 0;
  let due = false;
  const ok = (command) => {
    const p = s.dispatch(command, NOW);
    if (p.error) throw new Error(JSON.stringify(p.error));
    for (const e of [...p.effects, ...s.takeEffects()]) {
      if (e.type === 'compactionDue') due = true;
      if (e.type !== 'persist') continue;
      for (const line of e.lines) stored += line.length + 1;
      s.ack(e.ticket, 'committed');
    }
  };
  ok({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 });
  const image = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg'.repeat(600);
  let sinceCompaction = 0;
  let bodyBytes = 0;
  for (let round = 0; stored < mb * MB; round++) {
    if (round % 12 === 0) ok({ type: 'userMessage', text: `Task ${round}: port module ${round} to the new lexer.` });
    ok({ type: 'assistantResponse', text: `Reading module ${round}.`, toolCalls: [{ id: `c${round}`, name: 'read', input: { path: `src/m${round}.rs` } }], usage: { inputTokens: 1000 + (round % 50000), outputTokens: 40 } });
    const output = `// src/m${round}.rs\n` + `fn item_${round}() -> u32 { lexer.next_token()? }\n`.repeat(400);
    const images = round % 9 === 4 ? [{ data: image, mimeType: 'image/png' }] : [];
    ok({ type: 'toolResult', toolCallId: `c${round}`, output, images });
    sinceCompaction += output.length + (images.length ? image.length : 0);
    bodyBytes = s.buildBytes({ provider: 'anthropic' }).body.length;
    if (due || round % 40 === 39) {
      ok({ type: 'prepareCompaction', options: { keepRecentTokens: 20000 } });
      ok({ type: 'applyCompaction', summary: SUMMARY });
      due = false;
      sinceCompaction = 0;
    }
  }
  process.stdout.write(JSON.stringify({ stored, grown: wasm.memory.buffer.byteLength - before, bodyBytes, sinceCompaction, atHost: s.historyThrough() ?? 0, records: s.recordCount() }));
}

function run(path, strip) {
  const out = execFileSync(process.execPath, ['--max-old-space-size=8192', here, '--one', path, strip], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out);
}

async function main() {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const results = [];
  for (const mb of sizes.length ? sizes : [20, 50, 200]) {
    const path = longLog(mb);
    const checkpointed = run(path, 'keep');
    const replayed = run(path, 'strip');
    // The live heap after opening and one build, as a DurableSession runs it (native: wasm
    // memory only says its peak).
    const resident = JSON.parse(execFileSync('cargo', ['run', '--quiet', '--release', '--example', 'resident', '--', path], { cwd: root, encoding: 'utf8' }));
    results.push({ mb, checkpointed, replayed, resident });
  }
  const f = (n) => `${(n / MB).toFixed(1)} MB`;
  console.log('\n| log | records | opened from the last checkpoint: open | memory after open / build | ÷ request | replayed whole: open | memory after open / build | open, replay ÷ checkpoint |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const { mb, checkpointed: c, replayed: r } of results) {
    const overRequest = ((c.built - c.before) / c.bodyBytes).toFixed(2);
    console.log(`| ${mb} MB | ${c.records} | ${c.openMs.toFixed(0)} ms | ${f(c.loaded)} / ${f(c.built)} | ${overRequest}× of ${f(c.bodyBytes)} | ${r.openMs.toFixed(0)} ms | ${f(r.loaded)} / ${f(r.built)} | ${(r.openMs / c.openMs).toFixed(1)}× |`);
  }
  console.log('goals: memory after a build ≤ 2× the request (+~100 B per record not held); a 200 MB log inside 128 MB; a 50 MB log opens ≥ 20× faster than its replay');
  console.log('\n| log | resident after open + build (live heap, letting go) | request | goal: 2× request + 100 B × records not held | peak while opening |');
  console.log('|---|---|---|---|---|');
  for (const { mb, resident: r } of results) {
    const goal = 2 * r.bodyBytes + 100 * (r.records - r.held);
    console.log(`| ${mb} MB | ${f(r.built)} | ${f(r.bodyBytes)} | ${f(goal)} ${r.built <= goal ? '(met)' : '(missed)'} | ${f(r.peak)} |`);
  }
  // A running session, holding every record it wrote or letting go of what storage confirmed.
  const runMb = Number(process.env.RUN_MB ?? 20);
  const live = (how) => JSON.parse(execFileSync(process.execPath, [here, '--running', String(runMb), how], { encoding: 'utf8', maxBuffer: 1 << 20 }));
  const held = live('hold');
  const released = live('release');
  console.log(`\nA running session, ${f(held.stored)} of records written and acknowledged, a build after each tool result: wasm memory grown ${f(held.grown)} holding every record, ${f(released.grown)} letting go of what storage confirmed (${released.atHost} of ${released.records} records left with storage); its last request ${f(released.bodyBytes)}, ${f(released.sinceCompaction)} of tool output and images since its last compaction`);
  results.push({ running: { mb: runMb, held, released } });
  // In a Durable Object (Miniflare): the log stored through durableObjectStorage, opened as an
  // object opens on a cold start (openSession: the rows from the last checkpoint) beside the way
  // it opened before (every row read, the log replayed without its checkpoints).
  const doMb = Number(process.env.DO_MB ?? 50);
  const { startWorker } = await import('../tests/workerd/worker-host.mjs');
  const mf = await startWorker();
  try {
    const base = 'http://localhost/open-bench?session=open-bench';
    const stored = await (await mf.dispatchFetch(base, { method: 'POST', body: readFileSync(longLog(doMb), 'utf8') })).json();
    const open = async (how) => {
      const t = performance.now();
      const r = await (await mf.dispatchFetch(`${base}&log=${stored.log}&how=${how}`)).json();
      return { ms: performance.now() - t, ...r };
    };
    // Each way twice, alternating; the second of each is reported (the first warms the isolate).
    await open('checkpoint');
    await open('replay');
    const fromCheckpoint = await open('checkpoint');
    const replayed = await open('replay');
    if (fromCheckpoint.body !== replayed.body) throw new Error('the two opens built different requests');
    console.log(`\nDurable Object (Miniflare), ${doMb} MB, ${stored.records} records, request to reply: opened from the last checkpoint ${fromCheckpoint.ms.toFixed(0)} ms (history left in storage: ${fromCheckpoint.historyInStorage}); every row read and replayed ${replayed.ms.toFixed(0)} ms; ${(replayed.ms / fromCheckpoint.ms).toFixed(1)}×`);
    results.push({ durableObject: { mb: doMb, records: stored.records, fromCheckpointMs: fromCheckpoint.ms, replayedMs: replayed.ms } });
  } finally {
    await mf.dispose();
  }
  console.log(JSON.stringify({ date: new Date().toISOString().slice(0, 10), node: process.version, results }, null, 2));
}

if (process.argv[2] === '--one') await one(process.argv[3], process.argv[4]);
else if (process.argv[2] === '--running') await running(Number(process.argv[3]), process.argv[4]);
else await main();
