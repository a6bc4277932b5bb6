//! When the session writes a checkpoint ([`crate::update::checkpoint`]): after each compaction
//! and each rewind — the history was rewritten, and the state after it is what the next
//! request reaches — and, when the host asks for it ([`Session::set_checkpoint_every`]), when the
//! records written since the last one outgrow both a size and the last checkpoint as stored (so
//! such checkpoints add at most about the log's own size). The session is the one writer of
//! checkpoints, after a command, in the same batch for storage as the command's records.
//!
//! Checkpoints by size are off by default: a checkpoint holds the items since the last
//! compaction, whole, so in a session that prunes and never compacts it is as large as the
//! history it saves replaying (BENCHMARKS.md, "Opening a long session").

use super::parts::checkpoints::Writer;
use super::core::{Input, Session, Settle};

/// How many bytes of records between checkpoints (see [`Session::set_checkpoint_every`]).
pub struct SetCheckpointEvery(pub Option<u64>);

impl Input for SetCheckpointEvery {
    type Output = ();
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) {
        s.checkpoints.every = self.0;
    }
}

/// Writes a checkpoint now (see [`Session::checkpoint`]).
pub struct WriteCheckpoint;

impl Input for WriteCheckpoint {
    type Output = Option<u64>;
    const SETTLE: Settle = Settle::Persist;
    fn apply(self, s: &mut Session) -> Option<u64> {
        if s.receiving.is_some() {
            return None;
        }
        s.write_checkpoint()
    }
}
use crate::update::resume::CheckpointState;
use crate::update::replay::PromptFold;
use crate::update::{Event, RecordBody};

/// Bytes of records between checkpoints a host that wants them by size may start from.
pub const CHECKPOINT_EVERY: u64 = 4 << 20;

impl Session {
    /// How many bytes of records between checkpoints besides those after compactions and
    /// rewinds (`None`, the default: none; [`CHECKPOINT_EVERY`] is a fair size).
    pub fn set_checkpoint_every(&mut self, bytes: Option<u64>) {
        self.input(SetCheckpointEvery(bytes))
    }

    /// Writes a checkpoint of the state now (a log opened by replay — an import, an older log —
    /// is given one, so the next open starts there); its record comes back in a `persist` effect.
    /// Returns its `seq`, or `None` when there is nothing to cover (no records, or the last one
    /// is a checkpoint).
    pub fn checkpoint(&mut self) -> Option<u64> {
        self.input(WriteCheckpoint)
    }

    /// Writes a checkpoint when one is due (after a command).
    pub(super) fn checkpoint_if_due(&mut self) {
        if self.checkpoints.due() && self.receiving.is_none() {
            self.write_checkpoint();
        }
    }

    /// Writes a checkpoint of the state through the last record (nothing when there are no
    /// records, or the last one is a checkpoint). Returns its `seq`.
    pub(super) fn write_checkpoint(&mut self) -> Option<u64> {
        let last = self.log.records.last().filter(|r| !r.body.is_checkpoint())?;
        let through = last.seq;
        let ts = last.ts.clone();
        let prompts = self.prompt_fold();
        let summary = self.replayer().state().last_compaction_seq.and_then(|seq| self.log.compaction_summary(seq));
        let replay = self.replayer().resume_state();
        let state = CheckpointState { replay, prompts, told: self.reminders.told(), summary };
        let checkpoint = state.write(through, self.record_count() as u64, self.log.started_at());
        // Its size as stored is measured when it is handed to storage ([`Writer::stored`]); until
        // then, its state's.
        let size = checkpoint.state.len() as u64;
        let seq = self.write(RecordBody::Event(Event::Checkpoint(checkpoint)), &ts);
        self.checkpoints = Writer { last_size: size, since: 0, counted: seq, rewritten: false, ..self.checkpoints.clone() };
        Some(seq)
    }

    /// The real prompts so far, as a fold that goes on record by record.
    pub(super) fn prompt_fold(&mut self) -> PromptFold {
        match &self.log.history {
            Some(history) if !self.log.records.iter().any(|r| matches!(r.body, RecordBody::Event(Event::Rewind(_)))) => {
                let mut fold = history.prompts.clone();
                for record in &self.log.records {
                    fold.push(record);
                }
                fold
            }
            _ => {
                self.log.load_history();
                crate::update::replay::prompt_fold(&self.log.records)
            }
        }
    }
}
