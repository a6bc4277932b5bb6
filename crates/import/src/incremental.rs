//! Incremental import: a session file that grows while its agent writes it, imported as it grows
//! into one log that only appends.
//!
//! Each push imports the file as it now stands — its complete lines, for a format of lines; the
//! whole document, for one an agent rewrites (a Gemini CLI `.json`, a Cline task, an OpenCode
//! export), once it reads as JSON again. The records up to the last model turn are settled: they
//! are appended to the log once, and a later push that imports the same records before them
//! appends only what follows. The last turn, its results and anything after it are what a file
//! still being written may yet change (Claude Code writes a message a block per line, with its
//! usage on each, and runs its calls while it streams), so they are handed back as `pending`:
//! the log and its pending records replay to the view a whole import of the file gives, and the
//! log itself gains each request once, unless the file changes a settled record.
//! [`IncrementalImport::settle`] appends the pending records when the file is done with. Where a
//! settled record changed (a Gemini CLI `$set` of an earlier message or a `$rewindTo`, a new
//! branch in a Claude Code file, a document rewritten otherwise), the log gains a `rewind` to
//! before the last prompt both imports share, and the longer import's records from that prompt on.
//!
//! A file whose importer reads it a line at a time, never looking back (a Codex rollout, a pi
//! session, a Copilot CLI events file: [`crate::LineReader`]), is read by its new lines only:
//! the reader goes on from where it stopped and the calibration from the last anchor, so a push
//! costs what the lines it adds cost, and nothing is pending: such a file only appends, and the
//! log holds exactly the records a whole import writes (until the file is rewritten under its
//! reader: it is then read whole, as any other). The report, which weighs the whole file against its agent's
//! view, is made when asked for ([`IncrementalImport::report`]).
//!
//! A compaction checkpoint names its first kept record by `seq`: the appended copy names that
//! record's `seq` in this log.

use contextview::update::record::{Event, Header, Record, RecordBody, Rewind};
use contextview::update::replay::{is_real_prompt_start, prompt_texts};

use crate::calibrate::Calibrator;
use crate::codes;
use crate::dispatch::{detect, import, ImportError};
use crate::emit::{LineReader, Written};
use crate::format::Format;
use crate::lines::json_lines;
use crate::report::ImportReport;

/// A format read a line at a time, as far as it has been read.
struct Streaming {
    reader: Box<dyn LineReader>,
    written: Written,
    calibrator: Calibrator,
    /// The records written, calibrated.
    records: Vec<Record>,
    /// Bytes of the file read, and the lines in them.
    read: usize,
    lines: usize,
}

/// A growing session file's import.
#[derive(Default)]
pub struct IncrementalImport {
    /// The reader of a format read a line at a time, once the format is told.
    streaming: Option<Streaming>,
    /// Read whole on every push even so: the file was rewritten under its line reader.
    whole: bool,
    format: Option<Format>,
    /// The file as pushed so far.
    text: String,
    /// The whole imports' records the log holds (settled), and each one's `seq` in this log.
    settled: Vec<Record>,
    seq_in_log: Vec<u64>,
    /// The last whole import's records after the settled ones.
    pending: Vec<Record>,
    /// Records this log holds.
    written: u64,
    header: Option<Header>,
    report: Option<ImportReport>,
}

/// What a push adds to the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    /// The log's header, on the push that first imported something.
    pub header: Option<Header>,
    /// Records to append, numbered on from the log's last.
    pub records: Vec<Record>,
    /// Whether an earlier record changed, so that a `rewind` leads the records.
    pub rewound: bool,
    /// The records after them that the file may still change (the last model turn and what
    /// follows it), numbered on from `records`: shown with the log, not appended to it. They
    /// replace the pending records of the push before.
    pub pending: Vec<Record>,
}

impl IncrementalImport {
    /// A new import, of `format`, or of the format the first text that reads as one is.
    pub fn new(format: Option<Format>) -> IncrementalImport {
        IncrementalImport { format, ..IncrementalImport::default() }
    }

    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Whether the file is read whole on each change (pass it to [`Self::replace`]) rather than
    /// by what it grew by: its format is not told yet, its agent rewrites it whole (a task's
    /// history, an export, a Gemini CLI recording kept as one JSON document), or it was
    /// rewritten under its line reader.
    pub fn reads_whole(&self) -> bool {
        match self.format {
            None => true,
            Some(format) => self.whole || is_document(format, &self.text),
        }
    }

    /// The log's header (none before the first push that imported anything).
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The report of the whole import of the file as it now stands (its complete lines): made
    /// now for a file read a line at a time, which costs what the whole import costs.
    pub fn report(&mut self) -> Option<ImportReport> {
        if let (Some(streaming), Some(format)) = (&self.streaming, self.format) {
            if streaming.records.is_empty() {
                return None;
            }
            return import(Some(format), &self.text[..streaming.read]).ok().map(|i| i.report);
        }
        self.report.clone()
    }

    /// The file grew by `added`.
    pub fn push(&mut self, added: &str) -> Result<Appended, ImportError> {
        self.text.push_str(added);
        self.import()
    }

    /// The file was rewritten, or read again whole: it now holds `text`. A file read a line at a
    /// time that no longer starts with what was read is compared whole from then on, as any other.
    pub fn replace(&mut self, text: &str) -> Result<Appended, ImportError> {
        if self.streaming.as_ref().is_some_and(|s| !text.starts_with(&self.text[..s.read])) {
            if let Some(streaming) = self.streaming.take() {
                self.seq_in_log = (1..=streaming.records.len() as u64).collect();
                self.settled = streaming.records;
                self.whole = true;
            }
        }
        text.clone_into(&mut self.text);
        self.import()
    }

    fn import(&mut self) -> Result<Appended, ImportError> {
        // A line still being written waits for its end (Aider's transcript ends each record with one).
        let lines_end = self.text.rfind('\n').map_or(0, |i| i + 1);
        let format = match self.format {
            Some(f) => f,
            None => match detect(&self.text[..lines_end]).or_else(|| detect(&self.text)) {
                Some(f) => f,
                // The first lines may not tell yet.
                None if self.text.len() < 64 * 1024 => return Ok(self.unchanged()),
                None => return Err(import(None, &self.text).err().unwrap_or(ImportError::UnknownFormat(String::new()))),
            },
        };
        if let Some(reader) = line_reader(format).filter(|_| !self.whole) {
            self.format = Some(format);
            return Ok(self.stream(format, reader, lines_end));
        }
        let whole_document = is_document(format, &self.text);
        let text = if whole_document { self.text.as_str() } else { &self.text[..lines_end] };
        if text.trim().is_empty() {
            // No complete line (the file was emptied, or is written again from its start): what
            // was pending is not in it any more.
            self.pending.clear();
            return Ok(self.unchanged());
        }
        let imported = import(Some(format), text)?;
        // A document rewritten in place may be read half-written: wait until it is JSON again.
        let unreadable = imported.records.is_empty() && imported.report.diagnostics.iter().any(|d| d.code == codes::IMPORT_MALFORMED_LINE.code);
        if whole_document && unreadable {
            return Ok(self.unchanged());
        }
        self.format = Some(format);
        // What comes before the first prompt (an agent's environment turn, its first model) may
        // still change until a prompt follows it: nothing is written before one.
        let mut records = imported.records;
        let Some(first_prompt) = first_prompt_start(&records) else {
            // (A file rewritten with no prompt yet holds none of what was pending either.)
            self.pending.clear();
            return Ok(self.unchanged());
        };
        let header = match &self.header {
            Some(_) => None,
            None => {
                self.header = Some(imported.header.clone());
                self.header.clone()
            }
        };
        self.report = Some(imported.report);
        let common = self.settled.iter().zip(&records).take_while(|(a, b)| same(a, b)).count();
        let mut out = Vec::new();
        // Where the log's own first prompt is: looked for only when a settled record changed.
        let log_first_prompt = || first_prompt_start(&self.settled).unwrap_or(self.settled.len());
        let (from, rewound) = if common == self.settled.len() {
            (common, false)
        } else if let Some(log_first_prompt) = Some(log_first_prompt()).filter(|&at| self.holds_from_the_first_prompt(at, &records[first_prompt..])) {
            let held = self.settled.len() - log_first_prompt;
            // Only what comes before the first prompt changed (a title set at the top once the
            // conversation was under way, the agent's first model): there is nothing to rewind.
            // The log keeps those records as it wrote them; a title it lacks is appended, the
            // update it is at any point of a session. It goes on after what it holds.
            self.append_titles(&records[..first_prompt], log_first_prompt, &mut out);
            // Compared as the longer import has them from now on. (A record before the first
            // prompt is never a compaction's first kept one: its `seq` here is the log's first.)
            let first_seq = self.seq_in_log.first().copied().unwrap_or(self.written);
            let mut settled = records[..first_prompt].to_vec();
            settled.extend_from_slice(&self.settled[log_first_prompt..]);
            self.settled = settled;
            let mut seqs = vec![first_seq; first_prompt];
            seqs.extend_from_slice(&self.seq_in_log[log_first_prompt..]);
            self.seq_in_log = seqs;
            (first_prompt + held, false)
        } else {
            // Back to before the last prompt both imports share, and the rest again from there
            // (what came before the first prompt stays as the log has it, and is taken as the
            // longer import has it, so that later pushes compare from here). A file rewritten with
            // more before its first prompt than all the log holds goes back to before the first
            // prompt, and takes every record again (what the log holds before its own first
            // prompt stays: a replay keeps it).
            let log_first_prompt = log_first_prompt();
            let start = prompt_start_at_or_before(&records, common).max(first_prompt);
            let start = if start > self.settled.len() { 0 } else { start };
            let prompt_index = prompt_texts(&records[..start]).len() as u64;
            self.written += 1;
            out.push(Record { seq: self.written, ts: records.get(start).map(|r| r.ts.clone()).unwrap_or_default(), body: RecordBody::Event(Event::Rewind(Rewind { prompt_index })) });
            // A title the log lacks, set before the first prompt, is appended as in the branch
            // above (those at or after `start` are appended with the rest).
            self.append_titles(&records[..start.min(first_prompt)], log_first_prompt, &mut out);
            self.settled.truncate(start);
            self.settled.clone_from_slice(&records[..start]);
            self.seq_in_log.truncate(start);
            (start, true)
        };
        // Settled: everything before the last model turn (before the first prompt, which may
        // still be being written, when there is none yet).
        let settle_to = contextview::update::last_turn_start(&records).unwrap_or(first_prompt).max(from);
        out.extend(self.append(&records[from..settle_to]));
        let pending = self.numbered_on(&records[settle_to..]);
        self.pending = records.split_off(settle_to);
        Ok(Appended { header, records: out, rewound, pending })
    }

    /// Appends to `out` each title (a `session_info_update`) of `before_first_prompt` (the longer
    /// import's records before its first prompt) that the log lacks before its own first prompt
    /// (at `log_first_prompt` in `settled`): the update it is at any point of a session.
    fn append_titles(&mut self, before_first_prompt: &[Record], log_first_prompt: usize, out: &mut Vec<Record>) {
        for record in before_first_prompt {
            if record.body.kind() == "session_info_update" && !self.settled[..log_first_prompt].iter().any(|r| same(r, record)) {
                self.written += 1;
                out.push(Record { seq: self.written, ts: record.ts.clone(), body: record.body.clone() });
            }
        }
    }

    /// Whether the longer import, from its first prompt on (`from_first_prompt`), starts with all
    /// the log holds from its own (at `log_first_prompt`): what changed, if anything, came before
    /// the first prompt.
    fn holds_from_the_first_prompt(&self, log_first_prompt: usize, from_first_prompt: &[Record]) -> bool {
        let held = &self.settled[log_first_prompt..];
        from_first_prompt.len() >= held.len() && held.iter().zip(from_first_prompt).all(|(a, b)| same(a, b))
    }

    /// Nothing new to read (a line still being written, a document read half-written, no prompt
    /// yet): the log gains nothing, and what is pending is shown again (its callers clear it
    /// first where the file no longer holds it).
    fn unchanged(&self) -> Appended {
        Appended { header: None, records: Vec::new(), rewound: false, pending: self.numbered_on(&self.pending) }
    }

    /// The file is done with (or its reader stops): the pending records are appended as they
    /// stand. A later push that changes them rewinds, as for any settled record.
    pub fn settle(&mut self) -> Appended {
        let pending = std::mem::take(&mut self.pending);
        Appended { header: None, records: self.append(&pending), rewound: false, pending: Vec::new() }
    }

    /// Appends `records` (of the whole import, after the settled ones) to the log: numbered on
    /// from its last, a compaction checkpoint's first kept record named by its `seq` here.
    fn append(&mut self, records: &[Record]) -> Vec<Record> {
        let numbered = self.numbered_on(records);
        self.written += numbered.len() as u64;
        self.seq_in_log.extend(numbered.iter().map(|r| r.seq));
        self.settled.extend_from_slice(records);
        numbered
    }

    /// `records` (the whole import's, from the first not settled) as the log's next records.
    fn numbered_on(&self, records: &[Record]) -> Vec<Record> {
        let mut seq = self.written;
        records
            .iter()
            .map(|record| {
                seq += 1;
                let mut body = record.body.clone();
                if let RecordBody::Event(Event::CompactionCheckpoint(c)) = &mut body {
                    let at = c.first_kept_seq.saturating_sub(1) as usize;
                    c.first_kept_seq = match self.seq_in_log.get(at) {
                        Some(&kept) => kept,
                        // One of these records, or a later one: numbered on one by one from here.
                        None => self.written + 1 + (at - self.seq_in_log.len()) as u64,
                    };
                }
                Record { seq, ts: record.ts.clone(), body }
            })
            .collect()
    }
}

impl IncrementalImport {
    /// Reads the complete lines up to `end` not read yet, and appends what they write.
    fn stream(&mut self, format: Format, reader: fn() -> Box<dyn LineReader>, end: usize) -> Appended {
        let streaming = self.streaming.get_or_insert_with(|| Streaming { reader: reader(), written: Written::new(None), calibrator: Calibrator::default(), records: Vec::new(), read: 0, lines: 0 });
        let new = &self.text[streaming.read..end.max(streaming.read)];
        let before = streaming.written.out.next_seq();
        for (line, parsed) in json_lines(new) {
            streaming.reader.line(&mut streaming.written, streaming.lines + line, parsed);
        }
        streaming.lines += new.matches('\n').count();
        streaming.read = end.max(streaming.read);
        let first = streaming.records.len();
        streaming.records.extend_from_slice(streaming.written.out.records_since(before));
        for i in first..streaming.records.len() {
            streaming.calibrator.record(&mut streaming.records, i);
        }
        let records = streaming.records[first..].to_vec();
        self.written = streaming.records.len() as u64;
        let header = match (&self.header, records.is_empty()) {
            (None, false) => {
                let mut header = streaming.written.header.clone();
                header.imported_from = Some(format.as_str().to_owned());
                self.header = Some(header);
                self.header.clone()
            }
            _ => None,
        };
        Appended { header, records, rewound: false, pending: Vec::new() }
    }
}

/// The line reader of a format read a line at a time.
fn line_reader(format: Format) -> Option<fn() -> Box<dyn LineReader>> {
    match format {
        Format::Codex => Some(|| Box::<crate::codex::Reader>::default()),
        Format::Pi => Some(|| Box::<crate::pi::Reader>::default()),
        Format::CopilotCli => Some(|| Box::<crate::copilot_cli::Reader>::default()),
        Format::ClaudeCode | Format::GeminiCli | Format::Aider | Format::Cline | Format::RooCode | Format::KiloCode | Format::OpenCode => None,
    }
}

/// Whether the agent writes `format`'s file whole (so it is read whole), not by lines: a task's
/// history, an export, a Gemini CLI recording kept as one JSON document.
fn is_document(format: Format, text: &str) -> bool {
    match format {
        Format::Cline | Format::RooCode | Format::KiloCode | Format::OpenCode => true,
        Format::GeminiCli => text.lines().find(|l| !l.trim().is_empty()).is_some_and(|l| serde_json::from_str::<serde_json::Value>(l).is_err()),
        Format::ClaudeCode | Format::Codex | Format::Pi | Format::CopilotCli | Format::Aider => false,
    }
}

/// The index of the record that starts the first real prompt.
fn first_prompt_start(records: &[Record]) -> Option<usize> {
    (0..records.len()).find(|&i| is_real_prompt_start(i.checked_sub(1).map(|p| &records[p]), &records[i]))
}

/// Whether a longer import's record is the one the log holds for it.
fn same(a: &Record, b: &Record) -> bool {
    a.ts == b.ts && a.body == b.body
}

/// The index of the record that starts the last real prompt at or before `at` (0 when none does).
fn prompt_start_at_or_before(records: &[Record], at: usize) -> usize {
    let Some(last) = records.len().checked_sub(1) else { return 0 };
    (0..=at.min(last))
        .rev()
        .find(|&i| is_real_prompt_start(i.checked_sub(1).map(|p| &records[p]), &records[i]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
