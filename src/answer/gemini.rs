//! Gemini `generateContent` answers: one `GenerateContentResponse`, or a stream of them (SSE
//! `data:` lines with `alt=sse`, a JSON array without) — each chunk a whole response holding the
//! next few parts, read the same way.
//!
//! - Parts in order: text, thought text (`thought: true`), `functionCall` (its `id` when Gemini 3
//!   sends one; Vertex's streamed `partialArgs` gathered by JSON path until the call closes),
//!   and every other part (`executableCode`, `codeExecutionResult`, `inlineData` the model made,
//!   server-side `toolCall` / `toolResponse`, `functionResponse` in a model turn) as a native
//!   part kept as it came.
//! - A `thoughtSignature` goes back on the part it came with: a signed part is a block of its
//!   own (an empty text part that only carries a signature included), never merged with the
//!   unsigned text around it; unsigned text and thought parts that follow each other merge.
//! - Usage: the last report wins (the Gemini API repeats a growing count on every chunk, Vertex
//!   sends it last). `finishReason` may come mid-stream with server-side tools: the stream is
//!   read to its end. A blocked prompt (`promptFeedback.blockReason`, no candidates) ends the
//!   answer with that reason; `{"error": …}` (also written raw after an SSE stream) fails it.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::assemble::{Assembler, Kind};
use super::{failure_of, str_of};

#[derive(Debug, Clone, Default)]
pub struct Reader {
    /// The open text or thought block that unsigned parts continue.
    open: Option<(usize, bool)>,
    /// A call whose arguments are still streaming (`willContinue`).
    streaming_call: Option<usize>,
    /// Arguments of the streaming call, by JSON path.
    partial: Map<String, Value>,
    /// A finish reason or a blocked prompt arrived.
    finished: bool,
}

/// The chunk most of a stream is made of: one candidate's plain text (or thought) parts.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextChunk<'a> {
    #[serde(borrow)]
    candidates: Vec<TextCandidate<'a>>,
    #[serde(default, borrow)]
    usage_metadata: Option<&'a RawValue>,
    #[serde(default, borrow)]
    model_version: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    response_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    prompt_feedback: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextCandidate<'a> {
    #[serde(borrow)]
    content: TextContent<'a>,
    #[serde(default)]
    index: u64,
    #[serde(default, borrow)]
    finish_reason: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TextContent<'a> {
    #[serde(borrow)]
    parts: Vec<TextPart<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TextPart<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(default)]
    thought: bool,
}

impl Reader {
    /// Reads a chunk of unsigned text or thought parts without building a JSON value; `false`
    /// for any other chunk (read by [`Reader::read`]).
    pub fn fast(&mut self, data: &str, asm: &mut Assembler) -> bool {
        let Ok(chunk) = serde_json::from_str::<TextChunk>(data) else { return false };
        let [candidate] = chunk.candidates.as_slice() else { return false };
        if candidate.index != 0 || candidate.finish_reason.is_some() || chunk.prompt_feedback.is_some() || chunk.error.is_some() {
            return false;
        }
        asm.set_id(chunk.response_id.as_deref());
        asm.set_model(chunk.model_version.as_deref());
        if let Some(usage) = chunk.usage_metadata {
            if let Ok(usage) = serde_json::from_str::<Value>(usage.get()) {
                let counts = usage.as_object().is_some_and(|m| m.keys().any(|k| k.ends_with("TokenCount")));
                if counts || asm.usage.is_none() {
                    asm.usage = Some(usage);
                }
            }
        }
        for part in &candidate.content.parts {
            self.text_part(&part.text, part.thought, None, asm);
        }
        true
    }

    pub fn read(&mut self, value: &Value, asm: &mut Assembler) {
        if let Some(error) = value.get("error").filter(|e| e.is_object()) {
            asm.failure = Some(failure_of(error, "error"));
            return;
        }
        asm.set_id(str_of(value, "responseId"));
        asm.set_model(str_of(value, "modelVersion"));
        if let Some(usage) = value.get("usageMetadata").filter(|u| u.is_object()) {
            // Vertex's interim chunks carry only traffic facts: they do not replace counts.
            let counts = usage.as_object().is_some_and(|m| m.keys().any(|k| k.ends_with("TokenCount")));
            if counts || asm.usage.is_none() {
                asm.usage = Some(usage.clone());
            }
        }
        if let Some(feedback) = value.get("promptFeedback").filter(|f| !f.is_null()) {
            if let Some(reason) = str_of(feedback, "blockReason") {
                asm.stop_reason = Some(reason.to_owned());
                self.finished = true;
            }
            asm.details.insert("promptFeedback".to_owned(), feedback.clone());
        }
        let candidates = value.get("candidates").and_then(Value::as_array);
        for candidate in candidates.into_iter().flatten() {
            let index = candidate.get("index").and_then(Value::as_u64).unwrap_or(0);
            if index > 0 {
                asm.extra_choices = asm.extra_choices.max(u32::try_from(index).unwrap_or(u32::MAX));
                continue;
            }
            for part in candidate.pointer("/content/parts").and_then(Value::as_array).into_iter().flatten() {
                self.part(part, asm);
            }
            if let Some(reason) = str_of(candidate, "finishReason") {
                asm.stop_reason = Some(reason.to_owned());
                self.finished = true;
            }
            for key in ["finishMessage", "citationMetadata", "groundingMetadata", "urlContextMetadata", "safetyRatings"] {
                if let Some(v) = candidate.get(key).filter(|v| !v.is_null()) {
                    asm.details.insert(key.to_owned(), v.clone());
                }
            }
        }
    }

    fn part(&mut self, part: &Value, asm: &mut Assembler) {
        let Some(fields) = part.as_object() else { return };
        let signature = str_of(part, "thoughtSignature").map(str::to_owned);
        if let Some(call) = part.get("functionCall") {
            self.call(call, signature, asm);
            return;
        }
        if let Some(text) = str_of(part, "text") {
            let thought = part.get("thought").and_then(Value::as_bool).unwrap_or(false);
            self.text_part(text, thought, signature, asm);
            return;
        }
        // Every other part is the API's own; an empty part carries nothing.
        if fields.keys().all(|k| k == "thoughtSignature" || k == "thought") && signature.is_none() {
            return;
        }
        self.close_open(asm);
        let slot = asm.open(Kind::Native);
        asm.slots[slot].native = Some(fields.clone());
        asm.close(slot);
    }

    /// A text or thought part: unsigned ones continue the open block of their kind; a signed
    /// one is a block of its own.
    fn text_part(&mut self, text: &str, thought: bool, signature: Option<String>, asm: &mut Assembler) {
        let continues = match self.open {
            Some((slot, was_thought)) => was_thought == thought && signature.is_none() && !asm.slots[slot].closed,
            None => false,
        };
        let slot = match (continues, self.open) {
            (true, Some((slot, _))) => slot,
            _ => {
                self.close_open(asm);
                let slot = asm.open(if thought { Kind::Reasoning } else { Kind::Text });
                self.open = Some((slot, thought));
                slot
            }
        };
        asm.append(slot, text);
        if signature.is_some() {
            // A signed part is its own block.
            asm.slots[slot].signature = signature;
            self.close_open(asm);
        }
    }

    fn close_open(&mut self, asm: &mut Assembler) {
        if let Some((slot, _)) = self.open.take() {
            asm.close(slot);
        }
    }

    fn call(&mut self, call: &Value, signature: Option<String>, asm: &mut Assembler) {
        self.close_open(asm);
        if self.streaming_call.is_none() && call.as_object().is_none_or(Map::is_empty) {
            return;
        }
        let streaming = call.get("partialArgs").is_some() || call.get("willContinue").is_some();
        let slot = match (self.streaming_call, call.get("name").and_then(Value::as_str)) {
            // A new name starts a new call; pieces without one continue the streaming call.
            (Some(slot), None) => slot,
            _ => {
                self.finish_call(asm);
                let slot = asm.open(Kind::Call);
                let s = &mut asm.slots[slot];
                s.name = str_of(call, "name").unwrap_or("").to_owned();
                s.call_id = str_of(call, "id").filter(|id| !id.is_empty()).map(str::to_owned);
                if let Some(args) = call.get("args").filter(|a| a.is_object()) {
                    s.input = Some(args.clone());
                }
                slot
            }
        };
        if signature.is_some() {
            asm.slots[slot].signature = signature;
        }
        for piece in call.get("partialArgs").and_then(Value::as_array).into_iter().flatten() {
            let Some(path) = str_of(piece, "jsonPath") else { continue };
            let value = if let Some(s) = str_of(piece, "stringValue") {
                // String pieces of one path are deltas.
                let mut text = match self.partial.remove(path) {
                    Some(Value::String(text)) => text,
                    _ => String::new(),
                };
                text.push_str(s);
                Value::String(text)
            } else if let Some(n) = piece.get("numberValue") {
                n.clone()
            } else if let Some(b) = piece.get("boolValue") {
                b.clone()
            } else {
                Value::Null
            };
            self.partial.insert(path.to_owned(), value);
        }
        let more = call.get("willContinue").and_then(Value::as_bool).unwrap_or(false);
        if streaming && more {
            self.streaming_call = Some(slot);
        } else {
            self.streaming_call = Some(slot);
            self.finish_call(asm);
        }
    }

    /// Closes the streaming call, its arguments built from the pieces gathered.
    fn finish_call(&mut self, asm: &mut Assembler) {
        let Some(slot) = self.streaming_call.take() else { return };
        if !self.partial.is_empty() {
            let mut args = match asm.slots[slot].input.take() {
                Some(Value::Object(map)) => Value::Object(map),
                _ => Value::Object(Map::new()),
            };
            for (path, value) in std::mem::take(&mut self.partial) {
                set_path(&mut args, &path, value);
            }
            asm.slots[slot].input = Some(args);
        }
        if asm.slots[slot].input.is_none() {
            asm.slots[slot].input = Some(Value::Object(Map::new()));
        }
        asm.close(slot);
    }

    /// The stream ended without a finish reason (a streaming call still open is unfinished).
    pub fn cut_short(&mut self, asm: &mut Assembler) -> bool {
        if self.finished {
            self.finish_call(asm);
            asm.finished = true;
        }
        self.close_open(asm);
        !self.finished
    }
}

/// Sets `value` at an RFC 9535 path of plain names and indices (`$.a.b[0].c`).
fn set_path(root: &mut Value, path: &str, value: Value) {
    let mut steps = Vec::new();
    let mut rest = path.strip_prefix('$').unwrap_or(path);
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            steps.push(Err(r[..end].to_owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').unwrap_or(r.len());
            let inner = r[..end].trim_matches(|c| c == '\'' || c == '"');
            match inner.parse::<usize>() {
                Ok(i) => steps.push(Ok(i)),
                Err(_) => steps.push(Err(inner.to_owned())),
            }
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            return;
        }
    }
    let mut at = root;
    for (n, step) in steps.iter().enumerate() {
        let last = n + 1 == steps.len();
        let next_is_index = matches!(steps.get(n + 1), Some(Ok(_)));
        let empty = || if next_is_index { Value::Array(Vec::new()) } else { Value::Object(Map::new()) };
        at = match step {
            Err(key) => {
                if !at.is_object() {
                    *at = Value::Object(Map::new());
                }
                let Value::Object(map) = at else { return };
                if last {
                    map.insert(key.clone(), value);
                    return;
                }
                map.entry(key.clone()).or_insert_with(empty)
            }
            Ok(index) => {
                if !at.is_array() {
                    *at = Value::Array(Vec::new());
                }
                let Value::Array(list) = at else { return };
                if list.len() <= *index {
                    list.resize(index + 1, Value::Null);
                }
                if last {
                    list[*index] = value;
                    return;
                }
                if list[*index].is_null() {
                    list[*index] = empty();
                }
                &mut list[*index]
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::set_path;
    use serde_json::json;

    #[test]
    fn json_paths_build_nested_arguments() {
        let mut v = json!({});
        set_path(&mut v, "$.location", json!("Boston, MA"));
        set_path(&mut v, "$.a.b[1].c", json!(3));
        set_path(&mut v, "$['odd key']", json!(true));
        assert_eq!(v, json!({"location": "Boston, MA", "a": {"b": [null, {"c": 3}]}, "odd key": true}));
    }
}
