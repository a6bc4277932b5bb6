//! Where a compaction cuts: the first item kept verbatim.
//!
//! Candidates are step boundaries — a real prompt, or the first assistant item after a user-side
//! item (the start of a tool round) — so a call is never parted from its result. The earliest
//! candidate whose tail fits the budget wins; failing that, the latest one, so the current step
//! (the agent's work in progress) is always kept. The first-user prefix and earlier summaries are
//! never kept: a compaction re-makes them.

use crate::conversation::{Item, SyntheticReason};
use crate::view::prune::is_real_prompt;

/// Where to cut: the index of the first item kept verbatim. Candidates are turn boundaries — a
/// real prompt, or the first assistant item after a user-side item — so a call and its result
/// are never parted. The earliest candidate whose tail fits the budget wins, else the latest
/// one; the prefix and earlier summaries are never kept (they are re-made).
pub fn cut(items: &[Item], keep_tokens: u64, size: impl Fn(usize) -> u64) -> usize {
    let first = items.iter().position(|i| !is_regenerated(i)).unwrap_or(items.len());
    let mut tail = 0u64;
    let mut best = items.len();
    // The latest boundary is kept even over the budget: cutting after it could part a call
    // that has no result yet from the result still to come.
    let mut latest = None;
    for i in (first..items.len()).rev() {
        tail = tail.saturating_add(size(i));
        let boundary = match &items[i] {
            item @ Item::User(_) => is_real_prompt(item),
            Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => i == 0 || !items[i - 1].is_assistant_side(),
            Item::ToolResult(_) => false,
        };
        if boundary {
            latest = latest.or(Some(i));
            if tail <= keep_tokens {
                best = i;
            }
        }
        if tail > keep_tokens && latest.is_some() {
            break;
        }
    }
    if best == items.len() {
        latest.unwrap_or(items.len())
    } else {
        best
    }
}

/// Items a compaction re-makes rather than summarises: the first-user prefix and summaries.
pub fn is_regenerated(item: &Item) -> bool {
    matches!(item, Item::User(m) if matches!(m.synthetic, Some(SyntheticReason::Prefix | SyntheticReason::Compaction)))
}


/// Whether the cut at `at` falls inside a turn: the first item kept is not the prompt that
/// started its turn, and that prompt lies before the cut (its first steps are summarised).
pub fn splits_turn(items: &[Item], at: usize) -> bool {
    at < items.len() && !is_real_prompt(&items[at]) && items[..at].iter().any(is_real_prompt)
}
