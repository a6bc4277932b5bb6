// Decoding a provider's answer, run by `make bench` after `make build`: what taking an answer
// back costs, as a ratio to `JSON.parse` of the same answer's JSON (every SSE event's data, or
// the whole body) — the floor any JS client pays to read it — in one Node process, contenders in
// rotating order. Aim: decoding a stream costs ≤ 1.5× parsing its JSON.
//
// Workloads (generated, deterministic): per API, a long streamed answer of the shapes the
// fixtures hold (thinking or reasoning summary, about 1,500 text deltas, four tool calls whose
// arguments stream in pieces, usage), fed in 4 KiB chunks; and the same answer whole (one JSON
// body). Contenders:
//   - stream → session:  beginAnswer, answerBytes per chunk (live updates returned to JS),
//                        endAnswer (the records written) on a fresh session
//   - whole → session:   providerAnswer with the whole body
//   - JSON.parse:         of every event's data (stream) or of the body (whole)
import { performance } from 'node:perf_hooks';
import * as cv from '../pkg/node.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const DELTAS = Number(process.env.DELTAS ?? 1500);
const CHUNK = 4096;
const NOW = '2026-12-03T10:00:00Z';
const word = (i) => ['the', 'parser', 'drops', 'its', 'last', 'line', 'when', 'input', 'ends', 'without', 'a', 'newline'][i % 12] + ' ';

function sse(events, named) {
  return events.map((e) => `${named ? `event: ${e.type}\n` : ''}data: ${JSON.stringify(e)}\n\n`).join('');
}

function anthropic() {
  const ev = [{ type: 'message_start', message: { id: 'msg_b', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], usage: { input_tokens: 10, output_tokens: 1 } } }];
  ev.push({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
  for (let i = 0; i < 200; i++) ev.push({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: word(i) } });
  ev.push({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'S'.repeat(300) } }, { type: 'content_block_stop', index: 0 });
  ev.push({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < DELTAS; i++) ev.push({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: word(i) } });
  ev.push({ type: 'content_block_stop', index: 1 });
  for (let c = 0; c < 4; c++) {
    ev.push({ type: 'content_block_start', index: 2 + c, content_block: { type: 'tool_use', id: `toolu_${c}`, name: 'read_file', input: {} } });
    for (const piece of ['{"path": "src/', `module_${c}.rs`, '", "limit": 200}']) ev.push({ type: 'content_block_delta', index: 2 + c, delta: { type: 'input_json_delta', partial_json: piece } });
    ev.push({ type: 'content_block_stop', index: 2 + c });
  }
  ev.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2000 } }, { type: 'message_stop' });
  const text = Array.from({ length: DELTAS }, (_, i) => word(i)).join('');
  const whole = { id: 'msg_b', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'thinking', thinking: 'x'.repeat(1200), signature: 'S'.repeat(300) }, { type: 'text', text }, ...[0, 1, 2, 3].map((c) => ({ type: 'tool_use', id: `toolu_${c}`, name: 'read_file', input: { path: `src/module_${c}.rs`, limit: 200 } }))], stop_reason: 'tool_use', usage: { input_tokens: 10, output_tokens: 2000 } };
  return { stream: sse(ev, true), events: ev, whole: JSON.stringify(whole) };
}

function chat() {
  const base = { id: 'chatcmpl-b', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', usage: null, obfuscation: 'xyz' };
  const ev = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  for (let i = 0; i < DELTAS; i++) ev.push({ ...base, choices: [{ index: 0, delta: { content: word(i) }, finish_reason: null }] });
  for (let c = 0; c < 4; c++) {
    ev.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: c, id: `call_${c}`, type: 'function', function: { name: 'read_file', arguments: '' } }] }, finish_reason: null }] });
    for (const piece of ['{"path": "src/', `module_${c}.rs`, '", "limit": 200}']) ev.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: c, function: { arguments: piece } }] }, finish_reason: null }] });
  }
  ev.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }, { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 2000, total_tokens: 2010 } });
  const text = Array.from({ length: DELTAS }, (_, i) => word(i)).join('');
  const whole = { id: 'chatcmpl-b', object: 'chat.completion', created: 1, model: 'gpt-4.1', choices: [{ index: 0, message: { role: 'assistant', content: text, tool_calls: [0, 1, 2, 3].map((c) => ({ id: `call_${c}`, type: 'function', function: { name: 'read_file', arguments: `{"path": "src/module_${c}.rs", "limit": 200}` } })) }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 10, completion_tokens: 2000, total_tokens: 2010 } };
  return { stream: sse(ev, false) + 'data: [DONE]\n\n', events: ev, whole: JSON.stringify(whole) };
}

function responses() {
  let n = 0;
  const e = (type, rest) => ({ type, ...rest, sequence_number: n++ });
  const response = { id: 'resp_b', object: 'response', status: 'in_progress', model: 'gpt-5', output: [], usage: null };
  const ev = [e('response.created', { response }), e('response.output_item.added', { output_index: 0, item: { id: 'rs_b', type: 'reasoning', summary: [] } })];
  for (let i = 0; i < 200; i++) ev.push(e('response.reasoning_summary_text.delta', { item_id: 'rs_b', output_index: 0, summary_index: 0, delta: word(i), obfuscation: 'ab' }));
  ev.push(e('response.output_item.done', { output_index: 0, item: { id: 'rs_b', type: 'reasoning', encrypted_content: 'g'.repeat(800), summary: [{ type: 'summary_text', text: 'x'.repeat(1200) }] } }));
  ev.push(e('response.output_item.added', { output_index: 1, item: { id: 'msg_b', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }));
  ev.push(e('response.content_part.added', { item_id: 'msg_b', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
  for (let i = 0; i < DELTAS; i++) ev.push(e('response.output_text.delta', { item_id: 'msg_b', output_index: 1, content_index: 0, delta: word(i), logprobs: [], obfuscation: 'ab' }));
  const text = Array.from({ length: DELTAS }, (_, i) => word(i)).join('');
  ev.push(e('response.output_item.done', { output_index: 1, item: { id: 'msg_b', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] } }));
  const calls = [];
  for (let c = 0; c < 4; c++) {
    const item = { id: `fc_${c}`, type: 'function_call', call_id: `call_${c}`, name: 'read_file', arguments: `{"path": "src/module_${c}.rs", "limit": 200}`, status: 'completed' };
    calls.push(item);
    ev.push(e('response.output_item.added', { output_index: 2 + c, item: { ...item, arguments: '', status: 'in_progress' } }));
    for (const piece of ['{"path": "src/', `module_${c}.rs`, '", "limit": 200}']) ev.push(e('response.function_call_arguments.delta', { item_id: `fc_${c}`, output_index: 2 + c, delta: piece }));
    ev.push(e('response.output_item.done', { output_index: 2 + c, item }));
  }
  const usage = { input_tokens: 10, output_tokens: 2000, total_tokens: 2010 };
  ev.push(e('response.completed', { response: { ...response, status: 'completed', usage } }));
  const whole = { ...response, status: 'completed', usage, output: [{ id: 'rs_b', type: 'reasoning', encrypted_content: 'g'.repeat(800), summary: [{ type: 'summary_text', text: 'x'.repeat(1200) }] }, { id: 'msg_b', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }, ...calls] };
  return { stream: sse(ev, true), events: ev, whole: JSON.stringify(whole) };
}

function gemini() {
  const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const chunk = (parts, extra = {}) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], usageMetadata: usage, modelVersion: 'gemini-3-pro-preview', responseId: 'g_b' });
  const ev = [];
  for (let i = 0; i < 200; i++) ev.push(chunk([{ text: word(i), thought: true }]));
  for (let i = 0; i < DELTAS; i++) ev.push(chunk([{ text: word(i) }]));
  ev.push(chunk([0, 1, 2, 3].map((c) => ({ functionCall: { id: `c${c}`, name: 'read_file', args: { path: `src/module_${c}.rs`, limit: 200 } }, ...(c === 0 ? { thoughtSignature: 'S'.repeat(300) } : {}) })), { finishReason: 'STOP' }));
  const text = Array.from({ length: DELTAS }, (_, i) => word(i)).join('');
  const whole = chunk([{ text: 'x'.repeat(1200), thought: true }, { text }, ...[0, 1, 2, 3].map((c) => ({ functionCall: { id: `c${c}`, name: 'read_file', args: { path: `src/module_${c}.rs`, limit: 200 } } }))], { finishReason: 'STOP' });
  return { stream: ev.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(''), events: ev, whole: JSON.stringify(whole) };
}

const WORKLOADS = { anthropic, 'openai-chat': chat, 'openai-responses': responses, gemini };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const encoder = new TextEncoder();

function session(provider) {
  const s = cv.Session.create('bench');
  s.dispatch({ type: 'switchModel', provider, model: 'm' }, NOW);
  s.dispatch({ type: 'userMessage', text: 'Why does the parser test fail?' }, NOW);
  return s;
}

console.log(`# answer decoding, ${RUNS} runs, median ms (ratio to JSON.parse of the same JSON)`);
// V8 first runs wasm from its baseline compiler and tiers up to the optimising one as it runs:
// every workload is decoded a few times before anything is timed, so the first one measured is
// not the one that paid for the tier-up.
for (const make of Object.values(WORKLOADS)) {
  const w = make();
  const provider = Object.keys(WORKLOADS).find((k) => WORKLOADS[k] === make);
  for (let i = 0; i < 8; i++) {
    const s = session(provider);
    s.dispatch({ type: 'beginAnswer' }, NOW);
    s.answerBytes(encoder.encode(w.stream));
    s.dispatch({ type: 'endAnswer' }, NOW);
    s.dispatch({ type: 'providerAnswer', body: w.whole }, NOW);
    s.free();
  }
}
for (const [provider, make] of Object.entries(WORKLOADS)) {
  const w = make();
  const bytes = encoder.encode(w.stream);
  const chunks = [];
  for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(bytes.subarray(at, at + CHUNK));
  const dataTexts = w.stream.split(/\r?\n/).filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => l.slice(6));
  const contenders = {
    'stream → session': () => {
      const s = session(provider);
      s.dispatch({ type: 'beginAnswer' }, NOW);
      let updates = 0;
      for (const c of chunks) updates += s.answerBytes(c).length;
      const p = s.dispatch({ type: 'endAnswer' }, NOW);
      if (p.error || updates === 0) throw new Error(JSON.stringify(p.error));
      s.free();
    },
    'parse stream JSON': () => {
      let n = 0;
      for (const t of dataTexts) n += JSON.parse(t) ? 1 : 0;
      if (n !== dataTexts.length) throw new Error('parse');
    },
    'whole → session': () => {
      const s = session(provider);
      const p = s.dispatch({ type: 'providerAnswer', body: w.whole }, NOW);
      if (p.error) throw new Error(JSON.stringify(p.error));
      s.free();
    },
    'parse whole JSON': () => {
      if (!JSON.parse(w.whole)) throw new Error('parse');
    },
  };
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  const names = Object.keys(contenders);
  for (let r = 0; r < RUNS + 2; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      const t0 = performance.now();
      contenders[name]();
      if (r >= 2) times[name].push(performance.now() - t0);
    }
  }
  const m = Object.fromEntries(names.map((n) => [n, median(times[n])]));
  console.log(`${provider}: stream ${(bytes.length / 1024).toFixed(0)} KiB in ${dataTexts.length} events — decode ${m['stream → session'].toFixed(2)} ms vs parse ${m['parse stream JSON'].toFixed(2)} ms ` +
    `(${(m['stream → session'] / m['parse stream JSON']).toFixed(2)}×, ${(bytes.length / 1048576 / (m['stream → session'] / 1000)).toFixed(0)} MiB/s); ` +
    `whole ${(w.whole.length / 1024).toFixed(0)} KiB — decode ${m['whole → session'].toFixed(2)} ms vs parse ${m['parse whole JSON'].toFixed(3)} ms (${(m['whole → session'] / m['parse whole JSON']).toFixed(1)}×)`);
}
