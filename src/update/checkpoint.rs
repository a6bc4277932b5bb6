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

use serde::{Deserialize, Serialize};

use super::replay::{PromptFold, Resume};

/// The replay's state through record `through` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// The last record the state covers.
    pub through: u64,
    /// Records the log held through `through`, checkpoints included.
    pub records: u64,
    /// The first record's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// What a session resumes from ([`CheckpointState`]), as JSON text: opaque to hosts, held
    /// as one string until a session opens from it, and written back exactly as read.
    pub state: String,
}

impl Checkpoint {
    pub fn new(through: u64, records: u64, started_at: Option<String>, state: &CheckpointState) -> Checkpoint {
        // Straight to text: no value tree of the whole state at its peak.
        let state = serde_json::to_string(state).unwrap_or_default();
        Checkpoint { through, records, started_at, state }
    }

    /// The state to resume from; `None` when its text does not read.
    pub fn state(&self) -> Option<CheckpointState> {
        // Straight from text: no value tree of the whole state at its peak.
        serde_json::from_str(&self.state).ok()
    }
}

/// What a session resumes from (see [`Checkpoint`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointState {
    /// The replay: items, their records, the replay state.
    pub replay: Resume,
    /// The real prompts so far (what a rewind counts, and the session's state lists).
    pub prompts: PromptFold,
    /// Reminders told, as `(kind, text)`: one is never told twice.
    #[serde(default)]
    pub told: Vec<(String, String)>,
    /// The last compaction's summary (the next compaction merges it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}
