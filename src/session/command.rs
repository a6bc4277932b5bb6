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
use crate::update::acp::ProviderMeta;
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
    pub kind: Option<String>,
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

/// What a host asks of a session. Commands are queued and processed in order.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase", deny_unknown_fields)]
pub enum Command {
    /// A person's prompt.
    UserMessage {
        text: String,
        #[serde(default)]
        images: Vec<ImageInput>,
        #[serde(default)]
        message_id: Option<String>,
    },
    AssistantResponse(AssistantResponse),
    /// The result of a tool call.
    ToolResult {
        tool_call_id: String,
        output: String,
        #[serde(default)]
        is_error: bool,
        #[serde(default)]
        images: Vec<ImageInput>,
    },
    /// The provider's usage, when it comes apart from a response.
    RecordUsage { usage: UsageAnchor },
    /// Samples with another model from now on: the window changes, the system head is rendered
    /// for it, and a compaction is asked for when the context no longer fits.
    SwitchModel {
        provider: Provider,
        model: String,
        #[serde(default)]
        context_window: Option<u64>,
    },
    /// Truncates the conversation to before real prompt `promptIndex` (0-based), across
    /// compactions; the log keeps everything.
    Rewind { prompt_index: u64 },
    /// Sets what the prompt heads are rendered from. Before the conversation starts the heads
    /// are recorded at once; later, the heads stay as sent until the next compaction refreshes them.
    SetPromptContext { context: PromptContext },
    /// Builds the request that asks a model for a summary (nothing is written).
    PrepareCompaction {
        #[serde(default)]
        options: CompactionOptions,
    },
    /// Replaces the history before the prepared cut with `summary` (see [`ApplyCompaction`]).
    ApplyCompaction(ApplyCompaction),
    EnqueueReminder { reminder: Reminder },
    RecordEditedPath { path: String },
    /// Builds the next request. `options` are the build options (`provider` and `model`
    /// default to the session's model); reminders are drained into the log first.
    BuildRequest {
        #[serde(default)]
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Partial<BuildInput>"))]
        options: Value,
    },
    /// Sends again every record storage has not confirmed.
    Flush,
    Snapshot,
    /// Replaces the whole state with a snapshot's.
    Restore { snapshot: Box<SessionSnapshot> },
}

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::UserMessage { .. } => "userMessage",
            Command::AssistantResponse(_) => "assistantResponse",
            Command::ToolResult { .. } => "toolResult",
            Command::RecordUsage { .. } => "recordUsage",
            Command::SwitchModel { .. } => "switchModel",
            Command::Rewind { .. } => "rewind",
            Command::SetPromptContext { .. } => "setPromptContext",
            Command::PrepareCompaction { .. } => "prepareCompaction",
            Command::ApplyCompaction(_) => "applyCompaction",
            Command::EnqueueReminder { .. } => "enqueueReminder",
            Command::RecordEditedPath { .. } => "recordEditedPath",
            Command::BuildRequest { .. } => "buildRequest",
            Command::Flush => "flush",
            Command::Snapshot => "snapshot",
            Command::Restore { .. } => "restore",
        }
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

/// `_meta` carrying our provider facts, or nothing.
fn meta(facts: ProviderMeta) -> Option<Value> {
    facts.to_meta()
}

fn with_meta(mut update: Value, facts: ProviderMeta) -> Value {
    if let (Some(meta), Some(object)) = (meta(facts), update.as_object_mut()) {
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
