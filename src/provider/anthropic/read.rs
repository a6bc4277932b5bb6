//! Content blocks, a tool result's blocks and an image's source read by hand from a JSON value:
//! serde's internally tagged readers buffer the whole input, once per input type; these read the
//! value every input has (payloads checked by `validatePayload`, bodies read back).

use super::{Block, ImageSource, ResultBlock};
use crate::conversation::SharedText;
use crate::value_read::{deserialize_by_hand, invalid, object, required, string, tag};
use serde::de::Error as _;
use serde_json::{Error, Value};




fn image_source(value: &Value) -> Result<ImageSource, Error> {
    let map = object(value, "internally tagged enum ImageSource")?;
    Ok(match tag(map, "type", &["base64", "url"])? {
        "base64" => ImageSource::Base64 { media_type: string(map, "media_type")?, data: string(map, "data")? },
        _ => ImageSource::Url { url: string(map, "url")? },
    })
}

fn result_block(value: &Value) -> Result<ResultBlock, Error> {
    let map = object(value, "internally tagged enum ResultBlock")?;
    Ok(match tag(map, "type", &["text", "image"])? {
        "text" => ResultBlock::Text { text: SharedText::new(string(map, "text")?) },
        _ => ResultBlock::Image { source: image_source(required(map, "source")?)? },
    })
}

/// A block as serde's reader for `Block` takes it: one of the tagged kinds whole, else any other
/// object as it came (`Native`: a server tool's block, or a known kind it could not read).
fn block(value: &Value) -> Result<Block, Error> {
    match tagged_block(value) {
        Ok(block) => Ok(block),
        Err(_) => match value {
            Value::Object(map) => Ok(Block::Native(map.clone())),
            _ => Err(Error::custom("data did not match any variant of untagged enum Block")),
        },
    }
}

fn tagged_block(value: &Value) -> Result<Block, Error> {
    const KINDS: &[&str] = &["text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking"];
    let map = object(value, "internally tagged enum Block")?;
    let kind = tag(map, "type", KINDS)?;
    let cache_control = match map.get("cache_control") {
        None | Some(Value::Null) => None,
        Some(v) => Some(serde_json::from_value(v.clone())?),
    };
    Ok(match kind {
        "text" => Block::Text {
            text: SharedText::new(string(map, "text")?),
            citations: match map.get("citations") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(items.clone()),
                Some(v) => return Err(invalid(v, "a sequence")),
            },
            cache_control,
        },
        "image" => Block::Image { source: image_source(required(map, "source")?)?, cache_control },
        "tool_use" => Block::ToolUse {
            id: string(map, "id")?,
            name: string(map, "name")?,
            input: serde_json::from_value(required(map, "input")?.clone())?,
            cache_control,
        },
        "tool_result" => Block::ToolResult {
            tool_use_id: string(map, "tool_use_id")?,
            content: match required(map, "content")? {
                Value::Array(items) => items.iter().map(result_block).collect::<Result<_, _>>()?,
                v => return Err(invalid(v, "a sequence")),
            },
            is_error: match map.get("is_error") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(v) => return Err(invalid(v, "a boolean")),
            },
            cache_control,
        },
        "thinking" => Block::Thinking { thinking: SharedText::new(string(map, "thinking")?), signature: string(map, "signature")? },
        _ => Block::RedactedThinking { data: string(map, "data")? },
    })
}

deserialize_by_hand!(Block, block);
deserialize_by_hand!(ImageSource, image_source);
deserialize_by_hand!(ResultBlock, result_block);

#[cfg(test)]
mod tests {
    use super::super::{ImageSource, ResultBlock};
    use serde_json::json;

    #[test]
    fn blocks_read_as_serde_s_reader_read_them() {
        use super::super::{Block, CacheControl};
        let cache = Some(CacheControl { kind: "ephemeral".into(), ttl: None });
        let input: crate::provider::InputObject = serde_json::from_value(json!({"path": "a.rs"})).unwrap();
        for block in [
            Block::Text { text: "hi".to_owned().into(), citations: Some(vec![json!({"type": "web_search_result_location"})]), cache_control: cache.clone() },
            Block::Image { source: ImageSource::Url { url: "u".into() }, cache_control: None },
            Block::ToolUse { id: "t1".into(), name: "read".into(), input, cache_control: None },
            Block::ToolResult { tool_use_id: "t1".into(), content: vec![ResultBlock::Text { text: "ok".to_owned().into() }], is_error: true, cache_control: cache },
            Block::Thinking { thinking: "hmm".to_owned().into(), signature: "sig".into() },
            Block::RedactedThinking { data: "xyz".into() },
        ] {
            let text = serde_json::to_string(&block).unwrap();
            assert_eq!(serde_json::from_str::<Block>(&text).unwrap(), block, "{text}");
        }
        // Any object it cannot read as a known kind is kept as it came; anything else is refused.
        for kept in [
            json!({"type": "text"}),
            json!({"type": "text", "text": 5}),
            json!({"type": "web_search_tool_result", "x": 1}),
            json!({"text": "no type"}),
            json!({"type": "tool_result", "tool_use_id": "a", "content": [{"type": "document"}]}),
            json!({"type": "tool_result", "tool_use_id": "a", "content": [], "is_error": null}),
            json!({"type": "text", "text": "t", "cache_control": {"kind": 1}}),
        ] {
            let read = serde_json::from_value::<Block>(kept.clone()).unwrap();
            assert_eq!(read, Block::Native(kept.as_object().unwrap().clone()), "{kept}");
        }
        for refused in [json!([1]), json!("s"), json!(null)] {
            assert_eq!(serde_json::from_value::<Block>(refused).unwrap_err().to_string(), "data did not match any variant of untagged enum Block");
        }
    }

    #[test]
    fn result_blocks_read_back_what_they_write_and_refuse_in_serde_s_words() {
        for block in [
            ResultBlock::Text { text: "ok".to_owned().into() },
            ResultBlock::Image { source: ImageSource::Base64 { media_type: "image/png".into(), data: "iVBO".into() } },
            ResultBlock::Image { source: ImageSource::Url { url: "https://example.com/a.png".into() } },
        ] {
            let text = serde_json::to_string(&block).unwrap();
            assert_eq!(serde_json::from_str::<ResultBlock>(&text).unwrap(), block, "{text}");
        }
        let refused = |value: serde_json::Value| serde_json::from_value::<ResultBlock>(value).unwrap_err().to_string();
        assert_eq!(refused(json!({"type": "document"})), "unknown variant `document`, expected `text` or `image`");
        assert_eq!(refused(json!({"type": "image"})), "missing field `source`");
        assert_eq!(refused(json!({"type": "image", "source": {"type": "file"}})), "unknown variant `file`, expected `base64` or `url`");
        assert_eq!(refused(json!({"type": "image", "source": {"type": "base64", "data": "d"}})), "missing field `media_type`");
        assert_eq!(refused(json!({"text": "x"})), "missing field `type`");
    }
}
