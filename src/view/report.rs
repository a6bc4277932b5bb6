//! The build report: what a request contains and what the pipeline did to get there.

use contextview_derive::ReadValue;
use std::collections::BTreeMap;

use serde::Serialize;

use super::images::ImageReport;
use super::ledger::ContextUsage;
use super::prune::PruneReport;
use super::repair::Repair;
use crate::conversation::{Item, SyntheticReason};
use crate::diagnostic::Diagnostic;
use crate::view::codes;
use crate::provider::{Provider, ReasoningCounts, ToolDef};
use crate::tokens::{text_tokens, Family, ItemSize};

/// Returned with every payload.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub provider: Provider,
    pub model: String,
    /// Conversation items given to the build.
    pub items: usize,
    /// Items in the repaired view that was rendered.
    pub view_items: usize,
    /// Length of the serialized request body, in bytes.
    pub bytes: usize,
    pub repairs: Vec<Repair>,
    /// What pruning trimmed and cleared (inactive below the trigger).
    pub pruning: PruneReport,
    /// Image bytes, and images evicted or stripped.
    pub images: ImageReport,
    pub reasoning: ReasoningCounts,
    /// Provider-facing tool-call id → original id, for ids that had to change.
    pub id_map: BTreeMap<String, String>,
    /// Non-object tool inputs wrapped as `{"input": …}` for APIs that need an object.
    pub wrapped_inputs: usize,
    /// Tool-result images moved into a following user message.
    pub moved_images: usize,
    /// Provider-native blocks (server tools' calls and results) another API made, left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_natives: usize,
    /// The API's own blocks of a kind no request takes back (a beta's, or newer than this
    /// version), left out with what they pair with: their kinds, one entry a block.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_natives: Vec<String>,
    /// Anthropic thinking was asked for and left out of this request: the tool loop it
    /// continues was started without thinking (another model, or an answer recorded without it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thinking_suspended: bool,
    /// Content bytes by where they came from.
    pub sources: BySource,
    /// Estimated tokens of this request by source, and the ledger's count of the context.
    pub tokens: TokenReport,
    /// How the body was made in a session: entries whose JSON came from the previous build,
    /// and whether only the appended items were rendered (absent for a first or stateless build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse: Option<ReuseReport>,
    /// How much of the previous request this one repeats byte for byte (session builds only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<PrefixReport>,
    /// What the provider's cache should serve of this request and what its input costs, at the
    /// model's published prices (`crate::cost`); absent for a model no price row covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forecast: Option<Forecast>,
    /// What about this request deserves a word: reasoning that went as text, a request larger
    /// than the window, … (see [`diagnose`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// The session asked the model to go on from an answer that was cut short (a message it
    /// wrote to the log right before this build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continued: Option<Continued>,
    /// What the head budget cut from the first-user prefix this request opens with, and why
    /// (from the log's last heads; builds from a log or a session); in a session's builds also
    /// the reminders this request shortened or held back for the next (section `reminders`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub head_cuts: Vec<crate::update::record::HeadCut>,
    /// The subagents the session started (from its log) and what their requests used: their
    /// share of the session's cost, beside this request's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagents: Option<SubagentsReport>,
}

/// A message asking the model to go on from a cut-short answer (AutoContinue, AutoRecovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Continued {
    pub reason: ContinuedReason,
    /// The `answer_end` record of the answer it continues.
    pub answer_seq: u64,
    /// The record the message was written as.
    pub seq: u64,
}

/// What cut the answer short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum ContinuedReason {
    /// The output token limit (AutoContinue).
    OutputLimit,
    /// A dropped connection, or an error after part of it arrived (AutoRecovery).
    Interrupted,
}

/// A request's predicted cache use and input cost (filled by the caller that knows prices).
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    /// Input tokens the provider's cache should serve.
    pub cache_read: u64,
    /// Input tokens this request writes to the cache.
    pub cache_written: u64,
    /// Input tokens processed afresh.
    pub uncached: u64,
    /// The input's cost in US dollars (the answer's output is not known yet).
    pub input_dollars: f64,
    /// The price row used (`claude-sonnet-4`, `gpt-5`, …) and when its prices were read.
    pub priced_as: String,
    pub prices_as_of: String,
}

/// What a finished report says that a host should hear of:
/// - `reasoning.downgraded`: reasoning another provider or model made went as framed text;
/// - `reasoning.dropped`: reasoning that could go neither natively nor as text was left out;
/// - `natives.dropped`: another API's server-tool blocks were left out;
/// - `natives.unknown_kind`: the API's own blocks of a kind no request takes were left out;
/// - `thinking.suspended`: Anthropic thinking left out of a request whose tool loop began without it;
/// - `context.over_window`: the context (the ledger's count) is larger than the model's window.
pub fn diagnose(report: &Report) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let r = &report.reasoning;
    let foreign = r.downgraded.saturating_sub(r.own_as_text);
    if foreign > 0 {
        out.push(Diagnostic::new(
            &codes::REASONING_DOWNGRADED,
            format!("{foreign} reasoning block(s) another provider or model made went to {} {} as text", report.provider, report.model),
        ));
    }
    if r.own_as_text > 0 {
        let why = if report.provider == crate::provider::Provider::OpenAiChat {
            "Chat Completions takes no reasoning back"
        } else {
            "they lack the signature or encrypted content the API checks"
        };
        out.push(Diagnostic::new(
            &codes::REASONING_DOWNGRADED,
            format!("{} reasoning block(s) {} {} made itself went back as text: {why}", r.own_as_text, report.provider, report.model),
        ));
    }
    if r.dropped > 0 {
        out.push(Diagnostic::new(&codes::REASONING_DROPPED, format!("{} reasoning block(s) {} cannot take back were left out", r.dropped, report.provider)));
    }
    if report.dropped_natives > 0 {
        out.push(Diagnostic::new(
            &codes::NATIVES_DROPPED,
            format!("{} server-tool block(s) another API made were left out", report.dropped_natives),
        ));
    }
    if !report.unknown_natives.is_empty() {
        let mut kinds: Vec<&str> = Vec::new();
        for kind in &report.unknown_natives {
            if !kinds.contains(&kind.as_str()) {
                kinds.push(kind);
            }
        }
        out.push(Diagnostic::new(
            &codes::NATIVES_UNKNOWN_KIND,
            format!(
                "{} block(s) of a kind no {} request takes back ({}) were left out, with the calls or results they pair with; the log keeps them",
                report.unknown_natives.len(),
                report.provider,
                kinds.join(", ")
            ),
        ));
    }
    if report.thinking_suspended {
        out.push(Diagnostic::new(
            &codes::THINKING_SUSPENDED,
            "thinking is on, but the tool loop this request continues began without a thinking block (another model's turn, or one recorded without its thinking), which Anthropic refuses: this request goes without thinking, and it comes back with the next prompt",
        ));
    }
    let c = &report.tokens.context;
    if c.size > 0 && c.used > c.size {
        out.push(Diagnostic::new(
            &codes::CONTEXT_OVER_WINDOW,
            format!("the context holds about {} tokens, more than the model's window of {}: prune harder or compact before sending", c.used, c.size),
        ));
    }
    out
}

/// Content of the request by source — bytes (text and data as written, before JSON framing) in
/// `sources`, estimated tokens (framing included) in `tokens.bySource`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct BySource {
    pub system: u64,
    pub tools: u64,
    /// The first-user prefix: the session's environment, rules, skills listing, MCP servers.
    pub prefix: u64,
    /// What people typed.
    pub user: u64,
    /// Synthetic user messages: reminders, interjections, subagent results.
    pub reminders: u64,
    /// Compaction summaries.
    pub summaries: u64,
    pub assistant: u64,
    pub reasoning: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub images: u64,
}

impl std::ops::Add for BySource {
    type Output = BySource;

    fn add(self, b: BySource) -> BySource {
        BySource {
            system: self.system + b.system,
            tools: self.tools + b.tools,
            prefix: self.prefix + b.prefix,
            user: self.user + b.user,
            reminders: self.reminders + b.reminders,
            summaries: self.summaries + b.summaries,
            assistant: self.assistant + b.assistant,
            reasoning: self.reasoning + b.reasoning,
            tool_calls: self.tool_calls + b.tool_calls,
            tool_results: self.tool_results + b.tool_results,
            images: self.images + b.images,
        }
    }
}

impl BySource {
    pub fn total(&self) -> u64 {
        let BySource { system, tools, prefix, user, reminders, summaries, assistant, reasoning, tool_calls, tool_results, images } = self;
        system + tools + prefix + user + reminders + summaries + assistant + reasoning + tool_calls + tool_results + images
    }
}

/// Tokens: this request's estimate by source, and the context as the ledger counts it.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct TokenReport {
    /// Estimated tokens of this request (after pruning and image eviction).
    pub request: u64,
    pub by_source: BySource,
    /// The context as the ledger counts it, following this view (what pruning and eviction
    /// left out taken off): what thresholds are measured on.
    pub context: ContextUsage,
}

/// What a session build reused from the one before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ReuseReport {
    /// Conversation entries in the body.
    pub entries: usize,
    /// Of those, entries serialized by an earlier build.
    pub reused_entries: usize,
    /// Only the items appended since the last build went through the pipeline.
    pub appended_only: bool,
}

/// The request against the one built before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PrefixReport {
    pub previous_bytes: usize,
    /// Leading bytes identical to the previous request's body.
    pub shared_bytes: usize,
    /// The previous body, less its closing brackets, is a prefix of this one: nothing it sent
    /// was rewritten (a provider cache keeps working).
    pub extends_previous: bool,
    /// Bytes of the previous body (less its closing brackets) after the shared prefix: what
    /// this request rewrote (0 when it extends the previous one).
    pub rewritten_bytes: usize,
    /// What rewrote them, when a session knows (absent when nothing was rewritten).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<RewriteCause>,
}

/// Why a request rewrote part of the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum RewriteCause {
    /// A compaction replaced the history with its summary (and fresh heads).
    Compaction,
    /// The conversation was rewound to an earlier prompt.
    Rewind,
    /// The prompt heads changed (a model switch re-rendered the system prompt).
    Heads,
    /// A pruning boundary moved: a batch of old tool results was trimmed or cleared.
    Pruning,
    /// Anything else: images evicted or stripped, other build options.
    Other,
}

impl PrefixReport {
    /// What `body` repeats of `previous`, the last body sent.
    pub fn between(previous: &str, body: &str) -> PrefixReport {
        let (previous, body) = (previous.as_bytes(), body.as_bytes());
        let shared = common_prefix(previous, body);
        // The previous body without its closing brackets: what a request must repeat to extend it.
        let stem = previous.len() - previous.iter().rev().take_while(|b| **b == b'}' || **b == b']').count();
        PrefixReport {
            previous_bytes: previous.len(),
            shared_bytes: shared,
            extends_previous: shared >= stem,
            rewritten_bytes: stem.saturating_sub(shared),
            cause: None,
        }
    }

    /// A body that is the previous one (of `previous_bytes`) with entries appended: it repeats
    /// all of it but the closing `]}`.
    pub fn appended(previous_bytes: usize) -> PrefixReport {
        PrefixReport { previous_bytes, shared_bytes: previous_bytes.saturating_sub(2), extends_previous: true, rewritten_bytes: 0, cause: None }
    }
}

/// Length of the common prefix of two byte strings: whole blocks compared at once (`memcmp`),
/// then bytes within the first block that differs.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let len = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= len && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..len].iter().zip(&b[at..len]).take_while(|(x, y)| x == y).count()
}

/// Bytes and estimated tokens of a view by source, in one pass.
pub fn by_source(view: &[&Item], system: Option<&str>, tools: &[ToolDef], family: Family, size: &dyn Fn(&Item) -> ItemSize) -> (BySource, BySource) {
    let mut bytes = BySource {
        system: system.map_or(0, str::len) as u64,
        tools: tools
            .iter()
            .map(|t| t.name.len() + t.description.as_ref().map_or(0, String::len) + t.input_schema.to_string().len())
            .sum::<usize>() as u64,
        ..BySource::default()
    };
    let mut tokens = BySource {
        system: system.map_or(0.0, |s| text_tokens(s, family)).round() as u64,
        tools: super::ledger::head_tokens(None, tools, family),
        ..BySource::default()
    };
    for &item in view {
        let n = size(item);
        let (b, t) = match item {
            Item::User(m) => match m.synthetic {
                None => (&mut bytes.user, &mut tokens.user),
                Some(SyntheticReason::Compaction) => (&mut bytes.summaries, &mut tokens.summaries),
                Some(SyntheticReason::Prefix) => (&mut bytes.prefix, &mut tokens.prefix),
                Some(
                    SyntheticReason::SystemReminder
                    | SyntheticReason::Interjection
                    | SyntheticReason::SubagentCompletion
                    | SyntheticReason::AutoContinue
                    | SyntheticReason::AutoRecovery,
                ) => {
                    (&mut bytes.reminders, &mut tokens.reminders)
                }
            },
            Item::Assistant(_) => (&mut bytes.assistant, &mut tokens.assistant),
            Item::Reasoning(_) => (&mut bytes.reasoning, &mut tokens.reasoning),
            // A server tool's call or result counts with the calls the model made.
            Item::ToolCall(_) | Item::Native(_) => (&mut bytes.tool_calls, &mut tokens.tool_calls),
            Item::ToolResult(_) => (&mut bytes.tool_results, &mut tokens.tool_results),
        };
        // Images are their own source: their bytes and tokens leave the item's bucket.
        *b += n.bytes - n.image_bytes;
        *t += n.tokens - n.image_tokens;
        bytes.images += n.image_bytes;
        tokens.images += n.image_tokens;
    }
    (bytes, tokens)
}

/// A session's subagents in a build's report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct SubagentsReport {
    pub started: usize,
    pub running: usize,
    pub failed: usize,
    /// Their requests' usage together (as each reported at its end).
    pub spent: crate::update::record::Spent,
}

impl SubagentsReport {
    /// The report of a log's subagents; `None` when it started none.
    pub fn of(links: &[crate::update::replay::SubagentLink]) -> Option<SubagentsReport> {
        use crate::update::record::SubagentStatus;
        if links.is_empty() {
            return None;
        }
        let mut report = SubagentsReport { started: links.len(), ..SubagentsReport::default() };
        for link in links {
            match link.status {
                SubagentStatus::Running => report.running += 1,
                SubagentStatus::Failed => report.failed += 1,
                SubagentStatus::Completed => {}
            }
            if let Some(spent) = &link.usage {
                report.spent.add(spent);
            }
        }
        Some(report)
    }
}


#[cfg(test)]
mod tests {
    use super::common_prefix;

    #[test]
    fn common_prefix_is_exact_around_block_edges() {
        let a = vec![7u8; 1000];
        for split in [0, 1, 255, 256, 257, 511, 512, 999] {
            let mut b = a.clone();
            b[split] = 8;
            assert_eq!(common_prefix(&a, &b), split);
        }
        assert_eq!(common_prefix(&a, &a[..600]), 600);
        assert_eq!(common_prefix(&a, &a), 1000);
        assert_eq!(common_prefix(b"", &a), 0);
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
