// Build-speed benchmark, run by `make bench` after `make build`.
//
// One Node process, a generated session of about 2,000 items (~1 MB of log). Each run appends
// what an agent loop adds between two requests (the model's text and tool call, the tool's
// result: three records), and times:
//   - append:       Session.append of those records (parse, fold into the replay)
//   - buildString:  then the Anthropic request body as the string you would send
//   - build:        the request as a JS object (after another append)
//   - stringify:    JSON.stringify of that payload object — the floor any JS builder pays
// in rotating order, and prints medians and the ratios against stringify.
// and print medians, the ratios against stringify, and the .wasm size raw and gzipped.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as cv from '../pkg/node.mjs';

const RUNS = Number(process.env.RUNS ?? 31);
const TARGET_ITEMS = 2000;

/** A deterministic session: user prompt, thinking, text, a tool call and its result, repeated. */
export function generateSession(targetItems) {
  const lines = [JSON.stringify({ format: 'contextview.session-log', version: 1, sessionId: 'bench' })];
  let seq = 0;
  let items = 0;
  const ts = '2026-12-01T00:00:00Z';
  const push = (update) => lines.push(JSON.stringify({ seq: ++seq, ts, update }));
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main() {
  const log = generateSession(TARGET_ITEMS);
  const session = cv.Session.fromLog(log);
  const options = { provider: 'anthropic', system: 'You are a coding agent.' };
  const items = session.itemCount();
  let seq = session.recordCount();
  const ts = '2026-12-01T00:00:00Z';
  // What happens between two requests of an agent loop: the model answered with a tool call,
  // and the tool's result came back — three records.
  const appendOne = () => {
    const add = (update) => session.append(JSON.stringify({ seq: ++seq, ts, update }));
    const id = `toolu_extra_${seq}`;
    add({ sessionUpdate: 'agent_message_chunk', messageId: `extra${seq}`, content: { type: 'text', text: 'Let me check one more module.' } });
    add({ sessionUpdate: 'tool_call', toolCallId: id, title: 'Read file', kind: 'read', status: 'pending', rawInput: { path: `src/extra_${seq}.rs` }, _meta: { contextview: { toolName: 'read_file' } } });
    add({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `fn extra_${seq}() -> u32 { ${seq} }\n` } }] });
  };

  // Warm up every path once (JIT, caches) before timing.
  const { body } = session.buildString(options);
  const { payload } = session.build(options);
  if (JSON.stringify(payload) !== body) throw new Error('object and string paths disagree');

  const times = { append: [], buildString: [], build: [], stringify: [] };
  let lastPayload = payload;
  for (let run = 0; run < RUNS; run++) {
    // Rotate the order so garbage collection and machine noise land on every contender alike.
    for (let k = 0; k < 3; k++) {
      const which = (run + k) % 3;
      if (which === 0) {
        let t0 = performance.now();
        appendOne();
        times.append.push(performance.now() - t0);
        t0 = performance.now();
        session.buildString(options);
        times.buildString.push(performance.now() - t0);
      } else if (which === 1) {
        appendOne();
        const t0 = performance.now();
        lastPayload = session.build(options).payload;
        times.build.push(performance.now() - t0);
      } else {
        const t0 = performance.now();
        JSON.stringify(lastPayload);
        times.stringify.push(performance.now() - t0);
      }
    }
  }
  const wasmPath = fileURLToPath(new URL('../pkg/web/contextview_bg.wasm', import.meta.url));
  const wasm = readFileSync(wasmPath);
  const floor = median(times.stringify);
  const result = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    runs: RUNS,
    logBytes: Buffer.byteLength(log),
    items,
    bodyBytes: Buffer.byteLength(body),
    medianMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, +median(v).toFixed(3)])),
    ratioToStringify: {
      buildString: +(median(times.buildString) / floor).toFixed(2),
      appendAndBuildString: +((median(times.append) + median(times.buildString)) / floor).toFixed(2),
      build: +(median(times.build) / floor).toFixed(2),
    },
    wasmBytes: wasm.length,
    wasmGzipBytes: gzipSync(wasm, { level: 9 }).length,
  };
  console.log(JSON.stringify(result, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
