//! The log a session holds: its header, the records held (all of them, or those after the
//! checkpoint it opened from, or those storage has not confirmed when it lets go), the history
//! before them (`session/history.rs`), what loading it said, and the replay kept in step with
//! appends (rebuilt after a rewind). What the history is and what needs it are this part's;
//! asking the host for it is the session's (`session/history.rs`, `session/wait.rs`).

use std::borrow::Cow;

use crate::session::protocol::{AppendError, SessionError};
use crate::diagnostic::Diagnostic;
use crate::update::replay::PromptFold;
use crate::update::{parse_log, Event, Header, Record, RecordBody, Replayer};

#[derive(Debug, Clone, Default)]
pub(in crate::session) struct Log {
    pub header: Option<Header>,
    /// The records held.
    pub records: Vec<Record>,
    /// The records before `records`, when the session opened from a checkpoint or let go: read
    /// when something needs the whole history.
    pub history: Option<Box<History>>,
    /// What loading the log said.
    pub diagnostics: Vec<Diagnostic>,
    /// The replay of the records held, kept in step with appends (rebuilt after a rewind).
    pub replayer: Option<Replayer>,
}

#[derive(Debug, Clone)]
pub(in crate::session) struct History {
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

impl Log {
    /// Whether the records before the held ones are with the host: then a rewind, the full
    /// client view, a snapshot and a rewind appended from elsewhere need them given first.
    pub fn needs_history(&self) -> bool {
        self.history.as_ref().is_some_and(|h| h.text.is_none())
    }

    /// The last record of the history the host keeps; `None` when it is held.
    pub fn history_through(&self) -> Option<u64> {
        self.history.as_ref().filter(|h| h.text.is_none()).map(|h| h.through)
    }

    /// How many records the log holds, the history's included.
    pub fn record_count(&self) -> usize {
        self.history.as_ref().map_or(0, |h| h.records as usize) + self.records.len()
    }

    /// What [`ProvideHistory`] does (a command reading its history calls it directly).
    /// Takes the history the host gave ([`crate::session::ProvideHistory`], a reconcile): checked against
    /// what the checkpoint said of it, refused whole when it is not that history.
    pub fn take_history(&mut self, text: String) -> Result<(), SessionError> {
        let Some(history) = self.history.as_ref().filter(|h| h.text.is_none()) else { return Ok(()) };
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
        records.append(&mut self.records);
        self.records = records;
        self.history = None;
        Ok(())
    }
    /// `history_needed` when the history is with the host.
    pub fn require_history(&self) -> Result<(), SessionError> {
        match self.needs_history() {
            true => Err(SessionError::HistoryNeeded),
            false => Ok(()),
        }
    }
    /// A record from elsewhere that needs the whole history (a rewind, a compaction trimming
    /// results let go) is refused until the host gives it.
    pub fn check_append_needs(&self, record: &Record) -> Result<(), AppendError> {
        // A record the replay cannot fold onto what it holds is replayed from the start, which
        // needs every record.
        let folds = !matches!(record.body, RecordBody::Event(Event::Rewind(_))) && self.replayer.as_ref().is_none_or(|r| r.folds(record));
        match (folds, self.needs_history()) {
            (false, true) => Err(AppendError::HistoryNeeded),
            _ => Ok(()),
        }
    }
    /// Makes the whole history resident: the records before the checkpoint the session opened
    /// from are read from their text. Nothing happens while the host keeps the text (every
    /// caller has asked for it first).
    pub fn load_history(&mut self) {
        let Some(history) = self.history.take_if(|h| h.text.is_some()) else { return };
        let text = history.text.unwrap_or_default();
        let mut log = parse_log(&text);
        let header_lines = history.lines.saturating_sub(text.matches('\n').count());
        for d in &mut log.diagnostics {
            if let Some(line) = d.line.as_mut() {
                *line += header_lines;
            }
        }
        self.diagnostics.splice(0..0, log.diagnostics);
        log.records.append(&mut self.records);
        self.records = log.records;
    }
    /// Every record of the log, the history's included (read from its text, not kept).
    pub fn all_records(&self) -> Result<Cow<'_, [Record]>, SessionError> {
        self.require_history()?;
        Ok(match self.history.as_ref().and_then(|h| h.text.as_deref()) {
            Some(text) => {
                let mut records = parse_log(text).records;
                records.extend(self.records.iter().cloned());
                Cow::Owned(records)
            }
            None => Cow::Borrowed(&self.records),
        })
    }
    /// The first record's time.
    pub fn started_at(&self) -> Option<String> {
        match &self.history {
            Some(history) => history.started_at.clone(),
            None => self.records.first().map(|r| r.ts.clone()),
        }
    }
    /// The summary of the compaction recorded at `seq`.
    pub fn compaction_summary(&self, seq: u64) -> Option<String> {
        match self.records.iter().find(|r| r.seq == seq).map(|r| &r.body) {
            Some(RecordBody::Event(Event::CompactionCheckpoint(cp))) => Some(cp.summary.clone()),
            Some(_) => None,
            None => self.history.as_ref().and_then(|h| h.summary.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(seq: u64, text: &str) -> String {
        format!(r#"{{"seq":{seq},"ts":"2026-12-0{seq}T00:00:00Z","update":{{"sessionUpdate":"user_message_chunk","messageId":"u{seq}","content":{{"type":"text","text":"{text}"}}}}}}"#)
    }

    /// A log that holds records 3 and 4, the history before them (1 and 2) as text or with the host.
    fn log(text: Option<&str>) -> Log {
        let held = parse_log(&[prompt(3, "c"), prompt(4, "d")].join("\n")).records;
        let history = History {
            text: text.map(str::to_owned),
            lines: 3,
            records: 2,
            through: 2,
            started_at: Some("2026-12-01T00:00:00Z".into()),
            prompts: crate::update::replay::prompt_fold(&parse_log(&[prompt(1, "a"), prompt(2, "b")].join("\n")).records),
            summary: None,
        };
        Log { records: held, history: Some(Box::new(history)), ..Log::default() }
    }

    #[test]
    fn the_history_counts_and_dates_the_log_and_is_read_whole_only_from_its_text() {
        let text = format!("{}\n{}\n", prompt(1, "a"), prompt(2, "b"));
        let mut held = log(Some(&text));
        assert_eq!((held.record_count(), held.started_at().as_deref(), held.needs_history()), (4, Some("2026-12-01T00:00:00Z"), false));
        assert_eq!(held.all_records().unwrap().iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2, 3, 4]);
        held.load_history();
        assert_eq!((held.records.len(), held.history.is_none(), held.started_at().as_deref()), (4, true, Some("2026-12-01T00:00:00Z")));

        let mut with_host = log(None);
        assert_eq!((with_host.needs_history(), with_host.history_through()), (true, Some(2)));
        assert_eq!(with_host.all_records().map(|r| r.len()), Err(SessionError::HistoryNeeded));
        // A rewind cannot fold onto what is held: refused until the history is given.
        let rewind = parse_log(r#"{"seq":5,"ts":"2026-12-05T00:00:00Z","event":{"kind":"rewind","promptIndex":0}}"#).records.remove(0);
        assert_eq!(with_host.check_append_needs(&rewind), Err(AppendError::HistoryNeeded));
        // What is not that history is refused whole; the history is taken once it is.
        assert!(matches!(with_host.take_history(prompt(1, "a")), Err(SessionError::HistoryMismatch(_))));
        assert_eq!(with_host.record_count(), 4);
        with_host.take_history(text).unwrap();
        assert_eq!((with_host.needs_history(), with_host.records.iter().map(|r| r.seq).collect::<Vec<_>>()), (false, vec![1, 2, 3, 4]));
        assert_eq!(with_host.check_append_needs(&rewind), Ok(()));
    }
}
