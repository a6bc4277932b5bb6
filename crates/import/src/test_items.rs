//! The importers' tests' view of an import: each item the log replays to, in a line — its kind,
//! and what it says (images counted, a call's id, name, input and signature).

use contextview::conversation::{text_of, Item, Part};

use crate::dispatch::import;
use crate::format::Format;

pub(crate) fn items(format: Option<Format>, text: &str) -> Vec<String> {
    let imported = import(format, text).unwrap();
    let images = |parts: &[Part]| match parts.iter().filter(|p| matches!(p, Part::Image(_))).count() {
        0 => String::new(),
        n => format!(" +{n} image"),
    };
    contextview::update::replay(&imported.records)
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
