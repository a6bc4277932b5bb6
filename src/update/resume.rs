//! What a checkpoint record's state is: the replay's whole state, the prompts so far, the
//! reminders told and the last summary — written as the record's text and read back from it
//! ([`super::checkpoint`] holds the record, which knows nothing of the replay).

use contextview_derive::ReadValue;
use serde::Serialize;

use super::checkpoint::Checkpoint;
use super::replay::{PromptFold, Resume};

/// What a session resumes from (see [`Checkpoint`]): the record's state, as text.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
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

impl CheckpointState {
    /// The checkpoint record of this state through record `through`.
    pub fn write(&self, through: u64, records: u64, started_at: Option<String>) -> Checkpoint {
        // Straight to text: no value tree of the whole state at its peak.
        let state = serde_json::to_string(self).unwrap_or_default();
        Checkpoint { through, records, started_at, state }
    }

    /// The state a checkpoint record holds; `None` when its text does not read.
    pub fn read(checkpoint: &Checkpoint) -> Option<CheckpointState> {
        // Straight from text: no value tree of the whole state at its peak.
        serde_json::from_str(&checkpoint.state).ok()
    }
}
