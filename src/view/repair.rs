//! Repair: structural breaks in the history, mended in the view only (chapter 8.8).
//!
//! A crash, a cancel or an old log can leave a tool call with no result, a result with no call,
//! two results for one call, a result that arrived after the user spoke again, a reused call id,
//! empty messages or an image whose bytes are not base64. Providers reject whole requests for
//! any of these. This stage returns a new item list in canonical form — every assistant turn is
//! followed at once by exactly one result per call, in call order — plus a [`Repair`] entry for
//! everything it changed. The durable log is never touched; synthetic ids derive from the ids
//! they stand for, so the same history always repairs to the same bytes.

use contextview_derive::ReadValue;
use std::borrow::Cow;
use rustc_hash::FxHashMap as HashMap;

use base64::Engine as _;
use serde::Serialize;

use crate::conversation::{Item, Part, SyntheticReason, ToolResult, UserMessage};

/// What repair changed, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Repair {
    pub kind: RepairKind,
    /// The item the repair is about (the call for a synthetic result).
    pub item_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    /// A call had no result: a synthetic one says what happened.
    SyntheticResult,
    /// A result answered no earlier call: left out of the view.
    OrphanResultDropped,
    /// A call had several results: the last one is kept.
    DuplicateResultDropped,
    /// A result came after other messages: moved up to right after its call's turn.
    ResultMoved,
    /// A call reused an earlier call's id: it (and its results) got a derived id.
    DuplicateCallId,
    /// A message with no content left: left out of the view.
    EmptyDropped,
    /// Text that is only whitespace (a lone `"\n\n"` beside a tool call): left out of the view,
    /// since providers reject it ("text content blocks must contain non-whitespace text").
    BlankTextDropped,
    /// An image whose data is not valid base64 (or has no media type): replaced by a note.
    InvalidImageReplaced,
    /// An image whose recorded media type is not what its bytes are: sent with the true one.
    ImageTypeCorrected,
    /// The history began with an assistant turn: a synthetic user message opens it.
    LeadingUserInserted,
}

/// Repair settings.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairConfig {
    /// Text of the synthetic result for a call that never got one; `{name}` is the tool's name.
    pub dangling_result_text: String,
    /// Text of the synthetic user message that opens a history starting with the assistant.
    pub leading_user_text: String,
}

impl Default for RepairConfig {
    fn default() -> Self {
        RepairConfig {
            dangling_result_text: "Tool execution was interrupted: no result was recorded for `{name}`, so it may or may not have run. Check its effects before relying on them.".to_owned(),
            leading_user_text: "(The earlier part of this conversation is not included.)".to_owned(),
        }
    }
}

/// Returns the repaired items and what was repaired. Items repair leaves alone are borrowed,
/// not copied.
pub fn repair<'a>(items: &'a [Item], config: &RepairConfig) -> (Vec<Cow<'a, Item>>, Vec<Repair>) {
    let mut repairs = Vec::new();

    // 1. Clean single items: empty text, broken images, empty messages.
    let mut cleaned: Vec<Cow<'a, Item>> = Vec::with_capacity(items.len());
    for item in items {
        match clean(item, &mut repairs) {
            Some(item) => cleaned.push(item),
            // Gone because its only text was blank: that repair already says so.
            None if repairs.last().is_some_and(|r| r.kind == RepairKind::BlankTextDropped && r.item_id == item.id()) => {}
            None => repairs.push(Repair { kind: RepairKind::EmptyDropped, item_id: item.id().to_owned(), call_id: None }),
        }
    }

    // 2. Unique call ids: a reused id is renamed from that call on, for the call and its results.
    let mut seen_calls: HashMap<String, usize> = HashMap::default();
    let mut renamed: HashMap<String, String> = HashMap::default();
    // Every id in use, so a derived id never collides with a real one (`a`, `a`, `a-2`).
    let mut in_use: rustc_hash::FxHashSet<String> = cleaned
        .iter()
        .filter_map(|i| match i.as_ref() {
            Item::ToolCall(c) => Some(c.call_id.clone()),
            _ => None,
        })
        .collect();
    for item in &mut cleaned {
        match item.as_ref() {
            Item::ToolCall(call) => {
                let count = seen_calls.entry(call.call_id.clone()).or_insert(0);
                *count += 1;
                if *count > 1 {
                    let mut n = *count;
                    let mut new_id = format!("{}-{n}", call.call_id);
                    while in_use.contains(&new_id) {
                        n += 1;
                        new_id = format!("{}-{n}", call.call_id);
                    }
                    in_use.insert(new_id.clone());
                    repairs.push(Repair { kind: RepairKind::DuplicateCallId, item_id: call.id.clone(), call_id: Some(call.call_id.clone()) });
                    renamed.insert(call.call_id.clone(), new_id.clone());
                    if let Item::ToolCall(call) = item.to_mut() {
                        call.call_id = new_id;
                    }
                } else {
                    renamed.remove(&call.call_id);
                }
            }
            Item::ToolResult(result) => {
                if let Some(new_id) = renamed.get(&result.call_id).cloned() {
                    if let Item::ToolResult(result) = item.to_mut() {
                        result.call_id = new_id;
                    }
                }
            }
            Item::User(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::Native(_) => {}
        }
    }

    // 3. Match each result to the call it answers (the nearest earlier call with its id).
    let mut call_position: HashMap<&str, usize> = HashMap::default();
    let mut results_for: HashMap<usize, Vec<usize>> = HashMap::default();
    for (index, item) in cleaned.iter().enumerate() {
        match item.as_ref() {
            Item::ToolCall(call) => {
                call_position.insert(call.call_id.as_str(), index);
            }
            Item::ToolResult(result) => match call_position.get(result.call_id.as_str()) {
                Some(&call) => results_for.entry(call).or_default().push(index),
                None => repairs.push(Repair {
                    kind: RepairKind::OrphanResultDropped,
                    item_id: result.id.clone(),
                    call_id: Some(result.call_id.clone()),
                }),
            },
            Item::User(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::Native(_) => {}
        }
    }

    // 4. Emit: results right after their turn, in call order; synthetic ones where missing.
    let mut out: Vec<Cow<'a, Item>> = Vec::with_capacity(cleaned.len() + 1);
    // A turn is a run of assistant-side items; a result or a user message ends it.
    let mut turn_calls: Vec<usize> = Vec::new();
    for (index, item) in cleaned.iter().enumerate() {
        match item.as_ref() {
            Item::ToolResult(_) => continue,
            Item::ToolCall(_) => turn_calls.push(index),
            Item::User(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::Native(_) => {}
        }
        out.push(item.clone());
        let turn_ends = item.is_assistant_side() && !cleaned.get(index + 1).is_some_and(|i| i.is_assistant_side());
        if turn_ends {
            // The results standing right after the turn are in place; any other was moved here.
            let in_place_end = cleaned[index + 1..]
                .iter()
                .position(|i| !matches!(i.as_ref(), Item::ToolResult(_)))
                .map_or(cleaned.len(), |p| index + 1 + p);
            let in_place = index + 1..in_place_end;
            for call_index in turn_calls.drain(..) {
                emit_results(&cleaned, call_index, results_for.get(&call_index), &in_place, &mut out, &mut repairs, config);
            }
        }
    }
    if out.first().is_some_and(|i| i.is_assistant_side()) {
        let id = format!("leading-user:{}", out[0].id());
        repairs.push(Repair { kind: RepairKind::LeadingUserInserted, item_id: id.clone(), call_id: None });
        out.insert(
            0,
            Cow::Owned(Item::User(UserMessage {
                id,
                content: vec![Part::text(config.leading_user_text.clone())],
                synthetic: Some(SyntheticReason::SystemReminder),
            })),
        );
    }
    (out, repairs)
}

fn emit_results<'a>(
    items: &[Cow<'a, Item>],
    call_index: usize,
    results: Option<&Vec<usize>>,
    in_place: &std::ops::Range<usize>,
    out: &mut Vec<Cow<'a, Item>>,
    repairs: &mut Vec<Repair>,
    config: &RepairConfig,
) {
    let Item::ToolCall(call) = items[call_index].as_ref() else { return };
    match results.and_then(|all| all.split_last()) {
        None => {
            repairs.push(Repair { kind: RepairKind::SyntheticResult, item_id: call.id.clone(), call_id: Some(call.call_id.clone()) });
            out.push(Cow::Owned(Item::ToolResult(ToolResult {
                id: format!("synthetic-result:{}", call.id),
                call_id: call.call_id.clone(),
                content: vec![Part::text(config.dangling_result_text.replace("{name}", &call.name))],
                is_error: true,
                released: None,
            })));
        }
        Some((&last, earlier)) => {
            for &dropped in earlier {
                repairs.push(Repair {
                    kind: RepairKind::DuplicateResultDropped,
                    item_id: items[dropped].id().to_owned(),
                    call_id: Some(call.call_id.clone()),
                });
            }
            if !in_place.contains(&last) {
                repairs.push(Repair { kind: RepairKind::ResultMoved, item_id: items[last].id().to_owned(), call_id: Some(call.call_id.clone()) });
            }
            out.push(items[last].clone());
        }
    }
}

/// Text with nothing but whitespace: never sent (empty text is simply nothing).
fn blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// Cleans one item; `None` when nothing model-visible is left. Unchanged items stay borrowed.
fn clean<'a>(item: &'a Item, repairs: &mut Vec<Repair>) -> Option<Cow<'a, Item>> {
    let blank_dropped = |repairs: &mut Vec<Repair>| {
        repairs.push(Repair { kind: RepairKind::BlankTextDropped, item_id: item.id().to_owned(), call_id: None });
    };
    match item {
        Item::User(message) => match clean_parts(&message.content, item.id(), repairs) {
            Cow::Borrowed(_) => Some(Cow::Borrowed(item)),
            Cow::Owned(content) if content.is_empty() => None,
            Cow::Owned(content) => Some(Cow::Owned(Item::User(UserMessage { content, ..message.clone() }))),
        },
        // A text part that only carries a Gemini thought signature stays: the model wants it back.
        Item::Assistant(text) if text.signature.is_some() => Some(Cow::Borrowed(item)),
        Item::Assistant(text) if text.text.is_empty() => None,
        Item::Assistant(text) if blank(&text.text) => {
            blank_dropped(repairs);
            None
        }
        Item::Assistant(_) => Some(Cow::Borrowed(item)),
        Item::Reasoning(r) => {
            // A stored reasoning item (OpenAI Responses) goes back by its id, whatever its text.
            (!blank(&r.text) || r.signature.is_some() || r.encrypted.is_some() || r.provider_id.is_some()).then_some(Cow::Borrowed(item))
        }
        Item::ToolCall(_) | Item::Native(_) => Some(Cow::Borrowed(item)),
        // Only clean text is let go: there is nothing to mend in what stayed of it.
        Item::ToolResult(result) if result.released.is_some() => Some(Cow::Borrowed(item)),
        Item::ToolResult(result) => match clean_parts(&result.content, item.id(), repairs) {
            Cow::Borrowed(_) => Some(Cow::Borrowed(item)),
            Cow::Owned(mut content) => {
                if content.is_empty() {
                    content.push(Part::text("(no output)"));
                }
                Some(Cow::Owned(Item::ToolResult(ToolResult { content, ..result.clone() })))
            }
        },
    }
}

/// Whether repair leaves these parts as they are: something in them, no blank text, every image
/// sound and of the type it says.
pub(crate) fn untouched(parts: &[Part]) -> bool {
    !parts.is_empty()
        && parts.iter().all(|part| match part {
            Part::Text { text } => !blank(text),
            Part::Image(image) => image_problem(image).is_none() && true_media_type(image).is_none(),
        })
}

/// Parts without empty or blank text and with broken images replaced; borrowed when nothing
/// changed (an empty list counts as changed, so callers see it).
fn clean_parts<'a>(parts: &'a [Part], item_id: &str, repairs: &mut Vec<Repair>) -> Cow<'a, [Part]> {
    if untouched(parts) {
        return Cow::Borrowed(parts);
    }
    let mut out = Vec::with_capacity(parts.len());
    if parts.iter().any(|p| matches!(p, Part::Text { text } if !text.is_empty() && blank(text))) {
        repairs.push(Repair { kind: RepairKind::BlankTextDropped, item_id: item_id.to_owned(), call_id: None });
    }
    for part in parts {
        match part {
            Part::Text { text } if blank(text) => {}
            Part::Text { .. } => out.push(part.clone()),
            Part::Image(image) => match image_problem(image) {
                None => match (true_media_type(image), image) {
                    (Some(sniffed), crate::conversation::Image::Base64 { data, .. }) => {
                        repairs.push(Repair { kind: RepairKind::ImageTypeCorrected, item_id: item_id.to_owned(), call_id: None });
                        out.push(Part::Image(crate::conversation::Image::Base64 { media_type: sniffed.to_owned(), data: data.clone() }));
                    }
                    _ => out.push(part.clone()),
                },
                Some(problem) => {
                    repairs.push(Repair { kind: RepairKind::InvalidImageReplaced, item_id: item_id.to_owned(), call_id: None });
                    out.push(Part::text(format!("[An image was here but could not be sent ({problem}). Do not assume anything about its contents.]")));
                }
            },
        }
    }
    Cow::Owned(out)
}

/// The media type an image's bytes show, when it differs from the recorded one.
fn true_media_type(image: &crate::conversation::Image) -> Option<&'static str> {
    match image {
        crate::conversation::Image::Base64 { media_type, data } => {
            super::images::sniffed_media_type(data).filter(|sniffed| sniffed != media_type)
        }
        crate::conversation::Image::Url { .. } => None,
    }
}

fn image_problem(image: &crate::conversation::Image) -> Option<&'static str> {
    match image {
        crate::conversation::Image::Base64 { media_type, data } => {
            if !media_type.starts_with("image/") {
                Some("not an image media type")
            } else if data.is_empty() {
                Some("no data")
            } else if base64::engine::general_purpose::STANDARD.decode(data).is_err() {
                Some("data is not valid base64")
            } else {
                None
            }
        }
        crate::conversation::Image::Url { url } => {
            (!(url.starts_with("https://") || url.starts_with("http://"))).then_some("not an http(s) URL")
        }
    }
}
