//! A session the CLI brought in from its older format (`session.import_legacy`, written by
//! 1.0.10 to 1.0.40 when it resumed a `history-session-state/session_<id>_<time>.json`): the old
//! session's `chatMessages`, OpenAI Chat Completions messages, are the model's history from then
//! on — the CLI put them in place of what it held, system messages included (1.0.55 stopped
//! reading them). Read here as the CLI replayed them: the system and developer messages as the
//! prompt's head, then each user, assistant and tool message in order.

use serde_json::Value;

use contextview::update::acp::{ContentBlock, ProviderMeta, Stream, ToolCallContent};
use contextview::update::record::{Event, PromptHeadSnapshot};

use crate::emit::{image_block, LogBuilder};

/// Writes the messages of `legacy` (an event's `data.legacySession`), the event's `id` naming
/// them; whether any was a prompt.
pub(super) fn import(out: &mut LogBuilder, line: usize, id: &str, legacy: &Value, answer: &ProviderMeta) -> bool {
    let messages = messages(legacy);
    let system: Vec<String> = messages.iter().filter(|m| matches!(role(m), "system" | "developer")).map(|m| text(m.get("content"))).collect();
    if !system.is_empty() {
        out.event(Event::PromptHeadSnapshot(PromptHeadSnapshot { system: system.join("\n\n"), first_user_prefix: String::new(), cuts: Vec::new() }));
    }
    for (i, message) in messages.iter().enumerate() {
        let message_id = format!("{id}/{i}");
        match role(message) {
            "system" | "developer" => {}
            "user" => user(out, line, &message_id, message.get("content")),
            "assistant" => assistant(out, &message_id, message, answer),
            "tool" => match message.get("tool_call_id").and_then(Value::as_str) {
                Some(call) => {
                    let content = vec![ToolCallContent::Content { content: ContentBlock::text(text(message.get("content"))), meta: None }];
                    out.tool_result(call, content, false, None);
                }
                None => out.unmapped("legacy:tool_without_call"),
            },
            other => out.unmapped(&format!("legacy:{}", if other.is_empty() { "untyped" } else { other })),
        }
    }
    messages.iter().any(|m| role(m) == "user")
}

/// The old session's messages.
pub(crate) fn messages(legacy: &Value) -> &[Value] {
    legacy.get("chatMessages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

pub(crate) fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// A message's text: its content as a string, or its text parts one after another.
pub(crate) fn text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts.iter().filter(|p| p.get("type").and_then(Value::as_str) == Some("text")).filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

/// An `image_url` part's image, when it is given as data (`data:<type>;base64,<bytes>`).
pub(crate) fn data_image(part: &Value) -> Option<(&str, &str)> {
    let url = part.pointer("/image_url/url").and_then(Value::as_str)?;
    let (mime, bytes) = url.strip_prefix("data:")?.split_once(";base64,")?;
    Some((bytes, mime))
}

fn user(out: &mut LogBuilder, line: usize, id: &str, content: Option<&Value>) {
    let meta = ProviderMeta::default();
    let Some(Value::Array(parts)) = content else {
        out.chunk(Stream::User, id, ContentBlock::text(text(content)), &meta);
        return;
    };
    for part in parts {
        match part.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                out.chunk(Stream::User, id, ContentBlock::text(part.get("text").and_then(Value::as_str).unwrap_or("")), &meta);
            }
            "image_url" => match data_image(part) {
                Some((bytes, mime)) => {
                    let image = image_block(bytes, mime, line, out);
                    out.chunk(Stream::User, id, image, &meta);
                }
                // An address the model's provider fetched: not in the file.
                None => out.unmapped("legacy:image_url"),
            },
            other => out.unmapped(&format!("legacy:part:{other}")),
        }
    }
}

/// What an assistant message said: its text, or its refusal.
pub(crate) fn said(message: &Value) -> String {
    text(message.get("content")) + message.get("refusal").and_then(Value::as_str).unwrap_or("")
}

fn assistant(out: &mut LogBuilder, id: &str, message: &Value, answer: &ProviderMeta) {
    let said = said(message);
    if !said.trim().is_empty() {
        out.chunk(Stream::Agent, id, ContentBlock::text(said), answer);
    }
    for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let Some(call_id) = call.get("id").and_then(Value::as_str).filter(|c| !c.is_empty()) else {
            out.unmapped("legacy:tool_call_without_id");
            continue;
        };
        // A function's arguments are JSON in a string; a custom tool's input is text.
        let (name, input) = match (call.get("function"), call.get("custom")) {
            (Some(f), _) => {
                let arguments = f.get("arguments").and_then(Value::as_str).unwrap_or("");
                (f.get("name"), serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned())))
            }
            (None, Some(c)) => (c.get("name"), c.get("input").cloned().unwrap_or(Value::Null)),
            (None, None) => (None, Value::Null),
        };
        let name = name.and_then(Value::as_str).unwrap_or("");
        let meta = ProviderMeta { tool_name: Some(name.to_owned()), ..answer.clone() };
        out.tool_call(call_id.to_owned(), name, Some(input), meta);
    }
}
