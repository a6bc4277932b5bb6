//! What the replay recovers besides the items: the session's facts (prompts, model, the usage
//! anchor and the overhead it carries, the heads, subagents, what was spent, the last answer).

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::tokens::Family;
use crate::update::record::{Event, ModelSwitch, PromptHeadSnapshot, Spent, SubagentStatus, UsageAnchor};

/// Session facts replay recovers besides the items.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ReplayState {
    /// Real (non-synthetic) user prompts in the effective history.
    pub prompt_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelSwitch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageAnchor>,
    /// How many items existed when `usage` was recorded (the anchor's position).
    #[serde(default)]
    pub items_at_usage: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heads: Option<PromptHeadSnapshot>,
    /// What compactions since the last usage anchor carry of the provider's count, until a new
    /// anchor replaces it (the ledger reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_carry: Option<OverheadCarry>,
    /// What the last context-length refusal since the usage anchor said of the ledger's count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<Correction>,
    /// `seq` of the last compaction checkpoint applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_compaction_seq: Option<u64>,
    /// Records the reducer skipped because it does not know their kind.
    #[serde(default)]
    pub skipped_records: usize,
    /// The tools the log last recorded (`tools_defined`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<crate::tool_def::Tools>,
    /// Files the agent changed, in the order first changed: paths of tool calls with a diff
    /// or of kind edit, delete or move, and `edited_paths` records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edited_paths: Vec<String>,
    /// How the last provider answer ended (`answer_end`), and how many items there were then: a
    /// session asks the model to go on after an answer that was cut short, while nothing came
    /// after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_answer: Option<LastAnswer>,
    /// What this session's own requests used: every usage anchor the history holds, summed.
    #[serde(default, skip_serializing_if = "Spent::is_zero")]
    pub spent: Spent,
    /// The subagents this session started, in the order started, and how each ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<SubagentLink>,
}

impl ReplayState {
    /// What an event says that holds whatever the conversation became: what a request spent
    /// (a usage anchor that is an answer's), a subagent started or ended.
    pub(super) fn note(&mut self, event: &Event) {
        match event {
            Event::UsageAnchor(usage) if usage.counted.is_none() => self.spent.add_usage(usage),
            Event::SubagentStarted(started) => self.subagents.push(SubagentLink {
                call_id: started.call_id.clone(),
                session_id: started.session_id.clone(),
                task: started.task.clone(),
                model: started.model.clone(),
                status: SubagentStatus::Running,
                report_tokens: started.report_tokens,
                trimmed: false,
                usage: None,
            }),
            Event::SubagentEnded(ended) => {
                if let Some(link) = self.subagents.iter_mut().rev().find(|l| l.call_id == ended.call_id && l.session_id == ended.session_id) {
                    link.status = ended.status;
                    link.trimmed = ended.trimmed;
                    link.usage = ended.usage;
                }
            }
            _ => {}
        }
    }
}

/// A subagent this session started: the call it answers, its own session, how it went.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[read(object)]
#[serde(rename_all = "camelCase", expecting = "a subagent")]
pub struct SubagentLink {
    pub call_id: String,
    pub session_id: String,
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub status: SubagentStatus,
    /// The report budget it was given, in tokens.
    pub report_tokens: u32,
    /// Its report was cut to the budget.
    #[serde(default, skip_serializing_if = "std::ops::Not::not", deserialize_with = "crate::value_read::null_as_default")]
    pub trimmed: bool,
    /// What its own requests used, as its session reported at its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Spent>,
}



/// A context-length refusal's count of a request beside the ledger's own count of it: the
/// ledger scales its counts by their ratio until the next answer's usage anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    /// The tokens the provider counted (or, where it named none, at least held).
    pub tokens: u64,
    /// The tokens the ledger counted for the same request.
    pub counted: u64,
}

impl Correction {
    /// The factor the ledger's counts are multiplied by: the provider's count over the ledger's,
    /// however far apart (the provider refused on its count), but at least a half (a provider
    /// that counts far less than the ledger still refused: the window is what was wrong).
    pub fn ratio(&self) -> f64 {
        if self.counted == 0 {
            return 1.0;
        }
        (self.tokens as f64 / self.counted as f64).max(0.5)
    }
}

/// The end of the last answer the log recorded.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct LastAnswer {
    pub status: crate::update::record::AnswerStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The model or the provider's filter refused ([`crate::update::record::AnswerEnd::is_refusal`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
    /// The API and model that answered.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<crate::update::record::ProviderFailure>,
    /// The connection dropped while it arrived.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
    /// Why the prompt was blocked (Gemini's `promptFeedback.blockReason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// Items the conversation held right after it.
    pub items: usize,
    /// Its `answer_end` record.
    pub seq: u64,
}

/// The provider's count at the last usage anchor beyond our estimate of the items it covered,
/// and the share of those items' estimate the compactions since then kept. The excess holds the
/// system prompt and tools (they survive a compaction whole) and the provider's framing (which
/// shrinks with the conversation); the ledger separates the two.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct OverheadCarry {
    pub excess: i64,
    pub kept: f64,
    /// The anchor said which of its tokens were heads ([`UsageAnchor::head_tokens`]): they are
    /// not in `excess`, which holds the framing alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub framing_only: bool,
    /// The tokenizer family the estimates were made in (the anchor's model's).
    pub family: Family,
}
