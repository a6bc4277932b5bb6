//! Token estimation: how many tokens a text, an item or an image costs a model family, without
//! shipping any tokenizer's vocabulary.
//!
//! Why not bytes/4: real sessions mix prose (a word is about one token, so bytes/4 over-counts
//! it), JSON and code (punctuation runs split into many tokens, so bytes/4 under-counts them),
//! CJK (about one token per character, three bytes each) and base64 (dense, about 0.75 tokens per
//! character). The estimator scans text once, counts the pieces a byte-pair tokenizer's
//! pre-split produces — word pieces, digit groups, whitespace runs, punctuation runs — and
//! weighs them with coefficients fitted against an exact tokenizer (`make bench` re-fits them
//! with `CALIBRATE=1` and prints the table; BENCHMARKS.md has the measured error).
//!
//! Families differ: OpenAI's coefficients are fitted to `o200k_base`; Claude's tokenizer is
//! not public, so its family scales the same features by a factor measured against the usage
//! real Claude sessions report. Gemini has no public tokenizer here and reuses OpenAI's
//! coefficients; an anchor (the provider's reported usage) corrects every family.

use contextview_derive::ReadValue;
use serde::Serialize;

mod blocks;
mod counts;
mod scan;

use crate::conversation::{text_of, Image, Item, Part, ToolResult};
use crate::provider::Provider;

/// Tokenizer families the estimator is calibrated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// GPT-4o, GPT-4.1, GPT-5, o-series (`o200k_base`).
    OpenAi,
    /// Claude models.
    Anthropic,
    /// Gemini models.
    Gemini,
}

impl Family {
    /// Every family, in the order [`crate::conversation::Released`] keeps their counts.
    pub const ALL: [Family; 3] = [Family::OpenAi, Family::Anthropic, Family::Gemini];

    /// Where the family is in [`Family::ALL`].
    pub fn index(self) -> usize {
        match self {
            Family::OpenAi => 0,
            Family::Anthropic => 1,
            Family::Gemini => 2,
        }
    }

    /// The family a provider's models belong to. (Models served through an OpenAI-shaped API
    /// by another vendor still count as OpenAI here unless the name says otherwise.)
    pub fn of(provider: Provider, model: &str) -> Family {
        let model = model.to_ascii_lowercase();
        if model.contains("claude") {
            return Family::Anthropic;
        }
        if model.contains("gemini") || model.contains("gemma") {
            return Family::Gemini;
        }
        match provider {
            Provider::Anthropic => Family::Anthropic,
            Provider::Gemini => Family::Gemini,
            Provider::OpenAiChat | Provider::OpenAiResponses => Family::OpenAi,
        }
    }

    /// The family of a model named in a log record (provider and model as strings).
    pub fn of_names(provider: Option<&str>, model: Option<&str>) -> Family {
        let model = model.unwrap_or("");
        let provider = match provider.map(str::to_ascii_lowercase).as_deref() {
            Some(p) if p.contains("anthropic") || p.contains("claude") => Provider::Anthropic,
            Some(p) if p.contains("google") || p.contains("gemini") || p.contains("vertex") => Provider::Gemini,
            _ => Provider::OpenAiResponses,
        };
        Family::of(provider, model)
    }

    fn scale(self) -> f64 {
        match self {
            Family::OpenAi | Family::Gemini => 1.0,
            Family::Anthropic => ANTHROPIC_SCALE,
        }
    }

    /// Framing tokens each message or content item adds (role markers, separators).
    pub fn per_item(self) -> u64 {
        match self {
            Family::OpenAi | Family::Gemini => 3,
            Family::Anthropic => 4,
        }
    }
}

/// What the scanner counts in a text: the pieces a byte-pair tokenizer's pre-split makes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Features {
    /// Letter runs, split where a lowercase letter meets an uppercase one (`camelCase` = 2).
    pub word_pieces: f64,
    /// Letters beyond the sixth in each piece, up to the twentieth (long or rare words take
    /// more tokens).
    pub long_letters: f64,
    /// Letters beyond the twentieth of a piece: minified code, words run together (about one
    /// token per five letters; rare in sessions, so not fitted).
    pub run_on_letters: f64,
    /// Digit groups of up to three.
    pub digit_groups: f64,
    /// Whitespace runs other than the single space a word or punctuation run absorbs.
    pub space_runs: f64,
    /// Runs of punctuation and symbols.
    pub punct_runs: f64,
    /// Punctuation characters beyond the first of each run.
    pub punct_extra: f64,
    /// Han, kana and Hangul characters.
    pub cjk: f64,
    /// Two-byte characters: accented Latin, Greek, Cyrillic, Hebrew, Arabic.
    pub other_letters: f64,
    /// Other non-ASCII characters of three bytes: arrows, box drawing, bullets, math.
    pub symbols: f64,
    /// Characters of base64-like runs (64+ characters of `[A-Za-z0-9+/=]` without spaces).
    pub base64_chars: f64,
    /// JSON escapes (`\n`, `\t`, `\"`, `\\`).
    pub escapes: f64,
    /// Digit groups right after whitespace: the space before a number is a piece of its own
    /// (`ls -l` columns, line numbers, tables), unlike the one before a word.
    pub spaced_digits: f64,
    /// Non-ASCII symbols repeating the one before (`────`): a run merges into few tokens.
    pub symbol_repeats: f64,
    /// Letters of pieces without a vowel (`drwxr`, `xr`): rare clusters split into more tokens.
    pub vowelless_letters: f64,
    /// Letters beyond the first of an all-capitals piece (`EXECUTION`, `LLM`): they split more.
    pub capital_letters: f64,
    /// Pieces that start with a capital and go on in lowercase (`Copilot`, `Gemini`): names
    /// split more often than common words.
    pub capitalized: f64,
    /// Characters of four bytes: emoji and rare scripts (two or three tokens each).
    pub emoji: f64,
    /// Letters beyond the fourth of a piece that opens a line or follows markup (`**Verdict`,
    /// `(patterns`): a tokenizer knows most words with their leading space. (After `/`, `.`,
    /// `_` or `-` a piece is part of a path or an identifier, whose pieces it knows well.)
    pub bare_letters: f64,
}

impl Features {
    pub const LEN: usize = 19;

    pub fn as_array(&self) -> [f64; Features::LEN] {
        [
            self.word_pieces,
            self.long_letters,
            self.run_on_letters,
            self.digit_groups,
            self.space_runs,
            self.punct_runs,
            self.punct_extra,
            self.cjk,
            self.other_letters,
            self.symbols,
            self.base64_chars,
            self.escapes,
            self.spaced_digits,
            self.symbol_repeats,
            self.vowelless_letters,
            self.capital_letters,
            self.capitalized,
            self.bare_letters,
            self.emoji,
        ]
    }

    /// Counts the features of `text` in one pass ([`scan`]).
    pub fn of(text: &str) -> Features {
        scan::features(text)
    }

    /// The same counts, step by step only, without the bitmaps of `blocks.rs` (what a test
    /// holds the fast path to, in every build of the crate).
    #[doc(hidden)]
    pub fn by_steps(text: &str) -> Features {
        scan::features_by_steps(text)
    }
}

fn is_cjk(ch: char) -> bool {
    matches!(ch as u32,
        0x3040..=0x30FF      // kana
        | 0x3400..=0x4DBF    // Han extension A
        | 0x4E00..=0x9FFF    // Han
        | 0xAC00..=0xD7AF    // Hangul
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xFF00..=0xFFEF    // full-width forms
        | 0x3000..=0x303F    // CJK punctuation
        | 0x20000..=0x2FFFF) // Han extensions B–F
}

/// Coefficients fitted against `o200k_base` (`CALIBRATE=1 cargo bench --bench tokens`), in the
/// order of [`Features::as_array`].
pub const OPENAI_WEIGHTS: [f64; Features::LEN] = [0.98, 0.05, 0.18, 1.0, 1.08, 0.62, 0.23, 0.75, 0.6, 1.21, 0.69, 0.94, 1.0, 0.05, 0.2, 0.05, 0.23, 0.06, 1.99];

/// Claude's tokens per `o200k`-estimated token, measured against the usage real Claude sessions
/// report (`cargo bench --bench tokens`).
pub const ANTHROPIC_SCALE: f64 = 1.25;

/// Estimated tokens of a text for a family (no per-message framing).
pub fn text_tokens(text: &str, family: Family) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let features = Features::of(text).as_array();
    let raw: f64 = features.iter().zip(OPENAI_WEIGHTS.iter()).map(|(x, w)| x * w).sum();
    raw * family.scale()
}

/// Estimated tokens of one image for a family, from its pixel size when the data tells it.
pub fn image_tokens(image: &Image, family: Family) -> u64 {
    let size = image_dimensions(image);
    match family {
        // Anthropic: width × height / 750, after scaling to fit 1568 px on the long side
        // (about 1.15 megapixels); about 1,600 tokens at most.
        Family::Anthropic => match size {
            Some((w, h)) => {
                let (w, h) = fit(w, h, 1568.0);
                ((w * h) / 750.0).ceil().clamp(1.0, 1600.0) as u64
            }
            None => 1600,
        },
        // OpenAI high detail: fit in 2048², shortest side to 768, then 170 per 512-px tile + 85.
        Family::OpenAi => match size {
            Some((w, h)) => {
                let (w, h) = fit(w, h, 2048.0);
                let short = w.min(h);
                let scale = if short > 768.0 { 768.0 / short } else { 1.0 };
                let tiles = ((w * scale) / 512.0).ceil() * ((h * scale) / 512.0).ceil();
                85 + 170 * tiles as u64
            }
            None => 765,
        },
        // Gemini: 258 per image up to 384 px on both sides, else 258 per 768-px tile.
        Family::Gemini => match size {
            Some((w, h)) if w <= 384.0 && h <= 384.0 => 258,
            Some((w, h)) => 258 * ((w / 768.0).ceil() * (h / 768.0).ceil()).max(1.0) as u64,
            None => 258,
        },
    }
}

fn fit(w: f64, h: f64, long_side: f64) -> (f64, f64) {
    let long = w.max(h);
    if long > long_side {
        let s = long_side / long;
        ((w * s).round().max(1.0), (h * s).round().max(1.0))
    } else {
        (w, h)
    }
}

/// Pixel size of a base64 image, read from its header (the first few KiB, decoded).
pub fn image_dimensions(image: &Image) -> Option<(f64, f64)> {
    use base64::Engine as _;
    let Image::Base64 { data, .. } = image else { return None };
    // JPEG keeps its size in a frame header that may follow EXIF data; 64 KiB of base64 covers
    // nearly all real files, and a whole number of quads decodes without padding.
    let head = &data.as_bytes()[..data.len().min(65_536) / 4 * 4];
    let decoded = base64::engine::general_purpose::STANDARD.decode(head).ok()?;
    let size = imagesize::blob_size(&decoded).ok()?;
    Some((size.width as f64, size.height as f64))
}

/// The texts of an item as a model reads them (a tool call is its name and its JSON input);
/// images are left out — they are priced by [`image_tokens`].
pub fn item_texts(item: &Item) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    fn parts(parts: &[Part]) -> Vec<Cow<'_, str>> {
        parts
            .iter()
            .filter_map(|part| match part {
                Part::Text { text } => Some(Cow::Borrowed(text.as_str())),
                Part::Image(_) => None,
            })
            .collect()
    }
    match item {
        Item::User(m) => parts(&m.content),
        Item::Assistant(a) => vec![Cow::Borrowed(a.text.as_str())],
        Item::Reasoning(r) => vec![Cow::Borrowed(r.text.as_str())],
        Item::ToolCall(c) => vec![Cow::Borrowed(c.name.as_str()), Cow::Borrowed(c.input.as_str())],
        Item::ToolResult(r) => parts(&r.content),
        Item::Native(n) => vec![Cow::Owned(serde_json::to_string(&n.value).unwrap_or_default())],
    }
}

/// The images of an item.
pub fn item_images(item: &Item) -> impl Iterator<Item = &Image> {
    let parts: &[Part] = match item {
        Item::User(m) => &m.content,
        Item::ToolResult(r) => &r.content,
        Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => &[],
    };
    parts.iter().filter_map(|part| match part {
        Part::Image(image) => Some(image),
        Part::Text { .. } => None,
    })
}

/// Estimated tokens of an item's content for a family, framing included.
pub fn item_tokens(item: &Item, family: Family) -> u64 {
    item_size(item, family).tokens
}

/// An item's size: estimated tokens (framing and images included) and content bytes, with the
/// images' share of each, and its text's characters (what pruning trims by).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ItemSize {
    pub tokens: u64,
    pub bytes: u64,
    pub image_tokens: u64,
    pub image_bytes: u64,
    pub chars: u64,
}

/// Measures an item once: what the ledger and the report need of it. A tool result whose text
/// a session let go measures as it was ([`crate::conversation::Released`]).
pub fn item_size(item: &Item, family: Family) -> ItemSize {
    if let Item::ToolResult(ToolResult { released: Some(released), .. }) = item {
        let tokens = released.tokens[family.index()];
        return ItemSize { tokens, bytes: released.bytes, image_tokens: 0, image_bytes: 0, chars: released.chars };
    }
    let texts = item_texts(item);
    let text: f64 = texts.iter().map(|t| text_tokens(t, family)).sum();
    let text_bytes: usize = texts.iter().map(|t| t.len()).sum();
    let (mut image_tokens_sum, mut image_bytes) = (0, 0);
    for image in item_images(item) {
        image_tokens_sum += image_tokens(image, family);
        image_bytes += match image {
            Image::Base64 { data, .. } => data.len() as u64,
            Image::Url { url } => url.len() as u64,
        };
    }
    ItemSize {
        tokens: text.round() as u64 + image_tokens_sum + family.per_item(),
        bytes: text_bytes as u64 + image_bytes,
        image_tokens: image_tokens_sum,
        image_bytes,
        chars: texts.iter().map(|t| t.chars().count() as u64).sum(),
    }
}

/// Bytes/4 of an item's text: the baseline the estimator is measured against.
pub fn bytes_over_four(item: &Item) -> u64 {
    let len = match item {
        Item::User(m) => text_of(&m.content).len(),
        Item::Assistant(a) => a.text.len(),
        Item::Reasoning(r) => r.text.len(),
        Item::ToolCall(c) => c.name.len() + c.input.as_str().len(),
        Item::ToolResult(r) => text_of(&r.content).len(),
        Item::Native(n) => crate::provider::json_len(&n.value),
    };
    len.div_ceil(4) as u64
}
