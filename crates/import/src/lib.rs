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
//! - [`opencode`]: an OpenCode session as `opencode export` writes it, or its storage folder's files
//!   ([`opencode::storage`], up to OpenCode 1.1) put together as that export;
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

mod dispatch;
pub mod emit;
mod format;
pub mod lines;
mod report;

pub use contextview::update::acp::Stream;
pub use dispatch::{detect, import, import_opencode_storage, import_tree, ImportError, ImportedTree};
pub use emit::{image_block, kind_of, provider_of_model, read_lines, LineReader, LogBuilder, Written};
pub use format::Format;
pub use lines::{json_lines, ParsedLine, MAX_LINE_BYTES};
pub use report::{ImportReport, Imported};

#[cfg(test)]
mod test_items;
