//! Layer 2: conversation items — what the model saw and said, and nothing else.
//!
//! The durable log (layer 1, [`crate::update`]) carries UI and replay semantics; the provider
//! payloads (layer 3, [`crate::provider`]) carry one API's quirks. Between them sits this ground
//! floor: a flat, ordered list of [`Item`]s with model semantics only. Every view stage and every
//! renderer works on these, and nothing here knows about JSON Lines, ACP or any provider's wire
//! format.

use contextview_derive::ReadValue;
use serde::{Deserialize, Serialize};

crate::tagged::newtype_enum! {
    #[serde(tag = "type")]
    /// One entry of the conversation, in the order the model experienced it.
    ///
    /// Consecutive assistant-side items (reasoning, text, tool calls) form one assistant turn; tool
    /// results answer calls of the turn before them.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Item {
        "user" => User(UserMessage),
        "assistant" => Assistant(AssistantText),
        "reasoning" => Reasoning(Reasoning),
        "tool_call" => ToolCall(ToolCall),
        "tool_result" => ToolResult(ToolResult),
        /// A block of the model's turn that only its own API can read back: a server-side tool's
        /// call or result (Anthropic web search, code execution; Gemini code execution; an OpenAI
        /// Responses hosted-tool item), kept as the provider sent it.
        "native" => Native(Native),
    }
}

impl Item {
    /// The item's stable id (derived from the log, so it survives replays).
    pub fn id(&self) -> &str {
        match self {
            Item::User(m) => &m.id,
            Item::Assistant(m) => &m.id,
            Item::Reasoning(m) => &m.id,
            Item::ToolCall(m) => &m.id,
            Item::ToolResult(m) => &m.id,
            Item::Native(m) => &m.id,
        }
    }

    /// True for items produced by the model (they belong to an assistant turn).
    pub fn is_assistant_side(&self) -> bool {
        match self {
            Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => true,
            Item::User(_) | Item::ToolResult(_) => false,
        }
    }
}

/// A user-role message: what a person typed, or a synthetic message the harness injected.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub id: String,
    pub content: Vec<Part>,
    /// Set when the harness, not a person, wrote this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<SyntheticReason>,
}

/// Why the harness injected a user-role message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum SyntheticReason {
    SystemReminder,
    Interjection,
    SubagentCompletion,
    Compaction,
    /// The first-user prefix: the session's environment (see [`crate::prompt`]).
    Prefix,
    /// Asks the model to go on from an answer the output limit or a filter cut short.
    AutoContinue,
    /// Asks the model to go on from an answer a dropped connection or an error interrupted.
    AutoRecovery,
}

impl SyntheticReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SyntheticReason::SystemReminder => "system_reminder",
            SyntheticReason::Interjection => "interjection",
            SyntheticReason::SubagentCompletion => "subagent_completion",
            SyntheticReason::Compaction => "compaction",
            SyntheticReason::Prefix => "prefix",
            SyntheticReason::AutoContinue => "auto_continue",
            SyntheticReason::AutoRecovery => "auto_recovery",
        }
    }
}

/// Visible assistant text.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct AssistantText {
    pub id: String,
    pub text: SharedText,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// Gemini thought signature that came on this text's part (it may be the only thing on an
    /// otherwise empty part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Citations (Anthropic) or annotations (OpenAI Responses) the provider attached to the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Box<Annotations>>,
}

/// What a provider attached to a text besides its words, as it sent it: Anthropic's
/// `citations`, OpenAI's `annotations`, and the Responses output item the text came in. Goes
/// back only to the API that made it.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    pub list: Vec<serde_json::Value>,
    /// The Responses `msg_…` item the text came in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
}

/// A provider-native block of a model turn (see [`Item::Native`]).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Native {
    pub id: String,
    /// The API it came from (`anthropic`, `openai-responses`, `gemini`) and the model.
    pub origin: Origin,
    /// The block, part or item exactly as the provider sent it.
    pub value: serde_json::Map<String, serde_json::Value>,
}

/// Which provider and model produced an assistant-side item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub provider: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Model reasoning. Replayable natively only to the provider and model that made it.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Reasoning {
    pub id: String,
    /// Visible reasoning text (Anthropic thinking, an OpenAI summary, a Gemini thought): shared
    /// with the log's chunk it came from (when it came in one) and Anthropic's thinking block.
    #[serde(default)]
    pub text: SharedText,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// Anthropic thinking signature or Gemini thought signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// OpenAI encrypted reasoning content, or Anthropic redacted thinking data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<String>,
    /// The provider's own id for the reasoning item (OpenAI `rs_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// OpenAI Responses summary parts, when there were several (`text` joins them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Vec<String>>,
}

/// A tool invocation by the model.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Item id (unique in the conversation).
    pub id: String,
    /// The call id results refer to (usually the provider's id, e.g. `toolu_…`, `call_…`).
    pub call_id: String,
    pub name: String,
    /// Arguments as JSON (an object for function tools; a string for free-form tools).
    pub input: JsonText,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// Gemini thought signature attached to this call's part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// The outcome of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub id: String,
    pub call_id: String,
    pub content: Vec<Part>,
    #[serde(default)]
    pub is_error: bool,
    /// Set when a session let the content go because its view clears or trims it
    /// ([`Released`]): `content` then holds the trimmed text, or nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released: Option<Box<Released>>,
}

/// What the view needs of a tool result whose text a session let go — the view clears it (a
/// placeholder naming its length) or trims it (head and tail, which `content` keeps) — so a
/// session holds what its requests reach, not every output an agent ever read (nor the images
/// of the results it clears). A view that needs more than this (a policy that no longer prunes it, a
/// compaction that keeps it) reads its record back first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Released {
    /// The log record that set this content: what reads it back.
    pub seq: u64,
    /// Characters of the text.
    pub chars: u64,
    /// Bytes of the text.
    pub bytes: u64,
    /// The content's FNV-1a hash (its parts as JSON, images too): a read-back gives exactly
    /// this content or is refused.
    pub hash: u64,
    /// The item's estimated tokens in each token family, in [`crate::tokens::Family::ALL`]'s order.
    pub tokens: [u64; 3],
    /// The soft-trim settings (over, head, tail) `content` was trimmed with; `None` when it
    /// holds nothing (the view clears the result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trimmed: Option<[u64; 3]>,
    /// The content had images (pruning trims only text).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub images: bool,
}

/// Text shared, not copied, from the log's content block through the conversation item to the
/// payload. While only one holder has it, it grows in place (`Arc::make_mut`), so chunks of one
/// message merge in linear time.
pub type SharedText = std::sync::Arc<String>;

/// A JSON value held as its text, as `serde_json` writes a `Value` (compact, keys in the order a
/// `Value` keeps them): a tool call's input, shared — not copied — by the log's record, the
/// conversation's tool call and the payloads that carry it as it is, and written out verbatim
/// (the bytes the `Value` would give). As text a small object costs its length; as a `Value`, a
/// one-key object is a `BTreeMap` node of about 400 bytes in wasm memory.
#[derive(Clone)]
pub struct JsonText(std::sync::Arc<serde_json::value::RawValue>);

impl JsonText {
    pub fn new(value: &serde_json::Value) -> JsonText {
        // Writing a `Value` cannot fail (its keys are strings); were it to, `null`.
        JsonText(serde_json::value::to_raw_value(value).unwrap_or_default().into())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// The value, parsed anew.
    pub fn value(&self) -> serde_json::Value {
        serde_json::from_str(self.as_str()).unwrap_or(serde_json::Value::Null)
    }

    pub fn is_object(&self) -> bool {
        self.as_str().starts_with('{')
    }

    /// The string it is, when it is one.
    pub fn as_string(&self) -> Option<String> {
        self.as_str().starts_with('"').then(|| serde_json::from_str(self.as_str()).ok()).flatten()
    }

    /// Both are the same text, not copies of it.
    pub fn ptr_eq(a: &JsonText, b: &JsonText) -> bool {
        std::sync::Arc::ptr_eq(&a.0, &b.0)
    }
}

impl From<serde_json::Value> for JsonText {
    fn from(value: serde_json::Value) -> JsonText {
        JsonText::new(&value)
    }
}

impl PartialEq for JsonText {
    /// The same text (shared, most often: then without reading it).
    fn eq(&self, other: &JsonText) -> bool {
        JsonText::ptr_eq(self, other) || self.as_str() == other.as_str()
    }
}

impl std::fmt::Debug for JsonText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for JsonText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for JsonText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JsonText {
    /// Any JSON value, kept as its text.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_json::Value::deserialize(deserializer).map(|value| JsonText::new(&value))
    }
}

/// Content of a user message or a tool result (read by hand: `Part::read`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Shared, not copied, with the log's content block it came from and the payload it goes to.
    Text {
        text: SharedText,
    },
    Image(Image),
}

impl Part {
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text { text: SharedText::new(text.into()) }
    }

    /// Reads a part from its JSON value as a derived reader would (unknown keys ignored), in
    /// serde's words: one reader for every input, not serde's buffered content per input type.
    fn read(value: &serde_json::Value) -> Result<Part, serde_json::Error> {
        let map = value.as_object().ok_or_else(|| invalid(value, "internally tagged enum Part"))?;
        match tag(map, "type", &["text", "image"])? {
            "text" => Ok(Part::text(string(map, "text")?)),
            _ => Image::read(value).map(Part::Image),
        }
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Part::read(&serde_json::Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Image {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Image::read(&serde_json::Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

fn invalid(value: &serde_json::Value, expected: &'static str) -> serde_json::Error {
    serde::de::Error::invalid_type(crate::value_read::unexpected(value), &expected)
}

/// The tag at `key`, one of `variants`.
fn tag<'a>(map: &'a serde_json::Map<String, serde_json::Value>, key: &'static str, variants: &'static [&'static str]) -> Result<&'a str, serde_json::Error> {
    use serde::de::Error as _;
    match map.get(key) {
        None => Err(serde_json::Error::missing_field(key)),
        Some(serde_json::Value::String(s)) if variants.contains(&s.as_str()) => Ok(s),
        Some(serde_json::Value::String(s)) => Err(serde_json::Error::unknown_variant(s, variants)),
        Some(other) => Err(invalid(other, "variant identifier")),
    }
}

fn string(map: &serde_json::Map<String, serde_json::Value>, key: &'static str) -> Result<String, serde_json::Error> {
    use serde::de::Error as _;
    match map.get(key) {
        None => Err(serde_json::Error::missing_field(key)),
        Some(serde_json::Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(invalid(other, "a string")),
    }
}

/// An image, inline or by reference (read by hand: `Image::read`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum Image {
    /// Base64 bytes (standard alphabet, padded) and their media type.
    Base64 {
        #[serde(rename = "mediaType")]
        media_type: String,
        data: String,
    },
    Url {
        url: String,
    },
}

impl Image {
    /// Reads an image from its JSON value (see [`Part::read`]).
    fn read(value: &serde_json::Value) -> Result<Image, serde_json::Error> {
        let map = value.as_object().ok_or_else(|| invalid(value, "internally tagged enum Image"))?;
        Ok(match tag(map, "source", &["base64", "url"])? {
            "base64" => Image::Base64 { media_type: string(map, "mediaType")?, data: string(map, "data")? },
            _ => Image::Url { url: string(map, "url")? },
        })
    }

    /// `data:` URL form, as OpenAI accepts inline images.
    pub fn to_url(&self) -> String {
        match self {
            Image::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
            Image::Url { url } => url.clone(),
        }
    }
}

/// Concatenated text of parts (images are skipped).
/// The text of `parts`, shared rather than copied when it is one text part.
pub fn shared_text_of(parts: &[Part]) -> SharedText {
    match parts {
        [Part::Text { text }] => text.clone(),
        _ => SharedText::new(text_of(parts)),
    }
}

pub fn text_of(parts: &[Part]) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text { text } => out.push_str(text),
            Part::Image(_) => {}
        }
    }
    out
}

/// Where the response a usage anchor describes starts, in the items before the anchor: the
/// assistant's items at their end.
pub fn response_start(items_before_anchor: &[Item]) -> usize {
    items_before_anchor.iter().rposition(|i| !i.is_assistant_side()).map_or(0, |p| p + 1)
}

/// Text-only content of more than `over` characters, as its first `head` and last `tail`
/// characters with a marker between; `None` when it stays whole (shorter, not all text, or no
/// shorter once the marker is added).
pub fn soft_trimmed(content: &[Part], over: usize, head: usize, tail: usize) -> Option<String> {
    if !content.iter().all(|p| matches!(p, Part::Text { .. })) {
        return None;
    }
    let text = text_of(content);
    let chars = text.chars().count();
    (chars > over).then(|| soft_trim(&text, head, tail)).filter(|trimmed| trimmed.chars().count() < chars)
}

/// The first `head` and last `tail` characters with a marker saying how much is gone between.
pub fn soft_trim(text: &str, head: usize, tail: usize) -> String {
    let total = text.chars().count();
    if total <= head + tail {
        return text.to_owned();
    }
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    let tail_start = text.char_indices().nth(total - tail).map_or(text.len(), |(i, _)| i);
    format!("{}\n[… {} characters trimmed …]\n{}", &text[..head_end], total - head - tail, &text[tail_start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_images_read_back_what_they_write_and_refuse_in_serde_s_words() {
        use serde_json::json;
        let parts = [
            Part::text("hello"),
            Part::Image(Image::Base64 { media_type: "image/png".into(), data: "iVBORw0KGgo=".into() }),
            Part::Image(Image::Url { url: "https://example.com/a.png".into() }),
        ];
        for part in parts {
            let value = serde_json::to_value(&part).unwrap();
            assert_eq!(serde_json::from_value::<Part>(value.clone()).unwrap(), part, "{value}");
            let text = serde_json::to_string(&part).unwrap();
            assert_eq!(serde_json::from_str::<Part>(&text).unwrap(), part, "{text}");
        }
        let loose = json!({"type": "image", "source": "url", "url": "u", "detail": "high"});
        assert_eq!(serde_json::from_value::<Part>(loose).unwrap(), Part::Image(Image::Url { url: "u".into() }));
        let refused = |value: serde_json::Value| serde_json::from_value::<Part>(value).unwrap_err().to_string();
        assert_eq!(refused(json!({"type": "video"})), "unknown variant `video`, expected `text` or `image`");
        assert_eq!(refused(json!({"text": "x"})), "missing field `type`");
        assert_eq!(refused(json!({"type": "image", "source": "base64", "data": "d"})), "missing field `mediaType`");
        assert_eq!(refused(json!({"type": "image", "source": "file"})), "unknown variant `file`, expected `base64` or `url`");
        assert_eq!(refused(json!({"type": "text", "text": 1})), "invalid type: integer `1`, expected a string");
        assert_eq!(refused(json!({"type": 1})), "invalid type: integer `1`, expected variant identifier");
        assert_eq!(refused(json!([1])), "invalid type: sequence, expected internally tagged enum Part");
    }
    use pretty_assertions::assert_eq;
    use serde_json::{json, Value};

    #[test]
    fn json_text_writes_the_bytes_its_value_would() {
        let values = [
            json!({"path": "src/a.rs", "limit": 40, "nested": {"deep": [1, 2.5, -3, null, true]}}),
            json!({"text": "quote \" backslash \\ newline \n tab \t é 你好 🎉 \u{1}"}),
            json!("ls -la"),
            json!([]),
            json!(12345678901234567890u64),
            json!(null),
        ];
        for value in values {
            let text = JsonText::new(&value);
            assert_eq!(serde_json::to_string(&text).unwrap(), serde_json::to_string(&value).unwrap());
            assert_eq!(text.value(), value);
            // Inside another value, and through a JSON value (as a record's line is written).
            let wrapped = json!({"input": value.clone()});
            assert_eq!(serde_json::to_string(&serde_json::json!({"input": text.clone()})).unwrap(), serde_json::to_string(&wrapped).unwrap());
            assert_eq!(serde_json::to_value(&text).unwrap(), value);
        }
    }

    #[test]
    fn json_text_says_what_it_holds() {
        assert!(JsonText::new(&json!({"a": 1})).is_object());
        assert!(!JsonText::new(&json!(["a"])).is_object());
        assert_eq!(JsonText::new(&json!("a \"b\"")).as_string().as_deref(), Some("a \"b\""));
        assert_eq!(JsonText::new(&json!(3)).as_string(), None);
        // Read from any JSON value, kept as its text.
        let read: JsonText = serde_json::from_value(json!({"k": [1, {"x": "y"}]})).unwrap();
        assert_eq!(read.as_str(), r#"{"k":[1,{"x":"y"}]}"#);
        let read: JsonText = serde_json::from_str(r#" { "k" : 1 } "#).unwrap();
        assert_eq!((read.as_str(), read.value()), (r#"{"k":1}"#, Value::from(serde_json::Map::from_iter([("k".to_owned(), json!(1))]))));
        let copy = read.clone();
        assert!(JsonText::ptr_eq(&read, &copy) && read == JsonText::new(&json!({"k": 1})));
    }
}
