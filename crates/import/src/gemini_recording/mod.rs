//! A Gemini CLI chat recording, read into its messages as the CLI itself loads it.
//!
//! Two forms (google-gemini/gemini-cli, `packages/core/src/services/chatRecordingService.ts`):
//! - the whole-file `session-*.json` (until v0.38): one JSON object, pretty-printed, rewritten on
//!   every change — `sessionId`, `projectHash`, `startTime`, `lastUpdated`, `messages`, and from
//!   later versions `kind`, `summary`, `directories`;
//! - JSON Lines `session-*.jsonl` (v0.39 on), appended: a header line (`sessionId`, `projectHash`,
//!   no `messages`), then message lines, `{"$set": {…}}` metadata lines and `{"$rewindTo": id}`
//!   lines. The loader tests each line in this order: `$rewindTo` (drops that message and every
//!   later one; an id it does not hold clears them all), a message (a string `id`: a new id is
//!   appended, a known one replaced where it stands, last write whole), `$set` (merged into the
//!   metadata; with `messages`, a checkpoint that replaces them all), the header (merged; with
//!   `messages`, a whole record on one line). Anything else is skipped.
//!
//! The extension does not decide: a first line that parses as a header is the JSON Lines form,
//! else the whole text is one record. Each message keeps the line it was (last) written on, for
//! diagnostics and the fidelity report; in the whole-file form, the line its `id` is on.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::lines::{json_lines, ParsedLine};

/// One message as the recording holds it at its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The line it was last written on (1-based).
    pub line: usize,
    pub value: Value,
}

impl Message {
    pub fn id(&self) -> &str {
        self.value.get("id").and_then(Value::as_str).unwrap_or("")
    }

    pub fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }
}

/// A recording at its end: its metadata and its messages, and what reading it passed over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    pub meta: Map<String, Value>,
    pub messages: Vec<Message>,
    /// Lines read (blank lines not counted).
    pub lines: usize,
    /// Lines that are not JSON, or JSON of no record kind: (line, why).
    pub skipped: Vec<(usize, String)>,
    /// Messages a later `$rewindTo` or checkpoint took out (the CLI resumes without them).
    pub superseded: usize,
    /// Whether the text is the JSON Lines form.
    pub lines_form: bool,
}

impl Recording {
    pub fn session_id(&self) -> &str {
        self.meta.get("sessionId").and_then(Value::as_str).unwrap_or("")
    }
}

/// Whether `text` looks like a Gemini CLI recording: a first line that is a header (a string
/// `sessionId` and `projectHash`), or a whole text that is one record with `messages`.
pub fn is_recording(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match serde_json::from_str::<Value>(first) {
        Ok(value) => is_header(&value),
        Err(_) => {
            let start = text.trim_start();
            start.starts_with('{')
                && start.contains("\"projectHash\"")
                && serde_json::from_str::<Value>(text).is_ok_and(|v| is_header(&v) && v.get("messages").is_some_and(Value::is_array))
        }
    }
}

fn is_header(value: &Value) -> bool {
    value.get("sessionId").is_some_and(Value::is_string) && value.get("projectHash").is_some_and(Value::is_string)
}

/// Reads `text` in whichever form it is.
pub fn read(text: &str) -> Recording {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match serde_json::from_str::<Value>(first) {
        Ok(value) if is_header(&value) => read_lines(json_lines(text).collect()),
        _ => read_whole(text),
    }
}

/// The whole-file form: one record.
fn read_whole(text: &str) -> Recording {
    let mut recording = Recording { lines: text.lines().filter(|l| !l.trim().is_empty()).count(), ..Recording::default() };
    let value = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            recording.skipped.push((1, "the recording is JSON but not an object".to_owned()));
            return recording;
        }
        Err(e) => {
            recording.skipped.push((e.line(), format!("the recording is not JSON: {e}")));
            return recording;
        }
    };
    let mut cursor = 0;
    for (key, v) in value {
        if key != "messages" {
            recording.meta.insert(key, v);
            continue;
        }
        for message in v.as_array().into_iter().flatten() {
            let line = line_of_id(text, message, &mut cursor);
            recording.messages.push(Message { line, value: message.clone() });
        }
    }
    recording
}

/// The line of `message`'s `id` in `text`, looked for from `cursor` on (messages are in order).
fn line_of_id(text: &str, message: &Value, cursor: &mut usize) -> usize {
    let Some(id) = message.get("id").and_then(Value::as_str) else { return line_at(text, *cursor) };
    let quoted = serde_json::to_string(id).unwrap_or_default();
    if let Some(at) = text[*cursor..].find(&quoted) {
        *cursor += at + quoted.len();
    }
    line_at(text, *cursor)
}

fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The JSON Lines form, each record applied in turn.
fn read_lines(lines: Vec<ParsedLine>) -> Recording {
    let mut recording = Recording { lines_form: true, ..Recording::default() };
    let mut messages: Vec<Message> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let reindex = |messages: &[Message], at: &mut HashMap<String, usize>| {
        at.clear();
        at.extend(messages.iter().enumerate().map(|(i, m)| (m.id().to_owned(), i)));
    };
    for (line, parsed) in lines {
        recording.lines += 1;
        let value = match parsed {
            Ok(value @ Value::Object(_)) => value,
            Ok(_) => {
                recording.skipped.push((line, "line is JSON but not an object".to_owned()));
                continue;
            }
            Err(e) => {
                recording.skipped.push((line, format!("line is not JSON: {e}")));
                continue;
            }
        };
        if let Some(target) = value.get("$rewindTo").and_then(Value::as_str) {
            let keep = at.get(target).copied().unwrap_or(0);
            recording.superseded += messages.len() - keep;
            messages.truncate(keep);
            reindex(&messages, &mut at);
        } else if value.get("id").is_some_and(Value::is_string) {
            let id = value["id"].as_str().unwrap_or("").to_owned();
            match at.get(&id) {
                Some(&i) => messages[i] = Message { line, value },
                None => {
                    at.insert(id, messages.len());
                    messages.push(Message { line, value });
                }
            }
        } else if let Some(Value::Object(set)) = value.get("$set") {
            for (key, v) in set {
                if key == "messages" {
                    let Some(list) = v.as_array() else { continue };
                    recording.superseded += messages.iter().filter(|m| !list.iter().any(|n| n.get("id").and_then(Value::as_str) == Some(m.id()))).count();
                    messages = list.iter().filter(|m| m.get("id").is_some_and(Value::is_string)).map(|m| Message { line, value: m.clone() }).collect();
                    reindex(&messages, &mut at);
                } else {
                    recording.meta.insert(key.clone(), v.clone());
                }
            }
        } else if is_header(&value) {
            let Value::Object(map) = value else { unreachable!("an object") };
            for (key, v) in map {
                if key == "messages" {
                    for m in v.as_array().into_iter().flatten().filter(|m| m.get("id").is_some_and(Value::is_string)) {
                        at.insert(m["id"].as_str().unwrap_or("").to_owned(), messages.len());
                        messages.push(Message { line, value: m.clone() });
                    }
                } else {
                    recording.meta.insert(key, v);
                }
            }
        } else {
            recording.skipped.push((line, "a line of no record kind (no `id`, `$set`, `$rewindTo` or header)".to_owned()));
        }
    }
    recording.messages = messages;
    recording
}

/// A message's `content` (or a result) as parts: a string is one text part, a part is itself,
/// a list holds parts and strings (each a text part); null or absent is none.
pub fn parts(content: Option<&Value>) -> Vec<Value> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) => vec![serde_json::json!({ "text": text })],
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => serde_json::json!({ "text": text }),
                other => other.clone(),
            })
            .collect(),
        Some(other) => vec![other.clone()],
    }
}

/// The text of a user message as the CLI judges it when it resumes: its text parts joined.
pub fn user_text(parts: &[Value]) -> String {
    parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
}

/// A user message the CLI never sends its model when it resumes: empty, a `/` or `?` command, or
/// made only of tool responses (recorded apart from the calls since v0.44).
pub fn is_command_or_echo(parts: &[Value]) -> Option<&'static str> {
    if !parts.is_empty() && parts.iter().all(|p| p.get("functionResponse").is_some()) {
        return Some("user:function_responses");
    }
    let text = user_text(parts);
    let text = text.trim_start();
    let has_other = parts.iter().any(|p| p.get("text").is_none());
    if text.is_empty() && !has_other {
        return Some("user:empty");
    }
    if text.starts_with('/') || text.starts_with('?') {
        return Some("user:command");
    }
    None
}

#[cfg(test)]
mod tests;
