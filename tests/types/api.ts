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
  type Diagnostic,
  type GeminiRequest,
  type Item,
  type OpenAiChatRequest,
  type OpenAiResponsesRequest,
  type Payload,
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

// Every provider's request is distinguishable by its own fields.
function describe(p: Payload): string {
  if ('contents' in p) return `gemini ${(p as GeminiRequest).contents.length}`;
  if ('input' in p) return `responses ${(p as OpenAiResponsesRequest).input.length}`;
  if ('max_tokens' in p) return `anthropic ${(p as AnthropicRequest).messages.length}`;
  return `chat ${(p as OpenAiChatRequest).messages.length}`;
}

const body: string = buildRequestString({ provider: 'gemini', items: [] }).body;
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

void describe, body, rules, count, records, payload, report, diagnostics, wrong;
