//! The door's own state: the commands queued with their ids, the one queue every effect leaves
//! through, the command that waits for records the host keeps ([`super::wait`]), and how many
//! commands ran (what tells a settle whether an answer ran one).

use std::collections::VecDeque;

use super::{wait, Command, Effect};

#[derive(Debug, Clone, Default)]
pub(super) struct Door {
    /// Commands waiting to be processed, with their ids and clocks.
    pub queue: VecDeque<(u64, Command, Option<String>)>,
    pub next_command: u64,
    /// The one queue every effect leaves through, in the order they arose.
    pub effects: VecDeque<Effect>,
    /// The command that waits for records the host keeps.
    pub waiting: Option<Box<wait::Parked>>,
    /// Commands run so far.
    pub commands_run: u64,
    /// Effects that follow what the input wrote (a retry's wait): queued once it settled.
    pub later: Vec<Effect>,
}
