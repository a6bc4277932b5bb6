//! The client's coalesced view of a log: what an ACP client replays to show a session — chunks
//! of one message merged, a tool call with its updates folded in, the latest plan, our events
//! as they came. Every record is in it (rewinds included, as events); the model's view is
//! [`super::replay`]'s.

use contextview_derive::ReadValue;
use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::acp::{AcpUpdate, ContentBlock, PlanEntry, SessionUpdate, Stream, ToolCallContent, ToolCallStatus, ToolKind};
use super::record::{Event, Record, RecordBody};
use super::rewind::{chunk_of, continues};

/// One entry of the client's coalesced view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "entry", rename_all = "snake_case")]
pub enum ClientEntry {
    Message {
        role: ClientRole,
        #[serde(rename = "messageId", skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        content: Vec<ContentBlock>,
        seq: u64,
    },
    ToolCall {
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        title: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        kind: Option<ToolKind>,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<ToolCallStatus>,
        content: Vec<ToolCallContent>,
        locations: Vec<Value>,
        #[serde(rename = "rawInput", skip_serializing_if = "Option::is_none")]
        raw_input: Option<crate::conversation::JsonText>,
        #[serde(rename = "rawOutput", skip_serializing_if = "Option::is_none")]
        raw_output: Option<Value>,
        seq: u64,
    },
    Plan {
        entries: Vec<PlanEntry>,
        seq: u64,
    },
    Event {
        event: Event,
        seq: u64,
    },
    /// An ACP update we keep but do not interpret.
    Other {
        update: Value,
        seq: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum ClientRole {
    User,
    Agent,
    Thought,
}

/// Folds records into the coalesced client view (every record, rewinds included as events).
pub(super) fn client_view(records: &[Record]) -> Vec<ClientEntry> {
    let mut view: Vec<ClientEntry> = Vec::new();
    let mut calls: HashMap<&str, usize> = HashMap::new();
    let mut plan_at: Option<usize> = None;
    let mut prev: Option<&Record> = None;
    for record in records {
        // A checkpoint is derived: the client's view reads as if it were not there.
        if record.body.is_checkpoint() {
            continue;
        }
        let seq = record.seq;
        match &record.body {
            RecordBody::Update(AcpUpdate::Known(update)) => match update {
                SessionUpdate::UserMessageChunk(_) | SessionUpdate::AgentMessageChunk(_) | SessionUpdate::AgentThoughtChunk(_) => {
                    let Some((stream, c)) = chunk_of(record) else {
                        continue;
                    };
                    let role = match stream {
                        Stream::User => ClientRole::User,
                        Stream::Agent => ClientRole::Agent,
                        Stream::Thought => ClientRole::Thought,
                    };
                    if continues(prev, record) {
                        if let Some(ClientEntry::Message { content, .. }) = view.last_mut() {
                            match (content.last_mut(), &c.content) {
                                (Some(ContentBlock::Text { text: last, .. }), ContentBlock::Text { text, .. }) => std::sync::Arc::make_mut(last).push_str(text),
                                _ => content.push(c.content.clone()),
                            }
                            prev = Some(record);
                            continue;
                        }
                    }
                    view.push(ClientEntry::Message { role, message_id: c.message_id.clone(), content: vec![c.content.clone()], seq });
                }
                SessionUpdate::ToolCall(call) => {
                    calls.insert(&call.tool_call_id, view.len());
                    view.push(ClientEntry::ToolCall {
                        tool_call_id: call.tool_call_id.clone(),
                        title: call.title.clone(),
                        kind: call.kind,
                        status: call.status,
                        content: call.content.clone().unwrap_or_default(),
                        locations: call.locations.clone().unwrap_or_default(),
                        raw_input: call.raw_input.clone(),
                        raw_output: call.raw_output.clone(),
                        seq,
                    });
                }
                SessionUpdate::ToolCallUpdate(patch) => match calls.get(patch.tool_call_id.as_str()) {
                    Some(&index) => {
                        if let ClientEntry::ToolCall { title, kind, status, content, locations, raw_input, raw_output, .. } =
                            &mut view[index]
                        {
                            if let Some(v) = &patch.title {
                                *title = v.clone();
                            }
                            if patch.kind.is_some() {
                                *kind = patch.kind;
                            }
                            if patch.status.is_some() {
                                *status = patch.status;
                            }
                            if let Some(v) = &patch.content {
                                *content = v.clone();
                            }
                            if let Some(v) = &patch.locations {
                                *locations = v.clone();
                            }
                            if patch.raw_input.is_some() {
                                *raw_input = patch.raw_input.clone();
                            }
                            if patch.raw_output.is_some() {
                                *raw_output = patch.raw_output.clone();
                            }
                        }
                    }
                    None => view.push(ClientEntry::Other { update: serde_json::to_value(update).unwrap_or(Value::Null), seq }),
                },
                SessionUpdate::Plan(plan) => {
                    let entry = ClientEntry::Plan { entries: plan.entries.clone(), seq };
                    match plan_at {
                        Some(index) => view[index] = entry,
                        None => {
                            plan_at = Some(view.len());
                            view.push(entry);
                        }
                    }
                }
            },
            RecordBody::Update(AcpUpdate::Other(value)) => view.push(ClientEntry::Other { update: value.clone(), seq }),
            RecordBody::Event(event) => view.push(ClientEntry::Event { event: event.clone(), seq }),
            RecordBody::Unknown(_) => {}
        }
        prev = Some(record);
    }
    view
}
