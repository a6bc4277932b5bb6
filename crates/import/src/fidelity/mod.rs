//! Fidelity: does our view hold what the source agent's own model saw?
//!
//! For each format, a reader written apart from its importer rebuilds what the agent would send
//! its model at the end of the file — its live branch, after its own last compaction, with the
//! tail that compaction kept — as a list of [`Element`]s: real user prompts, assistant texts,
//! reasoning blocks, tool calls that have results, and images. [`compare`] then looks for each
//! one in the conversation our log replays to (after repair, before any budget stage), and names
//! every element it cannot find. An importer bug that drops content therefore shows up as a
//! `missing` entry in the import report (and a warning from the CLI), never silently.
//!
//! The two sides are built by different code on purpose: the source side follows the agent's
//! own rules (Claude Code's `parentUuid` walk, Codex's history reconstruction, pi's session
//! context), the view side is our replay.

pub mod aider;
pub mod claude_code;
pub mod cline_task;
pub mod codex;
pub mod copilot_cli;
pub mod gemini_cli;
pub mod opencode;
pub mod pi;

use std::collections::{HashMap, HashSet};


use contextview::conversation::{Image, Item, Part};

pub use crate::report::{Counts, ElementKind, Fidelity, Missing};

/// How an element is recognised in the view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// Text the view must contain (trimmed; never empty).
    Text(String),
    /// A tool call id (ours or the provider's).
    Call(String),
    /// Any one of these (a signature, encrypted data, a provider id) — or, failing those, the
    /// reasoning text.
    Reasoning { ids: Vec<String>, text: String },
    /// Base64 image data.
    Image(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub kind: ElementKind,
    pub line: usize,
    pub id: Option<String>,
    pub key: Key,
}

/// What the source agent's model saw, in order, as a format's reader found it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceView {
    elements: Vec<Element>,
    /// Tool calls seen (line, id); only those with a result count.
    calls: Vec<(usize, String)>,
    results: HashSet<String>,
}

impl SourceView {
    /// A real user prompt (whitespace-only text is not one).
    pub fn prompt(&mut self, line: usize, id: Option<&str>, text: &str) {
        self.text(ElementKind::Prompt, line, id, text);
    }

    /// A run of assistant text (whitespace-only runs are never sent, so never count).
    pub fn assistant_text(&mut self, line: usize, id: Option<&str>, text: &str) {
        self.text(ElementKind::AssistantText, line, id, text);
    }

    fn text(&mut self, kind: ElementKind, line: usize, id: Option<&str>, text: &str) {
        let text = text.trim();
        if !text.is_empty() {
            self.elements.push(Element { kind, line, id: id.map(str::to_owned), key: Key::Text(text.to_owned()) });
        }
    }

    /// A reasoning block, recognised by any of `ids` (empty strings ignored) or by its text.
    pub fn reasoning(&mut self, line: usize, ids: &[Option<&str>], text: &str) {
        let ids: Vec<String> = ids.iter().flatten().filter(|s| !s.is_empty()).map(|s| (*s).to_owned()).collect();
        let text = text.trim().to_owned();
        if ids.is_empty() && text.is_empty() {
            return;
        }
        self.elements.push(Element { kind: ElementKind::Reasoning, line, id: None, key: Key::Reasoning { ids, text } });
    }

    pub fn call(&mut self, line: usize, id: &str) {
        self.calls.push((line, id.to_owned()));
    }

    pub fn result(&mut self, call_id: &str) {
        self.results.insert(call_id.to_owned());
    }

    pub fn image(&mut self, line: usize, data: &str) {
        let data = data.trim();
        if !data.is_empty() {
            self.elements.push(Element { kind: ElementKind::Image, line, id: None, key: Key::Image(data.to_owned()) });
        }
    }

    /// Every element: the ones added in order, then each call that has a result.
    pub fn elements(&self) -> Vec<Element> {
        let mut all = self.elements.clone();
        let mut seen = HashSet::new();
        for (line, id) in &self.calls {
            if self.results.contains(id) && seen.insert(id.as_str()) {
                all.push(Element { kind: ElementKind::ToolCall, line: *line, id: Some(id.clone()), key: Key::Call(id.clone()) });
            }
        }
        all
    }
}

/// What the view holds, in order, for the source's elements to be found in: each view element
/// answers for one source element (or, for texts, one piece of it), never two.
struct ViewIndex<'a> {
    prompts: Vec<String>,
    texts: Vec<&'a str>,
    /// Signatures, encrypted data and provider ids of reasoning, each used once.
    reasoning_ids: HashMap<&'a str, usize>,
    reasoning_texts: Vec<&'a str>,
    /// Call ids (the provider's and ours) of calls with a real (not synthetic) result, each used once.
    answered: HashMap<&'a str, usize>,
    /// Image data, as many times as the view holds it.
    images: HashMap<&'a str, usize>,
    counts: Counts,
}

impl<'a> ViewIndex<'a> {
    fn new(items: &'a [impl AsRef<Item>]) -> ViewIndex<'a> {
        let mut index = ViewIndex {
            prompts: Vec::new(),
            texts: Vec::new(),
            reasoning_ids: HashMap::new(),
            reasoning_texts: Vec::new(),
            answered: HashMap::new(),
            images: HashMap::new(),
            counts: Counts::default(),
        };
        let mut real_results: HashSet<&str> = HashSet::new();
        for item in items.iter().map(AsRef::as_ref) {
            if let Item::ToolResult(r) = item {
                if !r.id.starts_with("synthetic-result:") {
                    real_results.insert(r.call_id.as_str());
                }
            }
        }
        for item in items.iter().map(AsRef::as_ref) {
            match item {
                Item::User(m) => {
                    if m.synthetic.is_none() {
                        index.prompts.push(contextview::conversation::text_of(&m.content));
                        index.counts.prompts += 1;
                    }
                    index.add_images(&m.content);
                }
                Item::Assistant(a) => {
                    if !a.text.trim().is_empty() {
                        index.texts.push(&a.text);
                        index.counts.assistant_texts += 1;
                    }
                }
                Item::Reasoning(r) => {
                    index.counts.reasoning += 1;
                    for id in [r.signature.as_deref(), r.encrypted.as_deref(), r.provider_id.as_deref()].into_iter().flatten() {
                        *index.reasoning_ids.entry(id).or_default() += 1;
                    }
                    index.reasoning_texts.push(&r.text);
                }
                Item::ToolCall(c) => {
                    if real_results.contains(c.call_id.as_str()) {
                        index.counts.tool_calls += 1;
                        *index.answered.entry(&c.call_id).or_default() += 1;
                        let ours = c.id.strip_prefix("call:").unwrap_or(&c.id);
                        if ours != c.call_id {
                            *index.answered.entry(ours).or_default() += 1;
                        }
                    }
                }
                Item::ToolResult(r) => index.add_images(&r.content),
                // No importer writes these; a source agent's view has no counterpart to compare.
                Item::Native(_) => {}
            }
        }
        index
    }

    fn add_images(&mut self, parts: &'a [Part]) {
        for part in parts {
            if let Part::Image(Image::Base64 { data, .. }) = part {
                *self.images.entry(data.trim()).or_default() += 1;
                self.counts.images += 1;
            }
        }
    }
}

/// Takes one of `key` from a multiset; false when none is left.
fn take(set: &mut HashMap<&str, usize>, key: &str) -> bool {
    match set.get_mut(key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// Finds `needle` in `haystack` at or after `at` (a view text and a byte offset in it): in the
/// rest of the text the last find was in, or in a later one — never before, so a view text
/// answers for the source pieces it was merged from, in their order, and nothing twice. Moves
/// `at` past a find; leaves it where it was otherwise.
fn find_in_order(haystack: &[impl AsRef<str>], at: &mut (usize, usize), needle: &str) -> bool {
    let (mut entry, mut offset) = *at;
    while let Some(text) = haystack.get(entry) {
        let text = text.as_ref();
        if let Some(pos) = text.get(offset..).and_then(|rest| rest.find(needle)) {
            *at = (entry, offset + pos + needle.len());
            return true;
        }
        entry += 1;
        offset = 0;
    }
    false
}

/// Compares what the source saw with the view (`items` after repair): every source element is
/// looked for once, in order, and every view element answers for at most one.
pub fn compare(source: &SourceView, items: &[impl AsRef<Item>]) -> Fidelity {
    let mut view = ViewIndex::new(items);
    let mut fidelity = Fidelity { view: view.counts, ..Fidelity::default() };
    let (mut prompt_at, mut text_at, mut reasoning_at) = ((0, 0), (0, 0), (0, 0));
    for element in source.elements() {
        fidelity.source.add(element.kind);
        let found = match &element.key {
            Key::Text(text) => match element.kind {
                ElementKind::Prompt => find_in_order(&view.prompts, &mut prompt_at, text),
                ElementKind::AssistantText | ElementKind::Reasoning | ElementKind::ToolCall | ElementKind::Image => {
                    find_in_order(&view.texts, &mut text_at, text)
                }
            },
            Key::Call(id) => take(&mut view.answered, id),
            Key::Reasoning { ids, text } => {
                ids.iter().any(|id| take(&mut view.reasoning_ids, id))
                    || (!text.is_empty() && find_in_order(&view.reasoning_texts, &mut reasoning_at, text))
            }
            Key::Image(data) => take(&mut view.images, data),
        };
        if !found {
            let excerpt = match &element.key {
                Key::Text(text) | Key::Reasoning { text, .. } => text.chars().take(80).collect(),
                Key::Call(_) | Key::Image(_) => String::new(),
            };
            fidelity.missing.push(Missing { kind: element.kind, line: element.line, id: element.id.clone(), excerpt });
        }
    }
    fidelity
}

#[cfg(test)]
mod tests {
    use super::*;
    use contextview::conversation::{AssistantText, Reasoning, ToolCall, ToolResult, UserMessage};
    use pretty_assertions::assert_eq;

    /// A source of one of each kind, in order, and the view an importer that lost nothing makes.
    fn source() -> SourceView {
        let mut s = SourceView::default();
        s.prompt(1, Some("u1"), "Fix the parser.");
        s.reasoning(2, &[Some("SIG1")], "The parser drops a line.");
        s.assistant_text(2, Some("a1"), "Reading it.");
        s.call(2, "toolu_1");
        s.result("toolu_1");
        s.image(3, "iVBORw0KGgo=");
        s.prompt(4, Some("u2"), "yes");
        s.assistant_text(5, Some("a2"), "ok");
        s.prompt(6, Some("u3"), "yes");
        s.assistant_text(7, Some("a3"), "Fixed, ok to merge.");
        s
    }

    fn user(id: &str, text: &str) -> Item {
        Item::User(UserMessage { id: id.into(), content: vec![Part::text(text)], synthetic: None })
    }

    fn text(id: &str, text: &str) -> Item {
        Item::Assistant(AssistantText { id: id.into(), text: String::from(text).into(), origin: None, signature: None , annotations: None })
    }

    /// The view of `source()`, less the items `drop` names.
    fn view(drop: &[&str]) -> Vec<Item> {
        let reasoning = Reasoning {
            id: "r1".into(),
            text: String::from("The parser drops a line.").into(),
            origin: None,
            signature: Some("SIG1".into()),
            encrypted: None,
            provider_id: None,
            summary: None,
        };
        let call = ToolCall { id: "call:toolu_1".into(), call_id: "toolu_1".into(), name: "read".into(), input: serde_json::json!({}).into(), origin: None, signature: None };
        let image = Part::Image(Image::Base64 { media_type: "image/png".into(), data: "iVBORw0KGgo=".into() });
        let result = ToolResult { id: "result:toolu_1".into(), call_id: "toolu_1".into(), content: vec![Part::text("fn parse()"), image], is_error: false, released: None };
        let all = vec![
            ("prompt", user("u1", "Fix the parser.")),
            ("reasoning", Item::Reasoning(reasoning)),
            ("text", text("a1", "Reading it.")),
            ("call", Item::ToolCall(call)),
            ("result", Item::ToolResult(result)),
            ("yes", user("u2", "yes")),
            ("ok", text("a2", "ok")),
            ("yes again", user("u3", "yes")),
            ("merge", text("a3", "Fixed, ok to merge.")),
        ];
        all.into_iter().filter(|(name, _)| !drop.contains(name)).map(|(_, item)| item).collect()
    }

    fn cmp(source: &SourceView, items: &[Item]) -> Fidelity {
        let items: Vec<std::borrow::Cow<'_, Item>> = items.iter().map(std::borrow::Cow::Borrowed).collect();
        compare(source, &items)
    }

    fn missing(drop: &[&str]) -> Vec<(ElementKind, usize)> {
        cmp(&source(), &view(drop)).missing.into_iter().map(|m| (m.kind, m.line)).collect()
    }

    #[test]
    fn a_view_that_lost_nothing_misses_nothing_and_counts_alike() {
        let f = cmp(&source(), &view(&[]));
        assert_eq!(f.missing, []);
        assert_eq!(f.source, f.view);
        assert_eq!(f.source, Counts { prompts: 3, assistant_texts: 3, reasoning: 1, tool_calls: 1, images: 1 });
    }

    #[test]
    fn each_kind_lost_is_named_once() {
        assert_eq!(missing(&["prompt"]), [(ElementKind::Prompt, 1)]);
        assert_eq!(missing(&["text"]), [(ElementKind::AssistantText, 2)]);
        assert_eq!(missing(&["reasoning"]), [(ElementKind::Reasoning, 2)]);
        assert_eq!(missing(&["call"]), [(ElementKind::ToolCall, 2)]);
        // A call whose result is lost was not answered: it is missing, and so is the image the
        // result carried.
        assert_eq!(missing(&["result"]), [(ElementKind::Image, 3), (ElementKind::ToolCall, 2)]);
    }

    #[test]
    fn one_of_two_identical_prompts_lost_is_missed() {
        assert_eq!(missing(&["yes again"]), [(ElementKind::Prompt, 6)]);
        assert_eq!(missing(&["yes"]), [(ElementKind::Prompt, 6)]);
    }

    #[test]
    fn a_short_text_inside_a_longer_one_does_not_stand_for_itself() {
        // "ok" is lost; the later "Fixed, ok to merge." holds "ok" but answers for itself.
        assert_eq!(missing(&["ok"]), [(ElementKind::AssistantText, 7)]);
    }

    #[test]
    fn texts_merged_into_one_view_text_are_found_in_their_order() {
        let mut s = SourceView::default();
        s.assistant_text(1, None, "First part.");
        s.assistant_text(2, None, "Second part.");
        let merged = [text("a", "First part.\n\nSecond part.")];
        assert_eq!(cmp(&s, &merged).missing, []);
        // The other way round, the second piece comes before the first: one is missing.
        let reversed = [text("a", "Second part.\n\nFirst part.")];
        assert_eq!(cmp(&s, &reversed).missing.len(), 1);
    }
}
