//! What a host asks of a session (commands), what it answers (replies), and what it must do
//! afterwards (effects) — all plain data, so the same state machine runs in any host and a
//! test can drive it without one.
//!
//! The commands that add to the conversation turn their input into ACP updates and our own
//! events here; everything else about them is in the state machine ([`super::Session`]).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::prompt::PromptContext;
use crate::provider::Provider;
use crate::update::acp::{ProviderMeta, ToolKind};
use crate::update::record::UsageAnchor;
use crate::view::{ContextUsage, Reminder, Report};

use super::compaction::{ApplyCompaction, CompactionOptions, PreparedCompaction};
use super::persist::PersistenceStatus;
use super::snapshot::SessionSnapshot;

/// An image a person attached or a tool returned.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageInput {
    /// Base64.
    pub data: String,
    pub mime_type: String,
}

/// The reasoning of a response, with what its provider needs to accept it back.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

fn empty_object() -> Value {
    json!({})
}

/// One model response.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

/// A person's prompt.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserMessage {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// The result of a tool call.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordUsage {
    pub usage: UsageAnchor,
}

/// Samples with another model from now on.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SwitchModel {
    pub provider: Provider,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

/// Truncates the conversation to before real prompt `promptIndex` (0-based).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RewindTo {
    pub prompt_index: u64,
}

#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetPromptContext {
    pub context: PromptContext,
}

#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrepareCompaction {
    #[serde(default)]
    pub options: CompactionOptions,
}

#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnqueueReminder {
    pub reminder: Reminder,
}

#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordEditedPath {
    pub path: String,
}

/// Build options (`provider` and `model` default to the session's model).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuildRequest {
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Partial<BuildInput>"))]
    pub options: Value,
}

#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Restore {
    pub snapshot: Box<SessionSnapshot>,
}

/// What a host asks of a session. Commands are queued and processed in order.
///
/// Read through a JSON value (see the `Deserialize` impl): a derived internally tagged enum
/// would instantiate every variant's deserializer a second time for serde's buffered content,
/// about 100 KB of `.wasm` for nothing.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Command {
    UserMessage(UserMessage),
    /// One model response: reasoning, text, tool calls and the provider's usage.
    AssistantResponse(AssistantResponse),
    ToolResult(ToolResultInput),
    RecordUsage(RecordUsage),
    /// The window changes, the system head is rendered for the model, and a compaction is asked
    /// for when the context no longer fits.
    SwitchModel(SwitchModel),
    /// Across compactions; the log keeps everything.
    Rewind(RewindTo),
    /// Before the conversation starts the heads are recorded at once; later they stay as sent
    /// until the next compaction refreshes them.
    SetPromptContext(SetPromptContext),
    /// Builds the request that asks a model for a summary (nothing is written).
    PrepareCompaction(PrepareCompaction),
    /// Replaces the history before the prepared cut with a summary (see [`ApplyCompaction`]).
    ApplyCompaction(ApplyCompaction),
    EnqueueReminder(EnqueueReminder),
    RecordEditedPath(RecordEditedPath),
    /// Builds the next request; reminders are drained into the log first.
    BuildRequest(BuildRequest),
    /// Sends again every record storage has not confirmed.
    Flush,
    Snapshot,
    /// Replaces the whole state with a snapshot's.
    Restore(Restore),
}

impl Command {
    /// The command's `type`.
    pub fn name(&self) -> &'static str {
        match self {
            Command::UserMessage(_) => "userMessage",
            Command::AssistantResponse(_) => "assistantResponse",
            Command::ToolResult(_) => "toolResult",
            Command::RecordUsage(_) => "recordUsage",
            Command::SwitchModel(_) => "switchModel",
            Command::Rewind(_) => "rewind",
            Command::SetPromptContext(_) => "setPromptContext",
            Command::PrepareCompaction(_) => "prepareCompaction",
            Command::ApplyCompaction(_) => "applyCompaction",
            Command::EnqueueReminder(_) => "enqueueReminder",
            Command::RecordEditedPath(_) => "recordEditedPath",
            Command::BuildRequest(_) => "buildRequest",
            Command::Flush => "flush",
            Command::Snapshot => "snapshot",
            Command::Restore(_) => "restore",
        }
    }

    /// Reads a command from its JSON value: `type` picks the variant, the rest are its fields.
    pub fn from_value(value: Value) -> Result<Command, String> {
        let Value::Object(mut fields) = value else { return Err("a command is an object with a `type`".into()) };
        let kind = match fields.remove("type") {
            Some(Value::String(kind)) => kind,
            _ => return Err("a command needs a string `type`".into()),
        };
        let rest = Value::Object(fields);
        fn args<T: serde::de::DeserializeOwned>(kind: &str, rest: Value) -> Result<T, String> {
            serde_json::from_value(rest).map_err(|e| format!("`{kind}`: {e}"))
        }
        let unit = |command: Command, rest: &Value| match rest.as_object().is_some_and(|m| m.is_empty()) {
            true => Ok(command),
            false => Err(format!("`{kind}` takes no fields")),
        };
        match kind.as_str() {
            "userMessage" => args(&kind, rest).map(Command::UserMessage),
            "assistantResponse" => args(&kind, rest).map(Command::AssistantResponse),
            "toolResult" => args(&kind, rest).map(Command::ToolResult),
            "recordUsage" => args(&kind, rest).map(Command::RecordUsage),
            "switchModel" => args(&kind, rest).map(Command::SwitchModel),
            "rewind" => args(&kind, rest).map(Command::Rewind),
            "setPromptContext" => args(&kind, rest).map(Command::SetPromptContext),
            "prepareCompaction" => args(&kind, rest).map(Command::PrepareCompaction),
            "applyCompaction" => args(&kind, rest).map(Command::ApplyCompaction),
            "enqueueReminder" => args(&kind, rest).map(Command::EnqueueReminder),
            "recordEditedPath" => args(&kind, rest).map(Command::RecordEditedPath),
            "buildRequest" => args(&kind, rest).map(Command::BuildRequest),
            "flush" => unit(Command::Flush, &rest),
            "snapshot" => unit(Command::Snapshot, &rest),
            "restore" => args(&kind, rest).map(Command::Restore),
            other => Err(format!("unknown command type `{other}`")),
        }
    }
}

impl<'de> Deserialize<'de> for Command {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Command, D::Error> {
        Command::from_value(Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// What a command answered.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Reply {
    /// Records were accepted (in memory) under these sequence numbers.
    Accepted { seqs: Vec<u64> },
    /// Nothing to write (an unchanged context, a path already known, …).
    Unchanged,
    /// `enqueueReminder`: whether the reminder was queued (`false`: it would repeat what was told).
    Queued { queued: bool },
    Built { body: String, report: Box<Report> },
    Compaction(Box<PreparedCompaction>),
    Snapshot(Box<SessionSnapshot>),
}

/// Why the context needs compacting.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The context crossed the compaction threshold.
    Threshold,
    /// The new model's window is too small for the context.
    ModelSwitch,
}

/// Something the host must do after a command.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Effect {
    /// Store these JSON lines (the header first when storage has not confirmed it), in order,
    /// then report the outcome with `ack(ticket, …)`. Storage must skip a line it already holds
    /// and refuse a gap in `seq`.
    Persist { ticket: u64, lines: Vec<String> },
    /// Send this ACP notification to the client (`session/update`, e.g. `usage_update`).
    Notify { notification: Value },
    /// The context should be compacted before the next request (`prepareCompaction`).
    CompactionDue { reason: CompactionReason, usage: Box<ContextUsage> },
}

/// One processed command: its id, its reply or error, and the effects it produced.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Processed {
    pub id: u64,
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<Reply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CommandFailure>,
    pub effects: Vec<Effect>,
}

/// A command's error as data: a stable code and a message.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandFailure {
    pub code: String,
    pub message: String,
}

/// What `ack` reports.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AckResult {
    /// `false` when the ticket had been settled already (an acknowledgement repeated).
    pub applied: bool,
    pub persistence: PersistenceStatus,
}

// --- inputs → record bodies --------------------------------------------------------------------

fn with_meta(mut update: Value, facts: ProviderMeta) -> Value {
    if let (Some(meta), Some(object)) = (facts.to_meta(), update.as_object_mut()) {
        object.insert("_meta".into(), meta);
    }
    update
}

fn image_block(image: &ImageInput) -> Value {
    json!({"type": "image", "data": image.data, "mimeType": image.mime_type})
}

/// The updates of a person's prompt: its text, then its images, under one message id.
pub(super) fn user_updates(text: &str, images: &[ImageInput], message_id: &str) -> Vec<Value> {
    let mut out = Vec::with_capacity(1 + images.len());
    if !text.is_empty() || images.is_empty() {
        out.push(json!({"sessionUpdate": "user_message_chunk", "messageId": message_id, "content": {"type": "text", "text": text}}));
    }
    for image in images {
        out.push(json!({"sessionUpdate": "user_message_chunk", "messageId": message_id, "content": image_block(image)}));
    }
    out
}

/// The updates of a response: reasoning, text, then each tool call (pending).
pub(super) fn response_updates(r: &AssistantResponse, message_id: &str) -> Vec<Value> {
    let base = ProviderMeta { provider: r.provider.clone(), model: r.model.clone(), ..ProviderMeta::default() };
    let mut out = Vec::new();
    if let Some(reasoning) = &r.reasoning {
        let facts = ProviderMeta {
            signature: reasoning.signature.clone(),
            encrypted: reasoning.encrypted.clone(),
            reasoning_id: reasoning.id.clone(),
            ..base.clone()
        };
        out.push(with_meta(
            json!({"sessionUpdate": "agent_thought_chunk", "messageId": format!("{message_id}-thought"), "content": {"type": "text", "text": reasoning.text}}),
            facts,
        ));
    }
    if let Some(text) = r.text.as_deref().filter(|t| !t.is_empty()) {
        let facts = ProviderMeta { stop_reason: r.stop_reason.clone(), ..base.clone() };
        out.push(with_meta(json!({"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": {"type": "text", "text": text}}), facts));
    }
    for call in &r.tool_calls {
        let mut update = json!({"sessionUpdate": "tool_call", "toolCallId": call.id, "title": call.name, "status": "pending", "rawInput": call.input});
        if let Some(kind) = &call.kind {
            update["kind"] = json!(kind);
        }
        if !call.paths.is_empty() {
            update["locations"] = Value::Array(call.paths.iter().map(|p| json!({"path": p})).collect());
        }
        out.push(with_meta(update, ProviderMeta { tool_name: Some(call.name.clone()), ..base.clone() }));
    }
    out
}

/// The update that completes a tool call with its output.
pub(super) fn tool_result_update(tool_call_id: &str, output: &str, is_error: bool, images: &[ImageInput]) -> Value {
    let mut content = vec![json!({"type": "content", "content": {"type": "text", "text": output}})];
    content.extend(images.iter().map(|i| json!({"type": "content", "content": image_block(i)})));
    json!({
        "sessionUpdate": "tool_call_update",
        "toolCallId": tool_call_id,
        "status": if is_error { "failed" } else { "completed" },
        "content": content,
    })
}
