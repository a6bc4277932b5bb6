//! Anthropic Messages: payload types and renderer; the validator is [`validate`]'s module.
//!
//! Shape: top-level `system` text blocks, `messages[]` of `user` / `assistant` with content blocks.
//! Tool results go first in the user message right after the `tool_use`s they answer; images may
//! sit inside tool results. Consecutive same-role items are merged into one message.

use contextview_derive::ReadValue;
use serde::Serialize;
use serde_json::{Map, Value};

use super::ids::{self, IdMapper};
use super::settings::anthropic::Settings;
use super::{input_object, reasoning_as_text, reasoning_fate, Limits, ReasoningFate, RenderNotes, RenderOptions, ToolDef};
use crate::conversation::{Image, Item, Part, SyntheticReason};

mod validate;
pub use validate::{validate, validate_sized, Check};

#[derive(Debug, Clone, PartialEq, Serialize, contextview_derive::ReadValue)]
#[shape(name = "AnthropicRequest")]
pub struct Request {
    pub model: String,
    pub max_tokens: u32,
    /// The request settings (thinking, tool choice, sampling, …), at the top level.
    #[serde(flatten, skip_deserializing)]
    pub settings: Settings,
    /// Automatic caching: a breakpoint on the last cacheable block, wherever that is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
    // Least changing first; the conversation is the last field, so each body extends the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<Vec<TextBlock>>,
    pub messages: Vec<Message>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicRole")]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicMessage")]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicTextBlock")]
pub struct TextBlock {
    #[serde(rename = "type")]
    pub kind: TextType,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicTextType")]
#[serde(rename_all = "lowercase")]
pub enum TextType {
    Text,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[shape(name = "AnthropicCacheControl")]
pub struct CacheControl {
    #[serde(rename = "type")]
    #[shape(one_of("ephemeral"))]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[shape(one_of("5m", "1h"))]
    pub ttl: Option<String>,
}

impl CacheControl {
    pub fn ephemeral() -> Self {
        CacheControl { kind: "ephemeral".to_owned(), ttl: None }
    }

    fn with_ttl(ttl: Option<&String>) -> Self {
        CacheControl { kind: "ephemeral".to_owned(), ttl: ttl.cloned() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicBlock")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: crate::conversation::SharedText,
        /// The citations the model's text came with, in the shape the API takes them back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[shape(declared = "AnthropicCitation")]
        citations: Option<Vec<Value>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Image {
        source: ImageSource,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolUse {
        id: String,
        name: String,
        input: super::InputObject,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolResult {
        tool_use_id: String,
        content: Vec<ResultBlock>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Thinking {
        /// Shared with the conversation's reasoning item.
        thinking: crate::conversation::SharedText,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    /// A block the model's own turn held that only this API reads (a server tool's call or
    /// result, a compaction block), sent back exactly as it came.
    #[serde(untagged)]
    #[shape(declared = "AnthropicNativeBlock")]
    Native(Map<String, Value>),
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicResultBlock")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultBlock {
    Text {
        text: crate::conversation::SharedText,
    },
    Image { source: ImageSource },
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicImageSource")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    Base64 {
        #[shape(one_of("image/jpeg", "image/png", "image/gif", "image/webp"))]
        media_type: String,
        data: String,
    },
    Url { url: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[shape(name = "AnthropicTool")]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[shape(declared = "AnthropicInputSchema")]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

#[cfg(test)]
mod read;

/// Media types the Messages API accepts for images.
pub const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

fn image_source(image: &Image) -> ImageSource {
    match image {
        Image::Base64 { media_type, data } => ImageSource::Base64 { media_type: media_type.clone(), data: data.clone() },
        Image::Url { url } => ImageSource::Url { url: url.clone() },
    }
}

/// Renders a repaired item list.
pub fn render(items: &[&Item], options: &RenderOptions) -> (Request, RenderNotes) {
    let mut notes = RenderNotes::default();
    let mut ids = IdMapper::default();
    let mut messages: Vec<Message> = Vec::new();
    let push = |role: Role, block: Block, messages: &mut Vec<Message>| match messages.last_mut() {
        Some(last) if last.role == role => last.content.push(block),
        _ => messages.push(Message { role, content: vec![block] }),
    };

    let unsendable = super::natives::anthropic_unsendable(items);
    for item in items {
        match item {
            Item::User(message) => {
                for part in &message.content {
                    match part {
                        Part::Text { text } if text.is_empty() => {}
                        Part::Text { text } => push(Role::User, Block::Text { text: text.clone(), citations: None, cache_control: None }, &mut messages),
                        Part::Image(image) => {
                            push(Role::User, Block::Image { source: image_source(image), cache_control: None }, &mut messages)
                        }
                    }
                }
            }
            Item::Assistant(text) => {
                if !text.text.is_empty() {
                    let citations = citations_of(text);
                    push(Role::Assistant, Block::Text { text: text.text.clone(), citations, cache_control: None }, &mut messages);
                }
            }
            Item::Reasoning(reasoning) => {
                let fate = reasoning_fate(reasoning, super::Provider::Anthropic, options);
                notes.reasoning.count(fate, reasoning, super::Provider::Anthropic, options);
                match fate {
                    ReasoningFate::Native => {
                        let block = match (&reasoning.signature, &reasoning.encrypted) {
                            (Some(signature), _) => {
                                Block::Thinking { thinking: reasoning.text.clone(), signature: signature.clone() }
                            }
                            (None, Some(data)) => Block::RedactedThinking { data: data.clone() },
                            (None, None) => continue,
                        };
                        push(Role::Assistant, block, &mut messages);
                    }
                    ReasoningFate::AsText => push(
                        Role::Assistant,
                        Block::Text { text: reasoning_as_text(reasoning).into(), citations: None, cache_control: None },
                        &mut messages,
                    ),
                    ReasoningFate::Drop => {}
                }
            }
            Item::ToolCall(call) => {
                let id = ids.map(&call.call_id, ids::ANTHROPIC);
                let input = input_object(&call.input, &mut notes);
                push(Role::Assistant, Block::ToolUse { id, name: call.name.clone(), input, cache_control: None }, &mut messages);
            }
            Item::Native(native) => match super::native_replays(native, super::Provider::Anthropic) {
                true if super::natives::anthropic_sends(&native.value, &unsendable) => {
                    push(Role::Assistant, Block::Native(native.value.clone()), &mut messages)
                }
                true => notes.unknown_natives.push(super::natives::kind_of(&native.value)),
                false => notes.dropped_natives += 1,
            },
            Item::ToolResult(result) => {
                let content = result
                    .content
                    .iter()
                    .filter_map(|part| match part {
                        Part::Text { text } if text.is_empty() => None,
                        Part::Text { text } => Some(ResultBlock::Text { text: text.clone() }),
                        Part::Image(image) => Some(ResultBlock::Image { source: image_source(image) }),
                    })
                    .collect();
                let block = Block::ToolResult {
                    tool_use_id: ids.get(&result.call_id),
                    content,
                    is_error: result.is_error,
                    cache_control: None,
                };
                push(Role::User, block, &mut messages);
            }
        }
    }

    // Tool results must lead their user message.
    for message in &mut messages {
        if message.role == Role::User {
            message.content.sort_by_key(|b| !matches!(b, Block::ToolResult { .. }));
        }
    }

    let cache = &options.cache;
    let stable = || cache.enabled.then(|| CacheControl::with_ttl(cache.stable_ttl.as_ref()));
    // The first-user prefix is stable for the session (it changes only at a compaction): its
    // own breakpoint, the last of the stable ones.
    if matches!(items.first(), Some(Item::User(m)) if m.synthetic == Some(SyntheticReason::Prefix)) {
        if let Some(Block::Text { cache_control, .. }) = messages.first_mut().and_then(|m| m.content.first_mut()) {
            *cache_control = stable();
        }
    }
    let system = options.system.as_ref().filter(|s| !s.is_empty()).map(|text| {
        vec![TextBlock { kind: TextType::Text, text: text.clone(), cache_control: stable() }]
    });
    let tools = (!options.tools.is_empty()).then(|| {
        let mut tools: Vec<Tool> = options.tools.iter().map(tool).collect();
        if let Some(last) = tools.last_mut() {
            last.cache_control = stable();
        }
        tools
    });
    notes.id_map = ids.into_changed();
    let cache_control = cache.enabled.then(CacheControl::ephemeral);
    let settings = options.settings.anthropic.clone();
    let max_tokens = options.max_tokens.unwrap_or(super::DEFAULT_MAX_TOKENS);
    let mut request = Request { model: options.model.clone(), max_tokens, settings, cache_control, tools, system, messages };
    request.settings.thinking = thinking_sent(&request, options);
    notes.thinking_suspended = request.settings.thinking.is_none() && options.settings.anthropic.thinking.is_some();
    (request, notes)
}

/// The `thinking` setting this request carries: the one asked for, except while the turn the
/// request continues has no thinking block to start it (the model was switched inside a tool
/// loop, or the turn was recorded without its thinking) — the API refuses thinking then, so it
/// is left out until the next prompt starts a turn.
pub fn thinking_sent(request: &Request, options: &RenderOptions) -> Option<super::settings::anthropic::Thinking> {
    let asked = options.settings.anthropic.thinking.clone()?;
    match asked.is_on() && unthought_turn(request).is_some() {
        true => None,
        false => Some(asked),
    }
}

/// The first assistant message of the turn the request continues (its tool loop: the request
/// ends with results), when it does not start with a thinking block: its index and first
/// block's type.
pub fn unthought_turn(request: &Request) -> Option<(usize, &str)> {
    let has_results = |m: &Message| m.role == Role::User && m.content.iter().any(|b| matches!(b, Block::ToolResult { .. }));
    if !request.messages.last().is_some_and(has_results) {
        return None;
    }
    // Back over the loop to the prompt that started the turn: the first user message without
    // results (or the start).
    let start = request.messages.iter().rposition(|m| m.role == Role::User && !has_results(m)).map_or(0, |i| i + 1);
    let (index, first) = request.messages.iter().enumerate().skip(start).find(|(_, m)| m.role == Role::Assistant)?;
    let kind = match first.content.first()? {
        Block::Thinking { .. } | Block::RedactedThinking { .. } => return None,
        Block::Text { .. } => "text",
        Block::Image { .. } => "image",
        Block::ToolUse { .. } => "tool_use",
        Block::ToolResult { .. } => "tool_result",
        Block::Native(block) => block.get("type").and_then(Value::as_str).unwrap_or("block"),
    };
    Some((index, kind))
}

fn tool(def: &ToolDef) -> Tool {
    Tool { name: def.name.clone(), description: def.description.clone(), input_schema: def.input_schema.clone(), cache_control: None }
}

/// The citations Anthropic attached to a text it wrote, in the request's shape: each kind's own
/// fields, all of which the API requires (a title it did not give is `null`; the answer's
/// `file_id` is not one). A citation of a kind this version does not know, or missing a field
/// the request needs, is left out of the request (the log keeps it as it came). Another API's
/// annotations are not citations.
fn citations_of(text: &crate::conversation::AssistantText) -> Option<Vec<Value>> {
    let annotations = text.annotations.as_ref()?;
    if text.origin.as_ref().is_none_or(|o| o.provider != "anthropic") {
        return None;
    }
    let list: Vec<Value> = annotations.list.iter().filter_map(citation_param).collect();
    (!list.is_empty()).then_some(list)
}

/// One answer citation as the request takes it (see [`citations_of`]); `None` when it cannot be.
fn citation_param(citation: &Value) -> Option<Value> {
    // The fields each kind requires besides `type` and `cited_text`, and the one that may be null.
    let (fields, nullable): (&[&str], &str) = match citation.get("type").and_then(Value::as_str)? {
        "char_location" => (&["document_index", "start_char_index", "end_char_index"], "document_title"),
        "page_location" => (&["document_index", "start_page_number", "end_page_number"], "document_title"),
        "content_block_location" => (&["document_index", "start_block_index", "end_block_index"], "document_title"),
        "web_search_result_location" => (&["encrypted_index", "url"], "title"),
        "search_result_location" => (&["search_result_index", "source", "start_block_index", "end_block_index"], "title"),
        _ => return None,
    };
    let mut map = serde_json::Map::new();
    for key in ["type", "cited_text"].iter().chain(fields) {
        map.insert((*key).to_owned(), citation.get(*key).filter(|v| !v.is_null())?.clone());
    }
    map.insert(nullable.to_owned(), citation.get(nullable).cloned().unwrap_or(Value::Null));
    Some(Value::Object(map))
}

/// The request ends with the model's own paused turn: its last assistant message holds a server
/// tool's call or result, which only the API's own answer can have put there.
pub fn continues_paused_turn(request: &Request) -> bool {
    request.messages.last().is_some_and(|m| m.role == Role::Assistant && m.content.iter().any(|b| matches!(b, Block::Native(_))))
}

/// Why `request` may not end with an assistant message (prefill): a model from Claude 4.6 on
/// refuses it, and so does any request that replays extended thinking (thinking blocks in its
/// assistant turns). `None` when it does not end with one, or may. `limits.allow_prefill`
/// overrides the decision either way.
pub fn prefill_refusal(request: &Request, limits: &Limits) -> Option<String> {
    if request.messages.last().is_none_or(|m| m.role != Role::Assistant) {
        return None;
    }
    match limits.allow_prefill {
        Some(true) => return None,
        Some(false) => return Some("prefill is switched off for this build (`limits.allowPrefill: false`)".to_owned()),
        None => {}
    }
    // A turn the API paused in its server-tool loop (`pause_turn`) is sent back as it is to go
    // on: the model continues its own turn, which every model accepts.
    if continues_paused_turn(request) {
        return None;
    }
    if request.settings.thinking.as_ref().is_some_and(|t| t.is_on()) {
        return Some("extended thinking is on, and a request with thinking does not accept prefill".to_owned());
    }
    let thinking = request
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| &m.content)
        .any(|b| matches!(b, Block::Thinking { .. } | Block::RedactedThinking { .. }));
    if thinking {
        return Some("a request that replays extended thinking does not accept prefill".to_owned());
    }
    match claude_version(&request.model) {
        Some(version) if version < (4, 6) => None,
        Some(_) => Some(format!("`{}` does not accept prefill (Claude 4.6 and later do not)", request.model)),
        None => Some(format!("`{}` is not a Claude model this library knows to accept prefill", request.model)),
    }
}

/// The (major, minor) version in a Claude model id: `claude-opus-4-6` → (4, 6),
/// `claude-sonnet-4-20250514` → (4, 0), `claude-3-5-sonnet-latest` → (3, 5).
pub fn claude_version(model: &str) -> Option<(u32, u32)> {
    let rest = model.to_ascii_lowercase();
    let rest = rest.strip_prefix("claude-")?;
    let numbers: Vec<u32> = rest
        .split(['-', '.', '@'])
        .filter(|part| !part.is_empty() && part.len() < 8 && part.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|part| part.parse().ok())
        .collect();
    match numbers.as_slice() {
        [major, minor, ..] => Some((*major, *minor)),
        [major] => Some((*major, 0)),
        [] => None,
    }
}
