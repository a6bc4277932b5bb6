//! What Copilot CLI's model saw, by the CLI's own replay of its events (npm `@github/copilot`
//! 1.0.10): a user message is its `transformedContent` (else its `content`) with the images
//! attached as blobs — one typed by no one (autopilot's nudge) is no one's prompt; an assistant
//! message of the main agent is its reasoning text, its text and its tool calls; a tool's
//! completion (not the user's own shell run) answers its call, the first one for a call. A
//! subagent's events (`parentToolCallId`, or an `agentId`) never reach the main model. A
//! compaction replaces what came before its start with its summary; a cleared conversation
//! (`session.context_cleared`) leaves nothing of it. Images (a user's, a tool's) are inline or
//! session assets (`session.binary_asset`, since 1.0.64). A session brought in from the older
//! format (`session.import_legacy`) is its chat messages, in place of what came before.

use serde_json::Value;

use super::SourceView;
use crate::copilot_cli::legacy;
use crate::copilot_cli::{binary_image, keep_asset, Assets};
use crate::lines::ParsedLine;

pub fn source_view(lines: &[ParsedLine]) -> SourceView {
    let mut view = SourceView::default();
    let mut compacted_from: Option<usize> = None;
    let events: Vec<(usize, &Value)> = lines.iter().filter_map(|(line, v)| v.as_ref().ok().filter(|v| v.is_object()).map(|v| (*line, v))).collect();
    // The last successful compaction (what came before its start is its summary now) or clear.
    let mut start_at = 0;
    for (i, (_, event)) in events.iter().enumerate() {
        match event.get("type").and_then(Value::as_str) {
            Some("session.compaction_start") => compacted_from = Some(i),
            Some("session.compaction_complete") if event.pointer("/data/success").and_then(Value::as_bool) == Some(true) => {
                start_at = compacted_from.unwrap_or(i);
            }
            Some("session.context_cleared") => start_at = i + 1,
            // What came before a session brought in from the older format is replaced by it.
            Some("session.import_legacy") if event.pointer("/data/legacySession").is_some_and(Value::is_object) => start_at = i,
            _ => {}
        }
    }
    // Assets as the importer has them: read in order, before the events that name them.
    let mut assets = Assets::new();
    let mut answered = std::collections::HashSet::new();
    for (i, (line, event)) in events.iter().enumerate() {
        let line = *line;
        let data = &event["data"];
        if event.get("type").and_then(Value::as_str) == Some("session.binary_asset") {
            keep_asset(&mut assets, data);
            continue;
        }
        if i < start_at {
            continue;
        }
        if data.get("parentToolCallId").is_some_and(|p| !p.is_null()) || event.get("agentId").is_some_and(Value::is_string) {
            continue;
        }
        let id = event.get("id").and_then(Value::as_str);
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "user.message" => {
                let content = data.get("content").and_then(Value::as_str).unwrap_or("");
                if !content.is_empty() {
                    view.prompt(line, id, data.get("transformedContent").and_then(Value::as_str).unwrap_or(content));
                }
                for a in data.get("attachments").and_then(Value::as_array).into_iter().flatten() {
                    if matches!(a.get("type").and_then(Value::as_str), Some("blob" | "file")) {
                        if let Ok((bytes, _)) = binary_image(a, &assets) {
                            view.image(line, bytes);
                        }
                    }
                }
            }
            "assistant.message" => {
                if let Some(text) = data.get("reasoningText").and_then(Value::as_str) {
                    view.reasoning(line, &[], text);
                }
                view.assistant_text(line, id, data.get("content").and_then(Value::as_str).unwrap_or(""));
                for request in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
                    view.call(line, request.get("toolCallId").and_then(Value::as_str).unwrap_or(""));
                }
            }
            "session.import_legacy" => legacy_view(&mut view, line, &data["legacySession"]),
            "tool.execution_complete" if data.get("isUserRequested").and_then(Value::as_bool) != Some(true) => {
                // The first completion of a call answers it (the importer counts the others).
                if let Some(call) = data.get("toolCallId").and_then(Value::as_str).filter(|c| answered.insert(*c)) {
                    view.result(call);
                    for binary in data.pointer("/result/binaryResultsForLlm").and_then(Value::as_array).into_iter().flatten() {
                        if let Ok((bytes, _)) = binary_image(binary, &assets) {
                            view.image(line, bytes);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    view
}

/// What the model saw of `legacy`'s messages, for the import's report (as [`legacy::import`] reads them).
fn legacy_view(view: &mut SourceView, line: usize, legacy: &Value) {
    for message in legacy::messages(legacy) {
        let content = message.get("content");
        match legacy::role(message) {
            "user" => {
                view.prompt(line, None, &legacy::text(content));
                for part in content.and_then(Value::as_array).into_iter().flatten() {
                    if let Some((bytes, _)) = legacy::data_image(part) {
                        view.image(line, bytes);
                    }
                }
            }
            "assistant" => {
                view.assistant_text(line, None, &legacy::said(message));
                for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                    view.call(line, call.get("id").and_then(Value::as_str).unwrap_or(""));
                }
            }
            "tool" => {
                if let Some(call) = message.get("tool_call_id").and_then(Value::as_str) {
                    view.result(call);
                }
            }
            _ => {}
        }
    }
}
