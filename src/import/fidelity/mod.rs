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

pub mod claude_code;
pub mod codex;
pub mod pi;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::conversation::{Image, Item, Part};

/// What kind of content an element is.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    Prompt,
    AssistantText,
    Reasoning,
    ToolCall,
    Image,
}

/// Counts of each kind, on one side.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Real user prompts (not harness messages, summaries or tool results).
    pub prompts: usize,
    /// Assistant text runs that are not only whitespace.
    pub assistant_texts: usize,
    pub reasoning: usize,
    /// Tool calls that have a result.
    pub tool_calls: usize,
    pub images: usize,
}

impl Counts {
    fn add(&mut self, kind: ElementKind) {
        match kind {
            ElementKind::Prompt => self.prompts += 1,
            ElementKind::AssistantText => self.assistant_texts += 1,
            ElementKind::Reasoning => self.reasoning += 1,
            ElementKind::ToolCall => self.tool_calls += 1,
            ElementKind::Image => self.images += 1,
        }
    }
}

/// A source element our view does not hold.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    pub kind: ElementKind,
    /// The line of the source file it came from.
    pub line: usize,
    /// Its id in the source (a tool call id, an entry id), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The start of its text, to recognise it by.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub excerpt: String,
}

/// What the source agent's model saw against what our view holds.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fidelity {
    pub source: Counts,
    pub view: Counts,
    pub missing: Vec<Missing>,
}

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

/// What the view holds, indexed for lookups.
struct ViewIndex<'a> {
    prompts: Vec<String>,
    texts: Vec<&'a str>,
    reasoning_ids: HashSet<&'a str>,
    reasoning_texts: Vec<&'a str>,
    /// Call ids (the provider's and ours) of calls with a real (not synthetic) result.
    answered: HashSet<&'a str>,
    images: HashSet<&'a str>,
    counts: Counts,
}

impl<'a> ViewIndex<'a> {
    fn new(items: &'a [impl AsRef<Item>]) -> ViewIndex<'a> {
        let mut index = ViewIndex {
            prompts: Vec::new(),
            texts: Vec::new(),
            reasoning_ids: HashSet::new(),
            reasoning_texts: Vec::new(),
            answered: HashSet::new(),
            images: HashSet::new(),
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
                        index.prompts.push(crate::conversation::text_of(&m.content));
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
                        index.reasoning_ids.insert(id);
                    }
                    index.reasoning_texts.push(&r.text);
                }
                Item::ToolCall(c) => {
                    if real_results.contains(c.call_id.as_str()) {
                        index.counts.tool_calls += 1;
                        index.answered.insert(&c.call_id);
                        index.answered.insert(c.id.strip_prefix("call:").unwrap_or(&c.id));
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
                self.images.insert(data.trim());
                self.counts.images += 1;
            }
        }
    }
}

/// Finds `needle` in `haystack`, looking from `cursor` on first (elements come in order), then
/// anywhere; moves the cursor past a find.
fn find_text(haystack: &[impl AsRef<str>], cursor: &mut usize, needle: &str) -> bool {
    let start = (*cursor).min(haystack.len());
    let found = (start..haystack.len()).chain(0..start).find(|&i| haystack[i].as_ref().contains(needle));
    if let Some(i) = found {
        *cursor = i + 1;
    }
    found.is_some()
}

/// Compares what the source saw with the view (`items` after repair).
pub fn compare(source: &SourceView, items: &[impl AsRef<Item>]) -> Fidelity {
    let view = ViewIndex::new(items);
    let mut fidelity = Fidelity { view: view.counts, ..Fidelity::default() };
    let (mut prompt_cursor, mut text_cursor, mut reasoning_cursor) = (0, 0, 0);
    for element in source.elements() {
        fidelity.source.add(element.kind);
        let found = match &element.key {
            Key::Text(text) => match element.kind {
                ElementKind::Prompt => find_text(&view.prompts, &mut prompt_cursor, text),
                ElementKind::AssistantText | ElementKind::Reasoning | ElementKind::ToolCall | ElementKind::Image => {
                    find_text(&view.texts, &mut text_cursor, text)
                }
            },
            Key::Call(id) => view.answered.contains(id.as_str()),
            Key::Reasoning { ids, text } => {
                ids.iter().any(|id| view.reasoning_ids.contains(id.as_str()))
                    || (!text.is_empty() && find_text(&view.reasoning_texts, &mut reasoning_cursor, text))
            }
            Key::Image(data) => view.images.contains(data.as_str()),
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
