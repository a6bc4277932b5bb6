//! pi session JSONL → our log.
//!
//! The first line is a `session` header. Version 1 files are a linear list of entries; from
//! version 2 on, entries form a tree through `id` / `parentId` and the newest entry's branch is
//! the live one (see [`super::tree`]). Messages carry their provider, model, usage and stop
//! reason; tool results, shell runs the user made (`bashExecution`), extension messages and
//! branch / compaction summaries all reach the model as pi sends them. A `compaction` entry
//! keeps everything from `firstKeptEntryId` on (version 1: from `firstKeptEntryIndex`, an index
//! into the file's parsed lines with the header at 0). A response that ended in an error or was
//! aborted is left out, as pi never sends it again (counted as unmapped).

use serde_json::Value;

use super::tree::TreePath;
use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder, Written};
use crate::lines::ParsedLine;
use crate::report::Imported;
use contextview::conversation::SyntheticReason;
use contextview::diagnostic::Diagnostic;
use crate::codes;
use contextview::update::acp::{ContentBlock, ProviderMeta, ToolCallContent};
use contextview::update::record::{CompactionCheckpoint, Event, ModelSwitch, UsageAnchor};

/// Reads a session a line at a time: what it writes for a line never depends on a later one.
#[derive(Default)]
pub struct Reader {
    tree: TreePath,
    previous: Option<String>,
    /// Line numbers of the lines pi counts as entries (every line that parses, the header at
    /// index 0): a version 1 compaction names the first entry it keeps by this index.
    parsed_lines: Vec<usize>,
}

impl crate::emit::LineReader for Reader {
    fn line(&mut self, written: &mut Written, line: usize, parsed: Result<Value, String>) {
        if parsed.is_ok() {
            self.parsed_lines.push(line);
        }
        let Some(value) = written.out.object(line, parsed) else { return };
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        if kind == "session" {
            written.header.session_id = value.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
            written.header.cwd = value.get("cwd").and_then(Value::as_str).map(str::to_owned);
            written.header.created_at = value.get("timestamp").and_then(Value::as_str).map(str::to_owned);
            if let (Some(provider), Some(model)) =
                (value.get("provider").and_then(Value::as_str), value.get("modelId").and_then(Value::as_str))
            {
                written.out.event(Event::ModelSwitch(ModelSwitch { provider: provider.to_owned(), model: model.to_owned(), context_window: None }));
            }
            return;
        }
        // Version 1 entries have no ids: each hangs off the one before.
        let id = value.get("id").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| format!("line-{line}"));
        let parent = match value.get("parentId") {
            Some(Value::String(p)) => Some(p.clone()),
            Some(Value::Null) => None,
            _ => self.previous.clone(),
        };
        self.previous = Some(id.clone());
        let first_kept_id = match (value.get("firstKeptEntryId").and_then(Value::as_str), value.get("firstKeptEntryIndex").and_then(Value::as_u64)) {
            (Some(id), _) => Some(id.to_owned()),
            // Version 1: an index into the parsed lines; index 0 (the header) keeps nothing.
            (None, Some(index)) => usize::try_from(index).ok().filter(|&i| i > 0).and_then(|i| self.parsed_lines.get(i)).map(|l| format!("line-{l}")),
            (None, None) => None,
        };
        let names_kept = value.get("firstKeptEntryId").is_some() || value.get("firstKeptEntryIndex").is_some();
        let first_kept = first_kept_id.as_deref().and_then(|k| self.tree.first_seq(k));
        if matches!(kind.as_str(), "thinking_level_change" | "custom" | "label") {
            // State for pi's own UI and extensions: nothing the model sees.
            written.out.unmapped(&kind);
            self.tree.alias(&id, parent.as_deref());
            return;
        }
        self.tree.entry(&mut written.out, line, &id, parent.as_deref(), None, |out| match kind.as_str() {
            "message" => match value.get("message") {
                Some(message) => message_entry(out, line, &id, message),
                None => out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, "message entry has no message"),
            },
            "model_change" => match (value.get("provider").and_then(Value::as_str), value.get("modelId").and_then(Value::as_str)) {
                (Some(provider), Some(model)) => {
                    out.event(Event::ModelSwitch(ModelSwitch { provider: provider.to_owned(), model: model.to_owned(), context_window: None }));
                }
                _ => out.bad_line(line, &codes::IMPORT_BAD_ENTRY, "model_change without provider and modelId"),
            },
            "compaction" => {
                let summary = value.get("summary").and_then(Value::as_str).unwrap_or("").to_owned();
                let seq = out.next_seq();
                let first_kept_seq = first_kept.unwrap_or_else(|| {
                    if names_kept {
                        out.diagnostic(
                            Diagnostic::new(
                                &codes::IMPORT_COMPACTION_KEEPS_UNKNOWN_ENTRY,
                                "compaction keeps from an entry not on the current branch; nothing before it is kept",
                            )
                            .at_line(line),
                        );
                    }
                    seq + 1
                });
                let tokens_before = value.get("tokensBefore").and_then(Value::as_u64);
                out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq, tokens_before, summary_tokens: None, trim_kept_over: None }));
            }
            "branch_summary" => {
                let summary = value.get("summary").and_then(Value::as_str).unwrap_or("");
                synthetic(out, &id, &branch_summary_text(summary), SyntheticReason::SystemReminder);
            }
            "custom_message" => {
                synthetic_content(out, line, &id, value.get("content"), SyntheticReason::SystemReminder);
            }
            "session_info" => {
                if let Some(name) = value.get("name").and_then(Value::as_str) {
                    out.other_update(serde_json::json!({"sessionUpdate": "session_info_update", "title": name}));
                }
            }
            other => out.unmapped(if other.is_empty() { "untyped" } else { other }),
        });
    }
}

/// Imports a session's lines, each parsed once ([`crate::lines::json_lines`]).
pub fn import(lines: Vec<ParsedLine>) -> Imported {
    crate::emit::read_lines(&mut Reader::default(), Written::new(None), lines)
}

fn branch_summary_text(summary: &str) -> String {
    format!("The conversation came back from another branch. A summary of that branch:\n\n{summary}")
}

fn synthetic(out: &mut LogBuilder, id: &str, text: &str, reason: SyntheticReason) {
    let meta = ProviderMeta { synthetic: Some(reason), ..ProviderMeta::default() };
    out.chunk(Stream::User, id, ContentBlock::text(text), &meta);
}

fn synthetic_content(out: &mut LogBuilder, line: usize, id: &str, content: Option<&Value>, reason: SyntheticReason) {
    let meta = ProviderMeta { synthetic: Some(reason), ..ProviderMeta::default() };
    user_content(out, line, id, content, &meta);
}

fn user_content(out: &mut LogBuilder, line: usize, id: &str, content: Option<&Value>, meta: &ProviderMeta) {
    match content {
        Some(Value::String(text)) => {
            out.chunk(Stream::User, id, ContentBlock::text(text.clone()), meta);
        }
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => {
                        out.chunk(Stream::User, id, ContentBlock::text(block.get("text").and_then(Value::as_str).unwrap_or("")), meta);
                    }
                    "image" => {
                        let data = block.get("data").and_then(Value::as_str).unwrap_or("");
                        let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("image/png");
                        let image = image_block(data, mime, line, out);
                        out.chunk(Stream::User, id, image, meta);
                    }
                    other => out.unmapped(&format!("user_block:{other}")),
                }
            }
        }
        _ => out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, "message has no content"),
    }
}

fn message_entry(out: &mut LogBuilder, line: usize, id: &str, message: &Value) {
    match message.get("role").and_then(Value::as_str).unwrap_or("") {
        "user" => user_content(out, line, id, message.get("content"), &ProviderMeta::default()),
        "assistant" => assistant(out, line, id, message),
        "toolResult" => tool_result(out, line, message),
        "bashExecution" => {
            if message.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                out.unmapped("bashExecution:excluded_from_context");
                return;
            }
            let command = message.get("command").and_then(Value::as_str).unwrap_or("");
            let output = message.get("output").and_then(Value::as_str).unwrap_or("");
            let exit = message.get("exitCode").and_then(Value::as_i64).map_or_else(|| "unknown".to_owned(), |c| c.to_string());
            let text = format!("Ran `{command}` (exit code {exit}):\n```\n{output}\n```");
            synthetic(out, id, &text, SyntheticReason::Interjection);
        }
        "custom" | "hookMessage" => synthetic_content(out, line, id, message.get("content"), SyntheticReason::SystemReminder),
        "branchSummary" => {
            let summary = message.get("summary").and_then(Value::as_str).unwrap_or("");
            synthetic(out, id, &branch_summary_text(summary), SyntheticReason::SystemReminder);
        }
        "compactionSummary" => {
            let summary = message.get("summary").and_then(Value::as_str).unwrap_or("");
            synthetic(out, id, summary, SyntheticReason::Compaction);
        }
        other => out.unmapped(&format!("message:{}", if other.is_empty() { "untyped" } else { other })),
    }
}

fn assistant(out: &mut LogBuilder, line: usize, id: &str, message: &Value) {
    let provider = message.get("provider").and_then(Value::as_str).map(str::to_owned);
    let model = message.get("model").and_then(Value::as_str).map(str::to_owned);
    let api = message.get("api").and_then(Value::as_str).unwrap_or("");
    let stop_reason = message.get("stopReason").and_then(Value::as_str).map(str::to_owned);
    let base = ProviderMeta { provider: provider.clone(), model: model.clone(), ..ProviderMeta::default() };
    let blocks = message.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    // pi never sends a response that failed or was aborted to a model again.
    if let Some(reason @ ("error" | "aborted")) = stop_reason.as_deref() {
        out.unmapped(&format!("assistant:{reason}"));
        return;
    }
    if blocks.is_empty() {
        out.unmapped(&format!("assistant:empty_{}", stop_reason.as_deref().unwrap_or("unknown")));
    }
    for block in &blocks {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                let meta = ProviderMeta { stop_reason: stop_reason.clone(), ..base.clone() };
                out.chunk(Stream::Agent, id, ContentBlock::text(block.get("text").and_then(Value::as_str).unwrap_or("")), &meta);
            }
            "thinking" => {
                let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                let signature = block.get("thinkingSignature").and_then(Value::as_str).filter(|s| !s.is_empty());
                let mut meta = base.clone();
                match (api, signature) {
                    // pi keeps the whole Responses reasoning item as JSON in the signature.
                    ("openai-responses", Some(sig)) => {
                        if let Ok(item) = serde_json::from_str::<Value>(sig) {
                            meta.reasoning_id = item.get("id").and_then(Value::as_str).map(str::to_owned);
                            meta.encrypted = item.get("encrypted_content").and_then(Value::as_str).map(str::to_owned);
                        }
                    }
                    (_, sig) => meta.signature = sig.map(str::to_owned),
                }
                out.chunk(Stream::Thought, id, ContentBlock::text(text), &meta);
            }
            "toolCall" => {
                let call_id = block.get("id").and_then(Value::as_str).unwrap_or("");
                let name = block.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                if call_id.is_empty() {
                    out.bad_line(line, &codes::IMPORT_BAD_TOOL_CALL, "toolCall has no id");
                    continue;
                }
                // pi joins the Responses call id and item id with `|`; the call id is what results name.
                let provider_call_id = call_id.split_once('|').map(|(c, _)| c.to_owned());
                let meta = ProviderMeta { tool_name: Some(name.clone()), provider_call_id, ..base.clone() };
                out.tool_call(call_id.to_owned(), &name, block.get("arguments").cloned(), meta);
            }
            other => out.unmapped(&format!("assistant_block:{other}")),
        }
    }
    if let Some(usage) = message.get("usage") {
        let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        if n("input") + n("output") + n("cacheRead") + n("cacheWrite") > 0 {
            let cached = n("cacheRead");
            let input = if input_includes_cache_reads(usage, api, message.get("timestamp").and_then(Value::as_u64)) {
                n("input").saturating_sub(cached)
            } else {
                n("input")
            };
            out.event(Event::UsageAnchor(UsageAnchor {
                provider,
                model,
                input_tokens: input,
                output_tokens: n("output"),
                cache_read_tokens: cached,
                cache_write_tokens: n("cacheWrite"),
                reasoning_tokens: None,
                omitted_tokens: Some(0),
                head_tokens: None,
                counted: None,
            }));
        }
    }
}

fn tool_result(out: &mut LogBuilder, line: usize, message: &Value) {
    let Some(call_id) = message.get("toolCallId").and_then(Value::as_str) else {
        out.bad_line(line, &codes::IMPORT_BAD_TOOL_RESULT, "toolResult has no toolCallId");
        return;
    };
    let mut content = Vec::new();
    for block in message.get("content").and_then(Value::as_array).into_iter().flatten() {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => content.push(ToolCallContent::Content {
                content: ContentBlock::text(block.get("text").and_then(Value::as_str).unwrap_or("")),
                meta: None,
            }),
            "image" => {
                let data = block.get("data").and_then(Value::as_str).unwrap_or("");
                let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("image/png");
                content.push(ToolCallContent::Content { content: image_block(data, mime, line, out), meta: None });
            }
            other => out.unmapped(&format!("tool_result_block:{other}")),
        }
    }
    let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
    out.tool_result(call_id, content, failed, message.get("details").cloned());
}

/// When pi's `input` counts the cache reads too. pi means it as the fresh input, and says so
/// from 2025-12-03 on for the OpenAI APIs; before that they stored the API's prompt count, which
/// includes cached tokens, and its Google providers did so for longer. Where `totalTokens` is
/// recorded, the parts adding up to more than the total shows it; older OpenAI messages (no
/// `totalTokens`, written before the change) include them.
fn input_includes_cache_reads(usage: &Value, api: &str, timestamp_ms: Option<u64>) -> bool {
    /// 2025-12-03T00:00:00Z, when pi began to subtract cached tokens for the OpenAI APIs.
    const OPENAI_FRESH_INPUT_SINCE_MS: u64 = 1_764_720_000_000;
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cacheRead");
    if cached == 0 || n("input") < cached {
        return false;
    }
    match usage.get("totalTokens").and_then(Value::as_u64).filter(|t| *t > 0) {
        Some(total) => n("input") + n("output") + cached + n("cacheWrite") > total,
        None => api.starts_with("openai") && timestamp_ms.is_some_and(|t| t < OPENAI_FRESH_INPUT_SINCE_MS),
    }
}
