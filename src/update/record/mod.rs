//! Layer 1 record kinds: one line of the durable session log.
//!
//! A record is an envelope `{seq, ts, …}` holding exactly one of:
//! - `update`: an ACP `SessionUpdate`, verbatim and schema-valid;
//! - `event`: one of our own kinds ([`Event`]) for facts ACP has no update for;
//! - anything else: kept byte-for-byte as [`RecordBody::Unknown`], skipped by replay, reported.
//!
//! This file holds the envelope, the header and the [`Event`] enum with its reading; the
//! bodies of the events are [`events`]'.

use contextview_derive::ReadValue;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::update::acp::{AcpUpdate, SessionUpdate};
use crate::update::checkpoint::Checkpoint;

mod events;
pub use events::*;

/// Format name written in the header line.
pub const LOG_FORMAT: &str = "contextview.session-log";
/// Current log format version; readers accept this and older.
pub const LOG_VERSION: u32 = 1;

/// First line of a session log.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub format: String,
    pub version: u32,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Where the log came from when it was imported (`claude-code`, `codex`, `pi`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
    /// Set for a subagent's own session: the session that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// Set for a subagent's own session: the parent's tool call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
}

impl Header {
    pub fn new(session_id: impl Into<String>) -> Header {
        Header {
            format: LOG_FORMAT.to_owned(),
            version: LOG_VERSION,
            session_id: session_id.into(),
            created_at: None,
            cwd: None,
            imported_from: None,
            parent_session_id: None,
            parent_call_id: None,
        }
    }
}

/// One durable record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Strictly increasing within a log, starting at 1.
    pub seq: u64,
    /// RFC 3339 timestamp supplied by the host (the core has no clock).
    pub ts: String,
    pub body: RecordBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RecordBody {
    Update(AcpUpdate),
    Event(Event),
    /// A line that parsed as JSON but that this version does not understand; kept verbatim.
    Unknown(Value),
}

impl RecordBody {
    /// A checkpoint: derived data every reader of the history skips.
    pub fn is_checkpoint(&self) -> bool {
        matches!(self, RecordBody::Event(Event::Checkpoint(_)))
    }

    /// A short name for reports: the ACP `sessionUpdate`, our event kind, or `unknown`.
    pub fn kind(&self) -> &str {
        match self {
            RecordBody::Update(u) => u.kind(),
            RecordBody::Event(e) => e.kind(),
            RecordBody::Unknown(_) => "unknown",
        }
    }
}

crate::tagged::newtype_enum! {
    #[serde(tag = "kind")]
    /// Our own record kinds: facts with no ACP update.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Event {
        /// The provider's reported usage for the response that ended just before this record.
        "usage_anchor" => UsageAnchor(UsageAnchor),
        /// The sampling model changed.
        "model_switch" => ModelSwitch(ModelSwitch),
        /// Everything before `firstKeptSeq` is represented, for the model, by `summary`.
        "compaction_checkpoint" => CompactionCheckpoint(CompactionCheckpoint),
        /// The conversation is truncated back to before real user prompt `promptIndex` (0-based).
        "rewind" => Rewind(Rewind),
        /// A runtime reminder delivered to the model as a synthetic user message.
        "reminder_injected" => ReminderInjected(ReminderInjected),
        /// The prompt heads from here on: the system prompt, and the first-user prefix that opens
        /// the conversation (rendered from a `PromptContext`, or recorded by an importer).
        "prompt_head_snapshot" => PromptHeadSnapshot(PromptHeadSnapshot),
        /// Files the agent changed outside the tool calls the log shows (tool calls with a diff, or
        /// of kind edit, delete or move, count by themselves).
        "edited_paths" => EditedPaths(EditedPaths),
        /// The tools the requests carry from here on (written when a build's tools change), so a
        /// reopened session and its timeline know what each request carried.
        "tools_defined" => ToolsDefined(ToolsDefined),
        /// How a provider's answer ended, after its content: the stop reason, whether it came whole,
        /// the provider's error when it failed, and its usage exactly as the provider reported it.
        "answer_end" => AnswerEnd(AnswerEnd),
        /// Derived data: the replay's state through an earlier record, so a session opens from here
        /// instead of replaying what came before. Replay skips it; deleting it changes no build.
        "checkpoint" => Checkpoint(Checkpoint),
        /// A subagent was started for one of the model's delegation calls: its own session answers it.
        "subagent_started" => SubagentStarted(SubagentStarted),
        /// A subagent ended: its report answered the call (the result record before this one), or it
        /// failed and a synthetic result says so.
        "subagent_ended" => SubagentEnded(SubagentEnded),
    }
}

// --- wire form -------------------------------------------------------------------------------

/// A record as it is written: `{seq, ts, update | event}`.
#[derive(Serialize)]
struct Envelope<'a> {
    seq: u64,
    ts: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    update: Option<&'a AcpUpdate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<&'a Event>,
}

/// The envelope's own fields, as a line is read: serde's derived reader, which reads them from a
/// borrow of the line's value (a generated reader takes the value whole, and the body is still
/// to be taken out of it).
#[derive(serde::Deserialize)]
struct Head {
    seq: u64,
    ts: String,
}

/// Why a JSON line could not become a [`Record`].
#[derive(Debug, Clone, PartialEq)]
pub enum RecordError {
    /// Not an object with a numeric `seq` and a string `ts`.
    BadEnvelope(String),
    /// `update` or `event` names a kind we type, but its fields do not fit.
    BadBody { kind: String, reason: String },
}

impl Record {
    /// Serialises to one JSON line (no trailing newline). Written through the JSON value, whose
    /// key order (sorted, in a build without serde_json's `preserve_order`) is the stored logs':
    /// storages compare a line sent again with the stored one by its text, so it must not change.
    pub fn to_line(&self) -> String {
        serde_json::to_string(&self.to_value()).unwrap_or_default()
    }

    /// The record's wire form as a JSON value.
    pub fn to_value(&self) -> Value {
        let (update, event) = match &self.body {
            RecordBody::Update(u) => (Some(u), None),
            RecordBody::Event(e) => (None, Some(e)),
            RecordBody::Unknown(v) => return v.clone(),
        };
        serde_json::to_value(Envelope { seq: self.seq, ts: &self.ts, update, event }).unwrap_or(Value::Null)
    }

    /// Reads one parsed JSON line. Lines without `update` or `event` are [`RecordBody::Unknown`].
    pub fn from_value(value: Value) -> Result<Record, RecordError> {
        // The envelope's own fields are read from a borrow; the body is taken out of the value,
        // which is kept whole only for kinds this version does not know.
        let head = match Head::deserialize(&value) {
            Ok(head) => head,
            Err(e) => return Err(RecordError::BadEnvelope(e.to_string())),
        };
        // An array with a seq and a time (which serde reads as a struct) is no record we know:
        // kept as it is.
        let Value::Object(mut map) = value else {
            return Ok(Record { seq: head.seq, ts: head.ts, body: RecordBody::Unknown(value) });
        };
        let present = |key: &str| map.get(key).is_some_and(|v| !v.is_null());
        let body = match (present("update"), present("event")) {
            (true, false) => RecordBody::Update(parse_update(map.remove("update").unwrap_or_default())?),
            (false, true) => match map.get("event").and_then(|e| e.get("kind")).and_then(Value::as_str) {
                Some(kind) if Event::KINDS.contains(&kind) => {
                    let kind = kind.to_owned();
                    let event = map.remove("event").unwrap_or_default();
                    RecordBody::Event(Event::from_tagged(&kind, event).map_err(|e| RecordError::BadBody { kind, reason: e.to_string() })?)
                }
                _ => RecordBody::Unknown(Value::Object(map)),
            },
            _ => RecordBody::Unknown(Value::Object(map)),
        };
        Ok(Record { seq: head.seq, ts: head.ts, body })
    }
}

fn parse_update(update: Value) -> Result<AcpUpdate, RecordError> {
    let kind = update.get("sessionUpdate").and_then(Value::as_str).unwrap_or("").to_owned();
    if crate::update::acp::TYPED_KINDS.contains(&kind.as_str()) {
        SessionUpdate::from_tagged(&kind, update).map(AcpUpdate::Known).map_err(|e| RecordError::BadBody { kind, reason: e.to_string() })
    } else {
        Ok(AcpUpdate::Other(update))
    }
}
