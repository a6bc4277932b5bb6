//! The build report: what a request contains and what the pipeline did to get there.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::images::ImageReport;
use super::prune::PruneReport;
use super::repair::Repair;
use crate::provider::{Provider, ReasoningCounts};

/// Returned with every payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
    /// Content bytes by where they came from.
    pub sources: SourceBytes,
    /// How much of the previous request this one repeats byte for byte (session builds only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<PrefixReport>,
}

/// Bytes of content in the request by source (text and data as written, before JSON framing).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceBytes {
    pub system: usize,
    pub tools: usize,
    /// What people typed.
    pub user: usize,
    /// Synthetic user messages: reminders, interjections, subagent results.
    pub reminders: usize,
    /// Compaction summaries.
    pub summaries: usize,
    pub assistant: usize,
    pub reasoning: usize,
    pub tool_calls: usize,
    pub tool_results: usize,
    pub images: usize,
}

/// The request against the one built before it.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrefixReport {
    pub previous_bytes: usize,
    /// Leading bytes identical to the previous request's body.
    pub shared_bytes: usize,
    /// The previous body, less its closing brackets, is a prefix of this one: nothing it sent
    /// was rewritten (a provider cache keeps working).
    pub extends_previous: bool,
}

impl PrefixReport {
    pub fn between(previous: &str, body: &str) -> PrefixReport {
        let shared = previous.bytes().zip(body.bytes()).take_while(|(a, b)| a == b).count();
        let stem = previous.trim_end_matches(['}', ']']).len();
        PrefixReport { previous_bytes: previous.len(), shared_bytes: shared, extends_previous: shared >= stem }
    }
}

/// Content bytes of a view by source.
pub fn source_bytes(view: &[&crate::conversation::Item], system: Option<&str>, tools: &[crate::provider::ToolDef]) -> SourceBytes {
    use crate::conversation::{Item, Part, SyntheticReason};
    let mut bytes = SourceBytes {
        system: system.map_or(0, str::len),
        tools: tools.iter().map(|t| t.name.len() + t.description.as_ref().map_or(0, String::len) + t.input_schema.to_string().len()).sum(),
        ..SourceBytes::default()
    };
    let parts = |parts: &[Part], text_bucket: &mut usize, images: &mut usize| {
        for part in parts {
            match part {
                Part::Text { text } => *text_bucket += text.len(),
                Part::Image(image) => *images += super::images::image_bytes(image) as usize,
            }
        }
    };
    for item in view {
        match item {
            Item::User(m) => {
                let bucket = match m.synthetic {
                    None => &mut bytes.user,
                    Some(SyntheticReason::Compaction) => &mut bytes.summaries,
                    Some(SyntheticReason::SystemReminder | SyntheticReason::Interjection | SyntheticReason::SubagentCompletion) => &mut bytes.reminders,
                };
                parts(&m.content, bucket, &mut bytes.images);
            }
            Item::Assistant(a) => bytes.assistant += a.text.len(),
            Item::Reasoning(r) => bytes.reasoning += r.text.len(),
            Item::ToolCall(c) => bytes.tool_calls += c.name.len() + c.input.to_string().len(),
            Item::ToolResult(r) => parts(&r.content, &mut bytes.tool_results, &mut bytes.images),
        }
    }
    bytes
}
