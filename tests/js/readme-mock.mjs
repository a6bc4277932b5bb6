// A local stand-in for the four providers, loaded before a README example runs (node --import):
// `fetch` to an API's endpoint is answered here, in process, the way that API answers
// (standin.mjs) — a stream when the request asks for one (Anthropic and OpenAI `stream: true`,
// Gemini's `streamGenerateContent?alt=sse`), a whole body otherwise. The first request of a
// conversation gets a turn that calls `read_file` on parser.rs, the next one (which carries the
// tool's result) a closing text. `CV_STANDIN_FAULTS` (`anthropic:rate-limited,gemini:html-500`)
// makes an API's first request fail that way (`openai-chat:max-tokens*4`: its first four). A
// compaction's summary request is answered with a summary. A request without the API's key
// header (and Anthropic's version header) is refused with a 401. Every request is checked with
// the package's own validator and appended, with what was checked, to requests.jsonl in the
// working directory.
//
// `CV_STORAGE_FAULTS` (`anthropic.jsonl:3`) makes the third append to that file fail as a full
// disk does (ENOSPC), once: node:fs/promises' `open` for appending is wrapped, as the package
// calls it.
import { appendFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';
import { validatePayload } from 'contextview';
import { providerOf, respond } from './standin.mjs';

const faults = new Map((process.env.CV_STANDIN_FAULTS ?? '').split(',').filter(Boolean).map((f) => {
  const [provider, spec] = f.split(':');
  const [scenario, times = '1'] = spec.split('*');
  return [provider, { scenario, times: Number(times) }];
}));
const sent = new Map();

const storageFaults = new Map((process.env.CV_STORAGE_FAULTS ?? '').split(',').filter(Boolean).map((f) => {
  const [file, nth] = f.split(':');
  return [file, Number(nth)];
}));
if (storageFaults.size > 0) {
  const open = fsp.open;
  const appends = new Map();
  fsp.open = async (path, flags, ...rest) => {
    const file = basename(String(path));
    if (flags === 'a' && storageFaults.has(file)) {
      const n = (appends.get(file) ?? 0) + 1;
      appends.set(file, n);
      if (n === storageFaults.get(file)) {
        appendFileSync('storage-faults.jsonl', JSON.stringify({ file, append: n }) + '\n');
        throw Object.assign(new Error(`ENOSPC: no space left on device, open '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'open', path: String(path) });
      }
    }
    return open(path, flags, ...rest);
  };
  syncBuiltinESMExports();
}

/** A whole (unstreamed) body: the stream's events gathered as the API would have answered. */
async function whole(provider, response) {
  if (response.status !== 200) return response;
  const text = await response.text();
  const events = text.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6)));
  let body;
  switch (provider) {
    case 'anthropic': {
      const message = events.find((e) => e.type === 'message_start').message;
      const blocks = [];
      for (const e of events) {
        if (e.type === 'content_block_start') blocks[e.index] = { ...e.content_block };
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') blocks[e.index].text += e.delta.text;
        if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') blocks[e.index].json = (blocks[e.index].json ?? '') + e.delta.partial_json;
        if (e.type === 'message_delta') Object.assign(message, e.delta, { usage: { ...message.usage, ...e.usage } });
      }
      message.content = blocks.map(({ json, ...b }) => (json === undefined ? b : { ...b, input: JSON.parse(json) }));
      body = message;
      break;
    }
    case 'openai-chat': {
      const message = { role: 'assistant', content: '' };
      let finish = null;
      for (const e of events) {
        const choice = e.choices[0];
        if (!choice) continue;
        message.content += choice.delta.content ?? '';
        for (const call of choice.delta.tool_calls ?? []) {
          message.tool_calls ??= [];
          const held = (message.tool_calls[call.index] ??= { id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } });
          held.function.arguments += call.function.arguments ?? '';
        }
        finish = choice.finish_reason ?? finish;
      }
      body = { id: 'chatcmpl-1', object: 'chat.completion', created: 1764700000, model: events[0].model, choices: [{ index: 0, message, finish_reason: finish }], usage: events.at(-1).usage };
      break;
    }
    case 'openai-responses': {
      const end = events.at(-1).response;
      end.output = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
      body = end;
      break;
    }
    case 'gemini': {
      const parts = events.flatMap((e) => e.candidates[0].content.parts);
      const last = events.at(-1);
      body = { candidates: [{ content: { role: 'model', parts }, finishReason: last.candidates[0].finishReason, index: 0 }], usageMetadata: last.usageMetadata, modelVersion: last.modelVersion };
      break;
    }
  }
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = String(input instanceof Request ? input.url : input);
  const provider = providerOf(url);
  if (!provider) return realFetch(input, init);
  // Each API reads its key, and Anthropic its version, from its own header; without them it says
  // no, as the real one does.
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  const key = { anthropic: headers.get('x-api-key'), 'openai-chat': headers.get('authorization')?.replace(/^Bearer /, ''),
    'openai-responses': headers.get('authorization')?.replace(/^Bearer /, ''), gemini: headers.get('x-goog-api-key') }[provider];
  if (!key || (provider === 'anthropic' && !headers.get('anthropic-version')) || headers.get('content-type') !== 'application/json') {
    appendFileSync('requests.jsonl', JSON.stringify({ provider, url, refused: 'headers', headers: [...headers.keys()] }) + '\n');
    return new Response(JSON.stringify({ error: { type: 'authentication_error', message: 'missing key, version or content type' } }), { status: 401, headers: { 'content-type': 'application/json' } });
  }
  const raw = init.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : String(init.body);
  const body = JSON.parse(raw);
  const violations = validatePayload(provider, body);
  // A conversation that already holds the tool's result gets the closing turn.
  const answered = JSON.stringify(body).includes('fn parse');
  const streamed = provider === 'gemini' ? url.includes(':streamGenerateContent') : body.stream === true;
  const model = body.model ?? url.match(/models\/([^:]+):/)?.[1] ?? 'unknown';
  const summarising = raw.includes('Answer with the summary alone');
  const nth = summarising ? 0 : sent.get(provider) ?? 0;
  if (!summarising) sent.set(provider, nth + 1);
  const fault = faults.get(provider);
  const scenario = summarising ? 'summary' : fault && nth < fault.times ? fault.scenario : 'ok';
  appendFileSync('requests.jsonl', JSON.stringify({ provider, url, streamed, violations, answered, scenario, bytes: raw.length, body }) + '\n');
  const response = respond(provider, scenario, { model, callTool: !answered });
  return streamed ? response : whole(provider, response);
};

