//! Property tests: any conversation — dangling calls, orphan and duplicate results, empty text,
//! runs of same-role messages, reasoning from other providers, odd tool-call ids, broken images —
//! builds into a payload its provider's validator accepts, deterministically, with every call
//! answered right after its turn.

use contextview::conversation::*;
use contextview::provider::Provider;
use contextview::view::{build, repair, BuildError, BuildOptions, RepairConfig};
use proptest::prelude::*;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// 10,000 cases per provider natively; fewer in wasm, where the same code runs far slower.
fn cases() -> u32 {
    if cfg!(target_arch = "wasm32") {
        1_000
    } else {
        10_000
    }
}

const MODEL: &str = "model-a";
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";

fn text() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), Just("   ".to_owned()), "[a-z <>/]{1,12}", "\\PC{0,6}"]
}

fn call_id() -> impl Strategy<Value = String> {
    prop_oneof![
        "toolu_[a-zA-Z0-9]{1,8}",
        "call_[a-z0-9]{1,4}",
        Just(String::new()),
        "[a-z|: /.]{1,6}",
        "x{50,80}",
        "\\PC{1,5}",
    ]
}

fn origin() -> impl Strategy<Value = Option<Origin>> {
    prop_oneof![
        Just(None),
        (prop_oneof![Just("anthropic"), Just("openai"), Just("gemini"), Just("xai")], prop_oneof![Just(MODEL), Just("model-b")])
            .prop_map(|(p, m)| Some(Origin { provider: p.to_owned(), model: Some(m.to_owned()) })),
    ]
}

fn image() -> impl Strategy<Value = Part> {
    prop_oneof![
        Just(Part::Image(Image::Base64 { media_type: "image/png".into(), data: PNG.into() })),
        Just(Part::Image(Image::Base64 { media_type: "image/png".into(), data: "not base64!".into() })),
        Just(Part::Image(Image::Url { url: "https://example.com/a.jpg".into() })),
    ]
}

fn parts() -> impl Strategy<Value = Vec<Part>> {
    prop::collection::vec(prop_oneof![3 => text().prop_map(|t| Part::Text { text: t }), 1 => image()], 0..3)
}

/// An item whose call ids come from a small shared pool, so results, duplicates and orphans meet.
fn item(pool: Vec<String>) -> impl Strategy<Value = Item> {
    let pick = prop::sample::select(pool);
    prop_oneof![
        3 => (parts(), prop::option::of(prop_oneof![Just(SyntheticReason::SystemReminder), Just(SyntheticReason::Interjection)]))
            .prop_map(|(content, synthetic)| Item::User(UserMessage { id: String::new(), content, synthetic })),
        2 => (text(), origin()).prop_map(|(text, origin)| Item::Assistant(AssistantText { id: String::new(), text, origin })),
        2 => (text(), origin(), prop::option::of("[a-z]{1,5}"), prop::option::of("[a-z]{1,5}"), prop::option::of("rs_[a-z]{1,3}"))
            .prop_map(|(text, origin, signature, encrypted, provider_id)| Item::Reasoning(Reasoning { id: String::new(), text, origin, signature, encrypted, provider_id })),
        3 => (pick.clone(), "[a-z_]{1,6}", prop_oneof![Just(json!({"a": 1})), Just(json!("raw patch")), Just(json!([1, 2])), Just(json!(null))], origin(), prop::option::of("[a-z]{1,4}"))
            .prop_map(|(call_id, name, input, origin, signature)| Item::ToolCall(ToolCall { id: String::new(), call_id, name, input, origin, signature })),
        3 => (pick, parts(), any::<bool>())
            .prop_map(|(call_id, content, is_error)| Item::ToolResult(ToolResult { id: String::new(), call_id, content, is_error })),
    ]
}

fn conversation() -> impl Strategy<Value = Vec<Item>> {
    prop::collection::vec(call_id(), 1..5)
        .prop_flat_map(|pool| prop::collection::vec(item(pool), 0..24))
        .prop_map(|mut items| {
            // Item ids are unique in a conversation (the log guarantees it).
            for (i, item) in items.iter_mut().enumerate() {
                let id = format!("i{i}");
                match item {
                    Item::User(m) => m.id = id,
                    Item::Assistant(m) => m.id = id,
                    Item::Reasoning(m) => m.id = id,
                    Item::ToolCall(m) => m.id = id,
                    Item::ToolResult(m) => m.id = id,
                }
            }
            items
        })
}

fn check(provider: Provider, items: &[Item]) -> Result<(), TestCaseError> {
    let options = BuildOptions::new(provider, MODEL);
    match build(items, &options) {
        Ok(built) => {
            let again = build(items, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(built.body, again.body, "build is not deterministic");
            prop_assert!(built.payload.validate(&options.render.limits).is_empty());
        }
        // Anthropic refuses (as a typed error, not a bad payload) to end on an assistant turn;
        // once the user speaks, it builds.
        Err(BuildError::EndsWithAssistant { .. }) if provider == Provider::Anthropic => {
            let mut more = items.to_vec();
            more.push(Item::User(UserMessage { id: "last".into(), content: vec![Part::text("go on")], synthetic: None }));
            let built = build(&more, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(built.payload.validate(&options.render.limits).is_empty());
        }
        Err(BuildError::EmptyConversation { .. }) => {
            let (view, _) = repair::repair(items, &options.repair);
            prop_assert!(view.is_empty(), "refused as empty, but the view has {} items", view.len());
        }
        Err(e) => return Err(TestCaseError::fail(format!("{provider}: {e:?}"))),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn anthropic_payloads_are_valid(items in conversation()) { check(Provider::Anthropic, &items)?; }

    #[test]
    fn openai_chat_payloads_are_valid(items in conversation()) { check(Provider::OpenAiChat, &items)?; }

    #[test]
    fn openai_responses_payloads_are_valid(items in conversation()) { check(Provider::OpenAiResponses, &items)?; }

    #[test]
    fn gemini_payloads_are_valid(items in conversation()) { check(Provider::Gemini, &items)?; }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 4, ..ProptestConfig::default() })]

    /// After repair, every call is answered exactly once, right after its turn, and no result
    /// stands anywhere else.
    #[test]
    fn repair_answers_every_call_right_after_its_turn(items in conversation()) {
        let (view, _) = repair::repair(&items, &RepairConfig::default());
        let mut i = 0;
        while i < view.len() {
            if !view[i].is_assistant_side() {
                prop_assert!(!matches!(view[i].as_ref(), Item::ToolResult(_)), "result outside a turn's answers at {}", i);
                i += 1;
                continue;
            }
            let start = i;
            while i < view.len() && view[i].is_assistant_side() { i += 1; }
            let calls: Vec<&str> = view[start..i].iter().filter_map(|x| match x.as_ref() { Item::ToolCall(c) => Some(c.call_id.as_str()), _ => None }).collect();
            let results: Vec<&str> = view[i..].iter().map_while(|x| match x.as_ref() { Item::ToolResult(r) => Some(r.call_id.as_str()), _ => None }).collect();
            prop_assert_eq!(&calls, &results);
            i += results.len();
        }
    }
}
