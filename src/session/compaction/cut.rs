//! Where a compaction cuts: the first item kept verbatim.
//!
//! Candidates are step boundaries — a real prompt, or the first assistant item after a user-side
//! item (the start of a tool round) — so a call is never parted from its result. The earliest
//! candidate whose tail fits the budget wins; failing that, the latest one, so the current step
//! (the agent's work in progress) is always kept. A tail with nothing the model said (a new
//! prompt after a large output the user's own command printed) reaches back to the latest
//! exchange: its prompt when it made no tool round, else its last step — the model continues
//! from what it last did, not from a summary alone. The first-user prefix and earlier summaries
//! are never kept: a compaction re-makes them.

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
    let boundary = |i: usize| match &items[i] {
        item @ Item::User(_) => is_real_prompt(item),
        Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) | Item::Native(_) => i == 0 || !items[i - 1].is_assistant_side(),
        Item::ToolResult(_) => false,
    };
    for i in (first..items.len()).rev() {
        tail = tail.saturating_add(size(i));
        if boundary(i) {
            latest = latest.or(Some(i));
            if tail <= keep_tokens {
                best = i;
            }
        }
        if tail > keep_tokens && latest.is_some() {
            break;
        }
    }
    let at = if best == items.len() { latest.unwrap_or(items.len()) } else { best };
    // Nothing the model said is kept: reach back to the latest exchange.
    if items[at..].iter().any(Item::is_assistant_side) {
        return at;
    }
    let Some(step) = (first..at).rev().find(|&i| boundary(i)) else { return at };
    match (first..at).rev().find(|&i| is_real_prompt(&items[i])) {
        Some(prompt) if !items[prompt..at].iter().any(|i| matches!(i, Item::ToolCall(_))) => prompt,
        _ => step,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{AssistantText, Part, ToolCall, ToolResult, UserMessage};
    use pretty_assertions::assert_eq;

    fn prompt(id: &str) -> Item {
        Item::User(UserMessage { id: id.into(), content: vec![Part::text(id)], synthetic: None })
    }
    fn prefix() -> Item {
        Item::User(UserMessage { id: "prefix".into(), content: vec![Part::text("env")], synthetic: Some(SyntheticReason::Prefix) })
    }
    fn text(id: &str) -> Item {
        Item::Assistant(AssistantText { id: id.into(), text: String::from(id).into(), origin: None, signature: None , annotations: None })
    }
    fn call(id: &str) -> Item {
        Item::ToolCall(ToolCall { id: id.into(), call_id: id.into(), name: "bash".into(), input: serde_json::json!({}).into(), origin: None, signature: None })
    }
    fn result(id: &str) -> Item {
        Item::ToolResult(ToolResult { id: format!("r-{id}"), call_id: id.into(), content: vec![Part::text("out")], is_error: false, released: None })
    }

    /// The prefix, then a prompt with two tool rounds and an answer, then a second prompt with
    /// one round: indices 0 (prefix), 1 u1, 2 c1, 3 r1, 4 c2, 5 r2, 6 a1, 7 u2, 8 c3, 9 r3.
    fn items() -> Vec<Item> {
        vec![prefix(), prompt("u1"), call("c1"), result("c1"), call("c2"), result("c2"), text("a1"), prompt("u2"), call("c3"), result("c3")]
    }

    /// Every item weighs 10 tokens, except those given.
    fn sizes(heavy: &[(usize, u64)]) -> impl Fn(usize) -> u64 + '_ {
        move |i| heavy.iter().find(|(at, _)| *at == i).map_or(10, |(_, t)| *t)
    }

    #[test]
    fn the_earliest_step_boundary_whose_tail_fits_the_budget() {
        let items = items();
        // 30 tokens: the last round (8, 9) and its prompt (7) fit exactly.
        assert_eq!(cut(&items, 30, sizes(&[])), 7);
        // 29: only the round itself, from its call.
        assert_eq!(cut(&items, 29, sizes(&[])), 8);
        // 60: back to the second round of the first prompt (4–9).
        assert_eq!(cut(&items, 60, sizes(&[])), 4);
        // Everything fits: everything but the prefix, which a compaction re-makes.
        assert_eq!(cut(&items, 1_000, sizes(&[])), 1);
    }

    #[test]
    fn never_between_a_call_and_its_result() {
        let items = items();
        // 10 tokens would keep only the last result, parted from its call: the cut falls on the
        // round's start instead (the latest boundary), over the budget.
        assert_eq!(cut(&items, 10, sizes(&[])), 8);
        // 50 tokens reach back to r2 (5), a result: the earliest boundary within them is the
        // answer after that round (6), not the result.
        assert_eq!(cut(&items, 50, sizes(&[])), 6);
    }

    #[test]
    fn every_step_over_the_budget_keeps_the_current_one() {
        let items = items();
        let heavy = [(3, 500), (5, 500), (9, 500)];
        assert_eq!(cut(&items, 100, sizes(&heavy)), 8);
    }

    #[test]
    fn a_latest_message_larger_than_the_budget_is_kept_and_nothing_after_it_is_lost() {
        let mut items = items();
        items.push(prompt("u3"));
        // The last prompt alone weighs ten times the budget: it is kept whole, with the last
        // step the model made before it (8, 9).
        assert_eq!(cut(&items, 100, sizes(&[(10, 1_000)])), 8);
        assert!(!splits_turn(&items, 10));
        // A cut inside the second prompt's round splits its turn.
        assert!(splits_turn(&items, 8));
        assert!(!splits_turn(&items, 7));
    }

    fn interjection(id: &str) -> Item {
        Item::User(UserMessage { id: id.into(), content: vec![Part::text(id)], synthetic: Some(SyntheticReason::Interjection) })
    }

    #[test]
    fn a_new_prompt_after_a_large_output_keeps_the_exchange_before_it() {
        // Three short exchanges, the output of a command the user ran (over the budget), then a
        // new prompt: 0 prefix, 1 u1, 2 a1, 3 u2, 4 a2, 5 u3, 6 a3, 7 output, 8 u4.
        let items =
            vec![prefix(), prompt("u1"), text("a1"), prompt("u2"), text("a2"), prompt("u3"), text("a3"), interjection("output"), prompt("u4")];
        // The new prompt alone would fit; the latest exchange (its prompt, answer and the
        // output) is kept too, over the budget.
        assert_eq!(cut(&items, 100, sizes(&[(7, 13_000)])), 5);
        // Under a budget that holds it, the earliest boundary that fits, as always.
        assert_eq!(cut(&items, 13_050, sizes(&[(7, 13_000)])), 3);
        // After tool rounds, the last step is the latest exchange: 0 prefix, 1 u1, 2 c1, 3 r1,
        // 4 c2, 5 r2, 6 output, 7 u2.
        let items = vec![prefix(), prompt("u1"), call("c1"), result("c1"), call("c2"), result("c2"), interjection("output"), prompt("u2")];
        assert_eq!(cut(&items, 100, sizes(&[(6, 13_000)])), 4);
    }
}
