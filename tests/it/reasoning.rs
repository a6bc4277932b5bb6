//! Reasoning goes back natively only to the API family and the model that wrote it; for any
//! other model — of the same provider too — its visible text is downgraded to framed assistant
//! text, or dropped when the caller asks for that or there is no visible text. The report counts
//! each outcome, and the payload shows it.

use contextview::conversation::*;
use contextview::provider::{ForeignReasoning, Provider, ReasoningCounts};
use contextview::view::{build, BuildOptions, Built};
use pretty_assertions::assert_eq;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const THOUGHT: &str = "The failing test points at the parser";

/// The origin each API family writes for its own reasoning, with the fields it needs back.
fn own_reasoning(provider: Provider, model: &str, text: &str) -> Reasoning {
    let origin = |p: &str| Some(Origin { provider: p.into(), model: Some(model.into()) });
    match provider {
        Provider::Anthropic => Reasoning { id: "r1".into(), text: String::from(text).into(), origin: origin("anthropic"), signature: Some("sig-anthropic".into()), encrypted: None, provider_id: None, summary: None },
        Provider::OpenAiResponses | Provider::OpenAiChat => Reasoning {
            id: "r1".into(),
            text: String::from(text).into(),
            origin: origin("openai"),
            signature: None,
            encrypted: Some("enc-openai".into()),
            provider_id: Some("rs_1".into()),
            summary: None,
        },
        Provider::Gemini => Reasoning { id: "r1".into(), text: String::from(text).into(), origin: origin("gemini"), signature: Some("sig-gemini".into()), encrypted: None, provider_id: None, summary: None },
    }
}

fn conversation(reasoning: Reasoning) -> Vec<Item> {
    vec![
        Item::User(UserMessage { id: "u1".into(), content: vec![Part::text("Why does it fail?")], synthetic: None }),
        Item::Reasoning(reasoning),
        Item::Assistant(AssistantText { id: "a1".into(), text: String::from("Looking at the parser.").into(), origin: None, signature: None , annotations: None }),
        Item::User(UserMessage { id: "u2".into(), content: vec![Part::text("Go on.")], synthetic: None }),
    ]
}

fn build_for(provider: Provider, model: &str, items: &[Item], foreign: ForeignReasoning) -> Built {
    let mut options = BuildOptions::new(provider, model);
    options.render.foreign_reasoning = foreign;
    let built = build(items, &options).unwrap();
    assert!(built.payload.validate(&options.render.limits).is_empty(), "{provider}: {}", built.body);
    built
}

fn counts(kept: usize, downgraded: usize, dropped: usize) -> ReasoningCounts {
    ReasoningCounts { kept, downgraded, dropped, own_as_text: 0 }
}

/// The strings that mark the reasoning as sent natively, per API.
fn native_markers(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::Anthropic => &["\"type\":\"thinking\"", "sig-anthropic"],
        // The encrypted content carries it back; the id stays out (see below).
        Provider::OpenAiResponses => &["\"type\":\"reasoning\"", "enc-openai"],
        Provider::Gemini => &["\"thought\":true", "sig-gemini"],
        Provider::OpenAiChat => &["enc-openai", "rs_1"],
    }
}

#[test]
fn the_same_model_gets_its_reasoning_back_natively() {
    for provider in [Provider::Anthropic, Provider::OpenAiResponses, Provider::Gemini] {
        let built = build_for(provider, "model-a", &conversation(own_reasoning(provider, "model-a", THOUGHT)), ForeignReasoning::AsText);
        assert_eq!(built.report.reasoning, counts(1, 0, 0), "{provider}");
        for marker in native_markers(provider) {
            assert!(built.body.contains(marker), "{provider}: {marker} missing from {}", built.body);
        }
    }
}

#[test]
fn responses_reasoning_goes_back_as_it_came_when_stored_and_by_its_encrypted_content_alone_when_not() {
    let with_both = own_reasoning(Provider::OpenAiResponses, "model-a", THOUGHT);
    let id_only = Reasoning { encrypted: None, ..with_both.clone() };
    let store = |stored: bool| {
        let mut options = BuildOptions::new(Provider::OpenAiResponses, "model-a");
        options.render.settings.openai_responses.store = Some(stored);
        options
    };
    let summary = r#""summary":[{"type":"summary_text","text":"The failing test points at the parser"}]"#;
    // Stored (the API's default, or `store: true`): as the API returned it, id and all.
    for options in [BuildOptions::new(Provider::OpenAiResponses, "model-a"), store(true)] {
        let built = build(&conversation(with_both.clone()), &options).unwrap();
        assert!(built.body.contains(&format!(r#"{{"type":"reasoning","id":"rs_1",{summary},"encrypted_content":"enc-openai"}}"#)), "{}", built.body);
        let built = build(&conversation(id_only.clone()), &options).unwrap();
        assert!(built.body.contains(&format!(r#"{{"type":"reasoning","id":"rs_1",{summary}}}"#)), "{}", built.body);
        assert_eq!(built.report.reasoning, counts(1, 0, 0));
    }
    // Not stored: an id would be looked up and not found; the encrypted content is the item.
    let built = build(&conversation(with_both), &store(false)).unwrap();
    assert!(built.body.contains(&format!(r#"{{"type":"reasoning",{summary},"encrypted_content":"enc-openai"}}"#)), "{}", built.body);
    assert!(!built.body.contains("rs_1"), "{}", built.body);
    // …and without it, nothing can be read back: left out, and counted so.
    let built = build(&conversation(id_only), &store(false)).unwrap();
    assert!(!built.body.contains("rs_1") && !built.body.contains(r#""type":"reasoning""#), "{}", built.body);
    assert_eq!(built.report.reasoning, counts(0, 0, 1));
    assert!(built.payload.validate(&Default::default()).is_empty());
}

#[test]
fn another_model_of_the_same_provider_gets_the_text_downgraded() {
    for provider in [Provider::Anthropic, Provider::OpenAiResponses, Provider::Gemini] {
        let built = build_for(provider, "model-b", &conversation(own_reasoning(provider, "model-a", THOUGHT)), ForeignReasoning::AsText);
        assert_eq!(built.report.reasoning, counts(0, 1, 0), "{provider}");
        assert!(built.body.contains(THOUGHT), "{provider}: the visible text goes as text: {}", built.body);
        for marker in native_markers(provider) {
            assert!(!built.body.contains(marker), "{provider}: {marker} must not reach another model: {}", built.body);
        }
    }
}

#[test]
fn chat_completions_has_no_native_reasoning_so_even_its_own_is_downgraded() {
    let items = conversation(own_reasoning(Provider::OpenAiChat, "model-a", THOUGHT));
    let built = build_for(Provider::OpenAiChat, "model-a", &items, ForeignReasoning::AsText);
    assert_eq!(built.report.reasoning, ReasoningCounts { own_as_text: 1, ..counts(0, 1, 0) });
    // The reasoning as text and the turn's own text make one assistant message, joined.
    let contextview::Payload::OpenAiChat(chat) = &built.payload else { panic!("not a Chat payload") };
    let contents: Vec<&str> = chat
        .messages
        .iter()
        .filter_map(|m| match m {
            contextview::provider::openai_chat::Message::Assistant { content, .. } => content.as_ref().map(|c| c.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(contents, [format!("<reasoning>\n{THOUGHT}\n</reasoning>\n\nLooking at the parser.").as_str()]);
}

#[test]
fn the_drop_policy_leaves_foreign_reasoning_out_and_counts_it() {
    for provider in Provider::ALL {
        let built = build_for(provider, "model-b", &conversation(own_reasoning(provider, "model-a", THOUGHT)), ForeignReasoning::Drop);
        assert_eq!(built.report.reasoning, counts(0, 0, 1), "{provider}");
        assert_eq!(built.report.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), vec!["reasoning.dropped"], "{provider}");
        assert!(!built.body.contains(THOUGHT), "{provider}: dropped reasoning is not in the payload: {}", built.body);
        // The rest of the turn is still there.
        assert!(built.body.contains("Looking at the parser."), "{provider}");
    }
}

#[test]
fn foreign_reasoning_without_visible_text_is_dropped_even_when_downgrading() {
    for provider in Provider::ALL {
        // Redacted or summary-less reasoning: only material another model cannot read.
        let built = build_for(provider, "model-b", &conversation(own_reasoning(provider, "model-a", "  ")), ForeignReasoning::AsText);
        assert_eq!(built.report.reasoning, counts(0, 0, 1), "{provider}");
        for marker in native_markers(provider) {
            assert!(!built.body.contains(marker), "{provider}: {marker}");
        }
    }
}

#[test]
fn a_gemini_thought_summary_without_a_signature_goes_back_as_a_thought_part() {
    let mut reasoning = own_reasoning(Provider::Gemini, "model-a", THOUGHT);
    reasoning.signature = None;
    let built = build_for(Provider::Gemini, "model-a", &conversation(reasoning), ForeignReasoning::AsText);
    assert_eq!(built.report.reasoning, counts(1, 0, 0));
    assert!(built.body.contains(&format!(r#"{{"text":"{THOUGHT}","thought":true}}"#)), "{}", built.body);
}

#[test]
fn reasoning_without_replay_material_is_downgraded_for_its_own_model() {
    // The same model, but no signature (Anthropic) or neither an `rs_` id nor encrypted content
    // (Responses): the API could not take it back, so the text goes as text.
    for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
        let mut reasoning = own_reasoning(provider, "model-a", THOUGHT);
        reasoning.signature = None;
        reasoning.encrypted = None;
        reasoning.provider_id = None;
        let built = build_for(provider, "model-a", &conversation(reasoning), ForeignReasoning::AsText);
        assert_eq!(built.report.reasoning, ReasoningCounts { own_as_text: 1, ..counts(0, 1, 0) }, "{provider}");
        assert!(built.body.contains(THOUGHT), "{provider}");
        let said: Vec<&str> = built.report.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(said, vec![format!("1 reasoning block(s) {provider} model-a made itself went back as text: they lack the signature or encrypted content the API checks")], "{provider}");
    }
}

#[test]
fn a_chat_models_own_reasoning_goes_back_as_text_and_is_said_to_be_its_own() {
    // Chat Completions takes no reasoning back: the model's own goes as text, and the report
    // does not call it another model's.
    let built = build_for(Provider::OpenAiChat, "model-a", &conversation(own_reasoning(Provider::OpenAiChat, "model-a", THOUGHT)), ForeignReasoning::AsText);
    assert_eq!(built.report.reasoning, ReasoningCounts { own_as_text: 1, ..counts(0, 1, 0) });
    let said: Vec<(&str, &str)> = built.report.diagnostics.iter().map(|d| (d.code.as_str(), d.message.as_str())).collect();
    assert_eq!(said, vec![("reasoning.downgraded", "1 reasoning block(s) openai-chat model-a made itself went back as text: Chat Completions takes no reasoning back")]);
    // Another model's, to the same API: said to be another's.
    let built = build_for(Provider::OpenAiChat, "model-b", &conversation(own_reasoning(Provider::OpenAiChat, "model-a", THOUGHT)), ForeignReasoning::AsText);
    assert_eq!(built.report.reasoning, counts(0, 1, 0));
    assert_eq!(built.report.diagnostics[0].message, "1 reasoning block(s) another provider or model made went to openai-chat model-b as text");
}

#[test]
fn another_provider_never_gets_native_reasoning() {
    for from in [Provider::Anthropic, Provider::OpenAiResponses, Provider::Gemini] {
        for to in [Provider::Anthropic, Provider::OpenAiResponses, Provider::Gemini] {
            if from == to {
                continue;
            }
            let built = build_for(to, "model-a", &conversation(own_reasoning(from, "model-a", THOUGHT)), ForeignReasoning::AsText);
            assert_eq!(built.report.reasoning, counts(0, 1, 0), "{from} -> {to}");
            for marker in native_markers(from) {
                assert!(!built.body.contains(marker), "{from} -> {to}: {marker}");
            }
        }
    }
}

#[test]
fn a_response_that_names_no_model_belongs_to_the_sessions_and_a_downgrade_is_said() {
    use contextview::session::{Command, Reply, Session};
    use contextview::update::Header;
    use serde_json::json;
    let run = |s: &mut Session, v: serde_json::Value| s.dispatch(serde_json::from_value::<Command>(v).unwrap(), Some("2026-12-03T10:00:00Z".into())).unwrap();
    let built = |s: &mut Session, options: serde_json::Value| match run(s, json!({"type": "buildRequest", "options": options})).reply {
        Some(Reply::Built { body, report }) => (body, report),
        other => panic!("{other:?}"),
    };
    let mut s = Session::create(Header::new("follow"));
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    run(&mut s, json!({"type": "userMessage", "text": "Why?"}));
    run(&mut s, json!({"type": "assistantResponse", "reasoning": {"text": "Because.", "signature": "sig-1"}, "toolCalls": [{"id": "c1", "name": "read", "input": {}}]}));
    run(&mut s, json!({"type": "toolResult", "toolCallId": "c1", "output": "x"}));
    let (body, report) = built(&mut s, json!({}));
    assert_eq!(report.reasoning, counts(1, 0, 0));
    assert!(body.contains(r#"{"type":"thinking","thinking":"Because.","signature":"sig-1"}"#), "{body}");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    // Another provider gets the text, and the report says so.
    let (_, report) = built(&mut s, json!({"provider": "openai-chat", "model": "gpt-4.1"}));
    assert_eq!(report.reasoning, counts(0, 1, 0));
    assert_eq!(report.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["reasoning.downgraded"]);
}
