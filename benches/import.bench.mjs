// Import + replay + build throughput on the largest corpus sessions, through the npm package
// in Node (run by `make bench`). Same stages as benches/import.rs, for comparison with native.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as cv from '../pkg/node.mjs';

// The importers (the lazy module), loaded before any timing: the imports timed are synchronous.
const lazy = await cv.loadLazyModule();

const RUNS = 15;
const root = fileURLToPath(new URL('../', import.meta.url));
const dir = process.env.CONTEXTVIEW_CORPUS ? join(process.env.CONTEXTVIEW_CORPUS, 'sessions') : join(root, '../shared/corpus/sessions');
if (!existsSync(dir)) {
  console.log(`import bench SKIPPED: no corpus at ${dir}`);
  process.exit(0);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const files = readdirSync(dir).map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size).slice(0, 4);
const providers = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];
const cont = (seq) => JSON.stringify({ seq, ts: '2026-01-01T00:00:00Z', update: { sessionUpdate: 'user_message_chunk', messageId: 'bench', content: { type: 'text', text: 'continue' } } });

console.log(`${'session (largest 4)'.padEnd(52)} ${'MB'.padStart(8)} ${'import'.padStart(10)} ${'replay'.padStart(10)} ${'build x4'.padStart(12)} ${'all'.padStart(10)}`);
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const mb = Buffer.byteLength(text) / 1e6;
  const ti = [], tr = [], tb = [];
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    const { log, report } = lazy.importSession(text);
    ti.push(performance.now() - t);
    t = performance.now();
    const session = cv.Session.fromLog(log);
    session.append(cont(report.records + 1));
    session.itemCount(); // forces the replay
    tr.push(performance.now() - t);
    t = performance.now();
    for (const provider of providers) session.buildString({ provider });
    tb.push(performance.now() - t);
  }
  const [i, r, b] = [median(ti), median(tr), median(tb)].map((ms) => ms / 1000);
  const rate = (s) => `${(mb / s).toFixed(0)} MB/s`;
  const name = file.split('/').pop().slice(0, 52);
  console.log(`${name.padEnd(52)} ${mb.toFixed(3).padStart(8)} ${rate(i).padStart(10)} ${rate(r).padStart(10)} ${rate(b).padStart(12)} ${rate(i + r + b).padStart(10)}`);
}
