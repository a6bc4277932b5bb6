//! The replay reducer: durable records → conversation items (the model's history) and the
//! coalesced view a client replays.
//!
//! Two phases. First, rewinds are applied: a `rewind` record cuts the effective record list back
//! to before the chosen real user prompt (counted in the list as it stands at that moment, so
//! rewinding across a compaction is exact). Second, the effective list is folded into items:
//! chunks of one message merge, `tool_call_update`s fold into their call, a terminal status turns
//! into a tool result, and a compaction checkpoint replaces what it summarises with one synthetic
//! user item. The records themselves are never changed.
//!
//! Split by what it folds: [`state`] is what the replay recovers besides the items (the model,
//! the usage anchor and its carry, the heads, subagents, what was spent), [`fold`] the records
//! that are events or that frame the conversation (compactions, prompt heads, usage, edited
//! paths), [`messages`] the ACP updates that make items (chunks of a message, tool calls, their
//! updates and results); this file the replay's surface — [`replay`], the incremental
//! [`Replayer`] and the [`Resume`] a checkpoint keeps.

use contextview_derive::ReadValue;
mod fold;
mod messages;
mod state;


use serde::Serialize;

use crate::update::client::client_view;
use crate::update::rewind::{apply_rewinds, ChunkKey};
pub use crate::update::rewind::{prompt_fold, prompt_texts, PromptFold};
pub use crate::update::rewind::is_real_prompt_start;
pub use crate::update::client::{ClientEntry, ClientRole};
use crate::update::record::{Event, Record, RecordBody};
use crate::conversation::{Item, Part, Released};
use crate::diagnostic::Diagnostic;
pub use state::*;
use fold::Folder;
pub use messages::result_content;
pub use fold::summary_text;
use fold::acp_id;



/// Everything a replay yields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub items: Vec<Item>,
    pub view: Vec<ClientEntry>,
    pub state: ReplayState,
    pub diagnostics: Vec<Diagnostic>,
}



/// Replays records into items, the client view and session state.
pub fn replay(records: &[Record]) -> Replay {
    let replayer = Replayer::new(records);
    let view = client_view(records);
    Replay { items: replayer.folder.items, view, state: replayer.folder.state, diagnostics: replayer.diagnostics }
}

/// The replay's whole state at a point of the log, as a [`crate::update::checkpoint::Checkpoint`] keeps
/// it: resumed, it folds the records after that point exactly as the full replay would.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Resume {
    items: Vec<Item>,
    item_seqs: Vec<u64>,
    state: ReplayState,
    /// The overhead carry's `kept`, bit for bit (a JSON number need not read back exactly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kept_bits: Option<u64>,
    /// The last record's chunk stream and message id (a chunk after it may continue it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prev: Option<ChunkKey>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    diagnostics: Vec<Diagnostic>,
    /// The record that last set each result's content, by ACP `toolCallId` (what reads a result
    /// let go back: see [`Released`]), in key order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    content_seqs: Vec<(String, u64)>,
}

/// Replay that keeps going: a session folds each new record into the items it already has,
/// instead of replaying the whole log after every append. A rewind cannot be folded (it cuts
/// records already folded); [`Replayer::push`] says so and the caller starts over.
#[derive(Debug, Clone, Default)]
pub struct Replayer {
    folder: Folder,
    diagnostics: Vec<Diagnostic>,
}

impl Replayer {
    /// Replays `records` from the start.
    pub fn new(records: &[Record]) -> Replayer {
        let mut diagnostics = Vec::new();
        let effective = apply_rewinds(records, &mut diagnostics);
        let mut folder = Folder::default();
        for record in &effective {
            folder.fold(record, &mut diagnostics);
        }
        // What was spent and which subagents were started happened, whatever a rewind took out of
        // the conversation since (an agent's compaction that starts a new chain is one): counted
        // over every record.
        if effective.len() < records.iter().filter(|r| !r.body.is_checkpoint()).count() {
            let mut tally = ReplayState::default();
            for record in records {
                if let RecordBody::Event(event) = &record.body {
                    tally.note(event);
                }
            }
            folder.state.spent = tally.spent;
            folder.state.subagents = tally.subagents;
        }
        Replayer { folder, diagnostics }
    }

    /// The state to resume from (see [`Resume`]).
    pub fn resume_state(&self) -> Resume {
        let mut state = self.folder.state.clone();
        // `kept` is written as its bits, so that the record reads back equal to itself.
        let kept_bits = state.overhead_carry.as_mut().map(|c| std::mem::replace(&mut c.kept, 0.0).to_bits());
        Resume {
            items: self.folder.items.clone(),
            item_seqs: self.folder.item_seqs.clone(),
            state,
            kept_bits,
            prev: self.folder.prev.clone(),
            content_seqs: {
                let mut seqs: Vec<(String, u64)> = self.folder.content_seqs.iter().map(|(k, v)| (k.clone(), *v)).collect();
                seqs.sort_unstable();
                seqs
            },
            diagnostics: self.diagnostics.clone(),
        }
    }

    /// Goes on from a resumed state; `None` when it does not hold together (an item without
    /// the record that made it).
    pub fn resume(resume: Resume) -> Option<Replayer> {
        let Resume { items, item_seqs, mut state, kept_bits, prev, diagnostics, content_seqs } = resume;
        if items.len() != item_seqs.len() {
            return None;
        }
        if let (Some(carry), Some(bits)) = (state.overhead_carry.as_mut(), kept_bits) {
            carry.kept = f64::from_bits(bits);
        }
        let mut folder = Folder { items, item_seqs, state, prev, content_seqs: content_seqs.into_iter().collect(), ..Folder::default() };
        folder.reindex_calls();
        Some(Replayer { folder, diagnostics })
    }

    /// Folds one more record; `false` (and nothing changed) for one that needs a replay from the
    /// start ([`Replayer::folds`]).
    pub fn push(&mut self, record: &Record) -> bool {
        if !self.folds(record) {
            return false;
        }
        self.folder.fold(record, &mut self.diagnostics);
        true
    }

    /// Whether `record` folds onto what is held: not a rewind (it cuts records already folded),
    /// nor a compaction that trims the results it keeps when some of them were let go (it trims
    /// their whole text). Those need a replay from the start.
    pub fn folds(&self, record: &Record) -> bool {
        match &record.body {
            RecordBody::Event(Event::Rewind(_)) => false,
            RecordBody::Event(Event::CompactionCheckpoint(cp)) if cp.trim_kept_over.is_some() => {
                let from = (0..self.folder.items.len()).find(|&i| self.folder.item_seqs[i] >= cp.first_kept_seq).unwrap_or(self.folder.items.len());
                self.released_in(from..self.folder.items.len()).is_empty()
            }
            _ => true,
        }
    }

    pub fn items(&self) -> &[Item] {
        &self.folder.items
    }

    /// The items the records replayed to, taken (what [`replay`] would give as its items).
    pub fn into_items(self) -> Vec<Item> {
        self.folder.items
    }

    pub fn state(&self) -> &ReplayState {
        &self.folder.state
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Whether the effective history holds the tool call with this ACP `toolCallId`.
    pub fn has_call(&self, acp_call_id: &str) -> bool {
        self.folder.calls.contains_key(acp_call_id)
    }

    /// Whether the conversation holds a result for ACP tool call `acp_call_id`.
    pub fn has_result(&self, acp_call_id: &str) -> bool {
        self.folder.results.contains_key(acp_call_id)
    }

    /// The `seq` of the record that made item `index` (0 when out of range).
    pub fn item_seq(&self, index: usize) -> u64 {
        self.folder.item_seqs.get(index).copied().unwrap_or(0)
    }

    /// Lets go of the text of the tool result at `index` (see [`Released`]): `content` is what
    /// stays of it. The item is not marked changed — it measures and views as before — and
    /// nothing happens when it is not a tool result.
    pub fn release_result(&mut self, index: usize, released: Released, content: Vec<Part>) {
        if let Some(Item::ToolResult(result)) = self.folder.items.get_mut(index) {
            result.content = content;
            result.released = Some(Box::new(released));
        }
    }

    /// The record that last set the content of the tool result `item_id` (`None`: not one
    /// record's, or no such result).
    pub fn content_seq(&self, item_id: &str) -> Option<u64> {
        self.folder.content_seqs.get(acp_id(item_id)).copied()
    }

    /// The index of the tool result `item_id`.
    pub fn result_index(&self, item_id: &str) -> Option<usize> {
        self.folder.results.get(acp_id(item_id)).copied().filter(|&i| matches!(&self.folder.items[i], Item::ToolResult(r) if r.id == item_id))
    }

    /// Gives the tool result at `index` its whole content back (see [`Replayer::release_result`]).
    pub fn restore_result(&mut self, index: usize, content: Vec<Part>) {
        if let Some(Item::ToolResult(result)) = self.folder.items.get_mut(index) {
            result.content = content;
            result.released = None;
        }
    }

    /// The ids of the tool results in `range` whose text was let go.
    pub fn released_in(&self, range: std::ops::Range<usize>) -> Vec<String> {
        let items = self.folder.items.get(range).unwrap_or_default();
        items
            .iter()
            .filter_map(|i| match i {
                Item::ToolResult(r) if r.released.is_some() => Some(r.id.clone()),
                _ => None,
            })
            .collect()
    }

    /// The lowest item index changed since the last call (items from there on may differ from
    /// what the caller saw; `items().len()` when nothing changed). Caches keyed by item index
    /// stay valid below it.
    pub fn take_changed_from(&mut self) -> usize {
        let changed = self.folder.changed_from.min(self.folder.items.len());
        self.folder.changed_from = usize::MAX;
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::text_of;
    use crate::conversation::SyntheticReason;
    use crate::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, SessionUpdate, Stream, ToolCallStatus};
    use crate::update::record::{CompactionCheckpoint, Rewind};
    use crate::update::write::{self, CallStart};
    use pretty_assertions::assert_eq;

    fn update(u: SessionUpdate) -> RecordBody {
        RecordBody::Update(AcpUpdate::Known(u))
    }

    fn prompt(text: &str, id: &str) -> RecordBody {
        update(write::prompt(text, vec![], id, &ProviderMeta::default()).remove(0))
    }

    fn agent(text: &str, id: &str) -> RecordBody {
        update(write::chunk(Stream::Agent, Some(id), ContentBlock::text(text), &ProviderMeta::default()))
    }

    fn call(id: &str) -> RecordBody {
        let start = CallStart {
            id: id.into(),
            title: "read".into(),
            kind: None,
            status: ToolCallStatus::Pending,
            content: None,
            locations: vec![],
            input: Some(serde_json::json!({})),
            meta: ProviderMeta::default(),
        };
        update(write::tool_call(start))
    }

    fn result(id: &str, output: &str, failed: bool) -> RecordBody {
        update(write::tool_result(id, write::result_content(output, vec![]), failed, None))
    }

    /// Each item in a word: `user:…`, `summary`, `assistant:…`, `call:…`, `result:…` (`result!:…`
    /// for an error).
    fn brief(item: &Item) -> String {
        match item {
            Item::User(m) if m.synthetic == Some(SyntheticReason::Compaction) => "summary".into(),
            Item::User(m) => format!("user:{}", text_of(&m.content)),
            Item::Assistant(a) => format!("assistant:{}", a.text),
            Item::Reasoning(r) => format!("reasoning:{}", r.text),
            Item::ToolCall(c) => format!("call:{}", c.name),
            Item::ToolResult(r) => format!("result{}:{}", if r.is_error { "!" } else { "" }, text_of(&r.content)),
            Item::Native(_) => "native".into(),
        }
    }

    /// Replays `bodies` (numbered from 1) and checks the items, in brief.
    fn check(bodies: Vec<RecordBody>, expected: &[&str]) {
        let records: Vec<Record> = bodies.into_iter().enumerate().map(|(i, body)| Record { seq: i as u64 + 1, ts: String::new(), body }).collect();
        assert_eq!(replay(&records).items.iter().map(brief).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn chunks_of_one_message_merge() {
        check(vec![prompt("go", "u1"), agent("Look", "a1"), agent("ing.", "a1")], &["user:go", "assistant:Looking."]);
    }

    #[test]
    fn messages_with_other_ids_stay_apart() {
        check(vec![prompt("go", "u1"), agent("One.", "a1"), agent("Two.", "a2")], &["user:go", "assistant:One.", "assistant:Two."]);
    }

    #[test]
    fn a_terminal_status_turns_a_call_into_its_result() {
        check(vec![prompt("go", "u1"), call("c1"), result("c1", "out", false)], &["user:go", "call:read", "result:out"]);
        check(vec![prompt("go", "u1"), call("c1"), result("c1", "boom", true)], &["user:go", "call:read", "result!:boom"]);
    }

    #[test]
    fn a_call_still_running_has_no_result() {
        check(vec![prompt("go", "u1"), call("c1")], &["user:go", "call:read"]);
    }

    #[test]
    fn a_rewind_cuts_back_to_before_its_prompt() {
        let rewind = RecordBody::Event(Event::Rewind(Rewind { prompt_index: 1 }));
        check(vec![prompt("one", "u1"), agent("A.", "a1"), prompt("two", "u2"), agent("B.", "a2"), rewind], &["user:one", "assistant:A."]);
    }

    #[test]
    fn a_compaction_stands_for_what_it_summarises() {
        let checkpoint =
            CompactionCheckpoint { summary: "## Goal\nDone.".into(), first_kept_seq: 3, tokens_before: None, summary_tokens: None, trim_kept_over: None };
        check(
            vec![prompt("one", "u1"), agent("A.", "a1"), prompt("two", "u2"), RecordBody::Event(Event::CompactionCheckpoint(checkpoint))],
            &["summary", "user:two"],
        );
    }

    #[test]
    fn a_compaction_that_had_to_trim_keeps_the_head_and_tail_of_long_outputs_only() {
        let long = "x".repeat(300);
        let checkpoint = CompactionCheckpoint {
            summary: "## Goal\nDone.".into(),
            first_kept_seq: 3,
            tokens_before: None,
            summary_tokens: None,
            trim_kept_over: Some(100),
        };
        let trimmed = format!("result:{}\n[… 200 characters trimmed …]\n{}", "x".repeat(50), "x".repeat(50));
        check(
            vec![
                prompt("one", "u1"),
                agent("A.", "a1"),
                prompt(&long, "u2"),
                agent(&long, "a2"),
                call("c1"),
                result("c1", &long, false),
                call("c2"),
                result("c2", "short", false),
                RecordBody::Event(Event::CompactionCheckpoint(checkpoint)),
            ],
            &["summary", &format!("user:{long}"), &format!("assistant:{long}"), "call:read", &trimmed, "call:read", "result:short"],
        );
    }

    #[test]
    fn records_of_unknown_kinds_make_no_items() {
        check(vec![prompt("go", "u1"), RecordBody::Unknown(serde_json::json!({"future": true}))], &["user:go"]);
    }
}
