//! The token ledger (chapter 8.12): how full the context is, and which threshold it has crossed.
//!
//! The count is *anchored*: the provider's last reported usage (prompt, cached, newly cached and
//! output tokens) is exact for everything up to the response it describes, so only what came
//! after it is estimated ([`crate::tokens`]). The output figure counts at least the response's
//! visible items as estimated: some agents log a count taken mid-stream (a handful of tokens
//! for a long tool call). With no anchor, everything is estimated — the
//! system prompt, the tools and every item — plus, after a compaction, the provider's overhead
//! over our estimate carried over a compaction: the system prompt and tools whole (they are
//! estimated again), the rest in proportion to what the compaction kept (replay records the
//! excess and the share: [`crate::update::replay::OverheadCarry`]).
//!
//! The count then follows the view ([`ContextUsage::follow_view`]): pruning decides on the
//! conversation as the log holds it, but what it and image eviction leave out is not sent, so it
//! is taken off before a threshold is checked — less what the anchored request had already left
//! out, which the session records with each answer (`omittedTokens`). A compaction is asked
//! for only when what will be sent needs it.
//!
//! Thresholds are shares of the model's window: pruning starts above
//! [`super::PruningConfig::trigger_ratio`] (50%), compaction is due above
//! [`LedgerConfig::compact_ratio`] (85%) — or earlier, when what is left of the window would not
//! hold the summary request's own answer ([`LedgerConfig::compact_reserve`]).

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::conversation::Item;
use crate::provider::{Provider, ToolDef};
use crate::tokens::{item_tokens, text_tokens, Family, ItemSize};
use crate::update::record::UsageAnchor;
use crate::update::replay::{Correction, OverheadCarry, ReplayState};

/// Compaction threshold settings (camelCase in JSON).
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct LedgerConfig {
    /// Compaction is due above this share of the window.
    pub compact_ratio: f64,
    /// Tokens kept free for the summary request's answer; compaction is due once fewer remain
    /// (at most half the window).
    pub compact_reserve: u64,
}

impl Default for LedgerConfig {
    fn default() -> Self {
        LedgerConfig { compact_ratio: 0.85, compact_reserve: 20_000 }
    }
}

/// What the log says about the provider's counts: the last usage anchor (and how many items
/// existed when it was recorded), or the overhead a compaction carried over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LedgerState {
    pub anchor: Option<(UsageAnchor, usize)>,
    pub overhead_carry: Option<OverheadCarry>,
    /// What a context-length refusal since the anchor said of the count.
    pub correction: Option<Correction>,
}

impl LedgerState {
    pub fn from_replay(state: &ReplayState) -> LedgerState {
        LedgerState {
            anchor: state.usage.clone().map(|u| (u, state.items_at_usage)),
            overhead_carry: state.overhead_carry,
            correction: state.correction,
        }
    }
}

/// Which threshold the context has crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum Threshold {
    /// Below the pruning trigger (or the window is unknown).
    Ok,
    /// Above the pruning trigger: old tool results are pruned.
    Prune,
    /// Above the compaction threshold: the host should compact.
    Compact,
}

/// How full the context is — `used` and `size` as in ACP's `usage_update`, and how it was counted.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Tokens the context holds.
    pub used: u64,
    /// The model's window in tokens (0 when unknown).
    pub size: u64,
    pub family: Family,
    /// `used` starts from the provider's reported usage.
    pub anchored: bool,
    /// `used` is the count the caller gave (`contextTokens`), not the ledger's.
    #[serde(default)]
    pub given: bool,
    /// The provider's count at the anchor (0 without one).
    pub anchor_tokens: u64,
    /// Estimated tokens on top of the anchor (everything, without one).
    pub estimated_tokens: u64,
    /// Provider overhead carried over a compaction (0 when none).
    pub inherited_overhead: i64,
    /// What the view changed of the logged conversation's count, estimated: the tokens pruning
    /// and image eviction leave out (negative), less what the request the anchor describes
    /// had already left out (its `omittedTokens`). `used` is the sum of `anchorTokens`,
    /// `estimatedTokens`, `inheritedOverhead` and this: what the request will hold.
    #[serde(default)]
    pub adjusted_tokens: i64,
    /// What a context-length refusal since the anchor said the count misses (or, negative,
    /// over-counts): the sum of the other parts scaled by the provider's count of the refused
    /// request over the ledger's. `used` is the sum of every part.
    #[serde(default)]
    pub corrected_tokens: i64,
    /// The anchor's count over the estimate of what it counted (its model's family being the
    /// request's): what the view leaves out is taken off at this rate, in the provider's tokens
    /// the anchor counted it in, not the estimator's (1 without an anchor).
    #[serde(skip, default = "one")]
    pub calibration: f64,
    /// Estimated tokens of the logged conversation this request leaves out (pruned tool
    /// output, evicted images): what a usage anchor for its answer records.
    #[serde(default)]
    pub omitted_tokens: u64,
    /// Token counts where pruning starts and compaction is due (absent when the window is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prune_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_at: Option<u64>,
    pub threshold: Threshold,
}

impl ContextUsage {
    /// What pruning needs of the count (nothing when the window is unknown).
    pub fn as_use(&self) -> Option<super::ContextUse> {
        (self.size > 0).then_some(super::ContextUse { tokens: self.used, window: self.size })
    }

    /// The count made to follow the view (chapter 8.12 with 8.9–8.10): `rewrites` are what the
    /// view changed of the logged items ([`rewrites`]). Before, `used` counts the conversation
    /// as the log holds it — what pruning decides on; after, what the request will hold, and
    /// the threshold is crossed on that.
    ///
    /// An anchor counts its request as it was sent: what that request had already left out
    /// (its recorded `omittedTokens`, added back by [`measure`]) is left out again with the
    /// rest. An anchor that does not say is taken to have left out, before it, what this view
    /// does: only what the view changes after it counts. A count the caller gave is theirs.
    pub fn follow_view(&mut self, state: &LedgerState, rewrites: &[(usize, i64)]) {
        let total: i64 = rewrites.iter().map(|r| r.1).sum();
        self.omitted_tokens = total.max(0) as u64;
        if self.given {
            return;
        }
        let anchor = state.anchor.as_ref().filter(|_| self.anchored);
        let recorded = anchor.and_then(|(usage, _)| usage.omitted_tokens);
        let adjusted = match (anchor, recorded) {
            (Some(_), Some(omitted)) => omitted as i64 - total,
            (Some((_, at)), None) => -rewrites.iter().filter(|r| r.0 >= *at).map(|r| r.1).sum::<i64>(),
            (None, _) => -total,
        };
        self.adjusted_tokens = (adjusted as f64 * self.calibration).round() as i64;
        let sum = (self.anchor_tokens as i64).saturating_add(self.estimated_tokens as i64).saturating_add(self.inherited_overhead).saturating_add(self.adjusted_tokens);
        self.corrected_tokens = correction(sum, state.correction);
        self.used = sum.saturating_add(self.corrected_tokens).max(0) as u64;
        self.threshold = threshold(self.used, self.prune_at, self.compact_at);
    }
}

/// What a refusal's correction adds to a count of `sum`.
fn correction(sum: i64, correction: Option<Correction>) -> i64 {
    correction.map_or(0, |c| (sum.max(0) as f64 * (c.ratio() - 1.0)).round() as i64)
}

fn one() -> f64 {
    1.0
}

fn threshold(used: u64, prune_at: Option<u64>, compact_at: Option<u64>) -> Threshold {
    match (prune_at, compact_at) {
        (_, Some(c)) if used > c => Threshold::Compact,
        (Some(p), _) if used > p => Threshold::Prune,
        _ => Threshold::Ok,
    }
}

/// What a view left out of the logged items, as (index of the logged item, estimated tokens
/// left out), for the items it shrank or dropped: a rewritten item (pruned, its images
/// evicted) counts what it lost, an item the view dropped all of its size. What a repair adds
/// (a synthetic result for a call still running) is not counted: it stands in for what the
/// log will hold. `sizes` are the logged items' (parallel to `items`); a view item that is not
/// one of `items` is matched by id to the logged item after the last one it borrowed (repair
/// keeps the order; pruning and eviction keep ids).
pub fn rewrites(items: &[Item], view: &[&Item], sizes: &[ItemSize], family: Family) -> Vec<(usize, i64)> {
    let size = |i: usize| sizes.get(i).map_or_else(|| item_tokens(&items[i], family), |s| s.tokens) as i64;
    let mut out = Vec::new();
    let mut seen = vec![false; items.len()];
    let mut next = 0usize;
    for &item in view {
        if let Some(i) = super::index_in(items, item) {
            seen[i] = true;
            next = i + 1;
            continue;
        }
        if let Some(j) = (next..items.len().min(next + 8)).find(|&j| !seen[j] && items[j].id() == item.id()) {
            seen[j] = true;
            next = j + 1;
            let lost = size(j) - item_tokens(item, family) as i64;
            if lost > 0 {
                out.push((j, lost));
            }
        }
    }
    out.extend((0..items.len()).filter(|&i| !seen[i]).map(|i| (i, size(i))));
    out.sort_by_key(|r| r.0);
    out
}

/// The context window of a model, by name; `None` for models we do not know.
pub fn model_window(model: &str) -> Option<u64> {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m); // "openai/gpt-5", "models/gemini-2.5-pro"
    let window = if m.starts_with("claude") {
        200_000
    } else if m.starts_with("gpt-4.1") {
        1_047_576
    } else if m.starts_with("gpt-5") {
        // 400k in all, of which 272k may be input.
        272_000
    } else if m.starts_with("gpt-4o") || m.starts_with("gpt-4-turbo") {
        128_000
    } else if m.starts_with("o1") || m.starts_with("o3") || m.starts_with("o4") {
        200_000
    } else if m.starts_with("gemini") {
        1_048_576
    } else {
        return None;
    };
    Some(window)
}

/// How far an anchor's count may calibrate the estimator: a ratio outside this is not the
/// estimator's error (the count of something the log does not hold), and calibrates nothing.
const CALIBRATION: (f64, f64) = (0.7, 1.4);

/// Everything the ledger reads for one count.
pub struct LedgerInput<'a> {
    pub items: &'a [Item],
    pub state: &'a LedgerState,
    pub provider: Provider,
    pub model: &'a str,
    pub system: Option<&'a str>,
    pub tools: &'a [ToolDef],
    /// The window when the caller or the log says it; else the model's known window.
    pub window: Option<u64>,
    pub prune_ratio: f64,
    pub config: &'a LedgerConfig,
    /// A count the caller already has (its own ledger); replaces ours.
    pub given: Option<u64>,
    /// Item sizes already measured for this family (parallel to `items`).
    pub sizes: Option<&'a [ItemSize]>,
    /// [`head_tokens`] of `system` and `tools`, when already measured.
    pub heads: Option<u64>,
}

/// Estimated tokens of the request heads: system prompt and tool definitions.
pub fn head_tokens(system: Option<&str>, tools: &[ToolDef], family: Family) -> u64 {
    let system = system.map_or(0.0, |s| text_tokens(s, family));
    let tools: f64 = tools
        .iter()
        .map(|t| {
            text_tokens(&t.name, family)
                + t.description.as_deref().map_or(0.0, |d| text_tokens(d, family))
                + text_tokens(&t.input_schema.to_string(), family)
                + family.per_item() as f64
        })
        .sum();
    (system + tools).round() as u64
}

/// Counts the context: anchor + estimated delta, or an estimate of everything.
pub fn measure(input: &LedgerInput<'_>) -> ContextUsage {
    let family = Family::of(input.provider, input.model);
    let size = |i: usize| -> u64 {
        match input.sizes.filter(|e| e.len() == input.items.len()) {
            Some(sizes) => sizes[i].tokens,
            None => item_tokens(&input.items[i], family),
        }
    };
    let estimate = |from: usize| -> u64 { (from..input.items.len()).map(size).sum() };
    // An anchor past the end of the items no longer describes them (they were cut).
    let anchor = input.state.anchor.as_ref().filter(|(_, at)| *at <= input.items.len());
    let heads = || input.heads.unwrap_or_else(|| head_tokens(input.system, input.tools, family));
    let mut calibration = 1.0;
    let (anchor_tokens, estimated_tokens, inherited_overhead, adjusted_tokens) = match anchor {
        _ if input.given.is_some() => (0, 0, 0, 0),
        Some((usage, at)) => {
            // The response the usage describes: the assistant's items right before the anchor.
            // Its reported output is never less than its visible part: a smaller figure is a
            // count taken mid-stream (Claude Code logs the usage of a message's first block).
            // A server tool's blocks are not output: providers count them as input.
            let response = (crate::conversation::response_start(&input.items[..*at])..*at).filter(|&i| !matches!(input.items[i], Item::Native(_))).map(size).sum();
            // The heads the anchored request carried are counted as this request's own.
            let (then, now) = usage.head_tokens.map_or((0, 0), |then| (then, heads()));
            let counted = usage.context(response).saturating_sub(then);
            // What the anchored request held, as the estimator counts it: its items, less what
            // it left out. Its count over that is the rate at which what the view leaves out of
            // what it counted is taken off (the estimator's error in this session, which the
            // anchor's count holds), when the anchor's model counts as this one. What came after
            // it is new to the count: estimated as it is.
            // An anchor that does not say which of its tokens were heads counted them too.
            let heads_held = if usage.head_tokens.is_some() { 0 } else { heads() };
            let held = ((0..*at).map(size).sum::<u64>() + heads_held).saturating_sub(usage.omitted_tokens.unwrap_or(0));
            if held > 0 && Family::of_names(usage.provider.as_deref(), usage.model.as_deref()) == family {
                let ratio = counted as f64 / held as f64;
                if (CALIBRATION.0..=CALIBRATION.1).contains(&ratio) {
                    calibration = ratio;
                }
            }
            let scaled = |tokens: u64| (tokens as f64 * calibration).round() as u64;
            // What the anchored request had left out is held again, until the view leaves it
            // out again ([`ContextUsage::follow_view`]).
            (counted, estimate(*at).saturating_add(now), 0, scaled(usage.omitted_tokens.unwrap_or(0)) as i64)
        }
        None => {
            let heads = heads();
            // The carried excess holds the heads the provider counted (unless the anchor said
            // which they were: then it holds the framing alone); we count the heads ourselves,
            // so only the rest (framing) is inherited, in proportion to what was kept.
            let inherited = input.state.overhead_carry.map_or(0, |c| {
                let framing = if c.framing_only { c.excess.max(0) } else { c.excess.saturating_sub(heads as i64) };
                (framing as f64 * c.kept).round() as i64
            });
            (0, heads.saturating_add(estimate(0)), inherited, 0)
        }
    };
    let sum = (anchor_tokens as i64).saturating_add(estimated_tokens as i64).saturating_add(inherited_overhead).saturating_add(adjusted_tokens);
    let corrected_tokens = if input.given.is_some() { 0 } else { correction(sum, input.state.correction) };
    let used = input.given.unwrap_or_else(|| sum.saturating_add(corrected_tokens).max(0) as u64);
    let window = input.window.or_else(|| model_window(input.model)).filter(|w| *w > 0);
    let prune_at = window.map(|w| (input.prune_ratio * w as f64) as u64);
    // The reserve never takes more than half the window: a small model compacts at half, not at 0.
    let compact_at = window.map(|w| ((input.config.compact_ratio * w as f64) as u64).min(w.saturating_sub(input.config.compact_reserve.min(w / 2))));
    let threshold = threshold(used, prune_at, compact_at);
    ContextUsage {
        used,
        size: window.unwrap_or(0),
        family,
        anchored: anchor.is_some() && input.given.is_none(),
        given: input.given.is_some(),
        anchor_tokens,
        estimated_tokens,
        inherited_overhead,
        adjusted_tokens,
        corrected_tokens,
        calibration,
        omitted_tokens: 0,
        prune_at,
        compact_at,
        threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{Part, ToolResult, UserMessage};

    fn user(id: &str, text: &str) -> Item {
        Item::User(UserMessage { id: id.into(), content: vec![Part::text(text)], synthetic: None })
    }

    fn result(id: &str, text: &str) -> Item {
        Item::ToolResult(ToolResult { id: id.into(), call_id: format!("call-{id}"), content: vec![Part::text(text)], is_error: false, released: None })
    }

    fn sized(tokens: &[u64]) -> Vec<ItemSize> {
        tokens.iter().map(|&tokens| ItemSize { tokens, ..ItemSize::default() }).collect()
    }

    #[test]
    fn rewrites_count_what_each_logged_item_lost() {
        let items = vec![user("u1", "a"), result("r1", "b"), result("r2", "c"), user("u2", "d")];
        // The logged sizes as a cache measured them; the rewritten item is measured afresh.
        let sizes = sized(&[10, 500, 300, 20]);
        let rewritten = result("r1", "b");
        let synthetic = result("x", "interrupted");
        let fresh = item_tokens(&rewritten, Family::OpenAi) as i64;
        // r1 rewritten, r2 dropped, a synthetic item added (not counted).
        let view = vec![&items[0], &rewritten, &synthetic, &items[3]];
        assert_eq!(rewrites(&items, &view, &sizes, Family::OpenAi), vec![(1, 500 - fresh), (2, 300)]);
        // Nothing changed: nothing left out.
        let same: Vec<&Item> = items.iter().collect();
        assert_eq!(rewrites(&items, &same, &sizes, Family::OpenAi), vec![]);
    }

    fn counted(anchor: Option<(u64, Option<u64>, usize)>) -> (ContextUsage, LedgerState) {
        let state = LedgerState {
            anchor: anchor.map(|(input, omitted, at)| {
                (UsageAnchor { input_tokens: input, output_tokens: 0, omitted_tokens: omitted, ..UsageAnchor::default() }, at)
            }),
            overhead_carry: None,
            correction: None,
        };
        let usage = ContextUsage {
            used: 0,
            size: 10_000,
            family: Family::OpenAi,
            anchored: anchor.is_some(),
            given: false,
            anchor_tokens: anchor.map_or(0, |a| a.0),
            estimated_tokens: 1_000,
            inherited_overhead: 0,
            adjusted_tokens: anchor.and_then(|a| a.1).unwrap_or(0) as i64,
            corrected_tokens: 0,
            calibration: 1.0,
            omitted_tokens: 0,
            prune_at: Some(5_000),
            compact_at: Some(8_000),
            threshold: Threshold::Ok,
        };
        (usage, state)
    }

    #[test]
    fn the_count_follows_the_view() {
        // Left out: 2,000 before the anchor (index 5), 300 after it.
        let rewrites = [(2, 1_500), (4, 500), (7, 300)];
        // The anchored request had left out 1,500 of it: 800 more are left out now.
        let (mut usage, state) = counted(Some((7_000, Some(1_500), 5)));
        usage.follow_view(&state, &rewrites);
        assert_eq!((usage.used, usage.adjusted_tokens, usage.omitted_tokens, usage.threshold), (7_200, -800, 2_300, Threshold::Prune));
        // An anchor that does not say: what is left out before it was left out then too.
        let (mut usage, state) = counted(Some((7_000, None, 5)));
        usage.follow_view(&state, &rewrites);
        assert_eq!((usage.used, usage.adjusted_tokens), (7_700, -300));
        // No anchor: everything is estimated, everything left out is taken off.
        let (mut usage, state) = counted(None);
        usage.estimated_tokens = 9_000;
        usage.follow_view(&state, &rewrites);
        assert_eq!((usage.used, usage.adjusted_tokens, usage.threshold), (6_700, -2_300, Threshold::Prune));
        // Over the compaction threshold as held, under it as sent.
        let (mut usage, state) = counted(None);
        usage.estimated_tokens = 8_500;
        usage.follow_view(&state, &[(1, 600)]);
        assert_eq!((usage.used, usage.threshold), (7_900, Threshold::Prune));
        // A count the caller gave stays theirs.
        let (mut usage, state) = counted(None);
        (usage.given, usage.used) = (true, 4_000);
        usage.follow_view(&state, &rewrites);
        assert_eq!((usage.used, usage.omitted_tokens), (4_000, 2_300));
        // A refusal said the ledger counts a quarter too little: every part is scaled, after
        // the view took its part off (7,200 as above, and a quarter of it).
        let (mut usage, mut state) = counted(Some((7_000, Some(1_500), 5)));
        state.correction = Some(Correction { tokens: 12_500, counted: 10_000 });
        usage.follow_view(&state, &rewrites);
        assert_eq!((usage.used, usage.adjusted_tokens, usage.corrected_tokens, usage.threshold), (9_000, -800, 1_800, Threshold::Compact));
        // The ratio is at least a half, as far above one as the provider's count says.
        assert_eq!((Correction { tokens: 1, counted: 10 }.ratio(), Correction { tokens: 9000, counted: 10 }.ratio(), Correction { tokens: 5, counted: 0 }.ratio()), (0.5, 900.0, 1.0));
    }
}
