// Compiled with `tsc -p tests/types` against the generated pkg/index.d.ts: the declarations
// must be free of duplicates and the API must be usable with precise types.
import {
  buildRequest,
  buildRequestString,
  parseLog,
  replay,
  validatePayload,
  Session,
  type AnthropicRequest,
  type BuildInput,
  type BuildResult,
  type Diagnostic,
  type GeminiRequest,
  type Item,
  type OpenAiChatRequest,
  type OpenAiResponsesRequest,
  type Payload,
  type Processed,
  type Report,
  type ToolDef,
  type ToolInput,
  type Violation,
} from 'contextview';

const input: BuildInput = { provider: 'anthropic', log: '', system: 'sys', tools: [{ name: 'read', inputSchema: { type: 'object' } }] };
const built = buildRequest(input);
const payload: Payload = built.payload;
const report: Report = built.report;
const diagnostics: Diagnostic[] = built.diagnostics;

// A build for a known provider returns that API's payload type.
const anthropicBody: AnthropicRequest = buildRequest({ provider: 'anthropic', log: '' }).payload;
const geminiContents: number = buildRequest({ provider: 'gemini', log: '' }).payload.contents.length;
// @ts-expect-error a Gemini payload has no `messages`
buildRequest({ provider: 'gemini', log: '' }).payload.messages;

// A build for any provider is told apart by `provider`, no casts.
function describe(b: BuildResult): string {
  switch (b.provider) {
    case 'gemini': return `gemini ${b.payload.contents.length}`;
    case 'openai-responses': return `responses ${b.payload.input.length}`;
    case 'anthropic': return `anthropic ${b.payload.messages.length} ${b.payload.max_tokens}`;
    case 'openai-chat': return `chat ${b.payload.messages.length}`;
  }
}
const anyPayload: Payload = built.payload;
// Every setting a build sends is typed on its payload.
const thinking = buildRequest({ provider: 'anthropic', log: '' }).payload.thinking;
const effort = buildRequest({ provider: 'openai-chat', log: '' }).payload.reasoning_effort;
const reasoning = buildRequest({ provider: 'openai-responses', log: '' }).payload.reasoning;
const generation = buildRequest({ provider: 'gemini', log: '' }).payload.generationConfig?.maxOutputTokens;
const toolConfig = buildRequest({ provider: 'gemini', log: '' }).payload.toolConfig;
// @ts-expect-error settings sent as headers are not in the body
buildRequest({ provider: 'anthropic', log: '' }).payload.user_profile_id;
void thinking, effort, reasoning, generation, toolConfig;
void anthropicBody, geminiContents, anyPayload, (null as unknown as GeminiRequest), (null as unknown as OpenAiChatRequest), (null as unknown as OpenAiResponsesRequest);

// Settings per API, in each API's own names.
const withSettings: BuildInput = {
  provider: 'anthropic',
  log: '',
  providerOptions: {
    anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 }, tool_choice: { type: 'auto' }, max_tokens: 4096 },
    'openai-chat': { reasoning_effort: 'high', response_format: { type: 'json_object' }, seed: 1, stop: ['END'] },
    'openai-responses': { reasoning: { effort: 'low', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false },
    gemini: { generationConfig: { temperature: 0.2, thinkingConfig: { thinkingBudget: 1024 } }, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
  },
};
// @ts-expect-error thinking of a type Anthropic does not have
const badThinking: BuildInput = { provider: 'anthropic', providerOptions: { anthropic: { thinking: { type: 'always' } } } };
// @ts-expect-error Gemini's settings are camelCase
const badCase: BuildInput = { provider: 'gemini', providerOptions: { gemini: { generation_config: {} } } };
void withSettings, badThinking, badCase;

// A dispatched command's reply is the one that command gives.
const s2 = Session.create('t');
const p = s2.dispatch({ type: 'buildRequest', options: {} });
if (p.error) {
  const code: string = p.error.code;
  void code;
} else if (p.waiting) {
  // It waits for records the host keeps: its last effect says which.
  const asks: string | undefined = p.waiting.type === 'records' ? p.waiting.seqs.join(',') : undefined;
  const ran: Processed | null = s2.provideHistory('');
  void asks, ran;
} else {
  const body: string = p.reply.body;
  void body;
}
// A prompt never waits: without an error, it has its reply.
const prompt = s2.dispatch({ type: 'userMessage', text: 'hi' });
if (!prompt.error) {
  const accepted: string = prompt.reply.type;
  // @ts-expect-error a prompt does not wait
  prompt.waiting.type;
  void accepted;
}
const u = s2.dispatch({ type: 'userMessage', text: 'hi' });
if (!u.error) {
  const seqs: number[] | undefined = u.reply.type === 'accepted' ? u.reply.seqs : undefined;
  // @ts-expect-error a prompt's reply carries no body
  u.reply.body;
  void seqs;
}
const answered = s2.dispatch({ type: 'providerAnswer', body: '{}' });
if (!answered.error) {
  const calls: number = answered.reply.answer.toolCalls.length;
  void calls;
}

const body2: string = buildRequestString({ provider: 'gemini', items: [] }).body;
const items: Item[] = replay('').items;
const first = items[0];
if (first && first.type === 'tool_call') {
  const name: string = first.name;
  const callId: string = first.callId;
  void name, callId;
}
const violations: Violation[] = validatePayload('openai-chat', {});
const rules: string[] = violations.map((v) => v.rule);
const session = Session.fromLog('');
const count: number = session.itemCount();
// The session's provider and model are the defaults: a build may name neither.
const defaulted: string = session.buildString({}).body;
const sized: number = session.usage({ contextWindow: 60_000 }).size;
// @ts-expect-error the provider is one of the package's
session.buildBytes({ provider: 'cohere' });
void defaulted, sized;
const records: unknown[] = parseLog('').records;

// @ts-expect-error an unknown provider is a type error
const wrong: BuildInput = { provider: 'cohere' };

// Tools in every shape a developer already has.
const schema = { type: 'object' as const, properties: { path: { type: 'string' } } };
const tools: ToolInput[] = [
  { name: 'read', description: 'Read a file.', inputSchema: schema },
  { name: 'read2', input_schema: schema, cache_control: { type: 'ephemeral' } },
  { type: 'function', name: 'read3', parameters: schema, strict: true },
  { type: 'function', function: { name: 'read4', parameters: schema } },
  { functionDeclarations: [{ name: 'read5', parametersJsonSchema: schema }, { name: 'read6' }] },
];
// @ts-expect-error a tool has a name
const nameless: ToolInput = { description: 'x', inputSchema: schema };
// @ts-expect-error a schema is an object schema
const notObject: ToolInput = { name: 'x', inputSchema: { type: 'string' } };
const recorded: ToolDef[] = Session.fromLog('').state().tools ?? [];
void tools, nameless, notObject, recorded;

void describe, body2, rules, count, records, payload, report, diagnostics, wrong;
