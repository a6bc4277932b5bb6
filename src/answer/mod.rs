//! Provider answers → the log: the way back of the loop. A sans-IO decoder per API reads a
//! provider's answer — a whole JSON body, or a stream in any chunking ([`framing`]) — says what
//! it holds as ACP updates while it arrives (so a client shows the answer as it streams), and at
//! the end yields the [`Answer`]: every block in its order (each thinking block with its
//! signature, redacted thinking, text with its citations, tool calls, Gemini thought signatures
//! on whichever part carried them, Responses reasoning items with their encrypted content,
//! server tools' blocks), usage normalised once ([`usage`]), the stop reason, and whether the
//! answer came whole, was cut short, or failed with the provider's error.
//!
//! The log keeps all of it through the one writer ([`crate::update::write`]); the next request to
//! the same API and model carries it back where that API wants it back.
//!
//! - [`anthropic`]: Messages (`message_start` … `message_stop`, or one message);
//! - [`openai_chat`]: Chat Completions (`chat.completion.chunk`s to `[DONE]`, or one completion);
//! - [`openai_responses`]: Responses (typed events to `response.completed`, or one response);
//! - [`gemini`]: `generateContent` (SSE or a JSON array of responses, or one response).

pub mod codes;
pub mod anthropic;
mod assemble;
pub mod failure;
pub mod framing;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;
pub mod retry;
pub mod usage;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::provider::Provider;
use crate::update::acp::SessionUpdate;
use crate::update::record::{AnswerEnd, AnswerStatus, Event, ProviderFailure, RecordBody, UnfinishedCall, UsageAnchor};
use crate::update::write::{self, Turn, TurnBlock};

pub use assemble::Assembler;
pub use failure::{ErrorHints, Head};
pub(crate) use failure::failure_of;
use framing::{Frame, Framer, FramingError};

/// A provider's answer, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub provider: Provider,
    /// The model that answered, as the provider named it.
    pub model: Option<String>,
    /// The provider's id of the message or response.
    pub id: Option<String>,
    /// The message id the live updates used (the provider's id, or the decoder's fallback).
    pub turn_id: Option<String>,
    pub blocks: Vec<TurnBlock>,
    /// The usage, normalised ([`usage`]).
    pub usage: Option<UsageAnchor>,
    /// The usage as the provider reported it (its last report).
    pub raw_usage: Option<Value>,
    pub stop_reason: Option<String>,
    pub status: AnswerStatus,
    pub failure: Option<ProviderFailure>,
    pub extra_choices: u32,
    pub unfinished_calls: Vec<UnfinishedCall>,
    /// Facts of the ending with no field of their own, as the provider sent them.
    pub details: Map<String, Value>,
    /// The response's status and headers, when the host gave them.
    pub head: Option<Head>,
    /// What an error body said beyond the failure (a wait it asked for, its request id).
    pub hints: ErrorHints,
    /// The connection dropped while the body arrived: the runtime's words.
    pub dropped: Option<String>,
}

/// How an answer ended, for the host's loop: what to do next follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The model finished its turn (its calls, if any, are to be run).
    Done,
    /// The output limit cut it (`max_tokens`, `length`, `MAX_TOKENS`, `max_output_tokens`): the
    /// next build asks the model to continue.
    OutputLimit,
    /// Anthropic paused a server-tool loop (`pause_turn`): the next build sends it back to go on.
    Paused,
    /// The model or the provider's filter refused (`refusal`, `content_filter`, `SAFETY`, a
    /// blocked prompt, …).
    Refused,
    /// It ended before the provider finished it (a dropped connection, a body that stopped):
    /// what arrived is kept; the next build asks the model to go on from there.
    Interrupted,
    /// The provider answered with an error (an HTTP error, or an error event mid-stream).
    Failed,
}

impl Ending {
    /// Whether a stop reason says the model or the provider's filter refused.
    pub fn refuses(reason: Option<&str>) -> bool {
        matches!(Ending::of_stop_reason(reason), Ending::Refused)
    }

    /// The ending a stop reason names, for an answer that came whole.
    pub fn of_stop_reason(reason: Option<&str>) -> Ending {
        match reason {
            Some("max_tokens" | "length" | "MAX_TOKENS" | "max_output_tokens" | "model_context_window_exceeded") => Ending::OutputLimit,
            Some("pause_turn") => Ending::Paused,
            Some(r) if crate::update::record::REFUSAL_STOP_REASONS.contains(&r) => Ending::Refused,
            _ => Ending::Done,
        }
    }
}

/// A tool call of an answer, for the host that runs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerCall {
    /// The id its result must name (`toolResult`'s `toolCallId`).
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// What an answer said, for the host: its text, its calls, and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerSummary {
    pub provider: Provider,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The visible text, every text block joined.
    pub text: String,
    pub tool_calls: Vec<AnswerCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    pub status: AnswerStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ProviderFailure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageAnchor>,
    /// The model or the provider's filter refused: a refusal block, a refusal stop reason, or a
    /// blocked prompt (`ending` is `refused`).
    pub refused: bool,
    /// The prompt itself was blocked before the model answered (Gemini's
    /// `promptFeedback.blockReason`: `SAFETY`, `PROHIBITED_CONTENT`, `MODEL_ARMOR`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// How it ended, for the loop: done, cut by the output limit, paused, refused, interrupted or
    /// failed.
    pub ending: Ending,
    /// For an answer that failed or was interrupted: whether sending again may succeed, and
    /// after how long.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<retry::Retry>,
    /// What the session changed so that the next request is not refused the same way
    /// (`strip_images` after a 413, `prune` or `compact` after a context-length refusal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// For a context-length refusal: the tokens the request held and the limit, where the
    /// provider said them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextRefusal>,
    /// The provider's id of the request (its `request-id` / `x-request-id` header, or its body's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// What a session did after a refusal so that the next request differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// The request was too large: the next build leaves every image out (once).
    StripImages,
    /// The context was over the window: the count it named is the ledger's anchor, and the next
    /// build prunes old tool results to fit.
    Prune,
    /// Pruning cannot bring the context under the window: compact before the next request
    /// (`send` does; `prepareCompaction` for a host that compacts itself; a `compactionDue`
    /// effect says so too).
    Compact,
}

/// A context-length refusal's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextRefusal {
    /// The tokens the request held, as the provider counted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The model's limit the provider named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The window the session counts with from here on: the limit named, or — where the
    /// provider named none — learned from the refused request itself (less than it held).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    /// Set when the latest prompt, with the system prompt and tools, does not fit that window
    /// alone: nothing the session may leave out makes room (the prompt is the user's to cut).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
}

impl Answer {
    /// The message id the answer's records carry: the live updates', else `fallback`.
    pub fn message_id(&self, fallback: &str) -> String {
        self.turn_id.clone().or_else(|| self.id.clone()).unwrap_or_else(|| fallback.to_owned())
    }

    /// The turn the log's writer records.
    pub fn turn(&self, message_id: &str) -> Turn {
        Turn {
            message_id: message_id.to_owned(),
            provider: Some(self.provider.as_str().to_owned()),
            model: self.model.clone(),
            blocks: self.blocks.clone(),
            stop_reason: None,
        }
    }

    /// How it ended, as the log records it.
    pub fn end(&self) -> AnswerEnd {
        AnswerEnd {
            provider: self.provider.as_str().to_owned(),
            model: self.model.clone(),
            response_id: self.id.clone(),
            stop_reason: self.stop_reason.clone(),
            status: self.status,
            error: self.failure.clone(),
            extra_choices: self.extra_choices,
            unfinished_calls: self.unfinished_calls.clone(),
            usage: self.raw_usage.clone(),
            details: (!self.details.is_empty()).then(|| self.details.clone()),
            request_id: self.request_id(),
            dropped: self.dropped.clone(),
            refused: self.status == AnswerStatus::Complete && self.refused(),
        }
    }

    /// The provider's id of the request: its header, else what an error body named.
    pub fn request_id(&self) -> Option<String> {
        self.head.as_ref().and_then(Head::request_id).or_else(|| self.hints.request_id.clone())
    }

    /// How the answer ended (see [`Ending`]).
    pub fn ending(&self) -> Ending {
        match self.status {
            AnswerStatus::Failed => Ending::Failed,
            AnswerStatus::Partial => Ending::Interrupted,
            AnswerStatus::Complete if self.refused() => Ending::Refused,
            AnswerStatus::Complete => Ending::of_stop_reason(self.stop_reason.as_deref()),
        }
    }

    /// Whether the model or the provider's filter refused: a refusal block, a refusal stop
    /// reason, or a blocked prompt.
    pub fn refused(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b, TurnBlock::Text { refusal: true, .. }))
            || Ending::refuses(self.stop_reason.as_deref())
            || self.blocked().is_some()
    }

    /// Why the prompt was blocked before the model answered (Gemini's `promptFeedback.blockReason`).
    pub fn blocked(&self) -> Option<&str> {
        self.details.get("promptFeedback")?.get("blockReason")?.as_str().filter(|r| !r.is_empty())
    }

    /// For an answer that failed or was interrupted, the retry decision for attempt `attempt`
    /// (see [`retry::advise`]); `None` for one that came whole.
    pub fn retry(&self, attempt: u32, now_ms: Option<i64>, salt: u64, policy: &retry::RetryPolicy) -> Option<retry::Retry> {
        let cause = match (self.status, &self.failure, &self.head) {
            (AnswerStatus::Complete, _, _) => return None,
            (AnswerStatus::Failed, Some(failure), Some(head)) if !head.is_success() => retry::Cause::Http { head, failure, hints: &self.hints },
            (AnswerStatus::Failed, Some(failure), _) => retry::Cause::Event { failure },
            (AnswerStatus::Failed, None, _) => retry::Cause::Incomplete,
            (AnswerStatus::Partial, _, _) if self.dropped.is_some() => retry::Cause::Dropped,
            (AnswerStatus::Partial, _, _) => retry::Cause::Incomplete,
        };
        Some(retry::advise(cause, attempt, now_ms, salt, policy))
    }

    /// Whether the provider refused the request as longer than the model's context, and the
    /// numbers it named.
    pub fn context_refusal(&self) -> Option<ContextRefusal> {
        let failure = self.failure.as_ref()?;
        failure::overflow(self.provider, failure).map(|o| ContextRefusal { tokens: o.tokens, limit: o.limit, window: None, prompt_tokens: None })
    }

    /// Whether the provider refused the request for its size or its images (a 413, Anthropic's
    /// `request_too_large`, a 400 about an image).
    pub fn too_large(&self) -> bool {
        self.failure.as_ref().is_some_and(|f| failure::about_size_or_images(f.status, &f.kind, &f.message))
    }

    /// Whether there is anything to record: content, usage, or how it ended after content.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.usage.is_none() && self.unfinished_calls.is_empty()
    }

    /// Every record the answer writes, in order: its blocks, the usage anchor, how it ended.
    pub fn records(&self, message_id: &str) -> Vec<RecordBody> {
        let mut out: Vec<RecordBody> = write::turn(&self.turn(message_id))
            .into_iter()
            .map(|u| RecordBody::Update(crate::update::acp::AcpUpdate::Known(u)))
            .collect();
        if let Some(usage) = &self.usage {
            out.push(RecordBody::Event(Event::UsageAnchor(usage.clone())));
        }
        out.push(RecordBody::Event(Event::AnswerEnd(self.end())));
        out
    }

    /// What it said, for the host (call ids as the records name them).
    pub fn summary(&self, message_id: &str) -> AnswerSummary {
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        for block in &self.blocks {
            match block {
                TurnBlock::Text { text: t, .. } => text.push_str(t),
                TurnBlock::Call { id, name, input, .. } => tool_calls.push(AnswerCall {
                    id: id.clone().unwrap_or_else(|| write::derived_call_id(message_id, tool_calls.len())),
                    name: name.clone(),
                    input: input.clone(),
                }),
                TurnBlock::Reasoning { .. } | TurnBlock::Native { .. } => {}
            }
        }
        AnswerSummary {
            provider: self.provider,
            model: self.model.clone(),
            response_id: self.id.clone(),
            text,
            tool_calls,
            stop_reason: self.stop_reason.clone(),
            status: self.status,
            error: self.failure.clone(),
            usage: self.usage.clone(),
            refused: self.ending() == Ending::Refused,
            blocked: self.blocked().map(str::to_owned),
            ending: self.ending(),
            retry: None,
            recovery: None,
            context: self.context_refusal(),
            request_id: self.request_id(),
        }
    }
}

/// One API's reading of frames.
#[derive(Debug, Clone)]
enum Api {
    Anthropic(anthropic::Reader),
    OpenAiChat(openai_chat::Reader),
    OpenAiResponses(openai_responses::Reader),
    Gemini(gemini::Reader),
}

/// A sans-IO decoder of one answer: bytes in (any chunking), updates out as they arrive, the
/// answer at the end.
#[derive(Debug, Clone)]
pub struct Decoder {
    framer: Framer,
    api: Api,
    assembler: Assembler,
    diagnostics: Vec<Diagnostic>,
    frames: Vec<Frame>,
    errors: Vec<FramingError>,
    bytes: usize,
    /// The response's head, when the host gave it.
    head: Option<Head>,
    /// The body of a response whose status is not 2xx: an error, read whole at the end
    /// ([`failure::read_error`]), never as an answer.
    error_body: Option<Vec<u8>>,
}

impl Decoder {
    /// A decoder for `provider`'s answers; `fallback_id` names the message while the provider has
    /// not named it (and for good, when it never does).
    pub fn new(provider: Provider, fallback_id: &str) -> Decoder {
        let api = match provider {
            Provider::Anthropic => Api::Anthropic(anthropic::Reader::default()),
            Provider::OpenAiChat => Api::OpenAiChat(openai_chat::Reader::default()),
            Provider::OpenAiResponses => Api::OpenAiResponses(openai_responses::Reader::default()),
            Provider::Gemini => Api::Gemini(gemini::Reader::default()),
        };
        Decoder {
            framer: Framer::new(),
            api,
            assembler: Assembler::new(provider, fallback_id),
            diagnostics: Vec::new(),
            frames: Vec::new(),
            errors: Vec::new(),
            bytes: 0,
            head: None,
            error_body: None,
        }
    }

    /// A decoder for a response whose status and headers are known: a status that is not 2xx
    /// makes its body an error, whatever it holds.
    pub fn for_response(provider: Provider, fallback_id: &str, head: Head) -> Decoder {
        let mut decoder = Decoder::new(provider, fallback_id);
        if !head.is_success() {
            decoder.error_body = Some(Vec::new());
        }
        decoder.head = Some(head);
        decoder
    }

    pub fn provider(&self) -> Provider {
        self.assembler.provider
    }

    /// Reads more of the answer; returns the updates it says (text and thought chunks, tool
    /// calls once whole), in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SessionUpdate> {
        self.bytes += bytes.len();
        if let Some(body) = &mut self.error_body {
            let room = failure::MAX_ERROR_BODY_BYTES.saturating_sub(body.len());
            body.extend_from_slice(&bytes[..bytes.len().min(room)]);
            return Vec::new();
        }
        self.framer.push(bytes, &mut self.frames, &mut self.errors);
        self.read_frames();
        self.assembler.take_live()
    }

    /// Updates said since the last `push` (by [`Decoder::finish`] closing what was open).
    fn read_frames(&mut self) {
        for frame in std::mem::take(&mut self.frames) {
            match frame {
                Frame::Event { name, data } => {
                    let data = data.trim();
                    if data == "[DONE]" {
                        self.assembler.finished = true;
                        continue;
                    }
                    if data.is_empty() || self.fast(name.as_deref(), data) {
                        continue;
                    }
                    match serde_json::from_str::<Value>(data) {
                        Ok(value) => self.read(name.as_deref(), &value, true),
                        Err(e) => self.diagnostics.push(Diagnostic::new(
                            &codes::ANSWER_BAD_EVENT,
                            format!("an event's data is not JSON ({e}); skipped"),
                        )),
                    }
                }
                Frame::Json(text) => match serde_json::from_str::<Value>(&text) {
                    // A whole body, an element of a JSON-array stream, or stray JSON in a stream.
                    Ok(Value::Array(items)) => {
                        for item in items {
                            self.read(None, &item, false);
                        }
                    }
                    Ok(value) => self.read(None, &value, false),
                    Err(e) => self.diagnostics.push(Diagnostic::new(
                        &codes::ANSWER_BAD_JSON,
                        format!("the answer holds text that is not JSON ({e}); skipped"),
                    )),
                },
            }
        }
        for error in std::mem::take(&mut self.errors) {
            let (code, message) = match error {
                FramingError::TooLong => (&codes::ANSWER_FRAME_TOO_LONG, format!("an event longer than {} bytes was dropped", framing::MAX_FRAME_BYTES)),
                FramingError::NotUtf8 => (&codes::ANSWER_NOT_UTF8, "the answer holds bytes that are not UTF-8; they were replaced".to_owned()),
                FramingError::Unterminated => (&codes::ANSWER_CUT_SHORT, "the answer ended inside an event or document".to_owned()),
                FramingError::TrailingBytes => (&codes::ANSWER_TRAILING_BYTES, "bytes after the end of the answer's JSON array were ignored".to_owned()),
            };
            self.diagnostics.push(Diagnostic::new(code, message));
        }
    }

    /// The stream's most frequent events, read without building a JSON value (the SSE event's
    /// name, when the stream gives one, says which they are without searching the data).
    fn fast(&mut self, name: Option<&str>, data: &str) -> bool {
        let asm = &mut self.assembler;
        match &mut self.api {
            Api::Anthropic(r) => r.fast(name, data, asm),
            Api::OpenAiChat(r) => r.fast(data, asm),
            Api::OpenAiResponses(r) => r.fast(name, data, asm),
            Api::Gemini(r) => r.fast(data, asm),
        }
    }

    fn read(&mut self, name: Option<&str>, value: &Value, event: bool) {
        let asm = &mut self.assembler;
        match &mut self.api {
            Api::Anthropic(r) => r.read(name, value, asm),
            Api::OpenAiChat(r) => r.read(value, asm),
            Api::OpenAiResponses(r) => r.read(value, event, asm),
            Api::Gemini(r) => r.read(value, asm),
        }
    }

    /// The end of the answer's bytes: what is still open is closed, and the answer is whole,
    /// partial (the stream ended before the provider said it was done) or failed.
    pub fn finish(self) -> (Answer, Vec<SessionUpdate>, Vec<Diagnostic>) {
        self.finish_as(None)
    }

    /// The end of what arrived when the connection dropped (`reason`: the runtime's words): an
    /// answer the provider had not finished is partial, and says why.
    pub fn finish_dropped(self, reason: &str) -> (Answer, Vec<SessionUpdate>, Vec<Diagnostic>) {
        self.finish_as(Some(reason))
    }

    fn finish_as(mut self, dropped: Option<&str>) -> (Answer, Vec<SessionUpdate>, Vec<Diagnostic>) {
        if let Some(body) = self.error_body.take() {
            let head = self.head.take().unwrap_or_default();
            let (failure, hints) = failure::read_error(&head, &body);
            let (mut answer, _) = self.assembler.finish(false);
            answer.status = AnswerStatus::Failed;
            answer.failure = Some(failure);
            answer.hints = hints;
            answer.head = Some(head);
            answer.dropped = dropped.map(str::to_owned);
            return (answer, Vec::new(), self.diagnostics);
        }
        self.framer.finish(&mut self.frames, &mut self.errors);
        self.read_frames();
        let cut_short = match &mut self.api {
            Api::Anthropic(r) => r.cut_short(),
            Api::OpenAiChat(r) => r.cut_short(),
            Api::OpenAiResponses(r) => r.cut_short(),
            Api::Gemini(r) => r.cut_short(&mut self.assembler),
        };
        if self.bytes == 0 {
            self.diagnostics.push(Diagnostic::new(&codes::ANSWER_EMPTY, "the answer holds no bytes"));
        }
        let mut live = self.assembler.take_live();
        let (mut answer, closing) = self.assembler.finish(cut_short);
        live.extend(closing);
        answer.head = self.head;
        // A drop after the provider finished the answer cost nothing: it is whole.
        if answer.status != AnswerStatus::Complete {
            answer.dropped = dropped.map(str::to_owned);
        }
        if answer.status == AnswerStatus::Partial {
            self.diagnostics.push(Diagnostic::new(
                &codes::ANSWER_PARTIAL,
                "the answer ended before the provider finished it; what arrived is kept and marked partial",
            ));
        }
        if answer.extra_choices > 0 {
            self.diagnostics.push(Diagnostic::new(
                &codes::ANSWER_EXTRA_CHOICES,
                format!("the provider returned {} choices; the first is recorded", answer.extra_choices + 1),
            ));
        }
        if !answer.unfinished_calls.is_empty() {
            self.diagnostics.push(Diagnostic::new(
                &codes::ANSWER_UNFINISHED_CALL,
                format!("{} tool call(s) never received whole arguments: not recorded as calls (kept in answer_end)", answer.unfinished_calls.len()),
            ));
        }
        (answer, live, self.diagnostics)
    }
}

/// Decodes a whole answer (a body, or a stream's every byte).
pub fn decode(provider: Provider, bytes: &[u8], fallback_id: &str) -> (Answer, Vec<Diagnostic>) {
    let mut decoder = Decoder::new(provider, fallback_id);
    decoder.push(bytes);
    let (answer, _, diagnostics) = decoder.finish();
    (answer, diagnostics)
}

/// A string field of a JSON object.
pub(crate) fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}
