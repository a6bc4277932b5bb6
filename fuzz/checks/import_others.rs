//! The importers the line-format targets leave out — Gemini CLI, Copilot CLI, Aider, Cline, Roo
//! Code, Kilo Code, OpenCode — and OpenCode's storage folder put together as its export. The first
//! byte picks one (its value modulo 8, in that order, the storage last); the rest is the text
//! (for the storage: its files split at NUL bytes — the session's, the messages', an empty piece,
//! the parts'). Any text imports into a log that replays, builds valid payloads and survives
//! the text form; the storage's files always make one JSON document, holding every file kept.
use super::common;
use contextview_import::opencode::storage::{assemble, Files};
use contextview_import::Format;

const FORMATS: [Format; 7] = [Format::GeminiCli, Format::CopilotCli, Format::Aider, Format::Cline, Format::RooCode, Format::KiloCode, Format::OpenCode];

pub fn check(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let imported = match FORMATS.get(usize::from(pick % 8)) {
        Some(&format) => contextview_import::import(Some(format), &text).expect("an explicit format always imports"),
        None => {
            let files: Vec<&str> = text.split('\0').collect();
            let (session, rest) = files.split_first().expect("split gives one piece at least");
            let split = rest.iter().position(|f| f.is_empty()).unwrap_or(rest.len());
            let messages: Vec<&str> = rest[..split].to_vec();
            let parts: Vec<&str> = rest.get(split + 1..).unwrap_or_default().to_vec();
            let given = Files { session, messages: &messages, parts: &parts };
            let assembled = assemble(given);
            let export: serde_json::Value = serde_json::from_str(&assembled.export).expect("the files make one JSON document");
            let kept = export["messages"].as_array().expect("its messages").len();
            assert_eq!(kept, assembled.order.len(), "each message of the export is named by its file");
            let left_out = assembled.diagnostics.iter().filter(|d| d.path.as_deref().is_some_and(|p| p.starts_with("messages["))).count();
            assert_eq!(kept + left_out, messages.len(), "every message file is kept or said to be left out");
            let tree = contextview_import::import_opencode_storage(given, &[]).expect("storage always imports");
            tree.parent
        }
    };
    common::replays_and_builds(&imported.records);
    common::round_trips(&imported.header, &imported.records);
}
