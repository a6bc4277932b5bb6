//! The session's protocol, as plain data: what a host asks of a session (commands), what it
//! answers (replies), what the host must do afterwards (effects), and why something was refused
//! ([`SessionError`]). A leaf: nothing here knows the state machine, so the same protocol runs in
//! any host and a test can drive a session without one.
//!
//! Every input reaches the session through one door ([`Input`], `Session::input`); every effect
//! leaves through one queue (`Session::poll_effect`).

use contextview_derive::ReadValue;
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

/// Declares the commands once: each variant beside its `type`, from which come the enum (its
/// writer renames each variant to its `type`), [`Command::name`], [`Command::NAMES`],
/// [`Command::INPUTS`] and the reader ([`Command::from_value`]).
macro_rules! commands {
    ($($(#[$vmeta:meta])* $tag:literal => $variant:ident $(($ty:ty))?,)+) => {
        /// What a host asks of a session. Commands are queued and processed in order.
        ///
        /// Read through a JSON value (see the `Deserialize` impl): a derived internally tagged
        /// enum would instantiate every variant's deserializer a second time for serde's
        /// buffered content, about 100 KB of `.wasm` for nothing.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum Command {
            $($(#[$vmeta])* #[serde(rename = $tag)] $variant $(($ty))?,)+
        }

        impl Command {
            /// Every command's `type`, in the order they are declared.
            pub const NAMES: &'static [&'static str] = &[$($tag),+];

            /// Each command's input type by its name, in the same order (none for a command
            /// without fields): the TypeScript declarations are generated from these and
            /// [`Command::NAMES`].
            pub const INPUTS: &'static [Option<&'static str>] = &[$(commands!(@input $($ty)?)),+];

            /// The command's `type`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Command::$variant { .. } => $tag,)+
                }
            }

            /// Reads a command from its JSON value: `type` picks the variant, the rest are its
            /// fields (a command without fields takes none).
            pub fn from_value(value: Value) -> Result<Command, String> {
                let Value::Object(mut fields) = value else { return Err("a command is an object with a `type`".into()) };
                let kind = match fields.remove("type") {
                    Some(Value::String(kind)) => kind,
                    _ => return Err("a command needs a string `type`".into()),
                };
                let rest = Value::Object(fields);
                match kind.as_str() {
                    $($tag => commands!(@read kind rest $variant $($ty)?),)+
                    other => Err(format!("unknown command type `{other}`")),
                }
            }
        }
    };
    (@input $ty:ty) => { Some(stringify!($ty)) };
    (@input) => { None };
    (@read $kind:ident $rest:ident $variant:ident $ty:ty) => {
        crate::diagnostic::from_value::<$ty>($rest).map(Command::$variant).map_err(|e| format!("`{}`: {e}", $kind))
    };
    (@read $kind:ident $rest:ident $variant:ident) => {
        match $rest.as_object().is_some_and(|m| m.is_empty()) {
            true => Ok(Command::$variant),
            false => Err(format!("`{}` takes no fields", $kind)),
        }
    };
}

commands! {
    "userMessage" => UserMessage(UserMessageInput),
    /// One model response: reasoning, text, tool calls and the provider's usage.
    "assistantResponse" => AssistantResponse(AssistantResponse),
    "toolResult" => ToolResult(ToolResultInput),
    "recordUsage" => RecordUsage(RecordUsage),
    /// The window changes, the system head is rendered for the model, and a compaction is asked
    /// for when the context no longer fits.
    "switchModel" => SwitchModel(SwitchModel),
    /// Across compactions; the log keeps everything.
    "rewind" => Rewind(RewindTo),
    /// Before the conversation starts the heads are recorded at once; later they stay as sent
    /// until the next compaction refreshes them.
    "setPromptContext" => SetPromptContext(SetPromptContext),
    /// Builds the request that asks a model for a summary (nothing is written).
    "prepareCompaction" => PrepareCompaction(PrepareCompaction),
    /// Replaces the history before the prepared cut with a summary (see [`ApplyCompaction`]).
    "applyCompaction" => ApplyCompaction(ApplyCompaction),
    "enqueueReminder" => EnqueueReminder(EnqueueReminder),
    "recordEditedPath" => RecordEditedPath(RecordEditedPath),
    /// Builds the next request; reminders are drained into the log first.
    "buildRequest" => BuildRequest(BuildRequest),
    /// Sends again every record storage has not confirmed.
    "flush" => Flush,
    "snapshot" => Snapshot,
    /// Replaces the whole state with a snapshot's.
    "restore" => Restore(Restore),
    /// A provider's whole answer (a JSON body, or a stream's every byte as text): decoded and
    /// recorded exactly — every block, the usage, how it ended.
    "providerAnswer" => ProviderAnswer(ProviderAnswer),
    /// Starts receiving a streamed answer: its bytes then go to `Session::answer_bytes`.
    "beginAnswer" => BeginAnswer(BeginAnswer),
    /// The streamed answer's end: what arrived is recorded (marked partial when the provider had
    /// not finished it), or, with `discard`, dropped unrecorded (the host refused the body).
    "endAnswer" => EndAnswer(EndAnswer),
    /// A subagent for one of the model's delegation calls: recorded, and its session described.
    "startSubagent" => StartSubagent(StartSubagent),
    /// The subagent's report answers its call (or a synthetic result says why it has none).
    "endSubagent" => EndSubagent(EndSubagent),
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
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

