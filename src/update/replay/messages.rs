//! The ACP updates that make items: chunks of a user's, an agent's or a thought's message
//! (merged while they continue one message), tool calls, their updates and results.

use serde_json::Value;

use super::fold::Folder;
use crate::conversation::{Annotations, AssistantText, Item, Origin, Part, Reasoning, ToolCall, ToolResult, UserMessage};
use crate::diagnostic::Diagnostic;
use crate::update::acp::{AcpUpdate, ContentBlock, ContentChunk, ProviderMeta, SessionUpdate, ToolCallPatch, ToolCallStart, ToolCallStatus};
use crate::update::codes;
use crate::update::parts::{append_part, part_of, result_parts, unsupported};
use crate::update::record::{Record, RecordBody};
use crate::update::rewind::{continues_key, ChunkKey};

impl Folder {
pub(super) fn user_chunk(&mut self, prev: Option<&ChunkKey>, record: &Record, chunk: &ContentChunk, diags: &mut Vec<Diagnostic>) {
        let meta = ProviderMeta::from_meta(chunk.meta.as_ref());
        let Some(part) = part_of(&chunk.content, record.seq, diags) else {
            return;
        };
        if continues_key(prev, record) {
            let last = self.items.len().wrapping_sub(1);
            if let Some(Item::User(message)) = self.items.last_mut() {
                append_part(&mut message.content, part);
                self.changed(last);
                return;
            }
        }
        if meta.synthetic.is_none() {
            self.state.prompt_count += 1;
        }
        let id = chunk.message_id.clone().unwrap_or_else(|| format!("user-{}", record.seq));
        self.push(record.seq, Item::User(UserMessage { id, content: vec![part], synthetic: meta.synthetic }));
    }

    pub(super) fn agent_chunk(&mut self, prev: Option<&ChunkKey>, record: &Record, chunk: &ContentChunk, diags: &mut Vec<Diagnostic>) {
        let text = match &chunk.content {
            ContentBlock::Text { text, .. } => text,
            other => {
                diags.push(unsupported(record.seq, "agent message", other));
                return;
            }
        };
        let meta = ProviderMeta::from_meta(chunk.meta.as_ref());
        if continues_key(prev, record) {
            let last = self.items.len().wrapping_sub(1);
            if let Some(Item::Assistant(message)) = self.items.last_mut() {
                std::sync::Arc::make_mut(&mut message.text).push_str(text);
                if message.origin.is_none() {
                    message.origin = origin_of(&meta);
                }
                self.changed(last);
                return;
            }
        }
        let id = chunk.message_id.clone().unwrap_or_else(|| format!("agent-{}", record.seq));
        let origin = origin_of(&meta);
        let annotations = match meta.annotations {
            Some(serde_json::Value::Array(list)) if !list.is_empty() => Some(Box::new(Annotations { list, item_id: meta.item_id })),
            _ => None,
        };
        self.push(record.seq, Item::Assistant(AssistantText { id, text: text.clone(), origin, signature: meta.signature, annotations }));
    }

    pub(super) fn thought_chunk(&mut self, prev: Option<&ChunkKey>, record: &Record, chunk: &ContentChunk) {
        let text = match &chunk.content {
            ContentBlock::Text { text, .. } => Some(text),
            ContentBlock::Image { .. } | ContentBlock::Audio { .. } | ContentBlock::ResourceLink { .. } | ContentBlock::Resource { .. } => None,
        };
        let meta = ProviderMeta::from_meta(chunk.meta.as_ref());
        if continues_key(prev, record) {
            let last = self.items.len().wrapping_sub(1);
            if let Some(Item::Reasoning(reasoning)) = self.items.last_mut() {
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    std::sync::Arc::make_mut(&mut reasoning.text).push_str(text);
                }
                // Signatures arrive with the last chunk of a thinking block.
                if reasoning.origin.is_none() {
                    reasoning.origin = origin_of(&meta);
                }
                if meta.signature.is_some() {
                    reasoning.signature = meta.signature;
                }
                if meta.encrypted.is_some() {
                    reasoning.encrypted = meta.encrypted;
                }
                if meta.reasoning_id.is_some() {
                    reasoning.provider_id = meta.reasoning_id;
                }
                if meta.summary.is_some() {
                    reasoning.summary = meta.summary;
                }
                self.changed(last);
                return;
            }
        }
        let id = chunk.message_id.clone().map_or_else(|| format!("thought-{}", record.seq), |m| format!("{m}#thought"));
        self.push(
            record.seq,
            Item::Reasoning(Reasoning {
                id,
                text: text.cloned().unwrap_or_default(),
                origin: origin_of(&meta),
                signature: meta.signature,
                encrypted: meta.encrypted,
                provider_id: meta.reasoning_id,
                summary: meta.summary,
            }),
        );
    }

    pub(super) fn tool_call(&mut self, seq: u64, call: &ToolCallStart) {
        let mut meta = ProviderMeta::from_meta(call.meta.as_ref());
        if let Some(native) = meta.native.take() {
            self.native(seq, format!("native:{}", call.tool_call_id), native, &meta);
            return;
        }
        let index = self.items.len();
        self.push(
            seq,
            Item::ToolCall(ToolCall {
                id: call_item_id(&call.tool_call_id),
                call_id: meta.provider_call_id.clone().unwrap_or_else(|| call.tool_call_id.clone()),
                name: meta.tool_name.clone().unwrap_or_else(|| call.title.clone()),
                input: call.raw_input.clone().unwrap_or_else(|| Value::Object(Default::default()).into()),
                origin: origin_of(&meta),
                signature: meta.signature,
            }),
        );
        self.calls.insert(call.tool_call_id.clone(), index);
        if call.status.is_some_and(ToolCallStatus::is_terminal) {
            let content = call.content.as_deref().unwrap_or(&[]);
            let parts = result_parts(content, call.raw_output.as_ref());
            self.set_result(seq, &call.tool_call_id, Some(parts), call.status == Some(ToolCallStatus::Failed));
        }
    }

    pub(super) fn tool_update(&mut self, seq: u64, patch: &ToolCallPatch, diags: &mut Vec<Diagnostic>) {
        let mut meta = ProviderMeta::from_meta(patch.meta.as_ref());
        if let Some(native) = meta.native.take() {
            // A server tool's result: its call may have come in an earlier answer.
            self.native(seq, format!("native:{}#{seq}", patch.tool_call_id), native, &meta);
            return;
        }
        if !self.calls.contains_key(&patch.tool_call_id) {
            diags.push(
                Diagnostic::new(
                    &codes::REPLAY_ORPHAN_UPDATE,
                    format!("tool_call_update for unknown call `{}`", patch.tool_call_id),
                )
                .at_path(format!("seq:{seq}")),
            );
        }
        let has_result = self.results.contains_key(&patch.tool_call_id);
        let terminal = patch.status.is_some_and(ToolCallStatus::is_terminal);
        if terminal || (has_result && (patch.content.is_some() || patch.raw_output.is_some())) {
            let existing = self.results.get(&patch.tool_call_id).and_then(|&i| match &self.items[i] {
                Item::ToolResult(r) => Some(r.is_error),
                _ => None,
            });
            // No new content: the result keeps its own (as it is held, let go or not).
            let parts = match (&patch.content, &patch.raw_output, existing) {
                (None, None, Some(_)) => None,
                _ => Some(result_parts(patch.content.as_deref().unwrap_or(&[]), patch.raw_output.as_ref())),
            };
            let is_error = match patch.status {
                Some(status) => status == ToolCallStatus::Failed,
                None => existing.unwrap_or(false),
            };
            self.set_result(seq, &patch.tool_call_id, parts, is_error);
        }
    }

    /// A provider-native block (a server tool's call or result): one item, as the provider sent it.
    pub(super) fn native(&mut self, seq: u64, id: String, value: serde_json::Map<String, Value>, meta: &ProviderMeta) {
        let origin = Origin { provider: meta.provider.clone().unwrap_or_default(), model: meta.model.clone() };
        self.push(seq, Item::Native(crate::conversation::Native { id, origin, value }));
    }

    /// Sets a call's result: its content (`None`: the content it holds stays) and error flag.
    pub(super) fn set_result(&mut self, seq: u64, acp_call_id: &str, content: Option<Vec<Part>>, is_error: bool) {
        let call_id = match self.calls.get(acp_call_id).map(|&i| &self.items[i]) {
            Some(Item::ToolCall(call)) => call.call_id.clone(),
            _ => acp_call_id.to_owned(),
        };
        if let Some(&index) = self.results.get(acp_call_id) {
            if let Item::ToolResult(result) = &mut self.items[index] {
                if let Some(content) = content {
                    result.content = content;
                    result.released = None;
                    self.content_seqs.insert(acp_call_id.to_owned(), seq);
                }
                result.is_error = is_error;
                self.changed(index);
                return;
            }
        }
        let index = self.items.len();
        if content.is_some() {
            self.content_seqs.insert(acp_call_id.to_owned(), seq);
        }
        let content = content.unwrap_or_default();
        self.push(seq, Item::ToolResult(ToolResult { id: result_item_id(acp_call_id), call_id, content, is_error, released: None }));
        self.results.insert(acp_call_id.to_owned(), index);
    }
}

pub(super) fn call_item_id(acp_id: &str) -> String {
    format!("call:{acp_id}")
}

pub(super) fn result_item_id(acp_id: &str) -> String {
    format!("result:{acp_id}")
}


pub(super) fn origin_of(meta: &ProviderMeta) -> Option<Origin> {
    meta.provider.as_ref().map(|provider| Origin { provider: provider.clone(), model: meta.model.clone() })
}


/// The content a record gives the tool result it sets, as the replay folds it (the record a
/// result's [`Released::seq`] names): the ACP `toolCallId` and the parts. `None` for a record
/// that sets no result's content.
pub fn result_content(record: &Record) -> Option<(String, Vec<Part>)> {
    match &record.body {
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::ToolCall(call))) if ProviderMeta::from_meta(call.meta.as_ref()).native.is_none() => {
            call.status.is_some_and(ToolCallStatus::is_terminal).then(|| (call.tool_call_id.clone(), result_parts(call.content.as_deref().unwrap_or(&[]), call.raw_output.as_ref())))
        }
        RecordBody::Update(AcpUpdate::Known(SessionUpdate::ToolCallUpdate(patch))) if ProviderMeta::from_meta(patch.meta.as_ref()).native.is_none() => {
            (patch.content.is_some() || patch.raw_output.is_some() || patch.status.is_some_and(ToolCallStatus::is_terminal))
                .then(|| (patch.tool_call_id.clone(), result_parts(patch.content.as_deref().unwrap_or(&[]), patch.raw_output.as_ref())))
        }
        _ => None,
    }
}
