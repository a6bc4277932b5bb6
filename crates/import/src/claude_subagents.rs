//! The subagents a Claude Code main session carries in its own file, read as the agent files
//! each would be, for `import_tree`: Claude Code 2.x's `agent_progress` entries (a running
//! subagent's messages, under the call it answers) and 1.x's inline sidechain chains (a
//! subagent's conversation in the main file, its first message the delegation call's prompt).
//! The links themselves — which call a subagent answered — the importer writes
//! (`claude_code.rs`); these give the children's conversations.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::claude_entry::{text_of, Entry};
use crate::lines::json_lines;

/// A file's entries as the importer reads them (lines that are not JSON objects left out), for
/// the readers below that a tree import runs over the parent's file once more.
pub(super) fn entries_of(text: &str) -> Vec<Entry> {
    json_lines(text).filter_map(|(line, parsed)| parsed.ok().filter(Value::is_object).map(|value| Entry { line, value })).collect()
}

/// The subagents' conversations a main session carries in its `agent_progress` entries (Claude
/// Code 2.x writes each message a running subagent exchanges there, under the call it answers),
/// as the agent file each would be: `(call id, that file's text)`, in the order first seen. What
/// a subagent said after its last progress entry (its report) is in the call's result.
pub(super) fn progress_transcripts(entries: &[Entry]) -> Vec<(String, String)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut last_uuid: HashMap<String, String> = HashMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for entry in entries.iter().filter(|e| e.kind() == "progress").map(|e| &e.value) {
        let Some(data) = entry.get("data").filter(|d| d.get("type").and_then(Value::as_str) == Some("agent_progress")) else { continue };
        let (Some(call), Some(agent), Some(message)) =
            (entry.get("parentToolUseID").and_then(Value::as_str), data.get("agentId").and_then(Value::as_str), data.get("message"))
        else {
            continue;
        };
        let Some(uuid) = message.get("uuid").and_then(Value::as_str) else { continue };
        if !seen.insert(format!("{call}\u{0}{uuid}")) {
            continue;
        }
        let parent = last_uuid.insert(call.to_owned(), uuid.to_owned());
        let mut line = serde_json::Map::new();
        for key in ["type", "timestamp", "message", "requestId"] {
            if let Some(v) = message.get(key) {
                line.insert(key.to_owned(), v.clone());
            }
        }
        line.insert("uuid".into(), Value::String(uuid.to_owned()));
        line.insert("parentUuid".into(), parent.map_or(Value::Null, Value::String));
        line.insert("isSidechain".into(), Value::Bool(true));
        line.insert("agentId".into(), Value::String(agent.to_owned()));
        for key in ["sessionId", "cwd", "version"] {
            if let Some(v) = entry.get(key) {
                line.insert(key.to_owned(), v.clone());
            }
        }
        let text = Value::Object(line).to_string();
        match groups.iter_mut().find(|(c, _)| c == call) {
            Some((_, lines)) => lines.push(text),
            None => groups.push((call.to_owned(), vec![text])),
        }
    }
    groups.into_iter().map(|(call, lines)| (call, lines.join("\n"))).collect()
}

/// One subagent conversation a main session holds inline (Claude Code 1.x wrote each
/// subagent's messages into the main file as sidechain entries): its first message's uuid, that
/// message's text (the delegation call's `prompt`), and its entries (indices), in file order.
pub(super) struct InlineChain {
    pub root: String,
    pub prompt: String,
    pub members: Vec<usize>,
}

/// The inline subagent conversations of a main file (none in a subagent's own file).
pub(super) fn inline_chains(entries: &[Entry]) -> Vec<InlineChain> {
    if !entries.iter().any(|e| e.is_message() && !e.sidechain()) {
        return Vec::new();
    }
    let parent_of: HashMap<&str, &str> = entries
        .iter()
        .filter(|e| e.sidechain())
        .filter_map(|e| Some((e.uuid()?, e.value.get("parentUuid").and_then(Value::as_str).unwrap_or(""))))
        .collect();
    // Each entry's chain root, found once: a parent seen before its child hands its root down.
    let mut roots: HashMap<&str, &str> = HashMap::new();
    let mut chains: Vec<InlineChain> = Vec::new();
    for (index, entry) in entries.iter().enumerate().filter(|(_, e)| e.sidechain() && e.is_message()) {
        let Some(uuid) = entry.uuid() else { continue };
        let mut at = uuid;
        for _ in 0..=parent_of.len() {
            if let Some(root) = roots.get(at) {
                at = root;
                break;
            }
            match parent_of.get(at).filter(|p| parent_of.contains_key(*p)) {
                Some(parent) => at = parent,
                None => break,
            }
        }
        roots.insert(uuid, at);
        match chains.iter_mut().find(|c| c.root == at) {
            Some(chain) => chain.members.push(index),
            None if at == uuid => {
                chains.push(InlineChain { root: at.to_owned(), prompt: text_of(entry.value.pointer("/message/content")), members: vec![index] })
            }
            // A chain whose first message is not among the messages has no prompt to match.
            None => {}
        }
    }
    chains.retain(|c| !c.prompt.trim().is_empty());
    chains
}

/// The inline subagents' conversations as the agent files each would be: `(root uuid, text)`.
pub(super) fn inline_transcripts(entries: &[Entry]) -> Vec<(String, String)> {
    inline_chains(entries)
        .into_iter()
        .map(|chain| (chain.root, chain.members.iter().map(|&i| entries[i].value.to_string()).collect::<Vec<_>>().join("\n")))
        .collect()
}
