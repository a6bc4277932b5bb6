//! The log a session holds: its header, the records held (all of them, or those after the
//! checkpoint it opened from, or those storage has not confirmed when it lets go), the history
//! before them ([`super::history`]), what loading it said, and the replay kept in step with
//! appends (rebuilt after a rewind).

use super::history::History;
use crate::diagnostic::Diagnostic;
use crate::update::{Header, Record, Replayer};

#[derive(Debug, Clone, Default)]
pub(super) struct Log {
    pub header: Option<Header>,
    /// The records held.
    pub records: Vec<Record>,
    /// The records before `records`, when the session opened from a checkpoint or let go: read
    /// when something needs the whole history.
    pub history: Option<Box<History>>,
    /// What loading the log said.
    pub diagnostics: Vec<Diagnostic>,
    /// The replay of the records held, kept in step with appends (rebuilt after a rewind).
    pub replayer: Option<Replayer>,
}
