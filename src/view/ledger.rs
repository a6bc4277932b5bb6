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
//! Thresholds are shares of the model's window: pruning starts above
//! [`super::PruningConfig::trigger_ratio`] (50%), compaction is due above
//! [`LedgerConfig::compact_ratio`] (85%) — or earlier, when what is left of the window would not
//! hold the summary request's own answer ([`LedgerConfig::compact_reserve`]).

use serde::{Deserialize, Serialize};

use crate::conversation::Item;
use crate::provider::{Provider, ToolDef};
use crate::tokens::{item_tokens, text_tokens, Family, ItemSize};
use crate::update::record::UsageAnchor;
use crate::update::replay::{usage_total, OverheadCarry, ReplayState};

/// Compaction threshold settings (camelCase in JSON).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

impl LedgerState {
    pub fn from_replay(state: &ReplayState) -> LedgerState {
        LedgerState { anchor: state.usage.clone().map(|u| (u, state.items_at_usage)), overhead_carry: state.overhead_carry }
    }
}

/// Which threshold the context has crossed.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Tokens the context holds.
    pub used: u64,
    /// The model's window in tokens (0 when unknown).
    pub size: u64,
    pub family: Family,
    /// `used` starts from the provider's reported usage.
    pub anchored: bool,
    /// The provider's count at the anchor (0 without one).
    pub anchor_tokens: u64,
    /// Estimated tokens on top of the anchor (everything, without one).
    pub estimated_tokens: u64,
    /// Provider overhead carried over a compaction (0 when none).
    pub inherited_overhead: i64,
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

/// Where the response a usage anchor describes starts: the assistant's items right before it.
pub fn response_start(items_before_anchor: &[Item]) -> usize {
    items_before_anchor.iter().rposition(|i| !i.is_assistant_side()).map_or(0, |p| p + 1)
}

/// The context a usage anchor stands for: the prompt it reports, plus its output — never less
/// than `response_tokens`, the estimate of the response's visible items.
pub fn anchor_total(usage: &UsageAnchor, response_tokens: u64) -> u64 {
    usage_total(usage).saturating_sub(usage.output_tokens).saturating_add(usage.output_tokens.max(response_tokens))
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
    let (anchor_tokens, estimated_tokens, inherited_overhead) = match anchor {
        _ if input.given.is_some() => (0, 0, 0),
        Some((usage, at)) => {
            // The response the usage describes: the assistant's items right before the anchor.
            // Its reported output is never less than its visible part: a smaller figure is a
            // count taken mid-stream (Claude Code logs the usage of a message's first block).
            // A server tool's blocks are not output: providers count them as input.
            let response = (response_start(&input.items[..*at])..*at).filter(|&i| !matches!(input.items[i], Item::Native(_))).map(size).sum();
            (anchor_total(usage, response), estimate(*at), 0)
        }
        None => {
            let heads = input.heads.unwrap_or_else(|| head_tokens(input.system, input.tools, family));
            // The carried excess holds the heads the provider counted; we count them ourselves,
            // so only the rest (framing) is inherited, in proportion to what was kept.
            let inherited = input.state.overhead_carry.map_or(0, |c| (c.excess.saturating_sub(heads as i64) as f64 * c.kept).round() as i64);
            (0, heads.saturating_add(estimate(0)), inherited)
        }
    };
    let used = input
        .given
        .unwrap_or_else(|| (anchor_tokens as i64).saturating_add(estimated_tokens as i64).saturating_add(inherited_overhead).max(0) as u64);
    let window = input.window.or_else(|| model_window(input.model)).filter(|w| *w > 0);
    let prune_at = window.map(|w| (input.prune_ratio * w as f64) as u64);
    // The reserve never takes more than half the window: a small model compacts at half, not at 0.
    let compact_at = window.map(|w| ((input.config.compact_ratio * w as f64) as u64).min(w.saturating_sub(input.config.compact_reserve.min(w / 2))));
    let threshold = match (prune_at, compact_at) {
        (_, Some(c)) if used > c => Threshold::Compact,
        (Some(p), _) if used > p => Threshold::Prune,
        _ => Threshold::Ok,
    };
    ContextUsage {
        used,
        size: window.unwrap_or(0),
        family,
        anchored: anchor.is_some() && input.given.is_none(),
        anchor_tokens,
        estimated_tokens,
        inherited_overhead,
        prune_at,
        compact_at,
        threshold,
    }
}
