//! The image budget: eviction oldest first in one batch, placeholders, provider limits, and the
//! strip-all recovery build.

use contextview::conversation::*;
use contextview::view::{build, BuildOptions, ImageConfig};
use contextview::Provider;
use pretty_assertions::assert_eq;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A valid base64 image of `bytes` serialized bytes (a multiple of 4).
fn image(bytes: usize) -> Part {
    Part::Image(Image::Base64 { media_type: "image/png".into(), data: "A".repeat(bytes) })
}

fn turns(sizes: &[usize]) -> Vec<Item> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| Item::User(UserMessage { id: format!("u{i}"), content: vec![Part::text(format!("look {i}")), image(size)], synthetic: None }))
        .collect()
}

fn all_of(n: usize) -> Vec<Item> {
    turns(&vec![400; n])
}

fn options(provider: Provider, trigger: u64, low: u64) -> BuildOptions {
    let mut o = BuildOptions::new(provider, "m");
    o.images = ImageConfig { trigger_bytes: trigger, low_water_bytes: low, strip_all: false };
    o
}

#[test]
fn under_the_trigger_nothing_moves() {
    let items = turns(&[400, 400, 400]);
    let built = build(&items, &options(Provider::OpenAiChat, 2000, 1000)).unwrap();
    assert_eq!(built.report.images.images, 3);
    assert_eq!((built.report.images.bytes_before, built.report.images.bytes_after), (1200, 1200));
    assert!(built.report.images.evicted.is_empty());
}

#[test]
fn over_the_trigger_the_oldest_go_first_down_to_the_low_water_mark() {
    let items = turns(&[400, 400, 400, 400, 400, 400]);
    let built = build(&items, &options(Provider::OpenAiChat, 2000, 1000)).unwrap();
    let report = &built.report.images;
    assert_eq!(report.evicted, vec!["u0", "u1", "u2", "u3"]);
    assert_eq!((report.bytes_before, report.bytes_after), (2400, 800));
    // Exactly the kept images are in the body, and each evicted one left a placeholder.
    assert_eq!(built.body.matches("data:image/png;base64,").count(), 2);
    assert_eq!(built.body.matches("has been removed to keep the request within its size limit").count(), 4);
    assert!(built.body.contains("do not describe it or reason about it from memory"));
    // Sizes are those of the serialized payload: the body holds exactly bytes_after of image data.
    assert_eq!(built.body.matches(&"A".repeat(400)).count(), 2);
}

#[test]
fn eviction_is_a_batch_so_the_prefix_then_holds_for_several_builds() {
    let o = options(Provider::Anthropic, 2000, 1000);
    let evicted: Vec<Vec<String>> = (5..=10).map(|n| build(&all_of(10)[..n], &o).unwrap().report.images.evicted).collect();
    // At 6 images the batch evicts down to 1000 bytes; the next builds add without evicting
    // until the kept images cross the trigger again (at 10).
    let batch = vec!["u0", "u1", "u2", "u3"];
    assert_eq!(evicted[0], Vec::<String>::new());
    assert_eq!(evicted[1], batch);
    assert_eq!(evicted[2], batch);
    assert_eq!(evicted[3], batch);
    assert_eq!(evicted[4], batch);
    assert_eq!(evicted[5], vec!["u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"]);
}

#[test]
fn anthropic_limits_evict_instead_of_failing() {
    // Per-image size (decoded) and images per request.
    let mut o = options(Provider::Anthropic, u64::MAX, u64::MAX);
    o.render.limits.anthropic_max_image_bytes = 600;
    let items = turns(&[400, 1200, 400]);
    let built = build(&items, &o).unwrap();
    assert_eq!(built.report.images.evicted, vec!["u1"]);
    assert!(built.body.contains("because the provider does not accept it (too large, or not a type it takes)"));

    let mut o = options(Provider::Anthropic, u64::MAX, u64::MAX);
    o.render.limits.anthropic_max_images = 2;
    let built = build(&turns(&[8, 8, 8, 8]), &o).unwrap();
    assert_eq!(built.report.images.evicted, vec!["u0", "u1"]);
    assert!(built.payload.validate(&o.render.limits).is_empty());
}

#[test]
fn the_recovery_build_strips_every_image_and_says_so() {
    let mut items = turns(&[8, 8]);
    items.push(Item::ToolCall(ToolCall { id: "c".into(), call_id: "t".into(), name: "screenshot".into(), input: serde_json::json!({}).into(), origin: None, signature: None }));
    items.push(Item::ToolResult(ToolResult { id: "r".into(), call_id: "t".into(), content: vec![Part::text("shot"), image(8)], is_error: false, released: None }));
    let mut o = options(Provider::Gemini, u64::MAX, u64::MAX);
    o.images.strip_all = true;
    let built = build(&items, &o).unwrap();
    assert!(built.report.images.stripped);
    assert_eq!(built.report.images.evicted, vec!["u0", "u1", "r"]);
    assert_eq!(built.report.images.bytes_after, 0);
    assert!(!built.body.contains("inlineData"));
    assert!(built.body.contains("after the provider refused a request with images"));
}

#[test]
fn a_provider_413_makes_the_next_build_strip_images_once() {
    use contextview::request::BuildInput;
    use contextview::session::Session;
    let log = concat!(
        r#"{"format":"contextview.session-log","version":1,"sessionId":"s"}"#, "\n",
        r#"{"seq":1,"ts":"t","update":{"sessionUpdate":"user_message_chunk","messageId":"u","content":{"type":"text","text":"see"}}}"#, "\n",
        r#"{"seq":2,"ts":"t","update":{"sessionUpdate":"user_message_chunk","messageId":"u","content":{"type":"image","mimeType":"image/png","data":"AAAA"}}}"#, "\n",
    );
    let mut session = Session::from_log(log);
    let input: BuildInput = serde_json::from_value(serde_json::json!({"provider": "anthropic"})).unwrap();
    assert!(!session.on_provider_error(429, "rate limited"));
    assert!(!session.build(&input).unwrap().report.images.stripped);
    assert!(session.on_provider_error(413, r#"{"type":"error","error":{"type":"request_too_large"}}"#));
    let stripped = session.build(&input).unwrap();
    assert!(stripped.report.images.stripped);
    assert!(!stripped.body.contains("AAAA"));
    // Once: the build after it sends images again.
    assert!(!session.build(&input).unwrap().report.images.stripped);
}

/// A 1×1 PNG, and the first bytes of a BMP, as base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";
const BMP: &str = "Qk06AAAAAAAAADYAAAAoAAAAAQAAAAEAAAABABgAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAD/AA==";

fn one_image(media_type: &str, data: &str) -> Vec<Item> {
    vec![Item::User(UserMessage {
        id: "u".into(),
        content: vec![Part::text("see"), Part::Image(Image::Base64 { media_type: media_type.into(), data: data.into() })],
        synthetic: None,
    })]
}

#[test]
fn a_mislabelled_image_is_sent_with_the_type_its_bytes_show() {
    // A PNG recorded as `image/jpg`, or with a type garbled on the way: every provider checks it.
    for recorded in ["image/jpg", "image/p\u{fffd}zng", "image/jpeg"] {
        for provider in Provider::ALL {
            let built = build(&one_image(recorded, PNG), &BuildOptions::new(provider, "m")).unwrap();
            assert!(built.report.repairs.iter().any(|r| r.kind == contextview::view::RepairKind::ImageTypeCorrected), "{provider} {recorded}");
            assert!(built.body.contains("image/png"), "{provider} {recorded}: {}", built.body);
            assert!(!built.body.contains(recorded), "{provider}");
        }
    }
    // A correct type is left alone.
    let built = build(&one_image("image/png", PNG), &BuildOptions::new(Provider::Anthropic, "m")).unwrap();
    assert!(built.report.repairs.is_empty());
}

#[test]
fn an_image_of_a_type_the_provider_does_not_take_is_replaced_by_a_note() {
    for provider in Provider::ALL {
        let built = build(&one_image("image/bmp", BMP), &BuildOptions::new(provider, "m")).unwrap();
        assert_eq!(built.report.images.evicted, vec!["u"], "{provider}");
        assert!(built.body.contains("not a type it takes"), "{provider}");
        assert!(built.payload.validate(&Default::default()).is_empty());
    }
}
