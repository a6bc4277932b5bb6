//! What every importer writes through: the [`LogBuilder`] that numbers records and counts what it
//! wrote and could not map, the [`LineReader`]s of the formats read a line at a time, and the
//! helpers the formats share (an image from base64, a model's provider, a tool's kind).

use serde_json::Value;

use contextview::diagnostic::Diagnostic;
use contextview::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, SessionUpdate, Stream, ToolCallContent, ToolCallStatus, ToolKind};
use contextview::update::record::{Event, Header, Record, RecordBody};
use contextview::update::write;

use crate::codes;
use crate::lines::ParsedLine;
use crate::report::{ImportReport, Imported};

/// An importer that reads a file one line at a time, where what it writes for a line never
/// depends on a later one: a growing file is imported by its new lines ([`crate::incremental`]).
pub trait LineReader {
    /// Reads the next line (its 1-based number, and its JSON or why it is not read) into `written`.
    fn line(&mut self, written: &mut Written, line: usize, parsed: Result<Value, String>);
}

/// What a [`LineReader`] has written: its records (and report), and the log's header.
pub struct Written {
    pub out: LogBuilder,
    pub header: Header,
    /// Whose view the session is (`report.audience`), when the format says.
    pub audience: Option<&'static str>,
}

impl Written {
    pub fn new(audience: Option<&'static str>) -> Written {
        Written { out: LogBuilder::new(), header: Header::new(""), audience }
    }

    /// The import of what was written.
    pub fn finish(self) -> Imported {
        let mut imported = self.out.finish(self.header);
        imported.report.audience = self.audience.map(str::to_owned);
        imported
    }
}

/// Reads every line through `reader` into `written`.
pub fn read_lines(reader: &mut dyn LineReader, mut written: Written, lines: Vec<ParsedLine>) -> Imported {
    for (line, parsed) in lines {
        reader.line(&mut written, line, parsed);
    }
    written.finish()
}

/// Writes records with increasing `seq`, counting what it writes and what it cannot map.
#[derive(Debug, Default)]
pub struct LogBuilder {
    records: Vec<Record>,
    report: ImportReport,
    last_ts: String,
}

impl LogBuilder {
    pub fn new() -> Self {
        LogBuilder::default()
    }

    /// The `seq` the next record will get.
    pub fn next_seq(&self) -> u64 {
        self.records.len() as u64 + 1
    }

    /// Sets the timestamp for the records that follow (keeps the last one when `ts` is empty).
    pub fn at(&mut self, ts: Option<&str>) {
        if let Some(ts) = ts.filter(|t| !t.is_empty()) {
            self.last_ts = ts.to_owned();
        }
    }

    /// Records written from `seq` on.
    pub fn records_since(&self, seq: u64) -> &[Record] {
        let start = (seq.saturating_sub(1) as usize).min(self.records.len());
        &self.records[start..]
    }

    /// Records written before `seq`.
    pub fn records_before(&self, seq: u64) -> &[Record] {
        &self.records[..(seq.saturating_sub(1) as usize).min(self.records.len())]
    }

    /// The record just before `seq`, if any.
    pub fn record_before(&self, seq: u64) -> Option<&Record> {
        seq.checked_sub(2).and_then(|i| self.records.get(i as usize))
    }

    /// Records of `kind` written so far.
    pub fn written(&self, kind: &str) -> usize {
        self.report.written.get(kind).copied().unwrap_or(0)
    }

    pub fn push(&mut self, body: RecordBody) -> u64 {
        let seq = self.next_seq();
        *self.report.written.entry(body.kind().to_owned()).or_insert(0) += 1;
        self.records.push(Record { seq, ts: self.last_ts.clone(), body });
        seq
    }

    pub fn update(&mut self, update: SessionUpdate) -> u64 {
        self.push(RecordBody::Update(AcpUpdate::Known(update)))
    }

    pub fn other_update(&mut self, update: Value) -> u64 {
        self.push(RecordBody::Update(AcpUpdate::Other(update)))
    }

    /// A subagent's session the log links to a call (listed in the report).
    pub fn linked_subagent(&mut self, session_id: &str) {
        self.report.subagents.push(session_id.to_owned());
    }

    pub fn event(&mut self, event: Event) -> u64 {
        self.push(RecordBody::Event(event))
    }

    /// One content chunk of a user, agent or thought message.
    pub fn chunk(&mut self, stream: Stream, message_id: &str, content: ContentBlock, meta: &ProviderMeta) -> u64 {
        self.update(write::chunk(stream, Some(message_id), content, meta))
    }

    /// Counts one input line (or entry) read, for a format not read through [`Self::object`].
    pub fn count_line(&mut self) {
        self.report.lines += 1;
    }

    /// Counts an input entry our layers cannot hold.
    pub fn unmapped(&mut self, kind: &str) {
        *self.report.unmapped.entry(kind.to_owned()).or_insert(0) += 1;
    }

    pub fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.report.diagnostics.push(diagnostic);
    }

    /// Reports a line that is not JSON, or not the shape its format promises.
    pub fn bad_line(&mut self, line: usize, code: &contextview::diagnostic::Code, message: impl Into<String>) {
        self.report.diagnostics.push(Diagnostic::new(code, message).at_line(line));
    }

    /// Counts one input line and returns it as a JSON object; anything else is reported with
    /// its line number and yields `None`. Also moves the timestamp to the line's `timestamp`.
    pub fn object(&mut self, line: usize, parsed: Result<Value, String>) -> Option<Value> {
        self.report.lines += 1;
        match parsed {
            Ok(value @ Value::Object(_)) => {
                self.at(value.get("timestamp").and_then(Value::as_str));
                Some(value)
            }
            Ok(_) => {
                self.bad_line(line, &codes::IMPORT_NOT_AN_OBJECT, "line is JSON but not an object");
                None
            }
            Err(e) => {
                self.bad_line(line, &codes::IMPORT_MALFORMED_LINE, format!("line is not JSON: {e}"));
                None
            }
        }
    }

    /// A new tool call (`pending`), with its tool name and provider facts in `_meta`.
    pub fn tool_call(&mut self, id: String, name: &str, input: Option<Value>, meta: ProviderMeta) -> u64 {
        self.tool_call_with(id, name.to_owned(), kind_of(name), ToolCallStatus::Pending, None, input, meta)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn tool_call_with(
        &mut self,
        id: String,
        title: String,
        kind: ToolKind,
        status: ToolCallStatus,
        content: Option<Vec<ToolCallContent>>,
        input: Option<Value>,
        meta: ProviderMeta,
    ) -> u64 {
        self.update(write::tool_call(write::CallStart { id, title, kind: Some(kind), status, content, locations: Vec::new(), input, meta }))
    }

    /// A tool call's outcome: `completed`, or `failed` when `failed`.
    pub fn tool_result(&mut self, id: &str, content: Vec<ToolCallContent>, failed: bool, raw_output: Option<Value>) -> u64 {
        self.update(write::tool_result(id, content, failed, raw_output))
    }

    pub fn finish(mut self, header: Header) -> Imported {
        self.report.records = self.records.len();
        // In line order (an importer may read the file before it writes), then what has no line.
        self.report.diagnostics.sort_by_key(|d| d.line.unwrap_or(usize::MAX));
        Imported { header, records: self.records, report: self.report }
    }
}

/// An image block from base64 data, with a diagnostic (and a text note instead) when the data
/// is not base64.
pub fn image_block(data: &str, mime_type: &str, line: usize, out: &mut LogBuilder) -> ContentBlock {
    write::image(data, mime_type).unwrap_or_else(|_| {
        out.diagnostic(
            Diagnostic::new(&codes::IMPORT_BAD_IMAGE, "image data is not valid base64; replaced by a note")
                .at_line(line),
        );
        ContentBlock::text(format!("[image ({mime_type}) could not be imported: its data is not valid base64]"))
    })
}

/// The provider a model's name belongs to, for an agent that serves several (Copilot CLI's
/// `claude-sonnet-4.6`, Aider's `vertex_ai/claude-…` or `gemini/gemini-2.5-pro`): Anthropic's
/// and Gemini's by name, any other an OpenAI Chat Completions model.
pub fn provider_of_model(model: &str) -> &'static str {
    let m = model.to_ascii_lowercase();
    if m.contains("claude") {
        "anthropic"
    } else if m.contains("gemini") {
        "gemini"
    } else {
        "openai-chat"
    }
}

/// Guesses an ACP tool kind from a tool's name (used for the client view only).
pub fn kind_of(name: &str) -> ToolKind {
    let n = name.to_ascii_lowercase();
    if n.contains("read") || n == "view" || n == "cat" || n == "ls" {
        ToolKind::Read
    } else if n.contains("edit") || n.contains("write") || n.contains("patch") {
        ToolKind::Edit
    } else if n.contains("grep") || n.contains("glob") || n.contains("search") || n == "find" {
        ToolKind::Search
    } else if n.contains("bash") || n.contains("exec") || n.contains("shell") || n.contains("command") {
        ToolKind::Execute
    } else if n.contains("fetch") || n.contains("web") {
        ToolKind::Fetch
    } else if n.contains("think") || n.contains("todo") || n.contains("plan") {
        ToolKind::Think
    } else {
        ToolKind::Other
    }
}
