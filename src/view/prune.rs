//! Pruning tool results (chapter 8.9): tool output is the largest part of most contexts.
//!
//! Old results are soft-trimmed (head and tail kept: the head says what ran, the tail how it
//! ended) and very old ones hard-cleared to a placeholder that names the tool, the original size
//! and how to get the output back. The last turns are never touched, nor protected tools, and
//! nothing happens until the context passes a share of the window.
//!
//! Every prune rewrites part of the request prefix and costs the provider's cache, so pruning
//! moves in steps: a *boundary* turn, the largest multiple of `stepTurns` that leaves at least
//! `keepTurns` real user turns after it, decides what is pruned. Between two moves of the boundary
//! the pruned view — and so the request prefix — stays byte-identical; when it moves, it clears a
//! batch at once. Turns are real user prompts (synthetic user items do not age results). Pure:
//! the same items and config always give the same view.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::conversation::{text_of, Item, Part, ToolResult};

/// Pruning settings (camelCase in JSON; every number has the chapter's default).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PruningConfig {
    pub enabled: bool,
    /// The last real user turns whose results are never pruned.
    pub keep_turns: u32,
    /// Results longer than this (in characters) are soft-trimmed once past the boundary.
    pub soft_trim_chars: usize,
    pub soft_trim_head: usize,
    pub soft_trim_tail: usize,
    /// Results at least this many turns old at the boundary are cleared.
    pub hard_clear_turns: u32,
    /// Prune only when the context is above this share of the window.
    pub trigger_ratio: f64,
    /// The boundary moves in steps of this many turns (1 = prune a little every turn).
    pub step_turns: u32,
    /// Tools whose results are never pruned.
    pub protected_tools: Vec<String>,
}

impl Default for PruningConfig {
    fn default() -> Self {
        PruningConfig {
            enabled: true,
            keep_turns: 3,
            soft_trim_chars: 4000,
            soft_trim_head: 1500,
            soft_trim_tail: 1500,
            hard_clear_turns: 10,
            trigger_ratio: 0.5,
            // Measured on a long real session: 12 keeps 99.3% of each request cached and
            // re-processes a third of what moving every turn does (BENCHMARKS.md).
            step_turns: 12,
            protected_tools: vec!["skill".to_owned(), "load_skill".to_owned()],
        }
    }
}

/// How full the context is, as the ledger sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextUse {
    pub tokens: u64,
    pub window: u64,
}

/// What pruning did, for the report.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneReport {
    /// Pruning ran (the context was over the trigger).
    pub active: bool,
    /// Real user turns in the conversation.
    pub turns: u32,
    /// Results before this turn are pruned (0 = none).
    pub boundary_turn: u32,
    /// Item ids of soft-trimmed results.
    pub trimmed: Vec<String>,
    /// Item ids of cleared results.
    pub cleared: Vec<String>,
    /// Characters of tool output left out of the view.
    pub chars_saved: usize,
    /// Bytes of the previous request this one rewrote because the boundary moved — what the
    /// provider must process again instead of reading from its cache (session builds; 0 when
    /// the boundary stayed).
    #[serde(default)]
    pub invalidated_bytes: usize,
}

/// The boundary for `turns` real user turns.
pub fn boundary(turns: u32, config: &PruningConfig) -> u32 {
    let step = config.step_turns.max(1);
    let open = turns.saturating_sub(config.keep_turns);
    open / step * step
}

/// Prunes tool results in `items` (already repaired: each result follows its call).
pub fn prune<'a>(items: Vec<Cow<'a, Item>>, config: &PruningConfig, usage: Option<ContextUse>) -> (Vec<Cow<'a, Item>>, PruneReport) {
    let turns = items.iter().filter(|i| is_real_prompt(i)).count() as u32;
    let mut report = PruneReport { turns, ..PruneReport::default() };
    if !is_active(config, usage) {
        return (items, report);
    }
    report.active = true;
    let cut = boundary(turns, config);
    report.boundary_turn = cut;
    if cut == 0 {
        return (items, report);
    }
    let clear_before = cut.saturating_sub(config.hard_clear_turns.saturating_sub(config.keep_turns));
    // Tool names by call id (results carry only the id).
    let names: rustc_hash::FxHashMap<&str, &str> = items
        .iter()
        .filter_map(|i| match i.as_ref() {
            Item::ToolCall(c) => Some((c.call_id.as_str(), c.name.as_str())),
            _ => None,
        })
        .collect();
    let names: rustc_hash::FxHashMap<String, String> = names.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    let mut turn = 0u32;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if is_real_prompt(&item) {
            turn += 1;
        }
        // `turn` is the number of the turn this item belongs to (1-based); results before the
        // first prompt belong to turn 0.
        let Item::ToolResult(result) = item.as_ref() else {
            out.push(item);
            continue;
        };
        let tool = names.get(&result.call_id).map(String::as_str).unwrap_or("tool");
        if turn >= cut || config.protected_tools.iter().any(|p| p == tool) {
            out.push(item);
            continue;
        }
        let text = text_of(&result.content);
        let chars = text.chars().count();
        if turn < clear_before {
            report.cleared.push(result.id.clone());
            report.chars_saved += chars;
            let placeholder = format!(
                "[Tool result cleared to save context: `{tool}` returned {chars} characters in turn {turn}. The full output is kept in the session log; run the tool again if you need it.]"
            );
            out.push(Cow::Owned(Item::ToolResult(ToolResult { content: vec![Part::text(placeholder)], ..result.clone() })));
        } else if let Some(trimmed) = (chars > config.soft_trim_chars && result.content.iter().all(|p| matches!(p, Part::Text { .. })))
            .then(|| soft_trim(&text, config.soft_trim_head, config.soft_trim_tail))
            // Head, tail and marker can outweigh a result just over the threshold: then keep it.
            .filter(|trimmed| trimmed.chars().count() < chars)
        {
            report.trimmed.push(result.id.clone());
            report.chars_saved += chars - trimmed.chars().count();
            out.push(Cow::Owned(Item::ToolResult(ToolResult { content: vec![Part::text(trimmed)], ..result.clone() })));
        } else {
            out.push(item);
        }
    }
    (out, report)
}

/// Pruning acts: it is enabled and the context is over the trigger.
pub fn is_active(config: &PruningConfig, usage: Option<ContextUse>) -> bool {
    config.enabled && usage.is_some_and(|u| u.window > 0 && u.tokens as f64 > config.trigger_ratio * u.window as f64)
}

/// A prompt a person typed: what turns are counted in.
pub fn is_real_prompt(item: &Item) -> bool {
    matches!(item, Item::User(m) if m.synthetic.is_none())
}

/// The first `head` and last `tail` characters with a marker saying how much is gone between.
pub fn soft_trim(text: &str, head: usize, tail: usize) -> String {
    let total = text.chars().count();
    if total <= head + tail {
        return text.to_owned();
    }
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    let tail_start = text.char_indices().nth(total - tail).map_or(text.len(), |(i, _)| i);
    format!("{}\n[… {} characters trimmed …]\n{}", &text[..head_end], total - head - tail, &text[tail_start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_trim_keeps_head_and_tail() {
        assert_eq!(soft_trim("abcdefghij", 3, 2), "abc\n[… 5 characters trimmed …]\nij");
        assert_eq!(soft_trim("short", 3, 3), "short");
        assert_eq!(soft_trim("ééééé", 1, 1), "é\n[… 3 characters trimmed …]\né");
    }

    #[test]
    fn the_boundary_moves_in_steps() {
        let c = PruningConfig { step_turns: 8, ..PruningConfig::default() };
        let b: Vec<u32> = (0..30).map(|t| boundary(t, &c)).collect();
        assert_eq!(&b[..12], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8]);
        assert_eq!(b[18], 8);
        assert_eq!(b[19], 16);
        let naive = PruningConfig { step_turns: 1, ..c };
        assert_eq!(boundary(12, &naive), 9);
    }
}
