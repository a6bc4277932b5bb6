//! The JS `Session`: a session held in memory — commands in, effects out, builds, answers —
//! the facade over [`contextview::session::Session`], each argument's JS type checked before it is read.

use super::*;

/// A session held in memory: append records, build requests.
#[wasm_bindgen]
pub struct Session {
    inner: NativeSession,
    options: OptionsMemo,
    /// The log's lines before the checkpoint the session opened from, kept in the JS heap
    /// until the session needs the whole history ([`Session::give_history`]), and the last
    /// record they hold: once the session has let go of more, they are not its history.
    history: Option<(js_sys::JsString, u64)>,
}

#[wasm_bindgen]
impl Session {
    /// An empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session { inner: NativeSession::default(), options: OptionsMemo::default(), history: None }
    }

    /// Loads a log's text; unreadable lines become diagnostics (see `diagnostics()`). A log with
    /// a checkpoint opens from the last one: only the lines after it are read.
    #[wasm_bindgen(js_name = fromLog)]
    pub fn from_log(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<Session, JsValue> {
        if !text.is_string() {
            return Err(cross::type_error("text", "a string", &text));
        }
        let (inner, history) = open::from_log(&js_sys::JsString::from(text));
        let history = history.zip(inner.history_through());
        Ok(Session { inner, options: OptionsMemo::default(), history })
    }

    /// A session from a log's header line (`head`, `''` when it has none) and its lines from the
    /// last checkpoint on (`tail`), for a host whose storage reads the tail alone: the records
    /// before stay with the host until `needsHistory()` says a rewind or a snapshot wants them
    /// (`provideHistory`). `null` when the tail does not open from its checkpoint: open the
    /// whole log instead.
    #[wasm_bindgen(js_name = fromTail, unchecked_return_type = "Session | null")]
    pub fn from_tail(
        #[wasm_bindgen(unchecked_param_type = "string")] head: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] tail: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (head, tail) = (string(&head, "head")?, string(&tail, "tail")?);
        Ok(match NativeSession::from_tail(&head, &tail, None) {
            Some(inner) => JsValue::from(Session { inner, options: OptionsMemo::default(), history: None }),
            None => JsValue::NULL,
        })
    }

    /// Whether records of the session are with the host — those before the checkpoint it opened
    /// from (`fromTail`), or those storage confirmed (`setReleaseStored`): a rewind or a
    /// snapshot needs `provideHistory` first, with the records through `historyThrough()`.
    #[wasm_bindgen(js_name = needsHistory)]
    pub fn needs_history(&self) -> bool {
        self.inner.needs_history() && self.held_history().is_none()
    }

    /// The `seq` the history a session wants ends at (`needsHistory()`): give
    /// `provideHistory` the log's records after its header through it. `null` when it holds it.
    #[wasm_bindgen(js_name = historyThrough, unchecked_return_type = "number | null")]
    pub fn history_through(&self) -> JsValue {
        match self.needs_history() {
            true => self.inner.history_through().map_or(JsValue::NULL, |seq| JsValue::from_f64(seq as f64)),
            false => JsValue::NULL,
        }
    }

    /// The records the session asked for because a request sends whole tool results it let go
    /// (a waiting command's `readRecords` effect, or a direct build's `history_needed`): read
    /// them (`storage.loadRecords(seqs)`) and give them to `provideRecords`. Empty when it asked
    /// for none.
    #[wasm_bindgen(js_name = neededRecords, unchecked_return_type = "number[]")]
    pub fn needed_records(&self) -> JsValue {
        let seqs = js_sys::Array::new();
        for &seq in self.inner.needed_records() {
            seqs.push(&JsValue::from_f64(seq as f64));
        }
        seqs.into()
    }

    /// Gives the session the log lines of the records `neededRecords()` named: the tool results
    /// they set get their text back, and the command that waited for them (its `readRecords`
    /// effect) runs: what it did is returned (`null` when no command waited). Throws
    /// `history_mismatch` (and changes nothing) when one is missing or is not the text the
    /// session let go, and `not_asked` when it asked for none.
    #[wasm_bindgen(js_name = provideRecords, unchecked_return_type = "Processed | null")]
    pub fn provide_records(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
        let text = string(&text, "text")?;
        let resumed = self.inner.provide_records(&text).map_err(session_error)?;
        self.resumed(resumed)
    }

    /// Gives up the command that waits for records (its `readHistory` / `readRecords` effect)
    /// when they cannot be read: it ends with `records_unavailable` and is returned; `null`
    /// when none waits.
    #[wasm_bindgen(unchecked_return_type = "Processed | null")]
    pub fn abandon(&mut self) -> Result<JsValue, JsValue> {
        let abandoned = self.inner.abandon();
        self.resumed(abandoned)
    }

    /// Lets records storage confirmed (`ack(ticket, 'committed')`) leave wasm memory, all but the
    /// last, and the text of tool results its requests clear or trim (off by default;
    /// `DurableSession` turns it on when its storage reads history back): the replay and the
    /// view carry what the next request needs; a rewind or a snapshot asks for the rest
    /// (`needsHistory()`, `historyThrough()`), and a request that sends such a result whole
    /// again for its records (`history_needed`, `neededRecords()`).
    #[wasm_bindgen(js_name = setReleaseStored)]
    pub fn set_release_stored(&mut self, #[wasm_bindgen(unchecked_param_type = "boolean")] release: JsValue) -> Result<(), JsValue> {
        let release = release.as_bool().ok_or_else(|| cross::type_error("release", "a boolean", &release))?;
        self.inner.set_release_stored(release);
        Ok(())
    }

    /// Gives a session that `needsHistory()` the log's lines after its header through the record
    /// `historyThrough()` names (for a session made by `fromTail`: the lines between its header
    /// and its tail); the command that waited for it (its `readHistory` or `readRecords`
    /// effect) runs: what it did is returned (`null` when no command waited). Throws
    /// `history_mismatch` (and changes nothing) when they are not that history, and `not_asked`
    /// when the session holds its history.
    #[wasm_bindgen(js_name = provideHistory, unchecked_return_type = "Processed | null")]
    pub fn provide_history(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
        let text = string(&text, "text")?;
        let resumed = self.inner.provide_history(text).map_err(session_error)?;
        self.resumed(resumed)
    }

    /// Appends one record line. Returns `false` when the record was already held.
    pub fn append(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] line: JsValue) -> Result<bool, JsValue> {
        let line = string(&line, "line")?;
        let mut appended = self.inner.append_line(&line);
        if appended == Err(contextview::session::AppendError::HistoryNeeded) {
            self.give_history()?;
            appended = self.inner.append_line(&line);
        }
        match appended {
            Ok(Appended::New) => Ok(true),
            Ok(Appended::Duplicate) => Ok(false),
            Err(e @ contextview::session::AppendError::HistoryNeeded) => Err(self.history_needed(&e.to_string())),
            Err(e) => Err(error(e.code(), &e.to_string())),
        }
    }

    #[wasm_bindgen(js_name = itemCount)]
    pub fn item_count(&mut self) -> usize {
        self.inner.items().len()
    }

    /// Writes a checkpoint whenever this many bytes of records were written since the last one,
    /// besides those after compactions and rewinds (`null`: none by size, the default).
    #[wasm_bindgen(js_name = setCheckpointEvery)]
    pub fn set_checkpoint_every(&mut self, #[wasm_bindgen(unchecked_param_type = "number | null")] bytes: JsValue) -> Result<(), JsValue> {
        let bytes = match bytes.is_null() || bytes.is_undefined() {
            true => None,
            false => Some(u64::from(integer(&bytes, "bytes", 1..=u32::MAX)?)),
        };
        self.inner.set_checkpoint_every(bytes);
        Ok(())
    }

    /// Writes a checkpoint of the state now, so the next open of the log starts here (for a
    /// log opened by replay: an import, an older log); its record comes back in a `persist`
    /// effect (`takeEffects()`). Returns its `seq`, or `null` when there is nothing to cover.
    #[wasm_bindgen(unchecked_return_type = "number | null")]
    pub fn checkpoint(&mut self) -> JsValue {
        self.inner.checkpoint().map_or(JsValue::NULL, |seq| JsValue::from_f64(seq as f64))
    }

    #[wasm_bindgen(js_name = recordCount)]
    pub fn record_count(&self) -> usize {
        self.inner.record_count()
    }

    pub fn diagnostics(&mut self) -> Result<Vec<ts::Diagnostic>, JsValue> {
        self.inner.diagnostics().iter().map(typed).collect()
    }

    /// Queues a runtime reminder (`{kind, text, day?}`) for the next build; `false` when it would
    /// repeat something already told.
    #[wasm_bindgen(js_name = enqueueReminder)]
    pub fn enqueue_reminder(&mut self, reminder: ts::Reminder) -> Result<bool, JsValue> {
        let reminder = via_value(&reminder, contextview::error_codes::INVALID_ARGUMENT, "reminder")?;
        Ok(self.inner.enqueue_reminder(reminder))
    }

    /// Queues the rules `rulesForPath` returned for `path` as one `rules_attached` reminder for
    /// the next build; `false` when there were none or they were told already.
    #[wasm_bindgen(js_name = enqueueRules)]
    pub fn enqueue_rules(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Rule[]")] rules: JsValue,
    ) -> Result<bool, JsValue> {
        let path = string(&path, "path")?;
        if !js_sys::Array::is_array(&rules) {
            return Err(cross::type_error("rules", "an array of rules", &rules));
        }
        let rules = js_sys::Array::from(&rules)
            .iter()
            .map(|r| via_value(&r, contextview::error_codes::INVALID_ARGUMENT, "rule"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.inner.enqueue_rules(&path, &rules))
    }

    /// A new, empty session; its header line is stored with the first records.
    pub fn create(#[wasm_bindgen(unchecked_param_type = "string")] session_id: JsValue) -> Result<Session, JsValue> {
        let session_id = string(&session_id, "sessionId")?;
        Ok(Session { inner: NativeSession::create(Header::new(session_id)), options: OptionsMemo::default(), history: None })
    }

    /// A subagent's session, as `startSubagent`'s reply describes it (`reply.child`): its header
    /// names the parent's session and call; its model, its prompt context and its task (its
    /// first prompt) are recorded, their records among the effects its next command returns
    /// (or `takeEffects()`).
    /// (Its type is declared in `TS_TYPES`: `now` optional.)
    #[wasm_bindgen(js_name = forSubagent, skip_typescript)]
    pub fn for_subagent(start: ts::SubagentStart, now: Option<JsValue>) -> Result<Session, JsValue> {
        let now = clock(&now.unwrap_or(JsValue::UNDEFINED))?;
        let start: SubagentStart = via_value(&start, contextview::error_codes::INVALID_ARGUMENT, "start")?;
        Ok(Session { inner: NativeSession::for_subagent(&start, Some(now)).map_err(session_error)?, options: OptionsMemo::default(), history: None })
    }

    /// The text of the model's last turn: what a subagent reports (`endSubagent`'s `report`);
    /// `null` before the model said anything.
    #[wasm_bindgen(js_name = finalAnswer, unchecked_return_type = "string | null")]
    pub fn final_answer(&mut self) -> JsValue {
        self.inner.final_answer().map_or(JsValue::NULL, |text| JsValue::from_str(&text))
    }

    /// Queues a command; `now` (RFC 3339; the clock's time when left out) stamps the records
    /// it writes. Returns the command's id.
    pub fn submit(&mut self, command: ts::Command, #[wasm_bindgen(unchecked_param_type = "string | null")] now: JsValue) -> Result<f64, JsValue> {
        let now = clock(&now)?;
        let command = via_value(&command, contextview_js::error_codes::INVALID_COMMAND, "command")?;
        Ok(self.inner.submit(command, Some(now)) as f64)
    }

    /// Processes every queued command, in order. A command's own failure is data (`error`); a
    /// command that waits for records the host keeps ends the list (`waiting`, its read effect
    /// last): answer it, and the queue goes on at the next `process()`.
    pub fn process(&mut self) -> Result<Vec<ts::Processed>, JsValue> {
        let mut done = Vec::new();
        loop {
            let mut batch = self.inner.process();
            let Some(last) = batch.pop() else { break };
            let answered = self.answer_from_held(last)?;
            let waits = answered.waiting.is_some();
            done.extend(batch);
            done.push(answered);
            if waits {
                break;
            }
        }
        done.iter().map(typed).collect()
    }

    /// Processes one command now (throws `queue_not_empty` while commands are queued). Its reply
    /// is typed by the command (declared in `TS_TYPES`).
    #[wasm_bindgen(skip_typescript)]
    pub fn dispatch(&mut self, command: ts::Command, now: JsValue) -> Result<ts::Processed, JsValue> {
        let now = clock(&now)?;
        let command: Command = via_value(&command, contextview_js::error_codes::INVALID_COMMAND, "command")?;
        let processed = self.inner.dispatch(command, Some(now)).map_err(session_error)?;
        typed(&self.answer_from_held(processed)?)
    }

    /// Effects produced outside commands (records a `build` drained into the log, to store).
    #[wasm_bindgen(js_name = takeEffects)]
    pub fn take_effects(&mut self) -> Result<Vec<ts::Effect>, JsValue> {
        self.inner.take_effects().iter().map(typed).collect()
    }

    /// Feeds bytes of the answer begun with the `beginAnswer` command (any chunking); returns the
    /// ACP updates they completed — text and thought chunks, tool calls once their arguments
    /// are whole — for the client. `endAnswer` records the answer. Throws `no_answer_begun`.
    #[wasm_bindgen(js_name = answerBytes, unchecked_return_type = "SessionUpdate[]")]
    pub fn answer_bytes(&mut self, #[wasm_bindgen(unchecked_param_type = "Uint8Array")] chunk: JsValue) -> Result<JsValue, JsValue> {
        let chunk = bytes(&chunk, "bytes")?;
        let updates = self.inner.answer_bytes(&chunk).map_err(session_error)?;
        to_js(&updates)
    }

    /// Reads a provider's answer without recording it — `{body, status?, headers?, provider?,
    /// model?, attempt?}` as `providerAnswer` takes it — and says what it holds and how it ended,
    /// with the retry decision: for the summary request of a compaction (`send` runs one through
    /// the host's fetcher), whose text `applyCompaction` takes.
    /// (Its type is declared in `TS_TYPES`: `now` optional.)
    #[wasm_bindgen(js_name = readAnswer, skip_typescript)]
    pub fn read_answer(&mut self, answer: ts::ProviderAnswer, now: Option<JsValue>) -> Result<ts::AnswerSummary, JsValue> {
        let input: contextview::session::protocol::ProviderAnswer = via_value(&answer, contextview::error_codes::INVALID_ARGUMENT, "answer")?;
        let now = clock(&now.unwrap_or(JsValue::UNDEFINED))?;
        typed(&self.inner.read_answer(&input, Some(&now)).map_err(session_error)?)
    }

    /// Reports what became of a persist ticket: `committed`, `not_committed` or `indeterminate`.
    pub fn ack(&mut self, #[wasm_bindgen(unchecked_param_type = "number")] ticket: JsValue, outcome: ts::PersistOutcome) -> Result<ts::AckResult, JsValue> {
        let ticket = ticket.as_f64().ok_or_else(|| cross::type_error("ticket", "a number", &ticket))?;
        let outcome = via_value(&outcome, contextview::error_codes::INVALID_ARGUMENT, "outcome")?;
        if !(ticket.is_finite() && ticket >= 0.0 && ticket.fract() == 0.0) {
            return Err(error(contextview::error_codes::UNKNOWN_TICKET, &format!("{ticket} is not a ticket")));
        }
        typed(&self.inner.ack(ticket as u64, outcome).map_err(session_error)?)
    }

    /// Converges memory to what storage holds (its JSON Lines text).
    pub fn reconcile(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] stored: JsValue) -> Result<ts::Reconciled, JsValue> {
        let stored = string(&stored, "stored")?;
        typed(&self.inner.reconcile(&stored).map_err(session_error)?)
    }

    pub fn persistence(&self) -> Result<ts::PersistenceStatus, JsValue> {
        typed(&self.inner.persistence())
    }

    /// What the session holds: model, prompts, edited paths, timing, queues, persistence.
    pub fn state(&mut self) -> Result<ts::SessionState, JsValue> {
        typed(&self.inner.state())
    }

    /// The whole state as a value; `Session.restore(snapshot)` gives it back.
    pub fn snapshot(&mut self) -> Result<ts::SessionSnapshot, JsValue> {
        self.give_history()?;
        match self.inner.snapshot() {
            Ok(snapshot) => typed(&snapshot),
            Err(e @ contextview::session::SessionError::HistoryNeeded) => Err(self.history_needed(&e.to_string())),
            Err(e) => Err(session_error(e)),
        }
    }

    pub fn restore(snapshot: ts::SessionSnapshot) -> Result<Session, JsValue> {
        let snapshot: SessionSnapshot = via_value(&snapshot, contextview::error_codes::INVALID_SNAPSHOT, "snapshot")?;
        Ok(Session { inner: NativeSession::restore(&snapshot).map_err(session_error)?, options: OptionsMemo::default(), history: None })
    }

    /// Tells the session the provider refused its last request (`{status, body}`). A 413 or an
    /// image error makes the next build strip every image, once; returns whether it will.
    #[wasm_bindgen(js_name = onProviderError)]
    pub fn on_provider_error(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] status: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] body: JsValue,
    ) -> Result<bool, JsValue> {
        let status = integer(&status, "status", 100..=599)?;
        let body = string(&body, "body")?;
        Ok(self.inner.on_provider_error(status as u16, &body))
    }

    /// How full the context is for the model the options name — `{used, size}` as in ACP's
    /// `usage_update`, how it was counted, and which threshold it has crossed. Builds nothing.
    pub fn usage(&mut self, #[wasm_bindgen(unchecked_param_type = "Partial<BuildInput>")] options: ts::BuildInput) -> Result<ts::ContextUsage, JsValue> {
        let input = self.options.get(&options, &mut self.inner)?;
        typed(&self.inner.usage(input))
    }

    /// Builds a request; returns the payload as an object (declared in `TS_TYPES`).
    #[wasm_bindgen(skip_typescript)]
    pub fn build(&mut self, #[wasm_bindgen(unchecked_param_type = "Partial<BuildInput>")] options: ts::BuildInput) -> Result<JsValue, JsValue> {
        let (body, report) = self.build_body(&options)?;
        build_result(&body, &report, &[])
    }

    /// Builds a request; returns the body string exactly as it would be sent.
    #[wasm_bindgen(js_name = buildString)]
    pub fn build_string(&mut self, #[wasm_bindgen(unchecked_param_type = "Partial<BuildInput>")] options: ts::BuildInput) -> Result<ts::BuildStringResult, JsValue> {
        let (body, report) = self.build_body(&options)?;
        body_result(JsValue::from_str(&body), &report, &[]).map(JsCast::unchecked_into)
    }

    /// Builds a request; returns the body as UTF-8 bytes (a `Uint8Array` to pass to `fetch`),
    /// byte for byte the string `buildString` returns.
    #[wasm_bindgen(js_name = buildBytes)]
    pub fn build_bytes(&mut self, #[wasm_bindgen(unchecked_param_type = "Partial<BuildInput>")] options: ts::BuildInput) -> Result<ts::BuildBytesResult, JsValue> {
        let (body, report) = self.build_body(&options)?;
        body_result(js_sys::Uint8Array::from(body.as_bytes()).into(), &report, &[]).map(JsCast::unchecked_into)
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// Hands the session the lines before the checkpoint it opened from, when it lacks them
    /// (refused when they are not that history: the log's text changed under it). What a command
    /// that waited for them did is returned.
    fn give_history(&mut self) -> Result<Option<Processed>, JsValue> {
        let mut resumed = None;
        if self.inner.needs_history() {
            if let Some(history) = self.held_history().cloned() {
                resumed = self.inner.provide_history(String::from(history)).map_err(session_error)?;
            }
        }
        self.history = None;
        Ok(resumed)
    }

    /// A command that waits for records this facade holds (the text before the checkpoint
    /// `fromLog` opened from) is answered here, the way a host answers its read effect: the
    /// effect is taken out of what the host sees, and the command's run replaces its wait.
    fn answer_from_held(&mut self, mut processed: Processed) -> Result<Processed, JsValue> {
        if processed.waiting.is_none() || self.held_history().is_none() {
            return Ok(processed);
        }
        let Some(mut ran) = self.give_history()? else { return Ok(processed) };
        processed.effects.retain(|e| !matches!(e, Effect::ReadHistory { command, .. } | Effect::ReadRecords { command, .. } if *command == processed.id));
        processed.effects.append(&mut ran.effects);
        ran.effects = processed.effects;
        Ok(ran)
    }

    /// What an answer to a waiting command returns to JS: what the command did, or `null`.
    fn resumed(&self, processed: Option<Processed>) -> Result<JsValue, JsValue> {
        match processed {
            Some(processed) => to_js(&processed),
            None => Ok(JsValue::NULL),
        }
    }

    /// The text `fromLog` kept, while it is the history the session lacks (a session that let
    /// go of records since wants more: [`NativeSession::set_release_stored`]).
    fn held_history(&self) -> Option<&js_sys::JsString> {
        self.history.as_ref().filter(|(_, through)| self.inner.history_through() == Some(*through)).map(|(text, _)| text)
    }

    /// Builds. A build is not a command and cannot wait: one that sends whole what the session
    /// let go says what it needs (`history_needed`, `neededRecords()`); when this facade holds
    /// that history it answers the need itself and makes the call it answered, once.
    fn build_body(&mut self, options: &ts::BuildInput) -> Result<(std::sync::Arc<String>, contextview::view::Report), JsValue> {
        let input = self.options.get(options, &mut self.inner)?;
        let mut built = self.inner.build_body(input);
        if matches!(&built, Err(contextview::request::RequestError::Build(contextview::view::BuildError::HistoryNeeded { .. }))) && self.held_history().is_some() {
            self.give_history()?;
            let input = self.options.get(options, &mut self.inner)?;
            built = self.inner.build_body(input);
        }
        match built {
            Err(contextview::request::RequestError::Build(e @ contextview::view::BuildError::HistoryNeeded { .. })) => Err(self.history_needed(&e.to_string())),
            built => built.map_err(request_error),
        }
    }

    /// A direct call's `history_needed`, saying what it needs as a waiting command's need is
    /// typed (`details.needs`: the records `neededRecords()` names, else the history through
    /// `historyThrough()`): the host gives it and makes the call again.
    fn history_needed(&self, message: &str) -> JsValue {
        #[derive(Serialize)]
        struct Details {
            needs: Option<contextview::session::Need>,
        }
        let needs = match self.inner.needed_records() {
            [] => self.inner.history_through().map(|through| contextview::session::Need::History { through }),
            seqs => Some(contextview::session::Need::Records { seqs: seqs.to_vec() }),
        };
        cross::error_with(contextview::error_codes::HISTORY_NEEDED, message.strip_prefix("history_needed: ").unwrap_or(message), &Details { needs })
    }
}
