//! The importers' tests' view of an import: each item the log replays to, in a line — its kind,
//! and what it says (images counted, a call's id, name, input and signature).

use contextview::conversation::{text_of, Item, Part};
use contextview::update::record::{Event, Record, RecordBody};

use crate::dispatch::import;
use crate::format::Format;

pub(crate) fn items(format: Option<Format>, text: &str) -> Vec<String> {
    describe(&import(format, text).unwrap().records)
}

/// The items `records` replay to, a line each.
pub(crate) fn describe(records: &[Record]) -> Vec<String> {
    let images = |parts: &[Part]| match parts.iter().filter(|p| matches!(p, Part::Image(_))).count() {
        0 => String::new(),
        n => format!(" +{n} image"),
    };
    contextview::update::replay(records)
        .items
        .iter()
        .map(|item| match item {
            Item::User(m) => format!("user{}: {}{}", m.synthetic.map(|s| format!(" ({})", s.as_str())).unwrap_or_default(), text_of(&m.content), images(&m.content)),
            Item::Assistant(a) => format!("assistant: {}", a.text),
            Item::Reasoning(r) => format!("reasoning: {}{}", r.text, r.signature.as_ref().map(|s| format!(" [{s}]")).unwrap_or_default()),
            Item::ToolCall(c) => format!("call {} {} {}{}", c.call_id, c.name, c.input.as_str(), c.signature.as_ref().map(|s| format!(" [{s}]")).unwrap_or_default()),
            Item::ToolResult(r) => format!("result {}{}: {}{}", r.call_id, if r.is_error { " (error)" } else { "" }, text_of(&r.content), images(&r.content)),
            Item::Native(_) => "native".to_owned(),
        })
        .collect()
}

/// The events of `records` the importers' tests look at, a line each: model switches, usage
/// anchors, subagents linked.
pub(crate) fn events(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Event(Event::ModelSwitch(m)) => Some(format!("model {} {}", m.provider, m.model)),
            RecordBody::Event(Event::UsageAnchor(u)) => {
                Some(format!("usage {}+{}r+{}w in, {} out", u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens))
            }
            RecordBody::Event(Event::SubagentStarted(s)) => Some(format!("subagent {} for {}", s.session_id, s.call_id)),
            _ => None,
        })
        .collect()
}
