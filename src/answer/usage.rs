//! Usage, normalised once. Each API counts differently; the usage anchor counts one way:
//! `inputTokens` is the prompt neither read from nor written to a cache, and the anchor's total
//! (`input + cacheRead + cacheWrite + output`) is the context after the answer as the provider
//! counted it — the whole prompt plus what the model wrote.
//!
//! | API | input | cache read | cache write | output | reasoning (within output) |
//! |---|---|---|---|---|---|
//! | Anthropic Messages | `input_tokens` (already excludes the cache) | `cache_read_input_tokens` | `cache_creation_input_tokens` | `output_tokens` (thinking included) | — |
//! | OpenAI Chat | `prompt_tokens` − cached − cache write | `prompt_tokens_details.cached_tokens` | `prompt_tokens_details.cache_write_tokens` | `completion_tokens` (reasoning included) | `completion_tokens_details.reasoning_tokens` |
//! | OpenAI Responses | `input_tokens` − cached − cache write | `input_tokens_details.cached_tokens` | `input_tokens_details.cache_write_tokens` | `output_tokens` (reasoning included) | `output_tokens_details.reasoning_tokens` |
//! | Gemini | `promptTokenCount` − cached + `toolUsePromptTokenCount` | `cachedContentTokenCount` | — | `candidatesTokenCount` + `thoughtsTokenCount` | `thoughtsTokenCount` |
//!
//! So the anchor's total is Anthropic's three input counts plus output, OpenAI's prompt (or
//! input) plus completion (or output) tokens, and Gemini's `totalTokenCount`. In a stream the
//! last report wins: Anthropic's `message_delta` usage is cumulative and overrides
//! `message_start`'s, Gemini repeats a growing count on every chunk, and OpenAI sends its usage
//! once at the end.

use serde_json::Value;

use crate::provider::Provider;
use crate::update::record::UsageAnchor;

fn count(usage: &Value, pointer: &str) -> Option<u64> {
    usage.pointer(pointer).and_then(Value::as_u64)
}

/// The anchor for a provider's usage object; `None` when it holds no count at all.
pub fn normalise(provider: Provider, usage: &Value, model: Option<&str>) -> Option<UsageAnchor> {
    let n = |pointer: &str| count(usage, pointer).unwrap_or(0);
    let any = |pointers: &[&str]| pointers.iter().any(|p| count(usage, p).is_some());
    let anchor = |input: u64, cache_read: u64, cache_write: u64, output: u64, reasoning: Option<u64>| UsageAnchor {
        provider: Some(provider.as_str().to_owned()),
        model: model.map(str::to_owned),
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: cache_read,
        cache_write_tokens: cache_write,
        reasoning_tokens: reasoning,
        omitted_tokens: None,
        head_tokens: None,
        counted: None,
    };
    match provider {
        Provider::Anthropic => any(&["/input_tokens", "/output_tokens"]).then(|| {
            anchor(n("/input_tokens"), n("/cache_read_input_tokens"), n("/cache_creation_input_tokens"), n("/output_tokens"), None)
        }),
        Provider::OpenAiChat => any(&["/prompt_tokens", "/completion_tokens"]).then(|| {
            let (read, write) = (n("/prompt_tokens_details/cached_tokens"), n("/prompt_tokens_details/cache_write_tokens"));
            let input = n("/prompt_tokens").saturating_sub(read).saturating_sub(write);
            anchor(input, read, write, n("/completion_tokens"), count(usage, "/completion_tokens_details/reasoning_tokens"))
        }),
        Provider::OpenAiResponses => any(&["/input_tokens", "/output_tokens"]).then(|| {
            let (read, write) = (n("/input_tokens_details/cached_tokens"), n("/input_tokens_details/cache_write_tokens"));
            let input = n("/input_tokens").saturating_sub(read).saturating_sub(write);
            anchor(input, read, write, n("/output_tokens"), count(usage, "/output_tokens_details/reasoning_tokens"))
        }),
        Provider::Gemini => any(&["/promptTokenCount", "/candidatesTokenCount", "/thoughtsTokenCount"]).then(|| {
            let read = n("/cachedContentTokenCount");
            let input = n("/promptTokenCount").saturating_sub(read) + n("/toolUsePromptTokenCount");
            let thoughts = count(usage, "/thoughtsTokenCount");
            anchor(input, read, 0, n("/candidatesTokenCount") + thoughts.unwrap_or(0), thoughts)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each API's own total, computed by hand from its documented rule, is the anchor's total.
    #[test]
    fn the_anchor_total_is_each_apis_own_total() {
        let cases = [
            // 12 fresh + 100 written + 2000 read + 50 out.
            (Provider::Anthropic, json!({"input_tokens": 12, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2000, "output_tokens": 50}), 2162),
            // prompt 1500 (1024 of them cached) + completion 300 (200 of them reasoning).
            (Provider::OpenAiChat, json!({"prompt_tokens": 1500, "completion_tokens": 300, "total_tokens": 1800, "prompt_tokens_details": {"cached_tokens": 1024}, "completion_tokens_details": {"reasoning_tokens": 200}}), 1800),
            (Provider::OpenAiResponses, json!({"input_tokens": 31073, "input_tokens_details": {"cached_tokens": 3712}, "output_tokens": 4416, "output_tokens_details": {"reasoning_tokens": 3712}, "total_tokens": 35489}), 35489),
            // prompt 1844 (901 cached) + candidates 432 + thoughts 1934 + tool-use prompt 91.
            (Provider::Gemini, json!({"promptTokenCount": 1844, "cachedContentTokenCount": 901, "candidatesTokenCount": 432, "thoughtsTokenCount": 1934, "toolUsePromptTokenCount": 91, "totalTokenCount": 4301}), 4301),
        ];
        for (provider, usage, total) in cases {
            let anchor = normalise(provider, &usage, Some("m")).unwrap();
            assert_eq!(anchor.total(), total, "{provider}");
        }
    }

    #[test]
    fn counts_split_as_the_table_says() {
        let a = normalise(Provider::OpenAiChat, &json!({"prompt_tokens": 1500, "completion_tokens": 300, "prompt_tokens_details": {"cached_tokens": 1024}, "completion_tokens_details": {"reasoning_tokens": 200}}), None).unwrap();
        assert_eq!((a.input_tokens, a.cache_read_tokens, a.cache_write_tokens, a.output_tokens, a.reasoning_tokens), (476, 1024, 0, 300, Some(200)));
        let g = normalise(Provider::Gemini, &json!({"promptTokenCount": 17, "thoughtsTokenCount": 19, "totalTokenCount": 36}), None).unwrap();
        assert_eq!((g.input_tokens, g.output_tokens, g.reasoning_tokens), (17, 19, Some(19)));
        assert_eq!(normalise(Provider::Anthropic, &json!({"service_tier": "standard"}), None), None);
    }
}
