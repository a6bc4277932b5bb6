//! Checkpoints: the replay's state at a point of the log, kept as a record of the log itself,
//! so a session opens from the last one and folds only the records after it — opening costs
//! what the view holds, not everything the agent ever did.
//!
//! A checkpoint is derived data. Every reader of the history (the replay, rewinds, the client's
//! view, the timeline) skips checkpoint records, so a log with its checkpoints deleted builds
//! the same requests; and opening from one builds what a full replay builds (the equivalence
//! the tests check at every cut point). The session writes one after each compaction and each
//! rewind, and by size when the host asks ([`crate::session::Session::set_checkpoint_every`]);
//! see `session/checkpoint.rs`.
//!
//! The record holds the state as text; what that text is ([`super::resume::CheckpointState`])
//! is the replay's, one layer up, so the record types know nothing of the replay.

use contextview_derive::ReadValue;
use serde::Serialize;

/// The replay's state through record `through` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// The last record the state covers.
    pub through: u64,
    /// Records the log held through `through`, checkpoints included.
    pub records: u64,
    /// The first record's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// What a session resumes from ([`super::resume::CheckpointState`]), as JSON text: opaque to hosts, held
    /// as one string until a session opens from it, and written back exactly as read.
    pub state: String,
}
