// What the core's types look like in JSON, for TypeScript: every type a function of either
// module takes or returns (discovery's and the importers' are the lazy module's, in
// crates/lazy/src/types.d.ts). The core knows no JavaScript, so these are declared here, beside
// the facade. Generated from the Rust declarations and checked by tests/it/typescript.rs: the
// wire enums' unions here (`Command`, `Item`, `Event`, `SessionUpdate`), and the providers'
// requests and settings, whole, in shapes/providers.d.ts. The rest were generated once from the
// Rust types' serde attributes and are kept in step with them by hand — a change to a type's
// JSON is a change here. The package's type tests (tests/types) compile against them, and
// tests/js/declared-types.test.mjs types values the package returns against them.

/**
 * A `session/update` payload: typed when we interpret it, verbatim otherwise.
 */
export type AcpUpdate = SessionUpdate | Value;

/**
 * A command that waits for records, as `state()` tells it.
 */
export interface Waiting {
    /**
     * The command's id.
     */
    command: number;
    /**
     * Its `type`.
     */
    type: string;
    need: Need;
}

/**
 * A command's error as data: a stable code and a message.
 */
export interface CommandFailure {
    code: string;
    message: string;
    /**
     * Each rule a refused build's payload or settings broke (`invalid_payload`,
     * `invalid_options` from the API's rules), with its path and the provider's words.
     */
    violations?: Violation[];
}

/**
 * A context-length refusal's count of a request beside the ledger's own count of it: the
 * ledger scales its counts by their ratio until the next answer's usage anchor.
 */
export interface Correction {
    /**
     * The tokens the provider counted (or, where it named none, at least held).
     */
    tokens: number;
    /**
     * The tokens the ledger counted for the same request.
     */
    counted: number;
}

/**
 * A context-length refusal's numbers.
 */
export interface ContextRefusal {
    /**
     * The tokens the request held, as the provider counted them.
     */
    tokens?: number;
    /**
     * The model's limit the provider named.
     */
    limit?: number;
    /**
     * The window the session counts with from here on: the limit named, or — where the
     * provider named none — learned from the refused request itself (less than it held).
     */
    window?: number;
    /**
     * Set when the latest prompt, with the system prompt and tools, does not fit that window
     * alone: nothing the session may leave out makes room (the prompt is the user's to cut).
     */
    promptTokens?: number;
}

/**
 * A message asking the model to go on from a cut-short answer (AutoContinue, AutoRecovery).
 */
export interface Continued {
    reason: ContinuedReason;
    /**
     * The `answer_end` record of the answer it continues.
     */
    answerSeq: number;
    /**
     * The record the message was written as.
     */
    seq: number;
}

/**
 * A model family's prices and caching, with when and where they were read.
 */
export interface CostModel {
    /**
     * `anthropic`, `openai` (both OpenAI APIs and the servers that speak them) or `gemini`.
     */
    provider: string;
    /**
     * Model ids starting with this (the longest match wins).
     */
    modelPrefix: string;
    prices: Prices;
    caching: Caching;
    asOf?: string;
    source?: string;
}

/**
 * A person's prompt.
 */
export interface UserMessageInput {
    text: string;
    images?: ImageInput[];
    messageId?: string;
}

/**
 * A policy as `simulate` takes it: a name it knows, or a name and options of your own.
 */
export type PolicyChoice = PolicyName | Policy;

/**
 * A policy's requests and totals.
 */
export interface PolicyResult {
    name: string;
    requests: SimulatedRequest[];
    totals: Totals;
    /**
     * Why requests could not be built (a build the options refuse), with their index.
     */
    errors?: string[];
}

/**
 * A policy: build options laid over the simulation's own (a name, and e.g. `{"pruning": …}`).
 */
export interface Policy {
    name: string;
    /**
     * What it does, in a line (each policy known by name says; yours may).
     */
    summary?: string;
    /**
     * Build options (as `buildRequest` takes them) that differ from the simulation's.
     */
    options?: Partial<BuildInput>;
}

/**
 * A provider's whole answer.
 */
export interface ProviderAnswer {
    /**
     * The API that answered; the session's provider when absent.
     */
    provider?: Provider;
    /**
     * The model that answered, when the answer does not name it; the session's when absent.
     */
    model?: string;
    /**
     * The answer's body: JSON, or a stream's text (SSE, or Gemini's JSON array).
     */
    body: string;
    /**
     * The response's HTTP status: one that is not 2xx makes the body an error, whatever it
     * holds. Absent, the body is read for what it is.
     */
    status?: number;
    /**
     * The response's headers (`retry-after`, `x-should-retry`, the request id).
     */
    headers?: Record<string, string>;
    /**
     * Attempts already made for this request (0: the first send), for the retry's backoff.
     */
    attempt?: number;
}

/**
 * A provider-native block of a model turn (see [`Item::Native`]).
 */
export interface Native {
    id: string;
    /**
     * The API it came from (`anthropic`, `openai-responses`, `gemini`) and the model.
     */
    origin: Origin;
    /**
     * The block, part or item exactly as the provider sent it.
     */
    value: Record<string, Value>;
}

/**
 * A reminder to tell the model.
 */
export interface Reminder {
    kind: ReminderKind;
    text: string;
    /**
     * For `date`: the day (e.g. `2026-12-02`); the date is told once per day.
     */
    day?: string;
}

/**
 * A rendered payload of any provider.
 */
export type Payload = AnthropicRequest | OpenAiChatRequest | OpenAiResponsesRequest | GeminiRequest;

/**
 * A request's input tokens by what the cache did with them.
 */
export interface CacheUse {
    /**
     * Tokens the cache serves.
     */
    read: number;
    /**
     * Tokens written to the cache (charged where the API charges writes).
     */
    written: number;
    /**
     * Of those, written to long-lived entries.
     */
    writtenLong?: number;
    /**
     * Tokens processed and billed as fresh input.
     */
    uncached: number;
}

/**
 * A request's predicted cache use and input cost (filled by the caller that knows prices).
 */
export interface Forecast {
    /**
     * Input tokens the provider's cache should serve.
     */
    cacheRead: number;
    /**
     * Input tokens this request writes to the cache.
     */
    cacheWritten: number;
    /**
     * Input tokens processed afresh.
     */
    uncached: number;
    /**
     * The input's cost in US dollars (the answer's output is not known yet).
     */
    inputDollars: number;
    /**
     * The price row used (`claude-sonnet-4`, `gpt-5`, …) and when its prices were read.
     */
    pricedAs: string;
    pricesAsOf: string;
}

/**
 * A request's tokens and price.
 */
export interface RequestCost extends CacheUse {
    output: number;
    /**
     * US dollars.
     */
    dollars: number;
}

/**
 * A section of the first-user prefix, in the order the prefix renders them.
 */
export type Section = "userInfo" | "gitStatus" | "rules" | "skills" | "mcp" | "memory" | "reminders";

/**
 * A section's policy as the host gives it: what it leaves out keeps the default.
 */
export interface SectionPolicyOverride {
    priority?: number;
    reserve?: number;
    grow?: number;
}

/**
 * A session's subagents in a build's report.
 */
export interface SubagentsReport {
    started: number;
    running: number;
    failed: number;
    /**
     * Their requests' usage together (as each reported at its end).
     */
    spent: Spent;
}

/**
 * A subagent ended; its call was answered by the record before this one.
 */
export interface SubagentEnded {
    callId: string;
    sessionId: string;
    /**
     * `completed` (its report answered the call) or `failed` (a synthetic result says why).
     */
    status: SubagentStatus;
    /**
     * Why it failed.
     */
    error?: string;
    /**
     * Estimated tokens of the report as the call's result carries it.
     */
    reportTokens?: number;
    /**
     * The report was over its budget and cut, with a marker.
     */
    trimmed?: boolean;
    /**
     * What the subagent's own requests used, as its session counted them.
     */
    usage?: Spent;
}

/**
 * A subagent started for the delegation call `callId`; `sessionId` is its own session (whose
 * log header names this session and call).
 */
export interface SubagentStarted {
    callId: string;
    sessionId: string;
    /**
     * What the subagent was asked to do (its first prompt).
     */
    task: string;
    provider?: string;
    model?: string;
    /**
     * Its report budget in tokens (0 when the source did not say: an import).
     */
    reportTokens: number;
}

/**
 * A subagent this session started: the call it answers, its own session, how it went.
 */
export interface SubagentLink {
    callId: string;
    sessionId: string;
    task: string;
    model?: string;
    status: SubagentStatus;
    /**
     * The report budget it was given, in tokens.
     */
    reportTokens: number;
    /**
     * Its report was cut to the budget.
     */
    trimmed?: boolean;
    /**
     * What its own requests used, as its session reported at its end.
     */
    usage?: Spent;
}

/**
 * A tool call of an answer, for the host that runs it.
 */
export interface AnswerCall {
    /**
     * The id its result must name (`toolResult`'s `toolCallId`).
     */
    id: string;
    name: string;
    input: Value;
}

/**
 * A tool call the model made.
 */
export interface ToolCallInput {
    id: string;
    name: string;
    input?: Value;
    /**
     * ACP tool kind (`read`, `edit`, `execute`, …): an `edit`, `delete` or `move` with `paths`
     * marks those files edited.
     */
    kind?: ToolKind;
    paths?: string[];
}

/**
 * A tool call whose arguments were still arriving when the answer ended.
 */
export interface UnfinishedCall {
    id?: string;
    name: string;
    /**
     * The argument text received so far.
     */
    arguments: string;
}

/**
 * A tool invocation by the model.
 */
export interface ToolCall {
    /**
     * Item id (unique in the conversation).
     */
    id: string;
    /**
     * The call id results refer to (usually the provider's id, e.g. `toolu_…`, `call_…`).
     */
    callId: string;
    name: string;
    /**
     * Arguments as JSON (an object for function tools; a string for free-form tools).
     */
    input: Value;
    origin?: Origin;
    /**
     * Gemini thought signature attached to this call's part.
     */
    signature?: string;
}

/**
 * A tool the model may call.
 */
export interface ToolDef {
    name: string;
    description?: string;
    /**
     * JSON Schema of the arguments (an object schema).
     */
    inputSchema: Record<string, Value>;
}

/**
 * A user-role message: what a person typed, or a synthetic message the harness injected.
 */
export interface UserMessage {
    id: string;
    content: Part[];
    /**
     * Set when the harness, not a person, wrote this message.
     */
    synthetic?: SyntheticReason;
}

/**
 * A whole simulation: each policy's result, and the model the session is at when its log ends
 * (the options' model, else the one the log last switched to for this provider, else the
 * provider's default) with its window and price row; each request names its own.
 */
export interface Simulation {
    provider: Provider;
    model: string;
    window: number;
    costModel: CostModel;
    policies: PolicyResult[];
}

/**
 * ACP `ContentBlock`, discriminated by `type` (read by hand: `ContentBlock::read`).
 */
export type ContentBlock = { type: "text"; text: string; annotations?: Value; _meta?: Value } | { type: "image"; data: string; mimeType: string; uri?: string; annotations?: Value; _meta?: Value } | { type: "audio"; data: string; mimeType: string; annotations?: Value; _meta?: Value } | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number; annotations?: Value; _meta?: Value } | { type: "resource"; resource: Value; annotations?: Value; _meta?: Value };

/**
 * ACP `ToolCallContent`, discriminated by `type` (read by hand: `ToolCallContent::read`).
 */
export type ToolCallContent = { type: "content"; content: ContentBlock; _meta?: Value } | { type: "diff"; path: string; oldText?: string; newText: string; _meta?: Value } | { type: "terminal"; terminalId: string; _meta?: Value };

/**
 * ACP `tool_call_update`: fields given replace the call's fields (arrays replace whole).
 */
export interface ToolCallPatch {
    toolCallId: string;
    kind?: ToolKind;
    status?: ToolCallStatus;
    title?: string;
    content?: ToolCallContent[];
    locations?: Value[];
    rawInput?: Value;
    rawOutput?: Value;
    _meta?: Value;
}

/**
 * ACP `tool_call`: a new tool call.
 */
export interface ToolCallStart {
    toolCallId: string;
    title: string;
    kind?: ToolKind;
    status?: ToolCallStatus;
    content?: ToolCallContent[];
    locations?: Value[];
    rawInput?: Value;
    rawOutput?: Value;
    _meta?: Value;
}

/**
 * An MCP server the agent is connected to, as the host knows it.
 */
export interface McpServer {
    name: string;
    /**
     * `connected`, `failed`, `pending`, … (shown as given).
     */
    status?: string;
    tools?: string[];
    /**
     * The server's own instructions for the model.
     */
    instructions?: string;
}

/**
 * An image a person attached or a tool returned.
 */
export interface ImageInput {
    /**
     * Base64.
     */
    data: string;
    mimeType: string;
}

/**
 * An image, inline or by reference (read by hand: `Image::read`).
 */
export type Image = { source: "base64"; mediaType: string; data: string } | { source: "url"; url: string };

/**
 * Build options (`provider` and `model` default to the session's model).
 */
export interface BuildRequest {
    options?: Partial<BuildInput>;
}

/**
 * Build options as the JS API and the CLI take them (camelCase).
 */
export interface BuildInput {
    provider: Provider;
    /**
     * Model name; defaults per provider (see [`default_model`]).
     */
    model?: string | null;
    system?: string | null;
    /**
     * The tools, in any shape developers already have (see [`crate::provider::ToolDef`]). A
     * session records them when they change; left out, a build from a log carries the tools
     * the log last recorded.
     */
    tools?: ToolInput[];
    maxTokens?: number | null;
    foreignReasoning?: ForeignReasoning | null;
    /**
     * Prompt caching: Anthropic breakpoints, OpenAI's `prompt_cache_key` (a session's own id
     * when not given).
     */
    cache?: CacheConfig | null;
    limits?: Limits | null;
    repair?: RepairConfig | null;
    pruning?: PruningConfig | null;
    images?: ImageConfig | null;
    /**
     * The model's context window (tokens); pruning acts above a share of it.
     */
    contextWindow?: number | null;
    /**
     * The context's size in tokens when the host counts it itself (the ledger's count when absent).
     */
    contextTokens?: number | null;
    /**
     * Compaction threshold settings.
     */
    ledger?: LedgerConfig | null;
    /**
     * Each API's request settings in its own field names (thinking, tool choice, sampling,
     * structured output, …), a section per API: only the target's is used (see
     * [`crate::provider::settings`]).
     */
    providerOptions?: ProviderOptions | null;
    /**
     * Price rows to use beside (and before) the built-in ones for the report's forecast of
     * cache use and cost (see [`crate::cost`]).
     */
    costModels?: CostModel[];
    /**
     * The host's clock (RFC 3339), stamped on records a session writes during the build
     * (drained reminders); the last record's time when absent.
     */
    now?: string | null;
    /**
     * JSON Lines text of a session log (exclusive with `items`).
     */
    log?: string | null;
    /**
     * Conversation items (exclusive with `log`).
     */
    items?: Item[] | null;
}

/**
 * Built-in templates replaced by the host's own (same slots; see [`super::TEMPLATE_SLOTS`]).
 */
export interface Templates {
    primary?: string;
    subagent?: string;
    /**
     * The instructions of the summarisation request (`prepareCompaction`).
     */
    compaction?: string;
}

/**
 * Compaction settings (camelCase in JSON).
 */
export interface CompactionOptions {
    /**
     * Recent messages kept verbatim after the summary, in tokens.
     */
    keepRecentTokens?: number;
    /**
     * The summary's own budget: the output room the summarising request leaves.
     */
    summaryTokens?: number;
    /**
     * The budget for the summarising request's input; from the window when absent (the window
     * less the summary's room and a margin), unlimited when the window is unknown.
     */
    inputTokens?: number;
    /**
     * A tool result longer than this (chars) is trimmed on the ladder's "fitted" step.
     */
    trimResultsOver?: number;
    /**
     * Build options for the summarising request (`provider` and `model` default to the session's).
     */
    build?: Partial<BuildInput>;
}

/**
 * Compaction threshold settings (camelCase in JSON).
 */
export interface LedgerConfig {
    /**
     * Compaction is due above this share of the window.
     */
    compactRatio?: number;
    /**
     * Tokens kept free for the summary request's answer; compaction is due once fewer remain
     * (at most half the window).
     */
    compactReserve?: number;
}

/**
 * Content of a user message or a tool result (read by hand: `Part::read`).
 */
export type Part = { type: "text"; text: string } | ({ type: "image" } & Image);

/**
 * Content of the request by source — bytes (text and data as written, before JSON framing) in
 * `sources`, estimated tokens (framing included) in `tokens.bySource`.
 */
export interface BySource {
    system: number;
    tools: number;
    /**
     * The first-user prefix: the session's environment, rules, skills listing, MCP servers.
     */
    prefix: number;
    /**
     * What people typed.
     */
    user: number;
    /**
     * Synthetic user messages: reminders, interjections, subagent results.
     */
    reminders: number;
    /**
     * Compaction summaries.
     */
    summaries: number;
    assistant: number;
    reasoning: number;
    toolCalls: number;
    toolResults: number;
    images: number;
}

/**
 * Counts of what happened to reasoning, for the report.
 */
export interface ReasoningCounts {
    kept: number;
    downgraded: number;
    dropped: number;
    /**
     * Of `downgraded`, those the target model made itself: its API takes no reasoning back
     * natively (Chat Completions), or this block lacks what it needs to (a signature).
     */
    own_as_text?: number;
}

/**
 * Ends a streamed answer.
 */
export interface EndAnswer {
    /**
     * Drop what arrived without recording it (a body the host refused, e.g. over its size limit).
     */
    discard?: boolean;
    /**
     * The connection dropped while the body arrived (the runtime's words): what arrived is
     * recorded, marked partial, and the answer says why.
     */
    dropped?: string;
}

/**
 * Ends a subagent: its report answers the call it was started for, or — with `error`, when it
 * could not finish (its model refused, its storage failed) — a synthetic result says so.
 */
export interface EndSubagent {
    toolCallId: string;
    /**
     * The subagent's report (its final answer; `Session::final_answer`).
     */
    report?: string;
    /**
     * Why it did not report.
     */
    error?: string;
    /**
     * What its requests used (`Session::spent`), rolled up into the parent's.
     */
    usage?: Spent;
}

/**
 * Every render input of the two heads. Text the host supplies from the workspace (git status,
 * memory, MCP instructions, rule and skill text) is data: it is neutralised before it is framed.
 */
export interface PromptContext {
    audience?: Audience;
    /**
     * The agent's name as the prompt states it.
     */
    label?: string;
    /**
     * Role or persona text added to the base prompt.
     */
    role?: string;
    /**
     * A goal or workflow hint (primary audience).
     */
    goal?: string;
    /**
     * The task a subagent was given.
     */
    task?: string;
    os?: string;
    shell?: string;
    cwd?: string;
    /**
     * The user's local date (the core has no clock).
     */
    date?: string;
    /**
     * `git status` as the host ran it.
     */
    gitStatus?: string;
    /**
     * Rules loaded up front (discovery's `environment.rules`).
     */
    rules?: Rule[];
    /**
     * The skills listing (discovery's `environment.skillListing`).
     */
    skills?: SkillListing;
    mcp?: McpServer[];
    /**
     * What the agent remembers across sessions (primary audience).
     */
    memory?: string;
    /**
     * The model the heads are rendered for (the session sets it from its model).
     */
    model?: string;
    /**
     * Names of the tools the agent has; a subagent gets them without [`Self::delegation_tools`].
     */
    tools?: string[];
    /**
     * Tools that start other agents; never given to a subagent. Defaults to the usual names.
     */
    delegationTools?: string[];
    /**
     * A subagent's budget for its final report, in tokens.
     */
    reportTokens?: number;
    /**
     * A subagent's output budget per response, in tokens.
     */
    subagentMaxTokens?: number;
    templates?: Templates;
    /**
     * The first-user prefix's token budget, shared by its sections by priority (without one,
     * a quarter of the model's window with the default priorities).
     */
    headBudget?: HeadBudget;
}

/**
 * Everything a replay yields.
 */
export interface Replay {
    items: Item[];
    view: ClientEntry[];
    state: ReplayState;
    diagnostics: Diagnostic[];
}

/**
 * First line of a session log.
 */
export interface Header {
    format: string;
    version: number;
    sessionId: string;
    createdAt?: string;
    cwd?: string;
    /**
     * Where the log came from when it was imported (`claude-code`, `codex`, `pi`).
     */
    importedFrom?: string;
    /**
     * Set for a subagent's own session: the session that started it.
     */
    parentSessionId?: string;
    /**
     * Set for a subagent's own session: the parent's tool call it answers.
     */
    parentCallId?: string;
}

/**
 * Host calls made so far.
 */
export interface WorkspaceStats {
    calls: HostCalls;
    bytesRead: number;
    rounds: number;
}

/**
 * How a subagent ended.
 */
export type SubagentStatus = "running" | "completed" | "failed";

/**
 * How an API caches a prompt.
 */
export type Caching = { kind: "breakpoints"; minTokens: number; ttlSeconds: number; longTtlSeconds: number } | { kind: "prefix"; minTokens: number; step: number; ttlSeconds: number } | { kind: "implicit"; minTokens: number; ttlSeconds: number };

/**
 * How an answer ended (see [`Event::AnswerEnd`]).
 */
export interface AnswerEnd {
    provider: string;
    model?: string;
    /**
     * The provider's id of the message or response.
     */
    responseId?: string;
    /**
     * The provider's own stop or finish reason (`end_turn`, `pause_turn`, `length`,
     * `MAX_TOKENS`, `SAFETY`, …), verbatim.
     */
    stopReason?: string;
    status: AnswerStatus;
    /**
     * The provider's error, when the answer failed.
     */
    error?: ProviderFailure;
    /**
     * Choices the provider returned beyond the first, which is the one recorded (`n > 1`).
     */
    extraChoices?: number;
    /**
     * Tool calls whose arguments never arrived whole (the stream broke off): not calls, kept here.
     */
    unfinishedCalls?: UnfinishedCall[];
    /**
     * The usage object exactly as the provider reported it (the anchor holds it normalised).
     */
    usage?: Value;
    /**
     * Facts of the answer's ending that have no field above (`stop_sequence`, `stop_details`,
     * `incomplete_details`, `promptFeedback`, …), as the provider sent them.
     */
    details?: Record<string, Value>;
    /**
     * The provider's id of the request (its `request-id` / `x-request-id` header).
     */
    requestId?: string;
    /**
     * The connection dropped before the answer was whole: the runtime's words.
     */
    dropped?: string;
    /**
     * The model or the provider's filter refused (a refusal block or stop reason, a blocked
     * prompt): the same request would be refused again.
     */
    refused?: boolean;
}

/**
 * How an answer ended, for the host's loop: what to do next follows from it.
 */
export type Ending = "done" | "output_limit" | "paused" | "refused" | "interrupted" | "failed";

/**
 * How full the context is — `used` and `size` as in ACP's `usage_update`, and how it was counted.
 */
export interface ContextUsage {
    /**
     * Tokens the context holds.
     */
    used: number;
    /**
     * The model's window in tokens (0 when unknown).
     */
    size: number;
    family: Family;
    /**
     * `used` starts from the provider's reported usage.
     */
    anchored: boolean;
    /**
     * `used` is the count the caller gave (`contextTokens`), not the ledger's.
     */
    given?: boolean;
    /**
     * The provider's count at the anchor (0 without one).
     */
    anchorTokens: number;
    /**
     * Estimated tokens on top of the anchor (everything, without one).
     */
    estimatedTokens: number;
    /**
     * Provider overhead carried over a compaction (0 when none).
     */
    inheritedOverhead: number;
    /**
     * What the view changed of the logged conversation's count, estimated: the tokens pruning
     * and image eviction leave out (negative), less what the request the anchor describes
     * had already left out (its `omittedTokens`). `used` is the sum of `anchorTokens`,
     * `estimatedTokens`, `inheritedOverhead` and this: what the request will hold.
     */
    adjustedTokens?: number;
    /**
     * What a context-length refusal since the anchor said the count misses (or, negative,
     * over-counts): the sum of the other parts scaled by the provider's count of the refused
     * request over the ledger's. `used` is the sum of every part.
     */
    correctedTokens?: number;
    /**
     * Estimated tokens of the logged conversation this request leaves out (pruned tool
     * output, evicted images): what a usage anchor for its answer records.
     */
    omittedTokens?: number;
    /**
     * Token counts where pruning starts and compaction is due (absent when the window is unknown).
     */
    pruneAt?: number;
    compactAt?: number;
    threshold: Threshold;
}

/**
 * How much of the history reached the summarising model.
 */
export type Ladder = "cached" | "verbatim" | "fitted" | "lossy";

/**
 * How the budget went: per section present, what it asked for, was granted and used.
 */
export interface HeadAllocation {
    /**
     * The budget in tokens.
     */
    budget: number;
    /**
     * What the whole sections cost together.
     */
    need: number;
    /**
     * What the rendered sections cost together (at most the budget when anything was cut).
     */
    used: number;
    sections: SectionAllocation[];
}

/**
 * How to make a subagent's session: the reply to `startSubagent`.
 */
export interface SubagentStart {
    /**
     * The child's log header: its id, and the parent's session and call.
     */
    header: Header;
    /**
     * The child's prompt context: the parent's, for the subagent audience and this task.
     */
    context: PromptContext;
    provider?: Provider;
    model?: string;
    contextWindow?: number;
    /**
     * A name for the child's storage made from its session id that is safe as one file name,
     * an IndexedDB database's or a log's key, whatever the id holds (a child's id is
     * `parent/call` by default): letters, digits, `.`, `_` and `-` as they are, every other
     * byte as `%XX`, a long id shortened with a hash of the whole. Two ids never share one.
     */
    storageName?: string;
}

/**
 * Image budget settings (bytes are bytes of the serialized request).
 */
export interface ImageConfig {
    /**
     * Evict when the images in a request weigh more than this.
     */
    triggerBytes?: number;
    /**
     * ... down to this.
     */
    lowWaterBytes?: number;
    /**
     * Strip every image (the recovery build after a 413 or an invalid-image error).
     */
    stripAll?: boolean;
}

/**
 * Kinds of reminder, in drain order.
 */
export type ReminderKind = "stop_hook" | "rules_attached" | "diagnostics" | "background_finished" | "subagent_completed" | "task_unfinished" | "goal_next_step" | "plan_switch" | "cwd_switch" | "git_status" | "skills_changed" | "mcp_state" | "date" | "token_budget" | "compaction_state";

/**
 * Model reasoning. Replayable natively only to the provider and model that made it.
 */
export interface Reasoning {
    id: string;
    /**
     * Visible reasoning text (Anthropic thinking, an OpenAI summary, a Gemini thought): shared
     * with the log's chunk it came from (when it came in one) and Anthropic's thinking block.
     */
    text?: string;
    origin?: Origin;
    /**
     * Anthropic thinking signature or Gemini thought signature.
     */
    signature?: string;
    /**
     * OpenAI encrypted reasoning content, or Anthropic redacted thinking data.
     */
    encrypted?: string;
    /**
     * The provider's own id for the reasoning item (OpenAI `rs_…`).
     */
    providerId?: string;
    /**
     * OpenAI Responses summary parts, when there were several (`text` joins them).
     */
    summary?: string[];
}

/**
 * One broken rule in a payload.
 */
export interface Violation {
    /**
     * Stable rule id, e.g. `anthropic.tool_result_follows_tool_use`.
     */
    rule: string;
    /**
     * JSON path of the offending element, e.g. `messages.3.content.0`.
     */
    path: string;
    /**
     * What is wrong, with the provider's own error text where it is known.
     */
    message: string;
}

/**
 * One entry of the client's coalesced view.
 */
export type ClientEntry = { entry: "message"; role: ClientRole; messageId?: string; content: ContentBlock[]; seq: number } | { entry: "tool_call"; toolCallId: string; title: string; kind?: ToolKind; status?: ToolCallStatus; content: ToolCallContent[]; locations: Value[]; rawInput?: Value; rawOutput?: Value; seq: number } | { entry: "plan"; entries: PlanEntry[]; seq: number } | { entry: "event"; event: Event; seq: number } | { entry: "other"; update: Value; seq: number };

/**
 * One entry of the conversation, in the order the model experienced it.
 *
 * Consecutive assistant-side items (reasoning, text, tool calls) form one assistant turn; tool
 * results answer calls of the turn before them.
 */
export type Item = ({ type: "user" } & UserMessage) | ({ type: "assistant" } & AssistantText) | ({ type: "reasoning" } & Reasoning) | ({ type: "tool_call" } & ToolCall) | ({ type: "tool_result" } & ToolResult) | ({ type: "native" } & Native);

/**
 * One model response.
 */
export interface AssistantResponse {
    messageId?: string;
    reasoning?: ReasoningInput;
    text?: string;
    toolCalls?: ToolCallInput[];
    /**
     * The provider's usage for this response: becomes the ledger's anchor.
     */
    usage?: UsageAnchor;
    provider?: string;
    model?: string;
    stopReason?: string;
}

/**
 * One processed command: its id, its reply or error, and the effects it produced.
 */
export interface Processed {
    id: number;
    command: string;
    reply?: Reply;
    error?: CommandFailure;
    /**
     * The command has not run yet: it waits for these records (the last effect asks for them).
     */
    waiting?: Need;
    effects: Effect[];
}

/**
 * One request the agent sent.
 */
export interface RequestPoint {
    /**
     * The line (1-based) the model's answer starts on: the lines before it are the log the
     * request was built from.
     */
    line: number;
    /**
     * The `seq` of that record.
     */
    seq: number;
    /**
     * Conversation items the request held.
     */
    items: number;
    /**
     * Real prompts so far: the request answers prompt `prompts` (1-based).
     */
    prompts: number;
    /**
     * Model turns since that prompt before this one (0 for the prompt's first request).
     */
    step: number;
    /**
     * The request the agent would send next: the log ends waiting for the model (its `line`
     * is past the last line, so the whole log is the request's; `seq` is the next one).
     */
    next?: boolean;
    /**
     * The API the request went to, as the log last recorded a model switch (an import records
     * the agent's provider and model; the agent's own name is mapped to one of ours); absent
     * when the log names none.
     */
    provider?: Provider;
    /**
     * The model it went to, as recorded.
     */
    model?: string;
}

/**
 * One request under one policy.
 */
export interface SimulatedRequest extends RequestCost {
    index: number;
    /**
     * When it was sent (the time of the log's last record before it), when the log says.
     */
    at?: string;
    /**
     * Input tokens (the estimator's count of the request).
     */
    tokens: number;
    bytes: number;
    /**
     * The model it was built for and priced at, and the price row's model prefix.
     */
    model: string;
    pricedAs: string;
    /**
     * Tokens it repeats of the request before it.
     */
    sharedTokens: number;
    /**
     * Its share of the context window its build assumed (0 when the window is unknown).
     */
    windowShare: number;
}

/**
 * One rule, with where it came from.
 */
export interface Rule {
    /**
     * Where the file was found.
     */
    path: string;
    /**
     * The file it really is (symlinks resolved); rules are unique by this.
     */
    canonical: string;
    source: RuleSource;
    /**
     * The directory the rule speaks for (its project directory; the home directory for home rules).
     */
    dir: string;
    home: boolean;
    activation: Activation;
    /**
     * The text to put in the prompt: frontmatter stripped, framing neutralised, cut if over budget.
     */
    text: string;
    /**
     * Size of the file in bytes.
     */
    bytes: number;
    truncated: boolean;
    description?: string;
    /**
     * For `@path` imports: the file that imported this one.
     */
    importedFrom?: string;
}

/**
 * One section's share.
 */
export interface SectionAllocation {
    section: Section;
    priority: number;
    reserve: number;
    grow: number;
    /**
     * Tokens of the whole section (the reminders': their reserve).
     */
    need: number;
    /**
     * Tokens it was granted (its need when nothing was over).
     */
    granted: number;
    /**
     * Tokens of the section as rendered.
     */
    used: number;
    cuts?: HeadCut[];
}

/**
 * Our own record kinds: facts with no ACP update.
 */
export type Event = ({ kind: "usage_anchor" } & UsageAnchor) | ({ kind: "model_switch" } & ModelSwitch) | ({ kind: "compaction_checkpoint" } & CompactionCheckpoint) | ({ kind: "rewind" } & Rewind) | ({ kind: "reminder_injected" } & ReminderInjected) | ({ kind: "prompt_head_snapshot" } & PromptHeadSnapshot) | ({ kind: "edited_paths" } & EditedPaths) | ({ kind: "tools_defined" } & ToolsDefined) | ({ kind: "answer_end" } & AnswerEnd) | ({ kind: "checkpoint" } & Checkpoint) | ({ kind: "subagent_started" } & SubagentStarted) | ({ kind: "subagent_ended" } & SubagentEnded);

/**
 * Priorities among the rules by where they come from (`headBudget.ruleSources`): when the
 * rules section is over its grant, rules of lower priority leave first, and among equals the
 * broadest first (the order the rules render in). Keyed by a rule's `source` (`agents_md`,
 * `claude_md`, `cursor_rules`, …) or `home` for rules found in the home directory (over their
 * source's priority). A rule whose key is not given has priority 0, so without any the rules
 * leave broadest first.
 */
export interface RulePriorities {
    home?: number;
    agents_override?: number;
    agents_md?: number;
    claude_md?: number;
    claude_local?: number;
    claude_rules?: number;
    grok_rules?: number;
    cursor_rules?: number;
    cursorrules?: number;
    import?: number;
}

/**
 * Prompt caching. Every body puts what changes least first — tools, then the system prompt,
 * then the conversation, always the last field — so a request is a byte-for-byte extension of
 * the one before it and every provider's prefix cache keeps working.
 *
 * - Anthropic: explicit breakpoints on the two stable boundaries (the last tool, the system
 *   prompt) and the request's top-level `cache_control`, which caches the conversation up to
 *   its last block: the marker moves with the conversation without rewriting any block, so the
 *   bytes already sent stay the same. Three of the four breakpoints allowed; one is left for the
 *   host.
 * - OpenAI (both APIs): `prompt_cache_key` routes requests of one session to the same cache;
 *   a session uses its session id unless `key` is given.
 * - Gemini caches implicitly; nothing to add.
 */
export interface CacheConfig {
    enabled?: boolean;
    /**
     * Anthropic: time to live of the stable breakpoints, `"5m"` or `"1h"` (the conversation's
     * is always the default 5 minutes, as a longer TTL may not follow a shorter one).
     */
    stableTtl?: string;
    /**
     * OpenAI: the `prompt_cache_key`.
     */
    key?: string;
}

/**
 * Provider facts carried in `_meta.contextview` of an update. All optional; unknown keys in
 * `_meta` (ours or anyone's) are left alone.
 */
export interface ProviderMeta {
    provider?: string;
    model?: string;
    /**
     * Tool name as the model called it (ACP only has a human title).
     */
    toolName?: string;
    /**
     * The provider's own call id, when it differs from `toolCallId`.
     */
    providerCallId?: string;
    /**
     * Anthropic thinking signature / Gemini thought signature.
     */
    signature?: string;
    /**
     * OpenAI encrypted reasoning / Anthropic redacted thinking data.
     */
    encrypted?: string;
    /**
     * Provider id of a reasoning item (OpenAI `rs_…`).
     */
    reasoningId?: string;
    stopReason?: string;
    /**
     * Marks a harness-written user message.
     */
    synthetic?: SyntheticReason;
    /**
     * The provider's id of the output item this came in (OpenAI Responses `msg_…`, `fc_…`).
     */
    itemId?: string;
    /**
     * Citations or annotations the provider attached to a text, as it sent them.
     */
    annotations?: Value;
    /**
     * The text is the model's refusal.
     */
    refusal?: boolean;
    /**
     * OpenAI Responses reasoning summary parts, when there were several (the text joins them).
     */
    summary?: string[];
    /**
     * A provider-native block (a server tool's call or result) exactly as the provider sent it;
     * replay makes it an [`crate::conversation::Item::Native`].
     */
    native?: Map<string, Value>;
}

/**
 * Provider limits and rule switches the validators enforce (defaults from the providers'
 * documentation).
 */
export interface Limits {
    /**
     * Anthropic request body limit (413 `request_too_large`).
     */
    anthropicMaxBodyBytes?: number;
    /**
     * Anthropic per-image limit (decoded bytes) on the direct API.
     */
    anthropicMaxImageBytes?: number;
    anthropicMaxImages?: number;
    /**
     * OpenAI Chat tool-call id length (observed, not documented).
     */
    openaiChatMaxCallId?: number;
    /**
     * Anthropic: accept a conversation that ends with an assistant message (prefill). Unset,
     * the model decides: Claude models before 4.6 accept it, 4.6 and later do not, and no
     * request that replays extended thinking does (see [`anthropic::prefill_refusal`]).
     */
    allowPrefill?: boolean;
}

/**
 * Pruning settings (camelCase in JSON; every number has the chapter's default).
 */
export interface PruningConfig {
    enabled?: boolean;
    /**
     * The last real user turns whose results are never pruned.
     */
    keepTurns?: number;
    /**
     * Results longer than this (in characters) are soft-trimmed once past the boundary.
     */
    softTrimChars?: number;
    softTrimHead?: number;
    softTrimTail?: number;
    /**
     * Results at least this many turns old at the boundary are cleared.
     */
    hardClearTurns?: number;
    /**
     * Prune only when the context is above this share of the window.
     */
    triggerRatio?: number;
    /**
     * The boundary moves in steps of this many turns (1 = prune a little every turn).
     */
    stepTurns?: number;
    /**
     * The last agent steps (tool rounds: an assistant turn's calls and their results) whose
     * results are never pruned; the current step is always among them (at least 1).
     */
    keepSteps?: number;
    /**
     * Results at least this many steps old at the step boundary are cleared.
     */
    hardClearSteps?: number;
    /**
     * The step boundary moves in batches of this many steps.
     */
    batchSteps?: number;
    /**
     * Tools whose results are never pruned.
     */
    protectedTools?: string[];
    /**
     * Prune by token pressure as well as by count: over the trigger, old results are pruned
     * until the context is under `targetRatio` of the window. Off, only the count rules act.
     */
    tokenPressure?: boolean;
    /**
     * Token pressure: once the context is over the trigger, results are pruned until the
     * context (as estimated before pruning) is brought back under this share of the window.
     */
    targetRatio?: number;
    /**
     * The kept recent steps are protected only while their results fit this share of the
     * window (the current step is always kept): a few huge steps cannot hold the window.
     */
    keepRecentRatio?: number;
    /**
     * Under token pressure the boundary moves in batches that free at least this share of the
     * window, so each move pays for the cache it breaks.
     */
    batchRatio?: number;
}

/**
 * Repair settings.
 */
export interface RepairConfig {
    /**
     * Text of the synthetic result for a call that never got one; `{name}` is the tool's name.
     */
    danglingResultText?: string;
    /**
     * Text of the synthetic user message that opens a history starting with the assistant.
     */
    leadingUserText?: string;
}

/**
 * Returned with every payload.
 */
export interface Report {
    provider: Provider;
    model: string;
    /**
     * Conversation items given to the build.
     */
    items: number;
    /**
     * Items in the repaired view that was rendered.
     */
    viewItems: number;
    /**
     * Length of the serialized request body, in bytes.
     */
    bytes: number;
    repairs: Repair[];
    /**
     * What pruning trimmed and cleared (inactive below the trigger).
     */
    pruning: PruneReport;
    /**
     * Image bytes, and images evicted or stripped.
     */
    images: ImageReport;
    reasoning: ReasoningCounts;
    /**
     * Provider-facing tool-call id → original id, for ids that had to change.
     */
    idMap: Record<string, string>;
    /**
     * Non-object tool inputs wrapped as `{"input": …}` for APIs that need an object.
     */
    wrappedInputs: number;
    /**
     * Tool-result images moved into a following user message.
     */
    movedImages: number;
    /**
     * Provider-native blocks (server tools' calls and results) another API made, left out.
     */
    droppedNatives?: number;
    /**
     * The API's own blocks of a kind no request takes back (a beta's, or newer than this
     * version), left out with what they pair with: their kinds, one entry a block.
     */
    unknownNatives?: string[];
    /**
     * Anthropic thinking was asked for and left out of this request: the tool loop it
     * continues was started without thinking (another model, or an answer recorded without it).
     */
    thinkingSuspended?: boolean;
    /**
     * Content bytes by where they came from.
     */
    sources: BySource;
    /**
     * Estimated tokens of this request by source, and the ledger's count of the context.
     */
    tokens: TokenReport;
    /**
     * How the body was made in a session: entries whose JSON came from the previous build,
     * and whether only the appended items were rendered (absent for a first or stateless build).
     */
    reuse?: ReuseReport;
    /**
     * How much of the previous request this one repeats byte for byte (session builds only).
     */
    prefix?: PrefixReport;
    /**
     * What the provider's cache should serve of this request and what its input costs, at the
     * model's published prices (`crate::cost`); absent for a model no price row covers.
     */
    forecast?: Forecast;
    /**
     * What about this request deserves a word: reasoning that went as text, a request larger
     * than the window, … (see [`diagnose`]).
     */
    diagnostics?: Diagnostic[];
    /**
     * The session asked the model to go on from an answer that was cut short (a message it
     * wrote to the log right before this build).
     */
    continued?: Continued;
    /**
     * What the head budget cut from the first-user prefix this request opens with, and why
     * (from the log's last heads; builds from a log or a session); in a session's builds also
     * the reminders this request shortened or held back for the next (section `reminders`).
     */
    headCuts?: HeadCut[];
    /**
     * The subagents the session started (from its log) and what their requests used: their
     * share of the session's cost, beside this request's own.
     */
    subagents?: SubagentsReport;
}

/**
 * Samples with another model from now on.
 */
export interface SwitchModel {
    provider: Provider;
    model: string;
    contextWindow?: number;
}

/**
 * Session facts replay recovers besides the items.
 */
export interface ReplayState {
    /**
     * Real (non-synthetic) user prompts in the effective history.
     */
    promptCount: number;
    model?: ModelSwitch;
    usage?: UsageAnchor;
    /**
     * How many items existed when `usage` was recorded (the anchor's position).
     */
    itemsAtUsage?: number;
    heads?: PromptHeadSnapshot;
    /**
     * What compactions since the last usage anchor carry of the provider's count, until a new
     * anchor replaces it (the ledger reads it).
     */
    overheadCarry?: OverheadCarry;
    /**
     * What the last context-length refusal since the usage anchor said of the ledger's count.
     */
    correction?: Correction;
    /**
     * `seq` of the last compaction checkpoint applied.
     */
    lastCompactionSeq?: number;
    /**
     * Records the reducer skipped because it does not know their kind.
     */
    skippedRecords?: number;
    /**
     * The tools the log last recorded (`tools_defined`).
     */
    tools?: ToolDef[];
    /**
     * Files the agent changed, in the order first changed: paths of tool calls with a diff
     * or of kind edit, delete or move, and `edited_paths` records.
     */
    editedPaths?: string[];
    /**
     * How the last provider answer ended (`answer_end`), and how many items there were then: a
     * session asks the model to go on after an answer that was cut short, while nothing came
     * after it.
     */
    lastAnswer?: LastAnswer;
    /**
     * What this session's own requests used: every usage anchor the history holds, summed.
     */
    spent?: Spent;
    /**
     * The subagents this session started, in the order started, and how each ended.
     */
    subagents?: SubagentLink[];
}

/**
 * Something the head budget cut from the first-user prefix: a rule, a skill, a server left
 * out, or a section's text shortened (each with a visible marker in the prefix).
 */
export interface HeadCut {
    /**
     * The section: `userInfo`, `gitStatus`, `rules`, `skills`, `mcp`, `memory` or `reminders`.
     */
    section: string;
    /**
     * What was cut: a rule's path, a skill's or server's name, a reminder's kind, or the
     * section's own name.
     */
    what: string;
    /**
     * `left_out` or `shortened`; for a reminder `shortened` or `deferred` (held back, still
     * queued, for the next request).
     */
    action: string;
    /**
     * Estimated tokens cut.
     */
    tokens: number;
    /**
     * Why, in words: the section's grant against its need and priority.
     */
    reason: string;
}

/**
 * Something the host must do after a command.
 */
export type Effect = { type: "persist"; ticket: number; lines: string[] } | { type: "notify"; notification: Value } | { type: "compactionDue"; reason: CompactionReason; usage: ContextUsage } | { type: "retryAfter"; afterMs: number; attempt: number; reason: string } | { type: "readHistory"; command: number; through: number } | { type: "readRecords"; command: number; seqs: number[] };

/**
 * Starts a streamed answer.
 */
export interface BeginAnswer {
    provider?: Provider;
    model?: string;
    /**
     * The response's HTTP status, read before its body: one that is not 2xx makes the body
     * an error, whatever it holds.
     */
    status?: number;
    /**
     * The response's headers (`retry-after`, `retry-after-ms`, `x-should-retry`, the request id).
     */
    headers?: Record<string, string>;
    /**
     * Attempts already made for this request (0: the first send), for the retry's backoff.
     */
    attempt?: number;
}

/**
 * Starts a subagent for a delegation call the model made and that has no result yet: the
 * parent records it, and the reply says how to make the child session (`Session::for_subagent`).
 */
export interface StartSubagent {
    toolCallId: string;
    /**
     * What the subagent is asked to do: its first prompt (and its prompt's task).
     */
    task: string;
    /**
     * The child's session id; by default the parent's id and the call's, joined by `/`.
     */
    sessionId?: string;
    /**
     * The child's model (and its provider and window); by default the parent's.
     */
    provider?: Provider;
    model?: string;
    contextWindow?: number;
    /**
     * The report budget in tokens (default 1,500): a longer report is cut to it, with a marker.
     */
    reportTokens?: number;
    /**
     * The child's output budget per response (default 8,192).
     */
    maxTokens?: number;
    /**
     * The tools the child may call; by default the parent's, less those that start agents.
     */
    tools?: string[];
}

/**
 * The decision for one failed attempt.
 */
export interface Retry {
    /**
     * Sending the same request again may succeed.
     */
    retryable: boolean;
    /**
     * How long to wait before it, in milliseconds: the server's ask when it made a reasonable
     * one, else the backoff for this attempt. Only with a retry.
     */
    afterMs?: number;
    /**
     * Why, in a word: `rate_limited`, `overloaded`, `server_error`, `timeout`, `conflict`,
     * `connection_dropped`, `answer_incomplete`, `should_retry` (the server's header) — or why
     * not: `quota_exceeded` (a quota no short wait refills: OpenAI's `insufficient_quota`, a
     * per-day Gemini quota), `billing` (the account's billing or credit), `client_error`,
     * `should_not_retry`, `not_transient`.
     */
    reason: string;
}

/**
 * The end of the last answer the log recorded.
 */
export interface LastAnswer {
    status: AnswerStatus;
    stopReason?: string;
    /**
     * The model or the provider's filter refused ([`crate::update::record::AnswerEnd::is_refusal`]).
     */
    refused?: boolean;
    /**
     * The API and model that answered.
     */
    provider?: string;
    model?: string;
    /**
     * The provider's error, when it failed.
     */
    error?: ProviderFailure;
    /**
     * The connection dropped while it arrived.
     */
    dropped?: boolean;
    /**
     * Why the prompt was blocked (Gemini's `promptFeedback.blockReason`).
     */
    blocked?: string;
    /**
     * Items the conversation held right after it.
     */
    items: number;
    /**
     * Its `answer_end` record.
     */
    seq: number;
}

/**
 * The first-user prefix's budget (`PromptContext.headBudget`). Without one, the prefix may
 * take a quarter of the model's window (`DEFAULT_WINDOW_SHARE`), with the default priorities.
 */
export interface HeadBudget {
    /**
     * The budget in tokens (of the model's family, as the ledger counts them).
     */
    tokens?: number;
    /**
     * The budget as a share of the context window, above 0 and at most 1 (the smaller of the
     * two when both are given; this share alone when `tokens` is not).
     */
    windowShare?: number;
    /**
     * The context window the share is of; else the model's known window, else 128,000
     * (`DEFAULT_WINDOW`).
     */
    window?: number;
    sections?: SectionPolicies;
    /**
     * Which rules leave the rules section first when it is over its grant.
     */
    ruleSources?: RulePriorities;
}

/**
 * The inspectable state the chapter's snapshot names.
 */
export interface SessionState {
    sessionId?: string;
    provider?: string;
    model?: string;
    contextWindow?: number;
    /**
     * Real prompts, in order; a rewind names them by index.
     */
    prompts: string[];
    editedPaths: string[];
    records: number;
    items: number;
    startedAt?: string;
    lastActivityAt?: string;
    lastCompactionSeq?: number;
    queuedCommands: number;
    /**
     * The command that waits for records the host keeps, and what it waits for.
     */
    waiting?: Waiting;
    queuedReminders: number;
    compactionPrepared: boolean;
    promptContext?: PromptContext;
    /**
     * The tools the log last recorded (`tools_defined`): what a build without `tools` carries.
     */
    tools?: ToolDef[];
    persistence: PersistenceStatus;
    /**
     * The parent's session and call, for a subagent's own session (from its log header).
     */
    parentSessionId?: string;
    parentCallId?: string;
    /**
     * The subagents this session's log started, every one (a rewind or an agent's compaction
     * since included), and how each went; empty when it started none.
     */
    subagents: SubagentLink[];
    /**
     * What this session's own requests used (the usage its log recorded, summed).
     */
    spent: Spent;
}

/**
 * The outcome of a tool call.
 */
export interface ToolResult {
    id: string;
    callId: string;
    content: Part[];
    isError?: boolean;
    /**
     * Set when a session let the content go because its view clears or trims it
     * ([`Released`]): `content` then holds the trimmed text, or nothing.
     */
    released?: Released;
}

/**
 * The policies known by name. A policy is a choice of how to prune: these three are the
 * package's defaults, the other end of the trade between a small request and a cached prefix,
 * and none.
 */
export type PolicyName = "default" | "eager" | "off";

/**
 * The provider APIs we render for. xAI and most others speak one of the OpenAI shapes.
 */
export type Provider = "anthropic" | "openai-chat" | "openai-responses" | "gemini";

/**
 * The provider's count at the last usage anchor beyond our estimate of the items it covered,
 * and the share of those items' estimate the compactions since then kept. The excess holds the
 * system prompt and tools (they survive a compaction whole) and the provider's framing (which
 * shrinks with the conversation); the ledger separates the two.
 */
export interface OverheadCarry {
    excess: number;
    kept: number;
    /**
     * The anchor said which of its tokens were heads ([`UsageAnchor::head_tokens`]): they are
     * not in `excess`, which holds the framing alone.
     */
    framingOnly?: boolean;
    /**
     * The tokenizer family the estimates were made in (the anchor's model's).
     */
    family: Family;
}

/**
 * The provider's error as it reported it.
 */
export interface ProviderFailure {
    /**
     * The provider's error type, Gemini's status, or a string code (`overloaded_error`,
     * `insufficient_quota`, `UNAVAILABLE`, …); for a body in no API's shape, the HTTP status's
     * name (`bad_gateway`, `service_unavailable`, …).
     */
    kind: string;
    message: string;
    /**
     * The HTTP status of the response, or the one the error names.
     */
    status?: number;
    /**
     * OpenAI's error `code` beside its type (`context_length_exceeded`, `rate_limit_exceeded`,
     * `insufficient_quota`), when it differs from `kind`.
     */
    code?: string;
}

/**
 * The provider's usage, when it comes apart from a response.
 */
export interface RecordUsage {
    usage: UsageAnchor;
}

/**
 * The reasoning of a response, with what its provider needs to accept it back.
 */
export interface ReasoningInput {
    text?: string;
    signature?: string;
    encrypted?: string;
    /**
     * The provider's id of the reasoning item (OpenAI `rs_…`).
     */
    id?: string;
}

/**
 * The rendered heads.
 */
export interface Heads {
    system: string;
    firstUserPrefix: string;
    /**
     * How the head budget was shared among the prefix's sections, and what it cut.
     */
    allocation: HeadAllocation;
}

/**
 * The replay's state through record `through` (see the module docs).
 */
export interface Checkpoint {
    /**
     * The last record the state covers.
     */
    through: number;
    /**
     * Records the log held through `through`, checkpoints included.
     */
    records: number;
    /**
     * The first record's time.
     */
    startedAt?: string;
    /**
     * What a session resumes from ([`super::resume::CheckpointState`]), as JSON text: opaque to hosts, held
     * as one string until a session opens from it, and written back exactly as read.
     */
    state: string;
}

/**
 * The request against the one built before it.
 */
export interface PrefixReport {
    previousBytes: number;
    /**
     * Leading bytes identical to the previous request's body.
     */
    sharedBytes: number;
    /**
     * The previous body, less its closing brackets, is a prefix of this one: nothing it sent
     * was rewritten (a provider cache keeps working).
     */
    extendsPrevious: boolean;
    /**
     * Bytes of the previous body (less its closing brackets) after the shared prefix: what
     * this request rewrote (0 when it extends the previous one).
     */
    rewrittenBytes: number;
    /**
     * What rewrote them, when a session knows (absent when nothing was rewritten).
     */
    cause?: RewriteCause;
}

/**
 * The result of a tool call.
 */
export interface ToolResultInput {
    toolCallId: string;
    output: string;
    isError?: boolean;
    images?: ImageInput[];
}

/**
 * The sections' policies the host sets, by section.
 */
export interface SectionPolicies {
    userInfo?: SectionPolicyOverride;
    gitStatus?: SectionPolicyOverride;
    rules?: SectionPolicyOverride;
    skills?: SectionPolicyOverride;
    mcp?: SectionPolicyOverride;
    memory?: SectionPolicyOverride;
    reminders?: SectionPolicyOverride;
}

/**
 * The session's persistence as the host can inspect it.
 */
export interface PersistenceStatus {
    /**
     * Every record with `seq` up to this is stored (0: none).
     */
    committedThrough: number;
    headerCommitted: boolean;
    /**
     * Records above `committedThrough`, in order.
     */
    pending: PendingRecord[];
    /**
     * Tickets handed out and not yet answered.
     */
    inFlight: number[];
}

/**
 * The stable ACP v1 updates that carry conversation content.
 */
export type SessionUpdate = ({ sessionUpdate: "user_message_chunk" } & ContentChunk) | ({ sessionUpdate: "agent_message_chunk" } & ContentChunk) | ({ sessionUpdate: "agent_thought_chunk" } & ContentChunk) | ({ sessionUpdate: "tool_call" } & ToolCallStart) | ({ sessionUpdate: "tool_call_update" } & ToolCallPatch) | ({ sessionUpdate: "plan" } & Plan);

/**
 * The subagents' share of a session's cost.
 */
export interface SubagentShare {
    started: number;
    spent: Spent;
    /**
     * Their requests' input, cache and output at list prices, in dollars.
     */
    dollars: number;
}

/**
 * The summarisation request and the cut it was prepared for.
 */
export interface PreparedCompaction {
    /**
     * The first record that stays verbatim.
     */
    firstKeptSeq: number;
    /**
     * The session's last record when this was prepared.
     */
    basedOnSeq: number;
    ladder: Ladder;
    /**
     * Messages summarised, kept verbatim, trimmed on the ladder, and left out on it.
     */
    summarised: number;
    kept: number;
    trimmed: number;
    omitted: number;
    /**
     * The context's size before compaction (the ledger's count).
     */
    tokensBefore: number;
    /**
     * The request's estimated input size.
     */
    inputTokens: number;
    /**
     * The cut falls inside the latest request's work: its first steps are summarised, its
     * latest stay verbatim (the summary says what was done for it so far).
     */
    splitTurn: boolean;
    /**
     * What stays verbatim would not leave the next request under half the window: its tool
     * results and command outputs over this many characters will keep their head and tail.
     */
    trimKeptOver?: number;
    /**
     * Bytes at the start of the request that repeat the last request the session built — what
     * the provider's prompt cache can serve — and their share of the request.
     */
    cachedBytes: number;
    cachedShare: number;
    system: string;
    /**
     * The user message asking for the summary.
     */
    prompt: string;
    /**
     * The provider request to send (JSON text).
     */
    body: string;
}

/**
 * Tokenizer families the estimator is calibrated for.
 */
export type Family = "open_ai" | "anthropic" | "gemini";

/**
 * Tokens: this request's estimate by source, and the context as the ledger counts it.
 */
export interface TokenReport {
    /**
     * Estimated tokens of this request (after pruning and image eviction).
     */
    request: number;
    bySource: BySource;
    /**
     * The context as the ledger counts it, following this view (what pruning and eviction
     * left out taken off): what thresholds are measured on.
     */
    context: ContextUsage;
}

/**
 * Truncates the conversation to before real prompt `promptIndex` (0-based).
 */
export interface RewindTo {
    promptIndex: number;
}

/**
 * US dollars per million tokens.
 */
export interface Prices {
    input: number;
    output: number;
    cacheRead: number;
    /**
     * Writing a cache entry (Anthropic's 5-minute entries; 0 where writes are free).
     */
    cacheWrite: number;
    /**
     * Writing a long-lived entry (Anthropic's 1-hour entries).
     */
    cacheWriteLong?: number;
    /**
     * Higher rates for the whole request above a prompt size.
     */
    longContext?: LongContext;
}

/**
 * Visible assistant text.
 */
export interface AssistantText {
    id: string;
    text: string;
    origin?: Origin;
    /**
     * Gemini thought signature that came on this text's part (it may be the only thing on an
     * otherwise empty part).
     */
    signature?: string;
    /**
     * Citations (Anthropic) or annotations (OpenAI Responses) the provider attached to the text.
     */
    annotations?: Annotations;
}

/**
 * What [`endpoint`] needs.
 */
export interface EndpointInput {
    provider: Provider;
    /**
     * The model (Gemini names it in the URL).
     */
    model?: string | null;
    /**
     * Stream the answer; when absent, the target section's `stream` setting decides.
     */
    stream?: boolean | null;
    /**
     * The key, sent in the header the API reads it from; absent, no key header.
     */
    apiKey?: string | null;
    /**
     * Another server speaking the API (a proxy, a gateway), as the API's SDK takes it.
     */
    baseUrl?: string | null;
    /**
     * The build's `providerOptions`: the streaming choice and the settings that go as headers
     * (Anthropic's `user_profile_id`, `workspace_id`) are read from the target's section; the
     * build checks the rest.
     */
    providerOptions?: ProviderOptions;
}

/**
 * What `ack` reports.
 */
export interface AckResult {
    /**
     * `false` when the ticket had been settled already (an acknowledgement repeated).
     */
    applied: boolean;
    persistence: PersistenceStatus;
}

/**
 * What `applyCompaction` needs of the last `prepareCompaction`.
 */
export interface PreparedCut {
    firstKeptSeq: number;
    basedOnSeq: number;
    tokensBefore: number;
    /**
     * Kept results and outputs over this many characters are trimmed (what stays verbatim
     * would not fit otherwise).
     */
    trimKeptOver?: number;
}

/**
 * What `reconcile` found and did.
 */
export interface Reconciled {
    /**
     * Records storage holds that memory took over.
     */
    adopted: number;
    /**
     * Records memory held that storage holds otherwise under the same `seq`: storage wins, and
     * these lines are handed back (never silently dropped).
     */
    dropped: string[];
    /**
     * Records sent to storage again.
     */
    resent: number;
    persistence: PersistenceStatus;
    diagnostics: Diagnostic[];
    effects: Effect[];
}

/**
 * What a command answered.
 */
export type Reply = { type: "accepted"; seqs: number[] } | { type: "unchanged" } | { type: "queued"; queued: boolean } | { type: "built"; body: string; report: Report } | ({ type: "compaction" } & PreparedCompaction) | ({ type: "snapshot" } & SessionSnapshot) | { type: "answered"; seqs: number[]; answer: AnswerSummary; diagnostics: Diagnostic[]; updates: SessionUpdate[] } | { type: "subagentStarted"; seqs: number[]; child: SubagentStart };

/**
 * What a command waits for before it can run: records that are with the host.
 */
export type Need = { type: "history"; through: number } | { type: "records"; seqs: number[] };

/**
 * What a host asks of a session. Commands are queued and processed in order.
 *
 * Read through a JSON value (see the `Deserialize` impl): a derived internally tagged enum
 * would instantiate every variant's deserializer a second time for serde's buffered content,
 * about 100 KB of `.wasm` for nothing.
 */
export type Command = ({ type: "userMessage" } & UserMessageInput) | ({ type: "assistantResponse" } & AssistantResponse) | ({ type: "toolResult" } & ToolResultInput) | ({ type: "recordUsage" } & RecordUsage) | ({ type: "switchModel" } & SwitchModel) | ({ type: "rewind" } & RewindTo) | ({ type: "setPromptContext" } & SetPromptContext) | ({ type: "prepareCompaction" } & PrepareCompaction) | ({ type: "applyCompaction" } & ApplyCompaction) | ({ type: "enqueueReminder" } & EnqueueReminder) | ({ type: "recordEditedPath" } & RecordEditedPath) | ({ type: "buildRequest" } & BuildRequest) | { type: "flush" } | { type: "snapshot" } | ({ type: "restore" } & Restore) | ({ type: "providerAnswer" } & ProviderAnswer) | ({ type: "beginAnswer" } & BeginAnswer) | ({ type: "endAnswer" } & EndAnswer) | ({ type: "startSubagent" } & StartSubagent) | ({ type: "endSubagent" } & EndSubagent);

/**
 * What a provider attached to a text besides its words, as it sent it: Anthropic's
 * `citations`, OpenAI's `annotations`, and the Responses output item the text came in. Goes
 * back only to the API that made it.
 */
export interface Annotations {
    list: Value[];
    /**
     * The Responses `msg_…` item the text came in.
     */
    itemId?: string;
}

/**
 * What a renderer tells the report besides the payload.
 */
export interface RenderNotes {
    reasoning: ReasoningCounts;
    /**
     * Provider-facing tool-call id → original id, for ids the renderer had to change.
     */
    idMap: Record<string, string>;
    /**
     * Non-object tool inputs wrapped as `{"input": …}` where the API needs an object.
     */
    wrappedInputs: number;
    /**
     * Tool-result images moved into a following user message (APIs without images in results).
     */
    movedImages: number;
    /**
     * Provider-native blocks (server tools' calls and results) left out: another API made them.
     */
    droppedNatives?: number;
    /**
     * The kinds of the API's own blocks left out because no request takes them back (a beta's,
     * or newer than this version: [`natives`]), one entry a block.
     */
    unknownNatives?: string[];
    /**
     * Anthropic thinking was asked for and left out of this request: the turn it continues
     * has no thinking block to start it ([`anthropic::thinking_sent`]).
     */
    thinkingSuspended?: boolean;
}

/**
 * What a session build reused from the one before it.
 */
export interface ReuseReport {
    /**
     * Conversation entries in the body.
     */
    entries: number;
    /**
     * Of those, entries serialized by an earlier build.
     */
    reusedEntries: number;
    /**
     * Only the items appended since the last build went through the pipeline.
     */
    appendedOnly: boolean;
}

/**
 * What a session did after a refusal so that the next request differs.
 */
export type Recovery = "strip_images" | "prune" | "compact";

/**
 * What a session's requests used, summed over the usage its log recorded.
 */
export interface Spent {
    /**
     * Requests answered with usage.
     */
    requests?: number;
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
}

/**
 * What an answer said, for the host: its text, its calls, and how it ended.
 */
export interface AnswerSummary {
    provider: Provider;
    model?: string;
    responseId?: string;
    /**
     * The visible text, every text block joined.
     */
    text: string;
    toolCalls: AnswerCall[];
    stopReason?: string;
    status: AnswerStatus;
    error?: ProviderFailure;
    usage?: UsageAnchor;
    /**
     * The model or the provider's filter refused: a refusal block, a refusal stop reason, or a
     * blocked prompt (`ending` is `refused`).
     */
    refused: boolean;
    /**
     * The prompt itself was blocked before the model answered (Gemini's
     * `promptFeedback.blockReason`: `SAFETY`, `PROHIBITED_CONTENT`, `MODEL_ARMOR`, …).
     */
    blocked?: string;
    /**
     * How it ended, for the loop: done, cut by the output limit, paused, refused, interrupted or
     * failed.
     */
    ending: Ending;
    /**
     * For an answer that failed or was interrupted: whether sending again may succeed, and
     * after how long.
     */
    retry?: Retry;
    /**
     * What the session changed so that the next request is not refused the same way
     * (`strip_images` after a 413, `prune` or `compact` after a context-length refusal).
     */
    recovery?: Recovery;
    /**
     * For a context-length refusal: the tokens the request held and the limit, where the
     * provider said them.
     */
    context?: ContextRefusal;
    /**
     * The provider's id of the request (its `request-id` / `x-request-id` header, or its body's).
     */
    requestId?: string;
}

/**
 * What cut the answer short.
 */
export type ContinuedReason = "output_limit" | "interrupted";

/**
 * What discovery found.
 */
export interface Environment {
    cwd: string;
    home?: string;
    /**
     * The repository root, when cwd is inside one.
     */
    repoRoot?: string;
    /**
     * Rules loaded up front, in prompt order (home first, then root → cwd; deeper wins).
     */
    rules: Rule[];
    /**
     * Rules that attach when a matching path is read or edited (see `rulesForPath`).
     */
    conditional: Rule[];
    /**
     * Rules the model may ask for by description, or a person by name (Cursor's agent-requested
     * and manual rules): listed, not loaded.
     */
    requestable: Rule[];
    skills: Skill[];
    skillListing: SkillListing;
    diagnostics: Diagnostic[];
    /**
     * Host calls this workspace has made so far (all jobs), when the environment was produced.
     */
    stats: WorkspaceStats;
}

/**
 * What pruning did, for the report.
 */
export interface PruneReport {
    /**
     * Pruning ran (the context was over the trigger).
     */
    active: boolean;
    /**
     * Real user turns in the conversation.
     */
    turns: number;
    /**
     * Results before this turn are pruned (0 = none).
     */
    boundaryTurn: number;
    /**
     * Agent steps (tool rounds) in the conversation.
     */
    steps?: number;
    /**
     * Results before this step are pruned (0 = none).
     */
    boundaryStep?: number;
    /**
     * Results soft-trimmed in this request (their head and tail kept).
     */
    trimmed: number;
    /**
     * Results cleared in this request (a placeholder stands in for each).
     */
    cleared: number;
    /**
     * Item ids of the results this request trims that the session's last build did not (every
     * one, for a first or a stateless build; none, when the boundaries stayed).
     */
    newlyTrimmed: string[];
    /**
     * Item ids of the results this request clears that the session's last build did not.
     */
    newlyCleared: string[];
    /**
     * Characters of tool output left out of the view.
     */
    charsSaved: number;
    /**
     * Bytes of the previous request this one rewrote because the boundary moved — what the
     * provider must process again instead of reading from its cache (session builds; 0 when
     * the boundary stayed).
     */
    invalidatedBytes?: number;
}

/**
 * What repair changed, for the report.
 */
export interface Repair {
    kind: RepairKind;
    /**
     * The item the repair is about (the call for a synthetic result).
     */
    itemId: string;
    callId?: string;
}

/**
 * What the host says became of a persist ticket.
 */
export type PersistOutcome = "committed" | "not_committed" | "indeterminate";

/**
 * What the image stage did.
 */
export interface ImageReport {
    images: number;
    /**
     * Image bytes in the view before eviction.
     */
    bytesBefore: number;
    /**
     * Image bytes left in the request.
     */
    bytesAfter: number;
    /**
     * Item ids whose images were evicted (oldest first), one entry per image.
     */
    evicted: string[];
    /**
     * Every image was stripped (recovery build).
     */
    stripped: boolean;
}

/**
 * What the prompt lists, under the listing budget.
 */
export interface SkillListing {
    entries: ListingEntry[];
    /**
     * Skills left out because the budget was spent (highest priority are listed first).
     */
    omitted: string[];
    bytes: number;
}

/**
 * What the view needs of a tool result whose text a session let go — the view clears it (a
 * placeholder naming its length) or trims it (head and tail, which `content` keeps) — so a
 * session holds what its requests reach, not every output an agent ever read (nor the images
 * of the results it clears). A view that needs more than this (a policy that no longer prunes it, a
 * compaction that keeps it) reads its record back first.
 */
export interface Released {
    /**
     * The log record that set this content: what reads it back.
     */
    seq: number;
    /**
     * Characters of the text.
     */
    chars: number;
    /**
     * Bytes of the text.
     */
    bytes: number;
    /**
     * The content's FNV-1a hash (its parts as JSON, images too): a read-back gives exactly
     * this content or is refused.
     */
    hash: number;
    /**
     * The item's estimated tokens in each token family, in [`crate::tokens::Family::ALL`]'s order.
     */
    tokens: [number, number, number];
    /**
     * The soft-trim settings (over, head, tail) `content` was trimmed with; `None` when it
     * holds nothing (the view clears the result).
     */
    trimmed?: [number, number, number];
    /**
     * The content had images (pruning trims only text).
     */
    images?: boolean;
}

/**
 * What to do with reasoning that cannot be replayed natively to the target.
 */
export type ForeignReasoning = "as_text" | "drop";

/**
 * What to simulate.
 */
export interface SimulateInput {
    /**
     * The session log (JSON Lines text).
     */
    log: string;
    /**
     * Build options every policy starts from (`provider` required; `model`, `contextWindow`, …).
     * A `model` given here is every request's; left out, each request goes to the model the log
     * had switched to by then (for this provider), else the provider's default.
     */
    options: BuildInput;
    /**
     * The policies to compare, by name or your own; none is the options as given (`default`).
     */
    policies?: PolicyChoice[];
    /**
     * Prices and caching rules to use instead of (or beside) the built-in ones.
     */
    costModels?: CostModel[];
}

/**
 * When a rule applies.
 */
export type Activation = { kind: "always" } | { kind: "globs"; globs: string[]; base: string } | { kind: "subdirectory" } | { kind: "agent_requested" } | { kind: "manual" };

/**
 * Where a record above `committedThrough` stands.
 */
export type RecordState = "accepted" | "in_flight" | "not_committed" | "indeterminate";

/**
 * Where to send a request, and with which headers.
 */
export interface Endpoint {
    url: string;
    headers: Record<string, string>;
    /**
     * The answer streams (server-sent events) rather than coming as one JSON body.
     */
    stream: boolean;
}

/**
 * Whether an answer arrived whole.
 */
export type AnswerStatus = "complete" | "partial" | "failed";

/**
 * Which provider and model produced an assistant-side item.
 */
export interface Origin {
    provider: string;
    model?: string;
}

/**
 * Which threshold the context has crossed.
 */
export type Threshold = "ok" | "prune" | "compact";

/**
 * Who the prompt is for (chapter 8.3).
 */
export type Audience = "primary" | "subagent";

/**
 * Why a request could not be built.
 */
export type BuildError = { code: "empty_conversation"; message: string } | { code: "ends_with_assistant"; message: string } | { code: "invalid_payload"; message: string; violations: Violation[] } | { code: "invalid_options"; message: string; violations: Violation[] } | { code: "history_needed"; message: string; released: string[] };

/**
 * Why a request rewrote part of the one before it.
 */
export type RewriteCause = "compaction" | "rewind" | "heads" | "pruning" | "other";

/**
 * Why the context needs compacting.
 */
export type CompactionReason = "threshold" | "model_switch";

/**
 * Why the harness injected a user-role message.
 */
export type SyntheticReason = "system_reminder" | "interjection" | "subagent_completion" | "compaction" | "prefix" | "auto_continue" | "auto_recovery";

/**
 * `applyCompaction`'s input.
 */
export interface ApplyCompaction {
    summary: string;
    /**
     * The summarising response's usage (its output count is the summary's size).
     */
    usage?: UsageAnchor;
    /**
     * Background work still running, for the state reminder.
     */
    backgroundTasks?: string[];
}

export interface CompactionCheckpoint {
    summary: string;
    /**
     * First record (by `seq`) whose content stays verbatim after the compaction.
     */
    firstKeptSeq: number;
    tokensBefore?: number;
    /**
     * The summary's size in tokens as the summarising model reported it.
     */
    summaryTokens?: number;
    /**
     * Kept tool results and command outputs longer than this (characters) are trimmed to their
     * head and tail in the model's view: set when what stays verbatim would not fit otherwise.
     */
    trimKeptOver?: number;
}

export interface ContentChunk {
    content: ContentBlock;
    messageId?: string;
    _meta?: Value;
}

export interface Diagnostic {
    code: string;
    severity: Severity;
    message: string;
    /**
     * 1-based line in the input, when the input is line-oriented.
     */
    line?: number;
    /**
     * A file path or a JSON path, when one applies.
     */
    path?: string;
}

export interface EditedPaths {
    paths: string[];
}

export interface EnqueueReminder {
    reminder: Reminder;
}

export interface HostCalls {
    readDir: number;
    readFile: number;
}

export interface ListingEntry {
    name: string;
    description: string;
    location: string;
}

export interface LongContext {
    aboveTokens: number;
    prices: Omit<Prices, 'longContext'>;
}

export interface ModelSwitch {
    provider: string;
    model: string;
    contextWindow?: number;
}

export interface PendingRecord {
    seq: number;
    state: RecordState;
}

export interface Plan {
    entries: PlanEntry[];
    _meta?: Value;
}

export interface PlanEntry {
    content: string;
    priority: PlanPriority;
    status: PlanStatus;
    _meta?: Value;
}

export interface PrepareCompaction {
    options?: CompactionOptions;
}

export interface PromptHeadSnapshot {
    system: string;
    firstUserPrefix?: string;
    /**
     * What the head budget cut from the prefix, and why (none when every section fit).
     */
    cuts?: HeadCut[];
}

export interface RecordEditedPath {
    path: string;
}

export interface ReminderInjected {
    reminder: string;
    text: string;
}

export interface Restore {
    snapshot: SessionSnapshot;
}

export interface Rewind {
    promptIndex: number;
}

export interface SessionSnapshot {
    format: string;
    version: number;
    /**
     * The log as JSON Lines: the header, then every record held in memory.
     */
    log: string;
    persistence: unknown;
    reminders?: Reminder[];
    promptContext?: PromptContext;
    /**
     * The build options the session last used (its model, window, system and tools).
     */
    sampling?: BuildInput;
    /**
     * A compaction prepared and not yet applied.
     */
    prepared?: PreparedCut;
    stripImagesOnce?: boolean;
    /**
     * Where the pruning boundaries stood at the last build (turn, and step).
     */
    lastBoundary?: number;
    lastStepBoundary?: number;
    nextCommand?: number;
}

export interface SetPromptContext {
    context: PromptContext;
}

export interface Skill {
    /**
     * The name the model calls it by (`plugin:name` for a plugin skill whose bare name is taken).
     */
    name: string;
    description: string;
    /**
     * The SKILL.md file (`bundled:<name>` for bundled skills).
     */
    path: string;
    source: SkillSource;
    plugin?: string;
    /**
     * Not offered to the model (`disable-model-invocation: true`); a person can still invoke it.
     */
    userOnly?: boolean;
}

export interface ToolsDefined {
    tools: ToolDef[];
}

export interface Totals {
    requests: number;
    /**
     * Input tokens sent, summed over the requests.
     */
    tokens: number;
    read: number;
    written: number;
    uncached: number;
    output: number;
    dollars: number;
    /**
     * Of the input, the share the cache served.
     */
    cachedShare: number;
    /**
     * The largest request's share of the window, and how many went over it.
     */
    maxWindowShare: number;
    overWindow: number;
}

export interface UsageAnchor {
    provider?: string;
    model?: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
    /**
     * The share of `outputTokens` the model spent reasoning, where the provider says.
     */
    reasoningTokens?: number;
    /**
     * Estimated tokens of the logged conversation that the request this usage answers left
     * out — pruned tool output, evicted images — as its build reported them
     * (`tokens.context.omittedTokens`). A session records it with each answer to a request it
     * built; an import records 0 (the agent sent what its log holds). Absent, the ledger
     * assumes the request left out before this point what the current view leaves out.
     */
    omittedTokens?: number;
    /**
     * Estimated tokens of the heads (system prompt, tool definitions, and for another agent's
     * request its framing) in the request this usage answers — the part of the count that is
     * not the logged conversation. A session records its own build's; an import estimates the
     * other agent's from its anchors. The ledger counts the next request's own heads in their
     * place, so an anchor calibrates what it measured instead of being added whole. Absent, the
     * heads are taken to be the next request's.
     */
    headTokens?: number;
    /**
     * Set on the count a context-length refusal gave (or implied): the ledger's own count of
     * the refused request. Such an anchor is no answer's usage: it corrects the ledger (its
     * counts are scaled by `inputTokens / counted` until the next answer's anchor) instead of
     * replacing its anchor, and nothing of it counts as spent.
     */
    counted?: number;
}

export type ClientRole = "user" | "agent" | "thought";

export type PlanPriority = "high" | "medium" | "low";

export type PlanStatus = "pending" | "in_progress" | "completed";

export type RepairKind = "synthetic_result" | "orphan_result_dropped" | "duplicate_result_dropped" | "result_moved" | "duplicate_call_id" | "empty_dropped" | "blank_text_dropped" | "invalid_image_replaced" | "image_type_corrected" | "leading_user_inserted";

export type RuleSource = "agents_override" | "agents_md" | "claude_md" | "claude_local" | "claude_rules" | "grok_rules" | "cursor_rules" | "cursorrules" | "import";

export type Severity = "error" | "warning" | "info";

export type SkillSource = "cwd" | "intermediate" | "repo" | "user" | "config" | "bundled" | "plugin";

export type ToolCallStatus = "pending" | "in_progress" | "completed" | "failed";

export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";
