// A local stand-in for the four providers, loaded before a README example runs (node --import):
// `fetch` to an API's endpoint is answered here, in process, the way that API answers — a
// stream when the request asks for one (Anthropic and OpenAI `stream: true`, Gemini's
// `streamGenerateContent?alt=sse`), a whole body otherwise. The first request of a conversation
// gets a turn that calls `read_file` on parser.rs, the next one (which carries the tool's result)
// a closing text. Every request is checked with the package's own validator and appended, with
// what was checked, to requests.jsonl in the working directory for the test to read.
import { appendFileSync } from 'node:fs';
import { validatePayload } from 'contextview';

const FILE = 'parser.rs';
const ARGS = JSON.stringify({ path: FILE });

function sse(events) {
  return events.map(([name, data]) => (name ? `event: ${name}\n` : '') + `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
}

const answers = {
  anthropic(callTool, model) {
    const start = { type: 'message_start', message: { id: `msg_${callTool ? 1 : 2}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 } } };
    const text = callTool ? 'Reading the parser.' : 'The parser drops the last line.';
    const events = [
      ['message_start', start],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ];
    if (callTool) {
      events.push(
        ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01Read', name: 'read_file', input: {} } }],
        ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ARGS.slice(0, 5) } }],
        ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ARGS.slice(5) } }],
        ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      );
    }
    events.push(
      ['message_delta', { type: 'message_delta', delta: { stop_reason: callTool ? 'tool_use' : 'end_turn' }, usage: { output_tokens: 20 } }],
      ['message_stop', { type: 'message_stop' }],
    );
    return { stream: sse(events), text };
  },
  'openai-chat'(callTool, model) {
    const text = callTool ? 'Reading the parser.' : 'The parser drops the last line.';
    const chunk = (delta, finish = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764700000, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    const events = [[null, chunk({ role: 'assistant', content: text })]];
    if (callTool) {
      events.push(
        [null, chunk({ tool_calls: [{ index: 0, id: 'call_01Read', type: 'function', function: { name: 'read_file', arguments: ARGS.slice(0, 5) } }] })],
        [null, chunk({ tool_calls: [{ index: 0, function: { arguments: ARGS.slice(5) } }] })],
      );
    }
    events.push(
      [null, chunk({}, callTool ? 'tool_calls' : 'stop')],
      [null, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764700000, model, choices: [], usage: { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 } }],
      [null, '[DONE]'],
    );
    const message = { role: 'assistant', content: text, ...(callTool ? { tool_calls: [{ id: 'call_01Read', type: 'function', function: { name: 'read_file', arguments: ARGS } }] } : {}) };
    const whole = { id: 'chatcmpl-1', object: 'chat.completion', created: 1764700000, model, choices: [{ index: 0, message, finish_reason: callTool ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 } };
    return { stream: sse(events), whole, text };
  },
  'openai-responses'(callTool, model) {
    const text = callTool ? 'Reading the parser.' : 'The parser drops the last line.';
    const message = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_01Read', name: 'read_file', arguments: ARGS, status: 'completed' };
    const output = callTool ? [message, call] : [message];
    const response = (status, out) => ({ id: 'resp_1', object: 'response', status, model, output: out, usage: status === 'completed' ? { input_tokens: 12, output_tokens: 20, total_tokens: 32 } : null });
    const events = [
      ['response.created', { type: 'response.created', response: response('in_progress', []) }],
      ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } }],
      ['response.output_text.delta', { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text }],
      ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item: message }],
    ];
    if (callTool) {
      events.push(
        ['response.output_item.added', { type: 'response.output_item.added', output_index: 1, item: { ...call, arguments: '', status: 'in_progress' } }],
        ['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: ARGS }],
        ['response.output_item.done', { type: 'response.output_item.done', output_index: 1, item: call }],
      );
    }
    events.push(['response.completed', { type: 'response.completed', response: response('completed', output) }]);
    return { stream: sse(events), whole: response('completed', output), text };
  },
  gemini(callTool, model) {
    const text = callTool ? 'Reading the parser.' : 'The parser drops the last line.';
    const usage = { promptTokenCount: 12, candidatesTokenCount: 20, totalTokenCount: 32 };
    const first = { candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], modelVersion: model };
    const last = callTool
      ? { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: FILE } } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: model }
      : { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: model };
    return { stream: sse([[null, first], [null, last]]), whole: { candidates: [{ content: { role: 'model', parts: [...first.candidates[0].content.parts, ...last.candidates[0].content.parts] }, finishReason: 'STOP' }], usageMetadata: usage, modelVersion: model }, text };
  },
};

function providerOf(url) {
  if (url.startsWith('https://api.anthropic.com/v1/messages')) return 'anthropic';
  if (url.startsWith('https://api.openai.com/v1/chat/completions')) return 'openai-chat';
  if (url.startsWith('https://api.openai.com/v1/responses')) return 'openai-responses';
  if (url.startsWith('https://generativelanguage.googleapis.com/')) return 'gemini';
  return null;
}

/** The body's bytes in small pieces, as a network would deliver them. */
function inPieces(text) {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.subarray(at, at + 7));
      controller.close();
    },
  });
}

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = String(input instanceof Request ? input.url : input);
  const provider = providerOf(url);
  if (!provider) return realFetch(input, init);
  const raw = init.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : String(init.body);
  const body = JSON.parse(raw);
  const violations = validatePayload(provider, body);
  const serialized = JSON.stringify(body);
  // A conversation that already holds the tool's result gets the closing turn.
  const answered = serialized.includes('fn parse');
  const streamed = provider === 'gemini' ? url.includes(':streamGenerateContent') : body.stream === true;
  const model = body.model ?? url.match(/models\/([^:]+):/)?.[1] ?? 'unknown';
  appendFileSync('requests.jsonl', JSON.stringify({ provider, url, streamed, violations, answered, bytes: raw.length, body }) + '\n');
  const answer = answers[provider](!answered, model);
  if (streamed) return new Response(inPieces(answer.stream), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const whole = answer.whole ?? answer.stream;
  return new Response(inPieces(JSON.stringify(whole)), { status: 200, headers: { 'content-type': 'application/json' } });
};

/** The README's stand-in for a call to the model with a prepared compaction request. */
globalThis.summarize = async (body) => `## Goal\nKeep going.\n## Progress\n${String(body).length} bytes summarised.\n## Next\nRun the tests.`;
