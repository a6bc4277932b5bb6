//! Anthropic Messages answers: a stream of `message_start`, per block `content_block_start` /
//! `content_block_delta` / `content_block_stop`, `message_delta` and `message_stop` (with
//! `ping` and `error` anywhere), or one whole message — read the same way, the whole message's
//! blocks as blocks that arrive complete.
//!
//! - `text` with its `citations` (kept as annotations), `thinking` with the signature its
//!   `signature_delta` brings (an empty thinking text with a signature is kept: the API sent it
//!   that way), `redacted_thinking` whole at its start, `tool_use` with its input from
//!   `input_json_delta` pieces (a lone empty piece is no arguments).
//! - Every other block (`server_tool_use`, `web_search_tool_result`, code execution results,
//!   MCP blocks, `compaction`, `fallback`, and block types this version does not know) is a
//!   native block kept as it came: a `pause_turn` continuation sends them back unchanged.
//! - Usage: `message_delta`'s counts are cumulative and replace `message_start`'s, field by field.
//! - The stop reason from `message_delta`; `stop_sequence` and `stop_details` kept as details.
//! - An `error` event (even after HTTP 200, even first) fails the answer with its error type;
//!   what follows it, and a second `message_start` of another message (a spliced stream), is not
//!   this answer.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::assemble::{Assembler, Kind};
use super::{failure_of, str_of};

/// Reads one Anthropic answer.
#[derive(Debug, Clone, Default)]
pub struct Reader {
    /// The API's block index → our slot.
    blocks: Vec<(u64, usize)>,
    /// `message_stop` arrived.
    stopped: bool,
}

/// The event most of a stream is made of: a text, thinking or argument delta.
#[derive(Deserialize)]
struct DeltaEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    index: u64,
    #[serde(borrow)]
    delta: Delta<'a>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    partial_json: Option<Cow<'a, str>>,
}

impl Reader {
    /// Reads a text, thinking or argument delta without building a JSON value; `false` for
    /// any other event (read by [`Reader::read`]).
    pub fn fast(&mut self, name: Option<&str>, data: &str, asm: &mut Assembler) -> bool {
        let delta = match name {
            Some(name) => name == "content_block_delta",
            None => data.contains("\"content_block_delta\""),
        };
        if asm.failure.is_some() || !delta {
            return false;
        }
        let Ok(event) = serde_json::from_str::<DeltaEvent>(data) else { return false };
        if event.kind != "content_block_delta" {
            return false;
        }
        let piece = match event.delta.kind.as_ref() {
            "text_delta" => event.delta.text,
            "thinking_delta" => event.delta.thinking,
            "input_json_delta" => event.delta.partial_json,
            _ => return false,
        };
        let Some(slot) = self.blocks.iter().rev().find(|(i, _)| *i == event.index).map(|&(_, slot)| slot) else { return true };
        asm.append(slot, piece.as_deref().unwrap_or(""));
        true
    }

    pub fn read(&mut self, _name: Option<&str>, value: &Value, asm: &mut Assembler) {
        // After an error the stream is over: what a server writes after it (a spliced stream)
        // is not this answer.
        if asm.failure.is_some() {
            return;
        }
        match str_of(value, "type") {
            Some("message_start") => {
                let id = value.pointer("/message/id").and_then(Value::as_str);
                if asm.id.is_some() && id.is_some() && asm.id.as_deref() != id {
                    asm.failure = Some(crate::update::record::ProviderFailure {
                        kind: "spliced_stream".to_owned(),
                        message: format!("a second message ({}) began before this one ended", id.unwrap_or("")),
                        status: None,
                        code: None,
                    });
                    return;
                }
                if let Some(message) = value.get("message") {
                    self.message(message, asm, false);
                }
            }
            Some("content_block_start") => {
                let index = value.get("index").and_then(Value::as_u64).unwrap_or(self.blocks.len() as u64);
                if let Some(block) = value.get("content_block") {
                    self.start(index, block, asm);
                }
            }
            Some("content_block_delta") => {
                let Some(slot) = self.slot(value) else { return };
                let Some(delta) = value.get("delta") else { return };
                match str_of(delta, "type") {
                    Some("text_delta") => asm.append(slot, str_of(delta, "text").unwrap_or("")),
                    Some("thinking_delta") => asm.append(slot, str_of(delta, "thinking").unwrap_or("")),
                    Some("input_json_delta") => asm.append(slot, str_of(delta, "partial_json").unwrap_or("")),
                    Some("signature_delta") => {
                        if let Some(signature) = str_of(delta, "signature") {
                            asm.slots[slot].signature = Some(signature.to_owned());
                        }
                    }
                    Some("citations_delta") => {
                        if let Some(citation) = delta.get("citation") {
                            asm.slots[slot].annotations.push(citation.clone());
                        }
                    }
                    // Beta compaction blocks stream their content; the block keeps what came.
                    Some("compaction_delta") => {
                        if let Some(native) = asm.slots[slot].native.as_mut() {
                            for key in ["content", "encrypted_content"] {
                                if let Some(v) = delta.get(key).filter(|v| !v.is_null()) {
                                    native.insert(key.to_owned(), v.clone());
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            Some("content_block_stop") => {
                if let Some(slot) = self.slot(value) {
                    asm.close(slot);
                }
            }
            Some("message_delta") => {
                if let Some(delta) = value.get("delta") {
                    self.ending(delta, asm);
                }
                if let Some(usage) = value.get("usage") {
                    merge_usage(asm, usage);
                }
                if let Some(cm) = value.get("context_management").filter(|v| !v.is_null()) {
                    asm.details.insert("context_management".to_owned(), cm.clone());
                }
            }
            Some("message_stop") => {
                self.stopped = true;
                asm.finished = true;
            }
            Some("error") => {
                asm.failure = Some(failure_of(value.get("error").unwrap_or(value), "error"));
            }
            // A whole message: its blocks, usage and stop reason at once.
            Some("message") => {
                self.stopped = true;
                self.message(value, asm, true);
                asm.finished = true;
            }
            // `ping`, and events this version does not know.
            _ => {}
        }
    }

    fn slot(&self, value: &Value) -> Option<usize> {
        let index = value.get("index").and_then(Value::as_u64)?;
        self.blocks.iter().rev().find(|(i, _)| *i == index).map(|&(_, slot)| slot)
    }

    /// A message object: `message_start`'s (usually without content) or a whole body's.
    fn message(&mut self, message: &Value, asm: &mut Assembler, whole: bool) {
        asm.set_id(str_of(message, "id"));
        asm.set_model(str_of(message, "model"));
        if let Some(usage) = message.get("usage") {
            merge_usage(asm, usage);
        }
        for block in message.get("content").and_then(Value::as_array).into_iter().flatten() {
            let index = self.blocks.len() as u64 + 1_000_000;
            let slot = self.start(index, block, asm);
            asm.close(slot);
        }
        if whole || message.get("stop_reason").is_some_and(|r| !r.is_null()) {
            self.ending(message, asm);
        }
        if let Some(container) = message.get("container").filter(|v| !v.is_null()) {
            asm.details.insert("container".to_owned(), container.clone());
        }
    }

    fn ending(&mut self, delta: &Value, asm: &mut Assembler) {
        if let Some(reason) = str_of(delta, "stop_reason") {
            asm.stop_reason = Some(reason.to_owned());
        }
        for key in ["stop_sequence", "stop_details", "container"] {
            if let Some(v) = delta.get(key).filter(|v| !v.is_null()) {
                asm.details.insert(key.to_owned(), v.clone());
            }
        }
    }

    fn start(&mut self, index: u64, block: &Value, asm: &mut Assembler) -> usize {
        let slot = match str_of(block, "type") {
            Some("text") => {
                let slot = asm.open(Kind::Text);
                asm.append(slot, str_of(block, "text").unwrap_or(""));
                if let Some(citations) = block.get("citations").and_then(Value::as_array) {
                    asm.slots[slot].annotations.extend(citations.iter().cloned());
                }
                slot
            }
            Some("thinking") => {
                let slot = asm.open(Kind::Reasoning);
                asm.append(slot, str_of(block, "thinking").unwrap_or(""));
                asm.slots[slot].signature = str_of(block, "signature").filter(|s| !s.is_empty()).map(str::to_owned);
                slot
            }
            Some("redacted_thinking") => {
                let slot = asm.open(Kind::Reasoning);
                asm.slots[slot].encrypted = Some(str_of(block, "data").unwrap_or("").to_owned());
                asm.close(slot);
                slot
            }
            Some("tool_use") => {
                let slot = asm.open(Kind::Call);
                let s = &mut asm.slots[slot];
                s.call_id = str_of(block, "id").map(str::to_owned);
                s.name = str_of(block, "name").unwrap_or("").to_owned();
                // A start block's input is the whole input unless deltas follow (they replace it).
                s.input = block.get("input").filter(|v| v.as_object().is_some_and(|m| !m.is_empty())).cloned();
                slot
            }
            // Everything else is the API's own: kept whole, its input (if any) from deltas.
            _ => {
                let slot = asm.open(Kind::Native);
                // A server tool's input, when its start holds `{}`, comes in `input_json_delta`s.
                asm.slots[slot].native = Some(block.as_object().cloned().unwrap_or_default());
                asm.slots[slot].call_id = str_of(block, "tool_use_id").map(str::to_owned);
                slot
            }
        };
        self.blocks.push((index, slot));
        slot
    }

    /// The stream ended without `message_stop` (and without an error).
    pub fn cut_short(&self) -> bool {
        !self.stopped
    }
}

/// Anthropic's usage reports are cumulative: a later one replaces the fields it names.
fn merge_usage(asm: &mut Assembler, usage: &Value) {
    let Some(fields) = usage.as_object() else { return };
    let target = asm.usage.get_or_insert_with(|| Value::Object(Map::new()));
    if let Some(target) = target.as_object_mut() {
        for (key, value) in fields {
            if !value.is_null() {
                target.insert(key.clone(), value.clone());
            }
        }
    }
}
