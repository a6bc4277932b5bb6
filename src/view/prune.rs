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
//! one moves, it prunes a batch at once.
//!
//! Counting alone fails a run of large results: forty rounds of 6,000 characters overflow a
//! small window long before a count boundary moves. So there is a third rule, *token pressure*:
//! replaying the session step by step, whenever the context as pruned so far passes the trigger,
//! the step boundary moves far enough that trimming (then clearing, oldest first) brings it under
//! `targetRatio` of the window, in batches of `batchRatio` of the window. The recent steps are
//! kept only as far back as their results fit `keepRecentRatio` of the window (the current step
//! always). Because the replay depends only on the items, a move happens at one request and every
//! request after it extends that one until the next. Pure: the same items and config always give
//! the same view.

use contextview_derive::ReadValue;
use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

pub use crate::conversation::soft_trim;
use crate::conversation::{soft_trimmed, text_of, Item, Part, ToolResult};
use crate::tokens::ItemSize;

/// Pruning settings (camelCase in JSON; every number has the chapter's default).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
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
    /// Prune by token pressure as well as by count: over the trigger, old results are pruned
    /// until the context is under `targetRatio` of the window. Off, only the count rules act.
    pub token_pressure: bool,
    /// Token pressure: once the context is over the trigger, results are pruned until the
    /// context (as estimated before pruning) is brought back under this share of the window.
    pub target_ratio: f64,
    /// The kept recent steps are protected only while their results fit this share of the
    /// window (the current step is always kept): a few huge steps cannot hold the window.
    pub keep_recent_ratio: f64,
    /// Under token pressure the boundary moves in batches that free at least this share of the
    /// window, so each move pays for the cache it breaks.
    pub batch_ratio: f64,
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
            // Measured on three sessions against the count rules alone (BENCHMARKS.md): pruning
            // deep and seldom costs least — each move rewrites what follows it in the cache.
            token_pressure: true,
            target_ratio: 0.15,
            keep_recent_ratio: 0.2,
            batch_ratio: 0.3,
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
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
    /// Results soft-trimmed in this request (their head and tail kept).
    pub trimmed: usize,
    /// Results cleared in this request (a placeholder stands in for each).
    pub cleared: usize,
    /// Item ids of the results this request trims that the session's last build did not (every
    /// one, for a first or a stateless build; none, when the boundaries stayed).
    pub newly_trimmed: Vec<String>,
    /// Item ids of the results this request clears that the session's last build did not.
    pub newly_cleared: Vec<String>,
    /// Characters of tool output left out of the view.
    pub chars_saved: usize,
    /// Bytes of the previous request this one rewrote because the boundary moved — what the
    /// provider must process again instead of reading from its cache (session builds; 0 when
    /// the boundary stayed).
    #[serde(default)]
    pub invalidated_bytes: usize,
    /// Every pruned id, for the next build to compare against and for Rust callers
    /// ([`PruneReport::trimmed_ids`], [`PruneReport::cleared_ids`]); not serialized: a report
    /// carries what changed, not every id on every build. Shared: a session's build after a step
    /// repeats the lists of the build before it.
    #[serde(skip)]
    ids: Arc<Pruned>,
}

/// The ids of the results pruning trimmed and cleared, in view order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Pruned {
    trimmed: Vec<String>,
    cleared: Vec<String>,
}

impl PruneReport {
    /// Item ids of every result this request trims, in order.
    pub fn trimmed_ids(&self) -> &[String] {
        &self.ids.trimmed
    }

    /// Item ids of every result this request clears, in order.
    pub fn cleared_ids(&self) -> &[String] {
        &self.ids.cleared
    }

    /// Names what this request prunes that `previous` (the session's last build, if any) did
    /// not prune the same way.
    pub(crate) fn compare_with(&mut self, previous: Option<&PruneReport>) {
        let newly = |now: &[String], before: Option<&[String]>| -> Vec<String> {
            match before {
                Some(before) if !before.is_empty() => {
                    let before: rustc_hash::FxHashSet<&str> = before.iter().map(String::as_str).collect();
                    now.iter().filter(|id| !before.contains(id.as_str())).cloned().collect()
                }
                _ => now.to_vec(),
            }
        };
        self.newly_trimmed = newly(&self.ids.trimmed, previous.map(PruneReport::trimmed_ids));
        self.newly_cleared = newly(&self.ids.cleared, previous.map(PruneReport::cleared_ids));
    }
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

/// What pruning does to a conversation: whether it acts, the boundaries results before which
/// are trimmed, and those before which they are cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Plan {
    pub active: bool,
    pub cut: Boundary,
    pub clear_before: Boundary,
}

/// Decides pruning for `items` (the session's, before repair) measured by `size(i)`, in a
/// context of `full` tokens as estimated before pruning (heads included) and `usage` as the
/// ledger counts it.
///
/// Two rules, the larger boundary winning. By count: results past the last `keepTurns` prompts
/// or `keepSteps` steps, in batches of turns or steps. By token pressure: while the estimated
/// context is over the trigger, the step boundary moves far enough that trimming (and if that is
/// not enough, clearing) the results before it brings the context under `targetRatio` of the
/// window — in batches of `batchRatio` of the window, and never into the recent steps that fit
/// `keepRecentRatio` of the window (the current step always kept). Both depend only on the
/// items, so between two moves every request extends the last.
pub fn plan(items: &[Item], config: &PruningConfig, usage: Option<ContextUse>, full: u64, size: &dyn Fn(usize) -> ItemSize) -> Plan {
    let (turns, steps) = clocks(items);
    let window = usage.map_or(0, |u| u.window);
    let over = |share: f64| window > 0 && full as f64 > share * window as f64;
    if !config.enabled || !(is_active(config, usage) || (config.token_pressure && over(config.trigger_ratio))) {
        return Plan::default();
    }
    let cut = boundaries(turns, steps, config);
    let mut plan = Plan {
        active: true,
        cut,
        clear_before: Boundary {
            turn: cut.turn.saturating_sub(config.hard_clear_turns.saturating_sub(config.keep_turns)),
            step: cut.step.saturating_sub(config.hard_clear_steps.saturating_sub(config.keep_steps.max(1))),
        },
    };
    if !config.token_pressure || !over(config.trigger_ratio) || steps == 0 {
        return plan;
    }
    // Per step: its results' tokens, what trimming and clearing them would save, and the
    // context's size when the step ended.
    let n = steps as usize + 1;
    let (mut tokens, mut trim, mut clear, mut ended) = (vec![0u64; n], vec![0u64; n], vec![0u64; n], vec![0u64; n]);
    // Calls of protected tools (few): their results are never pruned.
    let protected: rustc_hash::FxHashSet<&str> = items
        .iter()
        .filter_map(|i| match i {
            Item::ToolCall(c) if config.protected_tools.iter().any(|p| *p == c.name) => Some(c.call_id.as_str()),
            _ => None,
        })
        .collect();
    let items_total: u64 = (0..items.len()).map(|i| size(i).tokens).sum();
    let mut so_far = full.saturating_sub(items_total);
    let mut clock = Clock::default();
    let kept = (config.soft_trim_head + config.soft_trim_tail + 40) as u64;
    for (i, item) in items.iter().enumerate() {
        clock.tick(item);
        let ItemSize { tokens: t, chars, .. } = size(i);
        so_far += t;
        ended[clock.step as usize] = so_far;
        let Item::ToolResult(result) = item else { continue };
        let s = clock.step as usize;
        tokens[s] += t;
        if !protected.is_empty() && protected.contains(result.call_id.as_str()) {
            continue;
        }
        let text_only = || match &result.released {
            Some(released) => !released.images,
            None => result.content.iter().all(|p| matches!(p, Part::Text { .. })),
        };
        if chars > config.soft_trim_chars as u64 && chars > kept && text_only() {
            trim[s] += t - t * kept / chars;
        }
        clear[s] += t.saturating_sub(40);
    }
    // The request now is the last step and all that followed it.
    ended[steps as usize] = full;
    // Running sums over steps 1..=s of what trimming, and clearing, their results saves (a
    // result is cleared only where that saves at least as much as trimming it).
    let (mut trimmed_by, mut cleared_by) = (vec![0u64; n], vec![0u64; n]);
    for s in 1..n {
        trimmed_by[s] = trimmed_by[s - 1] + trim[s];
        cleared_by[s] = cleared_by[s - 1] + clear[s].max(trim[s]);
    }
    // Saved with results before step `cut` trimmed and those before `clear_before` cleared.
    let saved_by = |cut: u32, clear_before: u32| -> u64 {
        let trimmed_to = cut.saturating_sub(1) as usize;
        let cleared_to = clear_before.min(cut).saturating_sub(1) as usize;
        cleared_by[cleared_to] + trimmed_by[trimmed_to] - trimmed_by[cleared_to]
    };
    let (trigger, target) = ((config.trigger_ratio * window as f64) as u64, (config.target_ratio * window as f64) as u64);
    let budget = (config.keep_recent_ratio * window as f64) as u64;
    let batch = ((config.batch_ratio * window as f64) as u64).max(1);
    // The boundaries move as the session grew, step by step: a move only when the context as
    // pruned so far is over the trigger, and then far enough to bring it under the target, and
    // only when it frees at least a batch more than the boundaries before it — so a context
    // that pruning cannot bring under the target (what is left is not tool output) is not
    // rewritten at every step.
    let (mut cut, mut clear_before, mut saved) = (0u32, 0u32, 0u64);
    for at in 1..=steps {
        let size_then = ended[at as usize];
        if size_then.saturating_sub(saved) <= trigger {
            continue;
        }
        // The recent steps kept then: the last `keepSteps`, as far back as their results fit.
        let mut protect_from = at.saturating_sub(config.keep_steps.max(1)) + 1;
        let mut recent = 0u64;
        for s in (protect_from..=at).rev() {
            recent += tokens[s as usize];
            if recent > budget && s < at {
                protect_from = s + 1;
                break;
            }
        }
        let goal = size_then.saturating_sub(target);
        let last = protect_from.saturating_sub(1) as usize;
        // Clearing everything before the protected steps is the most a move can free: when
        // that is not a batch more than now, nothing moves (the common case of a context that
        // what is left keeps over the trigger).
        if cleared_by[last] < saved + batch {
            continue;
        }
        // Trimming alone, up to the first step whose savings reach the goal; else everything
        // before the protected steps trimmed and the oldest cleared until they do.
        let (next_cut, next_clear) = if trimmed_by[last] >= goal {
            ((first_reaching(last, |s| trimmed_by[s] >= goal) as u32 + 1).max(cut), clear_before)
        } else {
            let c = first_reaching(last, |s| cleared_by[s] + trimmed_by[last] - trimmed_by[s] >= goal);
            (protect_from.max(cut), (c as u32 + 1).max(clear_before))
        };
        let next_saved = saved_by(next_cut, next_clear);
        if next_saved >= saved + batch {
            (cut, clear_before, saved) = (next_cut, next_clear, next_saved);
        }
    }
    plan.cut.step = plan.cut.step.max(cut);
    plan.clear_before.step = plan.clear_before.step.max(clear_before);
    plan
}

/// The first `s` in `0..=last` where `reached(s)` holds (it holds for every `s` after it), or
/// `last` when none does.
fn first_reaching(last: usize, reached: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, last);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if reached(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Tool names by call id (results carry only the id).
fn tool_names<'a>(items: impl Iterator<Item = &'a Item>) -> rustc_hash::FxHashMap<&'a str, &'a str> {
    items
        .filter_map(|i| match i {
            Item::ToolCall(c) => Some((c.call_id.as_str(), c.name.as_str())),
            _ => None,
        })
        .collect()
}

/// Prunes tool results in `items` (already repaired: each result follows its call) as `plan`
/// says.
pub fn prune<'a>(items: Vec<Cow<'a, Item>>, config: &PruningConfig, plan: Plan) -> (Vec<Cow<'a, Item>>, PruneReport) {
    let (turns, steps) = clocks(items.iter().map(|i| i.as_ref()));
    let mut report = PruneReport { turns, steps, ..PruneReport::default() };
    if !plan.active {
        return (items, report);
    }
    report.active = true;
    let cut = plan.cut;
    report.boundary_turn = cut.turn;
    report.boundary_step = cut.step;
    if cut.turn == 0 && cut.step == 0 {
        return (items, report);
    }
    let clear_before = plan.clear_before;
    let names: rustc_hash::FxHashMap<String, String> = tool_names(items.iter().map(|i| i.as_ref())).into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
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
        // A result whose text the session let go measures as it was.
        let released = result.released.as_deref();
        let chars = released.map_or_else(|| text_of(&result.content).chars().count(), |r| r.chars as usize);
        if turn < clear_before.turn || step < clear_before.step {
            Arc::make_mut(&mut report.ids).cleared.push(result.id.clone());
            report.chars_saved += chars;
            let when = if turn < clear_before.turn { format!("in turn {turn}") } else { format!("in step {step}") };
            let placeholder = format!(
                "[Tool result cleared to save context: `{tool}` returned {chars} characters {when}. The full output is kept in the session log; run the tool again if you need it.]"
            );
            out.push(Cow::Owned(Item::ToolResult(ToolResult { content: vec![Part::text(placeholder)], released: None, ..result.clone() })));
        } else if let Some(released) = released {
            // Let go with these trim settings, the text it kept is the trim; with others, it
            // stays as it is and the build asks for the log.
            let settings = [config.soft_trim_chars, config.soft_trim_head, config.soft_trim_tail].map(|n| n as u64);
            if released.trimmed == Some(settings) {
                Arc::make_mut(&mut report.ids).trimmed.push(result.id.clone());
                report.chars_saved += chars - text_of(&result.content).chars().count();
                out.push(Cow::Owned(Item::ToolResult(ToolResult { released: None, ..result.clone() })));
            } else {
                out.push(item);
            }
        // Head, tail and marker can outweigh a result just over the threshold: then it stays.
        } else if let Some(trimmed) = soft_trimmed(&result.content, config.soft_trim_chars, config.soft_trim_head, config.soft_trim_tail) {
            Arc::make_mut(&mut report.ids).trimmed.push(result.id.clone());
            report.chars_saved += chars - trimmed.chars().count();
            out.push(Cow::Owned(Item::ToolResult(ToolResult { content: vec![Part::text(trimmed)], ..result.clone() })));
        } else {
            out.push(item);
        }
    }
    report.trimmed = report.ids.trimmed.len();
    report.cleared = report.ids.cleared.len();
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

#[cfg(test)]
mod pressure_tests {
    use super::*;
    use crate::conversation::{AssistantText, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;

    /// One prompt, then a tool round per size (each result 5,000 characters, so trimmable).
    fn run(steps: usize) -> Vec<Item> {
        let mut items = vec![Item::User(UserMessage { id: "u".into(), content: vec![Part::text("go")], synthetic: None })];
        for s in 1..=steps {
            items.push(Item::Assistant(AssistantText { id: format!("a{s}"), text: String::from("step").into(), origin: None, signature: None, annotations: None }));
            items.push(Item::ToolCall(ToolCall { id: format!("c{s}"), call_id: format!("k{s}"), name: "bash".into(), input: serde_json::json!({}).into(), origin: None, signature: None }));
            items.push(Item::ToolResult(ToolResult { id: format!("r{s}"), call_id: format!("k{s}"), content: vec![Part::text("x".repeat(5_000))], is_error: false, released: None }));
        }
        items
    }

    /// Results weigh `result` tokens each, everything else 10.
    fn sized(items: &[Item], result: u64) -> impl Fn(usize) -> ItemSize + '_ {
        move |i| match &items[i] {
            Item::ToolResult(r) => ItemSize { tokens: result, chars: text_of(&r.content).chars().count() as u64, ..ItemSize::default() },
            _ => ItemSize { tokens: 10, ..ItemSize::default() },
        }
    }

    /// Token pressure with the settings these tests work out by hand (not the defaults).
    fn pressure() -> PruningConfig {
        PruningConfig { target_ratio: 0.35, keep_recent_ratio: 0.25, batch_ratio: 0.1, ..PruningConfig::default() }
    }

    fn plan_for(steps: usize, result: u64, window: u64, config: &PruningConfig) -> Plan {
        let items = run(steps);
        let size = sized(&items, result);
        let full: u64 = (0..items.len()).map(|i| size(i).tokens).sum();
        plan(&items, config, Some(ContextUse { tokens: full, window }), full, &size)
    }

    #[test]
    fn pressure_moves_the_boundary_far_enough_to_bring_the_context_under_the_target() {
        let config = PruningConfig { keep_steps: 12, ..pressure() };
        // Ten rounds of 1,000-token results in a 20,000 window: 10 + 10 × (10 + 10 + 1,000) =
        // 10,210 tokens, over the trigger (10,000) only once round 10 ends. The target is 7,000:
        // 3,210 to free. Trimming a 5,000-character result to 1,500 + 1,500 (+ the marker's 40)
        // keeps 3,040/5,000 of it: 392 tokens saved per round (1,000 − 1,000 × 3,040/5,000).
        // The recent rounds kept must fit 5,000 tokens: the last 5. Rounds 1–5 trimmed save
        // 1,960 < 3,210: all five are trimmed, and clearing goes on from the oldest, saving 568
        // a round beyond trimming (960 − 392): 1,960 + 568 × 3 = 3,664 ≥ 3,210 at round 3.
        let p = plan_for(10, 1_000, 20_000, &config);
        assert_eq!(p.active, true);
        assert_eq!(p.cut.step, 6, "rounds 1–5 pruned, 6–10 kept");
        assert_eq!(p.clear_before.step, 4, "rounds 1–3 cleared");
        // Under the trigger, token pressure leaves everything alone (and the count rules have
        // nothing to prune in ten rounds).
        let quiet = plan_for(10, 1_000, 30_000, &config);
        assert_eq!((quiet.active, quiet.cut.step), (false, 0));
    }

    #[test]
    fn pressure_trims_before_it_clears_and_waits_for_a_batch() {
        let config = pressure();
        // Twenty rounds of 1,000 in a 40,000 window: 20,410 tokens after round 20, over the
        // trigger (20,000); target 14,000 → 6,410 to free. Recent rounds kept within 10,000
        // tokens: the last 10 (keepSteps 12 caps nothing here). Trimming rounds 1–10 saves
        // 3,920 < 6,410, so clearing follows: 3,920 + 568 × 5 = 6,760 ≥ 6,410 → rounds 1–5.
        let p = plan_for(20, 1_000, 40_000, &config);
        assert_eq!((p.cut.step, p.clear_before.step), (11, 6));
        // With a wider target (0.45 → 18,000) only 2,410 need freeing: trimming rounds 1–7 does
        // (2,744), but that is less than a batch (10% of the window: 4,000), so nothing moves.
        let wider = PruningConfig { target_ratio: 0.45, ..pressure() };
        let p = plan_for(20, 1_000, 40_000, &wider);
        assert_eq!((p.active, p.cut.step, p.clear_before.step), (true, 0, 0));
        // Batches of 1,000 (2.5%) and a target at the trigger (20,000). After round 20 (20,410)
        // trimming 2 rounds would do, but frees 784 < 1,000: no move. After round 21 (21,430):
        // 1,430 to free, 4 rounds trimmed (1,568), a batch: the boundary moves to round 5.
        let small = PruningConfig { target_ratio: 0.5, batch_ratio: 0.025, ..pressure() };
        let p = plan_for(21, 1_000, 40_000, &small);
        assert_eq!((p.cut.step, p.clear_before.step), (5, 0));
    }

    #[test]
    fn the_current_step_is_kept_however_large() {
        // Three rounds of 9,000 tokens in a 20,000 window: each alone over the recent budget
        // (5,000): only the current round is protected.
        let p = plan_for(3, 9_000, 20_000, &pressure());
        assert_eq!(p.cut.step, 3, "rounds 1 and 2 pruned, 3 kept");
    }
}
