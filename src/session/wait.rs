//! A command that needs records the host keeps waits for them instead of failing: it is parked,
//! what it needs leaves through the one effect queue (`readHistory`, `readRecords`) after what it
//! wrote was handed to storage, and the host's answer ([`super::ProvideHistory`],
//! [`super::ProvideRecords`]) runs it once. While it waits no other command runs; `state()`
//! says what it waits for, an answer nobody asked for is refused (`not_asked`), and a host whose
//! storage cannot read them gives it up ([`Abandon`]: `records_unavailable`).
//!
//! What needs records is decided where they are read — a rewind or a snapshot needs the whole
//! history (`history.rs`), a build or a compaction the results the session let go
//! (`release.rs`) — and nowhere else: a host answers effects, it never guesses.

use super::core::{Input, Session, Settle};
use super::parts::door::Parked;
use super::protocol::{Command, CommandFailure, Need, Processed, SessionError, Waiting};
use crate::request::RequestError;
use crate::view::BuildError;

/// Whether a command may read records the host keeps: those that read the whole history or
/// results the session let go. Only these are kept while they run, to wait.
pub(super) fn may_wait(command: &Command) -> bool {
    match command {
        Command::Rewind(_) | Command::Snapshot | Command::BuildRequest(_) | Command::PrepareCompaction(_) | Command::ApplyCompaction(_) => true,
        Command::UserMessage(_)
        | Command::AssistantResponse(_)
        | Command::ToolResult(_)
        | Command::RecordUsage(_)
        | Command::SwitchModel(_)
        | Command::SetPromptContext(_)
        | Command::EnqueueReminder(_)
        | Command::RecordEditedPath(_)
        | Command::Flush
        | Command::Restore(_)
        | Command::ProviderAnswer(_)
        | Command::BeginAnswer(_)
        | Command::EndAnswer(_)
        | Command::StartSubagent(_)
        | Command::EndSubagent(_) => false,
    }
}

impl Session {
    /// What a failure says the session needs of the host, when records are why it failed:
    /// the records it named (results it let go), else the history it keeps.
    pub(super) fn need_of(&self, e: &SessionError) -> Option<Need> {
        match e {
            SessionError::HistoryNeeded | SessionError::Request(RequestError::Build(BuildError::HistoryNeeded { .. })) => {
                match self.release.needed.is_empty() {
                    false => Some(Need::Records { seqs: self.release.needed.clone() }),
                    true => self.history_through().map(|through| Need::History { through }),
                }
            }
            _ => None,
        }
    }

    /// Parks `command` until the host gives what it needs; its effect is queued once the
    /// input settled ([`Session::ask`]).
    pub(super) fn park(&mut self, id: u64, command: Command, now: Option<&str>, need: Need) -> Processed {
        let name = command.name().to_owned();
        self.door.waiting = Some(Box::new(Parked { id, command, now: now.map(str::to_owned), need: need.clone(), asked: false }));
        Processed { id, command: name, reply: None, error: None, waiting: Some(need), effects: Vec::new() }
    }

    /// Queues the waiting command's read effect, once: after the records it wrote went to
    /// storage, so a host that performs effects in order stores them first.
    pub(super) fn ask(&mut self) {
        if let Some(parked) = self.door.waiting.as_mut().filter(|p| !p.asked) {
            parked.asked = true;
            let effect = parked.need.effect(parked.id);
            self.door.effects.push_back(effect);
        }
    }

    /// Runs the waiting command, now that the host answered (it waits again when it needs
    /// more). `None` when none waits.
    pub(super) fn resume(&mut self) -> Option<Processed> {
        let parked = self.door.waiting.take()?;
        Some(self.run_command(parked.id, parked.command, parked.now.as_deref()))
    }

    /// The command that waits for records, and what for.
    pub fn waiting(&self) -> Option<Waiting> {
        self.door.waiting.as_ref().map(|p| Waiting { command: p.id, kind: p.command.name().to_owned(), need: p.need.clone() })
    }

    /// `command_waiting` while a command waits (nothing else runs before it).
    pub(super) fn refuse_while_waiting(&self) -> Result<(), SessionError> {
        match &self.door.waiting {
            Some(p) => Err(SessionError::CommandWaiting { id: p.id, need: p.need.to_string() }),
            None => Ok(()),
        }
    }

    /// Gives up the waiting command (its storage cannot read what it needs): it ends with
    /// `records_unavailable`, having written only what it wrote before it waited, and the
    /// queue goes on. `None` when none waits.
    pub fn abandon(&mut self) -> Option<Processed> {
        let mut processed = self.input(Abandon)?;
        processed.effects = self.take_effects();
        Some(processed)
    }
}

/// Gives up the waiting command (see [`Session::abandon`]).
pub struct Abandon;

impl Input for Abandon {
    type Output = Option<Processed>;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> Option<Processed> {
        let parked = s.door.waiting.take()?;
        s.release.needed.clear();
        let error = SessionError::RecordsUnavailable(format!("{} never came", parked.need));
        Some(Processed {
            id: parked.id,
            command: parked.command.name().to_owned(),
            reply: None,
            error: Some(CommandFailure::from(&error)),
            waiting: None,
            effects: Vec::new(),
        })
    }
}
