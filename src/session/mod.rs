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

pub mod command;
pub mod compaction;
mod machine;
pub mod persist;
pub mod snapshot;

pub use command::{AckResult, AssistantResponse, Command, CommandFailure, CompactionReason, Effect, ImageInput, Processed, Reply};
pub use compaction::SUMMARY_HEADROOM;
pub use machine::{Reconciled, SessionError, SessionState};
pub use persist::{PersistOutcome, PersistenceStatus, RecordState};
pub use snapshot::SessionSnapshot;

use std::collections::VecDeque;

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
    header: Option<Header>,
    records: Vec<Record>,
    diagnostics: Vec<Diagnostic>,
    /// The replay of the records held, kept in step with appends (rebuilt after a rewind).
    replayer: Option<Replayer>,
    /// The next build strips every image (set by a provider error about size or images).
    strip_images_once: bool,
    reminders: ReminderQueue,
    /// What storage holds of the records.
    persistence: persist::Persistence,
    /// Commands waiting to be processed, with their ids.
    queue: VecDeque<(u64, Command, Option<String>)>,
    next_command: u64,
    /// Effects produced outside a command (a build through [`Session::build`]), until taken.
    outbox: Vec<Effect>,
    /// What the prompt heads are rendered from.
    prompt: Option<PromptContext>,
    /// The build options last used: the session's model, window, system prompt and tools.
    sampling: Option<BuildInput>,
    /// A compaction prepared and not applied yet.
    prepared: Option<snapshot::PreparedCut>,
    /// The last `usage_update` sent, so an unchanged count is not sent again.
    notified: Option<(u64, u64)>,
    /// A compaction was asked for and has not happened yet (it is asked for once).
    compaction_asked: bool,
    /// Work kept between builds (token estimates, the last payload and its entries' JSON, from
    /// which the last body is known without keeping a copy of it).
    cache: view::ViewCache,
    /// Where the pruning boundaries (turn, step) stood at the last build, to tell what moving
    /// them cost.
    last_boundary: Option<(u32, u32)>,
    /// The last record's `seq` at the last build: what came after it explains a rewrite.
    last_build_seq: u64,
}

/// Why a record line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendError {
    /// The line is not JSON, or not a record.
    InvalidRecord(String),
    /// Another record already holds this `seq`, or it is lower than the last one.
    SeqConflict { seq: u64, last: u64 },
}

impl AppendError {
    pub fn code(&self) -> &'static str {
        match self {
            AppendError::InvalidRecord(_) => "invalid_record",
            AppendError::SeqConflict { .. } => "seq_conflict",
        }
    }
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppendError::InvalidRecord(m) => write!(f, "record line is invalid: {m}"),
            AppendError::SeqConflict { seq, last } => {
                write!(f, "seq {seq} conflicts with the records held (last seq {last})")
            }
        }
    }
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    New,
    /// The record was already held; nothing changed.
    Duplicate,
}

impl Session {
    /// Loads a log's text; unreadable lines become diagnostics.
    pub fn from_log(text: &str) -> Session {
        let log = parse_log(text);
        let mut reminders = ReminderQueue::default();
        for record in &log.records {
            if let RecordBody::Event(Event::ReminderInjected(injected)) = &record.body {
                reminders.observe(injected);
            }
        }
        let stored = log.records.last().map_or(0, |r| r.seq);
        Session {
            persistence: persist::Persistence::stored(stored, log.header.is_some()),
            header: log.header,
            records: log.records,
            diagnostics: log.diagnostics,
            reminders,
            ..Session::default()
        }
    }

    /// A new, empty session; its header is stored with the first records.
    pub fn create(header: Header) -> Session {
        Session { header: Some(header), persistence: persist::Persistence::stored(0, false), ..Session::default() }
    }

    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Diagnostics of loading plus those of the latest replay.
    pub fn diagnostics(&mut self) -> Vec<Diagnostic> {
        let mut all = self.diagnostics.clone();
        all.extend(self.replayer().diagnostics().iter().cloned());
        all
    }

    /// Appends one JSON line holding a record.
    pub fn append_line(&mut self, line: &str) -> Result<Appended, AppendError> {
        let value = serde_json::from_str(line).map_err(|e| AppendError::InvalidRecord(e.to_string()))?;
        let record = Record::from_value(value).map_err(|e| match e {
            RecordError::BadEnvelope(m) => AppendError::InvalidRecord(m),
            RecordError::BadBody { kind, reason } => AppendError::InvalidRecord(format!("`{kind}`: {reason}")),
        })?;
        self.append(record)
    }

    pub fn append(&mut self, record: Record) -> Result<Appended, AppendError> {
        if let Some(last) = self.records.last().map(|r| r.seq) {
            if record.seq <= last {
                return match self.records.iter().rev().find(|r| r.seq == record.seq) {
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
    fn push_record(&mut self, record: Record) {
        if let RecordBody::Event(Event::ReminderInjected(injected)) = &record.body {
            self.reminders.observe(injected);
        }
        if let Some(replayer) = &mut self.replayer {
            if !replayer.push(&record) {
                self.replayer = None;
            }
        }
        self.records.push(record);
    }

    /// Writes a record of the session's own: accepted in memory, to be stored.
    fn write(&mut self, body: RecordBody, ts: &str) -> u64 {
        let seq = self.records.last().map_or(1, |r| r.seq.saturating_add(1));
        self.persistence.accept(seq);
        self.push_record(Record { seq, ts: ts.to_owned(), body });
        seq
    }

    /// The time to stamp on a record: the host's, else the last record's.
    fn stamp(&self, now: Option<&str>) -> String {
        now.map(str::to_owned).or_else(|| self.records.last().map(|r| r.ts.clone())).unwrap_or_default()
    }

    /// Queues a reminder for the next build; `false` when it would repeat what was told.
    pub fn enqueue_reminder(&mut self, reminder: Reminder) -> bool {
        self.reminders.enqueue(reminder)
    }

    /// Queues the rules that attached when the agent read or edited `path` (what the
    /// workspace's `rules_for_path` returned) as one `rules_attached` reminder; `false` when
    /// there were none or they were told already.
    pub fn enqueue_rules(&mut self, path: &str, rules: &[crate::discovery::Rule]) -> bool {
        Reminder::rules_attached(path, rules).is_some_and(|reminder| self.reminders.enqueue(reminder))
    }

    /// Effects produced outside commands (records written by a build, to be stored).
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.queue_persist();
        std::mem::take(&mut self.outbox)
    }

    /// The replay of the records held, with the client's coalesced view (computed on request).
    pub fn replay(&self) -> Replay {
        replay(&self.records)
    }

    /// The incremental replay: folded record by record as they are appended.
    fn replayer(&mut self) -> &mut Replayer {
        self.replayer.get_or_insert_with(|| Replayer::new(&self.records))
    }

    pub fn items(&mut self) -> &[Item] {
        self.replayer().items()
    }

    /// Tells the session a provider refused its last request. A 413, a `request_too_large`, or
    /// a 400 about an image makes the next build strip every image, once. Returns whether it will.
    pub fn on_provider_error(&mut self, status: u16, body: &str) -> bool {
        let lower = body.to_ascii_lowercase();
        let about_images = status == 413 || lower.contains("request_too_large") || (status == 400 && lower.contains("image"));
        if about_images {
            self.strip_images_once = true;
        }
        about_images
    }

    /// How full the context is for the model `input` names (ACP's `usage_update`: used / size),
    /// without building or draining anything.
    pub fn usage(&mut self, input: &BuildInput) -> view::ContextUsage {
        let (replayer, cache, session_id) = self.synced();
        input.options_for(replayer.state(), session_id).usage_cached(replayer.items(), cache)
    }

    /// The replay, the cache with what the replay changed since the last build dropped from it,
    /// and the session id.
    fn synced(&mut self) -> (&Replayer, &mut view::ViewCache, Option<&str>) {
        let replayer = self.replayer.get_or_insert_with(|| Replayer::new(&self.records));
        self.cache.invalidate_from(replayer.take_changed_from());
        (replayer, &mut self.cache, self.header.as_ref().map(|h| h.session_id.as_str()))
    }

    /// Builds a request from the session's items; `input.log` and `input.items` must be absent.
    pub fn build(&mut self, input: &BuildInput) -> Result<Built, RequestError> {
        let (body, report) = self.build_body(input)?;
        // The payload stays cached for the next build; the caller gets its own copy.
        let payload =
            self.cache.last_payload().cloned().ok_or_else(|| RequestError::InvalidOptions("the build kept no payload".to_owned()))?;
        Ok(Built { payload, body, report })
    }

    /// Builds a request and returns its body (the string to send) and report — what the JS
    /// facade needs, without copying the typed payload.
    pub fn build_body(&mut self, input: &BuildInput) -> Result<(String, view::Report), RequestError> {
        if input.log.is_some() || input.items.is_some() {
            return Err(RequestError::InvalidOptions("a session builds from its own records; leave out `log` and `items`".to_owned()));
        }
        // Reminders are drained right before the build, into the log like any other record.
        let ts = self.stamp(input.now.as_deref());
        for injected in self.reminders.drain() {
            self.write(RecordBody::Event(Event::ReminderInjected(injected)), &ts);
        }
        let strip_images = self.strip_images_once;
        let context = self.prompt.clone();
        let (replayer, cache, session_id) = self.synced();
        let mut options = input.options_for(replayer.state(), session_id);
        if let Some(context) = &context {
            machine::apply_context(&mut options, input, context);
        }
        options.images.strip_all |= strip_images;
        let (body, mut report) = view::build_cached(replayer.items(), &options, cache).map_err(RequestError::Build)?;
        self.strip_images_once = false;
        // What pruning cost the provider's cache: the bytes rewritten when its boundary moved.
        // What rewrote the previous request, if anything did: what pruning cost the provider's
        // cache is reported apart from what a compaction or a rewind cost.
        let boundary = (report.pruning.boundary_turn, report.pruning.boundary_step);
        if let Some(prefix) = report.prefix.as_mut().filter(|p| p.rewritten_bytes > 0) {
            let last_build_seq = self.last_build_seq;
            let since = || self.records.iter().rev().take_while(move |r| r.seq > last_build_seq);
            let compaction = since().any(|r| matches!(&r.body, RecordBody::Event(Event::CompactionCheckpoint(_))));
            let rewind = since().any(|r| matches!(&r.body, RecordBody::Event(Event::Rewind(_))));
            let heads = since().any(|r| matches!(&r.body, RecordBody::Event(Event::PromptHeadSnapshot(_))));
            let cause = if compaction {
                view::RewriteCause::Compaction
            } else if rewind {
                view::RewriteCause::Rewind
            } else if heads {
                view::RewriteCause::Heads
            } else if self.last_boundary.is_some_and(|last| last != boundary) {
                report.pruning.invalidated_bytes = prefix.rewritten_bytes;
                view::RewriteCause::Pruning
            } else {
                view::RewriteCause::Other
            };
            prefix.cause = Some(cause);
        }
        self.last_boundary = Some(boundary);
        self.last_build_seq = self.records.last().map_or(0, |r| r.seq);
        Ok((body, report))
    }
}
