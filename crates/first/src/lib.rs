//! What the first-load module exports (`contextview_bg.wasm`): logs, sessions, builds,
//! validators, answers, simulation and prices — everything a build-and-answer loop calls. The
//! importers and the discovery engine are in the lazy module (the `contextview-lazy` crate).

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod open;
mod policies;
mod session;

/// The TypeScript names of what this module takes and returns: the core's, and its own results'
/// (`BuildStringResult` and `BuildBytesResult` are made in JavaScript by `cross::body_result`).
mod ts {
    pub use contextview_js::ts::*;
    contextview_js::ts_names! {
        BuildBytesResult;
        BuildStringResult;
        ParsedLog = super::ParsedLog;
        RequestPoints = super::RequestPoints;
    }
}
use contextview_js::cross::{self, body_result, build_result, bytes, clock, error, integer, options, request_error, session_error, string, to_js, typed, via_value, OptionsMemo};

use contextview::diagnostic::Diagnostic;
use contextview::provider::{Limits, Payload, Provider, Violation};
use contextview::request::build_request as build_native;
use contextview::prompt::PromptContext;
use contextview::session::{
    Appended, Command, Effect, Processed, Session as NativeSession, SessionSnapshot, SubagentStart,
};
use contextview::update::{self, Header, RequestPoint};

#[wasm_bindgen(typescript_custom_section)]
const TS_OWN_TYPES: &str = include_str!("types.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/**
 * The request body of each API: the conversation, the system prompt and the tools, and every
 * setting the build sends at the body's top level (`thinking`, `reasoning_effort`, `reasoning`,
 * `generationConfig`, `toolConfig`, …).
 */
export type PayloadOf<P extends Provider> = P extends 'anthropic' ? AnthropicRequest & AnthropicSettings
  : P extends 'openai-chat' ? OpenAiChatRequest & OpenAiChatSettings
  : P extends 'openai-responses' ? OpenAiResponsesRequest & OpenAiResponsesSettings
  : P extends 'gemini' ? GeminiRequest & GeminiSettings
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
 * is data; only a command that is not one of the session's throws), or — not run yet — what it
 * waits for (`waiting`, with its `readHistory` / `readRecords` effect last: `provideHistory` or
 * `provideRecords` runs it and returns its reply; a `DurableSession` answers it itself).
 */
export type ProcessedAs<T extends Command['type']> = Omit<Processed, 'command' | 'reply' | 'error' | 'waiting'> & { command: T } & (
  | { reply: ReplyTo<T>; error?: undefined; waiting?: undefined }
  | { reply?: undefined; error: CommandFailure; waiting?: undefined }
  | (T extends MayWait ? { reply?: undefined; error?: undefined; waiting: Need } : never)
);

/** The commands that may wait for records the host keeps (the others never come back `waiting`). */
type MayWait = 'rewind' | 'snapshot' | 'buildRequest' | 'prepareCompaction' | 'applyCompaction';

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
  /**
   * Reads a provider's answer without recording it (`{body, status?, headers?, provider?,
   * model?, attempt?}`, as `providerAnswer` takes it): what it holds, how it ended and the retry
   * decision — for a compaction's summary request, whose text `applyCompaction` takes. `now`
   * (RFC 3339) reads a `retry-after` date; the clock's time when left out.
   */
  readAnswer(answer: ProviderAnswer, now?: string | null): AnswerSummary;
}

"#;

/// A parsed log.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedLog {
    pub header: Option<Header>,
    /// Records in their wire form (`{seq, ts, update | event}`).
    pub records: Vec<serde_json::Value>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// Parses a session log (JSON Lines). Bad lines become diagnostics; it never throws on data.
#[wasm_bindgen(js_name = parseLog)]
pub fn parse_log(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<ts::ParsedLog, JsValue> {
    let log = update::parse_log(&string(&text, "text")?);
    let records = log
        .records
        .iter()
        .map(|r| r.to_value())
        .collect();
    typed(&ParsedLog { header: log.header, records, diagnostics: log.diagnostics })
}

/// Replays a session log into conversation items and the client's coalesced view.
#[wasm_bindgen]
pub fn replay(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<ts::Replay, JsValue> {
    let log = update::parse_log(&string(&text, "text")?);
    let mut replayed = update::replay(&log.records);
    let mut diagnostics = log.diagnostics;
    diagnostics.append(&mut replayed.diagnostics);
    replayed.diagnostics = diagnostics;
    typed(&replayed)
}

/// The requests the agent sent in a log, in order (see `RequestPoint`).
#[derive(Serialize)]
pub struct RequestPoints {
    pub points: Vec<RequestPoint>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Where in a log the agent sent the model a request: for each, the line its answer starts on
/// (the lines before it rebuild that request); when the log ends waiting for the model, last
/// the request it would send next (`next`). Bad lines become diagnostics.
#[wasm_bindgen(js_name = requestPoints)]
pub fn request_points(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<ts::RequestPoints, JsValue> {
    let text = string(&text, "text")?;
    let log = update::parse_log(&text);
    let points = update::request_points(&log, text.split('\n').count());
    typed(&RequestPoints { points, diagnostics: log.diagnostics })
}

/// Builds a provider request; returns the payload as an object (declared in `TS_TYPES`).
#[wasm_bindgen(js_name = buildRequest, skip_typescript)]
pub fn build_request(input: ts::BuildInput) -> Result<JsValue, JsValue> {
    let out = build_native(&options(input)?).map_err(request_error)?;
    build_result(&out.built.body, &out.built.report, &out.diagnostics)
}

/// Builds a provider request; returns the body string exactly as it would be sent.
#[wasm_bindgen(js_name = buildRequestString)]
pub fn build_request_string(input: ts::BuildInput) -> Result<ts::BuildStringResult, JsValue> {
    let out = build_native(&options(input)?).map_err(request_error)?;
    body_result(JsValue::from_str(&out.built.body), &out.built.report, &out.diagnostics).map(JsCast::unchecked_into)
}

/// Replays a log's requests under each policy and prices them: what each request sends, what
/// the provider's cache should serve and write, its share of the window, its cost in dollars.
#[wasm_bindgen]
pub fn simulate(input: ts::SimulateInput) -> Result<ts::Simulation, JsValue> {
    let input: contextview::simulate::SimulateInput = via_value(&input, contextview::error_codes::INVALID_OPTIONS, "simulation")?;
    typed(&contextview::simulate::simulate(&input).map_err(|e| error(e.code(), e.message()))?)
}

/// The built-in prices and caching rules, one row per model family, each dated.
#[wasm_bindgen(js_name = costModels)]
pub fn cost_models() -> Result<Vec<ts::CostModel>, JsValue> {
    contextview::cost::prices::table().iter().map(typed).collect()
}

/// Where a provider's API answers: the URL and headers for a request (the host's key, when
/// given, in the header the API reads), streaming as `stream` or the build's settings say.
#[wasm_bindgen]
pub fn endpoint(input: ts::EndpointInput) -> Result<ts::Endpoint, JsValue> {
    let value = input;
    if !value.is_object() {
        return Err(cross::type_error("input", "an object ({provider, model, stream?, apiKey?, baseUrl?, providerOptions?})", &value));
    }
    let value: serde_json::Value = via_value(&value, contextview::error_codes::INVALID_ARGUMENT, "input")?;
    let input = contextview::provider::endpoint::EndpointInput::from_value(value).map_err(|m| error(contextview::error_codes::INVALID_ARGUMENT, &format!("endpoint input: {m}")))?;
    typed(&contextview::provider::endpoint::endpoint(&input).map_err(|m| error(contextview::error_codes::INVALID_ARGUMENT, &m))?)
}

/// Checks a payload (ours or anyone's) against a provider's rules; `[]` means valid.
#[wasm_bindgen(js_name = validatePayload)]
pub fn validate_payload(
    #[wasm_bindgen(unchecked_param_type = "Provider")] provider: JsValue,
    payload: JsValue,
    limits: Option<ts::Limits>,
) -> Result<Vec<ts::Violation>, JsValue> {
    let provider: Provider = string(&provider, "provider")?.parse().map_err(|m: String| error(contextview::error_codes::INVALID_ARGUMENT, &m))?;
    let limits = match limits {
        Some(l) => via_value(&l, contextview::error_codes::INVALID_ARGUMENT, "limits")?,
        None => Limits::default(),
    };
    let value: serde_json::Value = via_value(&payload, contextview::error_codes::INVALID_ARGUMENT, "payload")?;
    let violations = match Payload::from_json(provider, value) {
        Ok(payload) => payload.validate(&limits),
        Err(reason) => vec![Violation::new(
            &format!("{}.shape", provider.as_str().replace('-', "_")),
            "",
            format!("payload does not have the {provider} request shape: {reason}"),
        )],
    };
    violations.iter().map(typed).collect()
}

/// Renders the two prompt heads (system prompt, first-user prefix) from a prompt context.
#[wasm_bindgen(js_name = renderHeads)]
pub fn render_heads(context: ts::PromptContext) -> Result<ts::Heads, JsValue> {
    let context: PromptContext = via_value(&context, contextview::error_codes::INVALID_ARGUMENT, "prompt context")?;
    typed(&contextview::prompt::render_heads(&context).map_err(|e| error(contextview::error_codes::INVALID_TEMPLATE, &e.to_string()))?)
}
