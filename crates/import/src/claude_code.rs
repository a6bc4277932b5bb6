//! Claude Code project session JSONL → our log.
//!
//! Lines are tree entries linked by `parentUuid`; the newest entry's branch is the live one, and
//! earlier branches (rewinds, edits of an earlier prompt) become `rewind` records (see
//! [`super::tree`]). Three passes:
//!
//! 1. **Read** every line: the entries, which file this is (a main session, or a subagent's
//!    own transcript made only of sidechain entries), which API message holds each tool call,
//!    and each message's final usage.
//! 2. **Order.** One API message is written as several entries, one content block each, and
//!    Claude Code runs tool calls while the message still streams: a call's result can be
//!    written before the message's next block. Results (and the skill bodies a call injects)
//!    that answer calls of the message being written are held until its last block, so the
//!    log holds the turn the model produced and then its results, as the next request sent them.
//! 3. **Emit** through the tree. A result that answers a call on the live branch belongs to it,
//!    whatever entry it names as parent: newer versions parent each result to the entry holding
//!    its own call, which makes parallel results look like siblings of the later calls.
//!
//! A `compact_boundary` system line followed by an `isCompactSummary` user line becomes a
//! compaction checkpoint (keeping the preserved segment newer versions name). Each message's
//! model is recorded (`model_switch` when it changes) and its usage anchored once, after its
//! last block, with the final output count. In a main session, inline sidechain entries (a
//! subagent's own conversation) are counted and left out; a file made only of them is imported
//! as the subagent's session.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::claude_entry::{text_of, Entry};
use super::tree::TreePath;
use contextview::update::acp::Stream;
use crate::emit::{image_block, LogBuilder};
use crate::lines::ParsedLine;
use crate::report::Imported;
use contextview::conversation::SyntheticReason;
use contextview::diagnostic::Diagnostic;
use crate::codes;
use contextview::update::acp::{ContentBlock, ProviderMeta, ToolCallContent};
use contextview::update::record::{CompactionCheckpoint, Event, Header, ModelSwitch, SubagentEnded, SubagentStarted, SubagentStatus, UsageAnchor};

/// The model name Claude Code gives messages it wrote itself (API errors, notices).
const SYNTHETIC_MODEL: &str = "<synthetic>";

/// Imports a session's lines, each parsed once ([`crate::lines::json_lines`]).
pub fn import(lines: Vec<ParsedLine>) -> Imported {
    let mut out = LogBuilder::new();
    let entries: Vec<Entry> = lines.into_iter().filter_map(|(line, parsed)| out.object(line, parsed).map(|value| Entry { line, value })).collect();
    // A file made only of sidechain entries is a subagent's transcript: its own conversation.
    let subagent = entries.iter().any(Entry::is_message) && entries.iter().filter(|e| e.is_message()).all(Entry::sidechain);
    let header = header_of(&entries, subagent);
    // Reading moved the timestamp to the last line's: what is written before the first line
    // with one (a title at the top) takes the session's first, which a longer file keeps.
    out.at(header.created_at.as_deref());
    let mut facts = Facts::read(&entries, subagent);
    if !subagent {
        // Inline subagents (1.x): each chain to the first unanswered-by-another delegation call
        // whose prompt it opens with, in order.
        let mut taken = HashSet::new();
        for chain in super::claude_subagents::inline_chains(&entries) {
            let call = facts.delegation_order.iter().find(|id| facts.delegations.get(*id).is_some_and(|p| p.trim() == chain.prompt.trim()) && !taken.contains(*id));
            if let Some(call) = call.cloned() {
                taken.insert(call.clone());
                facts.inline.insert(call, chain.root);
            }
        }
    }
    let order = order(&entries, &facts, subagent);
    let mut writer =
        Writer { tree: TreePath::default(), pending_compaction: None, model: None, emitted: HashMap::new(), latest: HashMap::new(), thinking: HashMap::new(), results: HashSet::new(), model_rewinds: 0 };
    for (position, &index) in order.iter().enumerate() {
        let closes = closes_message(&entries, &order, position);
        writer.entry(&mut out, &entries, index, &facts, subagent, closes);
    }
    if let Some(tokens) = writer.pending_compaction.take() {
        out.diagnostic(Diagnostic::new(
            &codes::IMPORT_COMPACTION_WITHOUT_SUMMARY,
            format!("a compact boundary ({} tokens before) has no summary line after it", tokens.pre_tokens.unwrap_or(0)),
        ));
    }
    if !subagent {
        let inline = entries.iter().filter(|e| e.sidechain()).count();
        if inline > 0 {
            out.diagnostic(Diagnostic::new(
                &codes::IMPORT_SIDECHAINS_LEFT_OUT,
                format!(
                    "{inline} sidechain entries (subagents' own conversations) are not part of the main agent's view and were left out; the main view keeps each subagent call and its result. Import a subagent's agent-*.jsonl file on its own to see its view."
                ),
            ));
        }
    }
    let mut imported = out.finish(header);
    imported.report.audience = Some(if subagent { "subagent" } else { "primary" }.to_owned());
    imported
}

fn header_of(entries: &[Entry], subagent: bool) -> Header {
    let mut header = Header::new("");
    let field = |key: &str| entries.iter().find_map(|e| e.value.get(key).and_then(Value::as_str)).map(str::to_owned);
    let session = field("sessionId").unwrap_or_default();
    header.cwd = field("cwd");
    header.created_at = field("timestamp");
    match (subagent, field("agentId")) {
        // Every line of an agent file names the main session; the agent is a session of its own.
        (true, agent) => {
            header.session_id = format!("{session}/agent-{}", agent.unwrap_or_else(|| "unknown".to_owned()));
            header.parent_session_id = Some(session);
        }
        (false, _) => header.session_id = session,
    }
    header
}

/// What the whole file says before anything is written.
struct Facts {
    /// tool_use id → the API message holding the call.
    call_message: HashMap<String, String>,
    /// tool_use id → the entry holding the call.
    call_entry: HashMap<String, String>,
    /// Each API message's usage: the copy with the largest output count (every block repeats
    /// the message's usage, and the output count grows as the message streams).
    usage: HashMap<String, UsageAnchor>,
    /// Every uuid in the file (a parent not written yet was held back by the ordering).
    uuids: HashSet<String>,
    /// Calls that start a subagent (`Task`, `Agent`), with their prompts: their results may name
    /// the agent in text.
    delegations: HashMap<String, String>,
    /// The delegation calls in the order the file makes them.
    delegation_order: Vec<String>,
    /// Delegation calls answered by a subagent whose conversation this file holds inline (1.x),
    /// by the chain's root uuid: matched by the call's prompt.
    inline: HashMap<String, String>,
}

impl Facts {
    fn read(entries: &[Entry], subagent: bool) -> Facts {
        let mut facts =
            Facts { call_message: HashMap::new(), call_entry: HashMap::new(), usage: HashMap::new(), uuids: HashSet::new(), delegations: HashMap::new(), delegation_order: Vec::new(), inline: HashMap::new() };
        for entry in entries {
            if let Some(uuid) = entry.uuid() {
                facts.uuids.insert(uuid.to_owned());
            }
            let (Some(message_id), Some(uuid)) = (entry.message_id(), entry.uuid()) else { continue };
            if entry.sidechain() != subagent || entry.api_error() {
                continue;
            }
            for block in entry.value.pointer("/message/content").and_then(Value::as_array).into_iter().flatten() {
                if let (Some("tool_use"), Some(id)) = (block.get("type").and_then(Value::as_str), block.get("id").and_then(Value::as_str)) {
                    facts.call_message.insert(id.to_owned(), message_id.to_owned());
                    facts.call_entry.insert(id.to_owned(), uuid.to_owned());
                    if matches!(block.get("name").and_then(Value::as_str), Some("Task" | "Agent")) {
                        let prompt = block.pointer("/input/prompt").and_then(Value::as_str).unwrap_or("");
                        if facts.delegations.insert(id.to_owned(), prompt.to_owned()).is_none() {
                            facts.delegation_order.push(id.to_owned());
                        }
                    }
                }
            }
            if let Some(usage) = entry.value.pointer("/message/usage") {
                let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
                let anchor = UsageAnchor {
                    provider: Some("anthropic".to_owned()),
                    model: entry.value.pointer("/message/model").and_then(Value::as_str).map(str::to_owned),
                    input_tokens: n("input_tokens"),
                    output_tokens: n("output_tokens"),
                    cache_read_tokens: n("cache_read_input_tokens"),
                    cache_write_tokens: n("cache_creation_input_tokens"),
                    reasoning_tokens: None,
                    omitted_tokens: Some(0),
                    head_tokens: None,
                    counted: None,
                };
                let best = facts.usage.entry(message_id.to_owned()).or_insert_with(|| anchor.clone());
                if anchor.output_tokens > best.output_tokens {
                    *best = anchor;
                }
            }
        }
        facts
    }
}

/// The order entries are written in: file order, except that results (and skill bodies) for
/// calls of the API message still being written wait until its last block.
fn order(entries: &[Entry], facts: &Facts, subagent: bool) -> Vec<usize> {
    let mut order = Vec::with_capacity(entries.len());
    let mut open: Option<&str> = None;
    let (mut held_results, mut held_other) = (Vec::new(), Vec::new());
    let in_open = |open: Option<&str>, call: &str| open.is_some() && facts.call_message.get(call).map(String::as_str) == open;
    for (index, entry) in entries.iter().enumerate() {
        // Lines of the other side (sidechains in a main file) and metadata never end a message.
        if !entry.is_message() || entry.sidechain() != subagent {
            order.push(index);
            continue;
        }
        if let Some(message) = entry.message_id().filter(|_| !entry.api_error()) {
            if open != Some(message) {
                order.append(&mut held_results);
                order.append(&mut held_other);
                open = Some(message);
            }
            order.push(index);
            continue;
        }
        if entry.results_only().is_some_and(|calls| calls.iter().all(|c| in_open(open, c))) {
            held_results.push(index);
            continue;
        }
        if entry.source_tool_use().is_some_and(|c| in_open(open, c)) {
            held_other.push(index);
            continue;
        }
        order.append(&mut held_results);
        order.append(&mut held_other);
        open = None;
        order.push(index);
    }
    order.append(&mut held_results);
    order.append(&mut held_other);
    order
}

/// Whether the assistant entry at `order[position]` is its message's last block: the next
/// message line written is not another block of the same message.
fn closes_message(entries: &[Entry], order: &[usize], position: usize) -> bool {
    let Some(message) = entries[order[position]].message_id() else { return false };
    let sidechain = entries[order[position]].sidechain();
    !order[position + 1..]
        .iter()
        .map(|&i| &entries[i])
        .find(|e| e.is_message() && e.sidechain() == sidechain)
        .is_some_and(|next| next.message_id() == Some(message) && !next.api_error())
}

struct PendingCompaction {
    pre_tokens: Option<u64>,
    /// The first entry kept verbatim (newer versions keep recent messages).
    first_kept: Option<String>,
}

struct Writer {
    tree: TreePath,
    pending_compaction: Option<PendingCompaction>,
    /// The model of the last message written.
    model: Option<String>,
    /// Entries written so far: uuid → the index of the first line with it.
    emitted: HashMap<String, usize>,
    /// uuid → the tree id of the newest line with it (a reused uuid gets an id of its own).
    latest: HashMap<String, String>,
    /// Thinking blocks written per API message.
    thinking: HashMap<String, usize>,
    /// Tree ids of result lines and of lines a call injected.
    results: HashSet<String>,
    /// Rewinds written when the model was last said: one written since took the model switch
    /// out of the view with the rest (an agent's compaction that starts a new chain does).
    model_rewinds: usize,
}

impl Writer {
    fn entry(&mut self, out: &mut LogBuilder, entries: &[Entry], index: usize, facts: &Facts, subagent: bool, closes: bool) {
        let entry = &entries[index];
        let value = &entry.value;
        let line = entry.line;
        let kind = entry.kind();
        out.at(value.get("timestamp").and_then(Value::as_str));
        if kind == "summary" {
            if let Some(title) = value.get("summary").and_then(Value::as_str) {
                out.other_update(serde_json::json!({"sessionUpdate": "session_info_update", "title": title}));
            }
            return;
        }
        if entry.sidechain() != subagent {
            out.unmapped("sidechain");
            return;
        }
        let Some(uuid) = entry.uuid() else {
            out.unmapped(if kind.is_empty() { "untyped" } else { kind });
            return;
        };
        // A line written again with the same uuid and message (a resumed session replays it) is
        // the same entry; another line reusing a uuid is an entry of its own.
        let id = match self.emitted.get(uuid) {
            Some(first) if entries[*first].value.get("message") == value.get("message") => {
                out.unmapped("duplicate_entry");
                return;
            }
            Some(_) => format!("{uuid}#line{line}"),
            None => uuid.to_owned(),
        };
        let parent = self.parent_of(entry, facts).map(|p| self.latest.get(&p).cloned().unwrap_or(p));
        if entry.results_only().is_some() || entry.source_tool_use().is_some() {
            self.results.insert(id.clone());
        }
        self.emitted.entry(uuid.to_owned()).or_insert(index);
        self.latest.insert(uuid.to_owned(), id.clone());
        let uuid = id.as_str();
        let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" => {
                let compaction = if value.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                    let pending = self.pending_compaction.take();
                    let kept = pending.as_ref().and_then(|c| c.first_kept.as_deref()).and_then(|k| self.tree.first_seq(k));
                    Some((pending.and_then(|c| c.pre_tokens), kept))
                } else {
                    None
                };
                let group = exchange(entry, facts);
                self.tree.entry(out, line, uuid, parent.as_deref(), group, |out| user_line(out, line, uuid, value, compaction, facts))
            }
            "assistant" if entry.api_error() => {
                // An API error shown as an assistant message: the model never said it.
                out.unmapped("api_error_message");
                self.tree.alias(uuid, parent.as_deref());
            }
            "assistant" => {
                let (model, thinking, model_rewinds) = (&mut self.model, &mut self.thinking, &mut self.model_rewinds);
                self.tree.entry(out, line, uuid, parent.as_deref(), entry.message_id(), |out| {
                    // After a rewind, the message says its model again.
                    if out.written("rewind") != *model_rewinds {
                        *model = None;
                        *model_rewinds = out.written("rewind");
                    }
                    assistant_line(out, line, value, facts, closes, model, thinking)
                })
            }
            "system" if subtype == "compact_boundary" => {
                let kept = value
                    .pointer("/compactMetadata/preservedSegment/headUuid")
                    .or_else(|| value.pointer("/compactMetadata/preservedMessages/uuids/0"))
                    .and_then(Value::as_str);
                self.pending_compaction = Some(PendingCompaction {
                    pre_tokens: value.pointer("/compactMetadata/preTokens").and_then(Value::as_u64),
                    first_kept: kept.map(str::to_owned),
                });
                self.tree.alias(uuid, parent.as_deref());
            }
            "system" => {
                out.unmapped(&format!("system:{}", if subtype.is_empty() { "other" } else { subtype }));
                self.tree.alias(uuid, parent.as_deref());
            }
            other => {
                out.unmapped(if other.is_empty() { "untyped" } else { other });
                self.tree.alias(uuid, parent.as_deref());
            }
        }
    }

    /// The parent an entry hangs off in our tree. A result for a call on the live branch (and
    /// what a call injected, such as a skill's body), and an entry whose parent was held back by
    /// the ordering, continue the branch's end; a compact boundary's logical parent continues
    /// the branch it cut.
    fn parent_of(&self, entry: &Entry, facts: &Facts) -> Option<String> {
        let value = &entry.value;
        let stated = value
            .get("parentUuid")
            .and_then(Value::as_str)
            .or_else(|| value.get("logicalParentUuid").and_then(Value::as_str));
        let live = |call: &str| facts.call_entry.get(call).is_some_and(|holder| self.tree.first_seq(holder).is_some());
        let answers_live_call =
            entry.results_only().is_some_and(|calls| calls.iter().any(|c| live(c))) || entry.source_tool_use().is_some_and(live);
        let parent_held_back = stated.is_some_and(|p| facts.uuids.contains(p) && !self.emitted.contains_key(p));
        // Only results and what calls injected follow the parent on the branch: they are its
        // continuation however the ordering placed them, not a branch.
        let only_results_after =
            stated.and_then(|p| self.tree.after(p)).is_some_and(|mut after| after.all(|id| self.results.contains(id)));
        if answers_live_call || parent_held_back || only_results_after {
            return self.tree.end().map(str::to_owned).or_else(|| stated.map(str::to_owned));
        }
        stated.map(str::to_owned)
    }
}

/// The provider answer a user line belongs to, for the tree (see `tree.rs`): the API message
/// whose calls its results answer (when they all answer one), or the one whose call injected it
/// (a skill's body). A prompt belongs to none.
fn exchange<'a>(entry: &Entry, facts: &'a Facts) -> Option<&'a str> {
    let blocks = entry.value.pointer("/message/content").and_then(Value::as_array);
    let answered: Vec<&str> = blocks
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
        .collect();
    if let Some(first) = answered.first() {
        let message = facts.call_message.get(*first)?;
        return answered.iter().all(|c| facts.call_message.get(*c) == Some(message)).then_some(message.as_str());
    }
    entry.source_tool_use().and_then(|call| facts.call_message.get(call)).map(String::as_str)
}

/// Writes a user line. `compaction` is set for a compaction's summary line: the tokens before
/// it and the `seq` of the first record it keeps (nothing kept when absent).
fn user_line(out: &mut LogBuilder, line: usize, uuid: &str, value: &Value, compaction: Option<(Option<u64>, Option<u64>)>, facts: &Facts) {
    let content = value.pointer("/message/content");
    if let Some((tokens_before, kept)) = compaction {
        let first_kept_seq = kept.unwrap_or(out.next_seq() + 1);
        out.event(Event::CompactionCheckpoint(CompactionCheckpoint { summary: text_of(content), first_kept_seq, tokens_before, summary_tokens: None, trim_kept_over: None }));
        return;
    }
    let synthetic = (value.get("isMeta").and_then(Value::as_bool) == Some(true)).then_some(SyntheticReason::SystemReminder);
    let meta = ProviderMeta { synthetic, ..ProviderMeta::default() };
    match content {
        Some(Value::String(text)) => {
            out.chunk(Stream::User, uuid, ContentBlock::text(text.clone()), &meta);
        }
        Some(Value::Array(blocks)) => {
            let results = blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")).count();
            for block in blocks {
                match block.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => {
                        let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                        out.chunk(Stream::User, uuid, ContentBlock::text(text), &meta);
                    }
                    "image" => match image_source(block) {
                        Some((data, media_type)) => {
                            let image = image_block(data, media_type, line, out);
                            out.chunk(Stream::User, uuid, image, &meta);
                        }
                        None => out.unmapped("image:non_base64_source"),
                    },
                    "tool_result" => {
                        let raw_output = if results == 1 { value.get("toolUseResult").cloned() } else { None };
                        // A subagent's answer (Claude Code 2.x writes its agent's id beside the
                        // result): the parent records which session answered the call.
                        let link = subagent_link(value, block, raw_output.as_ref(), facts);
                        if let Some((started, _)) = &link {
                            out.event(Event::SubagentStarted(started.clone()));
                        }
                        tool_result(out, line, block, raw_output);
                        if let Some((_, ended)) = link {
                            out.linked_subagent(&ended.session_id);
                            out.event(Event::SubagentEnded(ended));
                        }
                    }
                    other => out.unmapped(&format!("user_block:{other}")),
                }
            }
        }
        _ => out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, "user line has no message.content"),
    }
}

/// The subagent that answered a call, when its result names one — `toolUseResult.agentId`, or
/// in the result's text `agentId: <id>` (a standalone agent) or `agent_id: <name>` (a team's):
/// its session is `{session}/agent-{id}`, as the agent's own file imports.
fn subagent_link(entry: &Value, block: &Value, result: Option<&Value>, facts: &Facts) -> Option<(SubagentStarted, SubagentEnded)> {
    let call = block.get("tool_use_id").and_then(Value::as_str);
    let named = result.and_then(|r| r.get("agentId")).and_then(Value::as_str).map(str::to_owned);
    let prompt = call.and_then(|id| facts.delegations.get(id));
    let delegated = prompt.is_some();
    let session = entry.get("sessionId").and_then(Value::as_str).unwrap_or("");
    let session_id = match named.or_else(|| delegated.then(|| agent_in_text(&text_of(block.get("content")))).flatten()) {
        Some(agent) => format!("{session}/agent-{agent}"),
        None => format!("{session}/sidechain-{}", facts.inline.get(call?)?),
    };
    let result = result.unwrap_or(&Value::Null);
    let call_id = call?.to_owned();
    let status = result.get("status").and_then(Value::as_str).unwrap_or("completed");
    let failed = status != "completed" || block.get("is_error").and_then(Value::as_bool) == Some(true);
    let started = SubagentStarted {
        call_id: call_id.clone(),
        session_id: session_id.clone(),
        task: result.get("prompt").and_then(Value::as_str).or(prompt.map(String::as_str)).unwrap_or("").to_owned(),
        provider: None,
        model: None,
        report_tokens: 0,
    };
    let ended = SubagentEnded {
        call_id,
        session_id,
        status: if failed { SubagentStatus::Failed } else { SubagentStatus::Completed },
        error: failed.then(|| format!("the subagent ended {status}")),
        report_tokens: 0,
        trimmed: false,
        usage: None,
    };
    Some((started, ended))
}

/// The agent a Task result's text names (`agentId: a1b2c3`, `agent_id: researcher@team`).
fn agent_in_text(text: &str) -> Option<String> {
    ["agentId:", "agent_id:"].iter().find_map(|key| {
        let at = text.find(key)?;
        let id: String = text[at + key.len()..].trim_start().chars().take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ')' | '(' | '"')).collect();
        (!id.is_empty() && id.len() <= 128).then_some(id)
    })
}

pub(crate) fn tool_result(out: &mut LogBuilder, line: usize, block: &Value, raw_output: Option<Value>) {
    let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
        out.bad_line(line, &codes::IMPORT_BAD_TOOL_RESULT, "tool_result has no tool_use_id");
        return;
    };
    let mut content = Vec::new();
    match block.get("content") {
        Some(Value::String(text)) => content.push(ToolCallContent::Content { content: ContentBlock::text(text.clone()), meta: None }),
        Some(Value::Array(parts)) => {
            for part in parts {
                match part.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text" => content.push(ToolCallContent::Content {
                        content: ContentBlock::text(part.get("text").and_then(Value::as_str).unwrap_or("")),
                        meta: None,
                    }),
                    "image" => match image_source(part) {
                        Some((data, media_type)) => {
                            content.push(ToolCallContent::Content { content: image_block(data, media_type, line, out), meta: None })
                        }
                        None => out.unmapped("image:non_base64_source"),
                    },
                    other => out.unmapped(&format!("tool_result_block:{other}")),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(_) => out.unmapped("tool_result_content:other"),
    }
    let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
    out.tool_result(id, content, failed, raw_output);
}

fn assistant_line(
    out: &mut LogBuilder,
    line: usize,
    value: &Value,
    facts: &Facts,
    closes: bool,
    current_model: &mut Option<String>,
    thinking: &mut HashMap<String, usize>,
) {
    let Some(message) = value.get("message") else {
        out.bad_line(line, &codes::IMPORT_BAD_MESSAGE, "assistant line has no message");
        return;
    };
    let message_id = message
        .get("id")
        .and_then(Value::as_str)
        .or_else(|| value.get("uuid").and_then(Value::as_str))
        .unwrap_or("")
        .to_owned();
    let model = message.get("model").and_then(Value::as_str).filter(|m| *m != SYNTHETIC_MODEL).map(str::to_owned);
    if let Some(model) = model.as_ref().filter(|m| current_model.as_ref() != Some(*m)) {
        *current_model = Some(model.clone());
        out.event(Event::ModelSwitch(ModelSwitch { provider: "anthropic".to_owned(), model: model.clone(), context_window: None }));
    }
    let base = ProviderMeta { provider: Some("anthropic".to_owned()), model: model.clone(), ..ProviderMeta::default() };
    let stop_reason = message.get("stop_reason").and_then(Value::as_str).map(str::to_owned);
    let blocks = match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        _ => Vec::new(),
    };
    for block in &blocks {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                let meta = ProviderMeta { stop_reason: stop_reason.clone(), ..base.clone() };
                out.chunk(Stream::Agent, &message_id, ContentBlock::text(text), &meta);
            }
            "thinking" => {
                let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                let signature = block.get("signature").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
                out.chunk(Stream::Thought, &thinking_id(thinking, &message_id), ContentBlock::text(text), &ProviderMeta { signature, ..base.clone() });
            }
            "redacted_thinking" => {
                let data = block.get("data").and_then(Value::as_str).map(str::to_owned);
                out.chunk(Stream::Thought, &thinking_id(thinking, &message_id), ContentBlock::text(""), &ProviderMeta { encrypted: data, ..base.clone() });
            }
            "tool_use" => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
                let name = block.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                if id.is_empty() {
                    out.bad_line(line, &codes::IMPORT_BAD_TOOL_USE, "tool_use has no id");
                    continue;
                }
                out.tool_call(id, &name, block.get("input").cloned(), ProviderMeta { tool_name: Some(name.clone()), ..base.clone() });
            }
            other => out.unmapped(&format!("assistant_block:{other}")),
        }
    }
    // The message's usage, once, after its last block (so it anchors the whole response).
    if closes {
        if let Some(usage) = facts.usage.get(&message_id) {
            out.event(Event::UsageAnchor(usage.clone()));
        }
    }
}

/// The message id a thinking block's chunk carries: the message's own for its first thinking
/// block; each later one gets its own, so two signed blocks never merge into one.
fn thinking_id(thinking: &mut HashMap<String, usize>, message_id: &str) -> String {
    let count = thinking.entry(message_id.to_owned()).or_insert(0);
    *count += 1;
    if *count == 1 {
        message_id.to_owned()
    } else {
        format!("{message_id}#thinking-{count}")
    }
}

/// `(data, media_type)` of a base64 image block.
pub(crate) fn image_source(block: &Value) -> Option<(&str, &str)> {
    let source = block.get("source")?;
    if source.get("type").and_then(Value::as_str) != Some("base64") {
        return None;
    }
    Some((source.get("data")?.as_str()?, source.get("media_type").and_then(Value::as_str).unwrap_or("image/png")))
}


#[cfg(test)]
mod subagent_tests {
    use super::agent_in_text;

    #[test]
    fn a_result_names_its_agent_as_a_standalone_or_a_team_one() {
        assert_eq!(agent_in_text("Done.\nagentId: a1b2c3 (for resuming to continue this agent's work if needed)").as_deref(), Some("a1b2c3"));
        assert_eq!(agent_in_text("agent_id: researcher@git-integration").as_deref(), Some("researcher@git-integration"));
        assert_eq!(agent_in_text("no agent here"), None);
        assert_eq!(agent_in_text("agentId: "), None);
    }
}
