//! ACP content as model parts: text, images (data or a URL), resources as text; audio has no
//! model form and is reported. A tool result's content falls back to its raw output, then to a
//! note per diff or terminal.

use serde_json::Value;

use super::acp::{ContentBlock, ToolCallContent};
use crate::conversation::{Image, Part};
use crate::diagnostic::Diagnostic;
use crate::update::codes;

pub(super) fn unsupported(seq: u64, what: &str, block: &ContentBlock) -> Diagnostic {
    let kind = match block {
        ContentBlock::Text { .. } => "text",
        ContentBlock::Image { .. } => "image",
        ContentBlock::Audio { .. } => "audio",
        ContentBlock::ResourceLink { .. } => "resource_link",
        ContentBlock::Resource { .. } => "resource",
    };
    Diagnostic::new(
        &codes::REPLAY_UNSUPPORTED_CONTENT,
        format!("{kind} content in {what} has no model form; left out of the model view (kept in the log)"),
    )
    .at_path(format!("seq:{seq}"))
}

/// A content block as a user-side part; audio has no model form here.
pub(super) fn part_of(block: &ContentBlock, seq: u64, diags: &mut Vec<Diagnostic>) -> Option<Part> {
    match block {
        ContentBlock::Text { text, .. } => Some(Part::Text { text: text.clone() }),
        ContentBlock::Image { data, mime_type, uri, .. } => Some(Part::Image(if data.is_empty() {
            match uri {
                Some(uri) => Image::Url { url: uri.clone() },
                None => {
                    diags.push(
                        Diagnostic::new(&codes::REPLAY_EMPTY_IMAGE, "image block has neither data nor uri")
                            .at_path(format!("seq:{seq}")),
                    );
                    return None;
                }
            }
        } else {
            Image::Base64 { media_type: mime_type.clone(), data: data.clone() }
        })),
        ContentBlock::ResourceLink { uri, name, .. } => Some(Part::text(format!("[resource {name}: {uri}]"))),
        ContentBlock::Resource { resource, .. } => {
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => Some(Part::text(format!("[resource {uri}]\n{text}"))),
                None => Some(Part::text(format!("[binary resource {uri}]"))),
            }
        }
        ContentBlock::Audio { .. } => {
            diags.push(unsupported(seq, "user message", block));
            None
        }
    }
}

pub(super) fn append_part(parts: &mut Vec<Part>, part: Part) {
    if let (Some(Part::Text { text: last }), Part::Text { text }) = (parts.last_mut(), &part) {
        std::sync::Arc::make_mut(last).push_str(text);
        return;
    }
    parts.push(part);
}

/// The model-facing content of a tool result: text and image content blocks; failing those, the
/// raw output; failing that, a note per diff or terminal block.
pub(super) fn result_parts(content: &[ToolCallContent], raw_output: Option<&Value>) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut notes = Vec::new();
    for item in content {
        match item {
            ToolCallContent::Content { content, .. } => {
                let mut sink = Vec::new();
                if let Some(part) = part_of(content, 0, &mut sink) {
                    append_part(&mut parts, part);
                }
            }
            ToolCallContent::Diff { path, .. } => notes.push(format!("[edited {path}]")),
            ToolCallContent::Terminal { terminal_id, .. } => notes.push(format!("[terminal {terminal_id}]")),
        }
    }
    if parts.is_empty() {
        match raw_output {
            Some(Value::String(s)) => parts.push(Part::text(s.clone())),
            Some(Value::Null) | None => {
                if !notes.is_empty() {
                    parts.push(Part::text(notes.join("\n")));
                }
            }
            Some(other) => parts.push(Part::text(other.to_string())),
        }
    }
    parts
}
