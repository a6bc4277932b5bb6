//! The Responses API's content — text or parts — read by hand from a JSON value: serde's
//! untagged and internally tagged readers buffer the whole input, once per input type; these
//! read the value every input has (payloads checked by `validatePayload`, bodies read back).

use super::{ContentPart, InputItem, MessageContent, Output};
use crate::conversation::SharedText;
use serde::de::Error as _;
use serde_json::{Error, Value};

fn text_or_parts(value: &Value, name: &'static str) -> Result<Result<SharedText, Vec<ContentPart>>, Error> {
    match value {
        Value::String(s) => Ok(Ok(SharedText::new(s.clone()))),
        Value::Array(items) => items.iter().map(part).collect::<Result<Vec<_>, _>>().map(Err),
        _ => Err(Error::custom(format_args!("data did not match any variant of untagged enum {name}"))),
    }
}

fn part(value: &Value) -> Result<ContentPart, Error> {
    const VARIANTS: &[&str] = &["input_text", "input_image", "output_text"];
    let map = value.as_object().ok_or_else(|| Error::invalid_type(crate::tagged::unexpected(value), &"internally tagged enum ContentPart"))?;
    let string = |key: &'static str| match map.get(key) {
        None => Err(Error::missing_field(key)),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(Error::invalid_type(crate::tagged::unexpected(v), &"a string")),
    };
    let optional = |key: &'static str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(Error::invalid_type(crate::tagged::unexpected(v), &"a string")),
    };
    match map.get("type") {
        None => Err(Error::missing_field("type")),
        Some(Value::String(tag)) => match tag.as_str() {
            "input_text" => Ok(ContentPart::InputText { text: SharedText::new(string("text")?) }),
            "input_image" => Ok(ContentPart::InputImage { image_url: optional("image_url")?, file_id: optional("file_id")?, detail: string("detail")? }),
            "output_text" => Ok(ContentPart::OutputText {
                text: SharedText::new(string("text")?),
                annotations: match map.get("annotations") {
                    None | Some(Value::Null) => None,
                    Some(Value::Array(items)) => Some(items.clone()),
                    Some(v) => return Err(Error::invalid_type(crate::tagged::unexpected(v), &"a sequence")),
                },
            }),
            other => Err(Error::unknown_variant(other, VARIANTS)),
        },
        Some(v) => Err(Error::invalid_type(crate::tagged::unexpected(v), &"variant identifier")),
    }
}

/// An input item as serde's reader for `InputItem` takes it: one of the tagged kinds whole, else
/// any other object as it came (`Native`: a hosted tool's item, or a known kind it could not read).
fn input_item(value: &Value) -> Result<InputItem, Error> {
    match tagged_item(value) {
        Ok(item) => Ok(item),
        Err(_) => match value {
            Value::Object(map) => Ok(InputItem::Native(map.clone())),
            _ => Err(Error::custom("data did not match any variant of untagged enum InputItem")),
        },
    }
}

fn tagged_item(value: &Value) -> Result<InputItem, Error> {
    const KINDS: &[&str] = &["message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "reasoning"];
    let map = value.as_object().ok_or_else(|| Error::invalid_type(crate::tagged::unexpected(value), &"internally tagged enum InputItem"))?;
    let kind = match map.get("type") {
        Some(Value::String(s)) if KINDS.contains(&s.as_str()) => s.as_str(),
        Some(Value::String(s)) => return Err(Error::unknown_variant(s, KINDS)),
        Some(v) => return Err(Error::invalid_type(crate::tagged::unexpected(v), &"variant identifier")),
        None => return Err(Error::missing_field("type")),
    };
    let string = |key: &'static str| match map.get(key) {
        None => Err(Error::missing_field(key)),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(Error::invalid_type(crate::tagged::unexpected(v), &"a string")),
    };
    let optional = |key: &'static str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(Error::invalid_type(crate::tagged::unexpected(v), &"a string")),
    };
    let required = |key: &'static str| map.get(key).ok_or_else(|| Error::missing_field(key));
    let output = || text_or_parts(required("output")?, "Output").map(|r| r.map_or_else(Output::Parts, Output::Text));
    Ok(match kind {
        "message" => InputItem::Message {
            id: optional("id")?,
            role: serde_json::from_value(required("role")?.clone())?,
            content: text_or_parts(required("content")?, "MessageContent")?.map_or_else(MessageContent::Parts, MessageContent::Text),
            status: optional("status")?,
        },
        "function_call" => InputItem::FunctionCall { call_id: string("call_id")?, name: string("name")?, arguments: string("arguments")? },
        "function_call_output" => InputItem::FunctionCallOutput { call_id: string("call_id")?, output: output()? },
        "custom_tool_call" => InputItem::CustomToolCall { call_id: string("call_id")?, name: string("name")?, input: string("input")? },
        "custom_tool_call_output" => InputItem::CustomToolCallOutput { call_id: string("call_id")?, output: output()? },
        _ => InputItem::Reasoning {
            id: optional("id")?,
            summary: serde_json::from_value(required("summary")?.clone())?,
            encrypted_content: optional("encrypted_content")?,
        },
    })
}

macro_rules! by_value {
    ($ty:ident, $read:expr) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
                let read: fn(&Value) -> Result<$ty, Error> = $read;
                read(&value).map_err(D::Error::custom)
            }
        }
    };
}
by_value!(InputItem, input_item);
by_value!(ContentPart, part);
by_value!(MessageContent, |v| text_or_parts(v, "MessageContent").map(|r| r.map_or_else(MessageContent::Parts, MessageContent::Text)));
by_value!(Output, |v| text_or_parts(v, "Output").map(|r| r.map_or_else(Output::Parts, Output::Text)));

#[cfg(test)]
mod tests {
    use super::super::{ContentPart, InputItem, MessageContent, Output};
    use serde_json::json;

    #[test]
    fn content_reads_back_what_it_writes_and_refuses_in_serde_s_words() {
        let parts = vec![
            ContentPart::InputText { text: "hi".to_owned().into() },
            ContentPart::InputImage { image_url: Some("data:image/png;base64,iVBO".into()), file_id: None, detail: "auto".into() },
            ContentPart::OutputText { text: "cited".to_owned().into(), annotations: Some(vec![json!({"type": "url_citation", "url": "u"})]) },
            ContentPart::OutputText { text: "plain".to_owned().into(), annotations: None },
        ];
        let items = vec![
            InputItem::Message { id: None, role: super::super::MessageRole::User, content: MessageContent::Text("hello".to_owned().into()), status: None },
            InputItem::Message { id: Some("msg_1".into()), role: super::super::MessageRole::Assistant, content: MessageContent::Parts(parts.clone()), status: Some("completed".into()) },
            InputItem::FunctionCallOutput { call_id: "c1".into(), output: Output::Text("done".to_owned().into()) },
            InputItem::FunctionCallOutput { call_id: "c2".into(), output: Output::Parts(parts) },
            InputItem::FunctionCall { call_id: "c3".into(), name: "read".into(), arguments: "{}".into() },
            InputItem::CustomToolCall { call_id: "c4".into(), name: "apply_patch".into(), input: "*** Begin Patch".into() },
            InputItem::CustomToolCallOutput { call_id: "c4".into(), output: Output::Text("applied".to_owned().into()) },
            InputItem::Reasoning {
                id: Some("rs_1".into()),
                summary: vec![super::super::SummaryText { kind: "summary_text".into(), text: "thought".into() }],
                encrypted_content: Some("gAAA".into()),
            },
            InputItem::Reasoning { id: None, summary: vec![], encrypted_content: None },
        ];
        for item in items {
            let text = serde_json::to_string(&item).unwrap();
            assert_eq!(serde_json::from_str::<InputItem>(&text).unwrap(), item, "{text}");
        }
        // Any object it cannot read as a known kind is kept as it came; anything else is refused.
        for kept in [
            json!({"type": "web_search_call", "id": "ws_1", "status": "completed"}),
            json!({"type": "message", "role": "user"}),
            json!({"type": "message", "role": "robot", "content": "x"}),
            json!({"type": "function_call", "call_id": "c", "name": "n", "arguments": {}}),
            json!({"type": "reasoning", "summary": "not a list"}),
            json!({"call_id": "c"}),
        ] {
            assert_eq!(serde_json::from_value::<InputItem>(kept.clone()).unwrap(), InputItem::Native(kept.as_object().unwrap().clone()), "{kept}");
        }
        for refused in [json!([1]), json!("s"), json!(null)] {
            assert_eq!(serde_json::from_value::<InputItem>(refused).unwrap_err().to_string(), "data did not match any variant of untagged enum InputItem");
        }
        let refused = |value: serde_json::Value| serde_json::from_value::<MessageContent>(value).unwrap_err().to_string();
        assert_eq!(refused(json!(3)), "data did not match any variant of untagged enum MessageContent");
        assert_eq!(refused(json!([{"type": "input_audio"}])), "unknown variant `input_audio`, expected one of `input_text`, `input_image`, `output_text`");
        assert_eq!(refused(json!([{"type": "input_image"}])), "missing field `detail`");
        assert_eq!(refused(json!([{"text": "x"}])), "missing field `type`");
        assert_eq!(serde_json::from_value::<Output>(json!({"a": 1})).unwrap_err().to_string(), "data did not match any variant of untagged enum Output");
    }
}
