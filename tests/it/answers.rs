//! Provider answers decoded: every fixture of ours decodes to what it holds, in any chunking;
//! a stream says text as it arrives and a call once it is whole; answers framed badly say how and
//! keep what they hold. (What the next request makes of an answer: `answer_replay.rs`.)

use contextview::answer::{decode, Answer, Decoder};
use contextview::provider::Provider;
use contextview::update::record::AnswerStatus;
use contextview::update::write::TurnBlock;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

macro_rules! fixture {
    ($name:literal) => {
        ($name, include_bytes!(concat!("../fixtures/answers/", $name)) as &[u8])
    };
}

/// Every fixture, with its API.
pub fn fixtures() -> Vec<(Provider, &'static str, &'static [u8])> {
    let a = Provider::Anthropic;
    let c = Provider::OpenAiChat;
    let r = Provider::OpenAiResponses;
    let g = Provider::Gemini;
    let list = [
        (a, fixture!("anthropic-thinking-tools.sse")),
        (a, fixture!("anthropic-two-thinking-redacted.json")),
        (a, fixture!("anthropic-web-search-pause.sse")),
        (a, fixture!("anthropic-overloaded-mid-stream.sse")),
        (a, fixture!("anthropic-max-tokens-mid-call.sse")),
        (a, fixture!("anthropic-dropped-mid-call.sse")),
        (a, fixture!("anthropic-refusal.json")),
        (a, fixture!("anthropic-error-body.json")),
        (a, fixture!("anthropic-spliced.sse")),
        (a, fixture!("anthropic-thinking-max-tokens.sse")),
        (c, fixture!("openai-chat-tools.sse")),
        (c, fixture!("openai-chat-azure.sse")),
        (c, fixture!("openai-chat-reasoning-content.sse")),
        (c, fixture!("openai-chat-two-choices.json")),
        (c, fixture!("openai-chat-refusal.json")),
        (c, fixture!("openai-chat-error-mid-stream.sse")),
        (c, fixture!("openai-chat-length.sse")),
        (c, fixture!("openai-chat-custom-tool.json")),
        (c, fixture!("openai-chat-error-body.json")),
        (c, fixture!("openai-chat-dropped.sse")),
        (c, fixture!("openrouter-length-then-error.sse")),
        (c, fixture!("openrouter-error-mid-stream.sse")),
        (c, fixture!("openrouter-finish-error.sse")),
        (r, fixture!("openai-responses-reasoning-call.sse")),
        (r, fixture!("openai-responses-web-search.json")),
        (r, fixture!("openai-responses-incomplete.sse")),
        (r, fixture!("openai-responses-failed.sse")),
        (r, fixture!("openai-responses-refusal.sse")),
        (r, fixture!("openai-responses-error-body.json")),
        (r, fixture!("openai-responses-odd-items.sse")),
        (r, fixture!("openai-responses-context-error.sse")),
        (g, fixture!("gemini-text-signature.sse")),
        (g, fixture!("gemini-parallel-calls.json")),
        (g, fixture!("gemini-array-code-execution.json")),
        (g, fixture!("gemini-vertex-partial-args.sse")),
        (g, fixture!("gemini-prompt-blocked.json")),
        (g, fixture!("gemini-safety.json")),
        (g, fixture!("gemini-unavailable-mid-stream.sse")),
        (g, fixture!("gemini-error-body.json")),
        (g, fixture!("gemini-odd-parts.json")),
        (g, fixture!("gemini-max-tokens.sse")),
    ];
    list.into_iter().map(|(p, (name, bytes))| (p, name, bytes)).collect()
}

/// JSON with object keys sorted, whatever order the map keeps them in.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys.iter().map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&map[*k]))).collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("-")
}

/// An answer, one line per fact, for whole-answer comparisons written by hand.
fn describe(answer: &Answer) -> Vec<String> {
    let usage = answer.usage.as_ref().map_or("-".to_owned(), |u| {
        let thinking = u.reasoning_tokens.map_or(String::new(), |r| format!(" think={r}"));
        format!("{}+{}r+{}w+{}o{thinking}", u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens)
    });
    let mut lines = vec![format!(
        "{:?} stop={} id={} model={} usage={} extra={} error={}",
        answer.status,
        opt(&answer.stop_reason),
        opt(&answer.id),
        opt(&answer.model),
        usage,
        answer.extra_choices,
        answer.failure.as_ref().map_or("-".to_owned(), |f| {
            let code = f.code.as_deref().map_or(String::new(), |c| format!("/{c}"));
            format!("{}/{}{code} {:?}", f.kind, f.status.map_or("-".to_owned(), |s| s.to_string()), f.message)
        }),
    )];
    // What the ending said beyond its fields, and the usage as the provider reported it.
    if !answer.details.is_empty() {
        lines.push(format!("details {}", canonical(&Value::Object(answer.details.clone()))));
    }
    if let Some(raw) = &answer.raw_usage {
        lines.push(format!("raw {}", canonical(raw)));
    }
    for block in &answer.blocks {
        lines.push(match block {
            TurnBlock::Reasoning { text, signature, encrypted, id, summary } => format!(
                "reasoning {text:?} sig={} enc={} id={} parts={}",
                opt(signature),
                opt(encrypted),
                opt(id),
                summary.as_ref().map_or(0, Vec::len)
            ),
            TurnBlock::Text { text, signature, annotations, refusal, item_id } => format!(
                "text {text:?} sig={} notes={} item={}{}",
                opt(signature),
                annotations.as_ref().and_then(Value::as_array).map_or(0, Vec::len),
                opt(item_id),
                if *refusal { " refusal" } else { "" }
            ),
            TurnBlock::Call { id, name, input, signature, item_id, .. } => {
                format!("call {} {name} {} sig={} item={}", opt(id), canonical(input), opt(signature), opt(item_id))
            }
            TurnBlock::Native { answers, value, .. } => {
                format!("native {} answers={}", value.get("type").and_then(Value::as_str).unwrap_or("part"), opt(answers))
            }
        });
    }
    for call in &answer.unfinished_calls {
        lines.push(format!("unfinished {} {} {:?}", opt(&call.id), call.name, call.arguments));
    }
    lines
}

fn expected(name: &str) -> Vec<&'static str> {
    match name {
        "anthropic-thinking-tools.sse" => vec![
            "Complete stop=tool_use id=msg_A1 model=claude-sonnet-4-5-20250929 usage=3+4000r+120w+87o extra=0 error=-",
            "raw {\"cache_creation_input_tokens\":120,\"cache_read_input_tokens\":4000,\"input_tokens\":3,\"output_tokens\":87}",
            "reasoning \"The test fails because the parser drops the last line.\" sig=SIG-one/+== enc=- id=- parts=0",
            "text \"Let me read the parser — “é” and 😀 included.\" sig=- notes=0 item=-",
            "call toolu_01Read read_file {\"limit\":200,\"path\":\"src/parser.rs\"} sig=- item=-",
            "call toolu_02List list_dir {} sig=- item=-",
        ],
        "anthropic-two-thinking-redacted.json" => vec![
            "Complete stop=tool_use id=msg_A2 model=claude-opus-4-1 usage=10+0r+0w+40o extra=0 error=-",
            "raw {\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"input_tokens\":10,\"output_tokens\":40,\"service_tier\":\"standard\"}",
            "reasoning \"First I list the tests.\" sig=SIG-a enc=- id=- parts=0",
            "reasoning \"\" sig=- enc=REDACTED-opaque-data== id=- parts=0",
            "reasoning \"\" sig=SIG-empty enc=- id=- parts=0",
            "text \"The docs say so.\" sig=- notes=1 item=-",
            "call toolu_03Bash bash {\"command\":\"cargo test\"} sig=- item=-",
        ],
        "anthropic-web-search-pause.sse" => vec![
            "Complete stop=pause_turn id=msg_A3 model=claude-sonnet-4-5 usage=15665+0r+0w+60o extra=0 error=-",
            "raw {\"input_tokens\":15665,\"output_tokens\":60,\"server_tool_use\":{\"web_search_requests\":1}}",
            "text \"I'll search for that.\" sig=- notes=0 item=-",
            "native server_tool_use answers=-",
            "native web_search_tool_result answers=srvtoolu_01Web",
            "text \"Untagged variants come last.\" sig=- notes=1 item=-",
        ],
        "anthropic-overloaded-mid-stream.sse" => vec![
            "Failed stop=- id=msg_A4 model=claude-sonnet-4-5 usage=50+0r+0w+1o extra=0 error=overloaded_error/- \"Overloaded\"",
            "raw {\"input_tokens\":50,\"output_tokens\":1}",
            "text \"Half an answ\" sig=- notes=0 item=-",
        ],
        "anthropic-max-tokens-mid-call.sse" => vec![
            "Complete stop=max_tokens id=msg_A5 model=claude-sonnet-4-5 usage=20+0r+0w+64o extra=0 error=-",
            "raw {\"input_tokens\":20,\"output_tokens\":64}",
            "text \"Writing the file now.\" sig=- notes=0 item=-",
            "unfinished toolu_04Write write_file \"{\\\"path\\\": \\\"a.txt\\\", \\\"content\\\": \\\"lorem ips\"",
        ],
        "anthropic-dropped-mid-call.sse" => vec![
            "Partial stop=- id=msg_A1 model=claude-sonnet-4-5-20250929 usage=3+4000r+120w+1o extra=0 error=-",
            "raw {\"cache_creation_input_tokens\":120,\"cache_read_input_tokens\":4000,\"input_tokens\":3,\"output_tokens\":1}",
            "reasoning \"The test fails because the parser drops the last line.\" sig=SIG-one/+== enc=- id=- parts=0",
            "text \"Let me read the parser — “é” and 😀 included.\" sig=- notes=0 item=-",
            "unfinished toolu_01Read read_file \"{\\\"path\\\": \\\"src/par\"",
        ],
        "anthropic-refusal.json" => vec![
            "Complete stop=refusal id=msg_A7 model=claude-sonnet-4-5 usage=30+0r+0w+1o extra=0 error=-",
            "details {\"stop_details\":{\"category\":\"cyber\",\"explanation\":null,\"type\":\"refusal\"}}",
            "raw {\"input_tokens\":30,\"output_tokens\":1}",
        ],
        "anthropic-error-body.json" => vec!["Failed stop=- id=- model=- usage=- extra=0 error=invalid_request_error/- \"messages: text content blocks must be non-empty\""],
        "anthropic-spliced.sse" => vec![
            "Failed stop=- id=msg_S1 model=claude-sonnet-4-5 usage=8+0r+0w+1o extra=0 error=spliced_stream/- \"a second message (msg_S2) began before this one ended\"",
            "raw {\"input_tokens\":8,\"output_tokens\":1}",
            "text \"First answer\" sig=- notes=0 item=-",
        ],
        "openai-chat-tools.sse" => vec![
            "Complete stop=tool_calls id=chatcmpl-C1 model=gpt-4.1-2025-04-14 usage=20+1280r+200w+40o think=12 extra=0 error=-",
            "details {\"service_tier\":\"default\",\"system_fingerprint\":\"fp_1\"}",
            "raw {\"completion_tokens\":40,\"completion_tokens_details\":{\"accepted_prediction_tokens\":0,\"audio_tokens\":0,\"reasoning_tokens\":12,\"rejected_prediction_tokens\":0},\"prompt_tokens\":1500,\"prompt_tokens_details\":{\"audio_tokens\":0,\"cache_write_tokens\":200,\"cached_tokens\":1280},\"total_tokens\":1540}",
            "text \"Running both checks.\" sig=- notes=0 item=-",
            "call call_A bash {\"command\":\"ls\"} sig=- item=-",
            "call call_B read_file {\"path\":\"Cargo.toml\"} sig=- item=-",
        ],
        "openai-chat-azure.sse" => vec![
            "Complete stop=stop id=chatcmpl-AZ model=gpt-4o-2024-11-20 usage=- extra=0 error=-",
            "details {\"system_fingerprint\":\"fp_az\"}",
            "text \"Hello from Azure.\" sig=- notes=0 item=-",
        ],
        "openai-chat-reasoning-content.sse" => vec![
            "Complete stop=stop id=ds-1 model=deepseek-reasoner usage=12+0r+0w+9o think=7 extra=0 error=-",
            "raw {\"completion_tokens\":9,\"completion_tokens_details\":{\"reasoning_tokens\":7},\"prompt_tokens\":12,\"total_tokens\":21}",
            "reasoning \"Two plus two is four.\" sig=- enc=- id=- parts=0",
            "text \"4\" sig=- notes=0 item=-",
        ],
        "openai-chat-two-choices.json" => vec![
            "Complete stop=stop id=chatcmpl-N2 model=gpt-4o-search-preview usage=20+0r+0w+12o extra=1 error=-",
            "raw {\"completion_tokens\":12,\"prompt_tokens\":20,\"total_tokens\":32}",
            "text \"Rust 1.95 is out.\" sig=- notes=1 item=-",
        ],
        "openai-chat-refusal.json" => vec![
            "Complete stop=stop id=chatcmpl-R model=gpt-4o usage=9+0r+0w+6o extra=0 error=-",
            "raw {\"completion_tokens\":6,\"prompt_tokens\":9,\"total_tokens\":15}",
            "text \"I can't help with that.\" sig=- notes=0 item=- refusal",
        ],
        "openai-chat-error-mid-stream.sse" => vec![
            "Failed stop=- id=chatcmpl-C1 model=gpt-4.1-2025-04-14 usage=- extra=0 error=server_error/- \"The server had an error while processing your request.\"",
            "text \"Partial\" sig=- notes=0 item=-",
        ],
        // OpenRouter: an error after the choice finished is kept, the answer as whole as a cut one.
        "openrouter-length-then-error.sse" => vec![
            "Complete stop=length id=gen-17A model=deepseek/deepseek-r1 usage=- extra=0 error=-",
            "details {\"errorAfterFinish\":{\"code\":502,\"message\":\"Upstream stream ended after the output limit\",\"metadata\":{\"provider_name\":\"Together\"}}}",
            "text \"The parser keeps every line but\" sig=- notes=0 item=-",
        ],
        // Its error chunk names a numeric code and no type: the kind is the status's name.
        "openrouter-error-mid-stream.sse" => vec![
            "Failed stop=- id=gen-18B model=qwen/qwen3-coder usage=- extra=0 error=bad_gateway/502 \"Provider disconnected unexpectedly\"",
            "text \"Reading the\" sig=- notes=0 item=-",
        ],
        // A choice ended with `finish_reason: "error"` and no error object: failed, by its native reason.
        "openrouter-finish-error.sse" => vec![
            "Failed stop=- id=gen-19C model=google/gemini-2.5-pro usage=- extra=0 error=MALFORMED_FUNCTION_CALL/- \"the provider ended the answer with an error (finish_reason \\\"error\\\", native \\\"MALFORMED_FUNCTION_CALL\\\")\"",
            "text \"Calling the\" sig=- notes=0 item=-",
        ],
        "openai-chat-length.sse" => vec![
            "Complete stop=length id=chatcmpl-C1 model=gpt-4.1-2025-04-14 usage=5+0r+0w+16o extra=0 error=-",
            "details {\"service_tier\":\"default\",\"system_fingerprint\":\"fp_1\"}",
            "raw {\"completion_tokens\":16,\"prompt_tokens\":5,\"total_tokens\":21}",
            "text \"A long essay\" sig=- notes=0 item=-",
        ],
        "openai-chat-custom-tool.json" => vec![
            "Complete stop=tool_calls id=chatcmpl-CU model=gpt-5 usage=100+0r+0w+20o think=8 extra=0 error=-",
            "raw {\"completion_tokens\":20,\"completion_tokens_details\":{\"reasoning_tokens\":8},\"prompt_tokens\":100,\"total_tokens\":120}",
            "call call_patch apply_patch \"*** Begin Patch\\n*** End Patch\" sig=- item=-",
        ],
        "openai-chat-error-body.json" => vec!["Failed stop=- id=- model=- usage=- extra=0 error=requests/-/rate_limit_exceeded \"Rate limit reached for gpt-4o\""],
        "openai-chat-dropped.sse" => vec![
            "Partial stop=- id=chatcmpl-C1 model=gpt-4.1-2025-04-14 usage=- extra=0 error=-",
            "details {\"service_tier\":\"default\",\"system_fingerprint\":\"fp_1\"}",
            "text \"Running both checks.\" sig=- notes=0 item=-",
            "unfinished call_A bash \"{\\\"comm\"",
        ],
        "openai-responses-reasoning-call.sse" => vec![
            "Complete stop=completed id=resp_R1 model=gpt-5-2025-08-07 usage=27361+3712r+0w+4416o think=3712 extra=0 error=-",
            "raw {\"input_tokens\":31073,\"input_tokens_details\":{\"cached_tokens\":3712},\"output_tokens\":4416,\"output_tokens_details\":{\"reasoning_tokens\":3712},\"total_tokens\":35489}",
            "reasoning \"**Plan**\\n\\nRead the file.\\n\\nThen edit it.\" sig=- enc=gAAAAB-final-R1a id=rs_R1a parts=2",
            "call call_R1b read_file {\"path\":\"src/lib.rs\"} sig=- item=fc_R1b",
        ],
        "openai-responses-web-search.json" => vec![
            "Complete stop=completed id=resp_R2 model=gpt-5-mini-2025-08-07 usage=900+0r+0w+120o think=64 extra=0 error=-",
            "raw {\"input_tokens\":900,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":120,\"output_tokens_details\":{\"reasoning_tokens\":64},\"total_tokens\":1020}",
            "reasoning \"\" sig=- enc=- id=rs_R2a parts=0",
            "native web_search_call answers=-",
            "text \"Use #[serde(untagged)] on the last variant.\" sig=- notes=1 item=msg_R2c",
        ],
        "openai-responses-incomplete.sse" => vec![
            "Complete stop=max_output_tokens id=resp_R3 model=gpt-5-2025-08-07 usage=50+0r+0w+16o think=0 extra=0 error=-",
            "details {\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}",
            "raw {\"input_tokens\":50,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":16,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":66}",
            "text \"The first half\" sig=- notes=0 item=msg_R3",
        ],
        "openai-responses-failed.sse" => vec!["Failed stop=failed id=resp_R4 model=gpt-5-2025-08-07 usage=- extra=0 error=insufficient_quota/- \"You exceeded your current quota.\""],
        "openai-responses-refusal.sse" => vec![
            "Complete stop=completed id=resp_R5 model=gpt-5-2025-08-07 usage=10+0r+0w+7o extra=0 error=-",
            "raw {\"input_tokens\":10,\"output_tokens\":7,\"total_tokens\":17}",
            "text \"I can't help with that.\" sig=- notes=0 item=msg_R5 refusal",
        ],
        "openai-responses-error-body.json" => vec![
            "Failed stop=- id=- model=- usage=- extra=0 error=invalid_request_error/- \"Item with id 'rs_x' not found. Items are not persisted when `store` is set to false.\"",
        ],
        "openai-responses-odd-items.sse" => vec![
            "Complete stop=completed id=resp_O model=gpt-5 usage=5+0r+0w+5o extra=0 error=-",
            "raw {\"input_tokens\":5,\"output_tokens\":5,\"total_tokens\":10}",
            "text \"Text first, \" sig=- notes=0 item=-",
            "reasoning \"then a summary on the same index\" sig=- enc=- id=- parts=0",
            "native part answers=-",
        ],
        "gemini-text-signature.sse" => vec![
            "Complete stop=STOP id=gR1 model=gemini-3-pro-preview usage=240+200r+0w+134o think=120 extra=0 error=-",
            "raw {\"cachedContentTokenCount\":200,\"candidatesTokenCount\":14,\"promptTokenCount\":440,\"thoughtsTokenCount\":120,\"totalTokenCount\":574}",
            "reasoning \"**Reading the test**\\n\\nIt checks the last line.\" sig=- enc=- id=- parts=0",
            "text \"The parser drops the last line — “é” 😀.\" sig=- notes=0 item=-",
            "text \"\" sig=GSIG/text+== notes=0 item=-",
        ],
        "gemini-parallel-calls.json" => vec![
            "Complete stop=STOP id=gR2 model=gemini-3-flash-preview usage=161+0r+0w+252o think=204 extra=0 error=-",
            "details {\"finishMessage\":\"Model generated function call(s).\"}",
            "raw {\"candidatesTokenCount\":48,\"promptTokenCount\":161,\"promptTokensDetails\":[{\"modality\":\"TEXT\",\"tokenCount\":161}],\"thoughtsTokenCount\":204,\"totalTokenCount\":413}",
            "call k3f9a2x1 read_file {\"path\":\"a.rs\"} sig=GSIG/call== item=-",
            "call p0q8w7e6 read_file {\"path\":\"b.rs\"} sig=- item=-",
            "call z9y8x7w6 list_dir {} sig=- item=-",
        ],
        "gemini-array-code-execution.json" => vec![
            "Complete stop=STOP id=gR3 model=gemini-2.5-flash usage=42+0r+0w+18o extra=0 error=-",
            "raw {\"candidatesTokenCount\":18,\"promptTokenCount\":30,\"toolUsePromptTokenCount\":12,\"totalTokenCount\":60}",
            "text \"I'll compute it.\" sig=- notes=0 item=-",
            "native part answers=-",
            "native part answers=-",
            "text \"It is 1024.\" sig=- notes=0 item=-",
        ],
        "gemini-vertex-partial-args.sse" => vec![
            "Complete stop=STOP id=gR4 model=gemini-3.1-pro-preview usage=50+0r+0w+50o think=30 extra=0 error=-",
            "raw {\"candidatesTokenCount\":20,\"promptTokenCount\":50,\"thoughtsTokenCount\":30,\"totalTokenCount\":100,\"trafficType\":\"ON_DEMAND\"}",
            "call - get_weather {\"days\":3,\"location\":\"Boston, MA\"} sig=GSIG/stream== item=-",
        ],
        "gemini-prompt-blocked.json" => vec![
            "Complete stop=PROHIBITED_CONTENT id=gR5 model=gemini-2.5-flash-lite usage=638+0r+0w+0o extra=0 error=-",
            "details {\"promptFeedback\":{\"blockReason\":\"PROHIBITED_CONTENT\"}}",
            "raw {\"promptTokenCount\":638,\"totalTokenCount\":638}",
        ],
        "gemini-safety.json" => vec![
            "Complete stop=SAFETY id=gR6 model=gemini-2.5-flash usage=12+0r+0w+1o extra=0 error=-",
            "details {\"safetyRatings\":[{\"blocked\":true,\"category\":\"HARM_CATEGORY_DANGEROUS_CONTENT\",\"probability\":\"HIGH\"}]}",
            "raw {\"candidatesTokenCount\":1,\"promptTokenCount\":12,\"totalTokenCount\":13}",
            "text \"Partial\" sig=- notes=0 item=-",
        ],
        "gemini-unavailable-mid-stream.sse" => vec![
            "Failed stop=- id=gR7 model=gemini-2.5-flash usage=9+0r+0w+2o extra=0 error=UNAVAILABLE/503 \"This model is currently experiencing high demand.\"",
            "raw {\"candidatesTokenCount\":2,\"promptTokenCount\":9,\"totalTokenCount\":11}",
            "text \"Half of \" sig=- notes=0 item=-",
        ],
        "gemini-odd-parts.json" => vec![
            "Complete stop=STOP id=gO model=gemini-2.5-flash usage=4+0r+0w+3o extra=0 error=-",
            "raw {\"candidatesTokenCount\":3,\"promptTokenCount\":4,\"totalTokenCount\":7}",
            "text \"Before.\" sig=- notes=0 item=-",
            "native part answers=-",
            "text \"After.\" sig=- notes=0 item=-",
        ],
        "gemini-error-body.json" => vec!["Failed stop=- id=- model=- usage=- extra=0 error=RESOURCE_EXHAUSTED/429 \"You exceeded your current quota, please check your plan.\""],
        "anthropic-thinking-max-tokens.sse" => vec![
            "Complete stop=max_tokens id=msg_A9 model=claude-sonnet-4-5-20250929 usage=310+0r+0w+1024o extra=0 error=-",
            "raw {\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"input_tokens\":310,\"output_tokens\":1024}",
            "reasoning \"The changelog needs every release since 0.3.\" sig=SIG-limit/9== enc=- id=- parts=0",
            "text \"## 0.3.0\\n- parser: keep the last line\\n## 0.4.0\\n- lexer: \" sig=- notes=0 item=-",
        ],
        "openai-responses-context-error.sse" => vec![
            "Failed stop=- id=resp_C1 model=gpt-5-2025-08-07 usage=- extra=0 error=invalid_request_error/-/context_length_exceeded \"Your input exceeds the context window of this model. Please adjust your input and try again.\"",
        ],
        "gemini-max-tokens.sse" => vec![
            "Complete stop=MAX_TOKENS id=gM1 model=gemini-2.5-flash usage=90+0r+0w+52o think=40 extra=0 error=-",
            "raw {\"candidatesTokenCount\":12,\"promptTokenCount\":90,\"thoughtsTokenCount\":40,\"totalTokenCount\":142}",
            "reasoning \"Listing the files first.\" sig=- enc=- id=- parts=0",
            "text \"src/a.rs\\nsrc/b.rs\\nsrc/c\" sig=- notes=0 item=-",
        ],
        other => panic!("no expectation for {other}"),
    }
}

#[test]
fn every_fixture_decodes_to_what_it_holds() {
    for (provider, name, bytes) in fixtures() {
        let (answer, diagnostics) = decode(provider, bytes, "fallback");
        assert_eq!(describe(&answer), expected(name), "{name}");
        // A clean answer says nothing; the odd ones say what is odd about them.
        let noticed: &[&str] = match name {
            "anthropic-max-tokens-mid-call.sse" => &["answer.unfinished_call"],
            "anthropic-dropped-mid-call.sse" => &["answer.bad_event", "answer.cut_short", "answer.partial", "answer.unfinished_call"],
            "openai-chat-two-choices.json" => &["answer.extra_choices"],
            "openai-chat-dropped.sse" => &["answer.partial", "answer.unfinished_call"],
            _ => &[],
        };
        assert_eq!(diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), noticed, "{name}");
    }
}

/// Decodes `bytes` pushed in the pieces `cuts` makes (sorted offsets), and the updates said.
fn decode_in_pieces(provider: Provider, bytes: &[u8], cuts: &[usize]) -> (Answer, Vec<String>) {
    let mut decoder = Decoder::new(provider, "fallback");
    let mut live = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        let cut = cut.clamp(at, bytes.len());
        live.extend(decoder.push(&bytes[at..cut]));
        at = cut;
    }
    let (answer, closing, _) = decoder.finish();
    live.extend(closing);
    (answer, live.iter().map(|u| serde_json::to_string(u).unwrap()).collect())
}

/// What the live updates say of text and thought, merged per message, and the tool calls.
fn live_digest(live: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in live {
        let v: Value = serde_json::from_str(line).unwrap();
        let kind = v["sessionUpdate"].as_str().unwrap_or("");
        let key = format!("{kind} {}", v["messageId"].as_str().or(v["toolCallId"].as_str()).unwrap_or(""));
        let text = v["content"]["text"].as_str().map(str::to_owned).unwrap_or_else(|| canonical(&v["rawInput"]));
        match out.last_mut() {
            Some(last) if last.starts_with(&format!("{key}: ")) && kind.ends_with("chunk") => last.push_str(&text),
            _ => out.push(format!("{key}: {text}")),
        }
    }
    out
}

proptest! {
    #![proptest_config(crate::common::config(crate::common::cases(64)))]

    /// Any chunking — a cut inside a character, an event, a line, a CRLF — gives the same answer
    /// and says the same text and calls while it streams.
    #[test]
    fn any_chunking_gives_the_same_answer(which in 0usize..35, cuts in proptest::collection::vec(0usize..4096, 0..24)) {
        let all = fixtures();
        let (provider, name, bytes) = all[which % all.len()];
        let (whole, whole_live) = decode_in_pieces(provider, bytes, &[]);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let (pieces, pieces_live) = decode_in_pieces(provider, bytes, &cuts);
        prop_assert_eq!(&pieces, &whole, "{}", name);
        prop_assert_eq!(live_digest(&pieces_live), live_digest(&whole_live), "{}", name);
    }
}

#[test]
fn byte_by_byte_is_the_same_answer() {
    for (provider, name, bytes) in fixtures() {
        let cuts: Vec<usize> = (1..bytes.len()).collect();
        assert_eq!(decode_in_pieces(provider, bytes, &cuts).0, decode(provider, bytes, "fallback").0, "{name}");
    }
}

#[test]
fn a_stream_says_text_as_it_arrives_and_a_call_once_its_arguments_are_whole() {
    let bytes = include_bytes!("../fixtures/answers/anthropic-thinking-tools.sse");
    let (_, live) = decode_in_pieces(Provider::Anthropic, bytes, &[]);
    assert_eq!(
        live_digest(&live),
        vec![
            "agent_thought_chunk msg_A1-thought: The test fails because the parser drops the last line.",
            "agent_message_chunk msg_A1: Let me read the parser — “é” and 😀 included.",
            "tool_call toolu_01Read: {\"limit\":200,\"path\":\"src/parser.rs\"}",
            "tool_call toolu_02List: {}",
        ]
    );
    // The first text arrives before the stream ends: a client sees it while it streams.
    let cut = bytes.windows(12).position(|w| w == b"Let me read ").unwrap();
    let mut decoder = Decoder::new(Provider::Anthropic, "fallback");
    let early = decoder.push(&bytes[..cut + 40]);
    assert!(early.iter().any(|u| serde_json::to_string(u).unwrap().contains("Let me read ")), "{early:?}");
}

/// The codes of what decoding `bytes` as `provider`'s answer reported, in order.
fn decoded_codes(provider: Provider, bytes: &[u8]) -> (Answer, Vec<String>) {
    let (answer, diagnostics) = decode(provider, bytes, "fallback");
    (answer, diagnostics.into_iter().map(|d| d.code).collect())
}

#[test]
fn answers_framed_badly_say_how_and_keep_what_they_hold() {
    let chat_text = |text: &str| format!("data: {{\"id\":\"c1\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n");
    let stop = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    // An event whose data is not JSON is skipped; the events around it are read.
    let stream = format!("{}data: {{oops\n\n{}{stop}", chat_text("Hel"), chat_text("lo"));
    let (answer, codes) = decoded_codes(Provider::OpenAiChat, stream.as_bytes());
    assert_eq!(codes, vec!["answer.bad_event"]);
    assert_eq!(describe(&answer).iter().filter(|l| l.contains("Hello")).count(), 1, "{:?}", describe(&answer));
    // Bytes that are not UTF-8 are replaced, not dropped with their event.
    let mut stream = chat_text("caf").into_bytes();
    stream.extend_from_slice(b"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff!\"}}]}\n\n");
    stream.extend_from_slice(stop.as_bytes());
    let (answer, codes) = decoded_codes(Provider::OpenAiChat, &stream);
    assert_eq!(codes, vec!["answer.not_utf8"]);
    assert!(describe(&answer).iter().any(|l| l.contains("caf\u{fffd}!")), "{:?}", describe(&answer));
    // `[DONE]` with no finish reason before it: the server stopped early, the answer is partial.
    let stream = format!("{}data: [DONE]\n\n", chat_text("Hel"));
    let (answer, codes) = decoded_codes(Provider::OpenAiChat, stream.as_bytes());
    assert_eq!((answer.status, codes), (AnswerStatus::Partial, vec!["answer.partial".to_owned()]));
    // A stream that stops inside an event.
    let stream = format!("{}data: {{\"id\":\"c1\",\"choi", chat_text("cut"));
    let (answer, codes) = decoded_codes(Provider::OpenAiChat, stream.as_bytes());
    assert_eq!(codes, vec!["answer.bad_event", "answer.cut_short", "answer.partial"]);
    assert!(describe(&answer).iter().any(|l| l.contains("cut")), "{:?}", describe(&answer));
    // A whole body that is not JSON.
    let (_, codes) = decoded_codes(Provider::Anthropic, b"{\"id\": \"msg_1\", \"content\": [");
    assert_eq!(codes, vec!["answer.bad_json", "answer.partial"]);
    // Gemini's JSON-array stream with something after its closing bracket.
    let array = br#"[{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi."}]},"finishReason":"STOP"}]}] and more"#;
    let (answer, codes) = decoded_codes(Provider::Gemini, array);
    assert_eq!(codes, vec!["answer.trailing_bytes"]);
    assert!(describe(&answer).iter().any(|l| l.contains("Hi.")), "{:?}", describe(&answer));
    // Nothing at all.
    let (_, codes) = decoded_codes(Provider::OpenAiResponses, b"");
    assert_eq!(codes, vec!["answer.empty", "answer.partial"]);
}

/// An event over the framer's limit is dropped whole and the events after it are read.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn an_event_longer_than_any_provider_sends_is_dropped_and_the_rest_read() {
    let huge = "x".repeat(contextview::answer::framing::MAX_FRAME_BYTES + 1);
    let stream = format!(
        "data: {{\"id\":\"c1\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{huge}\"}}}}]}}\n\ndata: {{\"id\":\"c1\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"after\"}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
    );
    let (answer, codes) = decoded_codes(Provider::OpenAiChat, stream.as_bytes());
    assert_eq!(codes, vec!["answer.frame_too_long"]);
    let said = describe(&answer);
    assert!(said.iter().any(|l| l.contains("after")) && said.iter().all(|l| !l.contains("xxxx")), "{said:?}");
}

/// The calls an answer hands out: id, name and input.
fn handed_out(answer: &Answer) -> Vec<String> {
    answer.summary("fallback").tool_calls.iter().map(|c| format!("{} {} {}", c.id, c.name, canonical(&c.input))).collect()
}

/// Cut anywhere — after any event, inside any event, inside a character — an answer never hands
/// out a call it would not hand out whole: every call of a cut answer is one of the whole
/// answer's calls, with the same id, name and input. What was still arriving is unfinished.
#[test]
fn a_call_whose_arguments_never_arrived_whole_is_never_handed_out() {
    let with_calls: Vec<_> = fixtures().into_iter().filter(|(p, _, bytes)| !handed_out(&decode(*p, bytes, "fallback").0).is_empty()).collect();
    // Every API has a streamed fixture with calls among them.
    for api in [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Gemini] {
        assert!(with_calls.iter().any(|(p, name, _)| *p == api && name.ends_with(".sse")), "{api:?}");
    }
    for (provider, name, bytes) in with_calls {
        let whole = handed_out(&decode(provider, bytes, "fallback").0);
        let mut seen_unfinished = false;
        // Natively every byte; in wasm (slower, unoptimised) every third byte and every line end.
        let step = if cfg!(target_arch = "wasm32") { 3 } else { 1 };
        for cut in (0..bytes.len()).filter(|&cut| cut % step == 0 || bytes[cut.saturating_sub(1)] == b'\n') {
            let (answer, _) = decode(provider, &bytes[..cut], "fallback");
            for call in handed_out(&answer) {
                assert!(whole.contains(&call), "{name} cut at {cut}: {call} is not one of {whole:?}");
            }
            seen_unfinished |= !answer.unfinished_calls.is_empty();
        }
        // A stream cut inside a call's arguments leaves it unfinished (a whole body cut is no JSON).
        assert!(seen_unfinished || !name.ends_with(".sse"), "{name}: some cut leaves a call unfinished");
    }
}
