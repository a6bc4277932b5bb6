// The libraries a JS developer would pick instead, side by side with us, run by `make bench`
// after `make build`: each builds the same Anthropic request body (the same turns, a system
// prompt and the same twelve tools) from its own message format, converted from ours outside the
// timed region, and the body is serialized to the string that would be sent. One Node process,
// contenders in rotating order, ratios to `JSON.stringify` of our payload (the floor).
//   - contextview, a step:   buildString after three records appended (the agent loop)
//   - contextview, full:     the first buildString of a session just loaded from its log
//   - LangChain:             @langchain/anthropic's message conversion + ChatAnthropic's
//                            invocation params, then JSON.stringify
//   - pi-ai:                 @mariozechner/pi-ai's Anthropic params (read through its onPayload
//                            hook, before any request), then JSON.stringify
//   - AI SDK:                ai + @ai-sdk/anthropic's doGenerate up to the fetch it would send
//                            (a fetch that keeps the body and stops)
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import * as cv from '../pkg/node.mjs';
import { generateSession, TOOLS, SYSTEM } from './build.bench.mjs';

import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage, AIMessage, ToolMessage, SystemMessage } from '@langchain/core/messages';
import { streamAnthropic } from '@mariozechner/pi-ai/anthropic';
import { getModel } from '@mariozechner/pi-ai';
import { createAnthropic } from '@ai-sdk/anthropic';

const RUNS = Number(process.env.RUNS ?? 15);
const MODEL = 'claude-sonnet-4-5';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// LangChain's converter is what ChatAnthropic runs on every call; the package exports only its
// entry point, so it is read from the file beside it.
const langchainDist = dirname(createRequire(import.meta.url).resolve('@langchain/anthropic'));
const { _convertMessagesToAnthropicPayload } = await import(join(langchainDist, 'utils/message_inputs.js'));

/** The conversation as neutral turns, from our own log (what every format is converted from). */
function turnsOf(log) {
  const turns = [];
  for (const line of log.split('\n').slice(1)) {
    if (!line) continue;
    const u = JSON.parse(line).update;
    switch (u.sessionUpdate) {
      case 'user_message_chunk': turns.push({ role: 'user', text: u.content.text }); break;
      case 'agent_thought_chunk': turns.push({ role: 'assistant', thinking: u.content.text, signature: u._meta.contextview.signature, texts: [], calls: [] }); break;
      case 'agent_message_chunk': turns.at(-1).texts.push(u.content.text); break;
      case 'tool_call': turns.at(-1).calls.push({ id: u.toolCallId, name: u._meta.contextview.toolName, input: u.rawInput }); break;
      case 'tool_call_update': turns.push({ role: 'tool', id: u.toolCallId, name: 'read_file', text: u.content[0].content.text }); break;
    }
  }
  // Each format expects the conversation to end on the user's side; the generator ends on a result.
  return turns;
}

const toLangChain = (turns) => [
  new SystemMessage(SYSTEM),
  ...turns.map((t) =>
    t.role === 'user' ? new HumanMessage(t.text)
      : t.role === 'tool' ? new ToolMessage({ tool_call_id: t.id, content: t.text })
        : new AIMessage({
          content: [{ type: 'thinking', thinking: t.thinking, signature: t.signature }, ...t.texts.map((text) => ({ type: 'text', text }))],
          tool_calls: t.calls.map((c) => ({ id: c.id, name: c.name, args: c.input, type: 'tool_call' })),
        })),
];

const piModel = getModel('anthropic', MODEL);
const toPi = (turns) => ({
  systemPrompt: SYSTEM,
  tools: TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
  messages: turns.map((t) =>
    t.role === 'user' ? { role: 'user', content: t.text, timestamp: 0 }
      : t.role === 'tool' ? { role: 'toolResult', toolCallId: t.id, toolName: t.name, content: [{ type: 'text', text: t.text }], isError: false, timestamp: 0 }
        : {
          role: 'assistant', api: piModel.api, provider: piModel.provider, model: piModel.id, stopReason: 'toolUse', timestamp: 0,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          content: [{ type: 'thinking', thinking: t.thinking, thinkingSignature: t.signature }, ...t.texts.map((text) => ({ type: 'text', text })), ...t.calls.map((c) => ({ type: 'toolCall', id: c.id, name: c.name, arguments: c.input }))],
        }),
});

const toAiSdk = (turns) => [
  { role: 'system', content: SYSTEM },
  ...turns.map((t) =>
    t.role === 'user' ? { role: 'user', content: [{ type: 'text', text: t.text }] }
      : t.role === 'tool' ? { role: 'tool', content: [{ type: 'tool-result', toolCallId: t.id, toolName: t.name, output: { type: 'text', value: t.text } }] }
        : {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: t.thinking, providerOptions: { anthropic: { signature: t.signature } } },
            ...t.texts.map((text) => ({ type: 'text', text })),
            ...t.calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input })),
          ],
        }),
];

class Stop extends Error {}

async function measure(items) {
  const log = generateSession(items);
  // The peers send every result whole: our pruning is off here, so the bodies hold the same.
  const options = { provider: 'anthropic', model: MODEL, system: SYSTEM, tools: TOOLS, pruning: { enabled: false } };
  const session = cv.Session.fromLog(log);
  let seq = session.recordCount();
  const step = () => {
    const add = (update) => session.append(JSON.stringify({ seq: ++seq, ts: '2026-12-01T00:00:00Z', update }));
    const id = `toolu_extra_${seq}`;
    add({ sessionUpdate: 'agent_message_chunk', messageId: `extra${seq}`, content: { type: 'text', text: 'Let me check one more module.' } });
    add({ sessionUpdate: 'tool_call', toolCallId: id, title: 'Read file', kind: 'read', status: 'pending', rawInput: { path: `src/extra_${seq}.rs` }, _meta: { contextview: { toolName: 'read_file' } } });
    add({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `fn extra_${seq}() -> u32 { ${seq} }\n` } }] });
  };
  const ours = session.buildString(options).body;
  const payload = JSON.parse(ours);
  const turns = turnsOf(log);

  const langchain = new ChatAnthropic({ model: MODEL, apiKey: 'unused', maxTokens: 8192 });
  const lcTools = TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  const lcMessages = toLangChain(turns);
  const piContext = toPi(turns);
  const piClient = { messages: { create: () => { throw new Stop(); } } };
  const aiMessages = toAiSdk(turns);
  const aiTools = TOOLS.map((t) => ({ type: 'function', name: t.name, description: t.description, inputSchema: t.inputSchema }));
  let aiBody;
  const aiModel = createAnthropic({ apiKey: 'unused', fetch: async (_url, init) => { aiBody = init.body; throw new Stop(); } })(MODEL);

  const lengths = {};
  const times = { step: [], full: [], langchain: [], piAi: [], aiSdk: [], stringify: [] };
  const contenders = [
    async () => {
      step();
      const t = performance.now();
      session.buildString(options);
      times.step.push(performance.now() - t);
    },
    async () => {
      const fresh = cv.Session.fromLog(log);
      const t = performance.now();
      lengths.full = fresh.buildString(options).body.length;
      times.full.push(performance.now() - t);
      fresh.free();
    },
    async () => {
      const t = performance.now();
      const body = JSON.stringify({ ...langchain.invocationParams({ tools: lcTools }), ..._convertMessagesToAnthropicPayload(lcMessages) });
      times.langchain.push(performance.now() - t);
      lengths.langchain = body.length;
    },
    async () => {
      let body;
      const t = performance.now();
      // buildParams runs synchronously up to the onPayload hook.
      streamAnthropic(piModel, piContext, { client: piClient, onPayload: (params) => { body = JSON.stringify(params); } });
      times.piAi.push(performance.now() - t);
      lengths.piAi = body.length;
    },
    async () => {
      const t = performance.now();
      try {
        await aiModel.doGenerate({ prompt: aiMessages, tools: aiTools, maxOutputTokens: 8192 });
      } catch (e) {
        if (!(e instanceof Stop) && !(e?.cause instanceof Stop)) throw e;
      }
      times.aiSdk.push(performance.now() - t);
      lengths.aiSdk = aiBody.length;
    },
    async () => {
      const t = performance.now();
      JSON.stringify(payload);
      times.stringify.push(performance.now() - t);
    },
  ];
  for (const c of contenders) await c(); // warm-up
  for (const k of Object.keys(times)) times[k] = [];
  for (let run = 0; run < RUNS; run++) {
    for (let k = 0; k < contenders.length; k++) await contenders[(run + k) % contenders.length]();
  }
  session.free();
  const floor = median(times.stringify);
  return { items, ourBytes: ours.length, lengths, ratios: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, +(median(v) / floor).toFixed(2)])), medianMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, +median(v).toFixed(3)])) };
}

const results = [];
for (const items of [2000, 10000]) results.push(await measure(items));
console.log('\n| items | our body | stringify | contextview step | contextview full | LangChain | pi-ai | AI SDK |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const x = r.ratios;
  console.log(`| ${r.items} | ${Math.round(r.ourBytes / 1024)} KB | ${r.medianMs.stringify} ms | ${x.step}× | ${x.full}× | ${x.langchain}× | ${x.piAi}× | ${x.aiSdk}× |`);
}
console.log(JSON.stringify(results, null, 2));
