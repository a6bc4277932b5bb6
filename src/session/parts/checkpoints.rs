//! When to write the next checkpoint, as state (`session/checkpoint.rs` writes it).

#[derive(Debug, Clone, Default)]
pub(in crate::session) struct Writer {
    /// Bytes of records between checkpoints (`None`, the default: only after compactions and
    /// rewinds).
    pub every: Option<u64>,
    /// Bytes of records handed to storage or appended since the last checkpoint.
    pub since: u64,
    /// The last record counted in `since` (a record sent again is not counted again).
    pub counted: u64,
    /// The last checkpoint's size in bytes.
    pub last_size: u64,
    /// A compaction or a rewind rewrote the history since the last checkpoint.
    pub rewritten: bool,
}

impl Writer {
    /// A record of `bytes` handed to storage: a checkpoint's size as stored (its state escaped
    /// inside the line) is what the spacing rule weighs; any other record is counted, once.
    pub fn stored(&mut self, seq: u64, checkpoint: bool, bytes: usize) {
        match checkpoint {
            true if seq == self.counted => self.last_size = bytes as u64,
            true => {}
            false => self.count(seq, bytes),
        }
    }

    /// Counts a record of `bytes` handed to storage or appended, once.
    pub fn count(&mut self, seq: u64, bytes: usize) {
        if seq > self.counted {
            self.counted = seq;
            self.since += bytes as u64;
        }
    }

    pub fn due(&self) -> bool {
        self.rewritten || self.every.is_some_and(|every| self.since >= every.max(self.last_size))
    }
}

#[cfg(test)]
mod tests {
    use super::Writer;

    #[test]
    fn a_checkpoint_is_due_after_a_rewrite_or_once_the_records_outgrow_both_the_size_and_the_last_checkpoint() {
        let mut w = Writer::default();
        w.count(1, 5_000);
        assert!(!w.due(), "no size asked for: only rewrites");
        w.rewritten = true;
        assert!(w.due());
        let mut w = Writer { every: Some(1_000), ..Writer::default() };
        w.count(1, 600);
        w.count(1, 600);
        assert_eq!((w.since, w.due()), (600, false), "a record sent again is counted once");
        w.count(2, 600);
        assert!(w.due());
        // A large last checkpoint spaces the next one by its own size.
        w.stored(2, true, 5_000);
        assert_eq!(w.last_size, 5_000);
        assert!(!w.due(), "1,200 bytes since, under the last checkpoint's 5,000");
        w.stored(3, false, 4_000);
        assert!(w.due());
    }
}
