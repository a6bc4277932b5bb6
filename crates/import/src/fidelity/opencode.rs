//! What an OpenCode session's model saw, by OpenCode's own rules (1.1–1.2): the messages a
//! revert did not hide; from the user message whose summary finished last on
//! (`filterCompacted`); of those, what `toModelMessages` sends — text parts that are not
//! `ignored`, inline images, an assistant's reasoning, text and every tool call it made (each
//! gets a result: its output, its error or "interrupted"), no failed answer but one aborted after
//! it wrote. The compaction's question and the summary are OpenCode's, not anyone's prompt or
//! answer. Each message's position in the export is its line.

use std::collections::HashSet;

use serde_json::Value;

use super::SourceView;

pub fn source_view(text: &str) -> SourceView {
    let mut view = SourceView::default();
    let Ok(export) = serde_json::from_str::<Value>(text) else { return view };
    let Some(messages) = export.get("messages").and_then(Value::as_array) else { return view };
    let id_of = |m: &Value| m.pointer("/info/id").and_then(Value::as_str).unwrap_or("").to_owned();
    let role_of = |m: &Value| m.pointer("/info/role").and_then(Value::as_str).unwrap_or("").to_owned();
    let parts_of = |m: &Value| m.get("parts").and_then(Value::as_array).cloned().unwrap_or_default();
    // The revert's point: later messages (and it, without a part) are gone; its part on, too.
    let revert_message = export.pointer("/info/revert/messageID").and_then(Value::as_str);
    let revert_part = export.pointer("/info/revert/partID").and_then(Value::as_str);
    let mut kept: Vec<(usize, &Value, Vec<Value>)> = Vec::new();
    let mut past_revert = false;
    for (i, message) in messages.iter().enumerate() {
        if past_revert {
            break;
        }
        let mut parts = parts_of(message);
        if revert_message.is_some_and(|r| r == id_of(message)) {
            past_revert = true;
            match revert_part {
                None => break,
                Some(part) => parts.retain(|p| p.get("id").and_then(Value::as_str).is_some_and(|id| id < part)),
            }
        }
        kept.push((i + 1, message, parts));
    }
    // Newest first, up to the user message whose summary finished.
    let mut completed: HashSet<String> = HashSet::new();
    let mut start = 0;
    for (at, (_, message, parts)) in kept.iter().enumerate().rev() {
        let info = &message["info"];
        if role_of(message) == "user" && completed.contains(&id_of(message)) && parts.iter().any(|p| p["type"] == "compaction") {
            start = at;
            break;
        }
        if role_of(message) == "assistant" && info["summary"] == true && !info["finish"].is_null() {
            completed.insert(info["parentID"].as_str().unwrap_or("").to_owned());
        }
    }
    for (line, message, parts) in &kept[start..] {
        let line = *line;
        let info = &message["info"];
        match role_of(message).as_str() {
            "user" => {
                for part in parts {
                    match part["type"].as_str().unwrap_or("") {
                        "text" if part["ignored"] != true => view.prompt(line, None, part["text"].as_str().unwrap_or("")),
                        "file" if part["mime"].as_str().is_some_and(|m| m.starts_with("image/")) => {
                            if let Some((_, data)) = part["url"].as_str().and_then(|u| u.split_once(";base64,")) {
                                view.image(line, data);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "assistant" => {
                let aborted = info["error"]["name"] == "MessageAbortedError";
                let wrote = parts.iter().any(|p| !matches!(p["type"].as_str(), Some("step-start" | "reasoning" | "step-finish")));
                if (!info["error"].is_null() && !(aborted && wrote)) || info["summary"] == true {
                    continue;
                }
                for part in parts {
                    match part["type"].as_str().unwrap_or("") {
                        "text" => view.assistant_text(line, None, part["text"].as_str().unwrap_or("")),
                        "reasoning" => {
                            let meta = &part["metadata"];
                            let ids = [meta["anthropic"]["signature"].as_str(), meta["openai"]["reasoningEncryptedContent"].as_str(), meta["google"]["thoughtSignature"].as_str()];
                            view.reasoning(line, &ids, part["text"].as_str().unwrap_or(""));
                        }
                        "tool" => {
                            let call = part["callID"].as_str().unwrap_or("");
                            view.call(line, call);
                            view.result(call);
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    view
}
