// This package beside another build of it, in one Node process: how a change moves the build's
// speed, as ratios of medians (this ÷ base) with both wasm instances measured in alternation, so
// machine noise lands on both alike. Not part of `make bench` (it needs a second build):
// `scripts/ab.sh <git rev>` builds the rev's package and runs this against it, or
// `BASE=<package dir> node benches/ab.bench.mjs` against a package already built.
//
// Per workload (the build bench's generated sessions of 2,000 and 10,000 items, with its system
// prompt and tool definitions, and a session of long texts from this repository's files): a full build (the first buildBytes of a session just loaded from
// its log, the replay included), a build from text (buildRequestString({log})), and an agent step
// (three records appended, then buildBytes). The bodies of both packages are compared (a whole
// build's, and the last step's): a change that moves speed must not move bytes unless it meant
// to, and then this says so.
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as self from '../pkg/node.mjs';
import { generateSession, SYSTEM, TOOLS } from './build.bench.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const TS = '2026-12-01T00:00:00Z';
if (!process.env.BASE) {
  console.error('ab.bench: set BASE to the directory of the package to compare with (or run scripts/ab.sh <rev>)');
  process.exit(2);
}
const base = await import(pathToFileURL(resolve(process.env.BASE, 'node.mjs')).href);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const options = { provider: 'anthropic', model: 'claude-sonnet-4-5', system: SYSTEM, tools: TOOLS };

function measure(name, log, runs) {
  const contenders = { self, base };
  const bodies = Object.fromEntries(Object.entries(contenders).map(([k, cv]) => [k, cv.buildRequestString({ ...options, log }).body]));
  const sameBody = bodies.self === bodies.base;
  const sessions = Object.fromEntries(Object.entries(contenders).map(([k, cv]) => [k, { s: cv.Session.fromLog(log), seq: 0 }]));
  for (const held of Object.values(sessions)) {
    held.seq = held.s.recordCount();
    held.s.buildBytes(options);
  }
  const step = (held) => {
    const add = (update) => held.s.append(JSON.stringify({ seq: ++held.seq, ts: TS, update }));
    const id = `toolu_ab_${held.seq}`;
    add({ sessionUpdate: 'agent_message_chunk', messageId: `ab${held.seq}`, content: { type: 'text', text: 'One more module.' } });
    add({ sessionUpdate: 'tool_call', toolCallId: id, title: 'Read file', kind: 'read', status: 'pending', rawInput: { path: `src/ab_${held.seq}.rs` } });
    add({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `fn ab() -> u32 { ${held.seq} }\n` } }] });
  };
  const times = { self: { full: [], fromText: [], step: [] }, base: { full: [], fromText: [], step: [] } };
  for (let run = 0; run < runs; run++) {
    // Alternate which package goes first.
    const order = run % 2 === 0 ? ['self', 'base'] : ['base', 'self'];
    for (const k of order) {
      const fresh = contenders[k].Session.fromLog(log);
      let t = performance.now();
      fresh.buildBytes(options);
      times[k].full.push(performance.now() - t);
      fresh.free();
    }
    for (const k of order) {
      const t = performance.now();
      contenders[k].buildRequestString({ ...options, log });
      times[k].fromText.push(performance.now() - t);
    }
    for (const k of order) {
      step(sessions[k]);
      const t = performance.now();
      sessions[k].s.buildBytes(options);
      times[k].step.push(performance.now() - t);
    }
  }
  // Both sessions took the same steps: their last bodies, grown step by step, must agree too.
  const sameStepBody = sessions.self.s.buildString(options).body === sessions.base.s.buildString(options).body;
  const row = { name, sameBody: sameBody && sameStepBody };
  for (const what of ['full', 'fromText', 'step']) {
    const [a, b] = [median(times.self[what]), median(times.base[what])];
    row[what] = { selfMs: +a.toFixed(3), baseMs: +b.toFixed(3), ratio: +(a / b).toFixed(2) };
  }
  return row;
}

/** A session of long texts: 80 messages of 20 KB each cut from this repository's docs and
 * sources (prose, tables, code), where the token estimate is most of a full build. */
function proseSession() {
  const text = ['README.md', 'BENCHMARKS.md', 'ARCHITECTURE.md', 'src/tokens/scan.rs', 'src/prompt/prefix.rs']
    .map((f) => readFileSync(new URL(`../${f}`, import.meta.url), 'utf8')).join('\n');
  const s = self.Session.create('prose');
  for (let i = 0; i < 40; i++) {
    const part = text.slice(i * 1000, i * 1000 + 20000);
    s.dispatch({ type: 'userMessage', text: part }, TS);
    s.dispatch({ type: 'assistantResponse', text: part }, TS);
  }
  const { log } = s.snapshot();
  s.free();
  return log;
}

const rows = [
  measure('generated 2,000 items', generateSession(2000), RUNS),
  measure('generated 10,000 items', generateSession(10000), Math.max(5, Math.round(RUNS / 2))),
  measure('80 messages of 20 KB of docs and code', proseSession(), RUNS),
];
console.log(`\nthis package ÷ ${process.env.BASE} (medians of ${RUNS} alternated runs; lower is faster)`);
console.log('| session | same body | full build | from text | step → buildBytes |');
console.log('|---|---|---|---|---|');
const cell = (c) => `${c.ratio}× (${c.selfMs} ms vs ${c.baseMs} ms)`;
for (const r of rows) console.log(`| ${r.name} | ${r.sameBody ? 'yes' : 'NO'} | ${cell(r.full)} | ${cell(r.fromText)} | ${cell(r.step)} |`);
