//! The JavaScript facade: every JS-facing function and type, and nothing else.
//!
//! Objects cross the boundary as JSON text: `JSON.stringify` on the way in, `JSON.parse` on the
//! way out (plain objects, never `Map`s), so each type has one serializer and one deserializer in
//! the `.wasm` — the ones the log and the payloads already need. Only the discovery host's
//! answers, which carry file bytes as `Uint8Array`s, are read with serde-wasm-bindgen.
//! TypeScript types come from the Rust types (tsify). Errors are thrown as JS
//! `Error`s with a stable `code` (and `details` where there is more to say); problems with the
//! input data itself come back as diagnostics in the result, not as exceptions.

use serde::Serialize;
use tsify::Ts;
use wasm_bindgen::prelude::*;

mod cross;
mod open;
mod policies;
mod session;
use cross::{body_result, build_result, bytes, clock, error, integer, optional_string, options, request_error, session_error, string, strings, to_js, ts, via_value, OptionsMemo};

use crate::diagnostic::Diagnostic;
use crate::discovery::host::HostAnswer;
use crate::discovery::{DiscoveryOptions, Outcome, Step, Workspace, WorkspaceStats};
use crate::import::{self, Format, ImportReport};
use crate::provider::{Limits, Payload, Provider, Violation};
use crate::request::{build_request as build_native, BuildInput};
use crate::prompt::{Heads, PromptContext};
use crate::session::{
    AckResult, Appended, Command, Effect, PersistOutcome, PersistenceStatus, Processed, Reconciled, Session as NativeSession,
    SessionSnapshot, SessionState, SubagentStart,
};
use crate::update::{self, Header, Replay, RequestPoint};
use crate::view::Report;

// The shapes the official SDKs give request settings passed through as given, and the blocks
// and items a provider's answer carries back: long, and TypeScript only, so in files of their own.
#[wasm_bindgen(typescript_custom_section)]
const TS_SETTINGS_SHAPES: &str = include_str!("shapes/settings.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_NATIVE_SHAPES: &str = include_str!("shapes/natives.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** The request body of each API. */
export type PayloadOf<P extends Provider> = P extends 'anthropic' ? AnthropicRequest
  : P extends 'openai-chat' ? OpenAiChatRequest
  : P extends 'openai-responses' ? OpenAiResponsesRequest
  : P extends 'gemini' ? GeminiRequest
  : never;

/** A built request as an object: `provider` tells which API's payload it holds. */
export type BuildResult<P extends Provider = Provider> = P extends Provider
  ? { provider: P; payload: PayloadOf<P>; report: Report; diagnostics: Diagnostic[] }
  : never;

/** Builds a provider request; returns the payload as an object of that API's type. */
export function buildRequest<P extends Provider>(input: BuildInput & { provider: P }): BuildResult<P>;

/** The reply a command gives when it is not refused. */
export type ReplyTo<T extends Command['type']> = T extends 'buildRequest' ? Extract<Reply, { type: 'built' }>
  : T extends 'prepareCompaction' ? Extract<Reply, { type: 'compaction' }>
  : T extends 'snapshot' ? Extract<Reply, { type: 'snapshot' }>
  : T extends 'enqueueReminder' ? Extract<Reply, { type: 'queued' }>
  : T extends 'startSubagent' ? Extract<Reply, { type: 'subagentStarted' }>
  : T extends 'providerAnswer' ? Extract<Reply, { type: 'answered' }>
  : T extends 'endAnswer' ? Extract<Reply, { type: 'answered' } | { type: 'unchanged' }>
  : T extends 'setPromptContext' ? Extract<Reply, { type: 'accepted' } | { type: 'unchanged' } | { type: 'queued' }>
  : T extends 'flush' | 'restore' | 'beginAnswer' ? Extract<Reply, { type: 'unchanged' }>
  : Extract<Reply, { type: 'accepted' } | { type: 'unchanged' }>;

/**
 * A processed command: its reply, or — refused, having written nothing — its error (a refusal
 * is data; only a command that is not one of the session's throws).
 */
export type ProcessedAs<T extends Command['type']> = Omit<Processed, 'command' | 'reply' | 'error'> & { command: T } & (
  | { reply: ReplyTo<T>; error?: undefined }
  | { reply?: undefined; error: CommandFailure }
);

export declare namespace Session {
    /**
     * A subagent's session, as `startSubagent`'s reply describes it (`reply.child`): its header
     * names the parent's session and call; its model, its prompt context and its task (its
     * first prompt) are recorded, their records among the effects its next command returns (or
     * `takeEffects()`). `now` (RFC 3339) stamps them; the clock's time when left out.
     */
    function forSubagent(start: SubagentStart, now?: string | null): Session;
}

export interface Session {
  /** Processes one command now (throws `queue_not_empty` while commands are queued). */
  dispatch<C extends Command>(command: C, now?: string | null): ProcessedAs<C['type']>;
  /** Builds a request; returns the payload as an object of the API's type. */
  build<P extends Provider>(options: BuildInput & { provider: P }): BuildResult<P>;
}

/**
 * A block or item of the model's own turn that only its API reads (a server tool's call or
 * result), sent back exactly as the provider gave it.
 */
export type NativeBlock = { type: string; [key: string]: Value };

/**
 * A citation on a text Claude wrote, as a request takes it back (the SDK's
 * `TextCitationParam`).
 */
export type AnthropicCitation =
  | { type: 'char_location'; cited_text: string; document_index: number; document_title: string | null; start_char_index: number; end_char_index: number }
  | { type: 'page_location'; cited_text: string; document_index: number; document_title: string | null; start_page_number: number; end_page_number: number }
  | { type: 'content_block_location'; cited_text: string; document_index: number; document_title: string | null; start_block_index: number; end_block_index: number }
  | { type: 'web_search_result_location'; cited_text: string; encrypted_index: string; title: string | null; url: string }
  | { type: 'search_result_location'; cited_text: string; search_result_index: number; source: string; title: string | null; start_block_index: number; end_block_index: number };

/** An annotation on a text an OpenAI Responses model wrote, as a request takes it back. */
export type OpenAiResponsesAnnotation =
  | { type: 'url_citation'; url: string; title: string; start_index: number; end_index: number }
  | { type: 'file_citation'; file_id: string; filename: string; index: number }
  | { type: 'container_file_citation'; container_id: string; file_id: string; filename: string; start_index: number; end_index: number }
  | { type: 'file_path'; file_id: string; index: number };

/** Any JSON value. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** A JSON Schema for a tool's arguments: an object schema. */
export type ToolSchema = { type?: 'object'; [key: string]: unknown };

/**
 * Gemini's `Schema` (an OpenAPI subset: upper-case types, `nullable`, counts as strings), as a
 * function declaration's `parameters` takes it; read as the JSON Schema it means.
 */
export type GeminiSchema = {
  type?: 'TYPE_UNSPECIFIED' | 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';
  format?: string; title?: string; description?: string; nullable?: boolean; enum?: string[];
  maxItems?: string; minItems?: string; maxLength?: string; minLength?: string; maxProperties?: string; minProperties?: string;
  minimum?: number; maximum?: number; pattern?: string; default?: unknown; example?: unknown;
  properties?: Record<string, GeminiSchema>; required?: string[]; propertyOrdering?: string[];
  anyOf?: GeminiSchema[]; items?: GeminiSchema;
};

/**
 * A tool, in whichever shape a developer already has — the official SDKs' function tool types
 * are accepted as they are: ours and MCP's (`inputSchema`), Anthropic's `Tool`
 * (`input_schema`), OpenAI Responses' `FunctionTool` (`{type: 'function', name, parameters}`),
 * Chat Completions' `ChatCompletionFunctionTool` (`{type: 'function', function: {...}}`), or
 * Gemini's `Tool` (`{functionDeclarations: [...]}`, one tool per declaration; `parameters` in
 * Gemini's `Schema` or `parametersJsonSchema`). Fields that tell an API how to run a tool
 * rather than the model what it is (`strict`, `cache_control`, `defer_loading`,
 * `allowed_callers`, `input_examples`, `eager_input_streaming`, `async`, `output_schema`,
 * `behavior`, `response`, and MCP's `title`, `annotations`, `outputSchema`, `icons`,
 * `execution`, `_meta`) are accepted and not sent; null counts as absent. Any other field, a
 * server or hosted tool, a freeform `custom` tool and Gemini's built-in tools are refused with
 * the field's name.
 */
export type ToolInput =
  | ToolInputFields & { inputSchema?: ToolSchema; title?: string; annotations?: unknown; outputSchema?: unknown; icons?: unknown; execution?: unknown; _meta?: unknown }
  | ToolInputFields & {
      input_schema: ToolSchema; type?: 'custom' | null; cache_control?: unknown; strict?: boolean; defer_loading?: boolean;
      allowed_callers?: readonly string[]; eager_input_streaming?: boolean | null; input_examples?: readonly unknown[];
    }
  | ToolInputFields & {
      type: 'function'; parameters?: ToolSchema | null; strict?: boolean | null; allowed_callers?: readonly string[] | null;
      async?: boolean; defer_loading?: boolean; output_schema?: unknown;
    }
  | { type: 'function'; function: ToolInputFields & { parameters?: ToolSchema; strict?: boolean | null } }
  | {
      functionDeclarations?: Array<{
        name?: string; description?: string; parameters?: GeminiSchema | ToolSchema; parametersJsonSchema?: unknown;
        response?: unknown; responseJsonSchema?: unknown; behavior?: 'UNSPECIFIED' | 'BLOCKING' | 'NON_BLOCKING';
      }>;
    };

/**
 * Each API's request settings, in its own field names (thinking, tool choice, sampling,
 * structured output, reasoning effort, safety settings, …); a build uses only its target API's
 * section, so one object serves a session that switches providers. The reply's budget
 * (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, `generationConfig.maxOutputTokens`)
 * and OpenAI's `prompt_cache_key` may be given here or as `maxTokens` / `cache.key`.
 */
export interface ProviderOptions {
  anthropic?: Nullish<AnthropicSettings & { max_tokens?: number; user_profile_id?: string; workspace_id?: string }> | null;
  'openai-chat'?: Nullish<OpenAiChatSettings & { max_completion_tokens?: number; prompt_cache_key?: string }> | null;
  'openai-responses'?: Nullish<OpenAiResponsesSettings & { max_output_tokens?: number; prompt_cache_key?: string }> | null;
  gemini?: Nullish<GeminiSettings & { stream?: boolean }> | null;
}

/**
 * `T` as a caller may give it: `null` wherever a field may be left out (null is as good as
 * absent, and is not sent), as the official SDKs' own types allow.
 */
export type Nullish<T> = T extends readonly (infer U)[]
  ? Nullish<U>[]
  : T extends object
    ? { [K in keyof T]: undefined extends T[K] ? Nullish<Exclude<T[K], undefined>> | null | undefined : Nullish<T[K]> }
    : T;

/** The fields every tool shape shares. */
export interface ToolInputFields {
  name: string;
  description?: string | null;
}
"#;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// A parsed log.
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ParsedLog {
    pub header: Option<Header>,
    /// Records in their wire form (`{seq, ts, update | event}`).
    #[tsify(type = "Value[]")]
    pub records: Vec<serde_json::Value>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A built request as the body string to send.
#[derive(Serialize, tsify::Tsify)]
pub struct BuildStringResult {
    pub body: String,
    pub report: Report,
    pub diagnostics: Vec<Diagnostic>,
}

/// A built request as the body's UTF-8 bytes, which `fetch` and the Workers runtime take as a
/// body without decoding them into a string first.
#[derive(Serialize, tsify::Tsify)]
pub struct BuildBytesResult {
    #[tsify(type = "Uint8Array<ArrayBuffer>")]
    pub body: Vec<u8>,
    pub report: Report,
    pub diagnostics: Vec<Diagnostic>,
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// Parses a session log (JSON Lines). Bad lines become diagnostics; it never throws on data.
#[wasm_bindgen(js_name = parseLog)]
pub fn parse_log(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<Ts<ParsedLog>, JsValue> {
    let log = update::parse_log(&string(&text, "text")?);
    let records = log
        .records
        .iter()
        .map(|r| r.to_value())
        .collect();
    ts(&ParsedLog { header: log.header, records, diagnostics: log.diagnostics })
}

/// Replays a session log into conversation items and the client's coalesced view.
#[wasm_bindgen]
pub fn replay(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<Ts<Replay>, JsValue> {
    let log = update::parse_log(&string(&text, "text")?);
    let mut replayed = update::replay(&log.records);
    let mut diagnostics = log.diagnostics;
    diagnostics.append(&mut replayed.diagnostics);
    replayed.diagnostics = diagnostics;
    ts(&replayed)
}

/// The requests the agent sent in a log, in order (see `RequestPoint`).
#[derive(Serialize, tsify::Tsify)]
pub struct RequestPoints {
    pub points: Vec<RequestPoint>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Where in a log the agent sent the model a request: for each, the line its answer starts on
/// (the lines before it rebuild that request); when the log ends waiting for the model, last
/// the request it would send next (`next`). Bad lines become diagnostics.
#[wasm_bindgen(js_name = requestPoints)]
pub fn request_points(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<Ts<RequestPoints>, JsValue> {
    let text = string(&text, "text")?;
    let log = update::parse_log(&text);
    let points = update::request_points(&log, text.split('\n').count());
    ts(&RequestPoints { points, diagnostics: log.diagnostics })
}

/// Builds a provider request; returns the payload as an object (declared in `TS_TYPES`).
#[wasm_bindgen(js_name = buildRequest, skip_typescript)]
pub fn build_request(input: Ts<BuildInput>) -> Result<JsValue, JsValue> {
    let out = build_native(&options(input)?).map_err(request_error)?;
    build_result(&out.built.body, &out.built.report, &out.diagnostics)
}

/// Builds a provider request; returns the body string exactly as it would be sent.
#[wasm_bindgen(js_name = buildRequestString)]
pub fn build_request_string(input: Ts<BuildInput>) -> Result<Ts<BuildStringResult>, JsValue> {
    let out = build_native(&options(input)?).map_err(request_error)?;
    body_result(JsValue::from_str(&out.built.body), &out.built.report, &out.diagnostics).map(Ts::new_unchecked)
}

/// Replays a log's requests under each policy and prices them: what each request sends, what
/// the provider's cache should serve and write, its share of the window, its cost in dollars.
#[wasm_bindgen]
pub fn simulate(input: Ts<crate::simulate::SimulateInput>) -> Result<Ts<crate::simulate::Simulation>, JsValue> {
    let input: crate::simulate::SimulateInput = via_value(&input.js_value(), "invalid_options", "simulation")?;
    ts(&crate::simulate::simulate(&input).map_err(|e| error(e.code(), e.message()))?)
}

/// The built-in prices and caching rules, one row per model family, each dated.
#[wasm_bindgen(js_name = costModels)]
pub fn cost_models() -> Result<Vec<Ts<crate::cost::CostModel>>, JsValue> {
    crate::cost::prices::table().iter().map(ts).collect()
}

/// Where a provider's API answers: the URL and headers for a request (the host's key, when
/// given, in the header the API reads), streaming as `stream` or the build's settings say.
#[wasm_bindgen]
pub fn endpoint(input: Ts<crate::provider::endpoint::EndpointInput>) -> Result<Ts<crate::provider::endpoint::Endpoint>, JsValue> {
    let value = input.js_value();
    if !value.is_object() {
        return Err(cross::type_error("input", "an object ({provider, model, stream?, apiKey?, baseUrl?, providerOptions?})", &value));
    }
    let value: serde_json::Value = via_value(&value, "invalid_argument", "input")?;
    let input = crate::provider::endpoint::EndpointInput::from_value(value).map_err(|m| error("invalid_argument", &format!("endpoint input: {m}")))?;
    ts(&crate::provider::endpoint::endpoint(&input).map_err(|m| error("invalid_argument", &m))?)
}

/// Checks a payload (ours or anyone's) against a provider's rules; `[]` means valid.
#[wasm_bindgen(js_name = validatePayload)]
pub fn validate_payload(
    #[wasm_bindgen(unchecked_param_type = "Provider")] provider: JsValue,
    payload: JsValue,
    limits: Option<Ts<Limits>>,
) -> Result<Vec<Ts<Violation>>, JsValue> {
    let provider: Provider = string(&provider, "provider")?.parse().map_err(|m: String| error("invalid_argument", &m))?;
    let limits = match limits {
        Some(l) => via_value(&l.js_value(), "invalid_argument", "limits")?,
        None => Limits::default(),
    };
    let value: serde_json::Value = via_value(&payload, "invalid_argument", "payload")?;
    let violations = match Payload::from_json(provider, value) {
        Ok(payload) => payload.validate(&limits),
        Err(reason) => vec![Violation::new(
            &format!("{}.shape", provider.as_str().replace('-', "_")),
            "",
            format!("payload does not have the {provider} request shape: {reason}"),
        )],
    };
    violations.iter().map(ts).collect()
}

/// An imported session: our log as JSON Lines text, and what the import kept and left out.
#[derive(Serialize, tsify::Tsify)]
pub struct ImportResult {
    pub log: String,
    pub report: ImportReport,
}

/// Imports another agent's session file (Claude Code, Codex or pi) into our log format. The
/// format is detected when not given. Bad lines are reported in `report.diagnostics`.
#[wasm_bindgen(js_name = importSession)]
pub fn import_session(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'claude-code' | 'codex' | 'pi' | null | undefined")] format: JsValue,
) -> Result<Ts<ImportResult>, JsValue> {
    let text = string(&text, "text")?;
    let format = optional_string(&format, "format")?;
    let format = match format.as_deref() {
        Some(name) => Some(name.parse::<Format>().map_err(|m| error("invalid_argument", &m))?),
        None => None,
    };
    let imported = import::import(format, &text).map_err(|e| error(e.code(), &e.to_string()))?;
    let log = update::write_log(&imported.header, &imported.records);
    ts(&ImportResult { log, report: imported.report })
}



/// A session imported with its subagents' own files (`importTree`).
#[derive(Serialize, tsify::Tsify)]
pub struct ImportTreeResult {
    pub parent: ImportResult,
    /// Each child file given, in order: its log's header names the parent's session and the
    /// call it answered when the parent links it.
    pub children: Vec<ImportResult>,
    /// Sessions of subagents the parent links to a call whose files were not given.
    pub missing: Vec<String>,
    /// Child files the parent does not link to any call, by session id.
    pub unlinked: Vec<String>,
}

/// Imports a session with the files of the subagents that answered its calls (Claude Code's
/// `agent-<id>.jsonl` beside it), each linked to its call; lists what was not given or not linked.
#[wasm_bindgen(js_name = importTree)]
pub fn import_tree(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] children: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'claude-code' | 'codex' | 'pi' | null | undefined")] format: JsValue,
) -> Result<Ts<ImportTreeResult>, JsValue> {
    let text = string(&text, "text")?;
    if !js_sys::Array::is_array(&children) {
        return Err(cross::type_error("children", "an array of strings", &children));
    }
    let children: Vec<String> = js_sys::Array::from(&children).iter().map(|c| string(&c, "children")).collect::<Result<_, _>>()?;
    let format = optional_string(&format, "format")?;
    let format = match format.as_deref() {
        Some(name) => Some(name.parse::<Format>().map_err(|m| error("invalid_argument", &m))?),
        None => None,
    };
    let refs: Vec<&str> = children.iter().map(String::as_str).collect();
    let tree = import::import_tree(format, &text, &refs).map_err(|e| error(e.code(), &e.to_string()))?;
    let result = |imported: import::Imported| ImportResult { log: update::write_log(&imported.header, &imported.records), report: imported.report };
    ts(&ImportTreeResult {
        parent: result(tree.parent),
        children: tree.children.into_iter().map(result).collect(),
        missing: tree.missing,
        unlinked: tree.unlinked,
    })
}

/// Renders the two prompt heads (system prompt, first-user prefix) from a prompt context.
#[wasm_bindgen(js_name = renderHeads)]
pub fn render_heads(context: Ts<PromptContext>) -> Result<Ts<Heads>, JsValue> {
    let context: PromptContext = via_value(&context.js_value(), "invalid_argument", "prompt context")?;
    ts(&crate::prompt::render_heads(&context).map_err(|e| error("invalid_template", &e.to_string()))?)
}

/// The discovery engine (sans-IO): start a job, then loop `step()` / `answer()` until done.
/// See `docs/discovery-protocol.md`; the package's `discover(options, fs)` drives it.
#[wasm_bindgen]
pub struct WorkspaceEngine {
    inner: Workspace,
}

#[wasm_bindgen]
impl WorkspaceEngine {
    #[wasm_bindgen(constructor)]
    pub fn new(options: Ts<DiscoveryOptions>) -> Result<WorkspaceEngine, JsValue> {
        let options = via_value(&options.js_value(), "invalid_options", "discovery options")?;
        let inner = Workspace::new(options).map_err(|m| error("invalid_options", &m))?;
        Ok(WorkspaceEngine { inner })
    }

    #[wasm_bindgen(js_name = startDiscover)]
    pub fn start_discover(&mut self) {
        self.inner.start_discover();
    }

    #[wasm_bindgen(js_name = startRefresh)]
    pub fn start_refresh(&mut self, #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue) -> Result<(), JsValue> {
        self.inner.start_refresh(&strings(&paths, "paths")?);
        Ok(())
    }

    #[wasm_bindgen(js_name = startRulesForPath)]
    pub fn start_rules_for_path(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> Result<(), JsValue> {
        self.inner.start_rules_for_path(&string(&path, "path")?);
        Ok(())
    }

    #[wasm_bindgen(js_name = startRulesMatching)]
    pub fn start_rules_matching(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> Result<(), JsValue> {
        self.inner.start_rules_matching(&string(&path, "path")?);
        Ok(())
    }

    #[wasm_bindgen(js_name = startLoadSkill)]
    pub fn start_load_skill(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> Result<(), JsValue> {
        self.inner.start_load_skill(&string(&name, "name")?);
        Ok(())
    }

    /// `{done: false, requests}` or `{done: true, outcome}`; a job that cannot finish throws
    /// an Error with its code (`unknown_skill`, `not_discovered`, `discovery_stalled`,
    /// `invalid_argument`).
    #[wasm_bindgen(unchecked_return_type = "{ done: false; requests: HostRequest[] } | { done: true; outcome: Environment | Changes | Rule[] | LoadedSkill }")]
    pub fn step(&mut self) -> Result<JsValue, JsValue> {
        let result = js_sys::Object::new();
        match self.inner.step() {
            Step::Need(requests) => {
                js_sys::Reflect::set(&result, &"done".into(), &false.into())?;
                js_sys::Reflect::set(&result, &"requests".into(), &to_js(&requests)?)?;
            }
            Step::Done(outcome) => {
                let outcome = match outcome {
                    Outcome::Environment(env) => to_js(&env)?,
                    Outcome::Changes(changes) => to_js(&changes)?,
                    Outcome::Rules { rules } => to_js(&rules)?,
                    Outcome::Skill(skill) => to_js(&skill)?,
                    Outcome::Error { code, message } => return Err(error(&code, &message)),
                };
                js_sys::Reflect::set(&result, &"done".into(), &true.into())?;
                js_sys::Reflect::set(&result, &"outcome".into(), &outcome)?;
            }
        }
        Ok(result.into())
    }

    /// The host's answers to the last batch of requests.
    pub fn answer(&mut self, #[wasm_bindgen(unchecked_param_type = "HostAnswer[]")] answers: JsValue) -> Result<(), JsValue> {
        let answers: Vec<HostAnswer> = serde_wasm_bindgen::from_value(answers)
            .map_err(|e| error("invalid_argument", &format!("host answers are malformed: {e}")))?;
        self.inner.answer(answers);
        Ok(())
    }

    /// Host calls made so far.
    pub fn stats(&self) -> Result<Ts<WorkspaceStats>, JsValue> {
        ts(&self.inner.stats())
    }
}

