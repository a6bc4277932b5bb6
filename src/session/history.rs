//! Asking for the history and letting records go: the records before the checkpoint a session
//! opened from ([`super::open`]), or those storage confirmed once the host asked the session to
//! let them go ([`Session::set_release_stored`]), are history the host keeps; what the session
//! needs of them every day — how many there were, when the first was written, the real prompts,
//! the last compaction's summary — came with the checkpoint or was folded as they went (the
//! [`super::parts::log::Log`] part holds it, and says what needs the whole history). A command that
//! needs it waits for it ([`super::wait`]); the host gives it ([`Session::provide_history`]).

use super::parts::log::History;
use super::core::{Input, Session, Settle};
use super::protocol::{Processed, SessionError};
use crate::update::{Event, Record, RecordBody};


impl Session {
    /// How many records the log holds, the history's included.
    pub fn record_count(&self) -> usize {
        self.log.record_count()
    }

    /// Whether the records before the held ones are with the host: then a rewind, the full
    /// client view, a snapshot and a rewind appended from elsewhere need them given first.
    pub fn needs_history(&self) -> bool {
        self.log.needs_history()
    }

    /// The last record of the history the host keeps (what [`Session::provide_history`] wants:
    /// the log's records after its header through this `seq`); `None` when the session holds it.
    pub fn history_through(&self) -> Option<u64> {
        self.log.history_through()
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
            self.log.load_history();
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
        let summary = self.replayer().state().last_compaction_seq.and_then(|seq| self.log.compaction_summary(seq));
        let started_at = self.log.started_at();
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
    const SETTLE: Settle = Settle::None;
    /// Records given back settle nothing; the command they let run settles as a command.
    fn settle(output: &Self::Output) -> Settle {
        match output {
            Ok(Some(_)) => Settle::Full,
            Ok(None) | Err(_) => Settle::None,
        }
    }
    fn apply(self, s: &mut Session) -> Self::Output {
        if !s.needs_history() {
            return Err(SessionError::NotAsked("its history (it holds every record)".to_owned()));
        }
        s.log.take_history(self.0)?;
        // Records it asked for are among the history now held.
        s.release.needed.clear();
        Ok(s.resume())
    }
}
