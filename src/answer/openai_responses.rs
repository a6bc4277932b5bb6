//! OpenAI Responses answers: typed events (`response.created` … `response.completed`,
//! `response.incomplete` or `response.failed`), or one `response` object — its output items read
//! as items that arrive whole.
//!
//! - Items are followed by `output_index` (some proxies rename `item_id` on every event).
//! - `message` items: each `output_text` part a text block (annotations kept), each `refusal`
//!   part a refusal. `reasoning` items: the summary parts (joined by a blank line; the parts kept
//!   when there are several), `encrypted_content` and the `rs_…` id — taken from
//!   `response.output_item.done`, whose encrypted content is the one to send back (the copy in
//!   `…added` may be incomplete). `function_call` / `custom_tool_call`: the call with its
//!   `call_id` and item id. Every other item (web search, file search, code interpreter, image
//!   generation, MCP, …) is a native block kept as `…done` gave it.
//! - The stop reason is the response's status, or `incomplete_details.reason`
//!   (`max_output_tokens`, `content_filter`); `response.failed`'s error, or an `error` event
//!   (flat or nested), fails the answer.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::assemble::{Assembler, Kind};
use super::{failure_of, str_of};

#[derive(Debug, Clone, Default)]
struct Item {
    output_index: u64,
    /// The reasoning, call or native slot.
    slot: Option<usize>,
    /// A message's parts: content index → text slot.
    parts: Vec<(u64, usize)>,
    id: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Reader {
    items: Vec<Item>,
    /// A terminal event (or a whole response) arrived.
    ended: bool,
}

fn index_of(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The events most of a stream is made of: text, reasoning summary and argument deltas.
#[derive(Deserialize)]
struct DeltaEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    output_index: u64,
    #[serde(default)]
    content_index: u64,
    #[serde(default)]
    summary_index: Option<u64>,
    #[serde(borrow)]
    delta: Cow<'a, str>,
}

impl Reader {
    /// Reads a text or argument delta without building a JSON value; `false` for any other
    /// event (read by [`Reader::read`]).
    pub fn fast(&mut self, name: Option<&str>, data: &str, asm: &mut Assembler) -> bool {
        let delta = match name {
            Some(name) => name.ends_with("_text.delta") || name.ends_with("arguments.delta"),
            None => data.contains("_text.delta\"") || data.contains("arguments.delta\""),
        };
        if !delta {
            return false;
        }
        let Ok(event) = serde_json::from_str::<DeltaEvent>(data) else { return false };
        match event.kind.as_ref() {
            "response.output_text.delta" => {
                let slot = self.part_slot(event.output_index, event.content_index, false, asm);
                asm.append(slot, &event.delta);
            }
            "response.function_call_arguments.delta" => {
                let slot = self.slot_of(event.output_index, "function_call", asm);
                asm.append(slot, &event.delta);
            }
            "response.reasoning_summary_text.delta" => {
                let slot = self.slot_of(event.output_index, "reasoning", asm);
                let at = event.summary_index.unwrap_or(0) as usize;
                if asm.slots[slot].summary.len() <= at {
                    if !asm.slots[slot].summary.is_empty() {
                        asm.append(slot, "\n\n");
                    }
                    asm.slots[slot].summary.resize(at + 1, String::new());
                }
                asm.slots[slot].summary[at].push_str(&event.delta);
                asm.append(slot, &event.delta);
            }
            _ => return false,
        }
        true
    }

    pub fn read(&mut self, value: &Value, _event: bool, asm: &mut Assembler) {
        let kind = str_of(value, "type").unwrap_or("");
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                if let Some(response) = value.get("response") {
                    asm.set_id(str_of(response, "id"));
                    asm.set_model(str_of(response, "model"));
                }
            }
            "response.output_item.added" => {
                if let Some(item) = value.get("item") {
                    self.added(index_of(value, "output_index"), item, asm);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = value.get("item") {
                    self.done(index_of(value, "output_index"), item, asm);
                }
            }
            "response.content_part.added" => {
                let output = index_of(value, "output_index");
                if let Some(part) = value.get("part") {
                    self.part(output, index_of(value, "content_index"), part, asm);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let slot = self.part_slot(index_of(value, "output_index"), index_of(value, "content_index"), kind == "response.refusal.delta", asm);
                asm.append(slot, str_of(value, "delta").unwrap_or(""));
            }
            "response.output_text.annotation.added" => {
                let slot = self.part_slot(index_of(value, "output_index"), index_of(value, "content_index"), false, asm);
                if let Some(annotation) = value.get("annotation") {
                    asm.slots[slot].annotations.push(annotation.clone());
                }
            }
            "response.reasoning_summary_part.added" => {
                let slot = self.slot_of(index_of(value, "output_index"), "reasoning", asm);
                let at = index_of(value, "summary_index") as usize;
                let s = &asm.slots[slot];
                if s.summary.len() <= at {
                    if !s.summary.is_empty() {
                        asm.append(slot, "\n\n");
                    }
                    asm.slots[slot].summary.resize(at + 1, String::new());
                }
            }
            "response.reasoning_summary_text.delta" => {
                let slot = self.slot_of(index_of(value, "output_index"), "reasoning", asm);
                let at = index_of(value, "summary_index") as usize;
                let delta = str_of(value, "delta").unwrap_or("");
                if asm.slots[slot].summary.len() <= at {
                    if !asm.slots[slot].summary.is_empty() {
                        asm.append(slot, "\n\n");
                    }
                    asm.slots[slot].summary.resize(at + 1, String::new());
                }
                asm.slots[slot].summary[at].push_str(delta);
                asm.append(slot, delta);
            }
            "response.reasoning_text.delta" => {
                let slot = self.slot_of(index_of(value, "output_index"), "reasoning", asm);
                if asm.slots[slot].summary.is_empty() {
                    asm.append(slot, str_of(value, "delta").unwrap_or(""));
                }
            }
            "response.function_call_arguments.delta" => {
                let slot = self.slot_of(index_of(value, "output_index"), "function_call", asm);
                asm.append(slot, str_of(value, "delta").unwrap_or(""));
            }
            "response.custom_tool_call_input.delta" => {
                let slot = self.slot_of(index_of(value, "output_index"), "custom_tool_call", asm);
                let s = &mut asm.slots[slot];
                let mut text = match s.input.take() {
                    Some(Value::String(text)) => text,
                    _ => String::new(),
                };
                text.push_str(str_of(value, "delta").unwrap_or(""));
                s.input = Some(Value::String(text));
            }
            "response.completed" | "response.incomplete" | "response.failed" | "response.done" => {
                if let Some(response) = value.get("response") {
                    self.response(response, asm, false);
                }
                self.ended = true;
            }
            "error" => {
                let error = value.get("error").filter(|e| e.is_object()).unwrap_or(value);
                asm.failure = Some(failure_of(error, "error"));
            }
            // A whole response.
            _ if str_of(value, "object") == Some("response") => {
                self.response(value, asm, true);
                self.ended = true;
            }
            // An error body.
            _ if value.get("error").is_some_and(Value::is_object) => {
                asm.failure = Some(failure_of(&value["error"], "error"));
            }
            // Progress of hosted tools, deltas this reader keeps from `…done` instead, and
            // events this version does not know.
            _ => {}
        }
    }

    fn item(&mut self, output_index: u64) -> Option<usize> {
        self.items.iter().position(|i| i.output_index == output_index)
    }

    fn added(&mut self, output_index: u64, item: &Value, asm: &mut Assembler) {
        if self.item(output_index).is_some() {
            return;
        }
        let kind = str_of(item, "type").unwrap_or("");
        let id = str_of(item, "id").map(str::to_owned);
        let slot = match kind {
            "message" => None,
            "reasoning" => {
                let slot = asm.open(Kind::Reasoning);
                asm.slots[slot].item_id = id.clone();
                Some(slot)
            }
            "function_call" | "custom_tool_call" => {
                let slot = asm.open(Kind::Call);
                let s = &mut asm.slots[slot];
                s.item_id = id.clone();
                s.call_id = str_of(item, "call_id").map(str::to_owned);
                s.name = str_of(item, "name").unwrap_or("").to_owned();
                if kind == "custom_tool_call" {
                    s.input = Some(Value::String(str_of(item, "input").unwrap_or("").to_owned()));
                } else if let Some(arguments) = str_of(item, "arguments") {
                    asm.append(slot, arguments);
                }
                Some(slot)
            }
            _ => {
                let slot = asm.open(Kind::Native);
                asm.slots[slot].native = item.as_object().cloned();
                Some(slot)
            }
        };
        self.items.push(Item { output_index, slot, parts: Vec::new(), id });
    }

    /// The slot of an item of `kind` at `output_index`, opened when no `…added` came.
    fn slot_of(&mut self, output_index: u64, kind: &str, asm: &mut Assembler) -> usize {
        if self.item(output_index).is_none() {
            self.added(output_index, &serde_json::json!({"type": kind}), asm);
        }
        let at = self.item(output_index).unwrap_or(0);
        match self.items[at].slot {
            Some(slot) => slot,
            // An item that came as a message and goes on as something else: a block of its own.
            None => {
                let slot = match kind {
                    "reasoning" => asm.open(Kind::Reasoning),
                    "function_call" | "custom_tool_call" => asm.open(Kind::Call),
                    _ => asm.open(Kind::Native),
                };
                self.items[at].slot = Some(slot);
                slot
            }
        }
    }

    fn part(&mut self, output_index: u64, content_index: u64, part: &Value, asm: &mut Assembler) {
        let refusal = str_of(part, "type") == Some("refusal");
        let slot = self.part_slot(output_index, content_index, refusal, asm);
        if let Some(annotations) = part.get("annotations").and_then(Value::as_array) {
            asm.slots[slot].annotations.extend(annotations.iter().cloned());
        }
    }

    fn part_slot(&mut self, output_index: u64, content_index: u64, refusal: bool, asm: &mut Assembler) -> usize {
        if self.item(output_index).is_none() {
            self.added(output_index, &serde_json::json!({"type": "message"}), asm);
        }
        let at = self.item(output_index).unwrap_or(0);
        if let Some(&(_, slot)) = self.items[at].parts.iter().find(|p| p.0 == content_index) {
            return slot;
        }
        let slot = asm.open(Kind::Text);
        asm.slots[slot].refusal = refusal;
        asm.slots[slot].item_id = self.items[at].id.clone();
        self.items[at].parts.push((content_index, slot));
        slot
    }

    /// The whole item: what is kept and sent back.
    fn done(&mut self, output_index: u64, item: &Value, asm: &mut Assembler) {
        self.added(output_index, item, asm);
        let at = self.item(output_index).unwrap_or(0);
        if self.items[at].id.is_none() {
            self.items[at].id = str_of(item, "id").map(str::to_owned);
        }
        match str_of(item, "type").unwrap_or("") {
            "message" => {
                for (c, part) in item.get("content").and_then(Value::as_array).into_iter().flatten().enumerate() {
                    let refusal = str_of(part, "type") == Some("refusal");
                    let slot = self.part_slot(output_index, c as u64, refusal, asm);
                    let text = str_of(part, if refusal { "refusal" } else { "text" }).unwrap_or("");
                    let s = &mut asm.slots[slot];
                    match text.strip_prefix(s.text.as_str()) {
                        // What the deltas missed, said now.
                        Some(rest) => {
                            let rest = rest.to_owned();
                            asm.append(slot, &rest);
                        }
                        None => s.text = text.to_owned(),
                    }
                    if let Some(annotations) = part.get("annotations").and_then(Value::as_array) {
                        asm.slots[slot].annotations = annotations.clone();
                    }
                    asm.slots[slot].item_id = str_of(item, "id").map(str::to_owned);
                    asm.close(slot);
                }
                if let Some(phase) = item.get("phase").filter(|p| !p.is_null()) {
                    asm.details.insert("phase".to_owned(), phase.clone());
                }
            }
            "reasoning" => {
                let slot = self.slot_of(output_index, "reasoning", asm);
                let summary: Vec<String> = item
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|p| str_of(p, "text").map(str::to_owned))
                    .collect();
                let content: String = item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|p| str_of(p, "text"))
                    .collect::<Vec<_>>()
                    .join("\n\n");
                let text = if summary.is_empty() { content } else { summary.join("\n\n") };
                match text.strip_prefix(asm.slots[slot].text.as_str()) {
                    Some(rest) => {
                        let rest = rest.to_owned();
                        asm.append(slot, &rest);
                    }
                    None => asm.slots[slot].text = text,
                }
                let s = &mut asm.slots[slot];
                s.summary = summary;
                s.encrypted = str_of(item, "encrypted_content").map(str::to_owned);
                s.item_id = str_of(item, "id").map(str::to_owned);
                asm.close(slot);
            }
            "function_call" => {
                let slot = self.slot_of(output_index, "function_call", asm);
                let s = &mut asm.slots[slot];
                if let Some(arguments) = str_of(item, "arguments") {
                    s.arguments = arguments.to_owned();
                }
                s.call_id = str_of(item, "call_id").map(str::to_owned).or(s.call_id.take());
                if let Some(name) = str_of(item, "name") {
                    s.name = name.to_owned();
                }
                s.item_id = str_of(item, "id").map(str::to_owned);
                // A call the output limit cut (`status: incomplete`) is not whole.
                if str_of(item, "status") != Some("incomplete") {
                    asm.close(slot);
                }
            }
            "custom_tool_call" => {
                let slot = self.slot_of(output_index, "custom_tool_call", asm);
                let s = &mut asm.slots[slot];
                s.input = Some(Value::String(str_of(item, "input").unwrap_or("").to_owned()));
                s.call_id = str_of(item, "call_id").map(str::to_owned).or(s.call_id.take());
                if let Some(name) = str_of(item, "name") {
                    s.name = name.to_owned();
                }
                s.item_id = str_of(item, "id").map(str::to_owned);
                if str_of(item, "status") != Some("incomplete") {
                    asm.close(slot);
                }
            }
            _ => {
                let slot = self.slot_of(output_index, "native", asm);
                asm.slots[slot].native = item.as_object().cloned();
                asm.close(slot);
            }
        }
    }

    /// A response object: a terminal event's, or a whole body.
    fn response(&mut self, response: &Value, asm: &mut Assembler, whole: bool) {
        asm.set_id(str_of(response, "id"));
        asm.set_model(str_of(response, "model"));
        if whole || self.items.is_empty() {
            for (i, item) in response.get("output").and_then(Value::as_array).into_iter().flatten().enumerate() {
                self.done(i as u64, item, asm);
            }
        }
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            asm.usage = Some(usage.clone());
        }
        let status = str_of(response, "status").unwrap_or("completed");
        match status {
            "failed" => {
                let error = response.get("error").filter(|e| e.is_object());
                asm.failure = Some(match error {
                    Some(error) => failure_of(error, "failed"),
                    None => crate::update::record::ProviderFailure {
                        kind: "failed".to_owned(),
                        message: "the response failed".to_owned(),
                        status: None,
                        code: None,
                    },
                });
                asm.stop_reason = Some("failed".to_owned());
            }
            "incomplete" => {
                let details = response.get("incomplete_details");
                asm.stop_reason = Some(details.and_then(|d| str_of(d, "reason")).unwrap_or("incomplete").to_owned());
                if let Some(details) = details.filter(|d| !d.is_null()) {
                    asm.details.insert("incomplete_details".to_owned(), details.clone());
                }
                asm.finished = true;
            }
            other => {
                asm.stop_reason = Some(other.to_owned());
                asm.finished = true;
            }
        }
    }

    /// The stream ended without a terminal event.
    pub fn cut_short(&self) -> bool {
        !self.ended
    }
}
