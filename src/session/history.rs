//! The records before the checkpoint a session opened from ([`super::open`]). They are not held
//! as records: what the session needs of them every day — how many there were, when the first
//! was written, the real prompts, the last compaction's summary — came with the checkpoint.
//! Their text is held here, or stays with the host (a JS string, storage) until something needs
//! the whole history: a rewind (its prompt index counts from the start), the client's full
//! view, a snapshot, a reconcile. Those ask for it first ([`Session::needs_history`], the
//! `history_needed` error) and the host gives it ([`Session::provide_history`]).
//!
//! A running session lets records go the same way when the host asks it to
//! ([`Session::set_release_stored`]): once storage confirmed them, they become history the host
//! keeps; what the session needs of them every day it folds as they go.

use std::borrow::Cow;

use super::{AppendError, Input, Processed, Session, SessionError, Settle};
use crate::update::replay::PromptFold;
use crate::update::{parse_log, Event, Record, RecordBody};

#[derive(Debug, Clone)]
pub(super) struct History {
    /// The log's lines before the held records (header excluded), each ending in a line break;
    /// `None` while the host keeps them.
    pub text: Option<String>,
    /// Lines of the log before the held records, the header's included (for line numbers).
    pub lines: usize,
    /// Records before the held ones.
    pub records: u64,
    /// The last of them (the record the checkpoint covers through).
    pub through: u64,
    pub started_at: Option<String>,
    /// The real prompts among them (the records after them go on from here).
    pub prompts: PromptFold,
    /// The last compaction's summary among them.
    pub summary: Option<String>,
}

impl Session {
    /// Whether the records before the held ones are with the host: then a rewind, the full
    /// client view, a snapshot and a rewind appended from elsewhere need them given first.
    pub fn needs_history(&self) -> bool {
        self.log.history.as_ref().is_some_and(|h| h.text.is_none())
    }

    /// The last record of the history the host keeps (what [`Session::provide_history`] wants:
    /// the log's records after its header through this `seq`); `None` when the session holds it.
    pub fn history_through(&self) -> Option<u64> {
        self.log.history.as_ref().filter(|h| h.text.is_none()).map(|h| h.through)
    }

    /// Whether records storage confirmed leave memory, and the text of tool results its
    /// requests clear or trim (off by default; see `release.rs`). A host whose storage reads
    /// them back — it answers [`Session::needs_history`] with the log's records through
    /// [`Session::history_through`], and a build's `history_needed` with the records
    /// [`Session::needed_records`] names — turns it on, and the session then holds what storage
    /// has not confirmed (and the last record): its replay, the view and its cache carry the rest.
    pub fn set_release_stored(&mut self, release: bool) {
        self.input(SetReleaseStored(release))
    }

    /// Lets go of the records storage confirmed (when the host asked for it:
    /// [`Session::set_release_stored`]), all but the last (its `seq` and time go on): they
    /// become history kept by the host, as if the session had opened after them. Nothing is let
    /// go while an answer is being received, nor while a rewind stays among the records held.
    pub(super) fn release_stored(&mut self) {
        if !self.release.stored || self.receiving.is_some() {
            return;
        }
        let committed = self.persistence.committed_through();
        let cut = |records: &[Record]| records.partition_point(|r| r.seq <= committed).min(records.len().saturating_sub(1));
        let rewinds = self.log.records[..cut(&self.log.records)].iter().any(|r| matches!(r.body, RecordBody::Event(Event::Rewind(_))));
        // A rewind counts prompts from the start: the fold through it needs every record (a
        // rewind is written only once the session holds them).
        if rewinds && self.log.history.is_some() {
            self.load_history();
            if self.log.history.is_some() {
                return;
            }
        }
        let cut = cut(&self.log.records);
        // Nor while a rewind stays held: its prompt index counts from the start, so the prompts
        // are folded from every record until a checkpoint after it is let go too.
        if cut == 0 || self.log.records[cut..].iter().any(|r| matches!(r.body, RecordBody::Event(Event::Rewind(_)))) {
            return;
        }
        let summary = self.replayer().state().last_compaction_seq.and_then(|seq| self.compaction_summary(seq));
        let started_at = self.started_at();
        let released = &self.log.records[..cut];
        let through = released[cut - 1].seq;
        let (lines, before, prompts) = match self.log.history.take() {
            Some(history) => {
                let mut prompts = history.prompts;
                for record in released {
                    prompts.push(record);
                }
                (history.lines, history.records, prompts)
            }
            None => (usize::from(self.log.header.is_some()), 0, crate::update::replay::prompt_fold(released)),
        };
        self.log.records.drain(..cut);
        self.log.history = Some(Box::new(History { text: None, lines: lines + cut, records: before + cut as u64, through, started_at, prompts, summary }));
    }

    /// Gives the session the log's lines before the records it holds (what [`super::open`]
    /// left out: the lines after the header up to the tail), when it asked for them. They are
    /// checked against what the checkpoint says of them — every line a record, as many records
    /// as it counted, the last the one it covers, the same prompts — and refused whole
    /// (`history_mismatch`, nothing changed) when they are not that history: a torn or short
    /// read never makes a wrong request. Refused (`not_asked`) when the session holds its
    /// history. The command that waited for it (or for records among it) runs then: what it did
    /// is returned, with its effects.
    pub fn provide_history(&mut self, text: String) -> Result<Option<Processed>, SessionError> {
        let resumed = self.input(ProvideHistory(text))?;
        Ok(resumed.map(|mut processed| {
            processed.effects = self.take_effects();
            processed
        }))
    }

    /// What [`ProvideHistory`] does (a command reading its history calls it directly).
    pub(super) fn take_history(&mut self, text: String) -> Result<(), SessionError> {
        let Some(history) = self.log.history.as_ref().filter(|h| h.text.is_none()) else { return Ok(()) };
        let log = parse_log(&text);
        let mismatch = |why: String| Err(SessionError::HistoryMismatch(why));
        // The history has no header line of its own; anything else said about it is a line that
        // did not read.
        if let Some(d) = log.diagnostics.iter().find(|d| d.code != crate::update::codes::LOG_MISSING_HEADER.code) {
            return mismatch(format!("line {} of it: {}", d.line.map_or(0, |l| l + history.lines.saturating_sub(history.records as usize)), d.message));
        }
        if log.records.len() as u64 != history.records {
            return mismatch(format!("{} records where the checkpoint counted {}", log.records.len(), history.records));
        }
        if log.records.last().map_or(0, |r| r.seq) != history.through {
            return mismatch(format!("it ends at seq {} where the checkpoint covers through {}", log.records.last().map_or(0, |r| r.seq), history.through));
        }
        if crate::update::replay::prompt_fold(&log.records).prompts != history.prompts.prompts {
            return mismatch("its prompts are not the ones the checkpoint counted".to_owned());
        }
        let mut records = log.records;
        records.append(&mut self.log.records);
        self.log.records = records;
        self.log.history = None;
        Ok(())
    }

    /// `history_needed` when the history is with the host.
    pub(super) fn require_history(&self) -> Result<(), SessionError> {
        match self.needs_history() {
            true => Err(SessionError::HistoryNeeded),
            false => Ok(()),
        }
    }

    /// A record from elsewhere that needs the whole history (a rewind, a compaction trimming
    /// results let go) is refused until the host gives it.
    pub(super) fn check_append_needs(&self, record: &Record) -> Result<(), AppendError> {
        // A record the replay cannot fold onto what it holds is replayed from the start, which
        // needs every record.
        let folds = !matches!(record.body, RecordBody::Event(Event::Rewind(_))) && self.log.replayer.as_ref().is_none_or(|r| r.folds(record));
        match (folds, self.needs_history()) {
            (false, true) => Err(AppendError::HistoryNeeded),
            _ => Ok(()),
        }
    }

    /// Makes the whole history resident: the records before the checkpoint the session opened
    /// from are read from their text. Nothing happens while the host keeps the text (every
    /// caller has asked for it first).
    pub(super) fn load_history(&mut self) {
        let Some(history) = self.log.history.take_if(|h| h.text.is_some()) else { return };
        let text = history.text.unwrap_or_default();
        let mut log = parse_log(&text);
        let header_lines = history.lines.saturating_sub(text.matches('\n').count());
        for d in &mut log.diagnostics {
            if let Some(line) = d.line.as_mut() {
                *line += header_lines;
            }
        }
        self.log.diagnostics.splice(0..0, log.diagnostics);
        log.records.append(&mut self.log.records);
        self.log.records = log.records;
    }

    /// Every record of the log, the history's included (read from its text, not kept).
    pub(super) fn all_records(&self) -> Result<Cow<'_, [Record]>, SessionError> {
        self.require_history()?;
        Ok(match self.log.history.as_ref().and_then(|h| h.text.as_deref()) {
            Some(text) => {
                let mut records = parse_log(text).records;
                records.extend(self.log.records.iter().cloned());
                Cow::Owned(records)
            }
            None => Cow::Borrowed(&self.log.records),
        })
    }

    /// How many records the log holds, the history's included.
    pub fn record_count(&self) -> usize {
        self.log.history.as_ref().map_or(0, |h| h.records as usize) + self.log.records.len()
    }

    /// The first record's time.
    pub(super) fn started_at(&self) -> Option<String> {
        match &self.log.history {
            Some(history) => history.started_at.clone(),
            None => self.log.records.first().map(|r| r.ts.clone()),
        }
    }

    /// The summary of the compaction recorded at `seq`.
    pub(super) fn compaction_summary(&self, seq: u64) -> Option<String> {
        match self.log.records.iter().find(|r| r.seq == seq).map(|r| &r.body) {
            Some(RecordBody::Event(Event::CompactionCheckpoint(cp))) => Some(cp.summary.clone()),
            Some(_) => None,
            None => self.log.history.as_ref().and_then(|h| h.summary.clone()),
        }
    }
}

/// Whether records storage confirmed leave memory (see [`Session::set_release_stored`]).
pub struct SetReleaseStored(pub bool);

impl Input for SetReleaseStored {
    type Output = ();
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) {
        s.release.stored = self.0;
        s.release_stored();
    }
}

/// The log's lines before the records the session holds, when it asked for them (see
/// [`Session::provide_history`]).
pub struct ProvideHistory(pub String);

impl Input for ProvideHistory {
    type Output = Result<Option<Processed>, SessionError>;
    const SETTLE: Settle = Settle::Resumed;
    fn apply(self, s: &mut Session) -> Self::Output {
        if !s.needs_history() {
            return Err(SessionError::NotAsked("its history (it holds every record)".to_owned()));
        }
        s.take_history(self.0)?;
        // Records it asked for are among the history now held.
        s.release.needed.clear();
        Ok(s.resume())
    }
}
