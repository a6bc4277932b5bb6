//! OpenAI Chat Completions answers: `chat.completion.chunk`s ending with `[DONE]`, or one
//! `chat.completion` — the whole one read as a single chunk whose `message` is its `delta`.
//!
//! - The first choice is the answer; other choices (`n > 1`) are counted, not recorded.
//! - `content` deltas are one text block; `refusal` deltas another, marked as a refusal;
//!   `reasoning_content` / `reasoning` (DeepSeek, xAI, OpenRouter, vLLM) a reasoning block,
//!   which Chat Completions cannot take back (another model's reasoning follows the reasoning
//!   rule).
//! - `tool_calls` fragments are gathered by `index` (the id and name come in the first, the
//!   arguments in pieces; a fragment without an index continues the last call); a `custom`
//!   call's `input` is its free-form text.
//! - `annotations` (URL citations) are kept on the text.
//! - Usage comes in a last chunk whose `choices` is empty (`usage: null` on the others); a
//!   chunk or body with `error` fails the answer (one that comes after the choice finished is
//!   kept in the end's details: OpenRouter sends one after a `length` cut), as does OpenRouter's
//!   `finish_reason: "error"`; Azure's chunks with no choices and its filter
//!   results are passed over.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::assemble::{Assembler, Kind};
use super::{failure_of, str_of};

#[derive(Debug, Clone, Default)]
pub struct Reader {
    text: Option<usize>,
    refusal: Option<usize>,
    reasoning: Option<usize>,
    /// Tool index → slot.
    calls: Vec<(u64, usize)>,
    /// A finish reason arrived for the first choice.
    finished_choice: bool,
    /// A whole completion was read.
    whole: bool,
}

/// The chunk most of a stream is made of: one choice's text or reasoning delta.
#[derive(Deserialize)]
struct TextChunk<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    choices: Vec<TextChoice<'a>>,
    #[serde(default, borrow)]
    usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TextChoice<'a> {
    #[serde(default)]
    index: u64,
    #[serde(borrow)]
    delta: TextDelta<'a>,
    #[serde(default, borrow)]
    finish_reason: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TextDelta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<&'a RawValue>,
    #[serde(default, borrow)]
    refusal: Option<&'a RawValue>,
    #[serde(default, borrow)]
    annotations: Option<&'a RawValue>,
}

fn is_null(raw: Option<&RawValue>) -> bool {
    raw.is_none_or(|r| r.get() == "null")
}

impl Reader {
    /// Reads a chunk of one choice's text or reasoning without building a JSON value; `false`
    /// for any other chunk (read by [`Reader::read`]).
    pub fn fast(&mut self, data: &str, asm: &mut Assembler) -> bool {
        let Ok(chunk) = serde_json::from_str::<TextChunk>(data) else { return false };
        let [choice] = chunk.choices.as_slice() else { return false };
        let d = &choice.delta;
        let plain = choice.index == 0
            && is_null(chunk.usage)
            && is_null(chunk.error)
            && is_null(choice.finish_reason)
            && is_null(d.tool_calls)
            && is_null(d.refusal)
            && is_null(d.annotations);
        if !plain {
            return false;
        }
        asm.set_id(chunk.id.as_deref());
        asm.set_model(chunk.model.as_deref());
        for text in [&d.reasoning_content, &d.reasoning].into_iter().flatten().filter(|t| !t.is_empty()) {
            let slot = *self.reasoning.get_or_insert_with(|| asm.open(Kind::Reasoning));
            asm.append(slot, text);
        }
        if let Some(text) = d.content.as_deref().filter(|t| !t.is_empty()) {
            let slot = *self.text.get_or_insert_with(|| asm.open(Kind::Text));
            asm.append(slot, text);
        }
        true
    }

    pub fn read(&mut self, value: &Value, asm: &mut Assembler) {
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            // After the choice finished (a `length` cut, say) the answer is as whole as it gets:
            // an error the proxy sends then is kept, and does not fail it.
            if self.finished_choice {
                asm.details.insert("errorAfterFinish".to_owned(), error.clone());
            } else {
                asm.failure = Some(failure_of(error, "stream_error"));
            }
            return;
        }
        // Older servers write errors flat (`{"object": "error", "message": …}`).
        if str_of(value, "object") == Some("error") {
            asm.failure = Some(failure_of(value, "error"));
            return;
        }
        asm.set_id(str_of(value, "id"));
        asm.set_model(str_of(value, "model"));
        let whole = str_of(value, "object") == Some("chat.completion") || value.pointer("/choices/0/message").is_some();
        if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
            asm.usage = Some(usage.clone());
        }
        for key in ["system_fingerprint", "service_tier"] {
            if let Some(v) = value.get(key).filter(|v| !v.is_null()) {
                asm.details.insert(key.to_owned(), v.clone());
            }
        }
        for choice in value.get("choices").and_then(Value::as_array).into_iter().flatten() {
            let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            if index > 0 {
                asm.extra_choices = asm.extra_choices.max(u32::try_from(index).unwrap_or(u32::MAX));
                continue;
            }
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            if let Some(delta) = delta {
                self.delta(delta, asm);
            }
            if let Some(reason) = str_of(choice, "finish_reason") {
                // OpenRouter ends a choice the upstream failed with `error` (its error object,
                // when it sends one, was read above): the answer failed.
                if reason == "error" {
                    let native = str_of(choice, "native_finish_reason").unwrap_or("error");
                    let message = format!("the provider ended the answer with an error (finish_reason \"error\", native \"{native}\")");
                    asm.failure = Some(crate::update::record::ProviderFailure { kind: native.to_owned(), message, status: None, code: None });
                    continue;
                }
                asm.stop_reason = Some(reason.to_owned());
                self.finished_choice = true;
                asm.finished = true;
                // The calls are whole unless the output was cut at its length limit.
                if reason != "length" {
                    for &(_, slot) in &self.calls {
                        asm.close(slot);
                    }
                }
            }
        }
        if whole {
            self.whole = true;
            asm.finished = true;
        }
    }

    fn delta(&mut self, delta: &Value, asm: &mut Assembler) {
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = str_of(delta, key).filter(|t| !t.is_empty()) {
                let slot = *self.reasoning.get_or_insert_with(|| asm.open(Kind::Reasoning));
                asm.append(slot, text);
            }
        }
        if let Some(text) = str_of(delta, "content").filter(|t| !t.is_empty()) {
            let slot = *self.text.get_or_insert_with(|| asm.open(Kind::Text));
            asm.append(slot, text);
        }
        if let Some(text) = str_of(delta, "refusal").filter(|t| !t.is_empty()) {
            let slot = *self.refusal.get_or_insert_with(|| {
                let slot = asm.open(Kind::Text);
                asm.slots[slot].refusal = true;
                slot
            });
            asm.append(slot, text);
        }
        if let Some(annotations) = delta.get("annotations").and_then(Value::as_array).filter(|a| !a.is_empty()) {
            let slot = *self.text.get_or_insert_with(|| asm.open(Kind::Text));
            asm.slots[slot].annotations.extend(annotations.iter().cloned());
        }
        for (position, call) in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let index = match call.get("index").and_then(Value::as_u64) {
                Some(index) => index,
                // No index: a fragment with an id starts a call; one without continues the last.
                None if str_of(call, "id").is_some_and(|id| !id.is_empty()) => self.calls.len() as u64 + position as u64,
                None => self.calls.last().map_or(0, |c| c.0),
            };
            let slot = match self.calls.iter().find(|c| c.0 == index) {
                Some(&(_, slot)) => slot,
                None => {
                    let slot = asm.open(Kind::Call);
                    self.calls.push((index, slot));
                    slot
                }
            };
            let s = &mut asm.slots[slot];
            if let Some(id) = str_of(call, "id").filter(|id| !id.is_empty()) {
                s.call_id.get_or_insert_with(|| id.to_owned());
            }
            if let Some(custom) = call.get("custom") {
                if let Some(name) = str_of(custom, "name").filter(|n| !n.is_empty()) {
                    s.name = name.to_owned();
                }
                if let Some(input) = str_of(custom, "input") {
                    // A free-form tool's input is its text, not JSON.
                    let mut text = match s.input.take() {
                        Some(Value::String(text)) => text,
                        _ => String::new(),
                    };
                    text.push_str(input);
                    s.input = Some(Value::String(text));
                }
                continue;
            }
            if let Some(function) = call.get("function") {
                if let Some(name) = str_of(function, "name").filter(|n| !n.is_empty()) {
                    s.name = name.to_owned();
                }
                if let Some(arguments) = str_of(function, "arguments") {
                    asm.append(slot, arguments);
                }
            }
        }
    }

    /// The stream ended without a finish reason for its choice (and is not a whole
    /// completion): `[DONE]` alone does not make an answer whole — a stream cut short by a
    /// proxy or a server that ran out of time ends with it too.
    pub fn cut_short(&self) -> bool {
        !(self.whole || self.finished_choice)
    }
}
