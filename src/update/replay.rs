//! The replay reducer: durable records → conversation items (the model's history) and the
//! coalesced view a client replays.
//!
//! Two phases. First, rewinds are applied: a `rewind` record cuts the effective record list back
//! to before the chosen real user prompt (counted in the list as it stands at that moment, so
//! rewinding across a compaction is exact). Second, the effective list is folded into items:
//! chunks of one message merge, `tool_call_update`s fold into their call, a terminal status turns
//! into a tool result, and a compaction checkpoint replaces what it summarises with one synthetic
//! user item. The records themselves are never changed.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::acp::{
    AcpUpdate, ContentBlock, ContentChunk, ProviderMeta, SessionUpdate, ToolCallContent, ToolCallPatch, ToolCallStart, ToolCallStatus,
    ToolKind,
};
use super::client::client_view;
use super::rewind::{apply_rewinds, chunk_key, continues_key, ChunkKey};
pub use super::rewind::{prompt_fold, prompt_texts, PromptFold};
pub(crate) use super::rewind::is_real_prompt_start;
pub use super::client::{ClientEntry, ClientRole};
use super::parts::{append_part, part_of, result_parts, unsupported};
use super::record::{Event, ModelSwitch, PromptHeadSnapshot, Record, RecordBody, Spent, SubagentStatus, UsageAnchor};
use crate::conversation::{Annotations, AssistantText, Item, Origin, Part, Reasoning, Released, SyntheticReason, ToolCall, ToolResult, UserMessage};
use crate::diagnostic::Diagnostic;
use crate::update::codes;
use crate::tokens::{item_tokens, Family};

/// The model's view of a compaction summary: framed, so it never reads as something a person
/// typed, and neutralised, so the summary cannot close the frame.
pub fn summary_text(summary: &str) -> String {
    crate::framing::wrap("compaction_summary", summary.trim())
}

/// Everything a replay yields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub items: Vec<Item>,
    pub view: Vec<ClientEntry>,
    pub state: ReplayState,
    pub diagnostics: Vec<Diagnostic>,
}

/// Session facts replay recovers besides the items.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ReplayState {
    /// Real (non-synthetic) user prompts in the effective history.
    pub prompt_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelSwitch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageAnchor>,
    /// How many items existed when `usage` was recorded (the anchor's position).
    #[serde(default)]
    pub items_at_usage: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heads: Option<PromptHeadSnapshot>,
    /// What compactions since the last usage anchor carry of the provider's count, until a new
    /// anchor replaces it (the ledger reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_carry: Option<OverheadCarry>,
    /// What the last context-length refusal since the usage anchor said of the ledger's count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<Correction>,
    /// `seq` of the last compaction checkpoint applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_compaction_seq: Option<u64>,
    /// Records the reducer skipped because it does not know their kind.
    #[serde(default)]
    pub skipped_records: usize,
    /// The tools the log last recorded (`tools_defined`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "ToolDef[]"))]
    pub tools: Option<crate::tool_def::Tools>,
    /// Files the agent changed, in the order first changed: paths of tool calls with a diff
    /// or of kind edit, delete or move, and `edited_paths` records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edited_paths: Vec<String>,
    /// How the last provider answer ended (`answer_end`), and how many items there were then: a
    /// session asks the model to go on after an answer that was cut short, while nothing came
    /// after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_answer: Option<LastAnswer>,
    /// What this session's own requests used: every usage anchor the history holds, summed.
    #[serde(default, skip_serializing_if = "Spent::is_zero")]
    pub spent: Spent,
    /// The subagents this session started, in the order started, and how each ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<SubagentLink>,
}

impl ReplayState {
    /// What an event says that holds whatever the conversation became: what a request spent
    /// (a usage anchor that is an answer's), a subagent started or ended.
    fn note(&mut self, event: &Event) {
        match event {
            Event::UsageAnchor(usage) if usage.counted.is_none() => self.spent.add_usage(usage),
            Event::SubagentStarted(started) => self.subagents.push(SubagentLink {
                call_id: started.call_id.clone(),
                session_id: started.session_id.clone(),
                task: started.task.clone(),
                model: started.model.clone(),
                status: SubagentStatus::Running,
                report_tokens: started.report_tokens,
                trimmed: false,
                usage: None,
            }),
            Event::SubagentEnded(ended) => {
                if let Some(link) = self.subagents.iter_mut().rev().find(|l| l.call_id == ended.call_id && l.session_id == ended.session_id) {
                    link.status = ended.status;
                    link.trimmed = ended.trimmed;
                    link.usage = ended.usage;
                }
            }
            _ => {}
        }
    }
}

/// A subagent this session started: the call it answers, its own session, how it went.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SubagentLink {
    pub call_id: String,
    pub session_id: String,
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub status: SubagentStatus,
    /// The report budget it was given, in tokens.
    pub report_tokens: u32,
    /// Its report was cut to the budget.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trimmed: bool,
    /// What its own requests used, as its session reported at its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Spent>,
}

impl SubagentLink {
    fn read(value: &serde_json::Value) -> Result<SubagentLink, crate::value_read::Error> {
        use crate::value_read as read;
        let map = read::object(value, "a subagent")?;
        Ok(SubagentLink {
            call_id: read::string(map, "callId")?,
            session_id: read::string(map, "sessionId")?,
            task: read::string(map, "task")?,
            model: read::opt_string(map, "model")?,
            status: read::opt_with(map, "status", SubagentStatus::read)?.ok_or_else(|| <read::Error as serde::de::Error>::missing_field("status"))?,
            report_tokens: read::u32_field(map, "reportTokens")?,
            trimmed: read::opt_bool(map, "trimmed")?.unwrap_or(false),
            usage: read::opt_with(map, "usage", Spent::read)?,
        })
    }
}

crate::value_read::deserialize_by_hand!(SubagentLink);

/// A context-length refusal's count of a request beside the ledger's own count of it: the
/// ledger scales its counts by their ratio until the next answer's usage anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    /// The tokens the provider counted (or, where it named none, at least held).
    pub tokens: u64,
    /// The tokens the ledger counted for the same request.
    pub counted: u64,
}

impl Correction {
    /// The factor the ledger's counts are multiplied by: the provider's count over the ledger's,
    /// however far apart (the provider refused on its count), but at least a half (a provider
    /// that counts far less than the ledger still refused: the window is what was wrong).
    pub fn ratio(&self) -> f64 {
        if self.counted == 0 {
            return 1.0;
        }
        (self.tokens as f64 / self.counted as f64).max(0.5)
    }
}

/// The end of the last answer the log recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct LastAnswer {
    pub status: super::record::AnswerStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The model or the provider's filter refused ([`super::record::AnswerEnd::is_refusal`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
    /// The API and model that answered.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<super::record::ProviderFailure>,
    /// The connection dropped while it arrived.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
    /// Why the prompt was blocked (Gemini's `promptFeedback.blockReason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// Items the conversation held right after it.
    pub items: usize,
    /// Its `answer_end` record.
    pub seq: u64,
}

/// The provider's count at the last usage anchor beyond our estimate of the items it covered,
/// and the share of those items' estimate the compactions since then kept. The excess holds the
/// system prompt and tools (they survive a compaction whole) and the provider's framing (which
/// shrinks with the conversation); the ledger separates the two.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct OverheadCarry {
    pub excess: i64,
    pub kept: f64,
    /// The anchor said which of its tokens were heads ([`UsageAnchor::head_tokens`]): they are
    /// not in `excess`, which holds the framing alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub framing_only: bool,
    /// The tokenizer family the estimates were made in (the anchor's model's).
    pub family: Family,
}

/// Replays records into items, the client view and session state.
pub fn replay(records: &[Record]) -> Replay {
    let replayer = Replayer::new(records);
    let view = client_view(records);
    Replay { items: replayer.folder.items, view, state: replayer.folder.state, diagnostics: replayer.diagnostics }
}

/// The replay's whole state at a point of the log, as a [`super::checkpoint::Checkpoint`] keeps
/// it: resumed, it folds the records after that point exactly as the full replay would.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Default)]
struct Folder {
    items: Vec<Item>,
    /// `seq` of the record that created each item (parallel to `items`).
    item_seqs: Vec<u64>,
    state: ReplayState,
    /// The previous record's chunk stream and message id (chunks continue their message).
    prev: Option<ChunkKey>,
    /// Lowest item index changed since [`Replayer::take_changed_from`].
    changed_from: usize,
    /// ACP toolCallId → index of its ToolCall item.
    calls: HashMap<String, usize>,
    /// ACP toolCallId → index of its ToolResult item.
    results: HashMap<String, usize>,
    /// ACP toolCallId → the record that last set its result's content (not for results a
    /// compaction trimmed: their content is not one record's).
    content_seqs: HashMap<String, u64>,
}


impl Folder {
    fn changed(&mut self, index: usize) {
        self.changed_from = self.changed_from.min(index);
    }

    fn fold(&mut self, record: &Record, diagnostics: &mut Vec<Diagnostic>) {
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
                    let before: u64 = self.items.iter().map(|i| item_tokens(i, family)).sum();
                    let carry = match &self.state.usage {
                        Some(usage) => {
                            let covered = &self.items[..self.state.items_at_usage.min(self.items.len())];
                            let anchored: u64 = covered.iter().map(|i| item_tokens(i, family)).sum();
                            let response: u64 = covered[crate::conversation::response_start(covered)..].iter().map(|i| item_tokens(i, family)).sum();
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
    fn family(&self) -> Family {
        match (&self.state.usage, &self.state.overhead_carry, &self.state.model) {
            (Some(u), _, _) => Family::of_names(u.provider.as_deref(), u.model.as_deref()),
            (None, Some(carry), _) => carry.family,
            (None, None, Some(m)) => Family::of_names(Some(&m.provider), Some(&m.model)),
            (None, None, None) => Family::OpenAi,
        }
    }

    /// Puts the first-user prefix first: it replaces the one there, or opens the conversation.
    /// An unchanged prefix changes nothing (the request prefix stays byte-identical).
    fn set_prefix(&mut self, seq: u64, prefix: &str) {
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

    fn note_edited(&mut self, path: &str) {
        if !path.is_empty() && !self.state.edited_paths.iter().any(|p| p == path) {
            self.state.edited_paths.push(path.to_owned());
        }
    }

    /// Paths a tool call changed: every diff's path, and the locations of an edit, delete or move.
    fn note_edits(&mut self, kind: Option<ToolKind>, content: Option<&[ToolCallContent]>, locations: Option<&[Value]>) {
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

    fn push(&mut self, seq: u64, item: Item) {
        self.changed(self.items.len());
        self.items.push(item);
        self.item_seqs.push(seq);
    }

    fn reindex_calls(&mut self) {
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

    fn user_chunk(&mut self, prev: Option<&ChunkKey>, record: &Record, chunk: &ContentChunk, diags: &mut Vec<Diagnostic>) {
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

    fn agent_chunk(&mut self, prev: Option<&ChunkKey>, record: &Record, chunk: &ContentChunk, diags: &mut Vec<Diagnostic>) {
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

    fn thought_chunk(&mut self, prev: Option<&ChunkKey>, record: &Record, chunk: &ContentChunk) {
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

    fn tool_call(&mut self, seq: u64, call: &ToolCallStart) {
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

    fn tool_update(&mut self, seq: u64, patch: &ToolCallPatch, diags: &mut Vec<Diagnostic>) {
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
    fn native(&mut self, seq: u64, id: String, value: serde_json::Map<String, Value>, meta: &ProviderMeta) {
        let origin = Origin { provider: meta.provider.clone().unwrap_or_default(), model: meta.model.clone() };
        self.push(seq, Item::Native(crate::conversation::Native { id, origin, value }));
    }

    /// Sets a call's result: its content (`None`: the content it holds stays) and error flag.
    fn set_result(&mut self, seq: u64, acp_call_id: &str, content: Option<Vec<Part>>, is_error: bool) {
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

fn call_item_id(acp_id: &str) -> String {
    format!("call:{acp_id}")
}

fn result_item_id(acp_id: &str) -> String {
    format!("result:{acp_id}")
}

/// The ACP toolCallId behind a call or result item id.
fn acp_id(item_id: &str) -> &str {
    item_id.strip_prefix("call:").or_else(|| item_id.strip_prefix("result:")).unwrap_or(item_id)
}

fn origin_of(meta: &ProviderMeta) -> Option<Origin> {
    meta.provider.as_ref().map(|provider| Origin { provider: provider.clone(), model: meta.model.clone() })
}

/// A kept item as a compaction that had to trim leaves it: a tool result, or the output of a
/// command the user ran, over `limit` characters keeps its head and tail; what a person or the
/// model wrote stays whole.
fn trim_kept(item: Item, limit: usize) -> Item {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::text_of;
    use crate::update::acp::{Stream, ToolCallStatus};
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
