//! A session file's lines, each parsed once: what the importers and the fidelity readers of the
//! formats of JSON lines read.

use serde_json::Value;

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
