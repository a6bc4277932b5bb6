//! The ACP v1 `SessionUpdate` subset we interpret, as serde types that read and write the
//! official JSON shape (camelCase fields, snake_case enum values, `_meta` on every object).
//!
//! Variants we do not interpret (`available_commands_update`, `usage_update`, …) are kept as
//! verbatim JSON by [`AcpUpdate::Other`], so a log written by any ACP agent round-trips.
//! Provider facts ACP has no field for ride in `_meta.contextview` (see [`ProviderMeta`]).

use contextview_derive::ReadValue;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::value_read as read;

/// The key under `_meta` where our provider facts live.
pub const META_KEY: &str = "contextview";

/// A `session/update` payload: typed when we interpret it, verbatim otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AcpUpdate {
    Known(SessionUpdate),
    Other(Value),
}

impl AcpUpdate {
    /// The `sessionUpdate` discriminator.
    pub fn kind(&self) -> &str {
        match self {
            AcpUpdate::Known(u) => u.kind(),
            AcpUpdate::Other(v) => v.get("sessionUpdate").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

crate::tagged::newtype_enum! {
    #[serde(tag = "sessionUpdate")]
    /// The stable ACP v1 updates that carry conversation content.
    #[derive(Debug, Clone, PartialEq)]
    pub enum SessionUpdate {
        "user_message_chunk" => UserMessageChunk(ContentChunk),
        "agent_message_chunk" => AgentMessageChunk(ContentChunk),
        "agent_thought_chunk" => AgentThoughtChunk(ContentChunk),
        "tool_call" => ToolCall(ToolCallStart),
        "tool_call_update" => ToolCallUpdate(ToolCallPatch),
        "plan" => Plan(Plan),
    }
}

impl SessionUpdate {
    /// The chunk and its stream, for the three message-chunk variants.
    pub fn chunk(&self) -> Option<(Stream, &ContentChunk)> {
        match self {
            SessionUpdate::UserMessageChunk(c) => Some((Stream::User, c)),
            SessionUpdate::AgentMessageChunk(c) => Some((Stream::Agent, c)),
            SessionUpdate::AgentThoughtChunk(c) => Some((Stream::Thought, c)),
            SessionUpdate::ToolCall(_) | SessionUpdate::ToolCallUpdate(_) | SessionUpdate::Plan(_) => None,
        }
    }
}

/// Which message stream a content chunk belongs to: chunks of one stream and message id merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    User,
    Agent,
    Thought,
}

/// Names of the variants [`SessionUpdate`] types; an object with one of these tags that fails to
/// parse as typed is malformed, not merely unknown.
pub const TYPED_KINDS: [&str; 6] =
    ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"];

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ContentChunk {
    pub content: ContentBlock,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// ACP `ContentBlock`, discriminated by `type` (read by hand: `ContentBlock::read`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        /// Shared with the conversation item (and the payload) made from it.
        text: crate::conversation::SharedText,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Value>,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uri: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Value>,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Value>,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    ResourceLink {
        uri: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Value>,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    Resource {
        resource: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Value>,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: crate::conversation::SharedText::new(text.into()), annotations: None, meta: None }
    }

    /// Reads a block from its JSON value, as a derived reader would (unknown keys ignored), with
    /// serde's error words; one reader for every input instead of serde's buffered content per
    /// input type.
    fn read(value: &Value) -> Result<ContentBlock, read::Error> {
        const VARIANTS: &[&str] = &["text", "image", "audio", "resource_link", "resource"];
        let map = read::object(value, "internally tagged enum ContentBlock")?;
        let tag = read::tag(map, "type", VARIANTS)?;
        let annotations = any(map, "annotations");
        let meta = any(map, "_meta");
        Ok(match tag {
            "text" => ContentBlock::Text { text: crate::conversation::SharedText::new(read::string(map, "text")?), annotations, meta },
            "image" => ContentBlock::Image {
                data: read::string(map, "data")?,
                mime_type: read::string(map, "mimeType")?,
                uri: read::opt_string(map, "uri")?,
                annotations,
                meta,
            },
            "audio" => ContentBlock::Audio { data: read::string(map, "data")?, mime_type: read::string(map, "mimeType")?, annotations, meta },
            "resource_link" => ContentBlock::ResourceLink {
                uri: read::string(map, "uri")?,
                name: read::string(map, "name")?,
                title: read::opt_string(map, "title")?,
                description: read::opt_string(map, "description")?,
                mime_type: read::opt_string(map, "mimeType")?,
                size: read::opt_u64(map, "size")?,
                annotations,
                meta,
            },
            _ => ContentBlock::Resource { resource: read::required(map, "resource")?.clone(), annotations, meta },
        })
    }
}

/// An optional field of any JSON (absent or null: none).
fn any(map: &serde_json::Map<String, Value>, key: &str) -> Option<Value> {
    map.get(key).filter(|v| !v.is_null()).cloned()
}

read::deserialize_by_hand!(ContentBlock);
read::deserialize_by_hand!(ToolCallContent);

impl ToolCallContent {
    /// Reads a tool call's content from its JSON value (see [`ContentBlock::read`]).
    fn read(value: &Value) -> Result<ToolCallContent, read::Error> {
        const VARIANTS: &[&str] = &["content", "diff", "terminal"];
        let map = read::object(value, "internally tagged enum ToolCallContent")?;
        let tag = read::tag(map, "type", VARIANTS)?;
        let meta = any(map, "_meta");
        Ok(match tag {
            "content" => ToolCallContent::Content { content: ContentBlock::read(read::required(map, "content")?)?, meta },
            "diff" => ToolCallContent::Diff {
                path: read::string(map, "path")?,
                old_text: read::opt_string(map, "oldText")?,
                new_text: read::string(map, "newText")?,
                meta,
            },
            _ => ToolCallContent::Terminal { terminal_id: read::string(map, "terminalId")?, meta },
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

impl ToolCallStatus {
    pub fn is_terminal(self) -> bool {
        match self {
            ToolCallStatus::Completed | ToolCallStatus::Failed => true,
            ToolCallStatus::Pending | ToolCallStatus::InProgress => false,
        }
    }
}

/// ACP `ToolCallContent`, discriminated by `type` (read by hand: `ToolCallContent::read`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolCallContent {
    Content {
        content: ContentBlock,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    Diff {
        path: String,
        #[serde(default, rename = "oldText", skip_serializing_if = "Option::is_none")]
        old_text: Option<String>,
        #[serde(rename = "newText")]
        new_text: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
    Terminal {
        #[serde(rename = "terminalId")]
        terminal_id: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Value>,
    },
}

/// ACP `tool_call`: a new tool call.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallStart {
    pub tool_call_id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolCallStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ToolCallContent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<crate::conversation::JsonText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// ACP `tool_call_update`: fields given replace the call's fields (arrays replace whole).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallPatch {
    pub tool_call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolCallStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ToolCallContent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<crate::conversation::JsonText>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
pub struct PlanEntry {
    pub content: String,
    pub priority: PlanPriority,
    pub status: PlanStatus,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum PlanPriority {
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

/// Provider facts carried in `_meta.contextview` of an update. All optional; unknown keys in
/// `_meta` (ours or anyone's) are left alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ProviderMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tool name as the model called it (ACP only has a human title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The provider's own call id, when it differs from `toolCallId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_call_id: Option<String>,
    /// Anthropic thinking signature / Gemini thought signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// OpenAI encrypted reasoning / Anthropic redacted thinking data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<String>,
    /// Provider id of a reasoning item (OpenAI `rs_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Marks a harness-written user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<crate::conversation::SyntheticReason>,
    /// The provider's id of the output item this came in (OpenAI Responses `msg_…`, `fc_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    /// Citations or annotations the provider attached to a text, as it sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The text is the model's refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<bool>,
    /// OpenAI Responses reasoning summary parts, when there were several (the text joins them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Vec<String>>,
    /// A provider-native block (a server tool's call or result) exactly as the provider sent it;
    /// replay makes it an [`crate::conversation::Item::Native`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<serde_json::Map<String, Value>>,
}

impl ProviderMeta {
    /// Reads `_meta.contextview`; a malformed value reads as empty (the record is still kept).
    pub fn from_meta(meta: Option<&Value>) -> ProviderMeta {
        meta.and_then(|m| m.get(META_KEY))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    /// `_meta` object holding these facts, or `None` when there are none.
    pub fn to_meta(&self) -> Option<Value> {
        if *self == ProviderMeta::default() {
            return None;
        }
        let mut map = serde_json::Map::new();
        map.insert(META_KEY.to_owned(), serde_json::to_value(self).unwrap_or(Value::Null));
        Some(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn every_block_and_tool_content_reads_back_what_it_writes() {
        let meta = Some(json!({"k": 1}));
        let blocks = vec![
            ContentBlock::text("hi"),
            ContentBlock::Text { text: "t".to_owned().into(), annotations: Some(json!({"audience": ["user"]})), meta: meta.clone() },
            ContentBlock::Image { data: "iVBO".into(), mime_type: "image/png".into(), uri: Some("file:///a.png".into()), annotations: None, meta: None },
            ContentBlock::Audio { data: "UklG".into(), mime_type: "audio/wav".into(), annotations: None, meta: meta.clone() },
            ContentBlock::ResourceLink {
                uri: "file:///a.rs".into(),
                name: "a.rs".into(),
                title: Some("A".into()),
                description: None,
                mime_type: Some("text/x-rust".into()),
                size: Some(42),
                annotations: None,
                meta: None,
            },
            ContentBlock::Resource { resource: json!({"uri": "file:///b", "text": "b"}), annotations: None, meta: None },
        ];
        for block in &blocks {
            let value = serde_json::to_value(block).unwrap();
            assert_eq!(&read::<ContentBlock>(value.clone()).unwrap(), block, "{value}");
            let content = ToolCallContent::Content { content: block.clone(), meta: meta.clone() };
            assert_eq!(read::<ToolCallContent>(serde_json::to_value(&content).unwrap()).unwrap(), content);
        }
        for content in [
            ToolCallContent::Diff { path: "a.rs".into(), old_text: None, new_text: "x".into(), meta: None },
            ToolCallContent::Diff { path: "a.rs".into(), old_text: Some("w".into()), new_text: "x".into(), meta: meta.clone() },
            ToolCallContent::Terminal { terminal_id: "t1".into(), meta: None },
        ] {
            assert_eq!(read::<ToolCallContent>(serde_json::to_value(&content).unwrap()).unwrap(), content);
        }
        // Nulls are absent, unknown keys are ignored (as ACP's own readers do).
        let loose = json!({"type": "image", "data": "d", "mimeType": "image/png", "uri": null, "_meta": null, "extra": true});
        assert_eq!(read::<ContentBlock>(loose).unwrap(), ContentBlock::Image { data: "d".into(), mime_type: "image/png".into(), uri: None, annotations: None, meta: None });
    }

    #[test]
    fn a_bad_block_is_refused_in_serde_s_words() {
        let cases = [
            (json!({"type": "video", "data": "d"}), "unknown variant `video`, expected one of `text`, `image`, `audio`, `resource_link`, `resource`"),
            (json!({"text": "no tag"}), "missing field `type`"),
            (json!({"type": "image", "data": "d"}), "missing field `mimeType`"),
            (json!({"type": "text", "text": 3}), "invalid type: integer `3`, expected a string"),
            (json!({"type": "resource"}), "missing field `resource`"),
            (json!("text"), "invalid type: string \"text\", expected internally tagged enum ContentBlock"),
        ];
        for (value, words) in cases {
            assert_eq!(read::<ContentBlock>(value.clone()).unwrap_err(), words, "{value}");
        }
        assert_eq!(read::<ToolCallContent>(json!({"type": "diff", "path": "a"})).unwrap_err(), "missing field `newText`");
        assert_eq!(read::<ToolCallContent>(json!({"type": "content"})).unwrap_err(), "missing field `content`");
        assert_eq!(
            read::<ToolCallContent>(json!({"type": "file"})).unwrap_err(),
            "unknown variant `file`, expected one of `content`, `diff`, `terminal`"
        );
    }
}
