//! Layout for caching: what changes least comes first, the conversation is the last field of
//! every body, Anthropic breakpoints sit on the stable boundaries, and OpenAI requests of one
//! session share a `prompt_cache_key`.

use contextview::provider::{anthropic, CacheConfig, Limits, Payload};
use contextview::request::{build_request, BuildInput};
use contextview::session::Session;
use contextview::Provider;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const LOG: &str = concat!(
    r#"{"format":"contextview.session-log","version":1,"sessionId":"sess-42"}"#,
    "\n",
    r#"{"seq":1,"ts":"2026-12-01T10:00:00Z","update":{"sessionUpdate":"user_message_chunk","messageId":"u1","content":{"type":"text","text":"List the src directory."}}}"#,
    "\n"
);

fn input(provider: Provider) -> BuildInput {
    serde_json::from_value(json!({
        "provider": provider,
        "system": "You are careful.",
        "tools": [
            {"name": "ls", "description": "List a directory", "inputSchema": {"type": "object"}},
            {"name": "read", "description": "Read a file", "inputSchema": {"type": "object"}}
        ],
        "log": LOG
    }))
    .unwrap()
}

/// Positions of top-level keys in the body text (keys of nested objects come later than their
/// parent's, so the first occurrence is the top-level one for these names).
fn position(body: &str, key: &str) -> usize {
    body.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("no {key} in {body}"))
}

#[test]
fn the_conversation_is_the_last_field_after_tools_and_system() {
    for (provider, system, conversation) in [
        (Provider::Anthropic, "system", "messages"),
        (Provider::OpenAiChat, "messages", "messages"),
        (Provider::OpenAiResponses, "instructions", "input"),
        (Provider::Gemini, "systemInstruction", "contents"),
    ] {
        let body = build_request(&input(provider)).unwrap().built.body;
        assert!(position(&body, "tools") < position(&body, system), "{provider}: tools before the system prompt");
        assert!(position(&body, system) <= position(&body, conversation), "{provider}");
        assert!(body.ends_with("]}"), "{provider}: the conversation array closes the body");
    }
}

#[test]
fn anthropic_breakpoints_sit_on_the_stable_boundaries_and_the_conversation_caches_itself() {
    let payload: Value = serde_json::from_str(&build_request(&input(Provider::Anthropic)).unwrap().built.body).unwrap();
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(payload["cache_control"], ephemeral, "automatic caching of the conversation");
    assert_eq!(payload["tools"][1]["cache_control"], ephemeral, "the last tool");
    assert_eq!(payload["tools"][0].get("cache_control"), None);
    assert_eq!(payload["system"][0]["cache_control"], ephemeral);
    let in_messages = payload["messages"].to_string().matches("cache_control").count();
    assert_eq!(in_messages, 0, "no marker inside the conversation: nothing already sent is rewritten");

    // A one-hour TTL on the stable part, before the conversation's default five minutes.
    let long = BuildInput { cache: Some(CacheConfig { stable_ttl: Some("1h".into()), ..CacheConfig::default() }), ..input(Provider::Anthropic) };
    let payload: Value = serde_json::from_str(&build_request(&long).unwrap().built.body).unwrap();
    assert_eq!(payload["system"][0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
    assert_eq!(payload["cache_control"], ephemeral);

    let off = BuildInput { cache: Some(CacheConfig { enabled: false, ..CacheConfig::default() }), ..input(Provider::Anthropic) };
    assert!(!build_request(&off).unwrap().built.body.contains("cache_control"));
}

#[test]
fn automatic_caching_counts_toward_the_four_breakpoints() {
    let built = build_request(&input(Provider::Anthropic)).unwrap().built;
    let Payload::Anthropic(mut request) = built.payload else { panic!("anthropic payload") };
    assert!(anthropic::validate(&request, &Limits::default()).is_empty());
    // Two more explicit markers make five with the automatic one.
    for tool in request.tools.as_mut().unwrap() {
        tool.cache_control = Some(anthropic::CacheControl::ephemeral());
    }
    request.messages[0].content.iter_mut().for_each(|block| {
        if let anthropic::Block::Text { cache_control, .. } = block {
            *cache_control = Some(anthropic::CacheControl::ephemeral());
        }
    });
    let rules: Vec<String> = anthropic::validate(&request, &Limits::default()).into_iter().map(|v| v.message).collect();
    assert_eq!(rules, vec!["A maximum of 4 blocks with cache_control may be provided. Found 5.".to_owned()]);
}

#[test]
fn openai_requests_of_a_session_share_its_cache_key() {
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        // From items there is no session: no key unless given.
        let items = contextview::update::replay(&contextview::update::parse_log(LOG).records).items;
        let from_items = BuildInput { log: None, items: Some(items), ..input(provider) };
        assert!(!build_request(&from_items).unwrap().built.body.contains("prompt_cache_key"), "{provider}");
        // From a log, stateless or in a session: the log's session id.
        let stateless: Value = serde_json::from_str(&build_request(&input(provider)).unwrap().built.body).unwrap();
        assert_eq!(stateless["prompt_cache_key"], "sess-42", "{provider}");

        let mut session = Session::from_log(LOG);
        let options = BuildInput { log: None, ..input(provider) };
        let body: Value = serde_json::from_str(&session.build(&options).unwrap().body).unwrap();
        assert_eq!(body["prompt_cache_key"], "sess-42", "{provider}");

        let keyed = BuildInput { cache: Some(CacheConfig { key: Some("team-a".into()), ..CacheConfig::default() }), ..options };
        let body: Value = serde_json::from_str(&session.build(&keyed).unwrap().body).unwrap();
        assert_eq!(body["prompt_cache_key"], "team-a", "{provider}");
    }
}

#[test]
fn the_first_user_prefix_has_the_fourth_anthropic_breakpoint() {
    let heads = r#"{"seq":1,"ts":"2026-12-01T10:00:00Z","event":{"kind":"prompt_head_snapshot","system":"You are careful.","firstUserPrefix":"<user_info>\nWorkspace: /w\n</user_info>"}}"#;
    let log = LOG.replacen("\"seq\":1,", "\"seq\":2,", 1).replacen('\n', &format!("\n{heads}\n"), 1);
    let mut i = input(Provider::Anthropic);
    i.log = Some(log);
    i.system = None;
    i.cache = Some(CacheConfig { stable_ttl: Some("1h".into()), ..CacheConfig::default() });
    let body: Value = serde_json::from_str(&build_request(&i).unwrap().built.body).unwrap();
    assert_eq!(body["system"][0]["text"], "You are careful.", "the system head comes from the log");
    let first = &body["messages"][0]["content"];
    assert_eq!(first[0]["text"], "<user_info>\nWorkspace: /w\n</user_info>");
    assert_eq!(first[0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}), "session-stable: its own breakpoint");
    assert_eq!(first[1]["text"], "List the src directory.");
    assert!(first[1].get("cache_control").is_none());
    // Tools, system, prefix and the automatic marker: the four the API allows.
    let marked = body["tools"].as_array().unwrap().iter().filter(|t| t.get("cache_control").is_some()).count()
        + body["system"].as_array().unwrap().iter().filter(|t| t.get("cache_control").is_some()).count()
        + 1
        + usize::from(body.get("cache_control").is_some());
    assert_eq!(marked, 4);
}

#[test]
fn the_output_budget_reaches_every_provider_in_its_own_field() {
    let field = |provider: Provider, max: Option<u32>| -> Value {
        let mut input = input(provider);
        input.max_tokens = max;
        let body: Value = serde_json::from_str(&build_request(&input).unwrap().built.body).unwrap();
        match provider {
            Provider::Anthropic => body["max_tokens"].clone(),
            Provider::OpenAiChat => body["max_completion_tokens"].clone(),
            Provider::OpenAiResponses => body["max_output_tokens"].clone(),
            Provider::Gemini => body["generationConfig"]["maxOutputTokens"].clone(),
        }
    };
    for provider in Provider::ALL {
        assert_eq!(field(provider, Some(321)), json!(321), "{provider}");
    }
    // Unset: Anthropic requires one (8192); the others use the model's own limit.
    assert_eq!(field(Provider::Anthropic, None), json!(8192));
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Gemini] {
        assert_eq!(field(provider, None), Value::Null, "{provider}");
    }
}
