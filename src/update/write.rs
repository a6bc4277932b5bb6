//! The one writer of conversation records: typed ACP updates built from what a writer knows —
//! a person's prompt, the model's turn, a tool's result — shared by the session's commands, the
//! importers and the provider-answer decoders, so every record of a kind has one shape, whoever
//! asks for it.
//!
//! Nothing here parses JSON back: updates are built as the types [`super::acp`] reads, so what a
//! writer writes is what replay reads. Image data is checked here, once, for every writer.

use base64::Engine as _;
use serde_json::Value;

use super::acp::{
    ContentBlock, ContentChunk, ProviderMeta, SessionUpdate, Stream, ToolCallContent, ToolCallPatch, ToolCallStart, ToolCallStatus, ToolKind,
};

/// One content chunk of a user, agent or thought message.
pub fn chunk(stream: Stream, message_id: Option<&str>, content: ContentBlock, meta: &ProviderMeta) -> SessionUpdate {
    let chunk = ContentChunk { content, message_id: message_id.map(str::to_owned), meta: meta.to_meta() };
    match stream {
        Stream::User => SessionUpdate::UserMessageChunk(chunk),
        Stream::Agent => SessionUpdate::AgentMessageChunk(chunk),
        Stream::Thought => SessionUpdate::AgentThoughtChunk(chunk),
    }
}

/// An image content block from base64 data; `Err` with the reason when the data is not base64
/// (surrounding whitespace is dropped first).
pub fn image(data: &str, mime_type: &str) -> Result<ContentBlock, String> {
    let data = data.trim();
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(_) => Ok(ContentBlock::Image { data: data.to_owned(), mime_type: mime_type.to_owned(), uri: None, annotations: None, meta: None }),
        Err(e) => Err(format!("image data ({mime_type}) is not valid base64: {e}")),
    }
}

/// The chunks of a person's prompt (or of a message the harness wrote, `meta.synthetic`): its
/// text, then its images, under one message id. An empty prompt with no image is one empty text
/// chunk, so the prompt still counts.
pub fn prompt(text: &str, images: Vec<ContentBlock>, message_id: &str, meta: &ProviderMeta) -> Vec<SessionUpdate> {
    let mut out = Vec::with_capacity(1 + images.len());
    if !text.is_empty() || images.is_empty() {
        out.push(chunk(Stream::User, Some(message_id), ContentBlock::text(text), meta));
    }
    out.extend(images.into_iter().map(|image| chunk(Stream::User, Some(message_id), image, meta)));
    out
}

/// A new tool call, with its tool name and provider facts in `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct CallStart {
    pub id: String,
    pub title: String,
    pub kind: Option<ToolKind>,
    pub status: ToolCallStatus,
    pub content: Option<Vec<ToolCallContent>>,
    pub locations: Vec<String>,
    pub input: Option<Value>,
    pub meta: ProviderMeta,
}

/// ACP `tool_call` for a call the model made.
pub fn tool_call(call: CallStart) -> SessionUpdate {
    SessionUpdate::ToolCall(ToolCallStart {
        tool_call_id: call.id,
        title: call.title,
        kind: call.kind,
        status: Some(call.status),
        content: call.content,
        locations: (!call.locations.is_empty())
            .then(|| call.locations.into_iter().map(|path| serde_json::json!({ "path": path })).collect()),
        // A JSON null reads back as "absent", so it is written as absent.
        raw_input: call.input.filter(|v| !v.is_null()).map(Into::into),
        raw_output: None,
        meta: call.meta.to_meta(),
    })
}

/// A tool call's outcome: `completed`, or `failed` when `failed`.
pub fn tool_result(id: &str, content: Vec<ToolCallContent>, failed: bool, raw_output: Option<Value>) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallPatch {
        tool_call_id: id.to_owned(),
        kind: None,
        status: Some(if failed { ToolCallStatus::Failed } else { ToolCallStatus::Completed }),
        title: None,
        content: Some(content),
        locations: None,
        raw_input: None,
        raw_output,
        meta: None,
    })
}

/// A tool result's content: its text, then its images.
pub fn result_content(output: &str, images: Vec<ContentBlock>) -> Vec<ToolCallContent> {
    let mut content = Vec::with_capacity(1 + images.len());
    content.push(ToolCallContent::Content { content: ContentBlock::text(output), meta: None });
    content.extend(images.into_iter().map(|content| ToolCallContent::Content { content, meta: None }));
    content
}

/// One block of what the model said in a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnBlock {
    /// Reasoning with what its provider needs to take it back: a signature (Anthropic thinking,
    /// Gemini thought), encrypted content (OpenAI, or Anthropic redacted thinking's data), the
    /// provider's id, and OpenAI summary parts when there were several.
    Reasoning { text: String, signature: Option<String>, encrypted: Option<String>, id: Option<String>, summary: Option<Vec<String>> },
    /// Visible text, with a Gemini signature, the provider's citations, and whether it refuses.
    Text { text: String, signature: Option<String>, annotations: Option<Value>, refusal: bool, item_id: Option<String> },
    /// A tool call: `kind` and `paths` say what it touches (edits mark files edited). Without an
    /// `id` (Gemini before 3) it gets one derived from the turn's.
    Call {
        id: Option<String>,
        name: String,
        input: Value,
        kind: Option<ToolKind>,
        paths: Vec<String>,
        signature: Option<String>,
        item_id: Option<String>,
    },
    /// A block only the provider's own API reads back (a server tool's call or result), as it
    /// came. `answers` names the server call a result belongs to; `id` is the call's own.
    Native { id: Option<String>, answers: Option<String>, title: String, value: serde_json::Map<String, Value> },
}

impl TurnBlock {
    /// Plain text.
    pub fn text(text: impl Into<String>) -> TurnBlock {
        TurnBlock::Text { text: text.into(), signature: None, annotations: None, refusal: false, item_id: None }
    }
}

/// What the model said in one turn, in its order, and who said it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    pub message_id: String,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub blocks: Vec<TurnBlock>,
    /// Said on the turn's first text (the provider's stop reason).
    pub stop_reason: Option<String>,
}

/// The message id of a turn's `n`-th (0-based) text or reasoning block: the first text carries
/// the turn's id, the first reasoning `{id}-thought`; later ones add their number. Live updates
/// and the records written at the end use the same ids.
pub fn block_message_id(turn_id: &str, reasoning: bool, n: usize) -> String {
    match (reasoning, n) {
        (false, 0) => turn_id.to_owned(),
        (false, n) => format!("{turn_id}-{n}"),
        (true, 0) => format!("{turn_id}-thought"),
        (true, n) => format!("{turn_id}-thought-{n}"),
    }
}

/// The id of a turn's `n`-th call that came without one.
pub fn derived_call_id(turn_id: &str, n: usize) -> String {
    format!("{turn_id}-call-{n}")
}

/// The updates of a turn, in its order: each reasoning block its own thought message, each text
/// block its own message (the first under the turn's message id), each call a `pending` tool
/// call, each native block a tool call (or its result) holding the block in `_meta`.
pub fn turn(turn: &Turn) -> Vec<SessionUpdate> {
    let base = ProviderMeta { provider: turn.provider.clone(), model: turn.model.clone(), ..ProviderMeta::default() };
    let (mut thoughts, mut texts, mut calls) = (0, 0, 0);
    let mut stop_reason = turn.stop_reason.clone();
    let mut out = Vec::with_capacity(turn.blocks.len());
    for block in &turn.blocks {
        match block {
            TurnBlock::Reasoning { text, signature, encrypted, id, summary } => {
                let message_id = block_message_id(&turn.message_id, true, thoughts);
                thoughts += 1;
                let meta = ProviderMeta {
                    signature: signature.clone(),
                    encrypted: encrypted.clone(),
                    reasoning_id: id.clone(),
                    summary: summary.clone(),
                    ..base.clone()
                };
                out.push(chunk(Stream::Thought, Some(&message_id), ContentBlock::text(text.as_str()), &meta));
            }
            TurnBlock::Text { text, signature, annotations, refusal, item_id } => {
                let message_id = block_message_id(&turn.message_id, false, texts);
                texts += 1;
                let meta = ProviderMeta {
                    stop_reason: stop_reason.take(),
                    signature: signature.clone(),
                    annotations: annotations.clone(),
                    refusal: refusal.then_some(true),
                    item_id: item_id.clone(),
                    ..base.clone()
                };
                out.push(chunk(Stream::Agent, Some(&message_id), ContentBlock::text(text.as_str()), &meta));
            }
            TurnBlock::Call { id, name, input, kind, paths, signature, item_id } => {
                let id = id.clone().unwrap_or_else(|| derived_call_id(&turn.message_id, calls));
                calls += 1;
                out.push(tool_call(CallStart {
                    id,
                    title: name.clone(),
                    kind: *kind,
                    status: ToolCallStatus::Pending,
                    content: None,
                    locations: paths.clone(),
                    input: Some(input.clone()),
                    meta: ProviderMeta { tool_name: Some(name.clone()), signature: signature.clone(), item_id: item_id.clone(), ..base.clone() },
                }))
            }
            TurnBlock::Native { id, answers, title, value } => {
                let meta = ProviderMeta { native: Some(value.clone()), ..base.clone() };
                match answers {
                    Some(call) => out.push(SessionUpdate::ToolCallUpdate(ToolCallPatch {
                        tool_call_id: call.clone(),
                        kind: None,
                        status: Some(ToolCallStatus::Completed),
                        title: None,
                        content: None,
                        locations: None,
                        raw_input: None,
                        raw_output: None,
                        meta: meta.to_meta(),
                    })),
                    None => {
                        let id = id.clone().unwrap_or_else(|| format!("{}-native-{}", turn.message_id, out.len()));
                        out.push(tool_call(CallStart {
                            id,
                            title: title.clone(),
                            kind: Some(ToolKind::Other),
                            status: ToolCallStatus::Completed,
                            content: None,
                            locations: Vec::new(),
                            input: value.get("input").cloned(),
                            meta,
                        }))
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn image_data_must_be_base64() {
        assert_eq!(
            image(" aGk= \n", "image/png"),
            Ok(ContentBlock::Image { data: "aGk=".into(), mime_type: "image/png".into(), uri: None, annotations: None, meta: None })
        );
        assert!(image("not base64!", "image/png").unwrap_err().contains("not valid base64"));
    }

    #[test]
    fn an_empty_prompt_is_one_empty_chunk_and_images_follow_text() {
        let meta = ProviderMeta::default();
        assert_eq!(prompt("", vec![], "u1", &meta), vec![chunk(Stream::User, Some("u1"), ContentBlock::text(""), &meta)]);
        let img = image("aGk=", "image/png").unwrap();
        let kinds: Vec<_> = prompt("", vec![img.clone()], "u1", &meta).into_iter().collect();
        assert_eq!(kinds, vec![chunk(Stream::User, Some("u1"), img, &meta)]);
    }
}
