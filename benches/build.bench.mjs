// Request-build speed, run by `make bench` after `make build`: what the agent loop pays per
// request, as ratios to `JSON.stringify` of the finished payload (the floor any JS builder pays),
// in one Node process, contenders in rotating order (in two phases: the agent loop's steps,
// then whole-session loads).
//
// Workloads: generated sessions of about 2,000 and 10,000 items (prompts, signed thinking, text,
// tool calls and results) and the corpus's largest real sessions (imported), each built for
// Anthropic with a system prompt and twelve tool definitions in the body. Contenders:
//   - step → buildBytes:   after an agent step (the model's text and tool call, the tool's
//                           result: three records appended, not timed), the body as bytes
//   - step → buildString:  the same, as a string
//   - full build:          the first buildBytes of a session just loaded from its log text
//                           (Session.fromLog not timed; the replay is, it happens on first use)
//   - from text:           buildRequestString({log}) — parse, replay and build in one call
//   - JSON.stringify:      of that payload object
// Targets (issue: the steady-state build): step ≤ 0.3×, full ≤ 1.5×, from text ≤ 3×; and (issue: the
// core, lean) from text ≤ 1.5× its floor: `JSON.parse` of every log line plus the body's stringify.
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as cv from '../pkg/node.mjs';

// The importers (the lazy module), loaded once: imports below are synchronous.
const lazy = await cv.loadLazyModule();

const RUNS = Number(process.env.RUNS ?? 21);
const TS = '2026-12-01T00:00:00Z';

/** A deterministic session: user prompt, thinking, text, a tool call and its result, repeated. */
export function generateSession(targetItems) {
  const lines = [JSON.stringify({ format: 'contextview.session-log', version: 1, sessionId: 'bench' })];
  let seq = 0;
  let items = 0;
  const push = (update) => lines.push(JSON.stringify({ seq: ++seq, ts: TS, update }));
  const meta = { contextview: { provider: 'anthropic', model: 'claude-sonnet-4-5' } };
  for (let turn = 0; items < targetItems; turn++) {
    push({ sessionUpdate: 'user_message_chunk', messageId: `u${turn}`, content: { type: 'text', text: `Step ${turn}: look at module_${turn % 37}.rs and tell me what the parse function returns when the input is empty.` } });
    push({ sessionUpdate: 'agent_thought_chunk', messageId: `t${turn}`, content: { type: 'text', text: 'I should read the file before answering. '.repeat(3) }, _meta: { contextview: { ...meta.contextview, signature: `sig${turn}`.padEnd(64, 'x') } } });
    push({ sessionUpdate: 'agent_message_chunk', messageId: `a${turn}`, content: { type: 'text', text: `Reading module_${turn % 37}.rs.` }, _meta: meta });
    const id = `toolu_${String(turn).padStart(6, '0')}`;
    push({ sessionUpdate: 'tool_call', toolCallId: id, title: 'Read file', kind: 'read', status: 'pending', rawInput: { path: `src/module_${turn % 37}.rs` }, _meta: { contextview: { toolName: 'read_file' } } });
    const body = Array.from({ length: 6 }, (_, i) => `    let value_${i} = parse_${i}(input)?; // line ${i} of turn ${turn}`).join('\n');
    push({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `fn parse(input: &str) -> Result<Ast, Error> {\n${body}\n}\n` } }] });
    items += 5;
  }
  return lines.join('\n') + '\n';
}

/** Twelve tool definitions of the size coding agents send. */
export const TOOLS = ['read_file', 'write_file', 'edit_file', 'list_dir', 'grep', 'glob', 'bash', 'web_fetch', 'todo_write', 'task', 'notebook_edit', 'ask_user'].map((name, i) => ({
  name,
  description: `${name.replace('_', ' ')}: ` + 'Use this tool when the task needs it; read its parameters carefully and pass absolute paths. '.repeat(3 + (i % 4)),
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(['path', 'pattern', 'content', 'limit'].slice(0, 2 + (i % 3)).map((p) => [p, { type: p === 'limit' ? 'integer' : 'string', description: `The ${p} to use.` }])),
    required: ['path'],
  },
}));
export const SYSTEM = 'You are a coding agent working in the user\'s repository. ' + 'Follow the workspace rules; prefer small, verified changes; run the tests before you say you are done. '.repeat(20);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The corpus's largest sessions of each agent, imported, when the corpus is beside the repository. */
function realSessions() {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const dir = process.env.CONTEXTVIEW_CORPUS ? join(process.env.CONTEXTVIEW_CORPUS, 'sessions') : join(root, '../shared/corpus/sessions');
  if (!existsSync(dir)) return { skipped: `no corpus at ${dir}`, sessions: [] };
  const files = readdirSync(dir).map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size);
  const pick = [files.find((f) => f.includes('pi-mono')), files.find((f) => f.includes('codex')), files.find((f) => !f.includes('pi-mono') && !f.includes('codex'))].filter(Boolean);
  return {
    sessions: pick.map((file) => {
      const { log, report } = lazy.importSession(readFileSync(file, 'utf8'));
      // The imported session may end on the model's turn: a user message makes it sendable.
      const next = JSON.stringify({ seq: report.records + 1, ts: TS, update: { sessionUpdate: 'user_message_chunk', messageId: 'bench-continue', content: { type: 'text', text: 'Continue.' } } });
      return { name: `${report.format} (corpus) ${file.split('/').pop().slice(0, 40)}`, log: log + next + '\n' };
    }),
  };
}

function measure(name, log, runs) {
  const options = { provider: 'anthropic', model: 'claude-sonnet-4-5', system: SYSTEM, tools: TOOLS };
  // The same loop with pruning's count rules only (no token pressure), side by side: what
  // planning by token pressure costs a step.
  const countOnlyOptions = { ...options, pruning: { tokenPressure: false } };
  const session = cv.Session.fromLog(log);
  const countOnly = cv.Session.fromLog(log);
  const seqs = new Map([[session, session.recordCount()], [countOnly, countOnly.recordCount()]]);
  // What happens between two requests of an agent loop: the model answered with a tool call,
  // and the tool's result came back — three records.
  const step = (on = session) => {
    let seq = seqs.get(on);
    const add = (update) => on.append(JSON.stringify({ seq: ++seq, ts: TS, update }));
    const id = `toolu_extra_${seq}`;
    add({ sessionUpdate: 'agent_message_chunk', messageId: `extra${seq}`, content: { type: 'text', text: 'Let me check one more module.' }, _meta: { contextview: { provider: 'anthropic', model: 'claude-sonnet-4-5' } } });
    add({ sessionUpdate: 'tool_call', toolCallId: id, title: 'Read file', kind: 'read', status: 'pending', rawInput: { path: `src/extra_${seq}.rs` }, _meta: { contextview: { toolName: 'read_file' } } });
    add({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `fn extra_${seq}() -> u32 { ${seq} }\n` } }] });
    seqs.set(on, seq);
  };
  // Warm up every path once (JIT, caches), and check the paths agree.
  const first = session.buildString(options);
  const payloadText = new TextDecoder().decode(session.buildBytes(options).body);
  countOnly.buildBytes(countOnlyOptions);
  if (payloadText !== first.body || JSON.stringify(JSON.parse(first.body)) !== first.body) throw new Error(`${name}: the paths disagree`);
  if (cv.buildRequestString({ ...options, log }).body.length === 0) throw new Error(`${name}: empty body`);

  const times = { append: [], stepBytes: [], stepBytesCountOnly: [], stepString: [], full: [], fromText: [], stringify: [], parseLog: [] };
  const lines = log.split('\n').filter((l) => l.length > 0);
  let payload = JSON.parse(first.body);
  let bodyBytes = first.body.length;
  let appendedSteps = 0;
  let fastSteps = 0;
  // The report's JSON per step: what crosses into JS beside the body on every build.
  const reportBytes = [];
  const stringify = () => {
    const t = performance.now();
    JSON.stringify(payload);
    times.stringify.push(performance.now() - t);
  };
  // Two phases, each in rotating order so garbage collection and machine noise land on every
  // contender alike: the agent loop (a step, then a build), then loading whole sessions. Loading
  // a whole session between two steps (megabytes allocated and freed in the same wasm heap)
  // would charge the steps for it.
  const phases = [
    [
      () => {
        let t = performance.now();
        step();
        times.append.push(performance.now() - t);
        appendedSteps++;
        t = performance.now();
        const { body, report } = session.buildBytes(options);
        times.stepBytes.push(performance.now() - t);
        // A step that moves a pruning boundary rewrites old results: the full path, by design.
        if (report.reuse?.appendedOnly) fastSteps++;
        bodyBytes = body.length;
        reportBytes.push(JSON.stringify(report).length);
      },
      () => {
        step(countOnly);
        const t = performance.now();
        countOnly.buildBytes(countOnlyOptions);
        times.stepBytesCountOnly.push(performance.now() - t);
      },
      () => {
        step();
        // The count-only session grows as this one does.
        step(countOnly);
        appendedSteps++;
        const t = performance.now();
        const { body } = session.buildString(options);
        times.stepString.push(performance.now() - t);
        payload = JSON.parse(body);
      },
      stringify,
    ],
    [
      () => {
        const fresh = cv.Session.fromLog(log);
        const t = performance.now();
        fresh.buildBytes(options);
        times.full.push(performance.now() - t);
        fresh.free();
      },
      () => {
        const t = performance.now();
        cv.buildRequestString({ ...options, log });
        times.fromText.push(performance.now() - t);
      },
      stringify,
      // The floor of any build from text: parsing the log's lines (the body's stringify beside it).
      () => {
        const t = performance.now();
        for (const line of lines) JSON.parse(line);
        times.parseLog.push(performance.now() - t);
      },
    ],
  ];
  for (const contenders of phases) {
    for (let run = 0; run < runs; run++) {
      for (let k = 0; k < contenders.length; k++) contenders[(run + k) % contenders.length]();
    }
  }
  session.free();
  countOnly.free();
  const floor = median(times.stringify);
  const ratio = (k) => +(median(times[k]) / floor).toFixed(2);
  return {
    name,
    logBytes: Buffer.byteLength(log),
    items: cv.Session.fromLog(log).itemCount(),
    bodyBytes,
    appendedSteps,
    stepsOnTheAppendPath: `${fastSteps} of ${times.stepBytes.length}`,
    reportBytes: { median: median(reportBytes), max: Math.max(...reportBytes) },
    medianMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, +median(v).toFixed(3)])),
    ratioToStringify: { stepBytes: ratio('stepBytes'), stepString: ratio('stepString'), full: ratio('full'), fromText: ratio('fromText') },
    stepOverCountOnly: +(median(times.stepBytes) / median(times.stepBytesCountOnly)).toFixed(2),
    fromTextOverParseAndStringify: +(median(times.fromText) / (median(times.parseLog) + floor)).toFixed(2),
  };
}

function main() {
  const results = [measure('generated 2,000 items', generateSession(2000), RUNS), measure('generated 10,000 items', generateSession(10000), Math.max(5, Math.round(RUNS / 2)))];
  const real = realSessions();
  if (real.skipped) console.log(`real sessions SKIPPED: ${real.skipped}`);
  for (const { name, log } of real.sessions) results.push(measure(name, log, Math.max(5, Math.round(RUNS / 2))));

  console.log('\n| session | log | items | body | stringify (ms) | step → buildBytes | ÷ count rules only | step → buildString | full build | from text | from text ÷ (parse the log + stringify) | report JSON per step |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const kb = (n) => `${Math.round(n / 1024)} KB`;
  for (const r of results) {
    const x = r.ratioToStringify;
    console.log(`| ${r.name} | ${kb(r.logBytes)} | ${r.items} | ${kb(r.bodyBytes)} | ${r.medianMs.stringify} | ${x.stepBytes}× (${r.medianMs.stepBytes} ms; ${r.stepsOnTheAppendPath} appended) | ${r.stepOverCountOnly}× | ${x.stepString}× | ${x.full}× (${r.medianMs.full} ms) | ${x.fromText}× (${r.medianMs.fromText} ms) | ${r.fromTextOverParseAndStringify}× (parse ${r.medianMs.parseLog} ms) | ${r.reportBytes.median} B (max ${r.reportBytes.max}) |`);
  }
  console.log('targets: step ≤ 0.3×, full ≤ 1.5×, from text ≤ 3×; from text ≤ 1.5× (parse the log + stringify)');
  // Both modules: the first-load one every entry loads, and the lazy one (importers, discovery).
  const sizes = (file) => {
    const bytes = readFileSync(fileURLToPath(new URL(`../pkg/web/${file}`, import.meta.url)));
    return { bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  };
  const modules = { first: sizes('contextview_bg.wasm'), lazy: sizes('contextview_lazy_bg.wasm') };
  console.log(`modules (Node gzip -9): first-load ${modules.first.gzipBytes} B, lazy ${modules.lazy.gzipBytes} B, together ${modules.first.gzipBytes + modules.lazy.gzipBytes} B`);
  console.log(JSON.stringify({ date: new Date().toISOString().slice(0, 10), node: process.version, runs: RUNS, modules, results }, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
