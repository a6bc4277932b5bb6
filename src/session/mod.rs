//! The session (chapter 8.6, 8.7): one single-threaded state machine that owns the
//! conversation, the sampling settings, the prompt heads, the token ledger, edited paths, prompt
//! texts, timing and the last compaction.
//!
//! A host drives it with [`Command`]s, queued and processed in order ([`machine`]); what the
//! host must then do comes back as [`Effect`]s — store these records, notify the client, compact
//! — and the host reports how storage fared ([`persist`]). This module holds the state and the
//! record-level operations the commands are made of: appending (idempotent: a record already
//! held is acknowledged, not duplicated; a different one under a used `seq` is refused),
//! the replay kept in step with appends, reminders drained into the log, and builds.

mod build;
mod checkpoint;
mod core;
pub mod codes;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod door_test;
pub mod compaction;
mod history;
mod machine;
pub mod open;
pub mod persist;
pub mod protocol;
mod receive;
mod recovery;
mod release;
mod parts;
mod subagents;
mod wait;

pub use checkpoint::{SetCheckpointEvery, WriteCheckpoint, CHECKPOINT_EVERY};
pub use compaction::{PrepareCompaction, SUMMARY_HEADROOM};
pub use history::{ProvideHistory, SetReleaseStored};
pub use receive::AnswerBytes;
pub use release::ProvideRecords;
pub use wait::Abandon;
pub use self::core::{
    Ack, AppendLine, AppendRecord, Appended, Build, Input, ProviderError, QueueReminder, Reconcile, RunNext, Session, Settle, Submit,
};
pub use persist::{PersistOutcome, PersistenceStatus, RecordState};
pub use protocol::{
    AckResult, AppendError, AssistantResponse, Command, CommandFailure, CompactionReason, Effect, ImageInput, Need, Processed, Reconciled,
    Reply, SessionError, SessionSnapshot, SessionState, SubagentStart, Waiting,
};
