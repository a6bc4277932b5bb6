//! The session composed of its parts ([`super::parts`]), its one door ([`Input`],
//! [`Session::input`], settling once after each input) and the effect queue every effect
//! leaves through, the public calls made of inputs, and the record-level operations the inputs
//! are made of: appending (idempotent: a record already held is acknowledged, not duplicated; a
//! different one under a used `seq` is refused), the replay kept in step with appends, writing
//! the session's own records.

use super::parts::{builds, checkpoints, compactions, door, log, receiving, release};
use super::protocol::{AckResult, AppendError, Command, Effect, Processed, Reconciled, SessionError};
use super::persist::PersistOutcome;
use super::persist;
use std::sync::Arc;

use crate::conversation::Item;
use crate::diagnostic::Diagnostic;
use crate::request::{BuildInput, RequestError};
use crate::update::record::Event;
use crate::update::record::RecordError;
use crate::update::{parse_log, replay, Header, Record, RecordBody, Replay, Replayer};
use crate::view::{self, Built, Reminder, ReminderQueue};
use crate::prompt::PromptContext;

#[derive(Debug, Clone, Default)]
pub struct Session {
    /// The log: its header, the records held, the history before them, the replay.
    pub(super) log: log::Log,
    /// When to write the next checkpoint.
    pub(super) checkpoints: checkpoints::Writer,
    pub(super) reminders: ReminderQueue,
    /// What storage holds of the records.
    pub(super) persistence: persist::Persistence,
    /// The door's own state: the commands queued, the one effect queue, the command that waits.
    pub(super) door: door::Door,
    /// What the prompt heads are rendered from.
    pub(super) prompt: Option<PromptContext>,
    /// The build options last used: the session's model, window, system prompt and tools.
    pub(super) sampling: Option<BuildInput>,
    /// The last `usage_update` sent, so an unchanged count is not sent again.
    pub(super) notified: Option<(u64, u64)>,
    /// What builds keep between them: the view's cache, the forecast's, what explains a rewrite.
    pub(super) builds: builds::Builds,
    /// The compaction prepared, asked for, and the last rewrite.
    pub(super) compactions: compactions::Compactions,
    /// Letting go of what storage confirmed, and the records asked back.
    pub(super) release: release::Release,
    /// A streamed answer being received (between `beginAnswer` and `endAnswer`).
    pub(super) receiving: Option<Box<receiving::Receiving>>,
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    New,
    /// The record was already held; nothing changed.
    Duplicate,
}

/// One kind of input to a session. Every input enters through [`Session::input`], which runs it
/// and then settles once: what it wrote is handed to storage (`persist`) and, for the session's
/// own writes, the client is told the new context size and a compaction is asked for when due.
/// Every effect leaves through one queue ([`Session::poll_effect`]).
///
/// The inputs (a test reads this list and the `impl Input` blocks, and fails when they differ):
/// [`Submit`], [`RunNext`], [`AppendLine`], [`AppendRecord`], [`Build`], [`Ack`], [`Reconcile`],
/// [`ProviderError`], [`QueueReminder`], [`AnswerBytes`], [`WriteCheckpoint`],
/// [`SetCheckpointEvery`], [`SetReleaseStored`], [`ProvideHistory`], [`ProvideRecords`],
/// [`Abandon`], [`PrepareCompaction`]. The session's public methods that change it are each one input given
/// to the door; commands inside it call what an input does directly, never the door again.
pub trait Input {
    type Output;
    /// What settling after this input does (see [`Settle`]).
    const SETTLE: Settle;
    fn apply(self, session: &mut Session) -> Self::Output;
    /// What settling after this input does, given what it did: [`Input::SETTLE`] unless the
    /// output says more (an answer that ran the command it waited for settles as a command).
    fn settle(_output: &Self::Output) -> Settle {
        Self::SETTLE
    }
}

/// What [`Session::input`] does after an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Hand unstored records to storage, tell the client the context size when it changed, ask
    /// for a compaction when due: after the session wrote records of its own.
    Full,
    /// Hand unstored records to storage only (records appended from elsewhere, a build's
    /// drained reminders, a restore or a reconcile's resends).
    Persist,
    /// Nothing (a question, a queued command, an acknowledgement).
    None,
}

/// Queues a command; `now` (RFC 3339, the host's clock) stamps the records it writes. Output:
/// the command's id.
pub struct Submit {
    pub command: Command,
    pub now: Option<String>,
}

/// Runs the oldest queued command (see [`Session::process`]).
pub struct RunNext;

/// A record line written elsewhere (another process, a replica of this log).
pub struct AppendLine<'a>(pub &'a str);

/// A typed record written elsewhere.
pub struct AppendRecord(pub Record);

/// Builds the next request outside a command: reminders are drained into the log first.
pub struct Build<'a>(pub &'a BuildInput);

/// The host's answer for a persist ticket.
pub struct Ack {
    pub ticket: u64,
    pub outcome: PersistOutcome,
}

/// What storage holds (its JSON Lines text), after a restart or a lost answer.
pub struct Reconcile<'a>(pub &'a str);

/// The provider refused the last request with this status and body.
pub struct ProviderError<'a> {
    pub status: u16,
    pub body: &'a str,
}

/// A runtime reminder for the next build.
pub struct QueueReminder(pub Reminder);

impl Session {
    /// The one door: runs `input`, then settles (see [`Input`]).
    pub fn input<I: Input>(&mut self, input: I) -> I::Output {
        // What the session wrote moves its last `seq` (history given back does not).
        let before = self.next_seq();
        let output = input.apply(self);
        match I::settle(&output) {
            Settle::Full => {
                // A checkpoint when one is due goes to storage with the command's records.
                self.checkpoint_if_due();
                // Store first, then tell the client.
                self.queue_persist();
                if self.next_seq() != before {
                    self.after_change();
                }
            }
            Settle::Persist => self.queue_persist(),
            Settle::None => {}
        }
        // What follows the records an input wrote goes after them: a retry's wait, and last, what
        // a waiting command asks for.
        let later = std::mem::take(&mut self.door.later);
        self.door.effects.extend(later);
        self.ask();
        output
    }

    /// The next effect the host must perform, oldest first.
    pub fn poll_effect(&mut self) -> Option<Effect> {
        self.door.effects.pop_front()
    }

    /// Every effect waiting, oldest first.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.door.effects.drain(..).collect()
    }

    /// Loads a log's text; unreadable lines become diagnostics. A log with a checkpoint opens
    /// from the last one: only the records after it are read and folded.
    pub fn from_log(text: &str) -> Session {
        if let Some(session) = Session::from_checkpoint(&text) {
            return session;
        }
        let log = parse_log(text);
        let mut reminders = ReminderQueue::default();
        for record in &log.records {
            if let RecordBody::Event(Event::ReminderInjected(injected)) = &record.body {
                reminders.observe(injected);
            }
        }
        let stored = log.records.last().map_or(0, |r| r.seq);
        Session {
            builds: builds::Builds { since_build: builds::SinceBuild::of(&log.records), ..builds::Builds::default() },
            compactions: compactions::Compactions { last_rewrite: last_rewrite(&log.records), ..compactions::Compactions::default() },
            persistence: persist::Persistence::stored(stored, log.header.is_some()),
            log: log::Log { header: log.header, records: log.records, diagnostics: log.diagnostics, ..log::Log::default() },
            reminders,
            // A log without a checkpoint gets one once it is long enough to want one (when the
            // host asks for checkpoints by size).
            checkpoints: checkpoints::Writer { since: text.len() as u64, counted: stored, ..checkpoints::Writer::default() },
            ..Session::default()
        }
    }

    /// A new, empty session; its header is stored with the first records.
    pub fn create(header: Header) -> Session {
        Session { log: log::Log { header: Some(header), ..log::Log::default() }, persistence: persist::Persistence::stored(0, false), ..Session::default() }
    }

    pub fn header(&self) -> Option<&Header> {
        self.log.header.as_ref()
    }

    /// The records held: all of them, or those after the checkpoint the session opened from
    /// (see [`Session::record_count`]).
    pub fn records(&self) -> &[Record] {
        &self.log.records
    }

    /// Diagnostics of loading plus those of the latest replay.
    pub fn diagnostics(&mut self) -> Vec<Diagnostic> {
        let mut all = self.log.diagnostics.clone();
        all.extend(self.replayer().diagnostics().iter().cloned());
        all
    }

    /// Appends one JSON line holding a record written elsewhere.
    pub fn append_line(&mut self, line: &str) -> Result<Appended, AppendError> {
        self.input(AppendLine(line))
    }

    /// Appends a record written elsewhere.
    pub fn append(&mut self, record: Record) -> Result<Appended, AppendError> {
        self.input(AppendRecord(record))
    }

    /// Queues a command; `now` (RFC 3339, the host's clock) stamps the records it writes.
    pub fn submit(&mut self, command: Command, now: Option<String>) -> u64 {
        self.input(Submit { command, now })
    }

    /// Processes every queued command in order.
    pub fn process(&mut self) -> Vec<Processed> {
        let mut done = Vec::with_capacity(self.door.queue.len());
        while let Some(processed) = self.run_next() {
            done.push(processed);
        }
        done
    }

    /// Processes one command at once; refused while others are queued.
    pub fn dispatch(&mut self, command: Command, now: Option<String>) -> Result<Processed, SessionError> {
        self.refuse_while_waiting()?;
        if !self.door.queue.is_empty() {
            return Err(SessionError::QueueNotEmpty(self.door.queue.len()));
        }
        let id = self.submit(command, now);
        Ok(self.run_next().unwrap_or(Processed { id, command: String::new(), reply: None, error: None, waiting: None, effects: Vec::new() }))
    }

    /// Runs the oldest queued command; what it and its settling queued (and anything left from
    /// before) go with it.
    pub(super) fn run_next(&mut self) -> Option<Processed> {
        let mut processed = self.input(RunNext)?;
        processed.effects = self.take_effects();
        Some(processed)
    }

    /// The host's answer for a persist ticket.
    pub fn ack(&mut self, ticket: u64, outcome: PersistOutcome) -> Result<AckResult, SessionError> {
        self.input(Ack { ticket, outcome })
    }

    /// Converges memory to what storage holds (`stored`: its JSON Lines text). Records storage
    /// has and memory lacks are taken over; where the two differ under one `seq`, storage wins and
    /// memory's lines are handed back in `dropped`; what memory has beyond storage is sent again.
    pub fn reconcile(&mut self, stored: &str) -> Result<Reconciled, SessionError> {
        let mut result = self.input(Reconcile(stored))?;
        result.effects = self.take_effects();
        Ok(result)
    }

    /// Queues a reminder for the next build; `false` when it would repeat what was told.
    pub fn enqueue_reminder(&mut self, reminder: Reminder) -> bool {
        self.input(QueueReminder(reminder))
    }

    /// Queues the rules that attached when the agent read or edited `path` (what the
    /// workspace's `rules_for_path` returned) as one `rules_attached` reminder; `false` when
    /// there were none or they were told already.
    pub fn enqueue_rules(&mut self, path: &str, rules: &[crate::workspace::Rule]) -> bool {
        Reminder::rules_attached(path, rules).is_some_and(|reminder| self.enqueue_reminder(reminder))
    }

    /// Tells the session a provider refused its last request. A 413, a `request_too_large`, or
    /// a 400 about an image makes the next build strip every image, once. Returns whether it will.
    pub fn on_provider_error(&mut self, status: u16, body: &str) -> bool {
        self.input(ProviderError { status, body })
    }

    /// Builds a request from the session's items; `input.log` and `input.items` must be absent.
    pub fn build(&mut self, input: &BuildInput) -> Result<Built, RequestError> {
        let (body, report) = self.build_body(input)?;
        // The payload and body stay cached for the next build; the caller gets its own copies.
        let payload =
            self.builds.cache.last_payload().cloned().ok_or_else(|| RequestError::InvalidOptions("the build kept no payload".to_owned()))?;
        Ok(Built { payload, body: String::clone(&body), report })
    }

    /// Builds a request and returns its body (the string to send) and report — what the JS
    /// facade needs, without copying the typed payload.
    pub fn build_body(&mut self, input: &BuildInput) -> Result<(Arc<String>, view::Report), RequestError> {
        self.input(Build(input))
    }

    /// The replay of the records held, with the client's coalesced view (computed on request).
    /// `history_needed` while the records before the checkpoint the session opened from are
    /// with the host.
    pub fn replay(&self) -> Result<Replay, SessionError> {
        Ok(replay(&self.log.all_records()?))
    }

    pub fn items(&mut self) -> &[Item] {
        self.replayer().items()
    }

    // --- what the inputs do ----------------------------------------------------------------

    pub(super) fn append_record(&mut self, record: Record) -> Result<Appended, AppendError> {
        self.log.check_append_needs(&record)?;
        if let Some(last) = self.log.records.last().map(|r| r.seq) {
            if record.seq <= last {
                // One the session let go (or opened without) is compared once the host gives it back.
                if self.log.history.as_ref().is_some_and(|h| record.seq <= h.through) {
                    self.log.load_history();
                    if self.needs_history() {
                        return Err(AppendError::HistoryNeeded);
                    }
                }
                return match self.log.records.iter().rev().find(|r| r.seq == record.seq) {
                    Some(held) if *held == record => Ok(Appended::Duplicate),
                    _ => Err(AppendError::SeqConflict { seq: record.seq, last }),
                };
            }
        }
        self.persistence.adopt(record.seq);
        self.push_record(record);
        Ok(Appended::New)
    }

    /// Adds a record after the last one: the reminders and the replay see it.
    pub(super) fn push_record(&mut self, record: Record) {
        if let RecordBody::Event(Event::ReminderInjected(injected)) = &record.body {
            self.reminders.observe(injected);
        }
        self.builds.since_build.saw(&record);
        if matches!(record.body, RecordBody::Event(Event::Rewind(_) | Event::CompactionCheckpoint(_))) {
            self.compactions.last_rewrite = record.seq;
        }
        if let Some(replayer) = &mut self.log.replayer {
            if !replayer.push(&record) {
                self.log.replayer = None;
            }
        }
        self.log.records.push(record);
    }

    /// Writes a record of the session's own: accepted in memory, to be stored.
    pub(super) fn write(&mut self, mut body: RecordBody, ts: &str) -> u64 {
        // A usage answers the last request this session built: it records what that request
        // left out of the log, so the ledger can tell the two apart later.
        if let RecordBody::Event(Event::UsageAnchor(usage)) = &mut body {
            usage.omitted_tokens = usage.omitted_tokens.or_else(|| self.builds.cache.last_omitted_tokens());
            usage.head_tokens = usage.head_tokens.or_else(|| self.builds.cache.last_head_tokens());
        }
        let seq = self.next_seq();
        self.persistence.accept(seq);
        self.push_record(Record { seq, ts: ts.to_owned(), body });
        seq
    }

    pub(super) fn next_seq(&self) -> u64 {
        self.log.records.last().map_or(1, |r| r.seq.saturating_add(1))
    }

    /// The time to stamp on a record: the host's, else the last record's.
    pub(super) fn stamp(&self, now: Option<&str>) -> String {
        now.map(str::to_owned).or_else(|| self.log.records.last().map(|r| r.ts.clone())).unwrap_or_default()
    }

    /// The incremental replay: folded record by record as they are appended.
    pub(super) fn replayer(&mut self) -> &mut Replayer {
        if self.log.replayer.is_none() {
            self.log.load_history();
        }
        self.log.replayer.get_or_insert_with(|| Replayer::new(&self.log.records))
    }

    /// The replay, the cache with what the replay changed since the last build dropped from it,
    /// and the session id.
    pub(super) fn synced(&mut self) -> (&Replayer, &mut view::ViewCache, Option<&str>) {
        self.replayer();
        let replayer = self.log.replayer.get_or_insert_with(|| Replayer::new(&self.log.records));
        self.builds.cache.invalidate_from(replayer.take_changed_from());
        (replayer, &mut self.builds.cache, self.log.header.as_ref().map(|h| h.session_id.as_str()))
    }
}

impl Input for Submit {
    type Output = u64;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> u64 {
        s.door.next_command += 1;
        s.door.queue.push_back((s.door.next_command, self.command, self.now));
        s.door.next_command
    }
}

impl Input for RunNext {
    type Output = Option<Processed>;
    const SETTLE: Settle = Settle::Full;
    fn apply(self, s: &mut Session) -> Option<Processed> {
        // Nothing runs before the command that waits.
        if s.door.waiting.is_some() {
            return None;
        }
        let (id, command, now) = s.door.queue.pop_front()?;
        Some(s.run_command(id, command, now.as_deref()))
    }
}

impl Input for AppendLine<'_> {
    type Output = Result<Appended, AppendError>;
    const SETTLE: Settle = Settle::Persist;
    fn apply(self, s: &mut Session) -> Self::Output {
        let value = serde_json::from_str(self.0).map_err(|e| AppendError::InvalidRecord(e.to_string()))?;
        let record = Record::from_value(value).map_err(|e| match e {
            RecordError::BadEnvelope(m) => AppendError::InvalidRecord(m),
            RecordError::BadBody { kind, reason } => AppendError::InvalidRecord(format!("`{kind}`: {reason}")),
        })?;
        let seq = record.seq;
        let appended = s.append_record(record)?;
        if appended == Appended::New {
            s.checkpoints.count(seq, self.0.len());
        }
        Ok(appended)
    }
}

impl Input for AppendRecord {
    type Output = Result<Appended, AppendError>;
    const SETTLE: Settle = Settle::Persist;
    fn apply(self, s: &mut Session) -> Self::Output {
        s.append_record(self.0)
    }
}

impl Input for Build<'_> {
    type Output = Result<(Arc<String>, view::Report), RequestError>;
    const SETTLE: Settle = Settle::Persist;
    fn apply(self, s: &mut Session) -> Self::Output {
        s.build_now(self.0)
    }
}

impl Input for Ack {
    type Output = Result<AckResult, SessionError>;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> Self::Output {
        let applied = s.persistence.ack(self.ticket, self.outcome).map_err(|e| match e {
            persist::AckError::UnknownTicket(t) => SessionError::UnknownTicket(t),
        })?;
        s.release_stored();
        Ok(AckResult { applied, persistence: s.persistence.status() })
    }
}

impl Input for Reconcile<'_> {
    type Output = Result<Reconciled, SessionError>;
    const SETTLE: Settle = Settle::Persist;
    fn apply(self, s: &mut Session) -> Self::Output {
        let reconciled = s.reconcile_with(self.0);
        s.release_stored();
        reconciled
    }
}

impl Input for ProviderError<'_> {
    type Output = bool;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> bool {
        let about_images = crate::answer::failure::about_size_or_images(Some(self.status), "", self.body);
        if about_images {
            s.builds.strip_images_once = true;
        }
        about_images
    }
}

impl Input for QueueReminder {
    type Output = bool;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> bool {
        s.reminders.enqueue(self.0)
    }
}

/// The `seq` of the last rewind or compaction among `records` (0: none).
pub(super) fn last_rewrite(records: &[Record]) -> u64 {
    records.iter().rev().find(|r| matches!(r.body, RecordBody::Event(Event::Rewind(_) | Event::CompactionCheckpoint(_)))).map_or(0, |r| r.seq)
}
