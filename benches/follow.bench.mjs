// Following a growing session file (`make bench`): what a push of the lines a file gained costs
// against importing those lines alone, through the npm package in Node. The goal (issue 45):
// appending 1 MB to a 50 MB session costs at most 2× importing that 1 MB alone. Sessions: a
// generated Codex rollout (one prompt, then tool rounds, its usage after each; deterministic)
// at 10 and 50 MB, and the largest corpus sessions split at 90 %. Baseline in the same process:
// `importSession` of the added part alone. Each timing is the median of RUNS, alternated.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as cv from '../pkg/node.mjs';

const lazy = await cv.loadLazyModule();
const RUNS = Number(process.env.RUNS ?? 5);
const root = fileURLToPath(new URL('../', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A Codex rollout of about `mb` MB: one prompt, then tool rounds with their output and usage. */
function rollout(mb) {
  const lines = [
    JSON.stringify({ timestamp: '2026-11-30T11:00:00Z', type: 'session_meta', payload: { id: 'bench-follow', cwd: '/w', model_provider: 'openai' } }),
    JSON.stringify({ timestamp: '2026-11-30T11:00:00Z', type: 'turn_context', payload: { model: 'gpt-5', cwd: '/w' } }),
    JSON.stringify({ timestamp: '2026-11-30T11:00:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix every failing test.' }] } }),
  ];
  let bytes = lines.reduce((n, l) => n + l.length + 1, 0);
  for (let i = 0; bytes < mb * 1e6; i++) {
    const output = `src/module_${i % 97}.rs:${i}: ${'fn check() { assert_eq!(parse(input), expected); } '.repeat(20 + (i % 13))}`;
    const round = [
      { type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['rg', `case_${i}`] }), call_id: `call_${i}` } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: `call_${i}`, output } },
      { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 3000 + 40 * i, cached_input_tokens: 2800 + 40 * i, output_tokens: 60 } } } },
    ].map((l) => JSON.stringify({ timestamp: '2026-11-30T11:00:02Z', ...l }));
    for (const l of round) bytes += l.length + 1;
    lines.push(...round);
  }
  return lines.join('\n') + '\n';
}

/** `text` split at the line that ends nearest `at` bytes before its end. */
function splitBefore(text, tail) {
  const at = text.lastIndexOf('\n', text.length - tail) + 1;
  return [text.slice(0, at), text.slice(at)];
}

function measure(name, text, tailBytes) {
  const [head, tail] = splitBefore(text, tailBytes);
  const pushes = [];
  const alone = [];
  for (let run = 0; run < RUNS; run++) {
    const follower = new lazy.IncrementalImport();
    follower.push(head);
    let t = performance.now();
    const appended = follower.push(tail);
    pushes.push(performance.now() - t);
    if (appended.records === 0) throw new Error(`${name}: the push appended nothing`);
    const format = follower.format;
    follower.free();
    t = performance.now();
    lazy.importSession(tail, format);
    alone.push(performance.now() - t);
  }
  const [p, a] = [median(pushes), median(alone)];
  console.log(`${name.padEnd(48)} ${(head.length / 1e6).toFixed(1).padStart(7)} ${(tail.length / 1e6).toFixed(2).padStart(7)} ${p.toFixed(0).padStart(9)} ${a.toFixed(0).padStart(9)} ${(p / a).toFixed(1).padStart(7)}×`);
}

console.log(`${'session'.padEnd(48)} ${'MB'.padStart(7)} ${'+MB'.padStart(7)} ${'push ms'.padStart(9)} ${'alone ms'.padStart(9)} ${'ratio'.padStart(8)}`);
measure('generated Codex rollout, 10 MB + 1 MB', rollout(11), 1e6);
measure('generated Codex rollout, 50 MB + 1 MB', rollout(51), 1e6);
const dir = process.env.CONTEXTVIEW_CORPUS ? join(process.env.CONTEXTVIEW_CORPUS, 'sessions') : join(root, '../shared/corpus/sessions');
if (!existsSync(dir)) {
  console.log(`corpus sessions SKIPPED: no corpus at ${dir}`);
} else {
  for (const file of readdirSync(dir).map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size).slice(0, 3)) {
    const text = readFileSync(file, 'utf8');
    measure(`${file.split('/').pop().slice(0, 36)} (last 10 %)`, text, Math.floor(text.length / 10));
  }
}
