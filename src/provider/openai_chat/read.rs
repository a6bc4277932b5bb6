//! Chat Completions content — a text or parts — read by hand from a JSON value (a part that
//! does not read is reported in its own words, where serde's untagged reader would say only that
//! no variant matched); the messages and parts themselves are read by their generated readers.

use super::{ToolContent, UserContent, UserPart};
use crate::conversation::SharedText;
use crate::shape::{Body, Decl, Describe, Field, Ty};
use crate::value_read::{deserialize_by_hand, Read as _};
use serde::de::Error as _;
use serde_json::{Error, Value};

fn text_or_parts(value: &Value, name: &'static str) -> Result<Result<SharedText, Vec<UserPart>>, Error> {
    match value {
        Value::String(s) => Ok(Ok(SharedText::new(s.clone()))),
        Value::Array(items) => items.iter().map(|v| UserPart::read(v.clone())).collect::<Result<Vec<_>, _>>().map(Err),
        _ => Err(Error::custom(format_args!("data did not match any variant of untagged enum {name}"))),
    }
}

deserialize_by_hand!(UserContent, |v| text_or_parts(v, "UserContent").map(|r| r.map_or_else(UserContent::Parts, UserContent::Text)));
deserialize_by_hand!(ToolContent, |v| text_or_parts(v, "ToolContent").map(|r| r.map_or_else(ToolContent::Parts, ToolContent::Text)));

// Read by hand above, so described by hand here: a string, or parts.
impl Describe for UserContent {
    fn describe() -> Ty {
        Ty::Named("OpenAiChatUserContent", || Decl { name: "OpenAiChatUserContent", docs: &[], body: Body::OneOf(vec![Ty::String, Vec::<UserPart>::describe()]) })
    }
}

/// Only text parts (a tool's images go in the user message after it; any other part is a
/// violation).
impl Describe for ToolContent {
    fn describe() -> Ty {
        fn text_part() -> Decl {
            let fields = vec![
                Field { name: "type", docs: &[], ty: Ty::Strings(vec!["text"]), optional: false },
                Field { name: "text", docs: &[], ty: Ty::String, optional: false },
            ];
            Decl { name: "OpenAiChatTextPart", docs: &[], body: Body::Object { fields, rest: None } }
        }
        Ty::Named("OpenAiChatToolContent", || Decl {
            name: "OpenAiChatToolContent",
            docs: &[],
            body: Body::OneOf(vec![Ty::String, Ty::List(Box::new(Ty::Named("OpenAiChatTextPart", text_part)))]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FunctionCall, ImageUrl, Message, ToolCall, ToolContent, UserContent, UserPart};
    use serde_json::json;

    #[test]
    fn messages_read_back_what_they_write_and_refuse_in_serde_s_words() {
        let parts = vec![
            UserPart::Text { text: "look".to_owned().into() },
            UserPart::ImageUrl { image_url: ImageUrl { url: "data:image/png;base64,iVBO".into(), detail: Some("high".into()) } },
        ];
        let messages = vec![
            Message::System { content: "be brief".into() },
            Message::Developer { content: "be brief".into() },
            Message::User { content: UserContent::Text("hi".to_owned().into()) },
            Message::User { content: UserContent::Parts(parts) },
            Message::Assistant { content: None, tool_calls: Some(vec![ToolCall { id: "c1".into(), kind: "function".into(), function: FunctionCall { name: "read".into(), arguments: "{}".into() } }]) },
            Message::Assistant { content: Some("done".to_owned().into()), tool_calls: None },
            Message::Tool { tool_call_id: "c1".into(), content: ToolContent::Text("ok".to_owned().into()) },
            Message::Tool { tool_call_id: "c1".into(), content: ToolContent::Parts(vec![UserPart::Text { text: "ok".to_owned().into() }]) },
        ];
        for message in messages {
            let text = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<Message>(&text).unwrap(), message, "{text}");
        }
        let refused = |value: serde_json::Value| serde_json::from_value::<Message>(value).unwrap_err().to_string();
        assert_eq!(refused(json!({"role": "function", "content": "x"})), "unknown variant `function`, expected one of `system`, `developer`, `user`, `assistant`, `tool`");
        assert_eq!(refused(json!({"content": "x"})), "missing field `role`");
        assert_eq!(refused(json!({"role": "user"})), "missing field `content`");
        assert_eq!(refused(json!({"role": "user", "content": 3})), "data did not match any variant of untagged enum UserContent");
        assert_eq!(refused(json!({"role": "tool", "content": "x"})), "missing field `tool_call_id`");
        assert_eq!(refused(json!({"role": "user", "content": [{"type": "input_audio"}]})), "unknown variant `input_audio`, expected `text` or `image_url`");
        assert_eq!(refused(json!({"role": "assistant", "content": 1})), "invalid type: integer `1`, expected a string");
    }
}
