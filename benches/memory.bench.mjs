// What a session holds in wasm memory, run by `make bench` after `make build`: the wasm linear
// memory after a session is loaded from its log and after its first build, as multiples of the
// log's bytes, and whether a log of a given size is held and built inside a Durable Object's
// 128 MB. Linear memory only grows, so each figure is the peak up to that point. Each workload runs in a fresh Node process with a fresh wasm instance (linear memory
// only grows, so one instance would carry one workload's peak into the next); the baseline is
// the same instance's memory before the session exists.
//
// Workloads: the generated sessions of the build bench (2,000 and 10,000 items), the inspector's
// generated logs of 20 MB and 50 MB (prompts, each followed by a dozen tool rounds), and the
// corpus's largest pi session (imported) when ../shared/corpus is there.
//
// `node benches/memory.bench.mjs` prints a table and the figures as JSON.
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MB = 1024 * 1024;
const here = fileURLToPath(import.meta.url);

async function logFor(workload) {
  if (workload.startsWith('items:')) {
    const { generateSession } = await import('./build.bench.mjs');
    return generateSession(Number(workload.slice(6)));
  }
  if (workload.startsWith('bytes:')) {
    const { generatedLog } = await import('./generated-log.mjs');
    return generatedLog(Number(workload.slice(6)));
  }
  // file:<path>: another agent's session, imported in a process of its own first.
  const cv = await import('../pkg/node.mjs');
  return (await cv.importSession(readFileSync(workload.slice(5), 'utf8'))).log;
}

/** In the child: one workload, one wasm instance. */
async function one(workload) {
  // A new prompt after the session's last record, so the first build has something to send.
  const raw = await logFor(workload);
  const last = JSON.parse(raw.trimEnd().split('\n').pop());
  const prompt = { seq: (last.seq ?? 0) + 1, ts: '2026-12-04T00:00:00Z', update: { sessionUpdate: 'user_message_chunk', messageId: 'bench-next', content: { type: 'text', text: 'Continue.' } } };
  const log = raw + JSON.stringify(prompt) + '\n';
  const { initSync, Session } = await import('../pkg/web/contextview.js');
  const wasm = initSync({ module: readFileSync(new URL('../pkg/web/contextview_bg.wasm', import.meta.url)) });
  const memory = () => wasm.memory.buffer.byteLength;
  const before = memory();
  const session = Session.fromLog(log);
  const loaded = memory();
  const { body } = session.buildBytes({ provider: 'anthropic', model: 'claude-sonnet-4-5', system: 'You are a careful coding agent.' });
  const built = memory();
  const items = session.itemCount();
  session.free();
  process.stdout.write(JSON.stringify({ workload, logBytes: Buffer.byteLength(log), items, bodyBytes: body.length, before, loaded, built }));
}

function corpusPi() {
  const dir = fileURLToPath(new URL('../../shared/corpus/sessions', import.meta.url));
  if (!existsSync(dir)) return null;
  const pi = readdirSync(dir).filter((f) => f.includes('pi-mono') || f.startsWith('pi')).map((f) => join(dir, f));
  return pi.sort((a, b) => statSync(b).size - statSync(a).size)[0] ?? null;
}

function main() {
  const workloads = [['generated 2,000 items', 'items:2000'], ['generated 10,000 items', 'items:10000'], ['generated 20 MB', `bytes:${20 * MB}`], ['generated 50 MB', `bytes:${50 * MB}`]];
  const pi = corpusPi();
  if (pi) workloads.push([`pi (corpus) ${pi.split('/').pop().slice(0, 40)}`, `file:${pi}`]);
  else console.log('corpus session SKIPPED: no ../shared/corpus');
  const results = [];
  for (const [name, workload] of workloads) {
    const out = execFileSync(process.execPath, ['--max-old-space-size=4096', here, '--one', workload], { encoding: 'utf8', maxBuffer: 1 << 20 });
    results.push({ name, ...JSON.parse(out) });
  }
  // Linear memory never shrinks: each figure is the peak so far (the log's text copied in
  // included), which is what a Durable Object's limit is held against.
  console.log('\n| session | log | items | wasm memory after load | after the first build | ÷ log, after load | after the build | under 128 MB |');
  console.log('|---|---|---|---|---|---|---|---|');
  const mb = (n) => `${(n / MB).toFixed(1)} MB`;
  for (const r of results) {
    const ratio = (n) => `${((n - r.before) / r.logBytes).toFixed(2)}×`;
    console.log(`| ${r.name} | ${mb(r.logBytes)} | ${r.items} | ${mb(r.loaded)} | ${mb(r.built)} | ${ratio(r.loaded)} | ${ratio(r.built)} | ${r.built <= 128 * MB ? 'yes' : 'no'} |`);
  }
  console.log('goal: held after a build ≤ 2× the log, and a 50 MB log held and built inside 128 MB');
  console.log(JSON.stringify({ date: new Date().toISOString().slice(0, 10), node: process.version, results }, null, 2));
}

if (process.argv[2] === '--one') await one(process.argv[3]);
else main();
