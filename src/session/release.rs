//! Letting go of what the view no longer reaches: a session whose host reads its log back
//! ([`Session::set_release_stored`]) holds, of each tool result its requests clear, the
//! measure the view needs (a placeholder names its length), and of each one they trim, the
//! head and tail they send ([`Released`]) — not the outputs an agent read hours ago. Records
//! storage confirmed leave the same way (`history.rs`).
//!
//! A view that needs more of a result than that — pruning off or not yet acting (after a
//! compaction, for the results it keeps), a larger window, other trim settings, a compaction
//! that restates it — reads back the one record that set its content ([`Released::seq`]): from
//! the records the session holds, else from the host (`history_needed`, with
//! [`Session::needed_records`]; [`Session::provide_records`]). Only clean text whose content is
//! one record's is let go (no images, no blank parts, not trimmed by a compaction), so what the
//! view's repair and pruning make of a result is the same whole or let go, and reading it back
//! gives the exact text.

use rustc_hash::FxHashSet;

use super::core::{Input, Session, Settle};
use super::protocol::{Processed, SessionError};
use crate::conversation::{soft_trimmed, text_of, Item, Part, Released};
use crate::tokens::{item_size, Family};
use crate::update::replay::result_content;
use crate::update::{parse_log, Record};
use crate::view::{self, BuildOptions};

impl Session {
    /// After a build: lets go of the text of the tool results it cleared or trimmed (when the
    /// host asked the session to let go of what storage holds).
    pub(super) fn release_results(&mut self, options: &BuildOptions, report: &view::Report) {
        let (cleared, trimmed) = (report.pruning.cleared_ids(), report.pruning.trimmed_ids());
        if !self.release.stored || (cleared.is_empty() && trimmed.is_empty()) {
            return;
        }
        let Some(replayer) = self.log.replayer.as_mut() else { return };
        let cleared: FxHashSet<&str> = cleared.iter().map(String::as_str).collect();
        let trimmed: FxHashSet<&str> = trimmed.iter().map(String::as_str).collect();
        let pruning = &options.pruning;
        let settings = [pruning.soft_trim_chars, pruning.soft_trim_head, pruning.soft_trim_tail].map(|n| n as u64);
        let mut releases = Vec::new();
        for (index, item) in replayer.items().iter().enumerate() {
            let Item::ToolResult(result) = item else { continue };
            let (clear, trim) = (cleared.contains(result.id.as_str()), trimmed.contains(result.id.as_str()));
            match &result.released {
                // Trimmed before, cleared now: the head and tail go too.
                Some(released) if clear && released.trimmed.is_some() => {
                    releases.push((index, Released { trimmed: None, ..Released::clone(released) }, Vec::new()));
                }
                Some(_) => {}
                // What repair would mend is not let go (the view makes it of the whole), nor a
                // trim of anything but text.
                None if !(clear || trim) || !crate::view::repair::untouched(&result.content) => {}
                None if !clear && !result.content.iter().all(|p| matches!(p, Part::Text { .. })) => {}
                None => {
                    let Some(seq) = replayer.content_seq(&result.id) else { continue };
                    let content = match clear {
                        true => Vec::new(),
                        false => match soft_trimmed(&result.content, pruning.soft_trim_chars, pruning.soft_trim_head, pruning.soft_trim_tail) {
                            Some(text) => vec![Part::text(text)],
                            None => continue,
                        },
                    };
                    let text = text_of(&result.content);
                    let released = Released {
                        seq,
                        chars: text.chars().count() as u64,
                        bytes: text.len() as u64,
                        hash: content_hash(&result.content),
                        tokens: Family::ALL.map(|family| item_size(item, family).tokens),
                        trimmed: (!clear).then_some(settings),
                        images: result.content.iter().any(|p| matches!(p, Part::Image(_))),
                    };
                    releases.push((index, released, content));
                }
            }
        }
        for (index, released, content) in releases {
            replayer.release_result(index, released, content);
        }
    }

    /// The records a build (or a compaction) asked for to read back results the session let go
    /// (see [`Session::provide_records`]); empty when it asked for none.
    pub fn needed_records(&self) -> &[u64] {
        &self.release.needed
    }

    /// Gives the session the log lines of the records it asked for ([`Session::needed_records`]),
    /// in any order, others among them ignored: the results they set get their text back. Each
    /// is checked against what the session kept of it (its length and hash) and
    /// the lines are refused whole (`history_mismatch`, nothing changed) when one is missing,
    /// torn or another's, and refused (`not_asked`) when it asked for none. The command that
    /// waited for them runs then: what it did is returned, with its effects.
    pub fn provide_records(&mut self, text: &str) -> Result<Option<Processed>, SessionError> {
        let resumed = self.input(ProvideRecords(text))?;
        Ok(resumed.map(|mut processed| {
            processed.effects = self.take_effects();
            processed
        }))
    }

    /// What [`ProvideRecords`] does.
    fn take_records(&mut self, text: &str) -> Result<(), SessionError> {
        let log = parse_log(text);
        let mut records: Vec<&Record> = log.records.iter().filter(|r| self.release.needed.contains(&r.seq)).collect();
        records.sort_by_key(|r| r.seq);
        records.dedup_by_key(|r| r.seq);
        if records.len() != self.release.needed.len() {
            let missing: Vec<u64> = self.release.needed.iter().copied().filter(|seq| !records.iter().any(|r| r.seq == *seq)).collect();
            return Err(SessionError::HistoryMismatch(format!("records {missing:?} are not among the lines given")));
        }
        self.replayer();
        let restores = restores(self.log.replayer.as_ref(), &records)?;
        let replayer = self.replayer();
        for (index, content) in restores {
            replayer.restore_result(index, content);
        }
        self.release.needed.clear();
        Ok(())
    }

    /// Gives the results `ids` their text back from the records the session holds; the records
    /// it does not hold become [`Session::needed_records`] and the answer is `false`.
    pub(super) fn restore_released(&mut self, ids: &[String]) -> Result<bool, SessionError> {
        // A history the session holds as text has the records: read it first.
        if self.log.history.as_ref().is_some_and(|h| h.text.is_some()) {
            self.log.load_history();
        }
        let replayer = self.replayer();
        let seqs: Vec<u64> = ids
            .iter()
            .filter_map(|id| replayer.result_index(id).and_then(|i| match &replayer.items()[i] {
                Item::ToolResult(r) => r.released.as_ref().map(|rel| rel.seq),
                _ => None,
            }))
            .collect();
        let (mut records, mut missing): (Vec<&Record>, Vec<u64>) = (Vec::new(), Vec::new());
        for seq in seqs {
            match self.log.records.binary_search_by_key(&seq, |r| r.seq) {
                Ok(i) => records.push(&self.log.records[i]),
                Err(_) => missing.push(seq),
            }
        }
        let restores = restores(self.log.replayer.as_ref(), &records)?;
        let replayer = self.replayer();
        for (index, content) in restores {
            replayer.restore_result(index, content);
        }
        let done = missing.is_empty();
        self.release.needed = missing;
        Ok(done)
    }
}

/// What `records` give back: the index of each result let go that one of them set, with its
/// content; `history_mismatch` when a record does not give the text the session let go.
fn restores(replayer: Option<&crate::update::Replayer>, records: &[&Record]) -> Result<Vec<(usize, Vec<Part>)>, SessionError> {
    let Some(replayer) = replayer else { return Ok(Vec::new()) };
    let mut restores = Vec::with_capacity(records.len());
    for record in records {
        let mismatch = |why: &str| SessionError::HistoryMismatch(format!("record {}: {why}", record.seq));
        let (acp_id, content) = result_content(record).ok_or_else(|| mismatch("it sets no tool result"))?;
        let index = replayer.result_index(&format!("result:{acp_id}")).ok_or_else(|| mismatch("its tool result is not in the view"))?;
        let Item::ToolResult(result) = &replayer.items()[index] else { return Err(mismatch("not a tool result")) };
        let Some(released) = result.released.as_deref().filter(|r| r.seq == record.seq) else { continue };
        let text = text_of(&content);
        if text.len() as u64 != released.bytes || content_hash(&content) != released.hash {
            return Err(mismatch("its text is not the one the session let go"));
        }
        restores.push((index, content));
    }
    Ok(restores)
}

/// The hash a result let go is read back against: of its parts as JSON (images too).
fn content_hash(content: &[Part]) -> u64 {
    crate::provider::ids::fnv1a64(&serde_json::to_vec(content).unwrap_or_default())
}

/// The log lines of the records the session asked for (see [`Session::provide_records`]).
pub struct ProvideRecords<'a>(pub &'a str);

impl Input for ProvideRecords<'_> {
    type Output = Result<Option<Processed>, SessionError>;
    const SETTLE: Settle = Settle::None;
    /// Records given back settle nothing; the command they let run settles as a command.
    fn settle(output: &Self::Output) -> Settle {
        match output {
            Ok(Some(_)) => Settle::Full,
            Ok(None) | Err(_) => Settle::None,
        }
    }
    fn apply(self, s: &mut Session) -> Self::Output {
        if s.release.needed.is_empty() {
            return Err(SessionError::NotAsked("records (it asked for none)".to_owned()));
        }
        s.take_records(self.0)?;
        Ok(s.resume())
    }
}
