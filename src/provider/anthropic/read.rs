//! The content blocks' readers (generated from their declarations, `#[derive(ReadValue)]`)
//! against what serde's derived readers took and refused: a block read back is the block
//! written, and a wrong one is refused in serde's words (or kept whole as a native block).

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
