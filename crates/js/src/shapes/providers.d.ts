// Generated from the Rust declarations of the providers' requests and settings (their readers'
// attributes, through contextview::shape) by tests/it/typescript.rs: do not edit; run
// `UPDATE_TYPES=1 cargo test --test it typescript` after changing a type.

export type AnthropicBlock = { type: "text"; text: string; citations?: AnthropicCitation[]; cache_control?: AnthropicCacheControl } | { type: "image"; source: AnthropicImageSource; cache_control?: AnthropicCacheControl } | { type: "tool_use"; id: string; name: string; input: Record<string, Value>; cache_control?: AnthropicCacheControl } | { type: "tool_result"; tool_use_id: string; content: AnthropicResultBlock[]; is_error?: boolean; cache_control?: AnthropicCacheControl } | { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string } | AnthropicNativeBlock;

export interface AnthropicCacheControl {
    type: "ephemeral";
    ttl?: "5m" | "1h";
}

export type AnthropicEffort = "low" | "medium" | "high" | "xhigh" | "max";

export type AnthropicImageSource = { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string } | { type: "url"; url: string };

export interface AnthropicMessage {
    role: AnthropicRole;
    content: AnthropicBlock[];
}

export interface AnthropicMetadata {
    /**
     * An opaque id of the end user (a hash or uuid, never personal data).
     */
    user_id?: string;
}

export interface AnthropicOutputConfig {
    effort?: AnthropicEffort;
    /**
     * Structured output: `{type: "json_schema", schema}`.
     */
    format?: AnthropicOutputFormat;
}

export type AnthropicOutputFormat = { type: "json_schema"; schema: AnyObject };

export interface AnthropicRequest {
    model: string;
    max_tokens: number;
    /**
     * Automatic caching: a breakpoint on the last cacheable block, wherever that is.
     */
    cache_control?: AnthropicCacheControl;
    tools?: AnthropicTool[];
    system?: AnthropicTextBlock[];
    messages: AnthropicMessage[];
}

export type AnthropicResultBlock = { type: "text"; text: string } | { type: "image"; source: AnthropicImageSource };

export type AnthropicRole = "user" | "assistant";

export type AnthropicServiceTier = "auto" | "standard_only";

export interface AnthropicSettings {
    /**
     * Extended thinking: `{type: "enabled", budget_tokens}` (at least 1,024 and below
     * `max_tokens`), `{type: "adaptive"}` or `{type: "disabled"}`.
     */
    thinking?: AnthropicThinking;
    tool_choice?: AnthropicToolChoice;
    output_config?: AnthropicOutputConfig;
    stop_sequences?: string[];
    /**
     * 0 to 1; only 1 with thinking.
     */
    temperature?: number;
    /**
     * 0 to 1; 0.95 to 1 with thinking.
     */
    top_p?: number;
    /**
     * Not with thinking.
     */
    top_k?: number;
    metadata?: AnthropicMetadata;
    service_tier?: AnthropicServiceTier;
    inference_geo?: string;
    stream?: boolean;
    /**
     * Inference speed (`"fast"`: more output tokens a second, at its price).
     */
    speed?: AnthropicSpeed;
    /**
     * The code-execution container to reuse (an id), or the skills to load into one.
     */
    container?: AnthropicContainer;
    /**
     * Asks the answer to say why the prompt cache missed against an earlier message.
     */
    diagnostics?: AnthropicDiagnostics;
}

export type AnthropicSpeed = "standard" | "fast";

export interface AnthropicTextBlock {
    type: AnthropicTextType;
    text: string;
    cache_control?: AnthropicCacheControl;
}

export type AnthropicTextType = "text";

export type AnthropicThinking = { type: "enabled"; budget_tokens: number; display?: AnthropicThinkingDisplay } | { type: "adaptive"; display?: AnthropicThinkingDisplay } | { type: "between_tools" } | { type: "disabled" };

export type AnthropicThinkingDisplay = "summarized" | "omitted";

export interface AnthropicTool {
    name: string;
    description?: string;
    input_schema: AnthropicInputSchema;
    cache_control?: AnthropicCacheControl;
}

export type AnthropicToolChoice = { type: "auto"; disable_parallel_tool_use?: boolean } | { type: "any"; disable_parallel_tool_use?: boolean } | { type: "tool"; name: string; disable_parallel_tool_use?: boolean } | { type: "none" };

export interface GeminiBlob {
    mimeType: string;
    data: string;
}

export interface GeminiContent {
    role?: string;
    parts: GeminiPart[];
}

export interface GeminiFileData {
    mimeType?: string;
    fileUri: string;
}

export interface GeminiFunctionCall {
    id?: string;
    name: string;
    args: Record<string, Value>;
}

export interface GeminiFunctionCallingConfig {
    mode?: GeminiFunctionCallingMode;
    /**
     * With `ANY` or `VALIDATED`: the functions the model may call.
     */
    allowedFunctionNames?: string[];
}

export type GeminiFunctionCallingMode = "MODE_UNSPECIFIED" | "AUTO" | "ANY" | "NONE" | "VALIDATED";

export interface GeminiFunctionDeclaration {
    name: string;
    description?: string;
    /**
     * The tool's JSON Schema as is (`parameters` would take Gemini's OpenAPI-subset `Schema`).
     */
    parametersJsonSchema: Value;
}

export interface GeminiFunctionResponse {
    id?: string;
    name: string;
    response: Record<string, Value>;
}

/**
 * `generationConfig`: what the reply may be.
 */
export interface GeminiGenerationConfig {
    maxOutputTokens?: number;
    /**
     * 0 to 2.
     */
    temperature?: number;
    /**
     * 0 to 1.
     */
    topP?: number;
    topK?: number;
    candidateCount?: number;
    stopSequences?: string[];
    /**
     * -2 to 2.
     */
    presencePenalty?: number;
    /**
     * -2 to 2.
     */
    frequencyPenalty?: number;
    seed?: number;
    responseMimeType?: string;
    /**
     * An OpenAPI-subset schema (with `responseMimeType: "application/json"`).
     */
    responseSchema?: GeminiSchema;
    /**
     * A JSON Schema (instead of `responseSchema`, with `responseMimeType`).
     */
    responseJsonSchema?: GeminiResponseJsonSchema;
    responseModalities?: GeminiModality[];
    responseLogprobs?: boolean;
    logprobs?: number;
    mediaResolution?: GeminiMediaResolution;
    thinkingConfig?: GeminiThinkingConfig;
    /**
     * Spoken output: the voice or voices, and their language.
     */
    speechConfig?: GeminiSpeechConfig;
    /**
     * How audio in the input is transcribed.
     */
    audioTranscriptionConfig?: GeminiAudioTranscriptionConfig;
    /**
     * Timestamps for audio input (Vertex AI).
     */
    audioTimestamp?: boolean;
    enableAffectiveDialog?: boolean;
    /**
     * Gemini Developer API.
     */
    enableEnhancedCivicAnswers?: boolean;
    /**
     * A preference among models (Vertex AI).
     */
    modelSelectionConfig?: GeminiModelSelectionConfig;
    /**
     * The format of each output modality.
     */
    responseFormat?: GeminiResponseFormat;
    /**
     * Automatic or chosen model routing (Vertex AI).
     */
    routingConfig?: GeminiRoutingConfig;
    translationConfig?: GeminiTranslationConfig;
}

export type GeminiHarmBlockMethod = "HARM_BLOCK_METHOD_UNSPECIFIED" | "SEVERITY" | "PROBABILITY";

export type GeminiHarmBlockThreshold = "HARM_BLOCK_THRESHOLD_UNSPECIFIED" | "BLOCK_LOW_AND_ABOVE" | "BLOCK_MEDIUM_AND_ABOVE" | "BLOCK_ONLY_HIGH" | "BLOCK_NONE" | "OFF";

export type GeminiHarmCategory = "HARM_CATEGORY_UNSPECIFIED" | "HARM_CATEGORY_HARASSMENT" | "HARM_CATEGORY_HATE_SPEECH" | "HARM_CATEGORY_SEXUALLY_EXPLICIT" | "HARM_CATEGORY_DANGEROUS_CONTENT" | "HARM_CATEGORY_CIVIC_INTEGRITY" | "HARM_CATEGORY_JAILBREAK" | "HARM_CATEGORY_IMAGE_HATE" | "HARM_CATEGORY_IMAGE_DANGEROUS_CONTENT" | "HARM_CATEGORY_IMAGE_HARASSMENT" | "HARM_CATEGORY_IMAGE_SEXUALLY_EXPLICIT";

export type GeminiPart = { text?: string; inlineData?: GeminiBlob; fileData?: GeminiFileData; functionCall?: GeminiFunctionCall; functionResponse?: GeminiFunctionResponse; thought?: boolean; thoughtSignature?: string } & Record<string, Value>;

export interface GeminiRequest {
    tools?: GeminiTool[];
    systemInstruction?: GeminiContent;
    contents: GeminiContent[];
}

export interface GeminiSafetySetting {
    /**
     * Required by the API (optional in @google/genai's type: a rule says so).
     */
    category?: GeminiHarmCategory;
    /**
     * Required by the API.
     */
    threshold?: GeminiHarmBlockThreshold;
    /**
     * Block by the harm's probability or its severity (Vertex AI).
     */
    method?: GeminiHarmBlockMethod;
}

export interface GeminiSettings {
    generationConfig?: GeminiGenerationConfig;
    safetySettings?: GeminiSafetySetting[];
    toolConfig?: GeminiToolConfig;
    /**
     * An explicit cache (`cachedContents/…`): the request may then carry no system
     * instruction, tools or tool config of its own.
     */
    cachedContent?: string;
    labels?: Record<string, string>;
}

export interface GeminiThinkingConfig {
    /**
     * Tokens to think with: 0 turns thinking off where the model allows it, -1 lets the model
     * decide; the range depends on the model (2.5 Pro 128–32,768, Flash 0–24,576, Flash-Lite
     * 512–24,576).
     */
    thinkingBudget?: number;
    /**
     * Gemini 3 and later, instead of a budget.
     */
    thinkingLevel?: GeminiThinkingLevel;
    /**
     * Thought summaries in the answer (recorded as reasoning).
     */
    includeThoughts?: boolean;
}

export type GeminiThinkingLevel = "THINKING_LEVEL_UNSPECIFIED" | "MINIMAL" | "LOW" | "MEDIUM" | "HIGH" | "XHIGH";

export interface GeminiTool {
    functionDeclarations: GeminiFunctionDeclaration[];
}

export interface GeminiToolConfig {
    functionCallingConfig?: GeminiFunctionCallingConfig;
    /**
     * Where the user is and their language, for the grounding tools (passed through).
     */
    retrievalConfig?: GeminiRetrievalConfig;
    /**
     * Server-side tools' calls and results come back in the answer's content (Gemini
     * Developer API).
     */
    includeServerSideToolInvocations?: boolean;
}

export type OpenAiAllowedMode = "auto" | "required";

export type OpenAiCacheRetention = "in_memory" | "24h";

export interface OpenAiChatAllowedTools {
    mode: OpenAiAllowedMode;
    /**
     * Each a named function or custom tool (the SDK types them as any object).
     */
    tools: AnyObject[];
}

export interface OpenAiChatFunctionCall {
    name: string;
    arguments: string;
}

export interface OpenAiChatFunctionDef {
    name: string;
    description?: string;
    parameters: Record<string, Value>;
}

export interface OpenAiChatImageUrl {
    url: string;
    detail?: "auto" | "low" | "high";
}

export interface OpenAiChatJsonSchema {
    /**
     * `a-z A-Z 0-9 _ -`, up to 64 characters.
     */
    name: string;
    description?: string;
    schema?: AnyObject;
    strict?: boolean;
}

export type OpenAiChatMessage = { role: "system"; content: string } | { role: "developer"; content: string } | { role: "user"; content: OpenAiChatUserContent } | { role: "assistant"; content?: string | null; tool_calls?: OpenAiChatToolCall[] } | { role: "tool"; tool_call_id: string; content: OpenAiChatToolContent };

export type OpenAiChatNamedToolChoice = { type: "function"; function: OpenAiChatToolName } | { type: "custom"; custom: OpenAiChatToolName } | { type: "allowed_tools"; allowed_tools: OpenAiChatAllowedTools };

export type OpenAiChatPrediction = { type: "content"; content: OpenAiChatPredictionContent };

export interface OpenAiChatRequest {
    model: string;
    /**
     * Routes the requests of one session to the same prompt cache.
     */
    prompt_cache_key?: string;
    /**
     * The reply's budget, reasoning included.
     */
    max_completion_tokens?: number;
    tools?: OpenAiChatTool[];
    messages: OpenAiChatMessage[];
}

export type OpenAiChatResponseFormat = { type: "text" } | { type: "json_object" } | { type: "json_schema"; json_schema: OpenAiChatJsonSchema };

export interface OpenAiChatSettings {
    reasoning_effort?: OpenAiReasoningEffort;
    verbosity?: OpenAiVerbosity;
    response_format?: OpenAiChatResponseFormat;
    tool_choice?: OpenAiChatToolChoice;
    /**
     * Only with tools.
     */
    parallel_tool_calls?: boolean;
    /**
     * 0 to 2.
     */
    temperature?: number;
    /**
     * 0 to 1.
     */
    top_p?: number;
    /**
     * -2 to 2.
     */
    presence_penalty?: number;
    /**
     * -2 to 2.
     */
    frequency_penalty?: number;
    seed?: number;
    /**
     * Token id → bias from -100 to 100.
     */
    logit_bias?: Record<string, number>;
    /**
     * Deprecated by OpenAI in favour of `max_completion_tokens`, still read by many servers.
     */
    max_tokens?: number;
    /**
     * Choices to generate; the first is recorded.
     */
    n?: number;
    /**
     * Up to 4 sequences.
     */
    stop?: OpenAiChatStop;
    logprobs?: boolean;
    /**
     * 0 to 20, with `logprobs`.
     */
    top_logprobs?: number;
    prediction?: OpenAiChatPrediction;
    service_tier?: OpenAiServiceTier;
    store?: boolean;
    /**
     * Up to 16 pairs; keys up to 64 characters, values up to 512.
     */
    metadata?: Record<string, string>;
    user?: string;
    safety_identifier?: string;
    prompt_cache_retention?: OpenAiCacheRetention;
    stream?: boolean;
    /**
     * Only with `stream`.
     */
    stream_options?: OpenAiChatStreamOptions;
    /**
     * A moderation model run on the input and the output, scoring or blocking.
     */
    moderation?: OpenAiChatModeration;
    /**
     * Implicit or explicit cache breakpoints.
     */
    prompt_cache_options?: OpenAiChatPromptCacheOptions;
    /**
     * Web search, for the search models.
     */
    web_search_options?: OpenAiChatWebSearchOptions;
}

export type OpenAiChatStop = string | string[];

export interface OpenAiChatStreamOptions {
    /**
     * A last chunk with the usage (what the ledger anchors on): ask for it.
     */
    include_usage?: boolean;
    include_obfuscation?: boolean;
}

export interface OpenAiChatTextPart {
    type: "text";
    text: string;
}

export interface OpenAiChatTool {
    type: "function";
    function: OpenAiChatFunctionDef;
}

export interface OpenAiChatToolCall {
    id: string;
    type: "function";
    function: OpenAiChatFunctionCall;
}

/**
 * `"none" | "auto" | "required"`, a named function or custom tool, or a set of allowed tools.
 */
export type OpenAiChatToolChoice = OpenAiToolChoiceMode | OpenAiChatNamedToolChoice;

export type OpenAiChatToolContent = string | OpenAiChatTextPart[];

export interface OpenAiChatToolName {
    name: string;
}

export type OpenAiChatUserContent = string | OpenAiChatUserPart[];

export type OpenAiChatUserPart = { type: "text"; text: string } | { type: "image_url"; image_url: OpenAiChatImageUrl };

export type OpenAiReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export type OpenAiResponsesInputItem = { type: "function_call"; call_id: string; name: string; arguments: string } | { type: "function_call_output"; call_id: string; output: OpenAiResponsesOutput } | { type: "custom_tool_call"; call_id: string; name: string; input: string } | { type: "custom_tool_call_output"; call_id: string; output: OpenAiResponsesOutput } | { type: "reasoning"; id?: string; summary: OpenAiResponsesSummaryText[]; encrypted_content?: string } | OpenAiResponsesMessage | OpenAiResponsesNativeItemBack;

export type OpenAiResponsesInputPart = { type: "input_text"; text: string } | { type: "input_image"; image_url?: string; file_id?: string; detail: "auto" | "low" | "high" };

export type OpenAiResponsesMessageContent = string | OpenAiResponsesInputPart[];

export type OpenAiResponsesMessageRole = "user" | "assistant" | "system" | "developer";

export type OpenAiResponsesNamedToolChoice = { type: "function"; name: string } | { type: "custom"; name: string } | { type: "allowed_tools"; mode: OpenAiAllowedMode; tools: AnyObject[] } | OpenAiResponsesHostedToolChoice;

export type OpenAiResponsesOutput = string | OpenAiResponsesInputPart[];

export interface OpenAiResponsesReasoning {
    effort?: OpenAiReasoningEffort;
    summary?: OpenAiResponsesSummary;
}

export interface OpenAiResponsesRequest {
    model: string;
    /**
     * Routes the requests of one session to the same prompt cache.
     */
    prompt_cache_key?: string;
    /**
     * The reply's budget, reasoning included.
     */
    max_output_tokens?: number;
    tools?: OpenAiResponsesTool[];
    instructions?: string;
    input: OpenAiResponsesInputItem[];
}

export interface OpenAiResponsesSettings {
    reasoning?: OpenAiResponsesReasoning;
    /**
     * Extra output to include: `reasoning.encrypted_content` (reasoning a `store: false`
     * conversation can send back), and [`INCLUDABLE`]'s others.
     */
    include?: OpenAiResponsesIncludable[];
    store?: boolean;
    text?: OpenAiResponsesText;
    tool_choice?: OpenAiResponsesToolChoice;
    parallel_tool_calls?: boolean;
    /**
     * Built-in tool calls allowed in one response (at least 1).
     */
    max_tool_calls?: number;
    /**
     * 0 to 2.
     */
    temperature?: number;
    /**
     * 0 to 1.
     */
    top_p?: number;
    /**
     * 0 to 20.
     */
    top_logprobs?: number;
    truncation?: OpenAiResponsesTruncation;
    service_tier?: OpenAiServiceTier;
    /**
     * Up to 16 pairs; keys up to 64 characters, values up to 512.
     */
    metadata?: Record<string, string>;
    user?: string;
    safety_identifier?: string;
    prompt_cache_retention?: OpenAiCacheRetention;
    background?: boolean;
    stream?: boolean;
    stream_options?: OpenAiResponsesStreamOptions;
    /**
     * A moderation model run on the input and the output, scoring or blocking.
     */
    moderation?: OpenAiResponsesModeration;
    /**
     * Cache breakpoints, their lifetime, and warming the cache without an answer.
     */
    prompt_cache_options?: OpenAiResponsesPromptCacheOptions;
    /**
     * The completion window of a background response.
     */
    background_options?: OpenAiResponsesBackgroundOptions;
    /**
     * Whether image context is compressed.
     */
    image?: OpenAiResponsesImage;
    /**
     * Access programs the request runs under.
     */
    access_programs?: OpenAiResponsesAccessPrograms;
}

export interface OpenAiResponsesStreamOptions {
    include_obfuscation?: boolean;
}

export type OpenAiResponsesSummary = "auto" | "concise" | "detailed";

export interface OpenAiResponsesSummaryText {
    type: "summary_text";
    text: string;
}

export interface OpenAiResponsesText {
    format?: OpenAiResponsesTextFormat;
    verbosity?: OpenAiVerbosity;
}

/**
 * The output's format. Unlike Chat's, a JSON schema's fields sit on the format itself.
 */
export type OpenAiResponsesTextFormat = { type: "text" } | { type: "json_object" } | { type: "json_schema"; name: string; schema: AnyObject; description?: string; strict?: boolean };

export interface OpenAiResponsesTool {
    type: "function";
    name: string;
    description?: string;
    parameters: Record<string, Value>;
    strict: boolean;
}

/**
 * `"none" | "auto" | "required"`, a function or custom tool by name, a set of allowed tools,
 * or a hosted tool by type.
 */
export type OpenAiResponsesToolChoice = OpenAiToolChoiceMode | OpenAiResponsesNamedToolChoice;

export type OpenAiResponsesTruncation = "auto" | "disabled";

export type OpenAiServiceTier = "auto" | "default" | "flex" | "scale" | "priority" | "fast" | "ultrafast";

export type OpenAiToolChoiceMode = "none" | "auto" | "required";

export type OpenAiVerbosity = "low" | "medium" | "high";
