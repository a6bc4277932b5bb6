//! Anchors that measured another agent's request. An imported usage counted that agent's own
//! system prompt, tool definitions and framing — tens of thousands of tokens for Claude Code —
//! which this package's requests do not carry; added whole, they make an imported session look
//! twice as full as the request it builds. Each imported anchor therefore says how many of its
//! tokens were those heads ([`UsageAnchor::head_tokens`]), and the ledger counts this package's
//! heads in their place.
//!
//! The other agent's heads are estimated from the anchors themselves: an anchor's excess over
//! the conversation it measured (as this package estimates it) is those heads plus the
//! estimate's error on the conversation; the least excess over all anchors — usually the first
//! request, which holds little else — stands for the heads alone, and what each later anchor
//! counts beyond it keeps calibrating the estimate. A negative least excess (anchors counting
//! less than the estimate) removes nothing. Each compaction starts the reckoning again: after
//! one, an agent's requests may carry what its log does not (Claude Code attaches the files it
//! had read), and the anchors after it measured that.

use contextview::conversation::{response_start, Item};
use contextview::tokens::{item_tokens, Family};
use contextview::update::{Event, Record, RecordBody, Replayer};

/// Sets every anchor's `head_tokens` that lacks one to the estimated heads of the agent that
/// wrote the log, from the anchors between the same compactions; returns the estimate for the
/// last of them (`None`: no anchors), and the items the records replay to (which a head's
/// count does not change), so that the import need not replay them again.
pub fn foreign_heads(records: &mut [Record]) -> (Option<u64>, Vec<Item>) {
    // Per stretch between compactions: its anchors and their least excess.
    let mut stretches: Vec<(Vec<usize>, i64)> = Vec::new();
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
        match stretches.last_mut().filter(|_| stretch_open) {
            Some((anchors, least)) => {
                anchors.push(i);
                *least = (*least).min(excess);
            }
            None => stretches.push((vec![i], excess)),
        }
        stretch_open = true;
    }
    let items = replayer.into_items();
    let mut heads = None;
    for (anchors, least) in stretches {
        let estimate = least.max(0) as u64;
        for i in anchors {
            if let RecordBody::Event(Event::UsageAnchor(usage)) = &mut records[i].body {
                usage.head_tokens.get_or_insert(estimate);
            }
        }
        heads = Some(estimate);
    }
    (heads, items)
}
