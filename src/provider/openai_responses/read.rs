//! The Responses API's content — text or parts — read by hand from a JSON value: serde's
//! untagged and internally tagged readers buffer the whole input, once per input type; these
//! read the value every input has (payloads checked by `validatePayload`, bodies read back).

use super::{ContentPart, MessageContent, Output};
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
        ];
        for item in items {
            let text = serde_json::to_string(&item).unwrap();
            assert_eq!(serde_json::from_str::<InputItem>(&text).unwrap(), item, "{text}");
        }
        let refused = |value: serde_json::Value| serde_json::from_value::<MessageContent>(value).unwrap_err().to_string();
        assert_eq!(refused(json!(3)), "data did not match any variant of untagged enum MessageContent");
        assert_eq!(refused(json!([{"type": "input_audio"}])), "unknown variant `input_audio`, expected one of `input_text`, `input_image`, `output_text`");
        assert_eq!(refused(json!([{"type": "input_image"}])), "missing field `detail`");
        assert_eq!(refused(json!([{"text": "x"}])), "missing field `type`");
        assert_eq!(serde_json::from_value::<Output>(json!({"a": 1})).unwrap_err().to_string(), "data did not match any variant of untagged enum Output");
    }
}
