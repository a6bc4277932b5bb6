//! A tool result's blocks and an image's source read by hand from a JSON value: serde's
//! internally tagged readers buffer the whole input, once per input type; these read the value
//! every input has (payloads checked by `validatePayload`, bodies read back).

use super::{ImageSource, ResultBlock};
use crate::conversation::SharedText;
use serde::de::Error as _;
use serde_json::{Error, Map, Value};

fn invalid(value: &Value, expected: &'static str) -> Error {
    Error::invalid_type(crate::tagged::unexpected(value), &expected)
}

fn string(map: &Map<String, Value>, key: &'static str) -> Result<String, Error> {
    match map.get(key) {
        None => Err(Error::missing_field(key)),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(invalid(v, "a string")),
    }
}

/// The object `value` is, and its `type`, one of `variants`.
fn tagged<'a>(value: &'a Value, what: &'static str, variants: &'static [&'static str]) -> Result<(&'a Map<String, Value>, &'a str), Error> {
    let map = value.as_object().ok_or_else(|| invalid(value, what))?;
    match map.get("type") {
        None => Err(Error::missing_field("type")),
        Some(Value::String(s)) if variants.contains(&s.as_str()) => Ok((map, s)),
        Some(Value::String(s)) => Err(Error::unknown_variant(s, variants)),
        Some(v) => Err(invalid(v, "variant identifier")),
    }
}

fn image_source(value: &Value) -> Result<ImageSource, Error> {
    Ok(match tagged(value, "internally tagged enum ImageSource", &["base64", "url"])? {
        (map, "base64") => ImageSource::Base64 { media_type: string(map, "media_type")?, data: string(map, "data")? },
        (map, _) => ImageSource::Url { url: string(map, "url")? },
    })
}

fn result_block(value: &Value) -> Result<ResultBlock, Error> {
    Ok(match tagged(value, "internally tagged enum ResultBlock", &["text", "image"])? {
        (map, "text") => ResultBlock::Text { text: SharedText::new(string(map, "text")?) },
        (map, _) => ResultBlock::Image { source: image_source(map.get("source").ok_or_else(|| Error::missing_field("source"))?)? },
    })
}

macro_rules! by_value {
    ($ty:ident, $read:expr) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
                $read(&value).map_err(D::Error::custom)
            }
        }
    };
}
by_value!(ImageSource, image_source);
by_value!(ResultBlock, result_block);

#[cfg(test)]
mod tests {
    use super::super::{ImageSource, ResultBlock};
    use serde_json::json;

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
