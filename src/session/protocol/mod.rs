//! The session's protocol, as plain data: what a host asks of a session (commands), what it
//! answers (replies), what the host must do afterwards (effects), and why something was refused
//! ([`SessionError`]). A leaf: nothing here knows the state machine, so the same protocol runs in
//! any host and a test can drive a session without one.
//!
//! Every input reaches the session through one door ([`Input`], `Session::input`); every effect
//! leaves through one queue (`Session::poll_effect`).

pub mod compaction;
mod error;
pub mod inputs;
pub mod snapshot;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use compaction::{ApplyCompaction, CompactionOptions, Ladder, PreparedCompaction};
pub use error::{AppendError, SessionError};
pub use inputs::*;
pub use snapshot::{PreparedCut, SessionSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION};

use crate::answer::AnswerSummary;
use crate::prompt::PromptContext;
use crate::view::{ContextUsage, Report};

use super::persist::PersistenceStatus;

/// What a host asks of a session. Commands are queued and processed in order.
///
/// Read through a JSON value (see the `Deserialize` impl): a derived internally tagged enum
/// would instantiate every variant's deserializer a second time for serde's buffered content,
/// about 100 KB of `.wasm` for nothing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Command {
    UserMessage(UserMessageInput),
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
    /// A provider's whole answer (a JSON body, or a stream's every byte as text): decoded and
    /// recorded exactly — every block, the usage, how it ended.
    ProviderAnswer(ProviderAnswer),
    /// Starts receiving a streamed answer: its bytes then go to `Session::answer_bytes`.
    BeginAnswer(BeginAnswer),
    /// The streamed answer's end: what arrived is recorded (marked partial when the provider had
    /// not finished it), or, with `discard`, dropped unrecorded (the host refused the body).
    EndAnswer(EndAnswer),
    /// A subagent for one of the model's delegation calls: recorded, and its session described.
    StartSubagent(StartSubagent),
    /// The subagent's report answers its call (or a synthetic result says why it has none).
    EndSubagent(EndSubagent),
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
            Command::ProviderAnswer(_) => "providerAnswer",
            Command::BeginAnswer(_) => "beginAnswer",
            Command::EndAnswer(_) => "endAnswer",
            Command::StartSubagent(_) => "startSubagent",
            Command::EndSubagent(_) => "endSubagent",
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
            crate::diagnostic::from_value(rest).map_err(|e| format!("`{kind}`: {e}"))
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
            "providerAnswer" => args(&kind, rest).map(Command::ProviderAnswer),
            "beginAnswer" => args(&kind, rest).map(Command::BeginAnswer),
            "endAnswer" => args(&kind, rest).map(Command::EndAnswer),
            "startSubagent" => args(&kind, rest).map(Command::StartSubagent),
            "endSubagent" => args(&kind, rest).map(Command::EndSubagent),
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Reply {
    /// Records were accepted (in memory) under these sequence numbers.
    Accepted { seqs: Vec<u64> },
    /// Nothing to write (an unchanged context, a path already known, …).
    Unchanged,
    /// `enqueueReminder`: whether the reminder was queued (`false`: it would repeat what was told).
    Queued { queued: bool },
    Built { body: std::sync::Arc<String>, report: Box<Report> },
    Compaction(Box<PreparedCompaction>),
    Snapshot(Box<SessionSnapshot>),
    /// A provider's answer was recorded under these sequence numbers (none when it held nothing
    /// but an error): what it said, and what the decoder noticed.
    Answered {
        seqs: Vec<u64>,
        answer: Box<AnswerSummary>,
        diagnostics: Vec<crate::diagnostic::Diagnostic>,
        /// Updates the answer's end completed that were not said while it streamed (all of a
        /// whole body's; a streamed answer's calls closed by its end), for the client.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        updates: Vec<crate::update::acp::SessionUpdate>,
    },
    /// `startSubagent`: recorded under these sequence numbers; the child's session to make.
    SubagentStarted { seqs: Vec<u64>, child: Box<SubagentStart> },
}

/// Why the context needs compacting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The context crossed the compaction threshold.
    Threshold,
    /// The new model's window is too small for the context.
    ModelSwitch,
}

/// Something the host must do after a command.
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
    /// The provider refused or dropped the request, and sending it again may succeed: wait
    /// `after_ms` (the server's ask, or the backoff for this attempt), then send what the next
    /// build makes as attempt `attempt`. Why, in a word, is `reason` (the answer's `retry` keeps
    /// the whole decision).
    RetryAfter { after_ms: u64, attempt: u32, reason: String },
    /// Command `command` waits for the log's records after its header through `through` (the
    /// history the session let go or opened without): read them and give them with
    /// `provideHistory`, which runs the command and returns what it did.
    ReadHistory { command: u64, through: u64 },
    /// Command `command` waits for the log lines of these records (tool results the session let
    /// go that it sends whole again): read them and give them with `provideRecords` (or the
    /// whole history with `provideHistory`), which runs the command and returns what it did.
    ReadRecords { command: u64, seqs: Vec<u64> },
}

/// What a command waits for before it can run: records that are with the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Need {
    /// The log's records after its header through `through`.
    History { through: u64 },
    /// The records under these `seq`s.
    Records { seqs: Vec<u64> },
}

impl Need {
    /// The effect that asks the host for it, on behalf of command `command`.
    pub fn effect(&self, command: u64) -> Effect {
        match self {
            Need::History { through } => Effect::ReadHistory { command, through: *through },
            Need::Records { seqs } => Effect::ReadRecords { command, seqs: seqs.clone() },
        }
    }
}

impl std::fmt::Display for Need {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Need::History { through } => write!(f, "the log's records through seq {through}"),
            Need::Records { seqs } => write!(f, "the records {seqs:?}"),
        }
    }
}

/// A command that waits for records, as `state()` tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiting {
    /// The command's id.
    pub command: u64,
    /// Its `type`.
    #[serde(rename = "type")]
    pub kind: String,
    pub need: Need,
}

/// One processed command: its id, its reply or error, and the effects it produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Processed {
    pub id: u64,
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<Reply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CommandFailure>,
    /// The command has not run yet: it waits for these records (the last effect asks for them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Need>,
    pub effects: Vec<Effect>,
}

/// A command's error as data: a stable code and a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandFailure {
    pub code: String,
    pub message: String,
    /// Each rule a refused build's payload or settings broke (`invalid_payload`,
    /// `invalid_options` from the API's rules), with its path and the provider's words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<crate::provider::Violation>,
}

impl From<&SessionError> for CommandFailure {
    fn from(e: &SessionError) -> CommandFailure {
        let violations = match e {
            SessionError::Request(crate::request::RequestError::Build(
                crate::view::BuildError::InvalidPayload { violations, .. } | crate::view::BuildError::InvalidOptions { violations, .. },
            )) => violations.clone(),
            _ => Vec::new(),
        };
        CommandFailure { code: e.code().to_owned(), message: e.to_string(), violations }
    }
}

/// What `ack` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AckResult {
    /// `false` when the ticket had been settled already (an acknowledgement repeated).
    pub applied: bool,
    pub persistence: PersistenceStatus,
}


/// What `reconcile` found and did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reconciled {
    /// Records storage holds that memory took over.
    pub adopted: usize,
    /// Records memory held that storage holds otherwise under the same `seq`: storage wins, and
    /// these lines are handed back (never silently dropped).
    pub dropped: Vec<String>,
    /// Records sent to storage again.
    pub resent: usize,
    pub persistence: PersistenceStatus,
    pub diagnostics: Vec<crate::diagnostic::Diagnostic>,
    pub effects: Vec<Effect>,
}

/// The inspectable state the chapter's snapshot names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Real prompts, in order; a rewind names them by index.
    pub prompts: Vec<String>,
    pub edited_paths: Vec<String>,
    pub records: usize,
    pub items: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_activity_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_compaction_seq: Option<u64>,
    pub queued_commands: usize,
    /// The command that waits for records the host keeps, and what it waits for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Waiting>,
    pub queued_reminders: usize,
    pub compaction_prepared: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_context: Option<PromptContext>,
    /// The tools the log last recorded (`tools_defined`): what a build without `tools` carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<crate::provider::Tools>,
    pub persistence: PersistenceStatus,
    /// The parent's session and call, for a subagent's own session (from its log header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
    /// The subagents this session's log started, every one (a rewind or an agent's compaction
    /// since included), and how each went; empty when it started none.
    pub subagents: Vec<crate::update::replay::SubagentLink>,
    /// What this session's own requests used (the usage its log recorded, summed).
    pub spent: crate::update::record::Spent,
}

