//! Linearising a session tree (Claude Code's `parentUuid`, pi's `parentId`) into our append-only
//! log, keeping abandoned branches in the log but out of the model's view.
//!
//! Entries arrive in file order. Each names its parent; the newest entry's branch is the active
//! one. While entries extend the current path, their records are simply appended. When an entry
//! hangs off an earlier point of the path, the log gets a `rewind` record: to the prompt that
//! starts the first dropped entry when that entry is a prompt, otherwise to the prompt of the
//! turn it belongs to, after which the kept part of that turn is appended again. Replay then
//! yields exactly the active path, and every record of every branch stays in the log.
//!
//! The parts of one provider answer are never branches of each other. An importer may name each
//! entry's *exchange* (Claude Code: the API message its blocks belong to, or whose calls its
//! results answer): an entry that hangs off any part of an exchange hangs off its end, and an
//! entry never cuts the rest of its own exchange. So an answer whose parallel calls were written
//! as several entries, chained or side by side, with each result parented on its own call, keeps
//! every call and every result, however they are parented; a new prompt or another answer off
//! the same point is still a branch.

use std::collections::HashMap;

use crate::emit::LogBuilder;
use contextview::diagnostic::Diagnostic;
use crate::codes;
use contextview::update::record::{Event, Record, RecordBody, Rewind};

#[derive(Debug)]
struct Node {
    id: String,
    /// `seq` of the entry's first record (or of the next record, when it wrote none).
    first_seq: u64,
    /// Records this entry wrote (for appending them again after a mid-turn rewind).
    records: Vec<RecordBody>,
    /// The entry starts a real user prompt.
    prompt: bool,
    /// The exchange the entry belongs to, when the importer names one.
    group: Option<String>,
}

/// The current path through the tree.
#[derive(Debug, Default)]
pub struct TreePath {
    path: Vec<Node>,
    position: HashMap<String, usize>,
    /// Entries that wrote nothing (metadata lines): id → what they stand for.
    aliases: HashMap<String, Alias>,
}

#[derive(Debug, Clone)]
enum Alias {
    /// Stands for this entry.
    Entry(String),
    /// Named no parent: stands for wherever the branch ends when something attaches to it.
    Detached,
}

impl TreePath {
    /// Writes one entry of exchange `group` (see the module's docs): first moves the log's end
    /// to `parent` (rewinding when needed), then lets `emit` write the entry's records.
    pub fn entry(&mut self, out: &mut LogBuilder, line: usize, id: &str, parent: Option<&str>, group: Option<&str>, emit: impl FnOnce(&mut LogBuilder)) {
        self.move_to(out, line, parent, group);
        let start = out.next_seq();
        emit(out);
        let written: Vec<Record> = out_records_since(out, start);
        let prompt = starts_prompt(out, start, &written);
        self.position.insert(id.to_owned(), self.path.len());
        let records = written.into_iter().map(|r| r.body).collect();
        self.path.push(Node { id: id.to_owned(), first_seq: start, records, prompt, group: group.map(str::to_owned) });
    }

    /// Registers an entry that writes nothing (a UI or metadata line). Entries that name it as
    /// their parent attach to what it hangs off — or, when it names no parent, to the current
    /// end of the branch — so metadata siblings never look like branches.
    pub fn alias(&mut self, id: &str, parent: Option<&str>) {
        let target = match parent.map(|p| self.resolve(p)) {
            Some(Some(entry)) => Alias::Entry(entry),
            Some(None) | None => Alias::Detached,
        };
        self.aliases.insert(id.to_owned(), target);
    }

    /// The entry `id` stands for; `None` when it stands for "the end of the branch, whatever
    /// that is" (a detached alias).
    fn resolve(&self, id: &str) -> Option<String> {
        let mut current = id.to_owned();
        // Alias chains are acyclic by construction (an alias points at something seen before),
        // but cap the walk anyway so malformed input cannot loop.
        for _ in 0..=self.aliases.len() {
            if self.position.contains_key(&current) {
                return Some(current);
            }
            match self.aliases.get(&current) {
                Some(Alias::Entry(next)) => current = next.clone(),
                Some(Alias::Detached) => return None,
                None => return Some(current),
            }
        }
        Some(current)
    }

    /// The entry the current path ends at.
    pub fn end(&self) -> Option<&str> {
        self.path.last().map(|n| n.id.as_str())
    }

    /// The entries after `id` on the current path (`None` when `id` is not on it).
    pub fn after(&self, id: &str) -> Option<impl Iterator<Item = &str>> {
        let index = *self.position.get(&self.resolve(id)?)?;
        Some(self.path[index + 1..].iter().map(|n| n.id.as_str()))
    }

    /// `seq` of the first record of entry `id`, when it is on the current path.
    pub fn first_seq(&self, id: &str) -> Option<u64> {
        self.position.get(id).map(|&i| self.path[i].first_seq)
    }

    fn move_to(&mut self, out: &mut LogBuilder, line: usize, parent: Option<&str>, group: Option<&str>) {
        let resolved = match parent.map(|p| self.resolve(p)) {
            Some(Some(p)) => Some(p),
            // A detached alias: continue at the end of the branch.
            Some(None) => self.path.last().map(|n| n.id.clone()),
            None => None,
        };
        let parent = resolved.as_deref();
        let keep = match parent {
            Some(parent) => match self.position.get(parent) {
                Some(&index) => self.exchange_end(index, group),
                None => {
                    if !self.path.is_empty() {
                        out.diagnostic(
                            Diagnostic::new(
                                &codes::IMPORT_UNKNOWN_PARENT,
                                format!("parent `{parent}` is not on the current branch; the entry is appended at the end"),
                            )
                            .at_line(line),
                        );
                    }
                    self.path.len()
                }
            },
            None => 0,
        };
        if keep >= self.path.len() {
            return;
        }
        // Entries path[keep..] leave the branch. When they wrote nothing there is nothing to undo.
        if self.path[keep..].iter().all(|n| n.records.is_empty()) {
            self.truncate(keep);
            return;
        }
        let prompts_kept = self.path[..keep].iter().filter(|n| n.prompt).count();
        if self.path[keep].prompt {
            out.event(Event::Rewind(Rewind { prompt_index: prompts_kept as u64 }));
            self.truncate(keep);
            return;
        }
        // The cut falls inside a turn: rewind to that turn's prompt, then append its kept part again.
        let Some(turn_start) = self.path[..keep].iter().rposition(|n| n.prompt) else {
            out.unmapped("branch_before_first_prompt");
            return;
        };
        out.event(Event::Rewind(Rewind { prompt_index: (prompts_kept - 1) as u64 }));
        let tail: Vec<Node> = self.path.drain(turn_start..).collect();
        for node in &tail {
            self.position.remove(&node.id);
        }
        for node in tail.into_iter().take(keep - turn_start) {
            let start = out.next_seq();
            for body in &node.records {
                out.push(body.clone());
            }
            let written = out_records_since(out, start);
            let prompt = starts_prompt(out, start, &written);
            self.position.insert(node.id.clone(), self.path.len());
            self.path.push(Node { prompt, first_seq: start, ..node });
        }
    }

    /// How much of the path an entry of exchange `group` hanging off `path[index]` keeps: what
    /// goes up to its parent — or, when the parent is part of an exchange, up to that exchange's
    /// last entry — and everything when all after that is of the entry's own exchange.
    fn exchange_end(&self, index: usize, group: Option<&str>) -> usize {
        let mut keep = index + 1;
        if let Some(g) = self.path[index].group.as_deref() {
            if let Some(last) = self.path.iter().rposition(|n| n.group.as_deref() == Some(g)) {
                keep = keep.max(last + 1);
            }
        }
        if let Some(g) = group {
            if self.path[keep..].iter().all(|n| n.group.as_deref() == Some(g)) {
                keep = self.path.len();
            }
        }
        keep
    }

    fn truncate(&mut self, len: usize) {
        for node in self.path.drain(len..) {
            self.position.remove(&node.id);
        }
    }
}

fn out_records_since(out: &LogBuilder, start: u64) -> Vec<Record> {
    out.records_since(start).to_vec()
}

fn starts_prompt(out: &LogBuilder, start: u64, written: &[Record]) -> bool {
    let mut prev = out.record_before(start);
    for record in written {
        if contextview::update::replay::is_real_prompt_start(prev, record) {
            return true;
        }
        prev = Some(record);
    }
    false
}
