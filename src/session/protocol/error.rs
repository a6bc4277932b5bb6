//! Why a session refused an input: one typed error per refusal, each with a stable code.

use crate::prompt::TemplateError;
use crate::request::RequestError;

/// Why a command (or an acknowledgement, a reconcile, a restore) was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionError {
    /// Build options are missing or contradictory.
    InvalidOptions(String),
    Request(RequestError),
    InvalidTemplate(TemplateError),
    /// A record line the session was given is not a record.
    InvalidRecord(String),
    UnknownToolCall(String),
    InvalidPromptIndex { index: u64, prompts: u64 },
    /// Nothing lies before the cut: the history is all recent.
    NothingToCompact,
    NoCompactionPrepared,
    /// The conversation was rewound or compacted since the compaction was prepared.
    CompactionStale,
    DegenerateSummary(String),
    UnknownTicket(u64),
    /// Storage holds another session.
    SessionMismatch { held: String, stored: String },
    InvalidSnapshot(String),
    /// `dispatch` while commands are queued: `process` them first.
    QueueNotEmpty(usize),
    /// Bytes or `endAnswer` with no answer begun.
    NoAnswerBegun,
    /// A command that adds to the conversation (or a second `beginAnswer`) while an answer is
    /// being received: `endAnswer` first.
    AnswerInProgress,
    /// The session opened from a checkpoint and the records before it are with the host: a
    /// rewind, the full client view or a snapshot needs them given first
    /// (`Session::provide_history`). Nothing changed.
    HistoryNeeded,
    /// What the host gave as the history is not the history before the checkpoint (torn, short,
    /// another log's); nothing changed.
    HistoryMismatch(String),
    /// A command waits for records the host keeps (its `readHistory` / `readRecords` effect):
    /// answer it, or abandon the command, before dispatching another.
    CommandWaiting { id: u64, need: String },
    /// Records given that the session did not ask for (an answer given twice, or to nothing).
    NotAsked(String),
    /// The waiting command was abandoned: the records it waited for never came.
    RecordsUnavailable(String),
    /// `startSubagent` for a call that is answered or already has a subagent.
    SubagentCall(String),
    /// `endSubagent` for a call no running subagent answers.
    NoSubagent(String),
}

impl SessionError {
    pub fn code(&self) -> &'static str {
        match self {
            SessionError::InvalidOptions(_) => crate::error_codes::INVALID_OPTIONS,
            SessionError::Request(e) => e.code(),
            SessionError::InvalidTemplate(_) => crate::error_codes::INVALID_TEMPLATE,
            SessionError::InvalidRecord(_) => crate::error_codes::INVALID_RECORD,
            SessionError::UnknownToolCall(_) => crate::error_codes::UNKNOWN_TOOL_CALL,
            SessionError::InvalidPromptIndex { .. } => crate::error_codes::INVALID_PROMPT_INDEX,
            SessionError::NothingToCompact => crate::error_codes::NOTHING_TO_COMPACT,
            SessionError::NoCompactionPrepared => crate::error_codes::NO_COMPACTION_PREPARED,
            SessionError::CompactionStale => crate::error_codes::COMPACTION_STALE,
            SessionError::DegenerateSummary(_) => crate::error_codes::DEGENERATE_SUMMARY,
            SessionError::UnknownTicket(_) => crate::error_codes::UNKNOWN_TICKET,
            SessionError::SessionMismatch { .. } => crate::error_codes::SESSION_MISMATCH,
            SessionError::InvalidSnapshot(_) => crate::error_codes::INVALID_SNAPSHOT,
            SessionError::QueueNotEmpty(_) => crate::error_codes::QUEUE_NOT_EMPTY,
            SessionError::NoAnswerBegun => crate::error_codes::NO_ANSWER_BEGUN,
            SessionError::AnswerInProgress => crate::error_codes::ANSWER_IN_PROGRESS,
            SessionError::HistoryNeeded => crate::error_codes::HISTORY_NEEDED,
            SessionError::HistoryMismatch(_) => crate::error_codes::HISTORY_MISMATCH,
            SessionError::CommandWaiting { .. } => crate::error_codes::COMMAND_WAITING,
            SessionError::NotAsked(_) => crate::error_codes::NOT_ASKED,
            SessionError::RecordsUnavailable(_) => crate::error_codes::RECORDS_UNAVAILABLE,
            SessionError::SubagentCall(_) => crate::error_codes::SUBAGENT_CALL,
            SessionError::NoSubagent(_) => crate::error_codes::NO_SUBAGENT,
        }
    }
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::InvalidOptions(m) => write!(f, "invalid options: {m}"),
            SessionError::Request(e) => e.fmt(f),
            SessionError::InvalidTemplate(e) => e.fmt(f),
            SessionError::InvalidRecord(m) => write!(f, "invalid record: {m}"),
            SessionError::UnknownToolCall(id) => write!(f, "no tool call `{id}` in this session"),
            SessionError::InvalidPromptIndex { index, prompts } => {
                write!(f, "cannot rewind to prompt {index}: the session has {prompts} prompts (0-based)")
            }
            SessionError::NothingToCompact => write!(f, "nothing to compact: every message is within the recent budget"),
            SessionError::NoCompactionPrepared => write!(f, "no compaction was prepared (call prepareCompaction first)"),
            SessionError::CompactionStale => {
                write!(f, "the session was rewound or compacted after the compaction was prepared; prepare it again")
            }
            SessionError::DegenerateSummary(m) => write!(f, "summary refused: {m}"),
            SessionError::UnknownTicket(t) => write!(f, "no persist effect carried ticket {t}"),
            SessionError::SessionMismatch { held, stored } => write!(f, "storage holds session `{stored}`, not `{held}`"),
            SessionError::InvalidSnapshot(m) => write!(f, "invalid snapshot: {m}"),
            SessionError::QueueNotEmpty(n) => write!(f, "{n} commands are queued; process them before dispatching another"),
            SessionError::NoAnswerBegun => write!(f, "no answer is being received (beginAnswer first)"),
            SessionError::AnswerInProgress => write!(f, "an answer is being received; endAnswer first"),
            SessionError::HistoryNeeded => {
                write!(f, "this needs records the session let go or opened without; give them first (provideHistory, through historyThrough())")
            }
            SessionError::HistoryMismatch(why) => write!(f, "what was given is not the history or the records the session let go: {why}"),
            SessionError::CommandWaiting { id, need } => {
                write!(f, "command {id} waits for {need} (its read effect): answer it (provideHistory, provideRecords) or abandon it first")
            }
            SessionError::NotAsked(what) => write!(f, "the session did not ask for {what}: nothing waits for it"),
            SessionError::RecordsUnavailable(why) => write!(f, "abandoned: {why}"),
            SessionError::SubagentCall(why) => write!(f, "cannot start a subagent: {why}"),
            SessionError::NoSubagent(id) => write!(f, "no running subagent answers the call `{id}` (startSubagent first)"),
        }
    }
}

impl std::error::Error for SessionError {}

/// Why a record line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendError {
    /// The line is not JSON, or not a record.
    InvalidRecord(String),
    /// Another record already holds this `seq`, or it is lower than the last one.
    SeqConflict { seq: u64, last: u64 },
    /// A rewind, while the records before the checkpoint the session opened from are with the
    /// host: give them first (`Session::provide_history`).
    HistoryNeeded,
}

impl AppendError {
    pub fn code(&self) -> &'static str {
        match self {
            AppendError::InvalidRecord(_) => crate::error_codes::INVALID_RECORD,
            AppendError::SeqConflict { .. } => crate::error_codes::SEQ_CONFLICT,
            AppendError::HistoryNeeded => crate::error_codes::HISTORY_NEEDED,
        }
    }
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppendError::InvalidRecord(m) => write!(f, "record line is invalid: {m}"),
            AppendError::SeqConflict { seq, last } => {
                write!(f, "seq {seq} conflicts with the records held (last seq {last})")
            }
            AppendError::HistoryNeeded => {
                write!(f, "this record (a rewind, or one already stored) is checked against records the session let go or opened without; give them first (provideHistory, through historyThrough())")
            }
        }
    }
}

