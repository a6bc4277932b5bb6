//! Folding one record into the items: the dispatch by kind, and the records that are events or
//! frame the conversation (a compaction's cut, the prompt heads, usage anchors, edited paths);
//! the ACP updates that make items are [`super::messages`]'.

use std::collections::HashMap;

use serde_json::Value;

use super::state::{Correction, LastAnswer, OverheadCarry, ReplayState};
use crate::conversation::{Item, Part, SyntheticReason, UserMessage};
use crate::diagnostic::Diagnostic;
use crate::tokens::{item_tokens, Family};
use crate::update::acp::{AcpUpdate, SessionUpdate, ToolCallContent, ToolKind};
use crate::update::record::{Event, Record, RecordBody, UsageAnchor};
use crate::update::rewind::{chunk_key, ChunkKey};

#[derive(Debug, Clone, Default)]
pub(super) struct Folder {
    pub(super) items: Vec<Item>,
    /// `seq` of the record that created each item (parallel to `items`).
    pub(super) item_seqs: Vec<u64>,
    pub(super) state: ReplayState,
    /// The previous record's chunk stream and message id (chunks continue their message).
    pub(super) prev: Option<ChunkKey>,
    /// Lowest item index changed since [`Replayer::take_changed_from`].
    pub(super) changed_from: usize,
    /// ACP toolCallId → index of its ToolCall item.
    pub(super) calls: HashMap<String, usize>,
    /// ACP toolCallId → index of its ToolResult item.
    pub(super) results: HashMap<String, usize>,
    /// ACP toolCallId → the record that last set its result's content (not for results a
    /// compaction trimmed: their content is not one record's).
    pub(super) content_seqs: HashMap<String, u64>,
}


impl Folder {
    pub(super) fn changed(&mut self, index: usize) {
        self.changed_from = self.changed_from.min(index);
    }

    pub(super) fn fold(&mut self, record: &Record, diagnostics: &mut Vec<Diagnostic>) {
        // A checkpoint is derived: the history reads as if it were not there.
        if record.body.is_checkpoint() {
            return;
        }
        let prev = std::mem::replace(&mut self.prev, chunk_key(record));
        let prev = prev.as_ref();
        match &record.body {
            RecordBody::Update(AcpUpdate::Known(update)) => match update {
                SessionUpdate::UserMessageChunk(chunk) => self.user_chunk(prev, record, chunk, diagnostics),
                SessionUpdate::AgentMessageChunk(chunk) => self.agent_chunk(prev, record, chunk, diagnostics),
                SessionUpdate::AgentThoughtChunk(chunk) => self.thought_chunk(prev, record, chunk),
                SessionUpdate::ToolCall(call) => {
                    self.note_edits(call.kind, call.content.as_deref(), call.locations.as_deref());
                    self.tool_call(record.seq, call)
                }
                SessionUpdate::ToolCallUpdate(patch) => {
                    self.note_edits(patch.kind, patch.content.as_deref(), patch.locations.as_deref());
                    self.tool_update(record.seq, patch, diagnostics)
                }
                SessionUpdate::Plan(_) => {}
            },
            RecordBody::Update(AcpUpdate::Other(_)) => {}
            RecordBody::Event(event) => match event {
                // A refusal's count corrects the ledger; it is no answer's usage.
                Event::UsageAnchor(UsageAnchor { input_tokens, counted: Some(counted), .. }) => {
                    self.state.correction = Some(Correction { tokens: *input_tokens, counted: *counted })
                }
                Event::UsageAnchor(usage) => {
                    self.state.note(event);
                    self.state.usage = Some(usage.clone());
                    self.state.items_at_usage = self.items.len();
                    self.state.overhead_carry = None;
                    self.state.correction = None;
                }
                Event::ModelSwitch(switch) => self.state.model = Some(switch.clone()),
                Event::CompactionCheckpoint(cp) => {
                    // The provider's count beyond our estimate, before the cut.
                    let family = self.family();
                    // Each item estimated once: the sums below are over parts of the same items.
                    let sizes: Vec<u64> = self.items.iter().map(|i| item_tokens(i, family)).collect();
                    let before: u64 = sizes.iter().sum();
                    let carry = match &self.state.usage {
                        Some(usage) => {
                            let covered_len = self.state.items_at_usage.min(self.items.len());
                            let covered = &self.items[..covered_len];
                            let anchored: u64 = sizes[..covered_len].iter().sum();
                            let response: u64 = sizes[crate::conversation::response_start(covered)..covered_len].iter().sum();
                            let total = usage.context(response);
                            let heads = usage.head_tokens.unwrap_or(0) as i64;
                            Some(OverheadCarry {
                                excess: (total as i64).saturating_sub(anchored as i64).saturating_sub(heads),
                                kept: 1.0,
                                framing_only: usage.head_tokens.is_some(),
                                family,
                            })
                        }
                        None => self.state.overhead_carry,
                    };
                    // The first item kept: earlier summaries stand for records before them, so
                    // they never mark where the kept records start (their seq is later).
                    let keep_from = (0..self.items.len())
                        .find(|&i| {
                            self.item_seqs[i] >= cp.first_kept_seq
                                && !matches!(&self.items[i], Item::User(m) if matches!(m.synthetic, Some(SyntheticReason::Compaction | SyntheticReason::Prefix)))
                        })
                        .unwrap_or(self.items.len());
                    let kept_items = self.items.split_off(keep_from);
                    let kept_seqs = self.item_seqs.split_off(keep_from);
                    // The first-user prefix stays first until new heads replace it.
                    let prefix = match (self.items.first(), self.item_seqs.first()) {
                        (Some(item @ Item::User(m)), Some(&seq)) if m.synthetic == Some(SyntheticReason::Prefix) => Some((seq, item.clone())),
                        _ => None,
                    };
                    self.items.clear();
                    self.item_seqs.clear();
                    self.changed(0);
                    if let Some((seq, item)) = prefix {
                        self.push(seq, item);
                    }
                    // An empty summary only cuts: the kept records carry the summary themselves
                    // (an importer whose agent placed it among them).
                    if !cp.summary.trim().is_empty() {
                        self.push(
                            record.seq,
                            Item::User(UserMessage {
                                id: format!("compaction-{}", record.seq),
                                content: vec![Part::text(summary_text(&cp.summary))],
                                synthetic: Some(SyntheticReason::Compaction),
                            }),
                        );
                    }
                    match cp.trim_kept_over {
                        Some(limit) => self.items.extend(kept_items.into_iter().map(|item| trim_kept(item, limit))),
                        None => self.items.extend(kept_items),
                    }
                    self.item_seqs.extend(kept_seqs);
                    self.reindex_calls();
                    // Only kept results are read back, and not those the compaction trimmed.
                    let results = &self.results;
                    let trimmed = cp.trim_kept_over.is_some();
                    self.content_seqs.retain(|id, _| !trimmed && results.contains_key(id));
                    // The anchor described the context before the cut; what stays of it is the
                    // overhead, in proportion to the share of the estimate that was kept.
                    let after: u64 = self.items.iter().map(|i| item_tokens(i, family)).sum();
                    self.state.usage = None;
                    self.state.items_at_usage = 0;
                    let share = if before == 0 { 0.0 } else { after as f64 / before as f64 };
                    self.state.overhead_carry = carry.map(|c| OverheadCarry { kept: c.kept * share, ..c });
                    self.state.last_compaction_seq = Some(record.seq);
                }
                Event::Rewind(_) => {}
                Event::ReminderInjected(reminder) => self.push(
                    record.seq,
                    Item::User(UserMessage {
                        id: format!("reminder-{}", record.seq),
                        content: vec![Part::text(reminder.text.clone())],
                        synthetic: Some(SyntheticReason::SystemReminder),
                    }),
                ),
                Event::PromptHeadSnapshot(heads) => {
                    self.set_prefix(record.seq, &heads.first_user_prefix);
                    self.state.heads = Some(heads.clone());
                }
                Event::EditedPaths(edited) => {
                    for path in &edited.paths {
                        self.note_edited(path);
                    }
                }
                // How an answer ended says nothing the model sees; the session reads it.
                Event::AnswerEnd(end) => {
                    self.state.last_answer = Some(LastAnswer {
                        status: end.status,
                        stop_reason: end.stop_reason.clone(),
                        refused: end.is_refusal(),
                        provider: end.provider.clone(),
                        model: end.model.clone(),
                        error: end.error.clone(),
                        dropped: end.dropped.is_some(),
                        blocked: end.blocked().map(str::to_owned),
                        items: self.items.len(),
                        seq: record.seq,
                    })
                }
                Event::ToolsDefined(defined) => self.state.tools = Some(defined.tools.clone()),
                Event::Checkpoint(_) => {}
                Event::SubagentStarted(_) | Event::SubagentEnded(_) => self.state.note(event),
            },
            RecordBody::Unknown(_) => self.state.skipped_records += 1,
        }
    }

    /// The tokenizer family of the model the session last used.
    pub(super) fn family(&self) -> Family {
        match (&self.state.usage, &self.state.overhead_carry, &self.state.model) {
            (Some(u), _, _) => Family::of_names(u.provider.as_deref(), u.model.as_deref()),
            (None, Some(carry), _) => carry.family,
            (None, None, Some(m)) => Family::of_names(Some(&m.provider), Some(&m.model)),
            (None, None, None) => Family::OpenAi,
        }
    }

    /// Puts the first-user prefix first: it replaces the one there, or opens the conversation.
    /// An unchanged prefix changes nothing (the request prefix stays byte-identical).
    pub(super) fn set_prefix(&mut self, seq: u64, prefix: &str) {
        let has_prefix = matches!(self.items.first(), Some(Item::User(m)) if m.synthetic == Some(SyntheticReason::Prefix));
        let same = match self.items.first() {
            Some(Item::User(m)) if has_prefix => matches!(m.content.as_slice(), [Part::Text { text, .. }] if **text == *prefix),
            _ => prefix.is_empty(),
        };
        if same {
            return;
        }
        // The usage anchor counts items: it moves with the one added or removed before it.
        let anchored = self.state.usage.is_some() && self.state.items_at_usage > 0;
        if has_prefix {
            self.items.remove(0);
            self.item_seqs.remove(0);
            if anchored {
                self.state.items_at_usage -= 1;
            }
        }
        if !prefix.is_empty() {
            let item = Item::User(UserMessage { id: format!("prefix-{seq}"), content: vec![Part::text(prefix)], synthetic: Some(SyntheticReason::Prefix) });
            self.items.insert(0, item);
            self.item_seqs.insert(0, seq);
            if anchored {
                self.state.items_at_usage += 1;
            }
        }
        self.changed(0);
        self.reindex_calls();
    }

    pub(super) fn note_edited(&mut self, path: &str) {
        if !path.is_empty() && !self.state.edited_paths.iter().any(|p| p == path) {
            self.state.edited_paths.push(path.to_owned());
        }
    }

    /// Paths a tool call changed: every diff's path, and the locations of an edit, delete or move.
    pub(super) fn note_edits(&mut self, kind: Option<ToolKind>, content: Option<&[ToolCallContent]>, locations: Option<&[Value]>) {
        for c in content.unwrap_or(&[]) {
            if let ToolCallContent::Diff { path, .. } = c {
                self.note_edited(path);
            }
        }
        let changes = match kind {
            Some(ToolKind::Edit | ToolKind::Delete | ToolKind::Move) => true,
            Some(
                ToolKind::Read | ToolKind::Search | ToolKind::Execute | ToolKind::Think | ToolKind::Fetch | ToolKind::SwitchMode | ToolKind::Other,
            )
            | None => false,
        };
        if changes {
            for location in locations.unwrap_or(&[]) {
                if let Some(path) = location.get("path").and_then(Value::as_str) {
                    self.note_edited(path);
                }
            }
        }
    }

    pub(super) fn push(&mut self, seq: u64, item: Item) {
        self.changed(self.items.len());
        self.items.push(item);
        self.item_seqs.push(seq);
    }

    pub(super) fn reindex_calls(&mut self) {
        self.calls.clear();
        self.results.clear();
        for (index, item) in self.items.iter().enumerate() {
            match item {
                Item::ToolCall(call) => {
                    self.calls.insert(acp_id(&call.id).to_owned(), index);
                }
                Item::ToolResult(result) => {
                    self.results.insert(acp_id(&result.id).to_owned(), index);
                }
                Item::User(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::Native(_) => {}
            }
        }
    }
}

/// The model's view of a compaction summary: framed, so it never reads as something a person
/// typed, and neutralised, so the summary cannot close the frame.
pub fn summary_text(summary: &str) -> String {
    crate::framing::wrap("compaction_summary", summary.trim())
}

/// The ACP toolCallId behind a call or result item id.
pub(super) fn acp_id(item_id: &str) -> &str {
    item_id.strip_prefix("call:").or_else(|| item_id.strip_prefix("result:")).unwrap_or(item_id)
}

/// A kept item as a compaction that had to trim leaves it: a tool result, or the output of a
/// command the user ran, over `limit` characters keeps its head and tail; what a person or the
/// model wrote stays whole.
pub(super) fn trim_kept(item: Item, limit: usize) -> Item {
    let trimmed = |content: &[Part]| crate::conversation::soft_trimmed(content, limit, limit / 2, limit / 2).map(|text| vec![Part::text(text)]);
    match item {
        Item::ToolResult(mut r) => {
            if let Some(content) = trimmed(&r.content) {
                r.content = content;
            }
            Item::ToolResult(r)
        }
        Item::User(mut m) if m.synthetic == Some(SyntheticReason::Interjection) => {
            if let Some(content) = trimmed(&m.content) {
                m.content = content;
            }
            Item::User(m)
        }
        other @ (Item::User(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_)) => other,
    }
}
