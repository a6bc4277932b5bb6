// Writes every payload we build as a TypeScript file that assigns it, as an object literal, to a
// variable typed with the provider SDK's own request type, so `tsc -p target/sdk-types` checks our
// payload shapes against @anthropic-ai/sdk, openai and @google/genai (literal types included: a
// JSON import would widen `"user"` to `string`). Sources: examples/session.jsonl (with
// examples/system.md and examples/tools.json) and, when ../shared/corpus/sessions exists next to
// the repo, every session there (imported with importSession).
//
// Also writes target/sdk-types/negative/: deliberately broken payloads in their own project, on
// which tsc must fail (see sdk-types.test.mjs), so the check provably can fail.
//
// More sources, all our own and always present: synthetic sessions whose reasoning is native to
// the target (same provider family and model), so reasoning items, thinking/redacted_thinking
// blocks and Gemini thought signatures are rendered for replay (native.<provider>.ts); answers
// holding every kind of server and hosted tool block the APIs' request types list
// (tests/fixtures/natives/*, answer-natives.<provider>.ts); and builds with every request
// setting each SDK's create params have, set (settings-N.<provider>.ts, which also prove that
// every SDK key is covered).
//
// The other direction, the SDKs' types into ours (inputs.ts): each SDK's function tool type is
// a ToolInput, and each SDK's create params, less the keys the package makes itself or refuses
// (REFUSED, each with its reason in the README), are a providerOptions section, null and all.
//
// Usage: node tests/sdk-types/generate.mjs && node_modules/.bin/tsc -p target/sdk-types
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const out = join(root, 'target/sdk-types');
const corpus = join(root, '../shared/corpus/sessions');

// provider -> [import line, declared type]
const SDK_TYPES = {
  anthropic: [
    "import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';",
    'MessageCreateParamsNonStreaming',
  ],
  'openai-chat': [
    "import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';",
    'ChatCompletionCreateParamsNonStreaming',
  ],
  // One deliberate difference: under `store: false` the model's items go back without their ids
  // (the SDK's types require them), because a request that names one is refused ("Item with id
  // 'rs_…' not found. Items are not persisted when `store` is set to false."): a reasoning item by
  // its encrypted content, an annotated text as an output message without `id` and `status`, a
  // hosted tool's item without `id`. Stored, they go with their ids. Everything else is checked
  // against the SDK's own item types.
  'openai-responses': [
    "import type { ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseOutputMessage } from 'openai/resources/responses/responses';\n" +
      "type IdBack<T> = T extends { id: string } ? Omit<T, 'id'> & { id?: string } : T;\n" +
      "type MessageBack = Omit<ResponseOutputMessage, 'id' | 'status'> & { id?: string; status?: ResponseOutputMessage['status'] };\n" +
      "type ResponsesBody = Omit<ResponseCreateParamsNonStreaming, 'input'> & { input: Array<IdBack<Exclude<ResponseInputItem, ResponseOutputMessage>> | MessageBack> };",
    'ResponsesBody',
  ],
  // Our Gemini payload is the REST body, not the SDK's GenerateContentParameters (which nests
  // systemInstruction and tools under `config`): check each field against the SDK's type, and
  // (by excess-property checking of the literal) that there are no other top-level fields.
  //
  // @google/genai declares its enumerations as TS `enum`s, to which no string is assignable (not
  // ours, not a caller's literal): its types are checked with each enum read as the strings it is
  // (`${Enum}`), the one transformation of an SDK type here. @google/genai has no type for the
  // REST body either (its client takes `{model, contents, config}`): the body is composed of its
  // types for each field.
  gemini: [
    "import type { Content, GenerationConfig, SafetySetting, Tool, ToolConfig } from '@google/genai';\n" +
      'type Strings<T> = T extends string ? `${T}` : T extends (infer U)[] ? Strings<U>[] : T extends object ? { [K in keyof T]: Strings<T[K]> } : T;\n' +
      'type GeminiRestBody = Strings<{ generationConfig?: GenerationConfig; safetySettings?: SafetySetting[]; toolConfig?: ToolConfig; cachedContent?: string;\n' +
      '  labels?: Record<string, string>; systemInstruction?: Content; contents: Content[]; tools?: Tool[] }>;',
    'GeminiRestBody',
  ],
};
const PROVIDERS = Object.keys(SDK_TYPES);

function tsFile(provider, payload, note) {
  const [imports, type] = SDK_TYPES[provider];
  // JSON text is a valid TS object literal; assigning it to a typed variable checks it with
  // literal types and excess-property checks.
  return `// ${note}\n${imports}\n\nexport const payload: ${type} = ${JSON.stringify(payload, null, 2)};\n`;
}

// Anthropic refuses to build a request that ends with an assistant turn; append a user turn.
function withUserTurn(log) {
  const lines = log.split('\n').filter((l) => l.trim() !== '');
  let seq = 0;
  for (const line of lines) {
    const rec = JSON.parse(line);
    if (typeof rec.seq === 'number' && rec.seq > seq) seq = rec.seq;
  }
  const rec = {
    seq: seq + 1,
    ts: '2026-01-01T00:00:00Z',
    update: {
      sessionUpdate: 'user_message_chunk',
      messageId: 'x',
      content: { type: 'text', text: 'continue' },
    },
  };
  return lines.join('\n') + '\n' + JSON.stringify(rec) + '\n';
}

function build(input) {
  try {
    return { payload: cv.buildRequest(input).payload, appended: false };
  } catch (e) {
    if (input.provider !== 'anthropic' || e?.code !== 'ends_with_assistant') throw e;
    return { payload: cv.buildRequest({ ...input, log: withUserTurn(input.log) }).payload, appended: true };
  }
}

// A session whose reasoning carries the given _meta.contextview fields, one turn per entry:
// user, thought, tool call + result, answer; then a closing user turn.
function nativeLog(provider, model, turns) {
  const ts = '2026-01-01T00:00:00Z';
  const records = [{ format: 'contextview.session-log', version: 1, sessionId: `native-${provider}` }];
  let seq = 0;
  const add = (update) => records.push({ seq: ++seq, ts, update });
  const origin = { provider, model };
  turns.forEach((turn, i) => {
    add({ sessionUpdate: 'user_message_chunk', messageId: `u${i}`, content: { type: 'text', text: `Step ${i}?` } });
    add({
      sessionUpdate: 'agent_thought_chunk',
      messageId: `r${i}`,
      content: { type: 'text', text: turn.text ?? `Thinking about step ${i}.` },
      _meta: { contextview: { ...origin, ...turn.reasoning } },
    });
    add({
      sessionUpdate: 'tool_call',
      toolCallId: `call_${i}`,
      title: 'ls',
      kind: 'execute',
      status: 'pending',
      rawInput: { command: 'ls' },
      _meta: { contextview: { ...origin, toolName: 'bash', ...turn.call } },
    });
    add({
      sessionUpdate: 'tool_call_update',
      toolCallId: `call_${i}`,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'Cargo.toml\nsrc' } }],
    });
    add({
      sessionUpdate: 'agent_message_chunk',
      messageId: `m${i}`,
      content: { type: 'text', text: `Done with step ${i}.` },
      _meta: { contextview: { ...origin, ...turn.message } },
    });
  });
  add({ sessionUpdate: 'user_message_chunk', messageId: 'ulast', content: { type: 'text', text: 'continue' } });
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

// Citations as Anthropic's answers carry them (with `file_id`, which a request does not take),
// one of each kind, and one of a kind no version knows (left out of the request).
const CITATIONS = [
  { type: 'char_location', cited_text: 'a', document_index: 0, document_title: 'README', start_char_index: 0, end_char_index: 1, file_id: null },
  { type: 'page_location', cited_text: 'b', document_index: 1, document_title: null, start_page_number: 1, end_page_number: 2, file_id: null },
  { type: 'content_block_location', cited_text: 'c', document_index: 2, document_title: 'notes', start_block_index: 0, end_block_index: 1 },
  { type: 'web_search_result_location', cited_text: 'd', encrypted_index: 'EIDX', title: 'Serde', url: 'https://serde.rs/' },
  { type: 'search_result_location', cited_text: 'e', search_result_index: 0, source: 'kb', title: null, start_block_index: 0, end_block_index: 0 },
  { type: 'a_future_location', cited_text: 'f' },
];
// The same for OpenAI Responses annotations.
const ANNOTATIONS = [
  { type: 'url_citation', url: 'https://serde.rs/', title: 'Serde', start_index: 0, end_index: 4 },
  { type: 'file_citation', file_id: 'file_1', filename: 'a.md', index: 3 },
  { type: 'container_file_citation', container_id: 'cntr_1', file_id: 'file_2', filename: 'b.csv', start_index: 0, end_index: 2 },
  { type: 'file_path', file_id: 'file_3', index: 5 },
  { type: 'a_future_annotation', index: 1 },
];

// target provider -> [origin provider, model, turns, provider options]
const NATIVE = {
  anthropic: ['anthropic', 'claude-sonnet-4-5', [
    { reasoning: { signature: 'EqQBCkYIBRgCKkCsig' }, message: { annotations: CITATIONS } }, // thinking + signature; cited text
    { text: '', reasoning: { encrypted: 'EmwKAhgBEgy3redacted' } }, // redacted_thinking
  ]],
  'openai-responses': ['openai-responses', 'gpt-5', [
    { reasoning: { encrypted: 'gAAAAABencryptedOnly' } }, // stateless replay: encrypted content, no id
    { reasoning: { reasoningId: 'rs_0002', encrypted: 'gAAAAABencrypted2' }, message: { itemId: 'msg_0002', annotations: ANNOTATIONS } },
    { reasoning: { reasoningId: 'rs_0003' } }, // id alone (store=true)
  ]],
  // Not stored: items go back without their ids.
  'openai-responses-unstored': ['openai-responses', 'gpt-5', [
    { reasoning: { encrypted: 'gAAAAABencryptedOnly' }, message: { itemId: 'msg_0001', annotations: ANNOTATIONS } },
  ], { 'openai-responses': { store: false } }],
  gemini: ['gemini', 'gemini-2.5-pro', [
    { reasoning: { signature: 'CiQBthoughtSig' }, call: { signature: 'CiQBcallSig' } }, // thoughtSignature on parts
  ]],
};

const NEGATIVE = {
  // A thinking block without its signature. (Not `role: "system"` in messages: MessageParam in
  // @anthropic-ai/sdk 1.16 includes SystemMessageParam, so tsc accepts that.)
  'anthropic-thinking-without-signature': [
    'anthropic',
    {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'hello' }] },
        { role: 'user', content: 'again' },
      ],
    },
  ],
  // A message with a role the API does not have.
  'anthropic-tool-role': [
    'anthropic',
    { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'tool', content: 'ok' }] },
  ],
  // A tool_result block without tool_use_id.
  'anthropic-tool-result-without-id': [
    'anthropic',
    {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'ok' }] }],
    },
  ],
  // A tool message without tool_call_id.
  'openai-chat-tool-without-call-id': [
    'openai-chat',
    { model: 'gpt-4.1', messages: [{ role: 'tool', content: 'ok' }] },
  ],
  // function_call_output with a misspelled call id field.
  'openai-responses-bad-call-id': [
    'openai-responses',
    { model: 'gpt-5', input: [{ type: 'function_call_output', callId: 'call_1', output: 'ok' }] },
  ],
  // A part with a field Gemini does not have.
  'gemini-unknown-part-field': [
    'gemini',
    { contents: [{ role: 'user', parts: [{ txt: 'hi' }] }] },
  ],
};

const OUR_TYPES = "import type { AnthropicRequest, GeminiRequest, OpenAiChatRequest, OpenAiResponsesRequest } from '../../pkg/web/contextview.js';";
const SDK_IMPORTS = [
  "import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages';",
  "import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';",
  "import type { ResponseCreateParamsBase, ResponseInputItem, ResponseOutputMessage } from 'openai/resources/responses/responses';",
  SDK_TYPES.gemini[0],
].join('\n');

// Blocks and items the provider's own answer carried (server and hosted tools' calls and results)
// are typed as the SDKs' own request shapes, so nothing is left out of this check. The one
// exception is the Responses ids a request leaves out under `store: false` (see SDK_TYPES), the
// same on both sides here; Gemini's enums are read as their strings (see SDK_TYPES).
const TYPES_FILE = `// Our payload types are assignable to the SDKs' request types.
${OUR_TYPES}
${SDK_IMPORTS}

type IdBack<T> = T extends { id: string } ? Omit<T, 'id'> & { id?: string } : T;
type MessageBack = Omit<ResponseOutputMessage, 'id' | 'status'> & { id?: string; status?: ResponseOutputMessage['status'] };
type ResponsesBase = Omit<ResponseCreateParamsBase, 'input'> & { input?: Array<IdBack<Exclude<ResponseInputItem, ResponseOutputMessage>> | MessageBack> };

declare const anthropic: AnthropicRequest;
declare const chat: OpenAiChatRequest;
declare const responses: OpenAiResponsesRequest;
declare const gemini: GeminiRequest;
export const a: MessageCreateParamsBase = anthropic;
export const c: ChatCompletionCreateParamsBase = chat;
export const r: ResponsesBase = responses;
export const g: GeminiRestBody = gemini;
`;

// Every request setting each SDK's create params have (less REFUSED), set — in two objects
// where two of them may not go together. Built with the example session, each must be taken,
// and each (but the header ones, and nulls) must be in the body.
export const SETTINGS = {
  anthropic: [
    {
      max_tokens: 4096,
      container: { id: 'container_01', skills: [{ skill_id: 'pdf', type: 'anthropic', version: 'latest' }] },
      diagnostics: { previous_message_id: 'msg_01Prev' },
      inference_geo: 'us',
      metadata: { user_id: 'user-7f3a' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object', properties: { answer: { type: 'string' } } } } },
      service_tier: 'auto',
      speed: 'standard',
      stop_sequences: ['<END>'],
      stream: true,
      thinking: { type: 'adaptive', display: 'summarized' },
      tool_choice: { type: 'auto', disable_parallel_tool_use: false },
      user_profile_id: 'up_01',
      workspace_id: 'wrkspc_01',
    },
  ],
  'openai-chat': [
    {
      frequency_penalty: 0.1,
      logit_bias: { 50256: -100 },
      logprobs: true,
      max_completion_tokens: 2048,
      max_tokens: null,
      metadata: { project: 'parser' },
      moderation: { model: 'omni-moderation-latest', policy: { input: { mode: 'score' }, output: null } },
      n: 1,
      parallel_tool_calls: true,
      presence_penalty: 0,
      prompt_cache_key: 'parser-session',
      prompt_cache_options: { mode: 'implicit', ttl: '30m' },
      prompt_cache_retention: '24h',
      reasoning_effort: null,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } } }, strict: true } },
      safety_identifier: 'user-7f3a',
      seed: 7,
      service_tier: 'default',
      stop: ['<END>'],
      store: false,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      tool_choice: { type: 'function', function: { name: 'read_file' } },
      top_logprobs: 2,
      top_p: 0.9,
      user: 'user-7f3a',
      verbosity: null,
      web_search_options: { search_context_size: 'low', user_location: { type: 'approximate', approximate: { country: 'DE' } } },
    },
    { prediction: { type: 'content', content: 'fn main() {}' }, verbosity: 'low', reasoning_effort: 'low' },
  ],
  'openai-responses': [
    {
      access_programs: { cyber: 'standard' },
      background: false,
      background_options: { completion_window: 'soonest' },
      image: { context_compression: 'auto' },
      include: ['reasoning.encrypted_content'],
      max_output_tokens: 4096,
      max_tool_calls: 5,
      metadata: { project: 'parser' },
      moderation: { model: 'omni-moderation-latest' },
      parallel_tool_calls: true,
      prompt_cache_key: 'parser-session',
      prompt_cache_options: { mode: 'implicit', ttl: '30m', comparison_response_id: null },
      prompt_cache_retention: '24h',
      reasoning: { effort: 'medium', summary: 'auto' },
      safety_identifier: 'user-7f3a',
      service_tier: 'auto',
      store: false,
      stream: true,
      stream_options: { include_obfuscation: false },
      temperature: null,
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } } }, strict: true }, verbosity: 'low' },
      tool_choice: { type: 'mcp', server_label: 'docs', name: null },
      top_logprobs: null,
      top_p: null,
      truncation: 'auto',
      user: 'user-7f3a',
    },
  ],
  gemini: [
    {
      generationConfig: {
        maxOutputTokens: 4096, temperature: 0.4, topP: 0.9, topK: 40, candidateCount: 1, stopSequences: ['<END>'],
        presencePenalty: 0, frequencyPenalty: 0, seed: 7, responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { answer: { type: 'STRING', nullable: true } }, required: ['answer'] },
        responseModalities: ['TEXT'], responseLogprobs: true, logprobs: 2, mediaResolution: 'MEDIA_RESOLUTION_LOW',
        thinkingConfig: { thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED', includeThoughts: true },
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } }, languageCode: 'en-US' },
        audioTranscriptionConfig: { languageCodes: ['en-US'], mode: 'VERBATIM' },
        audioTimestamp: false, enableAffectiveDialog: false, enableEnhancedCivicAnswers: false,
        modelSelectionConfig: { featureSelectionPreference: 'BALANCED' },
        responseFormat: [{ text: { mimeType: 'application/json' } }],
        routingConfig: { autoMode: { modelRoutingPreference: 'BALANCED' } },
        translationConfig: { targetLanguageCode: 'de', echoTargetLanguage: false },
      },
      safetySettings: [
        { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'BLOCK_ONLY_HIGH', method: 'SEVERITY' },
        { category: 'HARM_CATEGORY_IMAGE_HATE', threshold: 'HARM_BLOCK_THRESHOLD_UNSPECIFIED' },
      ],
      toolConfig: {
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['read_file'] },
        retrievalConfig: { languageCode: 'en', latLng: { latitude: 52.5, longitude: 13.4 } },
        includeServerSideToolInvocations: true,
      },
      labels: { team: 'parser' },
    },
    { generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object' }, thinkingConfig: { thinkingBudget: 1024 } }, cachedContent: 'cachedContents/parser-1' },
  ],
};

// A session of one prompt: no earlier turn decides anything for the settings (a tool loop begun
// without thinking, say, would leave Anthropic's thinking out of the request).
const PROMPT_LOG = [
  { format: 'contextview.session-log', version: 1, sessionId: 'settings' },
  { seq: 1, ts: '2026-12-01T10:00:00Z', update: { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: { type: 'text', text: 'Why does the parser test fail?' } } },
].map((r) => JSON.stringify(r)).join('\n') + '\n';

// The model each settings build targets (one that takes every setting given).
const SETTINGS_MODEL = { anthropic: 'claude-opus-4-6', 'openai-chat': 'gpt-4o-search-preview', 'openai-responses': 'gpt-5', gemini: 'gemini-3-pro-preview' };

// The settings' own type on the SDK's side, for the files that check them.
const SETTINGS_TYPES = {
  anthropic: ["import type { MessageCreateParamsBase as Params } from '@anthropic-ai/sdk/resources/messages';", 'Params'],
  'openai-chat': ["import type { ChatCompletionCreateParamsBase as Params } from 'openai/resources/chat/completions';", 'Params'],
  'openai-responses': ["import type { ResponseCreateParamsBase as Params, ResponseInputItem, ResponseOutputMessage } from 'openai/resources/responses/responses';\n" +
    "type IdBack<T> = T extends { id: string } ? Omit<T, 'id'> & { id?: string } : T;\n" +
    "type MessageBack = Omit<ResponseOutputMessage, 'id' | 'status'> & { id?: string; status?: ResponseOutputMessage['status'] };", 'Omit<Params, \'input\'> & { input?: Array<IdBack<Exclude<ResponseInputItem, ResponseOutputMessage>> | MessageBack> }'],
  gemini: [SDK_TYPES.gemini[0], 'GeminiRestBody'],
};

function settingsFile(provider, given, payloads) {
  const [imports, body] = SETTINGS_TYPES[provider];
  const section = provider === 'gemini'
    ? "Omit<GeminiRestBody, 'contents' | 'systemInstruction' | 'tools'>"
    : `Omit<Params, ${REFUSED[provider].map((k) => `'${k}'`).join(' | ')}>`;
  const lines = [`// Every setting of the SDK's create params, given to a build, and the payloads built.`, imports, ''];
  given.forEach((g, i) => lines.push(`export const given${i}: ${section} = ${JSON.stringify(g, null, 2)};`));
  lines.push(`type Covered = ${given.map((_, i) => `keyof typeof given${i}`).join(' | ')};`);
  lines.push(`export const covered: [Exclude<keyof ${section}, Covered>] extends [never] ? 'all' : Exclude<keyof ${section}, Covered> = 'all';`);
  payloads.forEach((p, i) => lines.push(`export const payload${i}: ${body} = ${JSON.stringify(p, null, 2)};`));
  return lines.join('\n') + '\n';
}

// Answers holding server and hosted tools' blocks of every kind the request types list.
const NATIVE_ANSWERS = {
  anthropic: ['anthropic-server-tools.json', 'claude-sonnet-4-5', [{}]],
  'openai-responses': ['openai-responses-hosted-tools.json', 'gpt-5', [{}, { 'openai-responses': { store: false } }]],
};

/** A session that asked one question and recorded `answer`, then asked again. */
function answeredSession(provider, model, answer) {
  const session = cv.Session.create(`natives-${provider}`);
  const now = '2026-12-01T10:00:00Z';
  session.dispatch({ type: 'switchModel', provider, model, contextWindow: 200000 }, now);
  session.dispatch({ type: 'userMessage', text: 'What changed in the parser?' }, now);
  const p = session.dispatch({ type: 'providerAnswer', body: answer }, now);
  if (p.error) throw new Error(`${provider}: ${JSON.stringify(p.error)}`);
  session.dispatch({ type: 'userMessage', text: 'Go on.' }, now);
  return session;
}

// What a providerOptions section does not take of its SDK's create params, and why (the README
// lists the same, in "Types both ways"): what the build makes itself, and what would put in the
// request what the log does not hold.
export const REFUSED = {
  anthropic: ['messages', 'model', 'system', 'tools', 'cache_control'],
  'openai-chat': ['messages', 'model', 'tools', 'functions', 'function_call', 'audio', 'modalities'],
  'openai-responses': ['input', 'model', 'instructions', 'tools', 'previous_response_id', 'conversation', 'context_management', 'prompt'],
};

// The SDKs' types into ours: function tools as ToolInput, create params (less REFUSED) as a
// providerOptions section — and no key of theirs that ours lacks.
const INPUTS_FILE = `// The SDKs' types are accepted where the package takes the same thing.
import type { ProviderOptions, ToolInput } from '../../pkg/web/contextview.js';
import type { MessageCreateParamsBase, Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletionCreateParamsBase, ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsBase, FunctionTool } from 'openai/resources/responses/responses';
import type { GenerationConfig, SafetySetting, Tool as GeminiTool, ToolConfig } from '@google/genai';

declare const anthropicTools: AnthropicTool[];
declare const chatTools: ChatCompletionFunctionTool[];
declare const responsesTools: FunctionTool[];
declare const geminiTools: GeminiTool[];
export const tools: ToolInput[] = [...anthropicTools, ...chatTools, ...responsesTools, ...geminiTools];

type Anthropic = Omit<MessageCreateParamsBase, ${REFUSED.anthropic.map((k) => `'${k}'`).join(' | ')}>;
type Chat = Omit<ChatCompletionCreateParamsBase, ${REFUSED['openai-chat'].map((k) => `'${k}'`).join(' | ')}>;
type Responses = Omit<ResponseCreateParamsBase, ${REFUSED['openai-responses'].map((k) => `'${k}'`).join(' | ')}>;
type Gemini = { generationConfig?: GenerationConfig; safetySettings?: SafetySetting[]; toolConfig?: ToolConfig; cachedContent?: string; labels?: Record<string, string> };
declare const anthropic: Anthropic;
declare const chat: Chat;
declare const responses: Responses;
declare const gemini: Gemini;
export const options: ProviderOptions = { anthropic, 'openai-chat': chat, 'openai-responses': responses, gemini };
export const nulls: ProviderOptions = { anthropic: null, 'openai-chat': { temperature: null, stop: null }, 'openai-responses': { reasoning: { effort: null } }, gemini: { generationConfig: null } };

// Every key of theirs is one of ours (an SDK type with more keys would still be assignable).
type Ours<P extends keyof ProviderOptions> = NonNullable<ProviderOptions[P]>;
type Missing<Sdk, Our> = [Exclude<keyof Sdk, keyof Our>] extends [never] ? 'none' : Exclude<keyof Sdk, keyof Our>;
export const anthropicKeys: Missing<Anthropic, Ours<'anthropic'>> = 'none';
export const chatKeys: Missing<Chat, Ours<'openai-chat'>> = 'none';
export const responsesKeys: Missing<Responses, Ours<'openai-responses'>> = 'none';
export const geminiKeys: Missing<Gemini, Ours<'gemini'>> = 'none';
export const generationKeys: Missing<GenerationConfig, NonNullable<Ours<'gemini'>['generationConfig']>> = 'none';
export const safetyKeys: Missing<SafetySetting, NonNullable<Ours<'gemini'>['safetySettings']>[number]> = 'none';
export const toolConfigKeys: Missing<ToolConfig, NonNullable<Ours<'gemini'>['toolConfig']>> = 'none';
`;

// The same check must fail when the types do not fit: each API's type given to another's.
const TYPES_CROSSED = `// Deliberately crossed: tsc must refuse these.
${OUR_TYPES.replace("'../../pkg", "'../../../pkg")}
${SDK_IMPORTS}

declare const chat: OpenAiChatRequest;
declare const anthropic: AnthropicRequest;
export const a: MessageCreateParamsBase = chat;
export const c: ChatCompletionCreateParamsBase = anthropic;
`;

function tsconfig(files) {
  return JSON.stringify(
    {
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        // The SDKs' own .d.ts internals are not ours to check; our files still are, fully. With
        // the dom lib (fetch types) nothing in the SDKs' types is left unresolved (an unresolved
        // name would accept anything): `tsc -p target/sdk-types --skipLibCheck false` reports
        // no errors in node_modules.
        skipLibCheck: true,
        lib: ['es2022', 'dom'],
        types: [],
        noErrorTruncation: true,
      },
      files,
    },
    null,
    2,
  ) + '\n';
}

export async function generate() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'negative'), { recursive: true });
  // The .ts files are ES modules (the root package.json is "type": "module", but say so here).
  writeFileSync(join(out, 'package.json'), '{"type":"module","private":true}\n');
  const files = [];
  const write = (name, provider, payload, note) => {
    const file = `${name}.${provider}.ts`;
    writeFileSync(join(out, file), tsFile(provider, payload, note));
    files.push(file);
  };

  // (a) The example session, with system prompt and tools.
  const log = readFileSync(join(root, 'examples/session.jsonl'), 'utf8');
  const system = readFileSync(join(root, 'examples/system.md'), 'utf8');
  const tools = JSON.parse(readFileSync(join(root, 'examples/tools.json'), 'utf8'));
  for (const provider of PROVIDERS) {
    const { payload, appended } = build({ log, provider, system, tools });
    write('example', provider, payload, `examples/session.jsonl${appended ? ' + a user turn' : ''}, --provider ${provider}`);
  }

  // (c) Synthetic sessions with reasoning native to the target.
  for (const [name, [origin, model, turns, providerOptions]] of Object.entries(NATIVE)) {
    const provider = name.replace(/-unstored$/, '');
    const { payload } = build({ log: nativeLog(origin, model, turns), provider, model, providerOptions });
    const what = providerOptions ? `, providerOptions ${JSON.stringify(providerOptions)}` : '';
    write(name === provider ? 'native' : `native-${name.slice(provider.length + 1)}`, provider, payload,
      `synthetic session with ${origin} ${model} reasoning and cited text, --provider ${provider} --model ${model}${what}`);
  }

  // (d) Answers with every kind of server and hosted tool block, sent back.
  const nativeKinds = {};
  for (const [provider, [file, model, optionSets]] of Object.entries(NATIVE_ANSWERS)) {
    const answer = readFileSync(join(root, 'tests/fixtures/natives', file), 'utf8');
    optionSets.forEach((providerOptions, i) => {
      const session = answeredSession(provider, model, answer);
      const built = session.build({ provider, model, providerOptions });
      if (built.report.unknownNatives?.length) throw new Error(`${file}: left out ${built.report.unknownNatives}`);
      const sent = JSON.stringify(built.payload);
      nativeKinds[`${provider}${i ? '-unstored' : ''}`] = [...sent.matchAll(/"type":"([a-z_]+)"/g)].map((m) => m[1]);
      write(i ? 'answer-natives-unstored' : 'answer-natives', provider, built.payload, `tests/fixtures/natives/${file} answered, asked again${i ? ', providerOptions ' + JSON.stringify(providerOptions) : ''}`);
    });
  }

  // (e) Every setting each SDK's create params have, given to a build of the example session.
  const settingsBuilt = {};
  for (const [provider, given] of Object.entries(SETTINGS)) {
    const model = SETTINGS_MODEL[provider];
    const payloads = given.map((section) => {
      // An explicit cache holds the system prompt and tools itself.
      const own = section.cachedContent === undefined ? { system, tools } : {};
      const input = { log: PROMPT_LOG, provider, model, ...own, providerOptions: { [provider]: section } };
      try {
        return cv.buildRequest(input).payload;
      } catch (e) {
        throw new Error(`${provider} settings refused: ${e.message}`);
      }
    });
    settingsBuilt[provider] = payloads;
    const file = `settings.${provider}.ts`;
    writeFileSync(join(out, file), settingsFile(provider, given, payloads));
    files.push(file);
  }

  writeFileSync(join(out, 'settings-built.json'), JSON.stringify(settingsBuilt, null, 2) + '\n');

  // (f) The SDKs' types into ours.
  writeFileSync(join(out, 'inputs.ts'), INPUTS_FILE);
  files.push('inputs.ts');

  // (b) The shared corpus, if present.
  const corpusFound = existsSync(corpus);
  let sessions = 0;
  if (corpusFound) {
    if (typeof cv.loadLazyModule !== 'function') {
      throw new Error('pkg/ has no loadLazyModule: rebuild it with scripts/build.sh');
    }
    const lazy = await cv.loadLazyModule();
    const names = readdirSync(corpus).filter((n) => n.endsWith('.jsonl')).sort();
    names.forEach((name, i) => {
      const text = readFileSync(join(corpus, name), 'utf8');
      const { log } = lazy.importSession(text);
      const short = basename(name, '.jsonl').replace(/[^A-Za-z0-9_-]+/g, '_').slice(-48);
      const id = `corpus-${String(i + 1).padStart(2, '0')}-${short}`;
      for (const provider of PROVIDERS) {
        const { payload, appended } = build({ log, provider });
        write(id, provider, payload, `corpus session ${name}${appended ? ' + a user turn' : ''}, --provider ${provider}`);
      }
      sessions++;
    });
  }
  // (d) Our payload *types*, not values: each assignable to its SDK's request type (the `Base`
  // one, which `create()` takes whether or not `stream` is set), settings and all.
  writeFileSync(join(out, 'types.ts'), TYPES_FILE);
  files.push('types.ts');
  writeFileSync(join(out, 'tsconfig.json'), tsconfig(files));

  // Negative project: tsc must report an error in every one of these files.
  const negative = [];
  writeFileSync(join(out, 'negative', 'types-crossed.ts'), TYPES_CROSSED);
  negative.push('types-crossed.ts');
  for (const [name, [provider, payload]] of Object.entries(NEGATIVE)) {
    const file = `${name}.${provider}.ts`;
    writeFileSync(join(out, 'negative', file), tsFile(provider, payload, `deliberately broken: ${name}`));
    negative.push(file);
  }
  writeFileSync(join(out, 'negative', 'tsconfig.json'), tsconfig(negative));

  return { out, files, negative, corpusFound, sessions, nativeKinds, settingsBuilt };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await generate();
  console.log(
    `sdk-types: wrote ${r.files.length} payloads to target/sdk-types ` +
      `(example session: ${PROVIDERS.length}; native reasoning: ${Object.keys(NATIVE).length}; corpus: ` +
      (r.corpusFound ? `found, ${r.sessions} sessions, ${r.sessions * PROVIDERS.length} payloads` : `SKIPPED, ${corpus} not found`) +
      `) and ${r.negative.length} broken payloads to target/sdk-types/negative`,
  );
}
