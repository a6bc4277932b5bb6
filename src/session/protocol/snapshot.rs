//! A session's whole state as one serializable value: the log, what storage confirmed, the
//! reminders waiting, the prompt context and the sampling settings. Restoring it gives a
//! session that builds the same next request (the previous request's body, kept only for the
//! prefix report, is not part of it).

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::prompt::PromptContext;
use crate::request::BuildInput;
use crate::view::Reminder;

use super::super::persist::Persistence;

pub const SNAPSHOT_FORMAT: &str = "contextview.session-snapshot";
pub const SNAPSHOT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionSnapshot {
    pub format: String,
    pub version: u32,
    /// The log as JSON Lines: the header, then every record held in memory.
    pub log: String,
    pub persistence: Persistence,
    #[serde(default)]
    pub reminders: Vec<Reminder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_context: Option<PromptContext>,
    /// The build options the session last used (its model, window, system and tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<BuildInput>,
    /// A compaction prepared and not yet applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared: Option<PreparedCut>,
    #[serde(default)]
    pub strip_images_once: bool,
    /// Where the pruning boundaries stood at the last build (turn, and step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_boundary: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_step_boundary: Option<u32>,
    #[serde(default)]
    pub next_command: u64,
}

/// What `applyCompaction` needs of the last `prepareCompaction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PreparedCut {
    pub first_kept_seq: u64,
    pub based_on_seq: u64,
    pub tokens_before: u64,
    /// Kept results and outputs over this many characters are trimmed (what stays verbatim
    /// would not fit otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_kept_over: Option<usize>,
}
