//! Opening a session from its log: from the last checkpoint when the log has one, so only the
//! records after it are read and folded ([`crate::update::checkpoint`]); the lines before it are
//! not parsed, and a host that holds the text elsewhere (a JS string) copies only the tail in
//! ([`LogText`]). A log without a readable checkpoint, or with a rewind after its last one,
//! opens by replaying it all.

use super::parts::log::History;
use super::core::Session;
use super::persist;
use crate::update::checkpoint::Checkpoint;
use crate::update::resume::CheckpointState;
use crate::update::{parse_log, Event, RecordBody, Replayer};
use crate::view::ReminderQueue;

/// A log's text as the opener reads it: searched from its end and copied only where it is
/// read, so a host's text (a JS string) need not be copied whole. Positions are the text's own
/// units (bytes for `str`, UTF-16 units for a JS string).
pub trait LogText {
    fn len(&self) -> usize;
    /// The last occurrence of `pattern` starting before `before`.
    fn rfind_before(&self, pattern: &str, before: usize) -> Option<usize>;
    /// The first occurrence of `pattern` at or after `from`.
    fn find_from(&self, pattern: &str, from: usize) -> Option<usize>;
    /// A copy of `from..to`.
    fn slice(&self, from: usize, to: usize) -> String;
}

impl LogText for &str {
    fn len(&self) -> usize {
        str::len(self)
    }
    fn rfind_before(&self, pattern: &str, before: usize) -> Option<usize> {
        self.get(..before.min(str::len(self))).and_then(|head| head.rfind(pattern))
    }
    fn find_from(&self, pattern: &str, from: usize) -> Option<usize> {
        self.get(from..).and_then(|rest| rest.find(pattern)).map(|i| i + from)
    }
    fn slice(&self, from: usize, to: usize) -> String {
        self.get(from..to).unwrap_or_default().to_owned()
    }
}

/// Where a log splits at its last checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Where the lines after the header start (0 without a header).
    pub history_start: usize,
    /// Where the tail starts: the first record the checkpoint does not cover.
    pub tail_start: usize,
}

/// Where `text` splits at its last readable checkpoint; `None` when it has none.
pub fn split<T: LogText>(text: &T) -> Option<Split> {
    let mut before = text.len();
    let (line_start, through) = loop {
        let at = text.rfind_before("\"kind\":\"checkpoint\"", before)?;
        let line_start = text.rfind_before("\n", at).map_or(0, |i| i + 1);
        let line_end = text.find_from("\n", at).unwrap_or(text.len());
        if let Some(through) = checkpoint_through(text.slice(line_start, line_end).trim_end_matches('\r')) {
            break (line_start, through);
        }
        if line_start == 0 {
            return None;
        }
        before = line_start;
    };
    // Records written after the one the checkpoint covers but before it belong to the tail.
    let mut tail_start = line_start;
    while tail_start > 0 {
        let previous = text.rfind_before("\n", tail_start - 1).map_or(0, |i| i + 1);
        match line_seq(&text.slice(previous, tail_start - 1)) {
            Some(seq) if seq > through => tail_start = previous,
            _ => break,
        }
    }
    let first_end = text.find_from("\n", 0).unwrap_or(text.len());
    let history_start = if parse_log(&text.slice(0, first_end)).header.is_some() { first_end + 1 } else { 0 };
    (tail_start >= history_start).then_some(Split { history_start, tail_start })
}

impl Session {
    /// [`Session::from_log`] from the log's last checkpoint (its text kept for when the whole
    /// history is needed); `None` when it has none that reads.
    pub(super) fn from_checkpoint(text: &&str) -> Option<Session> {
        let at = split(text)?;
        let history = text[at.history_start..at.tail_start].to_owned();
        Session::from_tail(&text[..at.history_start], &text[at.tail_start..], Some(history))
    }

    /// A session from the header line (`head`, empty when the log has none) and the lines from
    /// its last checkpoint on (`tail`, from [`split`]), with the lines between when the host
    /// gives them (else they stay with the host: see [`Session::needs_history`]). `None` when
    /// the tail does not open from its checkpoint: the host then opens the whole log.
    pub fn from_tail(head: &str, tail: &str, history: Option<String>) -> Option<Session> {
        let header = parse_log(head).header;
        let header_lines = usize::from(header.is_some());
        // Bytes after the checkpoint line, for the spacing of checkpoints by size.
        let since = tail.rfind("\"kind\":\"checkpoint\"").and_then(|at| tail[at..].find('\n').map(|end| tail.len() - at - end - 1)).unwrap_or(0) as u64;
        let mut tail = parse_log(tail);
        let checkpoint = tail.records.iter().find_map(|r| match &r.body {
            RecordBody::Event(Event::Checkpoint(cp)) => Some(cp),
            _ => None,
        })?;
        if tail.records.first().is_none_or(|r| r.seq <= checkpoint.through) {
            return None;
        }
        let CheckpointState { replay, prompts, told, summary } = CheckpointState::read(&checkpoint)?;
        let Checkpoint { records, through, .. } = *checkpoint;
        let started_at = checkpoint.started_at.clone();
        let mut replayer = Replayer::resume(replay)?;
        let mut reminders = ReminderQueue::default();
        for (kind, text) in told {
            reminders.observe(&crate::update::record::ReminderInjected { reminder: kind, text });
        }
        for record in &tail.records {
            if let RecordBody::Event(Event::ReminderInjected(injected)) = &record.body {
                reminders.observe(injected);
            }
            // A rewind after the checkpoint needs the whole history: the log opens by replay.
            if !replayer.push(record) {
                return None;
            }
        }
        // Line numbers: the history's lines are its records (blank or bad lines among them
        // shift what the tail's diagnostics say by as many).
        let lines = header_lines + records as usize;
        for d in &mut tail.diagnostics {
            if let Some(line) = d.line.as_mut() {
                *line += lines;
            }
        }
        let stored = tail.records.last().map_or(0, |r| r.seq);
        let history = History { text: history, lines, records, through, started_at, prompts, summary };
        Some(Session {
            builds: super::parts::builds::Builds { since_build: super::parts::builds::SinceBuild::of(&tail.records), ..Default::default() },
            compactions: super::parts::compactions::Compactions { last_rewrite: super::core::last_rewrite(&tail.records), ..Default::default() },
            persistence: persist::Persistence::stored(stored, header.is_some()),
            log: super::parts::log::Log { header, records: tail.records, history: Some(Box::new(history)), diagnostics: tail.diagnostics, replayer: Some(replayer) },
            checkpoints: super::parts::checkpoints::Writer { since, counted: stored, ..super::parts::checkpoints::Writer::default() },
            reminders,
            ..Session::default()
        })
    }
}

/// The record a checkpoint covers through, if `line` is a checkpoint record. Its state is
/// skipped, not read: the session reads it once, when it opens from the tail.
fn checkpoint_through(line: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Line {
        event: Peek,
    }
    #[derive(serde::Deserialize)]
    struct Peek {
        kind: String,
        through: u64,
    }
    // Other fields, the state among them, are skipped as the text is read.
    let Line { event: Peek { kind, through } } = serde_json::from_str(line).ok()?;
    (kind == "checkpoint").then_some(through)
}

/// The `seq` of a record line, read from its start when it opens with it (records written with
/// their fields in order do), else from the whole line.
fn line_seq(line: &str) -> Option<u64> {
    let line = line.trim_end_matches('\r');
    if let Some(rest) = line.strip_prefix("{\"seq\":") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with([',', '}']) {
            return rest[..digits].parse().ok();
        }
    }
    serde_json::from_str::<serde_json::Value>(line).ok()?.get("seq")?.as_u64()
}
