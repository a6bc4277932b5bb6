//! The message-queue state machine: commands in, replies and effects out, in order.
//!
//! `submit` queues a command, `process` runs the queue; each command either changes the
//! session and answers, or fails with a typed error and changes nothing it would have written.
//! After a command the session hands out what must be stored (`persist`), tells the client how
//! full the context is when that changed (`notify` with ACP `usage_update`), and asks for a
//! compaction once when the context crosses its threshold (`compactionDue`). The host stores
//! and answers with `ack`; after a restart or a lost answer, `reconcile` with what storage holds.

use serde_json::{json, Value};

use crate::diagnostic::{Diagnostic, Severity};
use super::codes;
use super::wait;
use crate::prompt::{self, PromptContext};
use crate::request::BuildInput;
use crate::tokens::Family;
use crate::update::record::{EditedPaths, ModelSwitch, PromptHeadSnapshot, Rewind};
use crate::update::{parse_log, Header, Record, RecordBody};
use crate::update::record::Event;
use crate::view::{self, ContextUsage};

use super::compaction::{self, compaction_due};
use super::persist::PersistenceStatus;
use super::protocol::{
    self, Command, CommandFailure, CompactionReason, Effect, ImageInput, Processed, Reconciled, Reply, SessionError, SessionSnapshot, SessionState,
    SNAPSHOT_FORMAT, SNAPSHOT_VERSION,
};
use super::core::Session;
use crate::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, SessionUpdate};
use crate::update::write;

/// Images a command carries, as content blocks; refused whole when one is not base64.
fn images_of(images: &[ImageInput]) -> Result<Vec<ContentBlock>, SessionError> {
    images.iter().map(|i| write::image(&i.data, &i.mime_type).map_err(SessionError::InvalidRecord)).collect()
}

impl Session {
    /// Runs one command: its reply or its error, as data.
    pub(super) fn run_command(&mut self, id: u64, command: Command, now: Option<&str>) -> Processed {
        let name = command.name().to_owned();
        // A command that may read records the host keeps is kept while it runs, to wait for them.
        let kept = (self.log.history.is_some() && wait::may_wait(&command)).then(|| command.clone());
        if kept.is_some() {
            self.release.needed.clear();
        }
        let (reply, error) = match self.handle(command, now) {
            Ok(reply) => (Some(reply), None),
            Err(e) => match kept.zip(self.need_of(&e)) {
                Some((command, need)) => return self.park(id, command, now, need),
                None => (None, Some(CommandFailure::from(&e))),
            },
        };
        Processed { id, command: name, reply, error, waiting: None, effects: Vec::new() }
    }

    fn handle(&mut self, command: Command, now: Option<&str>) -> Result<Reply, SessionError> {
        let ts = self.stamp(now);
        if self.log.records.last().is_some_and(|r| r.seq > u64::MAX / 2) {
            return Err(SessionError::InvalidRecord("the log's sequence numbers are exhausted".into()));
        }
        let writes_turn = matches!(
            command,
            Command::UserMessage(_)
                | Command::AssistantResponse(_)
                | Command::ToolResult(_)
                | Command::ProviderAnswer(_)
                | Command::BeginAnswer(_)
                | Command::EndSubagent(_)
        );
        if writes_turn && self.receiving.is_some() {
            return Err(SessionError::AnswerInProgress);
        }
        match command {
            Command::ProviderAnswer(answer) => self.provider_answer(answer, &ts),
            Command::BeginAnswer(begin) => self.begin_answer(begin),
            Command::EndAnswer(end) => self.end_answer(end, &ts),
            Command::StartSubagent(start) => self.start_subagent(start, &ts),
            Command::EndSubagent(end) => self.end_subagent(end, &ts),
            Command::UserMessage(protocol::UserMessageInput { text, images, message_id }) => {
                let id = message_id.unwrap_or_else(|| format!("user-{}", self.next_seq()));
                let images = images_of(&images)?;
                Ok(Reply::Accepted { seqs: self.write_updates(write::prompt(&text, images, &id, &ProviderMeta::default()), &ts) })
            }
            Command::AssistantResponse(mut response) => {
                let id = response.message_id.clone().unwrap_or_else(|| format!("assistant-{}", self.next_seq()));
                // A response that does not say who made it belongs to the session's model: its
                // reasoning goes back to that model natively.
                let sampling = self.sampling();
                if response.provider.is_none() {
                    response.provider = sampling.as_ref().map(|s| s.provider.as_str().to_owned());
                }
                if let Some(s) = sampling.as_ref().filter(|s| response.model.is_none() && response.provider.as_deref() == Some(s.provider.as_str())) {
                    response.model = Some(s.model.clone().unwrap_or_else(|| crate::request::default_model(s.provider).to_owned()));
                }
                let mut seqs = self.write_updates(write::turn(&response.turn(id)), &ts);
                if let Some(mut usage) = response.usage.clone() {
                    usage.provider = usage.provider.or(response.provider.clone());
                    usage.model = usage.model.or(response.model.clone());
                    seqs.push(self.write(RecordBody::Event(Event::UsageAnchor(usage)), &ts));
                }
                Ok(Reply::Accepted { seqs })
            }
            Command::ToolResult(protocol::ToolResultInput { tool_call_id, output, is_error, images }) => {
                if !self.has_tool_call(&tool_call_id) {
                    return Err(SessionError::UnknownToolCall(tool_call_id));
                }
                let content = write::result_content(&output, images_of(&images)?);
                Ok(Reply::Accepted { seqs: self.write_updates(vec![write::tool_result(&tool_call_id, content, is_error, None)], &ts) })
            }
            Command::RecordUsage(protocol::RecordUsage { usage }) => Ok(Reply::Accepted { seqs: vec![self.write(RecordBody::Event(Event::UsageAnchor(usage)), &ts)] }),
            Command::SwitchModel(protocol::SwitchModel { provider, model, context_window }) => self.switch_model(provider, model, context_window, &ts),
            Command::Rewind(protocol::RewindTo { prompt_index }) => {
                // Its prompt index counts from the start of the history.
                self.log.require_history()?;
                let prompts = self.prompt_fold().prompts.len() as u64;
                if prompt_index >= prompts {
                    return Err(SessionError::InvalidPromptIndex { index: prompt_index, prompts });
                }
                self.compactions.prepared = None;
                self.compactions.asked = false;
                let model_before = self.replayer().state().model.clone();
                let seqs = vec![self.write(RecordBody::Event(Event::Rewind(Rewind { prompt_index })), &ts)];
                self.checkpoints.rewritten = true;
                // A rewind past a model switch goes back to the model before it, as a replay would.
                if self.replayer().state().model != model_before {
                    self.sampling = None;
                }
                Ok(Reply::Accepted { seqs })
            }
            Command::SetPromptContext(protocol::SetPromptContext { context }) => self.set_prompt_context(context, &ts),
            Command::PrepareCompaction(protocol::PrepareCompaction { options }) => self.prepare_compaction_now(&options).map(|p| Reply::Compaction(Box::new(p))),
            Command::ApplyCompaction(apply) => self.apply_compaction(apply, &ts),
            Command::EnqueueReminder(protocol::EnqueueReminder { reminder }) => Ok(Reply::Queued { queued: self.reminders.enqueue(reminder) }),
            Command::RecordEditedPath(protocol::RecordEditedPath { path }) => {
                if self.replayer().state().edited_paths.contains(&path) {
                    return Ok(Reply::Unchanged);
                }
                Ok(Reply::Accepted { seqs: vec![self.write(RecordBody::Event(Event::EditedPaths(EditedPaths { paths: vec![path] })), &ts)] })
            }
            Command::BuildRequest(protocol::BuildRequest { options }) => {
                let mut input = self.build_input(options)?;
                if input.now.is_none() {
                    input.now = now.map(str::to_owned);
                }
                let (body, report) = self.build_now(&input).map_err(SessionError::Request)?;
                // What the request carried, for a reopened session and its timeline.
                self.record_tools(&input, &ts);
                // The session's sampling settings: not this call's clock, count or content.
                self.sampling = Some(BuildInput { now: None, context_tokens: None, log: None, items: None, ..input });
                Ok(Reply::Built { body, report: Box::new(report) })
            }
            Command::Flush => Ok(Reply::Unchanged),
            Command::Snapshot => Ok(Reply::Snapshot(Box::new(self.snapshot()?))),
            Command::Restore(protocol::Restore { snapshot }) => {
                // Tickets continue after this process's own: a late answer settles nothing new.
                let mut restored = Session::restore_after(&snapshot, self.persistence.next_ticket())?;
                // What is queued behind this command, and effects not yet handed out, stay.
                restored.door.queue = std::mem::take(&mut self.door.queue);
                restored.door.effects = std::mem::take(&mut self.door.effects);
                restored.door.next_command = restored.door.next_command.max(self.door.next_command);
                *self = restored;
                Ok(Reply::Unchanged)
            }
        }
    }

    /// Writes a command's updates, in order.
    pub(super) fn write_updates(&mut self, updates: Vec<SessionUpdate>, ts: &str) -> Vec<u64> {
        updates.into_iter().map(|update| self.write(RecordBody::Update(AcpUpdate::Known(update)), ts)).collect()
    }

    /// The call is in the effective history (not rewound away, not compacted away).
    pub(super) fn has_tool_call(&mut self, id: &str) -> bool {
        self.replayer().has_call(id)
    }

    /// The session's model: what the host last built with or switched to, else the log's last
    /// `model_switch` (a session reopened from its log samples with the same model).
    pub(super) fn sampling(&mut self) -> Option<BuildInput> {
        if let Some(sampling) = &self.sampling {
            return Some(sampling.clone());
        }
        let (provider, model, context_window) = self.recorded_model()?;
        Some(BuildInput { model: Some(model), context_window, ..BuildInput::new(provider) })
    }

    /// The session's defaults for build options: the provider, model and window of
    /// [`Session::sampling`], without cloning the rest of it.
    pub fn defaults(&mut self) -> Option<(crate::provider::Provider, Option<String>, Option<u64>)> {
        match &self.sampling {
            Some(s) => Some((s.provider, s.model.clone(), s.context_window)),
            None => self.recorded_model().map(|(provider, model, window)| (provider, Some(model), window)),
        }
    }

    /// The log's last `model_switch`, its provider name mapped to one of our APIs.
    fn recorded_model(&mut self) -> Option<(crate::provider::Provider, String, Option<u64>)> {
        let switch = self.replayer().state().model.clone()?;
        Some((crate::provider::Provider::of_recorded(&switch.provider, &switch.model), switch.model, switch.context_window))
    }

    /// Build options with the session's defaults, as JSON: `provider` and `model` default to the
    /// session's, and its window with its model. The one way a build's input is made: commands,
    /// compactions and the JS facade's builds all start here.
    pub fn with_defaults(&mut self, options: Value) -> Result<Value, SessionError> {
        let mut options = match options {
            Value::Null => json!({}),
            Value::Object(map) => Value::Object(map),
            other => return Err(SessionError::InvalidOptions(format!("build options must be an object, not {other}"))),
        };
        // A null is an absent option (a JS `undefined`).
        if let Value::Object(map) = &mut options {
            map.retain(|_, v| !v.is_null());
        }
        // The session's model, unless the options name another (whose window is its own).
        if let Some((provider, model, context_window)) = self.defaults() {
            if options.get("provider").is_none() {
                options["provider"] = json!(provider);
            }
            if options.get("model").is_none() && options["provider"] == json!(provider) {
                for (key, value) in [("model", json!(model)), ("contextWindow", json!(context_window))] {
                    if options.get(key).is_none() && !value.is_null() {
                        options[key] = value;
                    }
                }
            }
        }
        if options.get("provider").is_none() {
            return Err(SessionError::InvalidOptions("no provider: pass `provider` or switch the model first".into()));
        }
        Ok(options)
    }

    /// Build options from a command's, with the session's defaults ([`Session::with_defaults`]).
    pub(super) fn build_input(&mut self, options: Value) -> Result<BuildInput, SessionError> {
        let options = self.with_defaults(options)?;
        crate::diagnostic::from_value(options).map_err(SessionError::InvalidOptions)
    }

    fn switch_model(&mut self, provider: crate::provider::Provider, model: String, context_window: Option<u64>, ts: &str) -> Result<Reply, SessionError> {
        // Render the new system head first: a command that fails writes nothing.
        let rendered = match self.prompt.clone() {
            Some(mut context) => {
                context.model = Some(model.clone());
                let system = prompt::render_system(&context).map_err(SessionError::InvalidTemplate)?;
                Some((context, system))
            }
            None => None,
        };
        let mut seqs = vec![self.write(
            RecordBody::Event(Event::ModelSwitch(ModelSwitch { provider: provider.as_str().to_owned(), model: model.clone(), context_window })),
            ts,
        )];
        let mut sampling = self.sampling.take().unwrap_or_else(|| BuildInput::new(provider));
        sampling.provider = provider;
        sampling.model = Some(model.clone());
        sampling.context_window = context_window;
        self.sampling = Some(sampling);
        // The system head is rendered for the new model; the prefix stays as sent.
        if let Some((context, system)) = rendered {
            let recorded = self.replayer().state().heads.clone();
            let (first_user_prefix, cuts) = match recorded {
                Some(h) => (h.first_user_prefix, h.cuts),
                None => {
                    let (prefix, allocation) = prompt::render_prefix_allocated(&context);
                    (prefix, allocation.cuts())
                }
            };
            seqs.extend(self.record_heads(PromptHeadSnapshot { system, first_user_prefix, cuts }, ts));
            self.prompt = Some(context);
        }
        // A smaller window may not hold the context: ask again even if asked before.
        self.compactions.asked = false;
        if let Some(usage) = self.current_usage() {
            if compaction_due(&usage) {
                self.compactions.asked = true;
                self.door.effects.push_back(Effect::CompactionDue { reason: CompactionReason::ModelSwitch, usage: Box::new(usage) });
            }
        }
        Ok(Reply::Accepted { seqs })
    }

    fn set_prompt_context(&mut self, mut context: PromptContext, ts: &str) -> Result<Reply, SessionError> {
        prompt::check_templates(&context.templates).map_err(SessionError::InvalidTemplate)?;
        if context.model.is_none() {
            context.model = self.sampling().and_then(|s| s.model);
        }
        let heads = prompt::render_heads(&context).map_err(SessionError::InvalidTemplate)?;
        let previous = self.prompt.replace(context.clone());
        // The heads are recorded when none are, or while nothing has been said; later they stay
        // byte-stable until a compaction refreshes them, and what changed reaches the model as
        // reminders before its next decision.
        let recorded = self.replayer().state().heads.is_some();
        let started = self.replayer().items().iter().any(|i| !compaction::is_regenerated(i));
        let snapshot = PromptHeadSnapshot { system: heads.system, first_user_prefix: heads.first_user_prefix, cuts: heads.allocation.cuts() };
        if recorded && started {
            let told = match previous {
                Some(previous) => prompt::changes::reminders(&previous, &context).into_iter().map(|r| self.reminders.enqueue(r)).filter(|q| *q).count(),
                None => 0,
            };
            return Ok(if told > 0 { Reply::Queued { queued: true } } else { Reply::Unchanged });
        }
        Ok(match self.record_heads(snapshot, ts) {
            Some(seq) => Reply::Accepted { seqs: vec![seq] },
            None => Reply::Unchanged,
        })
    }

    /// Records the heads unless they are the ones recorded (an unchanged head writes nothing).
    pub(super) fn record_heads(&mut self, heads: PromptHeadSnapshot, ts: &str) -> Option<u64> {
        let recorded = self.replayer().state().heads.as_ref() == Some(&heads);
        (!recorded).then(|| self.write(RecordBody::Event(Event::PromptHeadSnapshot(heads)), ts))
    }

    pub(super) fn family(&mut self) -> Family {
        self.sampling().as_ref().map_or(Family::OpenAi, |s| {
            Family::of_names(Some(s.provider.as_str()), Some(s.model.as_deref().unwrap_or(crate::request::default_model(s.provider))))
        })
    }

    /// The context as the ledger counts it, for the session's model (none before a model is known).
    pub(super) fn current_usage(&mut self) -> Option<ContextUsage> {
        // Borrowed out and put back: after every command, without copying tools and system.
        let held = self.sampling.take();
        let usage = match &held {
            Some(sampling) => Some(self.usage(sampling)),
            None => self.sampling().map(|derived| self.usage(&derived)),
        };
        self.sampling = held;
        usage
    }

    /// After a command wrote records: tell the client the new count, and ask for a compaction
    /// once when the threshold is crossed.
    pub(super) fn after_change(&mut self) {
        let Some(usage) = self.current_usage() else { return };
        if usage.size > 0 && self.notified != Some((usage.used, usage.size)) {
            self.notified = Some((usage.used, usage.size));
            let session_id = self.log.header.as_ref().map(|h| h.session_id.clone()).unwrap_or_default();
            self.door.effects.push_back(Effect::Notify {
                notification: json!({"sessionId": session_id, "update": {"sessionUpdate": "usage_update", "used": usage.used, "size": usage.size}}),
            });
        }
        // Asked once per crossing: again only after the context fell below the point.
        let due = compaction_due(&usage);
        if due && !self.compactions.asked {
            self.door.effects.push_back(Effect::CompactionDue { reason: CompactionReason::Threshold, usage: Box::new(usage) });
        }
        self.compactions.asked = due;
    }

    /// Hands what storage has not confirmed to a new ticket.
    pub(super) fn queue_persist(&mut self) {
        let Some((ticket, seqs, header)) = self.persistence.next_batch() else { return };
        let mut lines = Vec::with_capacity(seqs.len() + 1);
        if header {
            if let Some(h) = &self.log.header {
                lines.push(h.to_line());
            }
        }
        // Records are in seq order; the batch's seqs are too.
        let first = seqs.first().copied().unwrap_or(0);
        let mut i = self.log.records.partition_point(|r| r.seq < first);
        for seq in seqs {
            while i < self.log.records.len() && self.log.records[i].seq < seq {
                i += 1;
            }
            if let Some(record) = self.log.records.get(i).filter(|r| r.seq == seq) {
                let line = record.to_line();
                self.checkpoints.stored(seq, record.body.is_checkpoint(), line.len());
                lines.push(line);
            }
        }
        self.door.effects.push_back(Effect::Persist { ticket, lines });
    }

    pub fn persistence(&self) -> PersistenceStatus {
        self.persistence.status()
    }

    /// See [`Session::reconcile`]; the effects are handed out by the caller.
    pub(super) fn reconcile_with(&mut self, stored: &str) -> Result<Reconciled, SessionError> {
        let log = parse_log(stored);
        // Storage is compared with memory from the first record: the history before the held
        // records is storage's own when the host kept it.
        if self.needs_history() {
            // Storage's records before the held ones are the history, checked as one given back
            // is: a storage that lost or changed records the session let go is refused, and
            // nothing changes.
            let first = self.log.records.first().map_or(u64::MAX, |r| r.seq);
            let before: String = log.records.iter().take_while(|r| r.seq < first).map(|r| format!("{}\n", r.to_line())).collect();
            self.log.take_history(before)?;
        }
        self.log.load_history();
        let mut diagnostics = log.diagnostics;
        match (&self.log.header, &log.header) {
            (Some(held), Some(found)) if held.session_id != found.session_id => {
                return Err(SessionError::SessionMismatch { held: held.session_id.clone(), stored: found.session_id.clone() })
            }
            (None, Some(found)) => self.log.header = Some(found.clone()),
            _ => {}
        }
        let same = self.log.records.iter().zip(&log.records).take_while(|(a, b)| a == b).count();
        let confirmed = self.persistence.committed_through();
        let mut dropped = Vec::new();
        let mut adopted = 0;
        if same < log.records.len() {
            // Storage has more, or something else: it wins from the first difference on.
            dropped = self.log.records[same..].iter().map(Record::to_line).collect();
            if self.log.records[same..].iter().any(|r| r.seq <= confirmed) {
                diagnostics.push(Diagnostic::new(
                    &codes::STORAGE_DIVERGED,
                    format!("storage changed records it had confirmed (from seq {}); it is taken as the truth", self.log.records[same].seq),
                ));
            }
            self.log.records.truncate(same);
            // What explains a rewrite, and what makes a prepared compaction stale, as the records
            // now held say.
            self.compactions.last_rewrite = super::core::last_rewrite(&self.log.records);
            self.builds.since_build = super::parts::builds::SinceBuild::default();
            for record in &log.records[same..] {
                self.push_record(record.clone());
                adopted += 1;
            }
            self.log.replayer = None;
            self.builds.cache = view::ViewCache::default();
            self.compactions.prepared = None;
        }
        let stored_last = log.records.last().map_or(0, |r| r.seq);
        if confirmed > stored_last {
            diagnostics.push(Diagnostic::new(
                &codes::STORAGE_LOST_RECORDS,
                format!("storage confirmed records up to seq {confirmed} but holds them only up to {stored_last}; they are sent again"),
            ));
        }
        let unstored: Vec<u64> = self.log.records[same.min(self.log.records.len())..].iter().map(|r| r.seq).filter(|&s| s > stored_last).collect();
        let resent = unstored.len();
        self.persistence.reconciled(stored_last, log.header.is_some(), unstored);
        Ok(Reconciled { adopted, dropped, resent, persistence: self.persistence.status(), diagnostics, effects: Vec::new() })
    }

    /// The whole state as a value (see [`SessionSnapshot`]); `history_needed` while the records
    /// before the checkpoint the session opened from are with the host.
    pub fn snapshot(&self) -> Result<SessionSnapshot, SessionError> {
        self.log.require_history()?;
        let mut log = String::new();
        if let Some(h) = &self.log.header {
            log.push_str(&h.to_line());
            log.push('\n');
        }
        if let Some(text) = self.log.history.as_ref().and_then(|h| h.text.as_deref()) {
            log.push_str(text);
        }
        for r in &self.log.records {
            log.push_str(&r.to_line());
            log.push('\n');
        }
        Ok(SessionSnapshot {
            format: SNAPSHOT_FORMAT.to_owned(),
            version: SNAPSHOT_VERSION,
            log,
            persistence: self.persistence.clone(),
            reminders: self.reminders.queued().to_vec(),
            prompt_context: self.prompt.clone(),
            sampling: self.sampling.clone(),
            prepared: self.compactions.prepared,
            strip_images_once: self.builds.strip_images_once,
            last_boundary: self.builds.last_boundary.map(|(turn, _)| turn),
            last_step_boundary: self.builds.last_boundary.map(|(_, step)| step),
            next_command: self.door.next_command,
        })
    }

    /// A session from a snapshot: the same state, the same next request.
    pub fn restore(snapshot: &SessionSnapshot) -> Result<Session, SessionError> {
        Session::restore_after(snapshot, 1)
    }

    /// [`Session::restore`], numbering new persist tickets from `ticket_floor` on.
    fn restore_after(snapshot: &SessionSnapshot, ticket_floor: u64) -> Result<Session, SessionError> {
        if snapshot.format != SNAPSHOT_FORMAT || snapshot.version > SNAPSHOT_VERSION {
            return Err(SessionError::InvalidSnapshot(format!("format `{}` version {}", snapshot.format, snapshot.version)));
        }
        let mut session = Session::from_log(&snapshot.log);
        if let Some(d) = session.log.diagnostics.iter().find(|d| d.severity == Severity::Error) {
            return Err(SessionError::InvalidSnapshot(format!("its log: {}", d.message)));
        }
        let last = session.log.records.last().map_or(0, |r| r.seq);
        session.persistence = snapshot
            .persistence
            .restored(last, ticket_floor)
            .ok_or_else(|| SessionError::InvalidSnapshot(format!("it claims records its log lacks (last seq {last})")))?;
        if let Some(context) = &snapshot.prompt_context {
            prompt::check_templates(&context.templates).map_err(SessionError::InvalidTemplate)?;
        }
        for reminder in &snapshot.reminders {
            session.reminders.enqueue(reminder.clone());
        }
        session.prompt = snapshot.prompt_context.clone();
        session.sampling = snapshot.sampling.clone();
        session.compactions.prepared = snapshot.prepared;
        session.builds.strip_images_once = snapshot.strip_images_once;
        session.builds.last_boundary = snapshot.last_boundary.map(|turn| (turn, snapshot.last_step_boundary.unwrap_or(0)));
        session.door.next_command = snapshot.next_command;
        Ok(session)
    }

    /// What the session holds, for inspection.
    pub fn state(&mut self) -> SessionState {
        let prompts = self.prompt_fold().prompts;
        let sampling = self.sampling();
        // The window the ledger uses: the model's own when the host gave none.
        let context_window = self.current_usage().map(|u| u.size).filter(|&s| s > 0);
        let queued_reminders = self.reminders.pending();
        let replay_state = self.replayer().state().clone();
        let items = self.replayer().items().len();
        SessionState {
            session_id: self.log.header.as_ref().map(|h| h.session_id.clone()),
            provider: sampling.as_ref().map(|s| s.provider.as_str().to_owned()).or_else(|| replay_state.model.as_ref().map(|m| m.provider.clone())),
            model: sampling.as_ref().and_then(|s| s.model.clone()).or_else(|| replay_state.model.as_ref().map(|m| m.model.clone())),
            context_window,
            prompts,
            edited_paths: replay_state.edited_paths,
            records: self.record_count(),
            items,
            started_at: self.log.started_at(),
            last_activity_at: self.log.records.last().map(|r| r.ts.clone()),
            last_compaction_seq: replay_state.last_compaction_seq,
            queued_commands: self.door.queue.len(),
            waiting: self.waiting(),
            queued_reminders,
            compaction_prepared: self.compactions.prepared.is_some(),
            prompt_context: self.prompt.clone(),
            tools: replay_state.tools,
            persistence: self.persistence.status(),
            parent_session_id: self.log.header.as_ref().and_then(|h| h.parent_session_id.clone()),
            parent_call_id: self.log.header.as_ref().and_then(|h| h.parent_call_id.clone()),
            subagents: replay_state.subagents,
            spent: replay_state.spent,
        }
    }
}

impl Header {
    /// The header line as stored.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
