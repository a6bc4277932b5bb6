//! The data commands carry: what a person, the model or a tool said, and the settings a
//! command changes.

use contextview_derive::ReadValue;
use serde::Serialize;
use serde_json::{json, Value};

use crate::prompt::PromptContext;
use crate::provider::Provider;
use crate::update::acp::ToolKind;
use crate::update::record::UsageAnchor;
use crate::update::write::{Turn, TurnBlock};
use crate::view::Reminder;

use super::compaction::CompactionOptions;
use super::snapshot::SessionSnapshot;

/// An image a person attached or a tool returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageInput {
    /// Base64.
    pub data: String,
    pub mime_type: String,
}

/// The reasoning of a response, with what its provider needs to accept it back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReasoningInput {
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<String>,
    /// The provider's id of the reasoning item (OpenAI `rs_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCallInput {
    pub id: String,
    pub name: String,
    #[serde(default = "empty_object")]
    pub input: Value,
    /// ACP tool kind (`read`, `edit`, `execute`, …): an `edit`, `delete` or `move` with `paths`
    /// marks those files edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

impl ToolCallInput {
    /// The call's input: an object as given, or the JSON object a string holds (OpenAI sends
    /// `arguments` as a JSON string); any other string is a free-form tool's input.
    pub fn arguments(&self) -> Value {
        match &self.input {
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(object @ Value::Object(_)) => object,
                _ => self.input.clone(),
            },
            other => other.clone(),
        }
    }
}

fn empty_object() -> Value {
    json!({})
}

/// One model response.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssistantResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallInput>,
    /// The provider's usage for this response: becomes the ledger's anchor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageAnchor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl AssistantResponse {
    /// The response as a turn for the log's writer: reasoning, text, then each tool call.
    pub fn turn(&self, message_id: String) -> Turn {
        let mut blocks = Vec::with_capacity(2 + self.tool_calls.len());
        if let Some(r) = &self.reasoning {
            blocks.push(TurnBlock::Reasoning {
                text: r.text.clone(),
                signature: r.signature.clone(),
                encrypted: r.encrypted.clone(),
                id: r.id.clone(),
                summary: None,
            });
        }
        if let Some(text) = self.text.as_deref().filter(|t| !t.is_empty()) {
            blocks.push(TurnBlock::text(text));
        }
        for call in &self.tool_calls {
            blocks.push(TurnBlock::Call {
                id: Some(call.id.clone()),
                item_id: None,
                name: call.name.clone(),
                input: call.arguments(),
                kind: call.kind,
                paths: call.paths.clone(),
                signature: None,
            });
        }
        Turn { message_id, provider: self.provider.clone(), model: self.model.clone(), blocks, stop_reason: self.stop_reason.clone() }
    }
}

/// A person's prompt.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserMessageInput {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolResultInput {
    pub tool_call_id: String,
    pub output: String,
    #[serde(default)]
    pub is_error: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageInput>,
}

/// The provider's usage, when it comes apart from a response.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordUsage {
    pub usage: UsageAnchor,
}

/// Samples with another model from now on.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SwitchModel {
    pub provider: Provider,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

/// Truncates the conversation to before real prompt `promptIndex` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RewindTo {
    pub prompt_index: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetPromptContext {
    pub context: PromptContext,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrepareCompaction {
    #[serde(default)]
    pub options: CompactionOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnqueueReminder {
    pub reminder: Reminder,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordEditedPath {
    pub path: String,
}

/// Build options (`provider` and `model` default to the session's model).
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuildRequest {
    #[serde(default)]
    pub options: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Restore {
    pub snapshot: Box<SessionSnapshot>,
}


/// A provider's whole answer.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderAnswer {
    /// The API that answered; the session's provider when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The model that answered, when the answer does not name it; the session's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The answer's body: JSON, or a stream's text (SSE, or Gemini's JSON array).
    pub body: String,
    /// The response's HTTP status: one that is not 2xx makes the body an error, whatever it
    /// holds. Absent, the body is read for what it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response's headers (`retry-after`, `x-should-retry`, the request id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// Attempts already made for this request (0: the first send), for the retry's backoff.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Starts a streamed answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BeginAnswer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The response's HTTP status, read before its body: one that is not 2xx makes the body
    /// an error, whatever it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response's headers (`retry-after`, `retry-after-ms`, `x-should-retry`, the request id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// Attempts already made for this request (0: the first send), for the retry's backoff.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
}

/// Ends a streamed answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EndAnswer {
    /// Drop what arrived without recording it (a body the host refused, e.g. over its size limit).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub discard: bool,
    /// The connection dropped while the body arrived (the runtime's words): what arrived is
    /// recorded, marked partial, and the answer says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
}

/// Starts a subagent for a delegation call the model made and that has no result yet: the
/// parent records it, and the reply says how to make the child session (`Session::for_subagent`).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "startSubagent's fields")]
pub struct StartSubagent {
    pub tool_call_id: String,
    /// What the subagent is asked to do: its first prompt (and its prompt's task).
    pub task: String,
    /// The child's session id; by default the parent's id and the call's, joined by `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The child's model (and its provider and window); by default the parent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The report budget in tokens (default 1,500): a longer report is cut to it, with a marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_tokens: Option<u32>,
    /// The child's output budget per response (default 8,192).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The tools the child may call; by default the parent's, less those that start agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
}

/// Ends a subagent: its report answers the call it was started for, or — with `error`, when it
/// could not finish (its model refused, its storage failed) — a synthetic result says so.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", deny_unknown_fields, expecting = "endSubagent's fields")]
pub struct EndSubagent {
    pub tool_call_id: String,
    /// The subagent's report (its final answer; `Session::final_answer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// Why it did not report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What its requests used (`Session::spent`), rolled up into the parent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::update::record::Spent>,
}




/// How to make a subagent's session: the reply to `startSubagent`.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct SubagentStart {
    /// The child's log header: its id, and the parent's session and call.
    pub header: crate::update::Header,
    /// The child's prompt context: the parent's, for the subagent audience and this task.
    pub context: PromptContext,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// A name for the child's storage made from its session id that is safe as one file name,
    /// an IndexedDB database's or a log's key, whatever the id holds (a child's id is
    /// `parent/call` by default): letters, digits, `.`, `_` and `-` as they are, every other
    /// byte as `%XX`, a long id shortened with a hash of the whole. Two ids never share one.
    #[serde(default)]
    pub storage_name: String,
}

/// [`SubagentStart::storage_name`] for a session id.
pub fn storage_name(session_id: &str) -> String {
    const MAX: usize = 120;
    let mut out = String::with_capacity(session_id.len());
    for (i, b) in session_id.bytes().enumerate() {
        let plain = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && i > 0);
        if plain {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.len() > MAX {
        let hash = crate::provider::ids::fnv1a64(session_id.as_bytes());
        out.truncate(MAX - 17);
        // Never cut inside an escape.
        if let Some(at) = out[out.len().saturating_sub(2)..].find('%') {
            out.truncate(out.len() - 2 + at);
        }
        out.push_str(&format!("-{hash:016x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::storage_name;

    #[test]
    fn a_storage_name_is_one_safe_file_name_for_any_session_id() {
        assert_eq!(storage_name("parent/toolu_01ABC"), "parent%2Ftoolu_01ABC");
        assert_eq!(storage_name("../etc/passwd"), "%2E.%2Fetc%2Fpasswd");
        assert_eq!(storage_name("a b:c\\d"), "a%20b%3Ac%5Cd");
        assert_eq!(storage_name("é"), "%C3%A9");
        // The escape character itself is escaped: `a%2Fb` and `a/b` stay apart.
        assert_ne!(storage_name("a%2Fb"), storage_name("a/b"));
        for id in ["parent/toolu_01ABC", "../etc/passwd", "a b:c\\d", ".", "..", "x/../y", &"/".repeat(300), &"a".repeat(500)] {
            let name = storage_name(id);
            assert!(name.len() <= 120, "{id}: {name}");
            assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-%".contains(&b)), "{id}: {name}");
            assert!(!name.starts_with('.') && name != "." && name != "..", "{id}: {name}");
        }
        // Long ids that differ only past the cut still get names of their own.
        let (a, b) = (format!("{}a", "/".repeat(300)), format!("{}b", "/".repeat(300)));
        assert_ne!(storage_name(&a), storage_name(&b));
    }
}
