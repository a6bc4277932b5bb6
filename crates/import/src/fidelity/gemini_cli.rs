//! What Gemini CLI's model saw: the recording's messages at its end (read by
//! [`crate::gemini_recording`], as the CLI loads them), turned into the model's history by
//! the CLI's own rules when it resumes (`convertSessionToClientHistory`, core
//! `utils/sessionUtils.ts`):
//! - `info`, `warning` and `error` messages are never sent;
//! - a user message is sent unless its text is empty or starts with `/`, `?`,
//!   `<session_context>` or `<hook_context>` (the environment and hook turns are the CLI's own,
//!   not prompts); one made only of tool responses is those responses; the CLI's own
//!   `Please continue.` turns are sent but are no one's prompt;
//! - a model message is its parts as they are when they hold a `functionCall` or a thought part,
//!   else its thoughts, its text and one `functionCall` per recorded call; each call with a
//!   result is answered by it. Thoughts are left out: for Gemini 2 and later models the CLI
//!   strips thought parts before every request.

use serde_json::Value;

use super::SourceView;
use crate::gemini_recording::{parts, user_text, Recording};

pub fn source_view(recording: &Recording) -> SourceView {
    let mut view = SourceView::default();
    for message in &recording.messages {
        let line = message.line;
        let id = Some(message.id()).filter(|i| !i.is_empty());
        let content = parts(message.value.get("content"));
        match message.kind() {
            "user" => {
                if !content.is_empty() && content.iter().all(|p| p.get("functionResponse").is_some()) {
                    for part in &content {
                        if let Some(call) = part["functionResponse"].get("id").and_then(Value::as_str) {
                            view.result(call);
                        }
                    }
                    continue;
                }
                let text = user_text(&content);
                let trimmed = text.trim();
                let skipped = ["/", "?", "<session_context>", "<hook_context>"].iter().any(|p| trimmed.starts_with(p))
                    // The CLI's own turns after a broken stream or a next-speaker check: sent, but
                    // no one's prompt.
                    || matches!(trimmed, "System: Please continue." | "Please continue.");
                if skipped || (trimmed.is_empty() && content.iter().all(|p| p.get("text").is_some())) {
                    continue;
                }
                view.prompt(line, id, &text);
                images(&mut view, line, &content);
            }
            "gemini" => {
                let modern = content.iter().any(|p| p.get("functionCall").is_some() || p.get("thought").and_then(Value::as_bool) == Some(true));
                for part in &content {
                    if part.get("thought").and_then(Value::as_bool) == Some(true) {
                        continue;
                    }
                    if let Some(text) = part.get("text").and_then(Value::as_str) {
                        view.assistant_text(line, id, text);
                    } else if let (true, Some(call)) = (modern, part.get("functionCall")) {
                        view.call(line, call.get("id").and_then(Value::as_str).unwrap_or(""));
                    }
                }
                for call in message.value.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                    let call_id = call.get("id").and_then(Value::as_str).unwrap_or("");
                    if !modern {
                        view.call(line, call_id);
                    }
                    let result = parts(call.get("result"));
                    if !result.is_empty() {
                        view.result(call_id);
                        images(&mut view, line, &result);
                        for part in &result {
                            let nested = part.get("functionResponse").and_then(|r| r.get("parts")).and_then(Value::as_array);
                            images(&mut view, line, nested.map_or(&[][..], Vec::as_slice));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    view
}

fn images(view: &mut SourceView, line: usize, parts: &[Value]) {
    for part in parts {
        if let Some(data) = part.get("inlineData").filter(|d| d.get("mimeType").and_then(Value::as_str).is_some_and(|m| m.starts_with("image/"))) {
            view.image(line, data.get("data").and_then(Value::as_str).unwrap_or(""));
        }
    }
}
