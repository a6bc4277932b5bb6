//! Layer 3: provider payloads. One module per API, each with its renderer (items → payload) and
//! its validator (payload → the rules it breaks).
//!
//! Renderers assume a repaired view (see [`crate::view::repair`]): every tool call is answered
//! right after its assistant turn and no result is orphaned. Validators assume nothing: they read
//! any payload of their shape (ours, or one parsed from JSON) and name every documented rule it
//! breaks, quoting the provider's own error text where it is known. This module knows nothing of
//! sessions, logs or discovery.

pub mod anthropic;
pub mod gemini;
pub mod ids;
pub mod openai_chat;
pub mod openai_responses;
pub mod settings;
pub mod tool_def;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::{Origin, Reasoning};

/// The provider APIs we render for. xAI and most others speak one of the OpenAI shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum Provider {
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    #[serde(rename = "gemini")]
    Gemini,
}

impl Provider {
    pub const ALL: [Provider; 4] = [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Gemini];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Gemini => "gemini",
        }
    }

    /// The `origin.provider` names whose reasoning this API can replay natively.
    fn native_origins(self) -> &'static [&'static str] {
        match self {
            Provider::Anthropic => &["anthropic"],
            // Chat Completions has no field to send reasoning back in.
            Provider::OpenAiChat => &[],
            Provider::OpenAiResponses => &["openai", "openai-responses"],
            Provider::Gemini => &["gemini", "google"],
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown provider `{s}` (expected anthropic, openai-chat, openai-responses or gemini)"))
    }
}

/// The tool definitions of a build, shared: a session is built with the same ones request after
/// request, so options are cloned and compared by pointer first, not tool by tool.
pub type Tools = Arc<Vec<ToolDef>>;

pub use tool_def::{tools_from_value, ToolDef};

/// What to do with reasoning that cannot be replayed natively to the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum ForeignReasoning {
    /// Visible reasoning text becomes plain assistant text inside `<reasoning>` framing;
    /// reasoning with no visible text is dropped.
    #[default]
    AsText,
    /// Foreign reasoning is left out.
    Drop,
}

/// Anthropic's `max_tokens` when the caller sets no budget.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Everything a renderer needs besides the items.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    pub model: String,
    pub system: Option<String>,
    pub tools: Tools,
    /// The reply's token budget: Anthropic's required `max_tokens` ([`DEFAULT_MAX_TOKENS`] when
    /// unset), OpenAI's `max_completion_tokens` / `max_output_tokens` and Gemini's
    /// `generationConfig.maxOutputTokens` when set (unset, those APIs use the model's own limit,
    /// which for reasoning models also covers their reasoning).
    pub max_tokens: Option<u32>,
    pub foreign_reasoning: ForeignReasoning,
    /// Prompt caching: breakpoints and keys (see [`CacheConfig`]).
    pub cache: CacheConfig,
    pub limits: Limits,
    /// Each API's request settings (thinking, tool choice, sampling, …: [`settings`]).
    pub settings: settings::Settings,
}

/// Prompt caching. Every body puts what changes least first — tools, then the system prompt,
/// then the conversation, always the last field — so a request is a byte-for-byte extension of
/// the one before it and every provider's prefix cache keeps working.
///
/// - Anthropic: explicit breakpoints on the two stable boundaries (the last tool, the system
///   prompt) and the request's top-level `cache_control`, which caches the conversation up to
///   its last block: the marker moves with the conversation without rewriting any block, so the
///   bytes already sent stay the same. Three of the four breakpoints allowed; one is left for the
///   host.
/// - OpenAI (both APIs): `prompt_cache_key` routes requests of one session to the same cache;
///   a session uses its session id unless `key` is given.
/// - Gemini caches implicitly; nothing to add.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CacheConfig {
    pub enabled: bool,
    /// Anthropic: time to live of the stable breakpoints, `"5m"` or `"1h"` (the conversation's
    /// is always the default 5 minutes, as a longer TTL may not follow a shorter one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stable_ttl: Option<String>,
    /// OpenAI: the `prompt_cache_key`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig { enabled: true, stable_ttl: None, key: None }
    }
}

impl RenderOptions {
    pub fn new(model: impl Into<String>) -> Self {
        RenderOptions {
            model: model.into(),
            system: None,
            tools: Tools::default(),
            max_tokens: None,
            foreign_reasoning: ForeignReasoning::AsText,
            cache: CacheConfig::default(),
            limits: Limits::default(),
            settings: settings::Settings::default(),
        }
    }
}

/// Provider limits and rule switches the validators enforce (defaults from the providers'
/// documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    /// Anthropic request body limit (413 `request_too_large`).
    pub anthropic_max_body_bytes: usize,
    /// Anthropic per-image limit (decoded bytes) on the direct API.
    pub anthropic_max_image_bytes: usize,
    pub anthropic_max_images: usize,
    /// OpenAI Chat tool-call id length (observed, not documented).
    pub openai_chat_max_call_id: usize,
    /// Anthropic: accept a conversation that ends with an assistant message (prefill). Unset,
    /// the model decides: Claude models before 4.6 accept it, 4.6 and later do not, and no
    /// request that replays extended thinking does (see [`anthropic::prefill_refusal`]).
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub allow_prefill: Option<bool>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            anthropic_max_body_bytes: 32_000_000,
            anthropic_max_image_bytes: 10_000_000,
            anthropic_max_images: 100,
            openai_chat_max_call_id: 40,
            allow_prefill: None,
        }
    }
}

/// One broken rule in a payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Violation {
    /// Stable rule id, e.g. `anthropic.tool_result_follows_tool_use`.
    pub rule: String,
    /// JSON path of the offending element, e.g. `messages.3.content.0`.
    pub path: String,
    /// What is wrong, with the provider's own error text where it is known.
    pub message: String,
}

impl Violation {
    pub fn new(rule: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Violation { rule: rule.to_owned(), path: path.into(), message: message.into() }
    }
}

/// A location in a payload (`messages.3.content.1`, `contents[2].parts[0]`), written out only
/// when a violation needs it: validators walk every entry of every build, and almost never
/// report anything.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    parent: Option<&'a At<'a>>,
    open: &'static str,
    index: usize,
    close: &'static str,
}

impl<'a> At<'a> {
    /// A top-level location: `open`, the index, `close` (`("messages.", 3, "")`).
    pub(crate) fn root(open: &'static str, index: usize, close: &'static str) -> At<'static> {
        At { parent: None, open, index, close }
    }

    /// A location inside this one.
    pub(crate) fn child(&'a self, open: &'static str, index: usize, close: &'static str) -> At<'a> {
        At { parent: Some(self), open, index, close }
    }
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        write!(f, "{}{}{}", self.open, self.index, self.close)
    }
}

impl From<&At<'_>> for String {
    fn from(at: &At<'_>) -> String {
        at.to_string()
    }
}

impl From<At<'_>> for String {
    fn from(at: At<'_>) -> String {
        at.to_string()
    }
}

/// How a reasoning item is treated for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningFate {
    Native,
    AsText,
    Drop,
}

/// Counts of what happened to reasoning, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ReasoningCounts {
    pub kept: usize,
    pub downgraded: usize,
    pub dropped: usize,
}

impl ReasoningCounts {
    /// Adds the counts of another render.
    pub fn add(&mut self, other: ReasoningCounts) {
        self.kept += other.kept;
        self.downgraded += other.downgraded;
        self.dropped += other.dropped;
    }

    pub fn count(&mut self, fate: ReasoningFate) {
        match fate {
            ReasoningFate::Native => self.kept += 1,
            ReasoningFate::AsText => self.downgraded += 1,
            ReasoningFate::Drop => self.dropped += 1,
        }
    }
}

/// The documented rule: reasoning is replayed natively only to the API family that produced it,
/// for the same model, and only when it carries the material that API needs to verify it
/// (a signature or encrypted content). Otherwise its visible text is downgraded to framed
/// assistant text ([`ForeignReasoning::AsText`]) or dropped; reasoning with no visible text is
/// dropped.
pub fn reasoning_fate(reasoning: &Reasoning, target: Provider, options: &RenderOptions) -> ReasoningFate {
    if same_origin(reasoning.origin.as_ref(), target, &options.model) && replay_material(reasoning, target) {
        return ReasoningFate::Native;
    }
    match options.foreign_reasoning {
        ForeignReasoning::AsText if !reasoning.text.trim().is_empty() => ReasoningFate::AsText,
        ForeignReasoning::AsText | ForeignReasoning::Drop => ReasoningFate::Drop,
    }
}

/// True when `origin` is the target's own family and the same model.
pub fn same_origin(origin: Option<&Origin>, target: Provider, model: &str) -> bool {
    match origin {
        Some(origin) => {
            target.native_origins().contains(&origin.provider.as_str()) && origin.model.as_deref().is_some_and(|m| same_model(m, model))
        }
        None => false,
    }
}

/// True when two model ids name one model: equal once a release date is taken off either
/// (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`; `gpt-4o-2024-08-06` is `gpt-4o`).
pub fn same_model(a: &str, b: &str) -> bool {
    a == b || model_alias(a) == model_alias(b)
}

/// A model id without its release date suffix (`-YYYYMMDD` or `-YYYY-MM-DD`) or `-latest`.
pub fn model_alias(model: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(base) = model.strip_suffix("-latest") {
        return base;
    }
    if let Some((base, date)) = model.rsplit_once('-') {
        if date.len() == 8 && digits(date) && date.starts_with("20") {
            return base;
        }
    }
    // `-YYYY-MM-DD`: three dash-separated numeric groups at the end.
    let parts: Vec<&str> = model.rsplitn(4, '-').collect();
    if let [day, month, year, base] = parts.as_slice() {
        if day.len() == 2 && month.len() == 2 && year.len() == 4 && digits(day) && digits(month) && digits(year) && year.starts_with("20") {
            return base;
        }
    }
    model
}

fn replay_material(reasoning: &Reasoning, target: Provider) -> bool {
    match target {
        Provider::Anthropic => reasoning.signature.is_some() || reasoning.encrypted.is_some(),
        Provider::OpenAiChat => false,
        // The API reads reasoning back from its encrypted content, or (stored) by its `rs_…` id.
        Provider::OpenAiResponses => reasoning.provider_id.is_some() || reasoning.encrypted.is_some(),
        // A thought summary goes back as a thought part, with its signature when it had one.
        Provider::Gemini => reasoning.signature.is_some() || !reasoning.text.trim().is_empty(),
    }
}

/// A provider-native block goes back only to the API that made it (any of its models: the
/// blocks are not signed for one model); every other target leaves it out.
pub fn native_replays(native: &crate::conversation::Native, target: Provider) -> bool {
    let typed = || native.value.get("type").is_some_and(Value::is_string);
    target.native_origins().contains(&native.origin.provider.as_str())
        && match target {
            // Their blocks and items are told apart by `type`: one without it is not theirs.
            Provider::Anthropic | Provider::OpenAiResponses => typed(),
            // A part holds exactly one kind of data beside its annotations.
            Provider::Gemini => gemini::data_keys(&native.value) == 1,
            Provider::OpenAiChat => false,
        }
}

/// Foreign reasoning as plain text: framed so the model reads it as a record, not an instruction.
pub fn reasoning_as_text(reasoning: &Reasoning) -> String {
    format!("<reasoning>\n{}\n</reasoning>", crate::framing::neutralize(&reasoning.text))
}

/// Opens the user message that carries tool-result images for APIs that cannot put them in
/// the tool result itself (Chat Completions, Gemini).
pub const TOOL_IMAGES_NOTE: &str = "<tool_images>Images returned by the tool calls above.</tool_images>";

/// What a renderer tells the report besides the payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RenderNotes {
    pub reasoning: ReasoningCounts,
    /// Provider-facing tool-call id → original id, for ids the renderer had to change.
    pub id_map: BTreeMap<String, String>,
    /// Non-object tool inputs wrapped as `{"input": …}` where the API needs an object.
    pub wrapped_inputs: usize,
    /// Tool-result images moved into a following user message (APIs without images in results).
    pub moved_images: usize,
    /// Provider-native blocks (server tools' calls and results) left out: another API made them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_natives: usize,
    /// Anthropic thinking was asked for and left out of this request: the turn it continues
    /// has no thinking block to start it ([`anthropic::thinking_sent`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thinking_suspended: bool,
}

/// A rendered payload of any provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum Payload {
    Anthropic(#[cfg_attr(target_arch = "wasm32", tsify(type = "AnthropicRequest"))] anthropic::Request),
    OpenAiChat(#[cfg_attr(target_arch = "wasm32", tsify(type = "OpenAiChatRequest"))] openai_chat::Request),
    OpenAiResponses(#[cfg_attr(target_arch = "wasm32", tsify(type = "OpenAiResponsesRequest"))] openai_responses::Request),
    Gemini(#[cfg_attr(target_arch = "wasm32", tsify(type = "GeminiRequest"))] gemini::Request),
}

/// What validating a payload leaves for checking its growth ([`Payload::validate_appended`]).
#[derive(Debug, Clone)]
pub enum Checked {
    Anthropic(anthropic::Check),
    /// The other APIs' payloads are checked whole on every build.
    Whole,
}

impl Payload {
    pub fn provider(&self) -> Provider {
        match self {
            Payload::Anthropic(_) => Provider::Anthropic,
            Payload::OpenAiChat(_) => Provider::OpenAiChat,
            Payload::OpenAiResponses(_) => Provider::OpenAiResponses,
            Payload::Gemini(_) => Provider::Gemini,
        }
    }

    /// The request body exactly as it would be sent.
    pub fn to_json(&self) -> String {
        // Serialising these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Entries of the conversation (messages, input items or contents).
    pub fn entries_len(&self) -> usize {
        match self {
            Payload::Anthropic(r) => r.messages.len(),
            Payload::OpenAiChat(r) => r.messages.len(),
            Payload::OpenAiResponses(r) => r.input.len(),
            Payload::Gemini(r) => r.contents.len(),
        }
    }

    /// Appends `more`'s conversation entries to this payload's; `false` (nothing changed) when
    /// the two are not the same API.
    pub fn append_entries(&mut self, more: Payload) -> bool {
        match (self, more) {
            (Payload::Anthropic(a), Payload::Anthropic(b)) => a.messages.extend(b.messages),
            (Payload::OpenAiChat(a), Payload::OpenAiChat(b)) => a.messages.extend(b.messages),
            (Payload::OpenAiResponses(a), Payload::OpenAiResponses(b)) => a.input.extend(b.input),
            (Payload::Gemini(a), Payload::Gemini(b)) => a.contents.extend(b.contents),
            (Payload::Anthropic(_) | Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_), _) => return false,
        }
        true
    }

    /// The conversation's first entry is the model's (an assistant message or a model turn);
    /// true for an empty one. For the Responses API every item stands alone, so any first item
    /// but a user or system message counts.
    pub fn starts_on_assistant_side(&self) -> bool {
        match self {
            Payload::Anthropic(r) => r.messages.first().is_none_or(|m| m.role == anthropic::Role::Assistant),
            Payload::OpenAiChat(r) => r.messages.first().is_none_or(|m| matches!(m, openai_chat::Message::Assistant { .. })),
            Payload::OpenAiResponses(r) => r.input.first().is_none_or(|i| match i {
                openai_responses::InputItem::Message { role, .. } => *role == openai_responses::MessageRole::Assistant,
                openai_responses::InputItem::FunctionCall { .. }
                | openai_responses::InputItem::FunctionCallOutput { .. }
                | openai_responses::InputItem::CustomToolCall { .. }
                | openai_responses::InputItem::CustomToolCallOutput { .. }
                | openai_responses::InputItem::Reasoning { .. }
                | openai_responses::InputItem::Native(_) => true,
            }),
            Payload::Gemini(r) => r.contents.first().is_none_or(|c| c.role.as_deref() == Some("model")),
        }
    }

    /// Keeps the first `len` conversation entries.
    pub fn truncate_entries(&mut self, len: usize) {
        match self {
            Payload::Anthropic(r) => r.messages.truncate(len),
            Payload::OpenAiChat(r) => r.messages.truncate(len),
            Payload::OpenAiResponses(r) => r.input.truncate(len),
            Payload::Gemini(r) => r.contents.truncate(len),
        }
    }

    /// The settings this payload carries are still the ones its conversation calls for: the
    /// Anthropic `thinking` a turn without thinking suspends ([`anthropic::thinking_sent`]) is
    /// decided by the conversation's end, which an append moves.
    pub fn settings_hold(&self, options: &RenderOptions) -> bool {
        match self {
            Payload::Anthropic(r) => r.settings.thinking == anthropic::thinking_sent(r, options),
            Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => true,
        }
    }

    /// Why the target refuses this payload's ending with an assistant turn (prefill), when it
    /// ends with one and the target does; `None` when the payload may be sent as it is.
    pub fn prefill_refusal(&self, limits: &Limits) -> Option<String> {
        match self {
            Payload::Anthropic(r) => anthropic::prefill_refusal(r, limits),
            Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => None,
        }
    }

    /// Serializes the payload whose first `known` entries are those `json` was serialized
    /// from (the rest were appended since): their JSON is reused without comparing them, and
    /// `stem`, the body before its conversation, stands for every other field (unchanged).
    pub fn to_json_appended(&mut self, json: &[Arc<str>], known: usize, stem: &str) -> (String, Vec<Arc<str>>, usize) {
        let known = known.min(json.len());
        let stem = Some(stem);
        match self {
            Payload::Anthropic(r) => splice(r, |r| &mut r.messages, None, &json[..known], stem),
            Payload::OpenAiChat(r) => splice(r, |r| &mut r.messages, None, &json[..known], stem),
            Payload::OpenAiResponses(r) => splice(r, |r| &mut r.input, None, &json[..known], stem),
            Payload::Gemini(r) => splice(r, |r| &mut r.contents, None, &json[..known], stem),
        }
    }

    /// Serializes the payload, reusing the JSON of conversation entries equal to the same entry
    /// of `previous` (a payload serialized this way before, with its entries' JSON). Returns the
    /// body — byte for byte what [`Payload::to_json`] gives —, this payload's entries' JSON, and
    /// how many entries' JSON was reused.
    ///
    /// The conversation is every payload's last field, so the body is the rest of the payload
    /// (serialized with an empty conversation) with the entries spliced into its final `[]`.
    pub fn to_json_reusing(&mut self, previous: Option<(&Payload, &[Arc<str>])>) -> (String, Vec<Arc<str>>, usize) {
        match self {
            Payload::Anthropic(r) => {
                let prev = previous.and_then(|(p, s)| match p {
                    Payload::Anthropic(p) => Some((&p.messages[..], s)),
                    Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => None,
                });
                splice(r, |r| &mut r.messages, prev, &[], None)
            }
            Payload::OpenAiChat(r) => {
                let prev = previous.and_then(|(p, s)| match p {
                    Payload::OpenAiChat(p) => Some((&p.messages[..], s)),
                    Payload::Anthropic(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => None,
                });
                splice(r, |r| &mut r.messages, prev, &[], None)
            }
            Payload::OpenAiResponses(r) => {
                let prev = previous.and_then(|(p, s)| match p {
                    Payload::OpenAiResponses(p) => Some((&p.input[..], s)),
                    Payload::Anthropic(_) | Payload::OpenAiChat(_) | Payload::Gemini(_) => None,
                });
                splice(r, |r| &mut r.input, prev, &[], None)
            }
            Payload::Gemini(r) => {
                let prev = previous.and_then(|(p, s)| match p {
                    Payload::Gemini(p) => Some((&p.contents[..], s)),
                    Payload::Anthropic(_) | Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) => None,
                });
                splice(r, |r| &mut r.contents, prev, &[], None)
            }
        }
    }

    pub fn validate(&self, limits: &Limits) -> Vec<Violation> {
        self.validate_sized(limits, json_len(self))
    }

    /// As [`Payload::validate`], when the serialized body's length is already known.
    pub fn validate_sized(&self, limits: &Limits, body_len: usize) -> Vec<Violation> {
        match self {
            Payload::Anthropic(p) => anthropic::validate_sized(p, limits, body_len),
            Payload::OpenAiChat(p) => openai_chat::validate(p, limits),
            Payload::OpenAiResponses(p) => openai_responses::validate(p),
            Payload::Gemini(p) => gemini::validate(p),
        }
    }

    /// As [`Payload::validate_sized`], keeping what a later [`Payload::validate_appended`] needs
    /// to check only what is appended to this payload.
    pub fn validate_keeping(&self, limits: &Limits, body_len: usize) -> (Vec<Violation>, Checked) {
        match self {
            Payload::Anthropic(p) => {
                let (violations, check) = anthropic::Check::full(p, limits, body_len);
                (violations, Checked::Anthropic(check))
            }
            Payload::OpenAiChat(_) | Payload::OpenAiResponses(_) | Payload::Gemini(_) => (self.validate_sized(limits, body_len), Checked::Whole),
        }
    }

    /// Validates this payload, which is the one `checked` was made from with entries appended:
    /// the Messages API's rules are checked on the new messages and across the request, the
    /// old messages are not walked again. Where that cannot be done, the payload is checked whole.
    pub fn validate_appended(&self, limits: &Limits, body_len: usize, checked: &mut Checked) -> Vec<Violation> {
        if let (Payload::Anthropic(p), Checked::Anthropic(check)) = (self, &mut *checked) {
            if let Some(violations) = check.resume(p, limits, body_len) {
                return violations;
            }
        }
        let (violations, fresh) = self.validate_keeping(limits, body_len);
        *checked = fresh;
        violations
    }

    /// Reads a payload of `provider`'s shape from JSON, for validation of payloads made elsewhere.
    pub fn from_json(provider: Provider, value: Value) -> Result<Payload, String> {
        // The settings sit among the body's own fields: read apart, then put in place.
        fn read<R: serde::de::DeserializeOwned, S: serde::de::DeserializeOwned>(value: Value) -> Result<(R, S), String> {
            let Value::Object(mut body) = value else { return Err("a request body is a JSON object".to_owned()) };
            let mut settings = serde_json::Map::new();
            for key in settings::field_names::<S>() {
                if let Some(v) = body.remove(*key) {
                    settings.insert((*key).to_owned(), v);
                }
            }
            let settings = crate::diagnostic::from_value(Value::Object(settings))?;
            Ok((crate::diagnostic::from_value(Value::Object(body))?, settings))
        }
        Ok(match provider {
            Provider::Anthropic => read(value).map(|(r, s)| Payload::Anthropic(anthropic::Request { settings: s, ..r }))?,
            Provider::OpenAiChat => read(value).map(|(r, s)| Payload::OpenAiChat(openai_chat::Request { settings: s, ..r }))?,
            Provider::OpenAiResponses => read(value).map(|(r, s)| Payload::OpenAiResponses(openai_responses::Request { settings: s, ..r }))?,
            Provider::Gemini => read(value).map(|(r, s)| Payload::Gemini(gemini::Request { settings: s, ..r }))?,
        })
    }
}

/// Renders items for `provider`.
pub fn render(provider: Provider, items: &[&crate::conversation::Item], options: &RenderOptions) -> (Payload, RenderNotes) {
    match provider {
        Provider::Anthropic => {
            let (p, n) = anthropic::render(items, options);
            (Payload::Anthropic(p), n)
        }
        Provider::OpenAiChat => {
            let (p, n) = openai_chat::render(items, options);
            (Payload::OpenAiChat(p), n)
        }
        Provider::OpenAiResponses => {
            let (p, n) = openai_responses::render(items, options);
            (Payload::OpenAiResponses(p), n)
        }
        Provider::Gemini => {
            let (p, n) = gemini::render(items, options);
            (Payload::Gemini(p), n)
        }
    }
}

/// Serializes `request` with its conversation (its last field, `entries`) spliced in from
/// per-entry JSON: the first `known.len()` entries' JSON is `known` as it is; later entries reuse
/// the JSON of entries equal to `previous`'s at the same position.
fn splice<R: Serialize, M: Serialize + PartialEq>(
    request: &mut R,
    entries: impl Fn(&mut R) -> &mut Vec<M>,
    previous: Option<(&[M], &[Arc<str>])>,
    known: &[Arc<str>],
    stem: Option<&str>,
) -> (String, Vec<Arc<str>>, usize) {
    // The envelope (every field but the conversation) is serialized unless given.
    let envelope = match stem {
        Some(_) => String::new(),
        None => {
            let list = std::mem::take(entries(request));
            let envelope = serde_json::to_string(request).unwrap_or_default();
            *entries(request) = list;
            envelope
        }
    };
    let list = entries(request);
    let (prev_entries, prev_json) = previous.filter(|(e, j)| e.len() == j.len()).unwrap_or((&[], &[]));
    let mut reused = 0;
    let json: Vec<Arc<str>> = list
        .iter()
        .enumerate()
        .map(|(i, entry)| match (known.get(i), prev_entries.get(i)) {
            (Some(json), _) => {
                reused += 1;
                Arc::clone(json)
            }
            (None, Some(old)) if old == entry => {
                reused += 1;
                Arc::clone(&prev_json[i])
            }
            (None, _) => Arc::from(serde_json::to_string(entry).unwrap_or_default()),
        })
        .collect();
    // The envelope ends with the empty conversation: `[]}`.
    let stem = stem.unwrap_or_else(|| envelope.strip_suffix("[]}").unwrap_or(&envelope));
    let mut body = String::with_capacity(stem.len() + json.iter().map(|j| j.len() + 1).sum::<usize>() + 2);
    body.push_str(stem);
    body.push('[');
    for (i, j) in json.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&j[..]);
    }
    body.push_str("]}");
    (body, json, reused)
}

/// Tool input as a JSON object: objects pass through; anything else is wrapped as `{"input": …}`.
pub fn input_object(input: &Value, notes: &mut RenderNotes) -> serde_json::Map<String, Value> {
    match input {
        Value::Object(map) => map.clone(),
        other => {
            notes.wrapped_inputs += 1;
            let mut map = serde_json::Map::new();
            map.insert("input".to_owned(), other.clone());
            map
        }
    }
}

/// Tool input as the JSON string OpenAI's `arguments` field carries.
pub fn arguments_string(input: &Value, notes: &mut RenderNotes) -> String {
    Value::Object(input_object(input, notes)).to_string()
}

/// Length of `value` serialized as JSON, without building the string.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing to a counter cannot fail, and these types always serialize.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// Result text for APIs with no error flag on tool output: a failure is said in the text.
pub fn result_text(text: String, is_error: bool) -> String {
    if is_error && !text.starts_with("Error") {
        format!("Error: {text}")
    } else {
        text
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
