//! What Claude Code's model saw at the end of a session file.
//!
//! Claude Code resumes by walking `parentUuid` back from the newest message line to the root,
//! stopping at the last compact boundary (the summary line after it opens the context; a
//! preserved segment, when the boundary names one, is kept before the newer lines). A result
//! that answers a call on that walk belongs to it even when it hangs off a sibling entry (each
//! parallel result is parented to the entry holding its own call). A file made only of sidechain
//! lines is a subagent's own transcript and is read the same way; in a main file, sidechain
//! lines are another agent's view and are skipped.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::SourceView;
use crate::lines::ParsedLine;

struct Line<'a> {
    number: usize,
    value: &'a Value,
}

impl Line<'_> {
    fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(Value::as_str)
    }

    fn flag(&self, key: &str) -> bool {
        self.value.get(key).and_then(Value::as_bool) == Some(true)
    }

    fn is_message(&self) -> bool {
        matches!(self.kind(), "user" | "assistant") && self.str("uuid").is_some()
    }

    fn is_boundary(&self) -> bool {
        self.kind() == "system" && self.str("subtype") == Some("compact_boundary")
    }

    fn blocks(&self) -> Vec<&Value> {
        match self.value.pointer("/message/content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            _ => Vec::new(),
        }
    }
}

pub fn source_view(parsed: &[ParsedLine]) -> SourceView {
    let lines: Vec<Line> =
        parsed.iter().filter_map(|(number, v)| v.as_ref().ok().filter(|v| v.is_object()).map(|value| Line { number: *number, value })).collect();
    let subagent = lines.iter().any(Line::is_message) && lines.iter().filter(|l| l.is_message()).all(|l| l.flag("isSidechain"));
    let ours = |l: &Line| l.flag("isSidechain") == subagent;
    let mut by_uuid: HashMap<&str, usize> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(uuid) = line.str("uuid") {
            by_uuid.entry(uuid).or_insert(i);
        }
    }
    let Some(leaf) = lines.iter().rposition(|l| l.is_message() && ours(l) && !l.flag("isApiErrorMessage")) else {
        return SourceView::default();
    };
    // The walk back from the leaf, newest first.
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    // (A uuid written twice names its first line: a walk through repeats ends at a cycle.)
    let mut at = Some(leaf);
    while let Some(i) = at.filter(|i| seen.insert(*i)) {
        let line = &lines[i];
        if line.is_boundary() {
            // What the compaction kept: from the line before the boundary back to the head.
            let head = line.value.pointer("/compactMetadata/preservedSegment/headUuid").and_then(Value::as_str);
            let mut kept = line.str("logicalParentUuid").and_then(|p| by_uuid.get(p).copied());
            while let (Some(k), Some(head)) = (kept, head) {
                if !seen.insert(k) {
                    break;
                }
                path.push(k);
                if lines[k].str("uuid") == Some(head) {
                    break;
                }
                kept = lines[k].str("parentUuid").and_then(|p| by_uuid.get(p).copied());
            }
            break;
        }
        path.push(i);
        at = line.str("parentUuid").and_then(|p| by_uuid.get(p).copied());
    }
    // The walk can miss parts of a turn the model saw: the other blocks of an API message on it
    // (one message is written as several lines, and a block can hang off a progress line), and
    // results hanging off a sibling of the walk, for calls on it.
    let mut entries: HashSet<usize> = path.iter().copied().collect();
    let messages: HashSet<&str> = path.iter().filter_map(|&i| lines[i].value.pointer("/message/id").and_then(Value::as_str)).collect();
    for (i, line) in lines.iter().enumerate() {
        // (A line repeating an earlier uuid is a replay of it, not another block.)
        let first_of_its_uuid = line.str("uuid").and_then(|u| by_uuid.get(u)) == Some(&i);
        if line.kind() == "assistant"
            && ours(line)
            && first_of_its_uuid
            && line.value.pointer("/message/id").and_then(Value::as_str).is_some_and(|m| messages.contains(m))
        {
            entries.insert(i);
        }
    }
    let calls: HashSet<&str> = entries
        .iter()
        .flat_map(|&i| lines[i].blocks())
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| b.get("id").and_then(Value::as_str))
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let answers = line.kind() == "user"
            && ours(line)
            && line.str("uuid").and_then(|u| by_uuid.get(u)) == Some(&i)
            && line.blocks().iter().any(|b| b.get("tool_use_id").and_then(Value::as_str).is_some_and(|id| calls.contains(id)));
        if answers {
            entries.insert(i);
        }
    }
    let mut entries: Vec<usize> = entries.into_iter().collect();
    entries.sort_unstable();

    let mut view = SourceView::default();
    let mut run: Option<(String, usize, String)> = None; // (message id, line, text so far)
    for &i in &entries {
        let line = &lines[i];
        let message_id = line.value.pointer("/message/id").and_then(Value::as_str).unwrap_or("").to_owned();
        let continues_run = line.kind() == "assistant" && run.as_ref().is_some_and(|(m, _, _)| *m == message_id);
        if !continues_run {
            flush(&mut view, &mut run);
        }
        match line.kind() {
            "user" if line.flag("isCompactSummary") || line.flag("isMeta") => {
                // Not something a person typed; its images still reached the model.
                images_of(&mut view, line.number, &line.blocks());
            }
            "user" => match line.value.pointer("/message/content") {
                Some(Value::String(text)) => view.prompt(line.number, line.str("uuid"), text),
                Some(Value::Array(blocks)) => {
                    let text: String = blocks
                        .iter()
                        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect();
                    view.prompt(line.number, line.str("uuid"), &text);
                    for block in blocks {
                        if block.get("type").and_then(Value::as_str) == Some("tool_result") {
                            if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                                view.result(id);
                            }
                            if let Some(Value::Array(parts)) = block.get("content") {
                                images_of(&mut view, line.number, &parts.iter().collect::<Vec<_>>());
                            }
                        }
                    }
                    images_of(&mut view, line.number, &blocks.iter().collect::<Vec<_>>());
                }
                _ => {}
            },
            "assistant" if !line.flag("isApiErrorMessage") => {
                for block in line.blocks() {
                    match block.get("type").and_then(Value::as_str).unwrap_or("") {
                        "text" => {
                            let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                            match &mut run {
                                Some((_, _, so_far)) => so_far.push_str(text),
                                None => run = Some((message_id.clone(), line.number, text.to_owned())),
                            }
                        }
                        other => {
                            flush(&mut view, &mut run);
                            let text = |k: &str| block.get(k).and_then(Value::as_str);
                            match other {
                                "thinking" => view.reasoning(line.number, &[text("signature")], text("thinking").unwrap_or("")),
                                "redacted_thinking" => view.reasoning(line.number, &[text("data")], ""),
                                "tool_use" => {
                                    if let Some(id) = text("id") {
                                        view.call(line.number, id);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut view, &mut run);
    view
}

fn flush(view: &mut SourceView, run: &mut Option<(String, usize, String)>) {
    if let Some((message, line, text)) = run.take() {
        view.assistant_text(line, Some(&message), &text);
    }
}

fn images_of(view: &mut SourceView, line: usize, blocks: &[&Value]) {
    for block in blocks {
        if block.get("type").and_then(Value::as_str) == Some("image") && block.pointer("/source/type").and_then(Value::as_str) == Some("base64") {
            if let Some(data) = block.pointer("/source/data").and_then(Value::as_str) {
                view.image(line, data);
            }
        }
    }
}
