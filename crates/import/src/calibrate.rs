//! Anchors that measured another agent's request. An imported usage counted that agent's own
//! system prompt, tool definitions and framing — tens of thousands of tokens for Claude Code —
//! which this package's requests do not carry; added whole, they make an imported session look
//! twice as full as the request it builds. Each imported anchor therefore says how many of its
//! tokens were those heads ([`UsageAnchor::head_tokens`]), and the ledger counts this package's
//! heads in their place.
//!
//! The other agent's heads are estimated from the anchors themselves: an anchor's excess over
//! the conversation it measured (as this package estimates it) is those heads plus the
//! estimate's error on the conversation; the least excess of the anchors so far — usually the
//! first request's, which holds little else — stands for the heads alone at each anchor, and what
//! it counts beyond that keeps calibrating the estimate. Each anchor's estimate uses only the
//! anchors before it, so a file that grows never changes what its earlier anchors say (an
//! incremental import appends what a whole import writes). A negative least excess (anchors
//! counting less than the estimate) removes nothing. Each compaction starts the reckoning again: after
//! one, an agent's requests may carry what its log does not (Claude Code attaches the files it
//! had read), and the anchors after it measured that.

use contextview::conversation::{response_start, Item};
use contextview::tokens::{item_tokens, Family};
use contextview::update::{Event, Record, RecordBody, Replayer};

/// Sets every anchor's `head_tokens` that lacks one to the estimated heads of the agent that
/// wrote the log, from the anchors up to it since the last compaction; returns the estimate at
/// the last of them (`None`: no anchors), and the items the records replay to (which a head's
/// count does not change), so that the import need not replay them again.
pub fn foreign_heads(records: &mut [Record]) -> (Option<u64>, Vec<Item>) {
    // Each anchor's estimate: the least excess of the anchors up to it since the last compaction.
    let mut estimates: Vec<(usize, u64)> = Vec::new();
    let mut heads = None;
    let mut stretch_least: Option<i64> = None;
    let mut stretch_open = false;
    let mut replayer = Replayer::new(&[]);
    // Item estimates, kept in step with the replay (what changed is measured again).
    let mut sizes: Vec<u64> = Vec::new();
    let mut family = Family::OpenAi;
    for (i, record) in records.iter().enumerate() {
        if !replayer.push(record) {
            replayer = Replayer::new(&records[..=i]);
            sizes.clear();
            stretch_open = false;
        }
        if matches!(record.body, RecordBody::Event(Event::CompactionCheckpoint(_))) {
            stretch_open = false;
        }
        let RecordBody::Event(Event::UsageAnchor(usage)) = &record.body else { continue };
        let anchor_family = Family::of_names(usage.provider.as_deref(), usage.model.as_deref());
        if anchor_family != family {
            family = anchor_family;
            sizes.clear();
        }
        let changed = replayer.take_changed_from();
        let items = replayer.items();
        sizes.truncate(changed.min(sizes.len()));
        sizes.extend(items[sizes.len()..].iter().map(|item| item_tokens(item, family)));
        let response: u64 = (response_start(items)..items.len()).filter(|&j| !matches!(items[j], Item::Native(_))).map(|j| sizes[j]).sum();
        let conversation: u64 = sizes.iter().sum();
        let excess = usage.context(response) as i64 - conversation as i64;
        let least = match stretch_least.filter(|_| stretch_open) {
            Some(least) => least.min(excess),
            None => excess,
        };
        stretch_open = true;
        estimates.push((i, least.max(0) as u64));
        heads = Some(least.max(0) as u64);
        stretch_least = Some(least);
    }
    let items = replayer.into_items();
    for (i, estimate) in estimates {
        if let RecordBody::Event(Event::UsageAnchor(usage)) = &mut records[i].body {
            usage.head_tokens.get_or_insert(estimate);
        }
    }
    (heads, items)
}
