//! The Anthropic Messages validator: every rule of the API we know of, each broken one a
//! [`Violation`] quoting the API's own words; walked message by message, so a request that only
//! grew by messages is checked on the new ones ([`Check::resume`]).

use rustc_hash::FxHashSet as HashSet;

use base64::Engine as _;
use serde_json::Value;

use super::*;
use crate::provider::{At, Limits, Violation};

/// Checks every rule of the Messages API we know of; returns each one broken.
pub fn validate(request: &Request, limits: &Limits) -> Vec<Violation> {
    validate_sized(request, limits, crate::provider::json_len(request))
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
        let context = crate::provider::settings::Context { model: &request.model, max_tokens: Some(request.max_tokens), tools: &tools, system: request.system.is_some() };
        self.v.extend(crate::provider::settings::anthropic::check(&request.settings, &context));
        if request.messages.is_empty() {
            self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_MESSAGES_NON_EMPTY, "messages", "messages: at least one message is required"));
        }
        for tool in request.tools.iter().flatten() {
            if let Some(cc) = &tool.cache_control {
                self.cache_breakpoints.push((format!("tools.{}", tool.name), cc.ttl.clone()));
            }
        }
        for (i, block) in request.system.iter().flatten().enumerate() {
            if block.text.is_empty() {
                self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TEXT_NON_EMPTY, format!("system.{i}"), "system: text content blocks must be non-empty"));
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
                crate::provider::rules::ANTHROPIC_CONTENT_NON_EMPTY,
                &path,
                format!("{path}: all messages must have non-empty content except for the optional final assistant message"),
            ));
        }
        if n > 0 && request.messages[n - 1].role == message.role {
            self.v.push(Violation::new(
                crate::provider::rules::ANTHROPIC_ROLES_ALTERNATE,
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
            self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TEXT_NON_WHITESPACE, &path, "messages: text content blocks must contain non-whitespace text"));
        }
        let mut seen_non_result = false;
        for (m, block) in message.content.iter().enumerate() {
            let bpath = path.child(".content.", m, "");
            match block {
                Block::Text { text, cache_control, .. } => {
                    if text.is_empty() {
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TEXT_NON_EMPTY, &bpath, format!("{bpath}: text content blocks must be non-empty")));
                    }
                    if let Some(cc) = cache_control {
                        self.cache_breakpoints.push((bpath.to_string(), cc.ttl.clone()));
                    }
                    seen_non_result = true;
                }
                Block::Image { source, cache_control } => {
                    if message.role != Role::User {
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_IMAGE_IN_USER, &bpath, format!("{bpath}: image blocks are only accepted in user messages")));
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
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TOOL_USE_IN_ASSISTANT, &bpath, format!("{bpath}: tool_use blocks belong in assistant messages")));
                    }
                    if !ids::ANTHROPIC.accepts(id) {
                        self.v.push(Violation::new(
                            crate::provider::rules::ANTHROPIC_TOOL_USE_ID_FORMAT,
                            &bpath,
                            format!("{bpath}.id: String should match pattern '^[a-zA-Z0-9_-]+$' and have at most 64 characters: `{id}`"),
                        ));
                    }
                    if !self.seen_ids.insert(id.clone()) {
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TOOL_USE_ID_UNIQUE, &bpath, format!("{bpath}: `tool_use` ids must be unique: {id}")));
                    }
                    if let Some(cc) = cache_control {
                        self.cache_breakpoints.push((bpath.to_string(), cc.ttl.clone()));
                    }
                    seen_non_result = true;
                }
                Block::ToolResult { tool_use_id, content, cache_control, .. } => {
                    if message.role != Role::User {
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TOOL_RESULT_IN_USER, &bpath, format!("{bpath}: tool_result blocks belong in user messages")));
                    }
                    if seen_non_result {
                        self.v.push(Violation::new(
                            crate::provider::rules::ANTHROPIC_TOOL_RESULT_FIRST,
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
                            crate::provider::rules::ANTHROPIC_TOOL_RESULT_MATCHES_TOOL_USE,
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
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_TEXT_NON_WHITESPACE, &bpath, "messages: text content blocks must contain non-whitespace text"));
                    }
                    for (k, inner) in content.iter().enumerate() {
                        let ipath = bpath.child(".content.", k, "");
                        match inner {
                            ResultBlock::Text { text } if text.is_empty() => self.v.push(Violation::new(
                                crate::provider::rules::ANTHROPIC_TEXT_NON_EMPTY,
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
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_THINKING_IN_ASSISTANT, &bpath, format!("{bpath}: thinking blocks belong in assistant messages")));
                    }
                    if signature.is_empty() {
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_THINKING_SIGNATURE, &bpath, format!("{bpath}.signature: thinking blocks need their signature")));
                    }
                    seen_non_result = true;
                }
                Block::RedactedThinking { .. } => {
                    if message.role != Role::Assistant {
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_THINKING_IN_ASSISTANT, &bpath, format!("{bpath}: redacted_thinking blocks belong in assistant messages")));
                    }
                    seen_non_result = true;
                }
                Block::Native(block) => {
                    if message.role != Role::Assistant {
                        let kind = block.get("type").and_then(Value::as_str).unwrap_or("native");
                        self.v.push(Violation::new(crate::provider::rules::ANTHROPIC_NATIVE_IN_ASSISTANT, &bpath, format!("{bpath}: `{kind}` blocks belong in assistant messages")));
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
                        crate::provider::rules::ANTHROPIC_TOOL_USE_HAS_TOOL_RESULT,
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
                    crate::provider::rules::ANTHROPIC_THINKING_STARTS_TURN,
                    format!("messages.{index}.content.0"),
                    format!("messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"),
                ));
            }
        }
        if prefill_refusal(request, limits).is_some() {
            v.push(Violation::new(
                crate::provider::rules::ANTHROPIC_ENDS_WITH_USER,
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
                crate::provider::rules::ANTHROPIC_CACHE_BREAKPOINTS_MAX,
                breakpoints[4].0.clone(),
                format!("A maximum of 4 blocks with cache_control may be provided. Found {}.", breakpoints.len()),
            ));
        }
        let mut seen_short = false;
        for (path, ttl) in &breakpoints {
            match ttl.as_deref() {
                Some("1h") if seen_short => v.push(Violation::new(
                    crate::provider::rules::ANTHROPIC_CACHE_TTL_ORDER,
                    path.clone(),
                    format!("{path}: a ttl='1h' cache_control block must not come after a ttl='5m' block"),
                )),
                Some("1h") => {}
                Some("5m") | None => seen_short = true,
                Some(other) => v.push(Violation::new(crate::provider::rules::ANTHROPIC_CACHE_TTL_VALUE, path.clone(), format!("{path}: cache_control.ttl must be '5m' or '1h', got '{other}'"))),
            }
        }
        if images > limits.anthropic_max_images {
            v.push(Violation::new(
                crate::provider::rules::ANTHROPIC_MAX_IMAGES,
                "messages",
                format!("Too many images: {images} in one request (at most {})", limits.anthropic_max_images),
            ));
        }
        if body > limits.anthropic_max_body_bytes {
            v.push(Violation::new(
                crate::provider::rules::ANTHROPIC_REQUEST_TOO_LARGE,
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
                    crate::provider::rules::ANTHROPIC_IMAGE_MEDIA_TYPE,
                    path,
                    format!("{path}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp', got '{media_type}'"),
                ));
            }
            match base64::engine::general_purpose::STANDARD.decode(data) {
                Ok(bytes) if bytes.len() > limits.anthropic_max_image_bytes => v.push(Violation::new(
                    crate::provider::rules::ANTHROPIC_IMAGE_SIZE,
                    path,
                    format!("{path}: image exceeds {} bytes ({} bytes)", limits.anthropic_max_image_bytes, bytes.len()),
                )),
                Ok(_) => {}
                Err(e) => v.push(Violation::new(crate::provider::rules::ANTHROPIC_IMAGE_BASE64, path, format!("{path}.source.data: invalid base64 data: {e}"))),
            }
        }
        ImageSource::Url { url } => {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                v.push(Violation::new(crate::provider::rules::ANTHROPIC_IMAGE_URL, path, format!("{path}.source.url: must be an http(s) URL")));
            }
        }
    }
}

