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

/// 1,000 cases per provider natively (10,000 under `make test-long`).
fn cases() -> u32 {
    crate::common::cases(1_000)
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
    prop::collection::vec(prop_oneof![3 => text().prop_map(|t| Part::Text { text: t.into() }), 1 => image()], 0..3)
}

/// An item whose call ids come from a small shared pool, so results, duplicates and orphans meet.
fn item(pool: Vec<String>) -> impl Strategy<Value = Item> {
    let pick = prop::sample::select(pool);
    prop_oneof![
        3 => (parts(), prop::option::of(prop_oneof![Just(SyntheticReason::SystemReminder), Just(SyntheticReason::Interjection)]))
            .prop_map(|(content, synthetic)| Item::User(UserMessage { id: String::new(), content, synthetic })),
        2 => (text(), origin()).prop_map(|(text, origin)| Item::Assistant(AssistantText { id: String::new(), text: text.into(), origin, signature: None , annotations: None })),
        2 => (text(), origin(), prop::option::of("[a-z]{1,5}"), prop::option::of("[a-z]{1,5}"), prop::option::of("rs_[a-z]{1,3}"))
            .prop_map(|(text, origin, signature, encrypted, provider_id)| Item::Reasoning(Reasoning { id: String::new(), text: text.into(), origin, signature, encrypted, provider_id, summary: None })),
        3 => (pick.clone(), "[a-z_]{1,6}", prop_oneof![Just(json!({"a": 1})), Just(json!("raw patch")), Just(json!([1, 2])), Just(json!(null))], origin(), prop::option::of("[a-z]{1,4}"))
            .prop_map(|(call_id, name, input, origin, signature)| Item::ToolCall(ToolCall { id: String::new(), call_id, name, input: input.into(), origin, signature })),
        3 => (pick, parts(), any::<bool>())
            .prop_map(|(call_id, content, is_error)| Item::ToolResult(ToolResult { id: String::new(), call_id, content, is_error, released: None })),
        1 => (prop_oneof![Just("anthropic"), Just("openai-responses"), Just("gemini")], "[a-z]{1,8}").prop_map(|(provider, q)| {
            let value = match provider {
                "anthropic" => json!({"type": "server_tool_use", "id": format!("srvtoolu_{q}"), "name": "web_search", "input": {"query": q}}),
                "openai-responses" => json!({"type": "web_search_call", "id": format!("ws_{q}"), "status": "completed", "action": {"type": "search", "query": q}}),
                _ => json!({"executableCode": {"language": "PYTHON", "code": format!("print('{q}')")}}),
            };
            let value = value.as_object().cloned().unwrap();
            Item::Native(Native { id: String::new(), origin: Origin { provider: provider.to_owned(), model: Some(MODEL.to_owned()) }, value })
        }),
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
                    Item::Native(m) => m.id = id,
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
    #![proptest_config(crate::common::config(cases()))]

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
    #![proptest_config(crate::common::config(cases() / 4))]

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

mod content {
    //! Content survives: every text, every call with its input, every result with its error
    //! flag, every image and every reasoning block of a conversation is in the payload, or the
    //! report names what happened to it (repaired, pruned, evicted, downgraded or dropped). A
    //! renderer that loses a turn while staying well-formed fails this.
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use contextview::view::{Built, RepairKind};
    use serde_json::Value;

    /// Every string in the payload, and every object or array in it.
    fn leaves(value: &Value, strings: &mut Vec<String>, values: &mut Vec<Value>) {
        match value {
            Value::String(s) => strings.push(s.clone()),
            Value::Array(a) => {
                values.push(value.clone());
                a.iter().for_each(|v| leaves(v, strings, values));
            }
            Value::Object(o) => {
                values.push(value.clone());
                o.values().for_each(|v| leaves(v, strings, values));
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => values.push(value.clone()),
        }
    }

    /// The stretches of `text` between `<`s (a downgraded reasoning's text is neutralised).
    fn segments(text: &str) -> Vec<&str> {
        text.split('<').filter(|s| !s.trim().is_empty()).collect()
    }

    fn survives(provider: Provider, items: &[Item], built: &Built) -> Result<(), TestCaseError> {
        let body: Value = serde_json::from_str(&built.body).unwrap();
        let (mut strings, mut values) = (Vec::new(), Vec::new());
        leaves(&body, &mut strings, &mut values);
        let has_text = |t: &str| strings.iter().any(|s| s.contains(t));
        let report = &built.report;
        let repaired = |id: &str, kinds: &[RepairKind]| report.repairs.iter().any(|r| r.item_id == id && kinds.contains(&r.kind));
        let pruned = |id: &str| report.pruning.trimmed_ids().iter().chain(report.pruning.cleared_ids()).any(|p| p == id);
        let evicted = |id: &str| report.images.evicted.iter().any(|e| e == id);
        let (mut reasoning_seen, mut reasoning_missing) = (0usize, 0usize);
        for item in items {
            let id = item.id();
            let parts_survive = |parts: &[Part]| -> Result<(), TestCaseError> {
                for part in parts {
                    match part {
                        Part::Text { text } if !text.trim().is_empty() => {
                            prop_assert!(has_text(text) || pruned(id), "{provider}: text {text:?} of {id} is lost");
                        }
                        Part::Text { .. } => {}
                        Part::Image(Image::Base64 { data, .. }) => {
                            let named = evicted(id) || repaired(id, &[RepairKind::InvalidImageReplaced]) || pruned(id);
                            prop_assert!(has_text(data) || named, "{provider}: an image of {id} is lost");
                        }
                        Part::Image(Image::Url { url }) => prop_assert!(has_text(url) || evicted(id) || pruned(id), "{provider}: the image {url} of {id} is lost"),
                    }
                }
                Ok(())
            };
            match item {
                Item::User(m) => {
                    if !repaired(id, &[RepairKind::EmptyDropped, RepairKind::BlankTextDropped]) {
                        parts_survive(&m.content)?;
                    }
                }
                Item::Assistant(a) => {
                    if !a.text.trim().is_empty() {
                        prop_assert!(has_text(&a.text), "{provider}: assistant text of {id} is lost");
                    }
                }
                Item::Reasoning(r) => {
                    let ids = [r.signature.as_deref(), r.encrypted.as_deref(), r.provider_id.as_deref()];
                    let native = ids.iter().flatten().any(|x| has_text(x));
                    let as_text = !r.text.trim().is_empty() && segments(&r.text).iter().all(|s| has_text(s));
                    // What repair keeps: text, or what a provider reads it back by (a stored item's id too).
                    let kept = r.signature.is_some() || r.encrypted.is_some() || r.provider_id.is_some() || !r.text.trim().is_empty();
                    if !repaired(id, &[RepairKind::EmptyDropped]) && kept {
                        reasoning_seen += 1;
                        if !native && !as_text {
                            reasoning_missing += 1;
                        }
                    }
                }
                Item::ToolCall(c) => {
                    // Repair never deletes a call.
                    prop_assert!(has_text(&c.name), "{provider}: the call {id} ({}) is lost", c.name);
                    let input = c.input.value();
                    let input_there = values.contains(&input)
                        || has_text(&input.to_string())
                        || input.as_str().is_some_and(|s| has_text(s))
                        || (input.is_null() && report.wrapped_inputs > 0);
                    prop_assert!(input_there, "{provider}: the input of {id} is lost: {}", c.input);
                }
                // A native block goes back to its own API (a Responses item as it came: these
                // builds are stored, the API's default), and is counted as left out everywhere else.
                Item::Native(n) => {
                    let own = match provider {
                        Provider::Anthropic => n.origin.provider == "anthropic",
                        Provider::OpenAiResponses => n.origin.provider == "openai-responses",
                        Provider::Gemini => n.origin.provider == "gemini",
                        Provider::OpenAiChat => false,
                    };
                    if own {
                        let mut sent = n.value.clone();
                        sent.remove("created_by");
                        prop_assert!(values.contains(&Value::Object(sent)), "{provider}: the native block {id} is lost");
                    } else {
                        prop_assert!(report.dropped_natives > 0, "{provider}: a foreign native block {id} left out unsaid");
                    }
                }
                Item::ToolResult(r) => {
                    if repaired(id, &[RepairKind::OrphanResultDropped, RepairKind::DuplicateResultDropped]) {
                        continue;
                    }
                    parts_survive(&r.content)?;
                    if r.is_error && !pruned(id) {
                        // The flag travels in each API's own way.
                        let flagged = match provider {
                            Provider::Anthropic => values.iter().any(|v| v.get("type") == Some(&json!("tool_result")) && v.get("is_error") == Some(&json!(true))),
                            Provider::OpenAiChat | Provider::OpenAiResponses => strings.iter().any(|s| s.starts_with("Error")),
                            Provider::Gemini => values.iter().any(|v| v.get("functionResponse").and_then(|f| f.get("response")).is_some_and(|r| r.get("error").is_some())),
                        };
                        prop_assert!(flagged, "{provider}: the error flag of {id} is lost");
                    }
                }
            }
        }
        // Reasoning the payload does not hold, natively or as text, is what the report says it dropped.
        let counted = report.reasoning.kept + report.reasoning.downgraded + report.reasoning.dropped;
        prop_assert_eq!(counted, reasoning_seen, "{}: every reasoning block is counted", provider);
        prop_assert!(reasoning_missing <= report.reasoning.dropped, "{provider}: {reasoning_missing} reasoning blocks lost, {} reported dropped", report.reasoning.dropped);
        Ok(())
    }

    fn check_content(provider: Provider, items: &[Item], squeezed: bool) -> Result<(), TestCaseError> {
        let mut options = BuildOptions::new(provider, MODEL);
        options.render.limits.allow_prefill = Some(true);
        if squeezed {
            // Pruning and the image budget act.
            options.context_window = Some(1_000);
            options.context_tokens = Some(900);
            options.pruning.keep_turns = 0;
            options.pruning.keep_steps = 1;
            options.images.trigger_bytes = 200;
            options.images.low_water_bytes = 100;
        }
        match build(items, &options) {
            Ok(built) => survives(provider, items, &built),
            Err(BuildError::EmptyConversation { .. }) => Ok(()),
            Err(e) => Err(TestCaseError::fail(format!("{provider}: {e:?}"))),
        }
    }

    proptest! {
        #![proptest_config(crate::common::config(cases() / 4))]

        #[test]
        fn every_renderer_keeps_or_accounts_for_all_content(items in conversation(), squeezed in any::<bool>()) {
            for provider in Provider::ALL {
                check_content(provider, &items, squeezed)?;
            }
        }

        /// Repair adds synthetic results and drops orphans; it never deletes a call, and every
        /// result it leaves out is named.
        #[test]
        fn repair_keeps_every_call_and_names_every_result_it_drops(items in conversation()) {
            let (view, repairs) = repair::repair(&items, &RepairConfig::default());
            let kept: std::collections::HashSet<&str> = view.iter().map(|i| i.id()).collect();
            for item in &items {
                match item {
                    Item::ToolCall(c) => prop_assert!(kept.contains(c.id.as_str()), "call {} deleted", c.id),
                    Item::ToolResult(r) if !kept.contains(r.id.as_str()) => {
                        prop_assert!(repairs.iter().any(|x| x.item_id == r.id), "result {} dropped unnamed", r.id);
                    }
                    _ => {}
                }
            }
        }
    }
}
