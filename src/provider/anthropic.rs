//! Anthropic Messages: payload types, renderer and validator.
//!
//! Shape: top-level `system` text blocks, `messages[]` of `user` / `assistant` with content blocks.
//! Tool results go first in the user message right after the `tool_use`s they answer; images may
//! sit inside tool results. Consecutive same-role items are merged into one message.

use rustc_hash::FxHashSet as HashSet;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ids::{self, IdMapper};
use super::settings::anthropic::Settings;
use super::{input_object, At, reasoning_as_text, reasoning_fate, Limits, ReasoningFate, RenderNotes, RenderOptions, ToolDef, Violation};
use crate::conversation::{Image, Item, Part, SyntheticReason};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
pub struct TextBlock {
    #[serde(rename = "type")]
    pub kind: TextType,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
#[serde(rename_all = "lowercase")]
pub enum TextType {
    Text,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
pub struct CacheControl {
    #[serde(rename = "type")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "\"ephemeral\""))]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = r#""5m" | "1h""#))]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
// The untagged variant is written by hand: a derived type would give it a `type: "native"`.
#[cfg_attr(
    target_arch = "wasm32",
    tsify(type = r#"{ type: "text"; text: string; cache_control?: AnthropicCacheControl } | { type: "image"; source: AnthropicImageSource; cache_control?: AnthropicCacheControl } | { type: "tool_use"; id: string; name: string; input: Record<string, Value>; cache_control?: AnthropicCacheControl } | { type: "tool_result"; tool_use_id: string; content: AnthropicResultBlock[]; is_error?: boolean; cache_control?: AnthropicCacheControl } | { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string } | NativeBlock"#)
)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    Text {
        text: String,
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
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, Value>"))]
        input: Map<String, Value>,
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
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    /// A block the model's own turn held that only this API reads (a server tool's call or
    /// result, a compaction block), sent back exactly as it came.
    #[serde(untagged)]
    Native(Map<String, Value>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultBlock {
    Text { text: String },
    Image { source: ImageSource },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    Base64 {
        #[cfg_attr(target_arch = "wasm32", tsify(type = r#""image/jpeg" | "image/png" | "image/gif" | "image/webp""#))]
        media_type: String,
        data: String,
    },
    Url { url: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type_prefix = "Anthropic"))]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "ToolSchema & { type: 'object' }"))]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

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

    for item in items {
        match item {
            Item::User(message) => {
                for part in &message.content {
                    match part {
                        Part::Text { text } if text.is_empty() => {}
                        Part::Text { text } => push(Role::User, Block::Text { text: text.clone(), cache_control: None }, &mut messages),
                        Part::Image(image) => {
                            push(Role::User, Block::Image { source: image_source(image), cache_control: None }, &mut messages)
                        }
                    }
                }
            }
            Item::Assistant(text) => {
                if !text.text.is_empty() {
                    push(Role::Assistant, Block::Text { text: text.text.clone(), cache_control: None }, &mut messages);
                }
            }
            Item::Reasoning(reasoning) => {
                let fate = reasoning_fate(reasoning, super::Provider::Anthropic, options);
                notes.reasoning.count(fate);
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
                        Block::Text { text: reasoning_as_text(reasoning), cache_control: None },
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
                true => push(Role::Assistant, Block::Native(native.value.clone()), &mut messages),
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

/// Checks every rule of the Messages API we know of; returns each one broken.
pub fn validate(request: &Request, limits: &Limits) -> Vec<Violation> {
    validate_sized(request, limits, super::json_len(request))
}

/// As [`validate`], with the serialized body's length already known.
pub fn validate_sized(request: &Request, limits: &Limits, body: usize) -> Vec<Violation> {
    Check::full(request, limits, body).0
}

/// The rules of [`validate_sized`], walked message by message. What it holds after a payload's
/// messages lets a payload that only grew by messages appended after a user message be checked
/// on the new messages alone ([`Check::resume`]): every rule that looks at a neighbour looks at
/// the one before, except the two about an assistant message's successor, and the message
/// before the new ones is not an assistant message.
#[derive(Debug, Clone, Default)]
pub struct Check {
    v: Vec<Violation>,
    cache_breakpoints: Vec<(String, Option<String>)>,
    images: usize,
    seen_ids: HashSet<String>,
    /// Messages checked so far.
    checked: usize,
}

impl Check {
    /// Checks a whole request; returns what it breaks and the state after its messages.
    pub fn full(request: &Request, limits: &Limits, body: usize) -> (Vec<Violation>, Check) {
        let mut check = Check::default();
        check.head(request);
        for n in 0..request.messages.len() {
            check.message(request, n, limits);
        }
        (check.finish(request, limits, body), check)
    }

    /// Checks what was appended to the request this state was made from; `None` when it cannot
    /// (the request is not that one grown, an earlier check found a violation, or the last
    /// message checked was the model's), and the request must be checked whole.
    pub fn resume(&mut self, request: &Request, limits: &Limits, body: usize) -> Option<Vec<Violation>> {
        let resumable = self.v.is_empty()
            && self.checked > 0
            && request.messages.len() >= self.checked
            && request.messages[self.checked - 1].role == Role::User;
        if !resumable {
            return None;
        }
        for n in self.checked..request.messages.len() {
            self.message(request, n, limits);
        }
        Some(self.finish(request, limits, body))
    }

    fn head(&mut self, request: &Request) {
        let tools: Vec<&str> = request.tools.iter().flatten().map(|t| t.name.as_str()).collect();
        let context = super::settings::Context { model: &request.model, max_tokens: Some(request.max_tokens), tools: &tools, system: request.system.is_some() };
        self.v.extend(super::settings::anthropic::check(&request.settings, &context));
        if request.messages.is_empty() {
            self.v.push(Violation::new("anthropic.messages_non_empty", "messages", "messages: at least one message is required"));
        }
        for tool in request.tools.iter().flatten() {
            if let Some(cc) = &tool.cache_control {
                self.cache_breakpoints.push((format!("tools.{}", tool.name), cc.ttl.clone()));
            }
        }
        for (i, block) in request.system.iter().flatten().enumerate() {
            if block.text.is_empty() {
                self.v.push(Violation::new("anthropic.text_non_empty", format!("system.{i}"), "system: text content blocks must be non-empty"));
            }
            if let Some(cc) = &block.cache_control {
                self.cache_breakpoints.push((format!("system.{i}"), cc.ttl.clone()));
            }
        }
    }

    fn message(&mut self, request: &Request, n: usize, limits: &Limits) {
        self.checked = n + 1;
        let last = request.messages.len().saturating_sub(1);
        let message = &request.messages[n];
        let path = At::root("messages.", n, "");
        if message.content.is_empty() && !(n == last && message.role == Role::Assistant) {
            self.v.push(Violation::new(
                "anthropic.content_non_empty",
                &path,
                format!("{path}: all messages must have non-empty content except for the optional final assistant message"),
            ));
        }
        if n > 0 && request.messages[n - 1].role == message.role {
            self.v.push(Violation::new(
                "anthropic.roles_alternate",
                &path,
                format!("{path}: consecutive `{:?}` messages (the API would combine them; we never send them)", message.role),
            ));
        }
        // A message whose text blocks are all whitespace is refused (one beside real text is not).
        let texts: Vec<&str> = message.content.iter().filter_map(|b| match b {
            Block::Text { text, .. } => Some(text.as_str()),
            Block::Image { .. }
            | Block::ToolUse { .. }
            | Block::ToolResult { .. }
            | Block::Thinking { .. }
            | Block::RedactedThinking { .. }
            | Block::Native(_) => None,
        }).collect();
        if texts.iter().any(|t| !t.is_empty()) && texts.iter().all(|t| t.trim().is_empty()) {
            self.v.push(Violation::new("anthropic.text_non_whitespace", &path, "messages: text content blocks must contain non-whitespace text"));
        }
        let mut seen_non_result = false;
        for (m, block) in message.content.iter().enumerate() {
            let bpath = path.child(".content.", m, "");
            match block {
                Block::Text { text, cache_control } => {
                    if text.is_empty() {
                        self.v.push(Violation::new("anthropic.text_non_empty", &bpath, format!("{bpath}: text content blocks must be non-empty")));
                    }
                    if let Some(cc) = cache_control {
                        self.cache_breakpoints.push((bpath.to_string(), cc.ttl.clone()));
                    }
                    seen_non_result = true;
                }
                Block::Image { source, cache_control } => {
                    if message.role != Role::User {
                        self.v.push(Violation::new("anthropic.image_in_user", &bpath, format!("{bpath}: image blocks are only accepted in user messages")));
                    }
                    self.images += 1;
                    check_image(source, &bpath, limits, &mut self.v);
                    if let Some(cc) = cache_control {
                        self.cache_breakpoints.push((bpath.to_string(), cc.ttl.clone()));
                    }
                    seen_non_result = true;
                }
                Block::ToolUse { id, cache_control, .. } => {
                    if message.role != Role::Assistant {
                        self.v.push(Violation::new("anthropic.tool_use_in_assistant", &bpath, format!("{bpath}: tool_use blocks belong in assistant messages")));
                    }
                    if !ids::ANTHROPIC.accepts(id) {
                        self.v.push(Violation::new(
                            "anthropic.tool_use_id_format",
                            &bpath,
                            format!("{bpath}.id: String should match pattern '^[a-zA-Z0-9_-]+$' and have at most 64 characters: `{id}`"),
                        ));
                    }
                    if !self.seen_ids.insert(id.clone()) {
                        self.v.push(Violation::new("anthropic.tool_use_id_unique", &bpath, format!("{bpath}: `tool_use` ids must be unique: {id}")));
                    }
                    if let Some(cc) = cache_control {
                        self.cache_breakpoints.push((bpath.to_string(), cc.ttl.clone()));
                    }
                    seen_non_result = true;
                }
                Block::ToolResult { tool_use_id, content, cache_control, .. } => {
                    if message.role != Role::User {
                        self.v.push(Violation::new("anthropic.tool_result_in_user", &bpath, format!("{bpath}: tool_result blocks belong in user messages")));
                    }
                    if seen_non_result {
                        self.v.push(Violation::new(
                            "anthropic.tool_result_first",
                            &bpath,
                            format!("{bpath}: tool_result blocks must come first in the user message, before any other content"),
                        ));
                    }
                    let previous_uses = n
                        .checked_sub(1)
                        .map(|p| tool_use_ids(&request.messages[p]))
                        .unwrap_or_default();
                    if !previous_uses.contains(tool_use_id.as_str()) {
                        self.v.push(Violation::new(
                            "anthropic.tool_result_matches_tool_use",
                            &bpath,
                            format!(
                                "{bpath}: unexpected `tool_use_id` found in `tool_result` blocks: {tool_use_id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                            ),
                        ));
                    }
                    let inner_texts: Vec<&str> = content.iter().filter_map(|b| match b {
                        ResultBlock::Text { text } => Some(text.as_str()),
                        ResultBlock::Image { .. } => None,
                    }).collect();
                    if inner_texts.iter().any(|t| !t.is_empty()) && inner_texts.iter().all(|t| t.trim().is_empty()) {
                        self.v.push(Violation::new("anthropic.text_non_whitespace", &bpath, "messages: text content blocks must contain non-whitespace text"));
                    }
                    for (k, inner) in content.iter().enumerate() {
                        let ipath = bpath.child(".content.", k, "");
                        match inner {
                            ResultBlock::Text { text } if text.is_empty() => self.v.push(Violation::new(
                                "anthropic.text_non_empty",
                                &ipath,
                                format!("{ipath}: text content blocks must be non-empty"),
                            )),
                            ResultBlock::Text { .. } => {}
                            ResultBlock::Image { source } => {
                                self.images += 1;
                                check_image(source, &ipath, limits, &mut self.v);
                            }
                        }
                    }
                    if let Some(cc) = cache_control {
                        self.cache_breakpoints.push((bpath.to_string(), cc.ttl.clone()));
                    }
                }
                Block::Thinking { signature, .. } => {
                    if message.role != Role::Assistant {
                        self.v.push(Violation::new("anthropic.thinking_in_assistant", &bpath, format!("{bpath}: thinking blocks belong in assistant messages")));
                    }
                    if signature.is_empty() {
                        self.v.push(Violation::new("anthropic.thinking_signature", &bpath, format!("{bpath}.signature: thinking blocks need their signature")));
                    }
                    seen_non_result = true;
                }
                Block::RedactedThinking { .. } => {
                    if message.role != Role::Assistant {
                        self.v.push(Violation::new("anthropic.thinking_in_assistant", &bpath, format!("{bpath}: redacted_thinking blocks belong in assistant messages")));
                    }
                    seen_non_result = true;
                }
                Block::Native(block) => {
                    if message.role != Role::Assistant {
                        let kind = block.get("type").and_then(Value::as_str).unwrap_or("native");
                        self.v.push(Violation::new("anthropic.native_in_assistant", &bpath, format!("{bpath}: `{kind}` blocks belong in assistant messages")));
                    }
                    seen_non_result = true;
                }
            }
        }
        // Every tool_use needs its tool_result in the very next message.
        if message.role == Role::Assistant {
            let uses = tool_use_ids(message);
            if !uses.is_empty() {
                let answered: HashSet<&str> = request
                    .messages
                    .get(n + 1)
                    .map(|next| {
                        next.content
                            .iter()
                            .filter_map(|b| match b {
                                Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                                _ => None,
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let mut missing: Vec<&str> = uses.iter().copied().filter(|id| !answered.contains(id)).collect();
                missing.sort_unstable();
                if !missing.is_empty() {
                    self.v.push(Violation::new(
                        "anthropic.tool_use_has_tool_result",
                        &path,
                        format!(
                            "{path}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                            missing.join(", ")
                        ),
                    ));
                }
            }
        }
    }

    /// The rules over the whole request, after its messages.
    fn finish(&self, request: &Request, limits: &Limits, body: usize) -> Vec<Violation> {
        let mut v = self.v.clone();
        let last = request.messages.len().saturating_sub(1);
        let images = self.images;
        let mut breakpoints = self.cache_breakpoints.clone();
        if request.settings.thinking.as_ref().is_some_and(|t| t.is_on()) {
            if let Some((index, found)) = unthought_turn(request) {
                v.push(Violation::new(
                    "anthropic.thinking_starts_turn",
                    format!("messages.{index}.content.0"),
                    format!("messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"),
                ));
            }
        }
        if prefill_refusal(request, limits).is_some() {
            v.push(Violation::new(
                "anthropic.ends_with_user",
                format!("messages.{last}"),
                "This model does not support assistant message prefill. The conversation must end with a user message.",
            ));
        }

        // Automatic caching places its breakpoint on the last block: it counts, and comes last.
        if let Some(cc) = &request.cache_control {
            breakpoints.push(("cache_control".to_owned(), cc.ttl.clone()));
        }
        if breakpoints.len() > 4 {
            v.push(Violation::new(
                "anthropic.cache_breakpoints_max",
                breakpoints[4].0.clone(),
                format!("A maximum of 4 blocks with cache_control may be provided. Found {}.", breakpoints.len()),
            ));
        }
        let mut seen_short = false;
        for (path, ttl) in &breakpoints {
            match ttl.as_deref() {
                Some("1h") if seen_short => v.push(Violation::new(
                    "anthropic.cache_ttl_order",
                    path.clone(),
                    format!("{path}: a ttl='1h' cache_control block must not come after a ttl='5m' block"),
                )),
                Some("1h") => {}
                Some("5m") | None => seen_short = true,
                Some(other) => v.push(Violation::new("anthropic.cache_ttl_value", path.clone(), format!("{path}: cache_control.ttl must be '5m' or '1h', got '{other}'"))),
            }
        }
        if images > limits.anthropic_max_images {
            v.push(Violation::new(
                "anthropic.max_images",
                "messages",
                format!("Too many images: {images} in one request (at most {})", limits.anthropic_max_images),
            ));
        }
        if body > limits.anthropic_max_body_bytes {
            v.push(Violation::new(
                "anthropic.request_too_large",
                "",
                format!("request_too_large: request body is {body} bytes; the limit is {}", limits.anthropic_max_body_bytes),
            ));
        }
        v
    }
}

fn tool_use_ids(message: &Message) -> HashSet<&str> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            Block::ToolUse { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect()
}

fn check_image(source: &ImageSource, path: &At<'_>, limits: &Limits, v: &mut Vec<Violation>) {
    match source {
        ImageSource::Base64 { media_type, data } => {
            if !IMAGE_TYPES.contains(&media_type.as_str()) {
                v.push(Violation::new(
                    "anthropic.image_media_type",
                    path,
                    format!("{path}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp', got '{media_type}'"),
                ));
            }
            match base64::engine::general_purpose::STANDARD.decode(data) {
                Ok(bytes) if bytes.len() > limits.anthropic_max_image_bytes => v.push(Violation::new(
                    "anthropic.image_size",
                    path,
                    format!("{path}: image exceeds {} bytes ({} bytes)", limits.anthropic_max_image_bytes, bytes.len()),
                )),
                Ok(_) => {}
                Err(e) => v.push(Violation::new("anthropic.image_base64", path, format!("{path}.source.data: invalid base64 data: {e}"))),
            }
        }
        ImageSource::Url { url } => {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                v.push(Violation::new("anthropic.image_url", path, format!("{path}.source.url: must be an http(s) URL")));
            }
        }
    }
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
