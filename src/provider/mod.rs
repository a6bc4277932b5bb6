//! Layer 3: provider payloads. One module per API, each with its renderer (items → payload) and
//! its validator (payload → the rules it breaks).
//!
//! Renderers assume a repaired view (see [`crate::view::repair`]): every tool call is answered
//! right after its assistant turn and no result is orphaned. Validators assume nothing: they read
//! any payload of their shape (ours, or one parsed from JSON) and name every documented rule it
//! breaks, quoting the provider's own error text where it is known. This module knows nothing of
//! sessions, logs or discovery.

use contextview_derive::ReadValue;
pub mod anthropic;
pub mod gemini;
pub mod ids;
pub mod openai_chat;
pub mod openai_responses;
pub mod rules;
mod body;
pub mod endpoint;
pub mod natives;
mod payload;
pub mod settings;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::{JsonText, Origin, Reasoning};

/// The provider APIs we render for. xAI and most others speak one of the OpenAI shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ReadValue)]
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

    /// The API a provider name as an agent recorded it was sent through: our own ids; the API
    /// names agents record (`anthropic-messages`, `openai-completions`, `openai-responses`,
    /// `google-generative-ai`); the vendors' names (`openai` and Azure speak Responses, Google's
    /// and Vertex's names Gemini, Anthropic's and Bedrock's Claude Messages); any other name is a
    /// server speaking OpenAI's Chat Completions, unless `model` names a Claude or Gemini model.
    pub fn of_recorded(name: &str, model: &str) -> Provider {
        if let Ok(provider) = name.parse::<Provider>() {
            return provider;
        }
        let name = name.to_ascii_lowercase();
        let model = model.to_ascii_lowercase();
        if name.starts_with("anthropic") || name == "claude" {
            Provider::Anthropic
        } else if name.starts_with("google") || name.starts_with("gemini") || name.starts_with("vertex") {
            Provider::Gemini
        } else if name == "openai-completions" || name == "openai-chat-completions" {
            Provider::OpenAiChat
        } else if name == "openai" || name.contains("responses") || name.starts_with("azure") || name == "openai-codex" {
            Provider::OpenAiResponses
        } else if name.contains("bedrock") && model.contains("claude") {
            Provider::Anthropic
        } else if model.starts_with("claude") {
            Provider::Anthropic
        } else if model.starts_with("gemini") {
            Provider::Gemini
        } else {
            Provider::OpenAiChat
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

pub use crate::tool_def::{tools_from_value, ToolDef, Tools};
pub use body::Body;
pub use payload::{render, Checked, Payload};

/// What to do with reasoning that cannot be replayed natively to the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ReadValue)]
pub struct ReasoningCounts {
    pub kept: usize,
    pub downgraded: usize,
    pub dropped: usize,
    /// Of `downgraded`, those the target model made itself: its API takes no reasoning back
    /// natively (Chat Completions), or this block lacks what it needs to (a signature).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub own_as_text: usize,
}

impl ReasoningCounts {
    /// Adds the counts of another render.
    pub fn add(&mut self, other: ReasoningCounts) {
        self.kept += other.kept;
        self.downgraded += other.downgraded;
        self.dropped += other.dropped;
        self.own_as_text += other.own_as_text;
    }

    /// Counts what became of `reasoning` in a request to `target` (`options.model`).
    pub fn count(&mut self, fate: ReasoningFate, reasoning: &Reasoning, target: Provider, options: &RenderOptions) {
        match fate {
            ReasoningFate::Native => self.kept += 1,
            ReasoningFate::AsText => {
                self.downgraded += 1;
                if made_by(reasoning.origin.as_ref(), target, &options.model) {
                    self.own_as_text += 1;
                }
            }
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

/// True when `origin` is the target's model itself, by any of its family's APIs (a Chat
/// Completions model's own reasoning, which that API cannot take back, included).
fn made_by(origin: Option<&Origin>, target: Provider, model: &str) -> bool {
    let family: &[&str] = match target {
        Provider::OpenAiChat | Provider::OpenAiResponses => &["openai", "openai-chat", "openai-responses"],
        Provider::Anthropic | Provider::Gemini => target.native_origins(),
    };
    origin.is_some_and(|o| family.contains(&o.provider.as_str()) && o.model.as_deref().is_some_and(|m| same_model(m, model)))
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
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
    /// The kinds of the API's own blocks left out because no request takes them back (a beta's,
    /// or newer than this version: [`natives`]), one entry a block.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown_natives: Vec<String>,
    /// Anthropic thinking was asked for and left out of this request: the turn it continues
    /// has no thinking block to start it ([`anthropic::thinking_sent`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thinking_suspended: bool,
}

/// A tool input that is a JSON object, as the APIs that take one carry it (Anthropic's
/// `tool_use.input`, Gemini's `functionCall.args`): shared, not copied, with the conversation's
/// tool call (and the log's record) when the call's input is an object already.
#[derive(Debug, Clone, PartialEq)]
pub struct InputObject(JsonText);

impl InputObject {
    /// The shared text (of an object).
    pub fn text(&self) -> &JsonText {
        &self.0
    }
}

impl Serialize for InputObject {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl crate::shape::Describe for InputObject {
    fn describe() -> crate::shape::Ty {
        crate::shape::Ty::Map(Box::new(crate::shape::Ty::Value))
    }
}

impl<'de> Deserialize<'de> for InputObject {
    /// Only an object is one (a payload read back is held to the API's shape).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_json::Map::deserialize(deserializer).map(|map| InputObject(JsonText::new(&Value::Object(map))))
    }
}

/// Tool input as a JSON object: objects pass through (shared); anything else is wrapped as
/// `{"input": …}`.
pub fn input_object(input: &JsonText, notes: &mut RenderNotes) -> InputObject {
    if input.is_object() {
        return InputObject(input.clone());
    }
    notes.wrapped_inputs += 1;
    let mut map = serde_json::Map::new();
    map.insert("input".to_owned(), input.value());
    InputObject(JsonText::new(&Value::Object(map)))
}

/// Tool input as the JSON string OpenAI's `arguments` field carries.
pub fn arguments_string(input: &JsonText, notes: &mut RenderNotes) -> String {
    input_object(input, notes).0.as_str().to_owned()
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
pub fn result_text(text: crate::conversation::SharedText, is_error: bool) -> crate::conversation::SharedText {
    if is_error && !text.starts_with("Error") {
        crate::conversation::SharedText::new(format!("Error: {text}"))
    } else {
        text
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::Provider;

    #[test]
    fn a_recorded_provider_name_maps_to_the_api_it_was_sent_through() {
        let cases = [
            ("anthropic", "claude-sonnet-4-5", Provider::Anthropic),
            ("openai-chat", "gpt-4o", Provider::OpenAiChat),
            ("gemini", "gemini-2.5-pro", Provider::Gemini),
            // Codex's `model_provider`, pi's provider names and API names.
            ("openai", "gpt-5.3-codex", Provider::OpenAiResponses),
            ("azure-openai-responses", "gpt-5", Provider::OpenAiResponses),
            ("openai-completions", "qwen3-coder", Provider::OpenAiChat),
            ("anthropic-messages", "claude-opus-4-1", Provider::Anthropic),
            ("google", "gemini-2.5-flash", Provider::Gemini),
            ("google-vertex", "gemini-2.5-pro", Provider::Gemini),
            ("google-generative-ai", "gemini-2.5-pro", Provider::Gemini),
            ("amazon-bedrock", "us.anthropic.claude-sonnet-4-5", Provider::Anthropic),
            // Other servers speak Chat Completions, unless the model is Claude or Gemini.
            ("openrouter", "z-ai/glm-4.6", Provider::OpenAiChat),
            ("xai", "grok-code-fast-1", Provider::OpenAiChat),
            ("github-copilot", "claude-sonnet-4.5", Provider::Anthropic),
            ("ollama", "", Provider::OpenAiChat),
        ];
        for (name, model, want) in cases {
            assert_eq!(Provider::of_recorded(name, model), want, "{name} {model}");
        }
    }
}
