//! The door's own state: the commands queued with their ids, the one queue every effect leaves
//! through, the effects that follow an input's records, and the command that waits for records
//! the host keeps (`session/wait.rs` parks and runs it).

use std::collections::VecDeque;

use crate::session::protocol::{Command, Effect, Need};

#[derive(Debug, Clone, Default)]
pub(in crate::session) struct Door {
    /// Commands waiting to be processed, with their ids and clocks.
    pub queue: VecDeque<(u64, Command, Option<String>)>,
    pub next_command: u64,
    /// The one queue every effect leaves through, in the order they arose.
    pub effects: VecDeque<Effect>,
    /// The command that waits for records the host keeps.
    pub waiting: Option<Box<Parked>>,
    /// Effects that follow what the input wrote (a retry's wait): queued once it settled.
    pub later: Vec<Effect>,
}

/// The command that waits, with what it waits for.
#[derive(Debug, Clone)]
pub(in crate::session) struct Parked {
    pub id: u64,
    pub command: Command,
    pub now: Option<String>,
    pub need: Need,
    /// Its read effect is in the queue.
    pub asked: bool,
}
