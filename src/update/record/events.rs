//! The bodies of our own events: usage anchors, answers' ends and failures, model switches,
//! compactions, rewinds, reminders, edited paths, prompt heads and their cuts, subagents.

use contextview_derive::ReadValue;
use serde::Serialize;
use serde_json::Value;


/// A subagent started for the delegation call `callId`; `sessionId` is its own session (whose
/// log header names this session and call).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", expecting = "a subagent's start")]
pub struct SubagentStarted {
    pub call_id: String,
    pub session_id: String,
    /// What the subagent was asked to do (its first prompt).
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its report budget in tokens (0 when the source did not say: an import).
    pub report_tokens: u32,
}

/// How a subagent ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum SubagentStatus {
    Running,
    Completed,
    Failed,
}

/// A subagent ended; its call was answered by the record before this one.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", expecting = "a subagent's end")]
pub struct SubagentEnded {
    pub call_id: String,
    pub session_id: String,
    /// `completed` (its report answered the call) or `failed` (a synthetic result says why).
    pub status: SubagentStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Estimated tokens of the report as the call's result carries it.
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub report_tokens: u32,
    /// The report was over its budget and cut, with a marker.
    #[serde(default, skip_serializing_if = "std::ops::Not::not", deserialize_with = "crate::value_read::null_as_default")]
    pub trimmed: bool,
    /// What the subagent's own requests used, as its session counted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Spent>,
}

/// What a session's requests used, summed over the usage its log recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", expecting = "usage totals")]
pub struct Spent {
    /// Requests answered with usage.
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub requests: u64,
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub input_tokens: u64,
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub output_tokens: u64,
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub cache_read_tokens: u64,
    #[serde(default, deserialize_with = "crate::value_read::null_as_default")]
    pub cache_write_tokens: u64,
}





impl Spent {
    pub fn is_zero(&self) -> bool {
        *self == Spent::default()
    }

    /// Adds one request's usage.
    pub fn add_usage(&mut self, usage: &UsageAnchor) {
        self.requests += 1;
        self.input_tokens = self.input_tokens.saturating_add(usage.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(usage.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(usage.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(usage.cache_write_tokens);
    }

    /// Adds another session's totals.
    pub fn add(&mut self, other: &Spent) {
        self.requests = self.requests.saturating_add(other.requests);
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(other.cache_write_tokens);
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct UsageAnchor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// The share of `outputTokens` the model spent reasoning, where the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Estimated tokens of the logged conversation that the request this usage answers left
    /// out — pruned tool output, evicted images — as its build reported them
    /// (`tokens.context.omittedTokens`). A session records it with each answer to a request it
    /// built; an import records 0 (the agent sent what its log holds). Absent, the ledger
    /// assumes the request left out before this point what the current view leaves out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_tokens: Option<u64>,
    /// Estimated tokens of the heads (system prompt, tool definitions, and for another agent's
    /// request its framing) in the request this usage answers — the part of the count that is
    /// not the logged conversation. A session records its own build's; an import estimates the
    /// other agent's from its anchors. The ledger counts the next request's own heads in their
    /// place, so an anchor calibrates what it measured instead of being added whole. Absent, the
    /// heads are taken to be the next request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_tokens: Option<u64>,
    /// Set on the count a context-length refusal gave (or implied): the ledger's own count of
    /// the refused request. Such an anchor is no answer's usage: it corrects the ledger (its
    /// counts are scaled by `inputTokens / counted` until the next answer's anchor) instead of
    /// replacing its anchor, and nothing of it counts as spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<u64>,
}

impl UsageAnchor {
    /// Tokens the context held when this usage was reported: the prompt (fresh, cached and
    /// newly cached) plus the response, which is now part of the conversation.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.cache_read_tokens).saturating_add(self.cache_write_tokens).saturating_add(self.output_tokens)
    }

    /// The context this usage stands for: the prompt it reports, plus its output — never less
    /// than `response_tokens`, the estimate of the response's visible items (some agents log a
    /// count taken mid-stream).
    pub fn context(&self, response_tokens: u64) -> u64 {
        self.total().saturating_sub(self.output_tokens).saturating_add(self.output_tokens.max(response_tokens))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ToolsDefined {
    pub tools: crate::tool_def::Tools,
}

/// How an answer ended (see [`Event::AnswerEnd`]).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct AnswerEnd {
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's id of the message or response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The provider's own stop or finish reason (`end_turn`, `pause_turn`, `length`,
    /// `MAX_TOKENS`, `SAFETY`, …), verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    pub status: AnswerStatus,
    /// The provider's error, when the answer failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ProviderFailure>,
    /// Choices the provider returned beyond the first, which is the one recorded (`n > 1`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub extra_choices: u32,
    /// Tool calls whose arguments never arrived whole (the stream broke off): not calls, kept here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unfinished_calls: Vec<UnfinishedCall>,
    /// The usage object exactly as the provider reported it (the anchor holds it normalised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// Facts of the answer's ending that have no field above (`stop_sequence`, `stop_details`,
    /// `incomplete_details`, `promptFeedback`, …), as the provider sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Map<String, Value>>,
    /// The provider's id of the request (its `request-id` / `x-request-id` header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The connection dropped before the answer was whole: the runtime's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// The model or the provider's filter refused (a refusal block or stop reason, a blocked
    /// prompt): the same request would be refused again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

impl AnswerEnd {
    /// Whether this answer was a refusal: as recorded, or — in a log written before the field —
    /// as its stop reason or a blocked prompt says.
    pub fn is_refusal(&self) -> bool {
        self.refused
            || (self.status == AnswerStatus::Complete
                && (self.stop_reason.as_deref().is_some_and(|r| REFUSAL_STOP_REASONS.contains(&r)) || self.blocked().is_some()))
    }

    /// Why the prompt was blocked before the model answered (Gemini's `promptFeedback.blockReason`).
    pub fn blocked(&self) -> Option<&str> {
        self.details.as_ref()?.get("promptFeedback")?.get("blockReason")?.as_str().filter(|r| !r.is_empty())
    }
}

/// The stop and finish reasons that say the model or the provider's filter refused: Anthropic's
/// `refusal`, OpenAI's `content_filter`, Gemini's safety, recitation and policy reasons.
pub const REFUSAL_STOP_REASONS: [&str; 12] = [
    "refusal",
    "content_filter",
    "SAFETY",
    "RECITATION",
    "LANGUAGE",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "OTHER",
];

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Whether an answer arrived whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// The provider finished it (whatever its stop reason).
    Complete,
    /// The stream ended before the provider finished it: what arrived is kept.
    Partial,
    /// The provider reported an error (`error`): what arrived before it is kept.
    Failed,
}

/// The provider's error as it reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ProviderFailure {
    /// The provider's error type, Gemini's status, or a string code (`overloaded_error`,
    /// `insufficient_quota`, `UNAVAILABLE`, …); for a body in no API's shape, the HTTP status's
    /// name (`bad_gateway`, `service_unavailable`, …).
    pub kind: String,
    pub message: String,
    /// The HTTP status of the response, or the one the error names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// OpenAI's error `code` beside its type (`context_length_exceeded`, `rate_limit_exceeded`,
    /// `insufficient_quota`), when it differs from `kind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// A tool call whose arguments were still arriving when the answer ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct UnfinishedCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// The argument text received so far.
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ModelSwitch {
    pub provider: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct CompactionCheckpoint {
    pub summary: String,
    /// First record (by `seq`) whose content stays verbatim after the compaction.
    pub first_kept_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    /// The summary's size in tokens as the summarising model reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_tokens: Option<u64>,
    /// Kept tool results and command outputs longer than this (characters) are trimmed to their
    /// head and tail in the model's view: set when what stays verbatim would not fit otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_kept_over: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Rewind {
    pub prompt_index: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ReminderInjected {
    pub reminder: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct EditedPaths {
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PromptHeadSnapshot {
    pub system: String,
    #[serde(default)]
    pub first_user_prefix: String,
    /// What the head budget cut from the prefix, and why (none when every section fit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cuts: Vec<HeadCut>,
}

/// Something the head budget cut from the first-user prefix: a rule, a skill, a server left
/// out, or a section's text shortened (each with a visible marker in the prefix).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", expecting = "a head cut")]
pub struct HeadCut {
    /// The section: `userInfo`, `gitStatus`, `rules`, `skills`, `mcp`, `memory` or `reminders`.
    pub section: String,
    /// What was cut: a rule's path, a skill's or server's name, a reminder's kind, or the
    /// section's own name.
    pub what: String,
    /// `left_out` or `shortened`; for a reminder `shortened` or `deferred` (held back, still
    /// queued, for the next request).
    pub action: String,
    /// Estimated tokens cut.
    pub tokens: u32,
    /// Why, in words: the section's grant against its need and priority.
    pub reason: String,
}


