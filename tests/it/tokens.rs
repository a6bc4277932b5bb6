//! The token estimator against an exact tokenizer (`o200k_base`, a dev dependency only), per kind
//! of text, on our fixture sessions, and the image formulas.
#![cfg(not(target_arch = "wasm32"))]

use base64::Engine as _;
use contextview::conversation::{Image, Item};
use contextview_import::import;
use contextview::provider::Provider;
use contextview::tokens::{image_tokens, item_images, item_texts, item_tokens, text_tokens, Family, Features};
use contextview::update::{parse_log, replay};

fn exact(text: &str) -> f64 {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len() as f64
}

fn error(text: &str) -> f64 {
    let e = text_tokens(text, Family::OpenAi);
    let x = exact(text);
    (e - x).abs() / x
}

fn bytes_over_four_error(text: &str) -> f64 {
    let x = exact(text);
    (text.len() as f64 / 4.0 - x).abs() / x
}

const PROSE: &str = "When the build breaks on a fresh machine, the first thing to check is whether \
the toolchain matches the one the lockfile was written with. Most surprises come from a newer \
compiler warning that the project treats as an error, or from a cached artifact that outlived \
the source it was built from. Clearing the cache is cheap; guessing is not.";

const JSON_INPUT: &str = r#"{"path":"src/view/ledger.rs","old_text":"let used = anchor + delta;","new_text":"let used = (anchor as i64 + delta as i64 + overhead).max(0) as u64;","replace_all":false,"line_hint":[120,134]}"#;

const CODE: &str = r#"pub fn window(model: &str) -> Option<u64> {
    let m = model.to_ascii_lowercase();
    if m.starts_with("claude") {
        return Some(200_000);
    }
    match m.split('-').next() {
        Some("gpt") => Some(128_000),
        _ => None,
    }
}
"#;

/// Our own Chinese paragraph about the same subject.
const CJK: &str = "上下文不是聊天记录，而是每次请求时按需构建的视图。持久化的日志保持完整无损，\
模型看到的视图可以有损：旧的工具输出会被裁剪，过大的图片会被替换为占位符，\
提醒会在下一次采样之前注入。这样既能控制令牌预算，又不会丢失任何已经记录的内容。";

fn base64_blob() -> String {
    // Pseudo-random bytes (a fixed LCG), as an encoded attachment would look.
    let mut x: u32 = 12345;
    let bytes: Vec<u8> = (0..3000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as u8
        })
        .collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn each_kind_of_text_is_within_a_tenth_of_the_tokenizer() {
    let blob = base64_blob();
    // A tool call that writes a file: its content is one JSON string full of escapes.
    let write = serde_json::json!({"path": "src/window.rs", "content": CODE}).to_string();
    // Words run together, as in minified code: about five letters a token, not one word.
    let run_on = "returnvaluewhileloopcounterfunctionresult".repeat(25);
    assert_eq!(Features::of(&write).escapes as usize, write.matches("\\n").count() + write.matches("\\\"").count());
    for (kind, text) in [("prose", PROSE), ("json", JSON_INPUT), ("code", CODE), ("cjk", CJK), ("base64", blob.as_str()), ("escaped file content", write.as_str())] {
        let e = error(text);
        assert!(e <= 0.10, "{kind}: estimate off by {:.1}% ({} vs {})", e * 100.0, text_tokens(text, Family::OpenAi), exact(text));
    }
    // Run-on letters are priced by a prior, not a fit: close, not exact (one word would be 4× off).
    assert!(error(&run_on) <= 0.15, "run-on letters: off by {:.1}%", error(&run_on) * 100.0);
}

/// What tool outputs are full of: a long listing in columns padded with spaces, numbered lines
/// (as file reads show them), and a box drawn with runs of one symbol.
fn columns_and_boxes() -> (String, String, String) {
    let mut listing = String::from("total 96\n");
    for (i, name) in ["src", "tests", "docs", "README.md", "Cargo.toml", "build.rs", "benches", "examples"].iter().enumerate() {
        listing.push_str(&format!("drwxr-xr-x@ {:>2} dev  staff  {:>5} Mar {:>2} 10:{:02} {name}\n", i + 2, 64 * (i + 1) * 7, i + 3, i * 7));
    }
    let numbered: String = CODE.lines().enumerate().map(|(i, l)| format!("{:>6}\u{2192}{l}\n", i + 1)).collect();
    let rule = "\u{2500}".repeat(48);
    let boxed = format!("\u{250c}{rule}\u{2510}\n\u{2502} Phase 1: resolve the threads        \u{2502}\n\u{2514}{rule}\u{2518}\n").repeat(6);
    (listing, numbered, boxed)
}

#[test]
fn padded_columns_numbered_lines_and_symbol_runs_are_counted_as_the_tokenizer_splits_them() {
    let (listing, numbered, boxed) = columns_and_boxes();
    // The space before a number is a piece of its own; a run of one symbol merges.
    assert_eq!(Features::of(" 3 apples").spaced_digits, 1.0);
    assert_eq!(Features::of("a\u{2500}\u{2500}\u{2500}").symbol_repeats, 2.0);
    for (kind, text) in [("ls -l listing", &listing), ("numbered lines", &numbered), ("box drawing", &boxed)] {
        let e = error(text);
        assert!(e <= 0.10, "{kind}: estimate off by {:.1}% ({} vs {})", e * 100.0, text_tokens(text, Family::OpenAi), exact(text));
    }
}

#[test]
fn the_estimator_beats_bytes_over_four_where_it_fails() {
    // bytes/4 prices dense base64 at a quarter token per character and misses how JSON's
    // punctuation splits; the estimator sees what they are. (For CJK under o200k, bytes/4 happens
    // to be close: three bytes a character, about 0.75 tokens.)
    let blob = base64_blob();
    for (kind, text) in [("base64", blob.as_str()), ("json", JSON_INPUT)] {
        assert!(error(text) < bytes_over_four_error(text), "{kind}: estimator {:.3} vs bytes/4 {:.3}", error(text), bytes_over_four_error(text));
    }
    let f = Features::of(&blob);
    assert_eq!(f.base64_chars as usize, blob.len(), "the blob is recognised as one base64 run");
    assert_eq!(Features::of(CJK).cjk as usize, CJK.chars().count(), "every character of the paragraph is CJK");
}

#[test]
fn fixture_sessions_are_within_five_percent_in_total() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut items: Vec<Item> = replay(&parse_log(&std::fs::read_to_string(root.join("examples/session.jsonl")).unwrap()).records).items;
    for name in ["claude-code", "codex", "pi"] {
        let text = std::fs::read_to_string(root.join(format!("tests/fixtures/{name}.jsonl"))).unwrap();
        items.extend(replay(&import(None, &text).unwrap().records).items);
    }
    let mut truth = 0.0;
    let mut estimate = 0.0;
    for item in items.iter().filter(|i| item_images(i).next().is_none()) {
        let framing = Family::OpenAi.per_item() as f64;
        truth += item_texts(item).iter().map(|t| exact(t)).sum::<f64>() + framing;
        estimate += item_tokens(item, Family::OpenAi) as f64;
    }
    let err = (estimate - truth).abs() / truth;
    assert!(err <= 0.05, "fixture sessions: {estimate} estimated vs {truth} exact ({:.1}%)", err * 100.0);
}



/// Texts the weights were never fitted on (`tests/fixtures/held-out`: this project's own docs,
/// sources, a report and a shell listing, frozen), read by an agent in chunks of about 3 KB, one
/// tool round each. At every request the count is the exact total at the previous request plus
/// the estimate of what came since — the ledger's anchored count — against the exact total, over
/// the requests of 10,000 tokens or more (a coding agent's system prompt and tools alone come
/// near that; on a near-empty context one chunk's error is a larger share).
#[test]
fn on_held_out_texts_the_anchored_count_is_within_the_aim() {
    use contextview::conversation::{Part, ToolCall, ToolResult};
    use serde_json::json;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/held-out");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names.len(), 8, "{names:?}");
    let framing = Family::OpenAi.per_item() as f64;
    let exact_item = |item: &Item| item_texts(item).iter().map(|t| exact(t)).sum::<f64>() + framing;
    let (mut total, mut errors, mut round) = (0.0, Vec::new(), 0);
    let (mut whole_estimate, mut whole_exact) = (0.0, 0.0);
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        // Unanchored, each document whole: a pretty-printed JSON report is the worst (-14%,
        // its indented keys split finer than words do), markdown tables next (-6%).
        let whole = error(&text);
        assert!(whole <= 0.15, "{name}: {:.1}% off o200k", whole * 100.0);
        (whole_estimate, whole_exact) = (whole_estimate + text_tokens(&text, Family::OpenAi), whole_exact + exact(&text));
        let mut chunk = String::new();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            chunk.push_str(line);
            if chunk.len() < 3_000 && i + 1 < lines.len() {
                continue;
            }
            round += 1;
            let call_id = format!("call_{round}");
            let delta = [
                Item::ToolCall(ToolCall { id: format!("c{round}"), call_id: call_id.clone(), name: "read".into(), input: json!({"path": name, "offset": i}).into(), origin: None, signature: None }),
                Item::ToolResult(ToolResult { id: format!("r{round}"), call_id, content: vec![Part::text(std::mem::take(&mut chunk))], is_error: false, released: None }),
            ];
            let estimated: f64 = delta.iter().map(|d| item_tokens(d, Family::OpenAi) as f64).sum();
            let exact_delta: f64 = delta.iter().map(exact_item).sum();
            let anchored = total + estimated;
            total += exact_delta;
            if total >= 10_000.0 {
                errors.push((anchored - total).abs() / total);
            }
        }
    }
    // All of it together, unanchored: within 5%.
    let together = (whole_estimate - whole_exact).abs() / whole_exact;
    assert!(together <= 0.05, "{:.1}% off o200k over {whole_exact} tokens", together * 100.0);
    errors.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p95 = errors[(errors.len() - 1) * 95 / 100];
    assert!(errors.len() >= 20, "{} requests", errors.len());
    assert!(p95 <= 0.003, "anchored p95 {:.3}% over {} requests (aim 0.3%)", p95 * 100.0, errors.len());
}

/// A PNG of the given size: signature and header chunk are all a size reader needs.
fn png(width: u32, height: u32) -> Image {
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R'];
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    Image::Base64 { media_type: "image/png".into(), data: base64::engine::general_purpose::STANDARD.encode(bytes) }
}

#[test]
fn image_costs_follow_each_providers_formula() {
    // Anthropic: w × h / 750, after fitting 1568 px on the long side.
    assert_eq!(image_tokens(&png(750, 100), Family::Anthropic), 100);
    assert_eq!(image_tokens(&png(1000, 1000), Family::Anthropic), 1334);
    // Fitted to 1568 × 784, over 1.15 megapixels: the API shrinks it further, about 1,600 at most.
    assert_eq!(image_tokens(&png(3136, 1568), Family::Anthropic), 1600);
    // OpenAI high detail: 1024×1024 → 768×768 → 4 tiles of 512 → 85 + 4 × 170.
    assert_eq!(image_tokens(&png(1024, 1024), Family::OpenAi), 765);
    assert_eq!(image_tokens(&png(512, 512), Family::OpenAi), 255);
    // Gemini: 258 up to 384 px, then per 768-px tile.
    assert_eq!(image_tokens(&png(300, 200), Family::Gemini), 258);
    assert_eq!(image_tokens(&png(1536, 768), Family::Gemini), 516);
    // No readable size: each provider's typical cost.
    let opaque = Image::Base64 { media_type: "image/png".into(), data: "AAAA".into() };
    assert_eq!(
        [Family::Anthropic, Family::OpenAi, Family::Gemini].map(|f| image_tokens(&opaque, f)),
        [1600, 765, 258]
    );
}

#[test]
fn families_follow_the_model_before_the_api_shape() {
    assert_eq!(Family::of(Provider::Anthropic, "claude-opus-4-1"), Family::Anthropic);
    assert_eq!(Family::of(Provider::OpenAiChat, "anthropic/claude-sonnet-4-5"), Family::Anthropic);
    assert_eq!(Family::of(Provider::OpenAiChat, "google/gemini-2.5-flash"), Family::Gemini);
    assert_eq!(Family::of(Provider::OpenAiResponses, "gpt-5"), Family::OpenAi);
    assert_eq!(Family::of(Provider::Gemini, "some-tuned-model"), Family::Gemini);
    assert_eq!(Family::of_names(Some("anthropic"), None), Family::Anthropic);
    // Claude's tokenizer yields more tokens than o200k for the same text.
    assert!(text_tokens(PROSE, Family::Anthropic) > text_tokens(PROSE, Family::OpenAi));
}
