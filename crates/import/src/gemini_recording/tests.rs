use pretty_assertions::assert_eq;
use serde_json::json;

use super::{is_recording, read};

const LINES: &str = include_str!("../../../../tests/fixtures/gemini-cli.jsonl");
const WHOLE: &str = include_str!("../../../../tests/fixtures/gemini-cli.json");

fn ids_and_lines(text: &str) -> Vec<(String, usize)> {
    read(text).messages.iter().map(|m| (m.id().to_owned(), m.line)).collect()
}

#[test]
fn the_json_lines_form_reads_to_the_messages_at_its_end() {
    let recording = read(LINES);
    assert!(recording.lines_form);
    let session_context = "e".repeat(32);
    let expected: Vec<(&str, usize)> = vec![
        (&session_context, 2),
        ("u1", 3),
        // Written again with its calls: replaced where it stood, on the line it was last written.
        ("g1", 6),
        ("r1", 7),
        ("i1", 9),
        ("g2", 10),
        ("u2", 11),
        ("g3", 12),
        // u3 and g4 were rewound.
        ("u4", 16),
        ("g5", 17),
        ("u5", 18),
        ("g6", 19),
    ];
    let got = ids_and_lines(LINES);
    assert_eq!(got, expected.iter().map(|(i, l)| (i.to_string(), *l)).collect::<Vec<_>>());
    assert_eq!(recording.superseded, 2);
    assert_eq!(recording.lines, 21);
    assert_eq!(recording.session_id(), "5b0c7e2a-1111-4c1e-9a3e-000000000001");
    assert_eq!(recording.meta["summary"], json!("Fix the parser's empty input"));
    assert_eq!(recording.meta["kind"], json!("main"));
    // The last line was cut short, as a crash leaves it.
    assert_eq!(recording.skipped.len(), 1);
    assert_eq!(recording.skipped[0].0, 21);
    assert!(recording.skipped[0].1.starts_with("line is not JSON: EOF while parsing"), "{:?}", recording.skipped);
}

#[test]
fn the_whole_file_form_reads_each_message_with_the_line_of_its_id() {
    let recording = read(WHOLE);
    assert!(!recording.lines_form);
    let line_of = |id: &str| WHOLE.lines().position(|l| l.trim() == format!("\"id\": \"{id}\",")).unwrap() + 1;
    let expected: Vec<(String, usize)> = ["w1", "w2", "w3", "w4", "w5", "w6", "w7"].iter().map(|id| (id.to_string(), line_of(id))).collect();
    assert_eq!(ids_and_lines(WHOLE), expected);
    assert_eq!(recording.session_id(), "5b0c7e2a-2222-4c1e-9a3e-000000000002");
    assert_eq!(recording.superseded, 0);
    assert!(recording.skipped.is_empty());
    // The same record on one line (a header holding its messages) reads the same.
    let one_line = serde_json::to_string(&serde_json::from_str::<serde_json::Value>(WHOLE).unwrap()).unwrap();
    let ids: Vec<String> = read(&one_line).messages.iter().map(|m| m.id().to_owned()).collect();
    assert_eq!(ids, ["w1", "w2", "w3", "w4", "w5", "w6", "w7"]);
}

#[test]
fn each_record_kind_applies_as_the_cli_loads_it() {
    let header = json!({"sessionId": "s", "projectHash": "h"});
    let m = |id: &str, text: &str| json!({"id": id, "type": "user", "content": text});
    let text = |records: &[serde_json::Value]| records.iter().map(|r| format!("{r}\n")).collect::<String>();
    let ids = |records: &[serde_json::Value]| -> Vec<String> { read(&text(records)).messages.iter().map(|m| format!("{}={}", m.id(), m.value["content"].as_str().unwrap_or(""))).collect() };
    // A known id is replaced where it stands.
    assert_eq!(ids(&[header.clone(), m("a", "1"), m("b", "2"), m("a", "3")]), ["a=3", "b=2"]);
    // A rewind drops the message named and every later one; an unknown id clears them all.
    assert_eq!(ids(&[header.clone(), m("a", "1"), m("b", "2"), m("c", "3"), json!({"$rewindTo": "b"}), m("d", "4")]), ["a=1", "d=4"]);
    assert_eq!(ids(&[header.clone(), m("a", "1"), json!({"$rewindTo": "zz"}), m("b", "2")]), ["b=2"]);
    // A checkpoint replaces them all; other keys of `$set` are metadata.
    let checkpoint = json!({"$set": {"messages": [m("x", "9"), {"no": "id"}], "summary": "S"}});
    assert_eq!(ids(&[header.clone(), m("a", "1"), checkpoint.clone(), m("b", "2")]), ["x=9", "b=2"]);
    let recording = read(&text(&[header.clone(), m("a", "1"), checkpoint, m("a", "again")]));
    assert_eq!(recording.meta["summary"], json!("S"));
    assert_eq!(recording.superseded, 1);
    // A line of no kind is skipped and said.
    let recording = read(&text(&[header, json!({"what": 1}), json!([1])]));
    assert_eq!(recording.skipped.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [2, 3]);
}

#[test]
fn a_recording_is_known_by_its_content_not_its_name() {
    assert!(is_recording(LINES));
    assert!(is_recording(WHOLE));
    assert!(is_recording("\n\r\n{\"sessionId\":\"s\",\"projectHash\":\"h\"}\r\n"));
    assert!(!is_recording("{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"s\"}\n"));
    assert!(!is_recording("{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}\n"));
    assert!(!is_recording("{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\"\n}\n"));
    assert!(!is_recording(""));
}
