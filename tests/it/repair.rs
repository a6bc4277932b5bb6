//! Repair, one structural break at a time: the exact view it produces and the report entries.

use contextview::conversation::*;
use contextview::view::repair::{repair, Repair, RepairConfig, RepairKind};
use pretty_assertions::assert_eq;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn user(id: &str, text: &str) -> Item {
    Item::User(UserMessage { id: id.into(), content: vec![Part::text(text)], synthetic: None })
}
fn say(id: &str, text: &str) -> Item {
    Item::Assistant(AssistantText { id: id.into(), text: String::from(text).into(), origin: None, signature: None , annotations: None })
}
fn call(id: &str, call_id: &str) -> Item {
    Item::ToolCall(ToolCall { id: id.into(), call_id: call_id.into(), name: "grep".into(), input: json!({}).into(), origin: None, signature: None })
}
fn result(id: &str, call_id: &str, text: &str) -> Item {
    Item::ToolResult(ToolResult { id: id.into(), call_id: call_id.into(), content: vec![Part::text(text)], is_error: false, released: None })
}

fn run(items: &[Item]) -> (Vec<Item>, Vec<(RepairKind, String)>) {
    let (view, repairs) = repair(items, &RepairConfig::default());
    (view.into_iter().map(|c| c.into_owned()).collect(), repairs.into_iter().map(|Repair { kind, item_id, .. }| (kind, item_id)).collect())
}

fn ids(items: &[Item]) -> Vec<&str> {
    items.iter().map(Item::id).collect()
}

#[test]
fn a_well_formed_history_is_left_exactly_as_it_is() {
    let items = vec![user("u", "go"), call("c", "t1"), result("r", "t1", "ok"), say("a", "done")];
    let (view, repairs) = repair(&items, &RepairConfig::default());
    assert!(repairs.is_empty());
    assert!(view.iter().all(|c| matches!(c, std::borrow::Cow::Borrowed(_))), "nothing should be copied");
    assert_eq!(view.into_iter().map(|c| c.into_owned()).collect::<Vec<_>>(), items);
}

#[test]
fn a_dangling_call_gets_a_synthetic_error_result_naming_the_tool() {
    let (view, repairs) = run(&[user("u", "go"), call("c", "t1"), user("u2", "still there?")]);
    assert_eq!(ids(&view), vec!["u", "c", "synthetic-result:c", "u2"]);
    assert_eq!(repairs, vec![(RepairKind::SyntheticResult, "c".to_owned())]);
    match &view[2] {
        Item::ToolResult(r) => {
            assert!(r.is_error);
            assert_eq!(r.call_id, "t1");
            assert!(text_of(&r.content).contains("`grep`"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_dangling_text_is_configurable() {
    let config = RepairConfig { dangling_result_text: "Cancelled by the user ({name} did not run).".into(), ..RepairConfig::default() };
    let items = [user("u", "go"), call("c", "t1")];
    let (view, _) = repair(&items, &config);
    assert!(matches!(view[2].as_ref(), Item::ToolResult(r) if text_of(&r.content) == "Cancelled by the user (grep did not run)."));
}

#[test]
fn orphan_results_are_dropped_and_reported() {
    let (view, repairs) = run(&[user("u", "go"), result("r", "ghost", "late"), say("a", "hi")]);
    assert_eq!(ids(&view), vec!["u", "a"]);
    assert_eq!(repairs, vec![(RepairKind::OrphanResultDropped, "r".to_owned())]);
}

#[test]
fn a_result_before_its_call_is_an_orphan() {
    let (view, repairs) = run(&[user("u", "go"), result("r", "t1", "early"), call("c", "t1")]);
    assert_eq!(ids(&view), vec!["u", "c", "synthetic-result:c"]);
    assert_eq!(repairs, vec![(RepairKind::OrphanResultDropped, "r".to_owned()), (RepairKind::SyntheticResult, "c".to_owned())]);
}

#[test]
fn duplicate_results_keep_the_last() {
    let (view, repairs) = run(&[user("u", "go"), call("c", "t1"), result("r1", "t1", "first"), result("r2", "t1", "second")]);
    assert_eq!(ids(&view), vec!["u", "c", "r2"]);
    assert_eq!(repairs, vec![(RepairKind::DuplicateResultDropped, "r1".to_owned())]);
}

#[test]
fn a_late_result_moves_up_to_its_turn_and_results_follow_call_order() {
    let items = [user("u", "go"), call("c1", "t1"), call("c2", "t2"), result("r2", "t2", "b"), user("i", "interjection"), result("r1", "t1", "a")];
    let (view, repairs) = run(&items);
    assert_eq!(ids(&view), vec!["u", "c1", "c2", "r1", "r2", "i"]);
    assert_eq!(repairs, vec![(RepairKind::ResultMoved, "r1".to_owned())]);
}

#[test]
fn a_reused_call_id_is_renamed_with_its_results() {
    let items = [user("u", "go"), call("c1", "t"), result("r1", "t", "a"), call("c2", "t"), result("r2", "t", "b")];
    let (view, repairs) = run(&items);
    assert_eq!(repairs, vec![(RepairKind::DuplicateCallId, "c2".to_owned())]);
    let call_ids: Vec<&str> = view
        .iter()
        .filter_map(|i| match i {
            Item::ToolCall(c) => Some(c.call_id.as_str()),
            Item::ToolResult(r) => Some(r.call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(call_ids, vec!["t", "t", "t-2", "t-2"]);
}

#[test]
fn empty_messages_are_dropped_and_empty_results_say_so() {
    let items = [user("u", "go"), user("empty", ""), say("blank", ""), call("c", "t1"), result("r", "t1", "")];
    let (view, repairs) = run(&items);
    assert_eq!(ids(&view), vec!["u", "c", "r"]);
    assert_eq!(repairs, vec![(RepairKind::EmptyDropped, "empty".to_owned()), (RepairKind::EmptyDropped, "blank".to_owned())]);
    assert!(matches!(&view[2], Item::ToolResult(r) if text_of(&r.content) == "(no output)"));
}

#[test]
fn broken_images_become_a_note_the_model_cannot_mistake_for_the_image() {
    let bad = Item::User(UserMessage {
        id: "u".into(),
        content: vec![Part::text("look"), Part::Image(Image::Base64 { media_type: "image/png".into(), data: "@@not base64@@".into() })],
        synthetic: None,
    });
    let (view, repairs) = run(&[bad]);
    assert_eq!(repairs, vec![(RepairKind::InvalidImageReplaced, "u".to_owned())]);
    match &view[0] {
        Item::User(m) => {
            assert_eq!(m.content.len(), 2);
            assert!(text_of(&m.content).contains("could not be sent (data is not valid base64)"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_history_that_opens_with_the_assistant_gets_a_synthetic_user_turn() {
    let (view, repairs) = run(&[say("a", "hello"), user("u", "hi")]);
    assert_eq!(ids(&view), vec!["leading-user:a", "a", "u"]);
    assert_eq!(repairs, vec![(RepairKind::LeadingUserInserted, "leading-user:a".to_owned())]);
}

#[test]
fn a_derived_id_never_collides_with_a_real_one() {
    let items = [user("u", "go"), call("c1", "a"), result("r1", "a", "1"), call("c2", "a"), result("r2", "a", "2"), call("c3", "a-2"), result("r3", "a-2", "3")];
    let (view, _) = run(&items);
    let ids: Vec<&str> = view.iter().filter_map(|i| match i { Item::ToolCall(c) => Some(c.call_id.as_str()), _ => None }).collect();
    assert_eq!(ids, vec!["a", "a-3", "a-2"]);
}

#[test]
fn whitespace_only_text_is_left_out_of_the_view() {
    // Real assistant turns hold a lone "\n\n" beside a tool call; providers refuse such text.
    let items = [
        user("u", "go"),
        say("blank", "\n\n"),
        call("c", "t1"),
        result("r", "t1", " \n"),
        Item::User(UserMessage { id: "u2".into(), content: vec![Part::text("\t"), Part::text("and now?")], synthetic: None }),
        user("u3", "  "),
        say("a", "\n\nDone."),
    ];
    let (view, repairs) = run(&items);
    assert_eq!(ids(&view), vec!["u", "c", "r", "u2", "a"]);
    assert_eq!(
        repairs,
        vec![
            (RepairKind::BlankTextDropped, "blank".to_owned()),
            (RepairKind::BlankTextDropped, "r".to_owned()),
            (RepairKind::BlankTextDropped, "u2".to_owned()),
            (RepairKind::BlankTextDropped, "u3".to_owned()),
        ]
    );
    assert_eq!(view[2], result("r", "t1", "(no output)"));
    assert_eq!(view[3], user("u2", "and now?"));
    // Text around real words keeps its whitespace.
    assert_eq!(view[4], say("a", "\n\nDone."));
}
