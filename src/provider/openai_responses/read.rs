//! The Responses API's content — text or parts — read by hand from a JSON value: serde's
//! untagged and internally tagged readers buffer the whole input, once per input type; these
//! read the value every input has (payloads checked by `validatePayload`, bodies read back).

use super::{ContentPart, InputItem, MessageContent, Output};
use crate::conversation::SharedText;
use crate::value_read::{deserialize_by_hand, invalid, object, opt_string, required, string, tag};
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
    let map = object(value, "internally tagged enum ContentPart")?;
    Ok(match tag(map, "type", &["input_text", "input_image", "output_text"])? {
        "input_text" => ContentPart::InputText { text: SharedText::new(string(map, "text")?) },
        "input_image" => ContentPart::InputImage { image_url: opt_string(map, "image_url")?, file_id: opt_string(map, "file_id")?, detail: string(map, "detail")? },
        _ => ContentPart::OutputText {
            text: SharedText::new(string(map, "text")?),
            annotations: match map.get("annotations") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(items.clone()),
                Some(v) => return Err(invalid(v, "a sequence")),
            },
        },
    })
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
    let map = object(value, "internally tagged enum InputItem")?;
    let kind = tag(map, "type", KINDS)?;
    let string = |key| string(map, key);
    let optional = |key| opt_string(map, key);
    let required = |key| required(map, key);
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

deserialize_by_hand!(InputItem, input_item);
deserialize_by_hand!(ContentPart, part);
deserialize_by_hand!(MessageContent, |v| text_or_parts(v, "MessageContent").map(|r| r.map_or_else(MessageContent::Parts, MessageContent::Text)));
deserialize_by_hand!(Output, |v| text_or_parts(v, "Output").map(|r| r.map_or_else(Output::Parts, Output::Text)));

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
