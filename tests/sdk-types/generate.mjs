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
// A third, small source: synthetic sessions whose reasoning is native to the target (same provider
// family and model), so reasoning items, thinking/redacted_thinking blocks and Gemini thought
// signatures are rendered for replay (the example and corpus sessions mostly downgrade reasoning
// to text). They are written as native.<provider>.ts.
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
  // its encrypted content, an annotated text as an output message without `id` and `status`.
  // Stored, both go with their ids. Everything else is checked against the SDK's own item types.
  'openai-responses': [
    "import type { ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseOutputMessage, ResponseReasoningItem } from 'openai/resources/responses/responses';\n" +
      "type ReasoningBack = Omit<ResponseReasoningItem, 'id'> & { id?: string };\n" +
      "type MessageBack = Omit<ResponseOutputMessage, 'id' | 'status'> & { id?: string; status?: ResponseOutputMessage['status'] };\n" +
      "type ResponsesBody = Omit<ResponseCreateParamsNonStreaming, 'input'> & { input: Array<Exclude<ResponseInputItem, ResponseReasoningItem | ResponseOutputMessage> | ReasoningBack | MessageBack> };",
    'ResponsesBody',
  ],
  // Our Gemini payload is the REST body, not the SDK's GenerateContentParameters (which nests
  // systemInstruction and tools under `config`): check each field against the SDK's type, and
  // (by excess-property checking of the literal) that there are no other top-level fields.
  gemini: [
    "import type { Content, GenerationConfig, SafetySetting, Tool, ToolConfig } from '@google/genai';\n" +
      'type GeminiRestBody = { generationConfig?: GenerationConfig; safetySettings?: SafetySetting[]; toolConfig?: ToolConfig; cachedContent?: string;\n' +
      '  labels?: Record<string, string>; systemInstruction?: Content; contents: Content[]; tools?: Tool[] };',
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

const OUR_TYPES = "import type { AnthropicRequest, GeminiRequest, NativeBlock, OpenAiChatRequest, OpenAiResponsesRequest } from '../../pkg/web/contextview.js';";
const SDK_IMPORTS = [
  "import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages';",
  "import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';",
  "import type { ResponseCreateParamsBase } from 'openai/resources/responses/responses';",
  SDK_TYPES.gemini[0],
].join('\n');

// Blocks and items the provider's own answer carried (server tools' calls and results) are sent
// back as the provider gave them: typed as the opaque objects they are (NativeBlock), not as
// one of the SDK's block types. Everything else must be the SDK's.
const TYPES_FILE = `// Our payload types are assignable to the SDKs' request types.
${OUR_TYPES}
${SDK_IMPORTS}

type WithoutNative<T> = T extends NativeBlock ? (string extends T['type'] ? never : T) : T;
type Anthropic = Omit<AnthropicRequest, 'messages'> & {
  messages: Array<Omit<AnthropicRequest['messages'][number], 'content'> & { content: WithoutNative<AnthropicRequest['messages'][number]['content'][number]>[] }>;
};
// Not stored, a reasoning item and an annotated text go back without their ids (see SDK_TYPES):
// checked with them.
type Item = WithoutNative<OpenAiResponsesRequest['input'][number]>;
type Reasoning = Extract<Item, { type: 'reasoning' }>;
type Output = Extract<Item, { content: { type: 'output_text' }[] }>;
type Responses = Omit<OpenAiResponsesRequest, 'input'> & {
  input: (Exclude<Item, Reasoning | Output> | (Reasoning & { id: string }) | (Output & { id: string; status: 'completed' }))[];
};

declare const anthropic: Anthropic;
declare const chat: OpenAiChatRequest;
declare const responses: Responses;
declare const gemini: GeminiRequest;
export const a: MessageCreateParamsBase = anthropic;
export const c: ChatCompletionCreateParamsBase = chat;
export const r: ResponseCreateParamsBase = responses;
export const g: GeminiRestBody = gemini;
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

export function generate() {
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

  // (b) The shared corpus, if present.
  const corpusFound = existsSync(corpus);
  let sessions = 0;
  if (corpusFound) {
    if (typeof cv.importSession !== 'function') {
      throw new Error('pkg/ has no importSession: rebuild it with scripts/build.sh');
    }
    const names = readdirSync(corpus).filter((n) => n.endsWith('.jsonl')).sort();
    names.forEach((name, i) => {
      const text = readFileSync(join(corpus, name), 'utf8');
      const { log } = cv.importSession(text);
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

  return { out, files, negative, corpusFound, sessions };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = generate();
  console.log(
    `sdk-types: wrote ${r.files.length} payloads to target/sdk-types ` +
      `(example session: ${PROVIDERS.length}; native reasoning: ${Object.keys(NATIVE).length}; corpus: ` +
      (r.corpusFound ? `found, ${r.sessions} sessions, ${r.sessions * PROVIDERS.length} payloads` : `SKIPPED, ${corpus} not found`) +
      `) and ${r.negative.length} broken payloads to target/sdk-types/negative`,
  );
}
