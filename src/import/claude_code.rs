//! Claude Code project session JSONL → our log.
//!
//! Lines are tree entries linked by `parentUuid`; the newest entry's branch is the live one, and
//! earlier branches (rewinds, edits of an earlier prompt) become `rewind` records (see
//! [`super::tree`]). One API message may span several lines (one per content block) sharing
//! `message.id`, which becomes the ACP `messageId`. A `compact_boundary` system line followed
//! by an `isCompactSummary` user line becomes a compaction checkpoint. Sidechain lines (a
//! subagent's own transcript) and UI-only lines are counted as unmapped.

use serde_json::Value;

use super::tree::TreePath;
use super::{image_block, json_lines, Imported, LogBuilder, Stream};
use crate::conversation::SyntheticReason;
use crate::diagnostic::{Diagnostic, Severity};
use crate::update::acp::{ContentBlock, ProviderMeta, ToolCallContent};
use crate::update::record::{CompactionCheckpoint, Event, Header, UsageAnchor};

pub fn import(text: &str) -> Imported {
    let mut out = LogBuilder::new();
    let mut tree = TreePath::default();
    let mut header = Header::new("");
    let mut pending_compaction: Option<Option<u64>> = None;
    let mut last_usage_message: Option<(String, u64)> = None;

    for (line, parsed) in json_lines(text) {
        let Some(value) = out.object(line, parsed) else { continue };
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        if header.session_id.is_empty() {
            if let Some(id) = value.get("sessionId").and_then(Value::as_str) {
                header.session_id = id.to_owned();
            }
        }
        if header.cwd.is_none() {
            header.cwd = value.get("cwd").and_then(Value::as_str).map(str::to_owned);
        }
        if header.created_at.is_none() {
            header.created_at = value.get("timestamp").and_then(Value::as_str).map(str::to_owned);
        }

        if kind == "summary" {
            if let Some(title) = value.get("summary").and_then(Value::as_str) {
                out.other_update(serde_json::json!({"sessionUpdate": "session_info_update", "title": title}));
            }
            continue;
        }
        if value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            out.unmapped("sidechain");
            continue;
        }
        let Some(uuid) = value.get("uuid").and_then(Value::as_str) else {
            out.unmapped(if kind.is_empty() { "untyped" } else { &kind });
            continue;
        };
        let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
        // A compact boundary cuts the parent chain; its logical parent continues the branch.
        let parent = value
            .get("parentUuid")
            .and_then(Value::as_str)
            .or_else(|| value.get("logicalParentUuid").and_then(Value::as_str));

        match kind.as_str() {
            "user" => tree.entry(&mut out, line, uuid, parent, |out| user_line(out, line, uuid, &value, &mut pending_compaction)),
            "assistant" if value.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) => {
                // An API error shown as an assistant message: the model never said it.
                out.unmapped("api_error_message");
                tree.alias(uuid, parent);
            }
            "assistant" => tree.entry(&mut out, line, uuid, parent, |out| assistant_line(out, line, &value, &mut last_usage_message)),
            "system" if subtype == "compact_boundary" => {
                pending_compaction = Some(value.pointer("/compactMetadata/preTokens").and_then(Value::as_u64));
                tree.alias(uuid, parent);
            }
            "system" => {
                out.unmapped(&format!("system:{}", if subtype.is_empty() { "other" } else { subtype }));
                tree.alias(uuid, parent);
            }
            other => {
                out.unmapped(if other.is_empty() { "untyped" } else { other });
                tree.alias(uuid, parent);
            }
        }
    }
    if let Some(tokens) = pending_compaction {
        out.diagnostic(Diagnostic::new(
            "import.compaction_without_summary",
            Severity::Warning,
            format!("a compact boundary ({} tokens before) has no summary line after it", tokens.unwrap_or(0)),
        ));
    }
    out.finish(header)
}

fn user_line(out: &mut LogBuilder, line: usize, uuid: &str, value: &Value, pending_compaction: &mut Option<Option<u64>>) {
    let content = value.pointer("/message/content");
    if value.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
        let summary = text_of(content);
        let tokens_before = pending_compaction.take().flatten();
        let seq = out.next_seq();
        out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary, first_kept_seq: seq + 1, tokens_before, summary_tokens: None }));
        return;
    }
    let synthetic = (value.get("isMeta").and_then(Value::as_bool) == Some(true)).then_some(SyntheticReason::SystemReminder);
    let meta = ProviderMeta { synthetic, ..ProviderMeta::default() };
    match content {
        Some(Value::String(text)) => {
            out.chunk(Stream::User, uuid, ContentBlock::text(text.clone()), &meta);
        }
        Some(Value::Array(blocks)) => {
            let results = blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")).count();
            for block in blocks {
                match block.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => {
                        let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                        out.chunk(Stream::User, uuid, ContentBlock::text(text), &meta);
                    }
                    "image" => match image_source(block) {
                        Some((data, media_type)) => {
                            let image = image_block(data, media_type, line, out);
                            out.chunk(Stream::User, uuid, image, &meta);
                        }
                        None => out.unmapped("image:non_base64_source"),
                    },
                    "tool_result" => {
                        let raw_output = if results == 1 { value.get("toolUseResult").cloned() } else { None };
                        tool_result(out, line, block, raw_output);
                    }
                    other => out.unmapped(&format!("user_block:{other}")),
                }
            }
        }
        _ => out.bad_line(line, "import.bad_message", "user line has no message.content"),
    }
}

fn tool_result(out: &mut LogBuilder, line: usize, block: &Value, raw_output: Option<Value>) {
    let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
        out.bad_line(line, "import.bad_tool_result", "tool_result has no tool_use_id");
        return;
    };
    let mut content = Vec::new();
    match block.get("content") {
        Some(Value::String(text)) => content.push(ToolCallContent::Content { content: ContentBlock::text(text.clone()), meta: None }),
        Some(Value::Array(parts)) => {
            for part in parts {
                match part.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => content.push(ToolCallContent::Content {
                        content: ContentBlock::text(part.get("text").and_then(Value::as_str).unwrap_or("")),
                        meta: None,
                    }),
                    "image" => match image_source(part) {
                        Some((data, media_type)) => {
                            content.push(ToolCallContent::Content { content: image_block(data, media_type, line, out), meta: None })
                        }
                        None => out.unmapped("image:non_base64_source"),
                    },
                    other => out.unmapped(&format!("tool_result_block:{other}")),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(_) => out.unmapped("tool_result_content:other"),
    }
    let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
    out.tool_result(id, content, failed, raw_output);
}

fn assistant_line(out: &mut LogBuilder, line: usize, value: &Value, last_usage_message: &mut Option<(String, u64)>) {
    let Some(message) = value.get("message") else {
        out.bad_line(line, "import.bad_message", "assistant line has no message");
        return;
    };
    let message_id = message
        .get("id")
        .and_then(Value::as_str)
        .or_else(|| value.get("uuid").and_then(Value::as_str))
        .unwrap_or("")
        .to_owned();
    let model = message.get("model").and_then(Value::as_str).map(str::to_owned);
    let base = ProviderMeta { provider: Some("anthropic".to_owned()), model: model.clone(), ..ProviderMeta::default() };
    let stop_reason = message.get("stop_reason").and_then(Value::as_str).map(str::to_owned);
    let blocks = match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        _ => Vec::new(),
    };
    for block in &blocks {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                let meta = ProviderMeta { stop_reason: stop_reason.clone(), ..base.clone() };
                out.chunk(Stream::Agent, &message_id, ContentBlock::text(text), &meta);
            }
            "thinking" => {
                let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                let signature = block.get("signature").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
                out.chunk(Stream::Thought, &message_id, ContentBlock::text(text), &ProviderMeta { signature, ..base.clone() });
            }
            "redacted_thinking" => {
                let data = block.get("data").and_then(Value::as_str).map(str::to_owned);
                out.chunk(Stream::Thought, &message_id, ContentBlock::text(""), &ProviderMeta { encrypted: data, ..base.clone() });
            }
            "tool_use" => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
                let name = block.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                if id.is_empty() {
                    out.bad_line(line, "import.bad_tool_use", "tool_use has no id");
                    continue;
                }
                out.tool_call(id, &name, block.get("input").cloned(), ProviderMeta { tool_name: Some(name.clone()), ..base.clone() });
            }
            other => out.unmapped(&format!("assistant_block:{other}")),
        }
    }
    // Claude Code writes one line per content block, each with the message's usage so far: the
    // prompt counts repeat and the output count grows. Usage is recorded again whenever it
    // changes, so the last record of a message sits after its last block with the final count.
    if let Some(usage) = message.get("usage") {
        let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        let anchor = UsageAnchor {
            provider: Some("anthropic".to_owned()),
            model,
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            cache_read_tokens: n("cache_read_input_tokens"),
            cache_write_tokens: n("cache_creation_input_tokens"),
        };
        let seen = (message_id.clone(), anchor.output_tokens);
        if last_usage_message.as_ref() != Some(&seen) {
            *last_usage_message = Some(seen);
            out.event(Event::UsageAnchor(anchor));
        }
    }
}

/// `(data, media_type)` of a base64 image block.
fn image_source(block: &Value) -> Option<(&str, &str)> {
    let source = block.get("source")?;
    if source.get("type").and_then(Value::as_str) != Some("base64") {
        return None;
    }
    Some((source.get("data")?.as_str()?, source.get("media_type").and_then(Value::as_str).unwrap_or("image/png")))
}

fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}
