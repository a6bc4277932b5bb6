//! A session held in memory: its durable records and the replayed conversation, kept in step.
//!
//! Records are appended one JSON line at a time (as a host reads them from storage or receives
//! them from an agent); the replay is recomputed lazily, only when items are needed after a
//! change. Appends are idempotent: a record already held (same `seq`, same content) is
//! acknowledged and not duplicated; a different record under a used `seq` is refused.

use crate::conversation::Item;
use crate::diagnostic::Diagnostic;
use crate::request::{BuildInput, RequestError};
use crate::update::record::Event;
use crate::update::record::RecordError;
use crate::update::{parse_log, replay, Header, Record, RecordBody, Replay, Replayer};
use crate::view::{self, Built, Reminder, ReminderQueue};

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
    /// Records the session wrote itself (drained reminders) that the host has not taken yet.
    unsaved: Vec<Record>,
    /// The last request body built, to report how much of it the next one repeats.
    last_body: Option<String>,
    /// Work kept between builds (token estimates, the last payload's JSON).
    cache: view::ViewCache,
    /// The pruning boundary of the last build, to tell what moving it cost.
    last_boundary: Option<u32>,
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
        Session {
            header: log.header,
            records: log.records,
            diagnostics: log.diagnostics,
            replayer: None,
            strip_images_once: false,
            reminders,
            unsaved: Vec::new(),
            last_body: None,
            cache: view::ViewCache::default(),
            last_boundary: None,
        }
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
        if let RecordBody::Event(Event::ReminderInjected(injected)) = &record.body {
            self.reminders.observe(injected);
        }
        if let Some(replayer) = &mut self.replayer {
            if !replayer.push(&record) {
                self.replayer = None;
            }
        }
        self.records.push(record);
        Ok(Appended::New)
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

    /// Records the session wrote itself since the last call, for the host to store.
    pub fn take_unsaved(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.unsaved)
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
        for injected in self.reminders.drain() {
            let seq = self.records.last().map_or(1, |r| r.seq + 1);
            let ts = input.now.clone().or_else(|| self.records.last().map(|r| r.ts.clone())).unwrap_or_default();
            let record = Record { seq, ts, body: RecordBody::Event(Event::ReminderInjected(injected)) };
            self.unsaved.push(record.clone());
            if let Some(replayer) = &mut self.replayer {
                replayer.push(&record);
            }
            self.records.push(record);
        }
        let strip_images = self.strip_images_once;
        let (replayer, cache, session_id) = self.synced();
        let mut options = input.options_for(replayer.state(), session_id);
        options.images.strip_all |= strip_images;
        let (body, mut report) = view::build_cached(replayer.items(), &options, cache).map_err(RequestError::Build)?;
        self.strip_images_once = false;
        // A body made by appending entries repeats the previous one up to its closing `]}`.
        let known = |previous: &str| if report.reuse.is_some_and(|r| r.appended_only) { previous.len().saturating_sub(2) } else { 0 };
        report.prefix = self.last_body.as_deref().map(|previous| view::PrefixReport::between_from(previous, &body, known(previous)));
        // What pruning cost the provider's cache: the bytes rewritten when its boundary moved.
        if let (Some(prefix), Some(last)) = (report.prefix, self.last_boundary) {
            if last != report.pruning.boundary_turn {
                report.pruning.invalidated_bytes = prefix.rewritten_bytes;
            }
        }
        self.last_boundary = Some(report.pruning.boundary_turn);
        self.last_body = Some(body.clone());
        Ok((body, report))
    }
}
