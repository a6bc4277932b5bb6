//! The Responses API's content — a text or parts — read by hand from a JSON value (a part that
//! does not read is reported in its own words, where serde's untagged reader would say only that
//! no variant matched); the input items and parts themselves are read by their generated readers.

use super::{ContentPart, MessageContent, Output};
use crate::conversation::SharedText;
use crate::shape::{Body, Decl, Describe, Ty};
use crate::value_read::{deserialize_by_hand, Read as _};
use serde::de::Error as _;
use serde_json::{Error, Value};

fn text_or_parts(value: &Value, name: &'static str) -> Result<Result<SharedText, Vec<ContentPart>>, Error> {
    match value {
        Value::String(s) => Ok(Ok(SharedText::new(s.clone()))),
        Value::Array(items) => items.iter().map(|v| ContentPart::read(v.clone())).collect::<Result<Vec<_>, _>>().map(Err),
        _ => Err(Error::custom(format_args!("data did not match any variant of untagged enum {name}"))),
    }
}

deserialize_by_hand!(MessageContent, |v| text_or_parts(v, "MessageContent").map(|r| r.map_or_else(MessageContent::Parts, MessageContent::Text)));
deserialize_by_hand!(Output, |v| text_or_parts(v, "Output").map(|r| r.map_or_else(Output::Parts, Output::Text)));

// Read by hand above, so described by hand here: a string, or the parts a message in (and a
// tool's output) may hold — the input ones; the model's output text goes back as its own item.
impl Describe for MessageContent {
    fn describe() -> Ty {
        Ty::Named("OpenAiResponsesMessageContent", || Decl { name: "OpenAiResponsesMessageContent", docs: &[], body: text_or_input_parts() })
    }
}

impl Describe for Output {
    fn describe() -> Ty {
        Ty::Named("OpenAiResponsesOutput", || Decl { name: "OpenAiResponsesOutput", docs: &[], body: text_or_input_parts() })
    }
}

fn text_or_input_parts() -> Body {
    Body::OneOf(vec![Ty::String, Ty::List(Box::new(Ty::Named("OpenAiResponsesInputPart", input_part)))])
}

/// [`ContentPart`]'s input variants (`input_text`, `input_image`).
fn input_part() -> Decl {
    let Ty::Named(_, part) = ContentPart::describe() else { unreachable!("a described enum") };
    let mut decl = part();
    if let Body::Tagged { variants, .. } = &mut decl.body {
        variants.retain(|(tag, _)| tag.starts_with("input_"));
    }
    Decl { name: "OpenAiResponsesInputPart", ..decl }
}

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
