//! Opening a session from its log's text: from the last checkpoint when the log has one, so
//! only the records after it are read and folded ([`crate::update::checkpoint`]); the lines
//! before it stay text, read when something needs the whole history (a rewind, the client's
//! full view, a reconcile). A log without a readable checkpoint opens by replaying it all.

use crate::diagnostic::Diagnostic;
use crate::update::checkpoint::{Checkpoint, CheckpointState};
use crate::update::{parse_log, Event, Header, Log, Record, RecordBody};

/// The records before the first one a session holds, when it opened from a checkpoint.
#[derive(Debug, Clone)]
pub(super) struct History {
    /// The log's lines before the held records, header excluded, each ending in a line break.
    pub text: String,
    /// Lines of the log before the held records, the header's included (for line numbers).
    pub lines: usize,
    /// Records in `text`.
    pub records: u64,
    pub started_at: Option<String>,
    /// The real prompts in it (the records after it go on from here).
    pub prompts: crate::update::replay::PromptFold,
    /// The last compaction's summary in it.
    pub summary: Option<String>,
}

/// A log read from its last checkpoint.
pub(super) struct Opened {
    pub header: Option<Header>,
    pub history: History,
    /// The records after the ones the checkpoint covers (it among them), with their diagnostics.
    pub tail: Log,
    pub replay: crate::update::replay::Resume,
    pub told: Vec<(String, String)>,
}

/// The last checkpoint of `text` and the lines around it; `None` when the log has none that
/// reads (it then opens by replay).
pub(super) fn at_checkpoint(text: &str) -> Option<Opened> {
    // Find the last checkpoint line, from the end: a cheap look for its kind, then a parse.
    let mut end = text.len();
    let (start, checkpoint) = loop {
        let body = text[..end].trim_end_matches(['\n', '\r']);
        if body.is_empty() {
            return None;
        }
        let start = body.rfind('\n').map_or(0, |i| i + 1);
        let line = &body[start..];
        if line.contains("\"kind\":\"checkpoint\"") {
            if let Some(cp) = checkpoint_of(line) {
                break (start, cp);
            }
        }
        end = start;
    };
    // The tail starts at the first record after the one the checkpoint covers.
    let mut tail_start = start;
    while tail_start > 0 {
        let before = text[..tail_start - 1].rfind('\n').map_or(0, |i| i + 1);
        match line_seq(&text[before..tail_start - 1]) {
            Some(seq) if seq > checkpoint.through => tail_start = before,
            _ => break,
        }
    }
    let first_break = text.find('\n')?;
    let log_head = parse_log(&text[..first_break]);
    let header = log_head.header;
    let history_start = if header.is_some() { first_break + 1 } else { 0 };
    if tail_start < history_start {
        return None;
    }
    let lines = text[..tail_start].matches('\n').count();
    let mut tail = parse_log(&text[tail_start..]);
    for d in &mut tail.diagnostics {
        shift_line(d, lines);
    }
    for line in &mut tail.lines {
        *line += lines;
    }
    if tail.records.first().is_none_or(|r| r.seq <= checkpoint.through) {
        return None;
    }
    let CheckpointState { replay, prompts, told, summary } = checkpoint.state()?;
    let history = History {
        text: text[history_start..tail_start].to_owned(),
        lines,
        records: checkpoint.records,
        started_at: checkpoint.started_at,
        prompts,
        summary,
    };
    Some(Opened { header, history, tail, replay, told })
}

/// The checkpoint a line holds, if it is a readable checkpoint record.
fn checkpoint_of(line: &str) -> Option<Checkpoint> {
    let value = serde_json::from_str(line).ok()?;
    match Record::from_value(value).ok()?.body {
        RecordBody::Event(Event::Checkpoint(cp)) => Some(cp),
        _ => None,
    }
}

/// The `seq` of a record line, read from its start when it opens with it (as this package
/// writes records), else from the whole line.
fn line_seq(line: &str) -> Option<u64> {
    if let Some(rest) = line.strip_prefix("{\"seq\":") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with([',', '}']) {
            return rest[..digits].parse().ok();
        }
    }
    serde_json::from_str::<serde_json::Value>(line).ok()?.get("seq")?.as_u64()
}

fn shift_line(d: &mut Diagnostic, by: usize) {
    if let Some(line) = d.line.as_mut() {
        *line += by;
    }
}
