// A stand-in for the four providers that fails on demand: for a scenario it answers the way that
// API answers — a whole turn, or a 429 with the API's own error body and retry headers, an
// overload, a proxy's HTML 500, an empty 503, a connection that drops mid-text, mid-thinking or
// mid-call, a stream that ends early, an answer cut by the output limit, a refusal, a
// context-length 400 in the API's own words. Plain Web APIs only (Response, ReadableStream), so
// the same stand-in runs in Node, in Chromium and in workerd.

export const APIS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

/** Every way an attempt can go. */
export const SCENARIOS = [
  'ok', 'rate-limited', 'overloaded', 'overloaded-mid-stream', 'html-500', 'empty-503',
  'drop-text', 'drop-thinking', 'drop-call', 'early-end', 'max-tokens', 'refusal', 'context-length',
  'blocked', 'daily-quota', 'summary',
];

/** The summary the stand-in writes when asked for one (the `summary` scenario). */
export const SUMMARY_TEXT = ['## Goal', 'Find why the parser test fails.', '## Constraints', 'None.', '## Progress', 'Read the modules one by one.',
  '## Decisions', 'Read the parser next.', '## Next steps', 'Read parser.rs.', '## Files', 'src/m0.rs and on', '## Pending actions', 'None.'].join('\n');

const FILE = 'parser.rs';
const ARGS = JSON.stringify({ path: FILE });
export const TOOL_TEXT = 'Reading the parser.';
export const DONE_TEXT = 'The parser drops the last line.';
export const CUT_TEXT = 'The parser keeps every line but the';

function sse(events) {
  return events.map(([name, data]) => (name ? `event: ${name}\n` : '') + `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
}

/**
 * A body in small pieces, each given when it is read; `fail` (an Error) breaks the stream once
 * they are read, as a dropped connection does (an error raised earlier would discard them).
 */
function body(text, { piece = 7, fail = null } = {}) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at < bytes.length) {
        controller.enqueue(bytes.slice(at, at + piece));
        at += piece;
      } else if (fail) controller.error(fail);
      else controller.close();
    },
  });
}

const json = (status, value, headers = {}) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A connection that dropped: what a runtime's fetch body throws. */
export function dropped() {
  return new TypeError('terminated');
}

// --- each API's events --------------------------------------------------------------------------

/** An API's stream of one turn: thinking (optional), text, a call (optional), and how it ended. */
const streams = {
  anthropic({ model, thinking, text, call, stop }) {
    const events = [['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 } } }]];
    let index = 0;
    const cut = [];
    if (thinking) {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } }]);
      cut.push(['thinking', events.length]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'SIG-standin==' } }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index }]);
      index += 1;
    }
    if (text) {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(0, 10) } }]);
      cut.push(['text', events.length]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(10) } }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index }]);
      index += 1;
    }
    if (call) {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: 'toolu_01Read', name: 'read_file', input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: ARGS.slice(0, 5) } }]);
      cut.push(['call', events.length]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: ARGS.slice(5) } }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    }
    cut.push(['end', events.length]);
    const reason = { done: call ? 'tool_use' : 'end_turn', 'max-tokens': 'max_tokens', refusal: 'refusal' }[stop];
    events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 20 } }]);
    events.push(['message_stop', { type: 'message_stop' }]);
    return { events, cut, error: ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }] };
  },
  'openai-chat'({ model, thinking, text, call, stop }) {
    const chunk = (delta, finish = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764700000, model, choices: [{ index: 0, delta, finish_reason: finish }], usage: null });
    const events = [[null, chunk({ role: 'assistant', content: '' })]];
    const cut = [];
    if (thinking) {
      events.push([null, chunk({ reasoning_content: thinking })]);
      cut.push(['thinking', events.length]);
    }
    if (text) {
      const field = stop === 'refusal' ? 'refusal' : 'content';
      events.push([null, chunk({ [field]: text.slice(0, 10) })]);
      cut.push(['text', events.length]);
      events.push([null, chunk({ [field]: text.slice(10) })]);
    }
    if (call) {
      events.push([null, chunk({ tool_calls: [{ index: 0, id: 'call_01Read', type: 'function', function: { name: 'read_file', arguments: ARGS.slice(0, 5) } }] })]);
      cut.push(['call', events.length]);
      events.push([null, chunk({ tool_calls: [{ index: 0, function: { arguments: ARGS.slice(5) } }] })]);
    }
    cut.push(['end', events.length]);
    const reason = { done: call ? 'tool_calls' : 'stop', 'max-tokens': 'length', refusal: 'stop' }[stop];
    events.push([null, chunk({}, reason)]);
    events.push([null, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764700000, model, choices: [], usage: { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 } }]);
    events.push([null, '[DONE]']);
    return { events, cut, error: [null, { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } }] };
  },
  'openai-responses'({ model, thinking, text, call, stop }) {
    const response = (status, extra = {}) => ({ id: 'resp_1', object: 'response', status, model, output: [], usage: null, ...extra });
    const events = [['response.created', { type: 'response.created', response: response('in_progress') }]];
    const cut = [];
    let index = 0;
    if (thinking) {
      const item = { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAAA-standin' };
      events.push(['response.output_item.added', { type: 'response.output_item.added', output_index: index, item: { ...item, encrypted_content: null } }]);
      events.push(['response.reasoning_summary_text.delta', { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: index, summary_index: 0, delta: thinking }]);
      cut.push(['thinking', events.length]);
      events.push(['response.output_item.done', { type: 'response.output_item.done', output_index: index, item: { ...item, summary: [{ type: 'summary_text', text: thinking }] } }]);
      index += 1;
    }
    if (text) {
      const part = stop === 'refusal' ? { type: 'refusal', refusal: text } : { type: 'output_text', text, annotations: [] };
      const delta = stop === 'refusal' ? 'response.refusal.delta' : 'response.output_text.delta';
      events.push(['response.output_item.added', { type: 'response.output_item.added', output_index: index, item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }]);
      events.push([delta, { type: delta, item_id: 'msg_1', output_index: index, content_index: 0, delta: text.slice(0, 10) }]);
      cut.push(['text', events.length]);
      events.push([delta, { type: delta, item_id: 'msg_1', output_index: index, content_index: 0, delta: text.slice(10) }]);
      const status = stop === 'max-tokens' ? 'incomplete' : 'completed';
      events.push(['response.output_item.done', { type: 'response.output_item.done', output_index: index, item: { id: 'msg_1', type: 'message', role: 'assistant', status, content: [part] } }]);
      index += 1;
    }
    if (call) {
      const item = { id: 'fc_1', type: 'function_call', call_id: 'call_01Read', name: 'read_file', arguments: ARGS, status: 'completed' };
      events.push(['response.output_item.added', { type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '', status: 'in_progress' } }]);
      events.push(['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: index, delta: ARGS.slice(0, 5) }]);
      cut.push(['call', events.length]);
      events.push(['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: index, delta: ARGS.slice(5) }]);
      events.push(['response.output_item.done', { type: 'response.output_item.done', output_index: index, item }]);
    }
    cut.push(['end', events.length]);
    const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 32 };
    if (stop === 'max-tokens') {
      events.push(['response.incomplete', { type: 'response.incomplete', response: response('incomplete', { usage, incomplete_details: { reason: 'max_output_tokens' } }) }]);
    } else {
      events.push(['response.completed', { type: 'response.completed', response: response('completed', { usage }) }]);
    }
    return { events, cut, error: ['response.failed', { type: 'response.failed', response: response('failed', { error: { code: 'server_error', message: 'The model failed to generate a response.' } }) }] };
  },
  gemini({ model, thinking, text, call, stop }) {
    const chunk = (parts, extra = {}) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: model, responseId: 'gR1' });
    const events = [];
    const cut = [];
    if (thinking) {
      events.push([null, chunk([{ text: thinking, thought: true }])]);
      cut.push(['thinking', events.length]);
    }
    if (text) {
      events.push([null, chunk([{ text: text.slice(0, 10) }])]);
      cut.push(['text', events.length]);
      events.push([null, chunk([{ text: text.slice(10) }])]);
    }
    const usage = { promptTokenCount: 12, candidatesTokenCount: 20, totalTokenCount: 32 };
    const reason = { done: 'STOP', 'max-tokens': 'MAX_TOKENS', refusal: 'SAFETY' }[stop];
    // Gemini sends a call whole, in one part: a drop mid-call is a drop before that part.
    if (call) cut.push(['call', events.length]);
    cut.push(['end', events.length]);
    events.push([null, { ...chunk(call ? [{ functionCall: { name: 'read_file', args: { path: FILE } } }] : [{ text: '' }], { finishReason: reason }), usageMetadata: usage }]);
    return { events, cut, error: [null, { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }] };
  },
};

// --- each API's error responses --------------------------------------------------------------------

const errors = {
  anthropic: {
    'rate-limited': () => json(429, { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization.' }, request_id: 'req_standin429' }, { 'request-id': 'req_standin429', 'retry-after-ms': '20' }),
    overloaded: () => json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_standin529' }, { 'request-id': 'req_standin529' }),
    'context-length': () => json(400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' }, request_id: 'req_standinCtx' }, { 'request-id': 'req_standinCtx' }),
  },
  'openai-chat': {
    'rate-limited': () => json(429, { error: { message: 'Rate limit reached for requests per min (RPM).', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'x-request-id': 'req_standin429', 'retry-after-ms': '20' }),
    overloaded: () => json(503, { error: { message: 'The engine is currently overloaded, please try again later', type: 'server_error', param: null, code: null } }, { 'x-request-id': 'req_standin503' }),
    'context-length': () => json(400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130511 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }, { 'x-request-id': 'req_standinCtx' }),
  },
  'openai-responses': {
    'rate-limited': () => json(429, { error: { message: 'Rate limit reached for tokens per min (TPM).', type: 'tokens', param: null, code: 'rate_limit_exceeded' } }, { 'x-request-id': 'req_standin429', 'retry-after-ms': '20' }),
    overloaded: () => json(503, { error: { message: 'The server is overloaded.', type: 'server_error', param: null, code: 'server_is_overloaded' } }, { 'x-request-id': 'req_standin503' }),
    'context-length': () => json(400, { error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } }, { 'x-request-id': 'req_standinCtx' }),
  },
  gemini: {
    'rate-limited': () => json(429, { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.02s' }] } }),
    overloaded: () => json(503, { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }),
    'context-length': () => json(400, { error: { code: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } }),
    // A free tier's daily quota spent: Gemini still names a short wait beside it.
    'daily-quota': () => json(429, { error: { code: 429, message: 'You exceeded your current quota. Please retry in 34.4s.', status: 'RESOURCE_EXHAUSTED', details: [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaValue: '250' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' },
    ] } }),
  },
};

/**
 * `provider`'s answer under `scenario`: a turn that calls `read_file` (`callTool`) or one that
 * closes with a text, or that scenario's failure. `thinking` adds a thinking block before the
 * text. The body arrives in small pieces.
 */
export function respond(provider, scenario, { model = 'standin', callTool = true, thinking = false } = {}) {
  const stream = (plan, how = {}) => {
    const { events, cut, error } = streams[provider]({ model, thinking: plan.thinking, text: plan.text, call: plan.call, stop: plan.stop ?? 'done' });
    const at = how.cutAt ? cut.find(([name]) => name === how.cutAt)[1] : events.length;
    const shown = events.slice(0, at);
    if (how.error) shown.push(error);
    let text = sse(shown);
    // Gemini writes its error after the stream as raw JSON, not as an event.
    if (how.error && provider === 'gemini') text = sse(events.slice(0, at)) + JSON.stringify(error[1], null, 2) + '\n';
    return new Response(body(text, { fail: how.drop ? dropped() : null }), { status: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_standin200', 'request-id': 'req_standin200' } });
  };
  const turn = { thinking: thinking ? 'Read the parser first.' : null, text: callTool ? TOOL_TEXT : DONE_TEXT, call: callTool };
  switch (scenario) {
    case 'ok':
      return stream(turn);
    case 'rate-limited':
    case 'overloaded':
    case 'context-length':
      return errors[provider][scenario]();
    case 'overloaded-mid-stream':
      return stream(turn, { cutAt: 'text', error: true });
    case 'html-500':
      return new Response('<html>\n<head><title>500 Internal Server Error</title></head>\n<body><center><h1>500 Internal Server Error</h1></center><hr><center>nginx</center></body>\n</html>\n', { status: 500, headers: { 'content-type': 'text/html' } });
    case 'empty-503':
      return new Response(null, { status: 503 });
    case 'drop-text':
      return stream(turn, { cutAt: 'text', drop: true });
    case 'drop-thinking':
      return stream({ ...turn, thinking: 'Read the parser first.' }, { cutAt: 'thinking', drop: true });
    case 'drop-call':
      return stream({ ...turn, call: true }, { cutAt: 'call', drop: true });
    case 'early-end':
      return stream(turn, { cutAt: 'end' });
    case 'max-tokens':
      return stream({ thinking: turn.thinking, text: CUT_TEXT, call: false, stop: 'max-tokens' });
    case 'refusal':
      return stream({ text: provider === 'anthropic' ? null : "I can't help with that.", call: false, stop: 'refusal' });
    case 'summary':
      return stream({ text: SUMMARY_TEXT, call: false });
    case 'blocked':
      // Gemini blocks the prompt before the model answers: feedback, no candidates.
      if (provider !== 'gemini') throw new Error('only Gemini blocks a prompt this way');
      return new Response(sse([[null, { promptFeedback: { blockReason: 'MODEL_ARMOR' }, usageMetadata: { promptTokenCount: 412, totalTokenCount: 412 }, modelVersion: model, responseId: 'gRblock' }]]),
        { status: 200, headers: { 'content-type': 'text/event-stream' } });
    case 'daily-quota':
      if (provider !== 'gemini') throw new Error('only Gemini names a daily quota this way');
      return errors.gemini['daily-quota']();
    default:
      throw new Error(`no scenario ${scenario}`);
  }
}

/** Which API an endpoint URL is. */
export function providerOf(url) {
  if (url.startsWith('https://api.anthropic.com/v1/messages')) return 'anthropic';
  if (url.startsWith('https://api.openai.com/v1/chat/completions')) return 'openai-chat';
  if (url.startsWith('https://api.openai.com/v1/responses')) return 'openai-responses';
  if (url.startsWith('https://generativelanguage.googleapis.com/')) return 'gemini';
  return null;
}
