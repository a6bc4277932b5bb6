//! What every API's decoder builds an answer with: blocks opened, grown and closed in the
//! answer's order, each change said at once as the ACP update a client shows while the answer
//! streams (text and thought chunks as they arrive, a tool call once its arguments are whole),
//! and at the end the [`Answer`] the session records.

use serde_json::{Map, Value};

use super::Answer;
use crate::provider::Provider;
use crate::update::acp::{ContentBlock, ProviderMeta, SessionUpdate, Stream};
use crate::update::record::{AnswerStatus, ProviderFailure, UnfinishedCall};
use crate::update::write::{self, TurnBlock};

/// Which kind of block a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Reasoning,
    Call,
    Native,
}

/// One block of the answer while it arrives.
#[derive(Debug, Clone)]
pub struct Slot {
    pub kind: Kind,
    pub text: String,
    pub signature: Option<String>,
    pub encrypted: Option<String>,
    /// The provider's id of the item this block came in (Responses `msg_…`, `fc_…`, `rs_…`).
    pub item_id: Option<String>,
    /// Responses reasoning summary parts.
    pub summary: Vec<String>,
    pub annotations: Vec<Value>,
    pub refusal: bool,
    /// A call's id, or the server call a native result answers.
    pub call_id: Option<String>,
    pub name: String,
    /// A call's argument text as it arrives.
    pub arguments: String,
    /// A call's input when it came whole (a parsed object, or a free-form tool's string).
    pub input: Option<Value>,
    pub native: Option<Map<String, Value>>,
    /// The message id its live updates carry (text and reasoning).
    message_id: String,
    pub closed: bool,
}

/// An answer under construction.
#[derive(Debug, Clone)]
pub struct Assembler {
    pub provider: Provider,
    /// The id live updates use until the provider names its message.
    fallback_id: String,
    /// The provider's message or response id.
    pub id: Option<String>,
    /// The id the first block's updates were sent under: kept from then on.
    turn_id: Option<String>,
    pub model: Option<String>,
    pub slots: Vec<Slot>,
    texts: usize,
    thoughts: usize,
    /// Updates for the client, in order, until taken.
    pub live: Vec<SessionUpdate>,
    pub usage: Option<Value>,
    pub stop_reason: Option<String>,
    /// The provider said the answer is finished (its terminal event, or a whole body).
    pub finished: bool,
    pub failure: Option<ProviderFailure>,
    pub extra_choices: u32,
    pub details: Map<String, Value>,
}

impl Assembler {
    pub fn new(provider: Provider, fallback_id: &str) -> Assembler {
        Assembler {
            provider,
            fallback_id: fallback_id.to_owned(),
            id: None,
            turn_id: None,
            model: None,
            slots: Vec::new(),
            texts: 0,
            thoughts: 0,
            live: Vec::new(),
            usage: None,
            stop_reason: None,
            finished: false,
            failure: None,
            extra_choices: 0,
            details: Map::new(),
        }
    }

    /// Names the provider's message (an empty id names nothing).
    pub fn set_id(&mut self, id: Option<&str>) {
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.id.get_or_insert_with(|| id.to_owned());
        }
    }

    pub fn set_model(&mut self, model: Option<&str>) {
        if let Some(model) = model.filter(|m| !m.is_empty()) {
            self.model = Some(model.strip_prefix("models/").unwrap_or(model).to_owned());
        }
    }

    /// The turn's message id: fixed by the first block.
    fn turn_id(&mut self) -> String {
        let fallback = self.id.clone().unwrap_or_else(|| self.fallback_id.clone());
        self.turn_id.get_or_insert(fallback).clone()
    }

    fn meta(&self) -> ProviderMeta {
        ProviderMeta { provider: Some(self.provider.as_str().to_owned()), model: self.model.clone(), ..ProviderMeta::default() }
    }

    /// Opens a block; returns its slot.
    pub fn open(&mut self, kind: Kind) -> usize {
        let turn = self.turn_id();
        let message_id = match kind {
            Kind::Text => {
                self.texts += 1;
                write::block_message_id(&turn, false, self.texts - 1)
            }
            Kind::Reasoning => {
                self.thoughts += 1;
                write::block_message_id(&turn, true, self.thoughts - 1)
            }
            Kind::Call | Kind::Native => String::new(),
        };
        self.slots.push(Slot {
            kind,
            text: String::new(),
            signature: None,
            encrypted: None,
            item_id: None,
            summary: Vec::new(),
            annotations: Vec::new(),
            refusal: false,
            call_id: None,
            name: String::new(),
            arguments: String::new(),
            input: None,
            native: None,
            message_id,
            closed: false,
        });
        self.slots.len() - 1
    }

    /// Adds text to a text or reasoning block (or argument text to a call), telling the client.
    pub fn append(&mut self, slot: usize, delta: &str) {
        if delta.is_empty() {
            return;
        }
        let Some(s) = self.slots.get_mut(slot) else { return };
        let stream = match s.kind {
            Kind::Text => Stream::Agent,
            Kind::Reasoning => Stream::Thought,
            Kind::Call | Kind::Native => {
                s.arguments.push_str(delta);
                return;
            }
        };
        s.text.push_str(delta);
        // Deltas of one message that arrive in one read are said as one chunk.
        if let Some((last_stream, chunk)) = self.live.last_mut().and_then(chunk_mut) {
            if last_stream == stream && chunk.message_id.as_deref() == Some(s.message_id.as_str()) {
                if let ContentBlock::Text { text, .. } = &mut chunk.content {
                    // The live chunk's own text (no one else holds it yet): it grows in place.
                    std::sync::Arc::make_mut(text).push_str(delta);
                    return;
                }
            }
        }
        // A chunk said live carries its message id; who said it is in the records at the end.
        self.live.push(write::chunk(stream, Some(&s.message_id), ContentBlock::text(delta), &ProviderMeta::default()));
    }

    /// Closes a block as the provider closed it: a call's arguments are read (text that is not
    /// JSON is kept as the call's input, as the provider gave it), a native block is said to the
    /// client.
    pub fn close(&mut self, slot: usize) {
        self.close_as(slot, true);
    }

    /// Closes a block the provider left open when the answer ended. A call the provider never
    /// closed is a call only when the answer came whole and its argument text is whole JSON
    /// (an empty text is no arguments yet, a free-form input may have been cut anywhere):
    /// otherwise it stays open, and ends up unfinished — a host never runs a call whose
    /// arguments were still arriving.
    fn settle(&mut self, slot: usize, complete: bool) {
        if let Some(s) = self.slots.get(slot).filter(|s| s.kind == Kind::Call && !s.closed) {
            if !complete || s.input.is_some() || s.arguments.trim().is_empty() {
                return;
            }
        }
        self.close_as(slot, false);
    }

    fn close_as(&mut self, slot: usize, by_provider: bool) {
        let turn = self.turn_id();
        let meta = self.meta();
        let calls_before = self.slots[..slot.min(self.slots.len())].iter().filter(|s| s.kind == Kind::Call).count();
        let Some(s) = self.slots.get_mut(slot) else { return };
        if s.closed {
            return;
        }
        match s.kind {
            Kind::Text | Kind::Reasoning => s.closed = true,
            Kind::Call => {
                if s.input.is_none() || !s.arguments.is_empty() {
                    match parse_arguments(&s.arguments) {
                        Some(input) => s.input = Some(input),
                        None if by_provider => s.input = Some(Value::String(s.arguments.clone())),
                        None => return,
                    }
                }
                s.closed = true;
                let id = s.call_id.clone().unwrap_or_else(|| write::derived_call_id(&turn, calls_before));
                self.live.push(write::tool_call(write::CallStart {
                    id,
                    title: s.name.clone(),
                    kind: None,
                    status: crate::update::acp::ToolCallStatus::Pending,
                    content: None,
                    locations: Vec::new(),
                    input: s.input.clone(),
                    meta: ProviderMeta { tool_name: Some(s.name.clone()), ..meta },
                }));
            }
            Kind::Native => {
                if !s.arguments.is_empty() {
                    if let (Some(native), Ok(input)) = (s.native.as_mut(), serde_json::from_str::<Value>(&s.arguments)) {
                        native.insert("input".to_owned(), input);
                    }
                }
                s.closed = true;
                let block = native_block(s);
                let turn = Self::turn_update(&turn, &meta, block);
                self.live.extend(turn);
            }
        }
    }

    fn turn_update(turn: &str, meta: &ProviderMeta, block: TurnBlock) -> Vec<SessionUpdate> {
        write::turn(&write::Turn {
            message_id: turn.to_owned(),
            provider: meta.provider.clone(),
            model: meta.model.clone(),
            blocks: vec![block],
            stop_reason: None,
        })
    }

    /// Live updates since the last call.
    pub fn take_live(&mut self) -> Vec<SessionUpdate> {
        std::mem::take(&mut self.live)
    }

    /// The answer as it stands: blocks in order (empty ones left out), calls whose arguments
    /// never became whole set apart, and how it ended.
    pub fn finish(mut self, cut_short: bool) -> (Answer, Vec<SessionUpdate>) {
        let complete = self.failure.is_none() && self.finished && !cut_short;
        for slot in 0..self.slots.len() {
            self.settle(slot, complete);
        }
        let live = std::mem::take(&mut self.live);
        let turn_id = self.turn_id.clone();
        let mut blocks = Vec::with_capacity(self.slots.len());
        let mut unfinished = Vec::new();
        for s in self.slots {
            match s.kind {
                Kind::Text if s.text.is_empty() && s.signature.is_none() && !s.refusal => {}
                Kind::Text => blocks.push(TurnBlock::Text {
                    text: s.text,
                    signature: s.signature,
                    annotations: (!s.annotations.is_empty()).then_some(Value::Array(s.annotations)),
                    refusal: s.refusal,
                    item_id: s.item_id,
                }),
                Kind::Reasoning if s.text.is_empty() && s.signature.is_none() && s.encrypted.is_none() && s.item_id.is_none() => {}
                Kind::Reasoning => blocks.push(TurnBlock::Reasoning {
                    text: s.text,
                    signature: s.signature,
                    encrypted: s.encrypted,
                    id: s.item_id,
                    summary: (s.summary.len() > 1).then_some(s.summary),
                }),
                Kind::Call if !s.closed => unfinished.push(UnfinishedCall { id: s.call_id, name: s.name, arguments: s.arguments }),
                Kind::Call => blocks.push(TurnBlock::Call {
                    id: s.call_id,
                    name: s.name,
                    input: s.input.unwrap_or_else(|| Value::Object(Map::new())),
                    kind: None,
                    paths: Vec::new(),
                    signature: s.signature,
                    item_id: s.item_id,
                }),
                // A native block the provider never filled has nothing to keep.
                Kind::Native if s.native.as_ref().is_none_or(Map::is_empty) => {}
                Kind::Native => blocks.push(native_block(&s)),
            }
        }
        let status = match (&self.failure, complete) {
            (Some(_), _) => AnswerStatus::Failed,
            (None, true) => AnswerStatus::Complete,
            (None, false) => AnswerStatus::Partial,
        };
        let model = self.model.clone();
        let anchor = self.usage.as_ref().and_then(|u| super::usage::normalise(self.provider, u, model.as_deref()));
        let answer = Answer {
            provider: self.provider,
            model: self.model,
            id: self.id,
            turn_id,
            blocks,
            usage: anchor,
            raw_usage: self.usage,
            stop_reason: self.stop_reason,
            status,
            failure: self.failure,
            extra_choices: self.extra_choices,
            unfinished_calls: unfinished,
            details: self.details,
            head: None,
            hints: super::ErrorHints::default(),
            dropped: None,
        };
        (answer, live)
    }
}

fn chunk_mut(update: &mut SessionUpdate) -> Option<(Stream, &mut crate::update::acp::ContentChunk)> {
    match update {
        SessionUpdate::AgentMessageChunk(c) => Some((Stream::Agent, c)),
        SessionUpdate::AgentThoughtChunk(c) => Some((Stream::Thought, c)),
        SessionUpdate::UserMessageChunk(_) | SessionUpdate::ToolCall(_) | SessionUpdate::ToolCallUpdate(_) | SessionUpdate::Plan(_) => None,
    }
}

/// A native slot as the block the log keeps.
fn native_block(s: &Slot) -> TurnBlock {
    let value = s.native.clone().unwrap_or_default();
    let title = ["name", "type"].iter().find_map(|k| value.get(*k).and_then(Value::as_str)).unwrap_or("server tool").to_owned();
    let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
    TurnBlock::Native { id, answers: s.call_id.clone(), title, value }
}

/// A call's argument text as its input: a JSON object (empty text is no arguments); `None`
/// when the text is not whole JSON.
pub fn parse_arguments(text: &str) -> Option<Value> {
    if text.trim().is_empty() {
        return Some(Value::Object(Map::new()));
    }
    serde_json::from_str::<Value>(text).ok()
}
