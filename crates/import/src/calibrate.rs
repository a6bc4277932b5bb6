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
    let mut calibrator = Calibrator::default();
    for i in 0..records.len() {
        calibrator.record(records, i);
    }
    (calibrator.heads, calibrator.replayer.into_items())
}

/// [`foreign_heads`] one record at a time, for a log that grows: each anchor's estimate is set
/// as it comes, from the anchors before it.
pub struct Calibrator {
    replayer: Replayer,
    /// Item estimates, kept in step with the replay (what changed is measured again), and their sum.
    sizes: Vec<u64>,
    total: u64,
    family: Family,
    /// The least excess of the anchors since the last compaction, while one is open.
    stretch_least: Option<i64>,
    stretch_open: bool,
    /// The estimate at the last anchor.
    pub heads: Option<u64>,
}

impl Default for Calibrator {
    fn default() -> Self {
        Calibrator { replayer: Replayer::new(&[]), sizes: Vec::new(), total: 0, family: Family::OpenAi, stretch_least: None, stretch_open: false, heads: None }
    }
}

impl Calibrator {
    /// Takes `records[i]` (those before it taken already); an anchor gets its estimate.
    pub fn record(&mut self, records: &mut [Record], i: usize) {
        if !self.replayer.push(&records[i]) {
            self.replayer = Replayer::new(&records[..=i]);
            self.sizes.clear();
            self.total = 0;
            self.stretch_open = false;
        }
        if matches!(records[i].body, RecordBody::Event(Event::CompactionCheckpoint(_))) {
            self.stretch_open = false;
        }
        let RecordBody::Event(Event::UsageAnchor(usage)) = &mut records[i].body else { return };
        let anchor_family = Family::of_names(usage.provider.as_deref(), usage.model.as_deref());
        if anchor_family != self.family {
            self.family = anchor_family;
            self.sizes.clear();
            self.total = 0;
        }
        let changed = self.replayer.take_changed_from();
        let items = self.replayer.items();
        let kept = changed.min(self.sizes.len());
        self.total -= self.sizes[kept..].iter().sum::<u64>();
        self.sizes.truncate(kept);
        let family = self.family;
        for item in &items[self.sizes.len()..] {
            let size = item_tokens(item, family);
            self.sizes.push(size);
            self.total += size;
        }
        let response: u64 = (response_start(items)..items.len()).filter(|&j| !matches!(items[j], Item::Native(_))).map(|j| self.sizes[j]).sum();
        let conversation = self.total;
        let excess = usage.context(response) as i64 - conversation as i64;
        let least = match self.stretch_least.filter(|_| self.stretch_open) {
            Some(least) => least.min(excess),
            None => excess,
        };
        self.stretch_open = true;
        self.stretch_least = Some(least);
        let estimate = least.max(0) as u64;
        usage.head_tokens.get_or_insert(estimate);
        self.heads = Some(estimate);
    }
}
