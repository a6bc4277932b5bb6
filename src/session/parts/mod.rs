//! The session's state in named parts, each plain state with what it alone decides, knowing
//! nothing of the session that composes them ([`super::core`]): the log and its history, the
//! door's queues and the command that waits, what builds keep between them, the compactions,
//! letting go, the answer being received, and when to write the next checkpoint.

pub(super) mod builds;
pub(super) mod checkpoints;
pub(super) mod compactions;
pub(super) mod door;
pub(super) mod log;
pub(super) mod receiving;
pub(super) mod release;
