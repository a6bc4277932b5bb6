//! What pi's model saw at the end of a session file.
//!
//! pi skips lines that are not JSON, so its entry indices count parsed lines only (the session
//! header is index 0). The live branch runs from the file's last entry back through `parentId`
//! (version 1 files have no ids: the whole file is one branch). The last compaction on it opens
//! the context with its summary, followed by the entries it kept — from `firstKeptEntryId`, or in
//! version 1 from `firstKeptEntryIndex` — up to the compaction, then everything after it.
//! Assistant messages that ended in an error or were aborted are never sent again.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::SourceView;
use crate::lines::ParsedLine;

pub fn source_view(lines: &[ParsedLine]) -> SourceView {
    let entries: Vec<(usize, &Value)> = lines.iter().filter_map(|(line, v)| v.as_ref().ok().map(|v| (*line, v))).collect();
    let version = entries.first().and_then(|(_, h)| h.get("version")).and_then(Value::as_u64).unwrap_or(1);
    // Indices into `entries` of the live branch, oldest first (the header excluded).
    let path: Vec<usize> = if version == 1 {
        (1..entries.len()).collect()
    } else {
        let by_id: HashMap<&str, usize> =
            entries.iter().enumerate().skip(1).filter_map(|(i, (_, e))| e.get("id").and_then(Value::as_str).map(|id| (id, i))).collect();
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut at = (entries.len() > 1).then(|| entries.len() - 1);
        while let Some(i) = at.filter(|i| seen.insert(*i)) {
            path.push(i);
            at = entries[i].1.get("parentId").and_then(Value::as_str).and_then(|p| by_id.get(p).copied());
        }
        path.reverse();
        path
    };
    let kind = |i: usize| entries[i].1.get("type").and_then(Value::as_str).unwrap_or("");
    // The context: the last compaction's kept entries, then what follows it; or the whole branch.
    let context: Vec<usize> = match path.iter().rposition(|&i| kind(i) == "compaction") {
        Some(at) => {
            let compaction = &entries[path[at]].1;
            let kept_from = match (compaction.get("firstKeptEntryId").and_then(Value::as_str), compaction.get("firstKeptEntryIndex").and_then(Value::as_u64)) {
                (Some(id), _) => path[..at].iter().position(|&i| entries[i].1.get("id").and_then(Value::as_str) == Some(id)),
                (None, Some(index)) => path[..at].iter().position(|&i| i as u64 == index),
                (None, None) => None,
            };
            kept_from.map_or(&[][..], |k| &path[k..at]).iter().chain(&path[at + 1..]).copied().collect()
        }
        None => path,
    };
    let mut view = SourceView::default();
    for i in context {
        let (line, entry) = (&entries[i].0, &entries[i].1);
        let id = entry.get("id").and_then(Value::as_str);
        match kind(i) {
            "message" => message(&mut view, *line, id, entry.get("message").unwrap_or(&Value::Null)),
            "custom_message" => images(&mut view, *line, entry.get("content")),
            _ => {}
        }
    }
    view
}

fn message(view: &mut SourceView, line: usize, id: Option<&str>, message: &Value) {
    let content = message.get("content");
    match message.get("role").and_then(Value::as_str).unwrap_or("") {
        "user" => {
            let text = match content {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(blocks)) => blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect(),
                _ => String::new(),
            };
            view.prompt(line, id, &text);
            images(view, line, content);
        }
        "assistant" => {
            if matches!(message.get("stopReason").and_then(Value::as_str), Some("error" | "aborted")) {
                return;
            }
            let mut run = String::new();
            for block in content.and_then(Value::as_array).into_iter().flatten() {
                let text = |k: &str| block.get(k).and_then(Value::as_str);
                match text("type").unwrap_or("") {
                    "text" => run.push_str(text("text").unwrap_or("")),
                    other => {
                        view.assistant_text(line, id, &std::mem::take(&mut run));
                        match other {
                            "thinking" => {
                                let signature = text("thinkingSignature");
                                // An OpenAI reasoning item kept whole as JSON in the signature.
                                let item: Option<Value> = signature.and_then(|s| serde_json::from_str(s).ok());
                                let item_id = item.as_ref().and_then(|i| i.get("id")).and_then(Value::as_str);
                                let encrypted = item.as_ref().and_then(|i| i.get("encrypted_content")).and_then(Value::as_str);
                                view.reasoning(line, &[signature, item_id, encrypted], text("thinking").unwrap_or(""));
                            }
                            "toolCall" => {
                                if let Some(call) = text("id") {
                                    view.call(line, call);
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            view.assistant_text(line, id, &run);
        }
        "toolResult" => {
            if let Some(call) = message.get("toolCallId").and_then(Value::as_str) {
                view.result(call);
            }
            images(view, line, content);
        }
        "custom" | "hookMessage" => images(view, line, content),
        _ => {}
    }
}

fn images(view: &mut SourceView, line: usize, content: Option<&Value>) {
    for block in content.and_then(Value::as_array).into_iter().flatten() {
        if block.get("type").and_then(Value::as_str) == Some("image") {
            if let Some(data) = block.get("data").and_then(Value::as_str) {
                view.image(line, data);
            }
        }
    }
}
