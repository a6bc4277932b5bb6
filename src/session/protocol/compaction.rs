//! The data of compaction's two commands: the settings `prepareCompaction` takes, the request
//! it answers with, and what `applyCompaction` takes.

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::update::record::UsageAnchor;

/// Compaction settings (camelCase in JSON).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CompactionOptions {
    /// Recent messages kept verbatim after the summary, in tokens.
    pub keep_recent_tokens: u64,
    /// The summary's own budget: the output room the summarising request leaves.
    pub summary_tokens: u64,
    /// The budget for the summarising request's input; from the window when absent (the window
    /// less the summary's room and a margin), unlimited when the window is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// A tool result longer than this (chars) is trimmed on the ladder's "fitted" step.
    pub trim_results_over: usize,
    /// Build options for the summarising request (`provider` and `model` default to the session's).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub build: serde_json::Value,
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions {
            keep_recent_tokens: 12_000,
            summary_tokens: 8_000,
            input_tokens: None,
            trim_results_over: 2_000,
            build: serde_json::Value::Null,
        }
    }
}

/// How much of the history reached the summarising model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum Ladder {
    /// The last request itself, extended with the summary instructions: the provider's cache
    /// holds all of it but the instructions.
    Cached,
    /// Every message as it was, as a transcript in one message.
    Verbatim,
    /// Old tool results trimmed to their head and tail.
    Fitted,
    /// Old messages left out as well (the first request is always kept).
    Lossy,
}

/// The summarisation request and the cut it was prepared for.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PreparedCompaction {
    /// The first record that stays verbatim.
    pub first_kept_seq: u64,
    /// The session's last record when this was prepared.
    pub based_on_seq: u64,
    pub ladder: Ladder,
    /// Messages summarised, kept verbatim, trimmed on the ladder, and left out on it.
    pub summarised: usize,
    pub kept: usize,
    pub trimmed: usize,
    pub omitted: usize,
    /// The context's size before compaction (the ledger's count).
    pub tokens_before: u64,
    /// The request's estimated input size.
    pub input_tokens: u64,
    /// The cut falls inside the latest request's work: its first steps are summarised, its
    /// latest stay verbatim (the summary says what was done for it so far).
    pub split_turn: bool,
    /// What stays verbatim would not leave the next request under half the window: its tool
    /// results and command outputs over this many characters will keep their head and tail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_kept_over: Option<usize>,
    /// Bytes at the start of the request that repeat the last request the session built — what
    /// the provider's prompt cache can serve — and their share of the request.
    pub cached_bytes: usize,
    pub cached_share: f64,
    pub system: String,
    /// The user message asking for the summary.
    pub prompt: String,
    /// The provider request to send (JSON text).
    pub body: String,
}

/// `applyCompaction`'s input.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyCompaction {
    pub summary: String,
    /// The summarising response's usage (its output count is the summary's size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageAnchor>,
    /// Background work still running, for the state reminder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub background_tasks: Vec<String>,
}

