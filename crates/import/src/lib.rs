//! Importers: other agents' session files → our durable log (layer 1).
//!
//! Each format module reads its lines tolerantly and writes records through a [`LogBuilder`].
//! Everything our layers can hold is kept (messages, reasoning with signatures, tool calls and
//! results, usage, model changes, compactions, rewinds); what they cannot hold is counted per
//! kind in [`ImportReport::unmapped`], never dropped silently. Bad lines become diagnostics
//! with their line number and the rest still imports.
//!
//! - [`claude_code`]: Claude Code project JSONL (`parentUuid` tree, sidechains, compact boundaries);
//! - [`codex`]: Codex rollout JSONL (`session_meta`, `response_item`, `event_msg`, `compacted`);
//! - [`pi`]: pi session JSONL (v1 linear, v2/v3 `id`/`parentId` tree, compaction entries);
//! - [`copilot_cli`]: GitHub Copilot CLI session events (`events.jsonl`);
//! - [`aider`]: Aider's `.aider.chat.history.md` (what a Markdown transcript can give back);
//! - [`cline_task`]: a Cline, Roo Code or Kilo Code task's `api_conversation_history.json`;
//! - [`opencode`]: an OpenCode session as `opencode export` writes it;
//! - [`gemini_cli`]: Gemini CLI chat recordings (the whole-file `session-*.json`, the appended
//!   `session-*.jsonl` with its `$set` and `$rewindTo` lines).

pub mod aider;
pub mod aider_transcript;
mod calibrate;
pub mod codes;
pub mod claude_code;
mod claude_entry;
pub mod cline_task;
pub mod error_codes;
mod claude_subagents;
pub mod codex;
pub mod copilot_cli;
pub mod fidelity;
pub mod gemini_cli;
pub mod gemini_recording;
pub mod incremental;
pub mod opencode;
pub mod pi;
mod tree;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use contextview::diagnostic::Diagnostic;
pub use contextview::update::acp::Stream;
use contextview::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, SessionUpdate, ToolCallContent, ToolCallStatus, ToolKind};
use contextview::update::write;
use contextview::update::record::{Event, Header, Record, RecordBody, SubagentStarted};

/// Session formats we import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    #[serde(rename = "claude-code")]
    ClaudeCode,
    #[serde(rename = "codex")]
    Codex,
    #[serde(rename = "pi")]
    Pi,
    #[serde(rename = "gemini-cli")]
    GeminiCli,
    #[serde(rename = "copilot-cli")]
    CopilotCli,
    #[serde(rename = "aider")]
    Aider,
    #[serde(rename = "cline")]
    Cline,
    #[serde(rename = "roo-code")]
    RooCode,
    #[serde(rename = "kilo-code")]
    KiloCode,
    #[serde(rename = "opencode")]
    OpenCode,
}

impl Format {
    pub const ALL: [Format; 10] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::Pi,
        Format::GeminiCli,
        Format::CopilotCli,
        Format::Aider,
        Format::Cline,
        Format::RooCode,
        Format::KiloCode,
        Format::OpenCode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Pi => "pi",
            Format::GeminiCli => "gemini-cli",
            Format::CopilotCli => "copilot-cli",
            Format::Aider => "aider",
            Format::Cline => "cline",
            Format::RooCode => "roo-code",
            Format::KiloCode => "kilo-code",
            Format::OpenCode => "opencode",
        }
    }
}

impl Format {
    /// Every format's name, as a sentence lists them (`a, b or c`).
    pub fn listed() -> String {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("unknown format `{s}` (expected {})", Format::listed()))
    }
}

/// The result of an import.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub header: Header,
    pub records: Vec<Record>,
    pub report: ImportReport,
}

/// What an import kept, what it could not map, and what was wrong with the input.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub format: Option<Format>,
    /// Input lines read (blank lines not counted).
    pub lines: usize,
    pub records: usize,
    /// Records written per kind (`user_message_chunk`, `tool_call`, `usage_anchor`, …).
    pub written: BTreeMap<String, usize>,
    /// Input entries our layers cannot hold, per kind; kept out of the log, never silently.
    pub unmapped: BTreeMap<String, usize>,
    /// Whose view the session is: `primary`, or `subagent` for a subagent's own transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// The source agent's own heads (system prompt, tools, framing) its usage counted, as
    /// estimated from its anchors: the ledger counts this package's heads in their place (see
    /// `calibrate`). Absent when the file reports no usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_tokens: Option<u64>,
    /// What the source agent's model saw at the end of the file against what our view holds,
    /// and every element of it our view lacks (see [`fidelity`]).
    #[serde(default)]
    pub fidelity: fidelity::Fidelity,
    /// The sessions of the subagents that answered this session's calls (Claude Code's
    /// `agent-<id>.jsonl` files beside it): the log links each to its call; their own
    /// conversations are in their files, imported on their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<String>,
    /// A subagent's session read from the progress entries its parent's file carries (its file
    /// was not given): its report is in the parent's result, not in this log.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_progress: bool,
    pub diagnostics: Vec<Diagnostic>,
}

/// Why an import could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// No format given and none recognised.
    UnknownFormat(String),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::UnknownFormat(m) => f.write_str(m),
        }
    }
}

impl ImportError {
    pub fn code(&self) -> &'static str {
        match self {
            ImportError::UnknownFormat(_) => crate::error_codes::UNKNOWN_FORMAT,
        }
    }
}

/// Imports `text` as `format`, or detects the format when it is `None`.
pub fn import(format: Option<Format>, text: &str) -> Result<Imported, ImportError> {
    let format = match format {
        Some(f) => f,
        None => detect(text).ok_or_else(|| {
            ImportError::UnknownFormat(format!("could not recognise the session format from its first lines; pass it explicitly ({})", Format::listed()))
        })?,
    };
    // Each line parsed once: the source agent's view is read from the lines the importer then
    // takes (a Gemini CLI recording: from the messages both read it into).
    let lines = || json_lines(text).collect::<Vec<ParsedLine>>();
    let (mut imported, source) = match format {
        Format::ClaudeCode => {
            let lines = lines();
            let source = fidelity::claude_code::source_view(&lines);
            (claude_code::import(lines), source)
        }
        Format::Codex => {
            let lines = lines();
            let source = fidelity::codex::source_view(&lines);
            (codex::import(lines), source)
        }
        Format::Pi => {
            let lines = lines();
            let source = fidelity::pi::source_view(&lines);
            (pi::import(lines), source)
        }
        Format::Aider => (aider::import(text), fidelity::aider::source_view(text)),
        Format::Cline | Format::RooCode | Format::KiloCode => (cline_task::import(format, text), fidelity::cline_task::source_view(format, text)),
        Format::OpenCode => (opencode::import(text), fidelity::opencode::source_view(text)),
        Format::CopilotCli => {
            let lines = lines();
            let source = fidelity::copilot_cli::source_view(&lines);
            (copilot_cli::import(lines), source)
        }
        Format::GeminiCli => {
            let recording = gemini_recording::read(text);
            let mut imported = gemini_cli::import(&recording);
            imported.report.diagnostics.extend(gemini_cli::not_a_recording(&recording));
            (imported, fidelity::gemini_cli::source_view(&recording))
        }
    };
    imported.report.format = Some(format);
    imported.header.imported_from = Some(format.as_str().to_owned());
    let (heads, items) = calibrate::foreign_heads(&mut imported.records);
    imported.report.head_tokens = heads;
    let (view, _) = contextview::view::repair::repair(&items, &Default::default());
    imported.report.fidelity = fidelity::compare(&source, &view);
    if !imported.report.fidelity.missing.is_empty() {
        let missing = &imported.report.fidelity.missing;
        imported.report.diagnostics.push(Diagnostic::new(
            &codes::IMPORT_CONTENT_MISSING,
            format!(
                "{} element(s) the source agent's model saw are not in the imported view (first: {:?} from line {}); see report.fidelity.missing",
                missing.len(),
                missing[0].kind,
                missing[0].line
            ),
        ));
    }
    Ok(imported)
}

/// A session imported with the files of the subagents that answered its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedTree {
    pub parent: Imported,
    /// Each child file imported, in the order given; its header names the parent's session and
    /// the call it answered when the parent's log links it.
    pub children: Vec<Imported>,
    /// Children's sessions the parent links to a call whose files were not given.
    pub missing: Vec<String>,
    /// Child files the parent does not link to any call (another session's, or a call the
    /// parent's file does not hold), by session id.
    pub unlinked: Vec<String>,
}

/// Imports a session and its subagents' own files (Claude Code's `agent-<id>.jsonl` beside it),
/// each linked to the call it answered: the parent's log records which session answered each
/// call (`subagent_started`, `subagent_ended`); each child's header names the parent's session
/// and that call; a child whose file was not given but whose conversation the parent carries
/// (Claude Code's `agent_progress` entries) is imported from there (`report.fromProgress`); what
/// is still missing, or not linked, is listed.
pub fn import_tree(format: Option<Format>, parent_text: &str, children: &[&str]) -> Result<ImportedTree, ImportError> {
    let parent = import(format, parent_text)?;
    let format = parent.report.format;
    let started: Vec<&SubagentStarted> = parent
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Event(Event::SubagentStarted(s)) => Some(s),
            _ => None,
        })
        .collect();
    let links: Vec<(String, String)> = started.iter().map(|s| (s.session_id.clone(), s.call_id.clone())).collect();
    let mut imported = Vec::with_capacity(children.len());
    let mut unlinked = Vec::new();
    for text in children {
        let mut child = import(format, text)?;
        // A Roo Code or Kilo Code subtask's file names no task: it is the one whose first message
        // is the task the parent's call gave.
        if matches!(format, Some(Format::RooCode | Format::KiloCode)) {
            let prompt = cline_task::first_prompt(text).unwrap_or_default();
            let taken = |id: &str| imported.iter().any(|c: &Imported| c.header.session_id == id);
            if let Some(s) = started.iter().find(|s| !s.task.trim().is_empty() && s.task.trim() == prompt && !taken(&s.session_id)) {
                child.header.session_id = s.session_id.clone();
            }
        }
        match links.iter().find(|(session, _)| *session == child.header.session_id) {
            Some((_, call)) => {
                child.header.parent_session_id = Some(parent.header.session_id.clone());
                child.header.parent_call_id = Some(call.clone());
            }
            None => unlinked.push(child.header.session_id.clone()),
        }
        imported.push(child);
    }
    // Children whose files were not given but whose conversations the parent carries (Claude
    // Code's progress entries): imported from there, linked alike.
    let entries = if format == Some(Format::ClaudeCode) { claude_subagents::entries_of(parent_text) } else { Vec::new() };
    if format == Some(Format::ClaudeCode) {
        for (call, transcript) in claude_subagents::progress_transcripts(&entries) {
            let Some((session, _)) = links.iter().find(|(_, c)| *c == call) else { continue };
            if imported.iter().any(|c| &c.header.session_id == session) {
                continue;
            }
            let mut child = import(format, &transcript)?;
            child.header.parent_session_id = Some(parent.header.session_id.clone());
            child.header.parent_call_id = Some(call);
            child.report.from_progress = true;
            imported.push(child);
        }
    }
    // Children the parent holds inline (Claude Code 1.x sidechains), linked by the call's prompt.
    if format == Some(Format::ClaudeCode) {
        let session = parent.header.session_id.clone();
        for (root, transcript) in claude_subagents::inline_transcripts(&entries) {
            let id = format!("{session}/sidechain-{root}");
            let Some((_, call)) = links.iter().find(|(s, _)| *s == id) else { continue };
            if imported.iter().any(|c| c.header.session_id == id) {
                continue;
            }
            let mut child = import(format, &transcript)?;
            child.header.session_id = id;
            child.header.parent_session_id = Some(session.clone());
            child.header.parent_call_id = Some(call.clone());
            imported.push(child);
        }
    }
    let missing = links.iter().map(|(session, _)| session).filter(|s| !imported.iter().any(|c| &c.header.session_id == *s)).cloned().collect();
    Ok(ImportedTree { parent, children: imported, missing, unlinked })
}

/// Recognises a format from the first parseable lines (or, for a Gemini CLI recording written
/// whole, from the whole text).
pub fn detect(text: &str) -> Option<Format> {
    if opencode::is_export(text) {
        return Some(Format::OpenCode);
    }
    if gemini_recording::is_recording(text) {
        return Some(Format::GeminiCli);
    }
    if aider_transcript::is_history(text) {
        return Some(Format::Aider);
    }
    if cline_task::is_history(text) {
        return Some(cline_task::agent_of(text));
    }
    for value in json_lines(text).filter_map(|(_, r)| r.ok()).take(50) {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        if copilot_cli::is_event(&value) {
            return Some(Format::CopilotCli);
        }
        match kind {
            "session_meta" | "response_item" | "turn_context" | "event_msg" | "compacted" => return Some(Format::Codex),
            // Early Codex rollouts: bare response items.
            "message" if value.get("role").is_some() && value.get("content").is_some() && value.get("message").is_none() => {
                return Some(Format::Codex)
            }
            "function_call" | "function_call_output" | "reasoning" | "local_shell_call" | "custom_tool_call" if value.get("payload").is_none() => {
                return Some(Format::Codex)
            }
            "session" if value.get("cwd").is_some() || value.get("version").is_some() => return Some(Format::Pi),
            "message" if value.get("message").is_some_and(|m| m.get("role").is_some()) => return Some(Format::Pi),
            "user" | "assistant" if value.get("uuid").is_some() || value.get("parentUuid").is_some() => {
                return Some(Format::ClaudeCode)
            }
            "summary" if value.get("leafUuid").is_some() => return Some(Format::ClaudeCode),
            _ => {}
        }
    }
    None
}

/// Longest line an importer parses: 32 MiB, the largest request any provider accepts, so a
/// longer line could never be sent anyway. Longer lines are reported, not parsed.
pub const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// A line's 1-based number, and its JSON or why it is not read (see [`json_lines`]).
pub type ParsedLine = (usize, Result<Value, String>);

/// Lines of JSON Lines text with their 1-based numbers; blank lines skipped. A line that is not
/// JSON, or is longer than [`MAX_LINE_BYTES`], yields the reason instead.
pub fn json_lines(text: &str) -> impl Iterator<Item = ParsedLine> + '_ {
    text.split('\n').enumerate().filter_map(|(i, raw)| {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            return None;
        }
        if line.len() > MAX_LINE_BYTES {
            return Some((i + 1, Err(format!("line is {} bytes, over the {MAX_LINE_BYTES}-byte limit; skipped unread", line.len()))));
        }
        Some((i + 1, serde_json::from_str(line).map_err(|e| e.to_string())))
    })
}

/// An importer that reads a file one line at a time, where what it writes for a line never
/// depends on a later one: a growing file is imported by its new lines ([`incremental`]).
pub trait LineReader {
    /// Reads the next line (its 1-based number, and its JSON or why it is not read).
    fn line(&mut self, line: usize, parsed: Result<Value, String>);
    /// What was written so far, and the header as the lines so far say it.
    fn written(&self) -> &Written;
    fn into_written(self: Box<Self>) -> Written;
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
}

/// Reads every line through `reader`.
pub fn read_lines(mut reader: Box<dyn LineReader>, lines: Vec<ParsedLine>) -> Imported {
    for (line, parsed) in lines {
        reader.line(line, parsed);
    }
    let written = reader.into_written();
    let mut imported = written.out.finish(written.header);
    imported.report.audience = written.audience.map(str::to_owned);
    imported
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

#[cfg(test)]
mod test_items;
