//! Pruning tool results (chapter 8.9): tool output is the largest part of most contexts.
//!
//! Old results are soft-trimmed (head and tail kept: the head says what ran, the tail how it
//! ended) and very old ones hard-cleared to a placeholder that names the tool, the original size
//! and how to get the output back. The latest results are never touched, nor protected tools,
//! and nothing happens until the context passes a share of the window.
//!
//! Age has two clocks. *Turns* are real user prompts (synthetic user items do not age results);
//! *steps* are the agent's tool rounds — each assistant turn that calls tools, with the results
//! of its calls. A session
//! of many prompts ages by turns; one prompt followed by hundreds of tool rounds, the normal shape
//! of an autonomous run, ages by steps. A result is old when either clock says so: it is past the
//! last `keepTurns` prompts or past the last `keepSteps` steps.
//!
//! Every prune rewrites part of the request prefix and costs the provider's cache, so pruning
//! moves in batches: each clock has a *boundary*, the largest multiple of its batch that leaves
//! the kept turns (steps) after it, and only results before a boundary are pruned. Between two
//! moves of a boundary the pruned view — and so the request prefix — stays byte-identical; when
//! one moves, it prunes a batch at once. Pure: the same items and config always give the same view.

use std::borrow::Cow;
use std::sync::Arc;

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
    /// The last agent steps (tool rounds: an assistant turn's calls and their results) whose
    /// results are never pruned; the current step is always among them (at least 1).
    pub keep_steps: u32,
    /// Results at least this many steps old at the step boundary are cleared.
    pub hard_clear_steps: u32,
    /// The step boundary moves in batches of this many steps.
    pub batch_steps: u32,
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
            // Measured on a generated one-prompt run and the real pi session (BENCHMARKS.md).
            keep_steps: 12,
            hard_clear_steps: 48,
            batch_steps: 24,
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
    /// Agent steps (tool rounds) in the conversation.
    #[serde(default)]
    pub steps: u32,
    /// Results before this step are pruned (0 = none).
    #[serde(default)]
    pub boundary_step: u32,
    /// Item ids of soft-trimmed results. (Shared: a session's build after a step repeats the
    /// lists of the build before it, which grow with the session.)
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string[]"))]
    pub trimmed: Arc<Vec<String>>,
    /// Item ids of cleared results.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string[]"))]
    pub cleared: Arc<Vec<String>>,
    /// Characters of tool output left out of the view.
    pub chars_saved: usize,
    /// Bytes of the previous request this one rewrote because the boundary moved — what the
    /// provider must process again instead of reading from its cache (session builds; 0 when
    /// the boundary stayed).
    #[serde(default)]
    pub invalidated_bytes: usize,
}

/// Where the two clocks' boundaries stand: results before either are pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Boundary {
    pub turn: u32,
    pub step: u32,
}

/// The largest multiple of `batch` that leaves `keep` of `count` after it.
fn batched(count: u32, keep: u32, batch: u32) -> u32 {
    let batch = batch.max(1);
    count.saturating_sub(keep) / batch * batch
}

/// The boundary for `turns` real user turns.
pub fn boundary(turns: u32, config: &PruningConfig) -> u32 {
    batched(turns, config.keep_turns, config.step_turns)
}

/// Both boundaries for a conversation of `turns` prompts and `steps` agent steps.
pub fn boundaries(turns: u32, steps: u32, config: &PruningConfig) -> Boundary {
    Boundary { turn: boundary(turns, config), step: batched(steps, config.keep_steps.max(1), config.batch_steps) }
}

/// The two clocks, advanced item by item: the turn (real prompts so far) and the step (tool
/// rounds so far: assistant turns with at least one call) an item belongs to.
#[derive(Debug, Clone, Copy, Default)]
struct Clock {
    turn: u32,
    step: u32,
    /// The current assistant turn has already started a step.
    stepped: bool,
}

impl Clock {
    fn tick(&mut self, item: &Item) {
        self.turn += u32::from(is_real_prompt(item));
        match item {
            Item::ToolCall(_) if !self.stepped => {
                self.step += 1;
                self.stepped = true;
            }
            Item::ToolCall(_) | Item::Assistant(_) | Item::Reasoning(_) | Item::Native(_) => {}
            Item::User(_) | Item::ToolResult(_) => self.stepped = false,
        }
    }
}

/// Real prompts and agent steps (tool rounds) in `items`.
pub fn clocks<'a>(items: impl IntoIterator<Item = &'a Item>) -> (u32, u32) {
    let mut clock = Clock::default();
    for item in items {
        clock.tick(item);
    }
    (clock.turn, clock.step)
}

/// Prunes tool results in `items` (already repaired: each result follows its call).
pub fn prune<'a>(items: Vec<Cow<'a, Item>>, config: &PruningConfig, usage: Option<ContextUse>) -> (Vec<Cow<'a, Item>>, PruneReport) {
    let (turns, steps) = clocks(items.iter().map(|i| i.as_ref()));
    let mut report = PruneReport { turns, steps, ..PruneReport::default() };
    if !is_active(config, usage) {
        return (items, report);
    }
    report.active = true;
    let cut = boundaries(turns, steps, config);
    report.boundary_turn = cut.turn;
    report.boundary_step = cut.step;
    if cut.turn == 0 && cut.step == 0 {
        return (items, report);
    }
    let clear_before = Boundary {
        turn: cut.turn.saturating_sub(config.hard_clear_turns.saturating_sub(config.keep_turns)),
        step: cut.step.saturating_sub(config.hard_clear_steps.saturating_sub(config.keep_steps.max(1))),
    };
    // Tool names by call id (results carry only the id).
    let names: rustc_hash::FxHashMap<&str, &str> = items
        .iter()
        .filter_map(|i| match i.as_ref() {
            Item::ToolCall(c) => Some((c.call_id.as_str(), c.name.as_str())),
            _ => None,
        })
        .collect();
    let names: rustc_hash::FxHashMap<String, String> = names.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    let mut clock = Clock::default();
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        clock.tick(&item);
        let Clock { turn, step, .. } = clock;
        // `turn` and `step` number the turn and the step this item belongs to (1-based): a
        // result belongs to the step whose calls it answers. Results before the first prompt
        // (step) belong to turn (step) 0.
        let Item::ToolResult(result) = item.as_ref() else {
            out.push(item);
            continue;
        };
        let tool = names.get(&result.call_id).map(String::as_str).unwrap_or("tool");
        let old = turn < cut.turn || step < cut.step;
        if !old || config.protected_tools.iter().any(|p| p == tool) {
            out.push(item);
            continue;
        }
        let text = text_of(&result.content);
        let chars = text.chars().count();
        if turn < clear_before.turn || step < clear_before.step {
            Arc::make_mut(&mut report.cleared).push(result.id.clone());
            report.chars_saved += chars;
            let when = if turn < clear_before.turn { format!("in turn {turn}") } else { format!("in step {step}") };
            let placeholder = format!(
                "[Tool result cleared to save context: `{tool}` returned {chars} characters {when}. The full output is kept in the session log; run the tool again if you need it.]"
            );
            out.push(Cow::Owned(Item::ToolResult(ToolResult { content: vec![Part::text(placeholder)], ..result.clone() })));
        } else if let Some(trimmed) = (chars > config.soft_trim_chars && result.content.iter().all(|p| matches!(p, Part::Text { .. })))
            .then(|| soft_trim(&text, config.soft_trim_head, config.soft_trim_tail))
            // Head, tail and marker can outweigh a result just over the threshold: then keep it.
            .filter(|trimmed| trimmed.chars().count() < chars)
        {
            Arc::make_mut(&mut report.trimmed).push(result.id.clone());
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
