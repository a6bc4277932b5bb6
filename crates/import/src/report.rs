//! What an import gives back: the log it wrote, and its report of what it kept and lost —
//! with the fidelity counts of what the source agent's model saw against what the view holds
//! (made by [`crate::fidelity`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use contextview::diagnostic::Diagnostic;
use contextview::update::record::{Header, Record};

use crate::format::Format;

/// The result of an import.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub header: Header,
    pub records: Vec<Record>,
    pub report: ImportReport,
}

/// What an import kept, what it could not map, and what was wrong with the input.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub format: Option<Format>,
    /// Input lines read (blank lines not counted).
    pub lines: usize,
    pub records: usize,
    /// Records written per kind (`user_message_chunk`, `tool_call`, `usage_anchor`, …).
    pub written: BTreeMap<String, usize>,
    /// Input entries our layers cannot hold, per kind; kept out of the log, never silently.
    pub unmapped: BTreeMap<String, usize>,
    /// Whose view the session is: `primary`, or `subagent` for a subagent's own transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// The source agent's own heads (system prompt, tools, framing) its usage counted, as
    /// estimated from its anchors: the ledger counts this package's heads in their place (see
    /// `calibrate`). Absent when the file reports no usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_tokens: Option<u64>,
    /// What the source agent's model saw at the end of the file against what our view holds,
    /// and every element of it our view lacks (see [`fidelity`]).
    #[serde(default)]
    pub fidelity: Fidelity,
    /// The sessions of the subagents that answered this session's calls (Claude Code's
    /// `agent-<id>.jsonl` files beside it): the log links each to its call; their own
    /// conversations are in their files, imported on their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<String>,
    /// A subagent's session read from the progress entries its parent's file carries (its file
    /// was not given): its report is in the parent's result, not in this log.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_progress: bool,
    pub diagnostics: Vec<Diagnostic>,
}

/// What kind of content an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    Prompt,
    AssistantText,
    Reasoning,
    ToolCall,
    Image,
}

/// Counts of each kind, on one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Real user prompts (not harness messages, summaries or tool results).
    pub prompts: usize,
    /// Assistant text runs that are not only whitespace.
    pub assistant_texts: usize,
    pub reasoning: usize,
    /// Tool calls that have a result.
    pub tool_calls: usize,
    pub images: usize,
}

impl Counts {
    pub(crate) fn add(&mut self, kind: ElementKind) {
        match kind {
            ElementKind::Prompt => self.prompts += 1,
            ElementKind::AssistantText => self.assistant_texts += 1,
            ElementKind::Reasoning => self.reasoning += 1,
            ElementKind::ToolCall => self.tool_calls += 1,
            ElementKind::Image => self.images += 1,
        }
    }
}

/// A source element our view does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    pub kind: ElementKind,
    /// The line of the source file it came from.
    pub line: usize,
    /// Its id in the source (a tool call id, an entry id), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The start of its text, to recognise it by.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub excerpt: String,
}

/// What the source agent's model saw against what our view holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fidelity {
    pub source: Counts,
    pub view: Counts,
    pub missing: Vec<Missing>,
}
