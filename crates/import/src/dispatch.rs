//! The importers' one door: a file imported as its format (told, or recognised from its content),
//! its calibration and its fidelity report; a session with its subagents' files.

use std::fmt;

use serde_json::Value;

use contextview::diagnostic::Diagnostic;
use contextview::update::record::{Event, RecordBody, SubagentStarted};

use crate::format::Format;
use crate::lines::{json_lines, ParsedLine};
use crate::report::Imported;
use crate::{aider, aider_transcript, calibrate, claude_code, claude_subagents, cline_task, codes, codex, copilot_cli, fidelity, gemini_cli, gemini_recording, opencode, pi};

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
    import_with_chat(format, text, None)
}

/// [`import`], with a Cline, Roo Code or Kilo Code task's chat (`ui_messages.json`) beside its
/// history: each request's usage, and Cline's truncations (see [`cline_task::ui`]).
pub fn import_with_chat(format: Option<Format>, text: &str, chat: Option<&str>) -> Result<Imported, ImportError> {
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
        Format::Cline | Format::RooCode | Format::KiloCode => {
            let requests = chat.map(cline_task::ui::requests).unwrap_or_default();
            let hidden = cline_task::hidden_at_end(format, &requests);
            (cline_task::import(format, text, &requests), fidelity::cline_task::source_view(format, text, hidden))
        }
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
    // A Cline, Roo Code or Kilo Code task's chat given with its history is the task's, no child.
    let told = format.or_else(|| detect(parent_text));
    let is_task = matches!(told, Some(Format::Cline | Format::RooCode | Format::KiloCode));
    let chat = children.iter().copied().find(|c| is_task && cline_task::ui::is_ui_messages(c));
    let parent = match chat {
        Some(_) => import_with_chat(told, parent_text, chat)?,
        None => import(told, parent_text)?,
    };
    let children: Vec<&str> = children.iter().copied().filter(|c| Some(*c) != chat).collect();
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
    for text in &children {
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
    // A Copilot CLI subagent's events are in its parent's file: each made a session of its own.
    if format == Some(Format::CopilotCli) {
        for (call, transcript) in copilot_cli::subagent_transcripts(parent_text) {
            let Some((session, _)) = links.iter().find(|(_, c)| *c == call) else { continue };
            if imported.iter().any(|c| &c.header.session_id == session) {
                continue;
            }
            let mut child = import(format, &transcript)?;
            child.header.session_id = session.clone();
            child.header.parent_session_id = Some(parent.header.session_id.clone());
            child.header.parent_call_id = Some(call);
            child.report.audience = Some("subagent".to_owned());
            child.report.from_progress = true;
            imported.push(child);
        }
    }
    let missing = links.iter().map(|(session, _)| session).filter(|s| !imported.iter().any(|c| &c.header.session_id == *s)).cloned().collect();
    Ok(ImportedTree { parent, children: imported, missing, unlinked })
}

/// An OpenCode session read from its storage folder (OpenCode up to 1.1), with its subagents'
/// sessions from the same folder: each put together as `opencode export` writes it
/// ([`opencode::storage::assemble`]), then imported and linked as [`import_tree`] does exports.
/// Each report's diagnostics start with the files its session's assembly left out; what the
/// import says of a message names the message's file (`messages[i]`, its place among the files
/// given) instead of a line.
pub fn import_opencode_storage(parent: opencode::storage::Files<'_>, children: &[opencode::storage::Files<'_>]) -> Result<ImportedTree, ImportError> {
    let parent_files = opencode::storage::assemble(parent);
    let child_files: Vec<opencode::storage::Assembled> = children.iter().map(|c| opencode::storage::assemble(*c)).collect();
    let texts: Vec<&str> = child_files.iter().map(|c| c.export.as_str()).collect();
    let mut tree = import_tree(Some(Format::OpenCode), &parent_files.export, &texts)?;
    // The files left out first; then what the import says of a message (the export's n-th, a
    // "line" of its report), said of the message's file.
    let name = |imported: &mut Imported, assembled: opencode::storage::Assembled| {
        let mut diagnostics = assembled.diagnostics;
        for mut d in std::mem::take(&mut imported.report.diagnostics) {
            if let Some(&file) = d.line.and_then(|n| assembled.order.get(n.checked_sub(1)?)) {
                d.line = None;
                d.path = Some(format!("messages[{file}]"));
            }
            diagnostics.push(d);
        }
        imported.report.diagnostics = diagnostics;
    };
    name(&mut tree.parent, parent_files);
    // An export's children are imported one for each text given, in order.
    for (child, assembled) in tree.children.iter_mut().zip(child_files) {
        name(child, assembled);
    }
    Ok(tree)
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
