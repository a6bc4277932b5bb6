//! Every refusal has a stable code: each one the README documents is reached here (or in the JS
//! suites, for the codes only the JS wrapper raises) and its exact code asserted; and every code
//! the sources can raise is documented and asserted somewhere.

use crate::common::log::*;
use contextview::conversation::*;
use contextview_discovery::{DiscoveryOptions, Outcome, Step, Workspace};
use contextview_import::import;
use contextview::provider::Provider;
use contextview::request::{build_request, BuildInput};
use contextview::session::{Command, Processed, Session};
use contextview::view::{build, BuildError, BuildOptions};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn user_item(id: &str, text: &str) -> Item {
    Item::User(UserMessage { id: id.into(), content: vec![Part::text(text)], synthetic: None })
}

fn call(id: &str, call_id: &str) -> Item {
    Item::ToolCall(ToolCall { id: id.into(), call_id: call_id.into(), name: "read".into(), input: json!({"path": "a.rs"}).into(), origin: None, signature: None })
}

fn result(id: &str, call_id: &str) -> Item {
    Item::ToolResult(ToolResult { id: id.into(), call_id: call_id.into(), content: vec![Part::text("fn a() {}")], is_error: false, released: None })
}

fn run(session: &mut Session, command: Value) -> Processed {
    let command: Command = serde_json::from_value(command.clone()).unwrap_or_else(|e| panic!("{command}: {e}"));
    session.dispatch(command, Some("2026-12-03T00:00:00Z".into())).unwrap()
}

fn refused(session: &mut Session, command: Value) -> String {
    let before = session.records().len();
    let processed = run(session, command.clone());
    assert_eq!(session.records().len(), before, "{command}: a refusal writes nothing");
    processed.error.unwrap_or_else(|| panic!("{command} was accepted")).code
}

#[test]
fn builds_refuse_with_their_codes() {
    let options = BuildOptions::new(Provider::OpenAiChat, "gpt-5");
    assert_eq!(build(&[], &options).unwrap_err().code(), "empty_conversation");
    // Only blank text: nothing model-visible.
    assert_eq!(build(&[user_item("u1", "  ")], &options).unwrap_err().code(), "empty_conversation");

    // A model that takes no prefill, and the conversation ends with its own turn.
    let ends = [user_item("u1", "hi"), Item::Assistant(AssistantText { id: "a1".into(), text: String::from("Hello.").into(), origin: None, signature: None , annotations: None })];
    let e = build(&ends, &BuildOptions::new(Provider::Anthropic, "claude-opus-4-6")).unwrap_err();
    assert_eq!(e.code(), "ends_with_assistant");

    let input = BuildInput { log: None, items: None, ..BuildInput::new(Provider::Anthropic) };
    assert_eq!(build_request(&input).unwrap_err().code(), "invalid_options");
}

#[test]
fn a_payload_that_would_break_the_callers_limits_is_refused_with_the_rules_it_breaks() {
    // Chat Completions ids limited to 8 characters: the renderer rewrites the 30-character id to
    // a hashed one of 21, which the caller's limit still refuses. The body never goes out.
    let items = [user_item("u1", "Read a.rs"), call("c1", "call_0123456789abcdefghijklmnop"), result("r1", "call_0123456789abcdefghijklmnop")];
    let mut options = BuildOptions::new(Provider::OpenAiChat, "gpt-5");
    options.render.limits.openai_chat_max_call_id = 8;
    let e = build(&items, &options).unwrap_err();
    assert_eq!(e.code(), "invalid_payload");
    let BuildError::InvalidPayload { violations, message } = &e else { panic!("{e:?}") };
    assert!(!violations.is_empty(), "{message}");
    for v in violations {
        assert!(v.rule.starts_with("openai_chat."), "{v:?}");
        assert!(v.message.contains("1 to 8 characters"), "{v:?}");
    }
    assert!(violations.iter().any(|v| v.path.contains("tool_calls")), "{violations:?}");
    // Within the default limit the same conversation builds.
    options.render.limits.openai_chat_max_call_id = 40;
    assert!(build(&items, &options).is_ok());
}

#[test]
fn session_commands_refuse_with_their_codes_and_write_nothing() {
    let mut s = Session::create(contextview::update::Header::new("errors"));
    assert_eq!(refused(&mut s, json!({"type": "buildRequest"})), "invalid_options", "no model yet");
    assert_eq!(refused(&mut s, json!({"type": "buildRequest", "options": {"provider": "nobody"}})), "invalid_options");
    assert_eq!(refused(&mut s, json!({"type": "toolResult", "toolCallId": "nope", "output": "x"})), "unknown_tool_call");
    assert_eq!(refused(&mut s, json!({"type": "rewind", "promptIndex": 0})), "invalid_prompt_index");
    assert_eq!(refused(&mut s, json!({"type": "setPromptContext", "context": {"templates": {"primary": "{{nope}}"}}})), "invalid_template");
    assert_eq!(refused(&mut s, json!({"type": "prepareCompaction"})), "nothing_to_compact");
    assert_eq!(refused(&mut s, json!({"type": "applyCompaction", "summary": "## Goal\nx"})), "no_compaction_prepared");
    assert_eq!(refused(&mut s, json!({"type": "endAnswer"})), "no_answer_begun");
    assert_eq!(s.answer_bytes(b"data: {}\n\n").unwrap_err().code(), "no_answer_begun");
    assert_eq!(refused(&mut s, json!({"type": "providerAnswer", "body": "{}"})), "invalid_options", "no provider named or switched to");
    run(&mut s, json!({"type": "beginAnswer", "provider": "anthropic"}));
    assert_eq!(refused(&mut s, json!({"type": "beginAnswer", "provider": "anthropic"})), "answer_in_progress");
    assert_eq!(refused(&mut s, json!({"type": "userMessage", "text": "meanwhile"})), "answer_in_progress");
    assert_eq!(run(&mut s, json!({"type": "endAnswer"})).error, None);

    // A conversation long enough to compact.
    run(&mut s, json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
    for turn in 0..4 {
        run(&mut s, json!({"type": "userMessage", "text": format!("Step {turn}: look at part {turn} of the parser.")}));
        run(&mut s, json!({"type": "assistantResponse", "text": "Reading.", "toolCalls": [{"id": format!("c{turn}"), "name": "read", "input": {"path": "p.rs"}}]}));
        run(&mut s, json!({"type": "toolResult", "toolCallId": format!("c{turn}"), "output": "fn parse() {}\n".repeat(40)}));
        run(&mut s, json!({"type": "assistantResponse", "text": "Done with this part."}));
    }
    run(&mut s, json!({"type": "userMessage", "text": "Now summarise."}));
    assert!(run(&mut s, json!({"type": "prepareCompaction", "options": {"keepRecentTokens": 10}})).error.is_none());
    assert_eq!(refused(&mut s, json!({"type": "applyCompaction", "summary": ""})), "degenerate_summary");
    // Another writer rewinds the log (an appended record): what was prepared no longer holds.
    let next = s.records().last().unwrap().seq + 1;
    s.append_line(&event(next, json!({"kind": "rewind", "promptIndex": 2}))).unwrap();
    let summary = "## Goal\nFix the parser.\n## Decisions\nKeep the stack.\n## Progress\nParts 0-3 read.\n## Next steps\nWrite the fix.\n## Files\np.rs\n";
    assert_eq!(refused(&mut s, json!({"type": "applyCompaction", "summary": summary})), "compaction_stale");
    // …and it is cleared: the next try is told to prepare again.
    assert_eq!(refused(&mut s, json!({"type": "applyCompaction", "summary": summary})), "no_compaction_prepared");
}

#[test]
fn session_calls_refuse_with_their_codes() {
    let mut s = Session::create(contextview::update::Header::new("errors"));
    // Lines appended from elsewhere.
    assert_eq!(s.append_line("not json").unwrap_err().code(), "invalid_record");
    s.append_line(&user(1, "u1", "hi")).unwrap();
    assert_eq!(s.append_line(&user(1, "u2", "again")).unwrap_err().code(), "seq_conflict");
    // Tickets, storage and snapshots.
    assert_eq!(s.ack(77, contextview::session::PersistOutcome::Committed).unwrap_err().code(), "unknown_ticket");
    let foreign = format!("{}\n", r#"{"format":"contextview.session-log","version":1,"sessionId":"someone-else"}"#);
    assert_eq!(s.reconcile(&foreign).unwrap_err().code(), "session_mismatch");
    let mut snapshot = serde_json::to_value(s.snapshot().unwrap()).unwrap();
    snapshot["format"] = json!("something.else");
    assert_eq!(Session::restore(&serde_json::from_value(snapshot).unwrap()).unwrap_err().code(), "invalid_snapshot");
    // A dispatch while commands wait in the queue.
    s.submit(serde_json::from_value(json!({"type": "flush"})).unwrap(), None);
    let e = s.dispatch(serde_json::from_value(json!({"type": "flush"})).unwrap(), None).unwrap_err();
    assert_eq!(e.code(), "queue_not_empty");
}

#[test]
fn imports_and_discovery_refuse_with_their_codes() {
    assert_eq!(import(None, "just some text\n").unwrap_err().code(), "unknown_format");

    let mut ws = Workspace::new(DiscoveryOptions::new("/repo")).unwrap();
    let error = |step: Step| match step {
        Step::Done(Outcome::Error { code, .. }) => code,
        other => panic!("{other:?}"),
    };
    assert_eq!(error(ws.step()), "no_job");
    ws.start_load_skill("deploy");
    assert_eq!(error(ws.step()), "not_discovered");
    ws.start_rules_for_path("/repo/a.rs");
    assert_eq!(error(ws.step()), "not_discovered");
    // Discovery asks the host for files; a host that answers nothing stalls it.
    ws.start_discover();
    assert!(matches!(ws.step(), Step::Need(_)));
    assert_eq!(error(ws.step()), "discovery_stalled");
}

/// A test asserts `code` when a line names it beside an error's code (`e.code`, `error.code`,
/// `.code()`, a `code` binding) or a statement names it inside an assertion
/// (`assert_eq!(refused(…), "code")`, `check.rejects(…, 'code')`, the unhappy-path suite's
/// `isProviderError(cv, e, 'code')`, `assert_eq!(found, vec![…])`
/// over several lines, a `for expected in [...] { assert!(…) }`), and the line or statement is not
/// a claim that the code is absent (`notEqual`, `assert_ne!`, `!==`, …). A mention in a list, a
/// comment or a stub that raises the code does not count.
#[cfg(not(target_arch = "wasm32"))]
fn asserts_code(tests: &str, code: &str) -> bool {
    let quoted = [format!("\"{code}\""), format!("'{code}'")];
    let negating = ["notEqual", "assert_ne", "!==", "!=", "doesNotMatch", "notDeepEqual", "doesNotThrow", "doesNotReject", "new StorageError("];
    let plain = |s: &str| !negating.iter().any(|not| s.contains(not));
    let text: Vec<&str> = tests.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let by_line = text.iter().any(|line| {
        quoted.iter().any(|q| line.contains(q.as_str()))
            && ["code", "assert_eq!(", "assert.equal(", "assert.deepEqual(", "rejects(", "throws(", "isProviderError("].iter().any(|a| line.contains(a))
            && plain(line)
    });
    let text = text.join("\n");
    let by_statement = quoted.iter().any(|q| {
        text.match_indices(q.as_str()).any(|(at, _)| {
            let start = text[..at].rfind([';', '{', '}']).map_or(0, |i| i + 1);
            let end = text[at..].find(';').map_or(text.len(), |i| at + i);
            let statement = &text[start..end];
            ["assert", "rejects(", "throws("].iter().any(|a| statement.contains(a)) && plain(statement)
        })
    });
    by_line || by_statement
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn only_an_assertion_on_the_code_counts_as_asserting_it() {
    assert!(asserts_code("assert.equal(e.code, 'internal');", "internal"));
    assert!(asserts_code("    assert_eq!(refused(&mut s, cmd), \"no_job\");", "no_job"));
    assert!(asserts_code("await check.rejects(s.append([]), 'seq_gap');", "seq_gap"));
    assert!(asserts_code("    isProviderError(cv, e, 'refused');", "refused"));
    assert!(!asserts_code("assert.notEqual(e.code, 'internal');", "internal"));
    assert!(!asserts_code("// raises 'internal' when …", "internal"));
    assert!(!asserts_code("(json!({\"type\": \"rewind\"}), \"invalid_prompt_index\"),", "invalid_prompt_index"));
    assert!(!asserts_code("throw new StorageError('seq_gap', 'gap');", "seq_gap"));
    assert!(!asserts_code("assert_ne!(error.code, \"internal\");", "internal"));
    assert!(asserts_code("assert_eq!(\n    found,\n    vec![\n        \"a.b\",\n        \"c.d\",\n    ]\n);", "c.d"));
    assert!(asserts_code("for expected in [\"a.b\", \"c.d\"] {\n    assert!(found.contains(&expected));\n}", "a.b"));
    assert!(!asserts_code("let cases = [\n    \"a.b\",\n];\nassert!(ok)", "a.b"));
    assert!(!asserts_code("fn a() { assert!(x) }\nfn b() { run(\"a.b\"); }", "a.b"));
    assert!(!asserts_code("assert!(!found.iter().any(|c| c != \"a.b\"));", "a.b"));
}

/// Codes written as literals where a source raises them, by the patterns each kind of source
/// uses (`=> "code"` in a `code()`, `error("code"`, a reader's code argument, `code: "…"`).
#[cfg(not(target_arch = "wasm32"))]
fn literal_codes(text: &str, prefixes: &[&str], quote: char) -> std::collections::BTreeSet<String> {
    let mut codes = std::collections::BTreeSet::new();
    for prefix in prefixes {
        for (at, _) in text.match_indices(prefix) {
            // `type_error("rules", …)` names an argument, not a code: a prefix is a whole name.
            if prefix.starts_with(|c: char| c.is_ascii_alphabetic()) && text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            let code: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
            if !code.is_empty() && rest[code.len()..].starts_with(quote) {
                codes.insert(code);
            }
        }
    }
    codes
}

/// The Rust sources' raise sites that spell a code as a literal instead of naming a declared one.
#[cfg(not(target_arch = "wasm32"))]
fn rust_literal_codes() -> std::collections::BTreeSet<String> {
    let mut codes = std::collections::BTreeSet::new();
    for path in crate::common::rust_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        for (at, _) in text.match_indices("pub fn code(&self) -> &'static str {") {
            let body = &text[at..at + text[at..].find("\n    }\n").unwrap()];
            codes.extend(literal_codes(body, &["=> \""], '"'));
        }
        codes.extend(literal_codes(text, &["code: \"", "error(\"", "error_with(\""], '"'));
        for reader in ["via_value(", "from_json_text(", "json_text("] {
            for (at, _) in text.match_indices(reader) {
                let rest = &text[at + reader.len()..];
                // `(value, code, what)`: the code is the second argument.
                let call = &rest[..rest.find(')').unwrap_or(rest.len())];
                if let Some(code) = call.split(',').nth(1) {
                    codes.extend(literal_codes(code.trim(), &["\""], '"'));
                }
            }
        }
    }
    codes
}

/// The codes the package's JavaScript raises: its throws (`codedError('…'`, `new StorageError('…'`,
/// …) and the ProviderError codes, each of which has a message prefix in `errors.js`.
#[cfg(not(target_arch = "wasm32"))]
fn js_raised_codes() -> std::collections::BTreeSet<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut codes = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(root.join("pkg-template")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "mjs") {
            let text = std::fs::read_to_string(&path).unwrap();
            codes.extend(literal_codes(&text, &["codedError('", "StorageError('", "faultError('", "ContextviewError('", "ProviderError(processed, { code: '"], '\''));
        }
    }
    let errors = std::fs::read_to_string(root.join("crates/js/src/errors.js")).unwrap();
    let prefixes = &errors[errors.find("const PREFIX = {").expect("errors.js has the ProviderError prefixes")..];
    for line in prefixes.lines().skip(1).take_while(|l| !l.starts_with('}')) {
        codes.insert(line.trim().split(':').next().unwrap().to_owned());
    }
    codes
}

/// The codes a Rust `error_codes.rs` declares (`NAME = "code";`), with their constants' names.
#[cfg(not(target_arch = "wasm32"))]
fn declared_in(path: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" = \"")?;
            Some((name.to_owned(), rest.strip_suffix("\";")?.to_owned()))
        })
        .collect()
}

/// Every error code is declared once — in Rust in an `error_codes` list of the crate that raises
/// it and named where it is raised, in JavaScript by the TypeScript union `ContextviewErrorCode`
/// — raised somewhere, in the README's Errors table, and asserted by a test.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_error_code_is_declared_once_raised_documented_and_asserted() {
    use std::collections::BTreeSet;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lists = ["src/error_codes.rs", "crates/discovery/src/error_codes.rs", "crates/import/src/error_codes.rs", "crates/js/src/error_codes.rs"];
    let declared: Vec<(String, String, &str)> = lists.iter().flat_map(|l| declared_in(l).into_iter().map(move |(n, c)| (n, c, *l))).collect();
    // The lists as read are the lists the crates hold (the JS crate's is read from its text only).
    for (list, file) in [
        (contextview::error_codes::ERROR_CODES, lists[0]),
        (contextview_discovery::error_codes::ERROR_CODES, lists[1]),
        (contextview_import::error_codes::ERROR_CODES, lists[2]),
    ] {
        let read: BTreeSet<String> = declared.iter().filter(|d| d.2 == file).map(|d| d.1.clone()).collect();
        assert_eq!(read, list.iter().map(|c| c.to_string()).collect::<BTreeSet<String>>(), "{file}");
    }
    let rust: BTreeSet<String> = declared.iter().map(|d| d.1.clone()).collect();
    assert_eq!(rust.len(), declared.len(), "a code declared in two lists: {declared:?}");
    assert!(rust.len() >= 35, "{rust:?}");

    // Raised by name: each constant is used outside the lists, and no raise site spells a code.
    let mut sources = String::new();
    for path in crate::common::rust_sources().into_iter().filter(|p| !p.ends_with("error_codes.rs")) {
        let text = std::fs::read_to_string(&path).unwrap();
        sources.push_str(text.split("#[cfg(test)]").next().unwrap_or(""));
    }
    let unraised: Vec<&String> = declared.iter().filter(|(name, ..)| !sources.contains(&format!("error_codes::{name}"))).map(|d| &d.1).collect();
    assert_eq!(unraised, Vec::<&String>::new(), "declared and never raised");
    assert_eq!(rust_literal_codes(), BTreeSet::new(), "codes raised as literals: declare them in an error_codes list and name them");

    // The TypeScript union is the whole set: the Rust lists and what the JavaScript raises.
    let dts = std::fs::read_to_string(root.join("pkg-template/index.d.ts")).unwrap();
    let union = |name: &str| -> BTreeSet<String> {
        let at = dts.find(&format!("export type {name} =")).unwrap_or_else(|| panic!("index.d.ts declares {name}"));
        let body = &dts[at..at + dts[at..].find(';').unwrap()];
        body.split('\'').skip(1).step_by(2).map(str::to_owned).collect()
    };
    let typescript: BTreeSet<String> = union("ContextviewErrorCode").into_iter().chain(union("ProviderErrorCode")).chain(union("StorageErrorCode")).collect();
    let js = js_raised_codes();
    let raised: BTreeSet<String> = rust.iter().chain(&js).cloned().collect();
    assert_eq!(typescript, raised, "ContextviewErrorCode and the codes the Rust lists declare and the JavaScript raises");

    // The README's Errors table has each, and only these.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let table = &readme[readme.find("## Errors").expect("README has an Errors section")..];
    let table = &table[..table[3..].find("\n## ").map_or(table.len(), |i| i + 3)];
    let documented: BTreeSet<String> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| l.split('|').nth(1).unwrap().split('`').skip(1).step_by(2).map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert_eq!(documented, raised, "the README's Errors table");

    let tests = test_sources();
    let unasserted: Vec<&String> = raised.iter().filter(|c| !asserts_code(&tests, c)).collect();
    assert_eq!(unasserted, Vec::<&String>::new(), "codes no test asserts");
}

/// The literal scan finds a code spelled at a raise site, so a code raised without its list's
/// constant fails the registry's test.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_code_spelled_where_it_is_raised_is_found() {
    let found = literal_codes("    error(\"made_up\", \"m\")\n    Outcome::Error { code: \"other\".to_owned() }", &["code: \"", "error(\""], '"');
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["made_up", "other"]);
    assert!(literal_codes("error(codes::MADE_UP, \"m\")", &["error(\""], '"').is_empty());
    assert!(literal_codes("type_error(\"rules\", \"m\")", &["error(\""], '"').is_empty());
}

/// The tests' text, for [`asserts_code`]: every test file but this one's source scan.
#[cfg(not(target_arch = "wasm32"))]
fn test_sources() -> String {
    use std::path::Path;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut tests = String::new();
    for dir in ["tests/it", "tests/corpus", "tests/js", "tests/workerd", "tests/sdk-types", "tests/packaging"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs" || e == "mjs" || e == "ts") && !path.ends_with("errors.rs") {
                tests.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    tests.push_str(&std::fs::read_to_string(root.join("tests/it/errors.rs")).unwrap().split("/// The codes a source raises").next().unwrap().to_owned());
    // Unit tests beside the code: each source file from its `#[cfg(test)]` on.
    for path in crate::common::rust_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        if let Some(at) = text.find("#[cfg(test)]") {
            tests.push_str(&text[at..]);
        }
    }
    tests
}


/// Every diagnostic code is in one module's list; the README's Diagnostics table has a row for
/// each, saying what the list says, and a test asserts each.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_diagnostic_code_is_listed_once_documented_and_asserted_by_a_test() {
    use contextview::diagnostic::Severity;
    // The core's codes, and those of the crates beside it that raise diagnostics.
    let codes = || contextview::diagnostic_codes().chain(contextview_import::codes::CODES.iter().copied()).chain(contextview_discovery::codes::CODES.iter().copied());
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let table = &readme[readme.find("## Diagnostics").expect("README has a Diagnostics section")..];
    let table = &table[..table[3..].find("\n## ").map_or(table.len(), |i| i + 3)];
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    let tests = test_sources();
    let mut seen = std::collections::BTreeSet::new();
    let mut wrong_rows = Vec::new();
    let mut unasserted = Vec::new();
    for code in codes() {
        assert!(seen.insert(code.code), "`{}` is listed twice", code.code);
        let (area, name) = code.code.split_once('.').expect("a code is area.name");
        assert!(!area.is_empty() && !name.is_empty() && code.code.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.'), "{}", code.code);
        let severity = match code.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        let row = format!("| `{}` | {severity} | {} |", code.code, code.when);
        if !rows.contains(&row.as_str()) {
            wrong_rows.push(row);
        }
        if !asserts_code(&tests, code.code) {
            unasserted.push(code.code);
        }
    }
    assert!(seen.len() >= 80, "{seen:?}");
    // Every module's list is in `diagnostic_codes()`: the codes each `codes.rs` declares.
    let mut declared = std::collections::BTreeSet::new();
    for path in crate::common::rust_sources().into_iter().filter(|p| p.ends_with("codes.rs")) {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter(|l| l.trim_start().chars().next().is_some_and(|c| c.is_ascii_uppercase())) {
            if let Some(code) = line.split('"').nth(1) {
                declared.insert(code.to_owned());
            }
        }
    }
    assert_eq!(declared, seen.iter().map(|c| c.to_string()).collect(), "codes declared in a codes.rs but not listed by diagnostic_codes() or an importing or discovery crate's CODES, or the reverse");
    assert_eq!(rows.len(), seen.len(), "the README's table has rows for codes no module lists");
    assert_eq!(wrong_rows, Vec::<String>::new(), "README rows missing or not saying what the list says");
    assert_eq!(unasserted, Vec::<&str>::new(), "diagnostic codes no test asserts");
}
