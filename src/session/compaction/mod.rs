//! Compaction (chapter 8.14): the history before a cut is replaced, for the model, by a summary.
//!
//! `prepareCompaction` picks the cut ([`cut`]) — recent messages within a budget stay verbatim,
//! starting at a step boundary so no tool call is parted from its result; the current step
//! always stays, and so does the latest exchange the model took part in (its long results and
//! outputs trimmed to head and tail when it would not leave the next request under half the
//! window) — and writes the request that asks a model for the summary: a structured
//! template (goal, constraints, progress, decisions, next steps, files, pending side effects),
//! merging the previous summary when there is one.
//!
//! The request reuses what the provider has cached: it is the request the session would send
//! now — the same tools, system and conversation, byte for byte — followed by one user message
//! with the summary instructions ([`Ladder::Cached`]). Only when that does not fit the window
//! does it fall back to a transcript of the history in one message, down a ladder ([`transcript`]):
//! verbatim, fitted (old tool results trimmed), lossy (oldest messages left out). When the cut
//! falls inside the latest request's work (a long run of tool rounds), the summary is asked to
//! say what was done for it so far, as pi does for a split turn.
//!
//! `applyCompaction` refuses a degenerate summary ([`check_summary`]), then writes a typed
//! `compaction_checkpoint` record (the original records stay), fresh heads and a state reminder.

pub mod cut;
pub mod transcript;

use serde_json::Value;

pub use cut::{cut, is_regenerated, splits_turn};
pub use transcript::{summary_input, SummaryInput};

pub use super::protocol::{ApplyCompaction, CompactionOptions, Ladder, PreparedCompaction};
use super::protocol::{PreparedCut, Reply, SessionError};
use super::core::{Input, Session, Settle};
use crate::conversation::{Item, Part, SyntheticReason, UserMessage};
use crate::prompt::{self, CompactionSlots, Templates};
use crate::update::record::{CompactionCheckpoint, Event, PromptHeadSnapshot, ReminderInjected};
use crate::update::RecordBody;
use crate::view::{self, ContextUsage, PrefixReport, Reminder, ReminderKind, Threshold};

/// The system prompt of the summarisation request.
pub const SUMMARY_SYSTEM: &str = "You write the working summary a coding agent continues from after its earlier messages are removed. \
Follow the requested structure exactly. Be specific and complete; never invent facts.";

/// Section headings the built-in template asks for, in order.
pub const SECTIONS: [&str; 7] = ["Goal", "Constraints", "Progress", "Decisions", "Next steps", "Files", "Pending actions"];
/// The least a summary must say besides its headings (chars, whitespace excluded).
pub const MIN_SUMMARY_CHARS: usize = 40;

/// Why a summary is refused; `None` when it is acceptable. With the host's own template only
/// the length is checked (its sections are not known).
pub fn check_summary(summary: &str, templates: &Templates) -> Option<String> {
    let headings: Vec<String> = summary
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix('#').map(|h| h.trim_start_matches('#').trim().to_ascii_lowercase()))
        .collect();
    let body_chars = summary.lines().filter(|l| !l.trim_start().starts_with('#')).flat_map(str::chars).filter(|c| !c.is_whitespace()).count();
    if body_chars < MIN_SUMMARY_CHARS {
        return Some(format!("the summary says too little ({body_chars} characters besides headings; at least {MIN_SUMMARY_CHARS})"));
    }
    if templates.compaction.is_some() {
        return None;
    }
    let missing: Vec<&str> = SECTIONS.iter().copied().filter(|s| !headings.iter().any(|h| h.starts_with(&s.to_ascii_lowercase()))).collect();
    if !missing.is_empty() {
        return Some(format!("the summary lacks the sections {}", missing.join(", ")));
    }
    None
}


/// Prepares the summarising request of a compaction, writing nothing (see
/// [`Session::prepare_compaction`]).
pub struct PrepareCompaction<'a>(pub &'a CompactionOptions);

impl Input for PrepareCompaction<'_> {
    type Output = Result<PreparedCompaction, SessionError>;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> Result<PreparedCompaction, SessionError> {
        s.prepare_compaction_now(self.0)
    }
}

/// How the in-place request asks for the summary (the template's `in_place` section).
const IN_PLACE: &str = "Answer with the summary alone, as text; do not call any tool. If the conversation above begins with an earlier summary (in <compaction_summary>), merge it into yours: keep what still holds, update what changed, drop nothing that still matters.";

/// What the summary must say of a turn the cut splits.
const SPLIT: &str = "The latest request is still in progress: its first steps are among the messages your summary replaces, and its latest steps stay verbatim after it. Under Progress, In progress, say what has been done for it so far, so the work can go on from the kept steps.";

/// Room left besides the request for the reply, as a share of the window.
const MARGIN_SHARE: u64 = 20;

/// Room the summarising request needs besides the history: the summary itself and the template
/// (the compaction check keeps it free, see [`compaction_due`]).
pub const SUMMARY_HEADROOM: u64 = 8_000 + 1_000;

impl Session {
    /// Prepares the summarising request (writes nothing); `applyCompaction` uses its cut.
    pub fn prepare_compaction(&mut self, options: &CompactionOptions) -> Result<PreparedCompaction, SessionError> {
        self.input(PrepareCompaction(options))
    }

    /// What [`PrepareCompaction`] does (the command and `send`'s compaction call it directly).
    pub(in crate::session) fn prepare_compaction_now(&mut self, options: &CompactionOptions) -> Result<PreparedCompaction, SessionError> {
        // What the summarising request restates of a result the session let go needs its
        // text (see `session/release.rs`). When it does, every result let go is read back at
        // once — from the records held, else asked of the host in one effect — and the
        // compaction is prepared from the whole items (preparing writes nothing).
        match self.prepare_compaction_once(options) {
            Err(SessionError::HistoryNeeded | SessionError::Request(crate::request::RequestError::Build(view::BuildError::HistoryNeeded { .. }))) => {
                let released = {
                    let replayer = self.replayer();
                    replayer.released_in(0..replayer.items().len())
                };
                match self.restore_released(&released)? {
                    true => self.prepare_compaction_once(options),
                    false => Err(SessionError::HistoryNeeded),
                }
            }
            prepared => prepared,
        }
    }

    fn prepare_compaction_once(&mut self, options: &CompactionOptions) -> Result<PreparedCompaction, SessionError> {
        let family = self.family();
        let usage = self.current_usage();
        let tokens_before = usage.as_ref().map_or(0, |u| u.used);
        let window = usage.map(|u| u.size).filter(|s| *s > 0);
        let templates = self.prompt.as_ref().map(|c| c.templates.clone()).unwrap_or_default();
        let based_on_seq = self.log.records.last().map_or(0, |r| r.seq);
        let previous = self.replayer().state().last_compaction_seq.and_then(|seq| self.log.compaction_summary(seq));
        let (replayer, cache, _) = self.synced();
        let items = replayer.items();
        let sizes = cache.sizes(items, family);
        // What stays verbatim: the recent budget, but never more than a quarter of the window (a
        // small model's, or one a refusal taught).
        let keep_recent = window.map_or(options.keep_recent_tokens, |w| options.keep_recent_tokens.min(w / 4));
        let at = cut(items, keep_recent, |i| sizes[i].tokens);
        let kept_tokens: u64 = sizes[at..].iter().map(|s| s.tokens).sum();
        let before = &items[..at];
        if !before.iter().any(|i| !is_regenerated(i)) {
            return Err(SessionError::NothingToCompact);
        }
        let first_kept_seq = if at < items.len() { replayer.item_seq(at) } else { based_on_seq + 1 };
        let summarised = before.iter().filter(|i| !is_regenerated(i)).count();
        let kept = items.len() - at;
        let split_turn = splits_turn(items, at);
        let kept_note = match items.get(at) {
            // Its text let go: read back first.
            Some(Item::ToolResult(r)) if r.released.is_some() => Err(r.id.clone()),
            Some(first) if kept > 0 => {
                let excerpt: String = crate::tokens::item_texts(first).join(" ").split_whitespace().collect::<Vec<_>>().join(" ").chars().take(60).collect();
                Ok(format!("the last {kept} messages (from the one that begins “{excerpt}”) stay verbatim after it"))
            }
            _ => Ok(String::new()),
        };
        let split_note = if split_turn { SPLIT } else { "" };
        let budget = options.input_tokens.or_else(|| window.map(|w| w.saturating_sub(options.summary_tokens).saturating_sub(w / MARGIN_SHARE)));
        // What stays verbatim must leave the request after the compaction under half the
        // window (where pruning starts): past that, its long results and outputs keep their
        // head and tail only.
        let trim_kept_over = window.filter(|w| kept_tokens > w / 2).map(|_| options.trim_results_over);

        let kept_note = match kept_note {
            Ok(note) => note,
            Err(_) => return Err(SessionError::HistoryNeeded),
        };
        // The request the session would send now, with the instructions after it.
        let input = self.build_input(options.build.clone())?;
        // The session's own build (its model, system, tools), or, before it has a model, the
        // one these options name.
        let session_input = self.build_input(Value::Null).unwrap_or_else(|_| input.clone());
        let same_model = input.provider == session_input.provider && input.model == session_input.model;
        if same_model && prompt::compaction_in_place(&templates) {
            let slots = CompactionSlots { kept: &kept_note, split: split_note, in_place: IN_PLACE, ..CompactionSlots::default() };
            let instructions = prompt::render_compaction(&templates, &slots).map_err(SessionError::InvalidTemplate)?;
            let extended = self.build_extended(&input, &instructions)?;
            let fits = budget.is_none_or(|b| extended.1.tokens.request <= b);
            if fits {
                let (body, report) = extended;
                let cached_bytes = match self.builds.cache.last_body() {
                    Some(last) => cached_prefix(last, &body),
                    // Nothing sent from here yet: the last request the conversation implies (up
                    // to what the model last answered).
                    None => self.build_extended_from(&input, None).ok().map_or(0, |(last, _)| cached_prefix(&last, &body)),
                };
                self.compactions.prepared = Some(PreparedCut { first_kept_seq, based_on_seq, tokens_before, trim_kept_over });
                return Ok(PreparedCompaction {
                    first_kept_seq,
                    based_on_seq,
                    ladder: Ladder::Cached,
                    summarised,
                    kept,
                    trimmed: 0,
                    omitted: 0,
                    tokens_before,
                    input_tokens: report.tokens.request,
                    split_turn,
                    trim_kept_over,
                    cached_bytes,
                    cached_share: cached_bytes as f64 / body.len().max(1) as f64,
                    system: input.system.clone().or_else(|| self.replayer().state().heads.as_ref().map(|h| h.system.clone())).unwrap_or_default(),
                    prompt: instructions,
                    body,
                });
            }
        }

        // It does not fit (or another model summarises): the history as a transcript.
        let released = self.replayer().released_in(0..at);
        if !released.is_empty() {
            return Err(SessionError::HistoryNeeded);
        }
        let (replayer, _, _) = self.synced();
        let before = &replayer.items()[..at];
        let notes = transcript::Notes { kept: &kept_note, split: split_note };
        let summary = summary_input(before, previous.as_deref(), &templates, budget, options.trim_results_over, family, notes)
            .map_err(SessionError::InvalidTemplate)?;
        let mut build = input;
        build.system = Some(SUMMARY_SYSTEM.to_owned());
        build.tools = Default::default();
        build.max_tokens = Some(options.summary_tokens.min(u32::MAX as u64) as u32);
        build.items = Some(vec![Item::User(UserMessage { id: "compaction-request".into(), content: vec![Part::text(summary.prompt.clone())], synthetic: None })]);
        let built = crate::request::build_request(&build).map_err(SessionError::Request)?;
        let cached_bytes = self.builds.cache.last_body().map_or(0, |last| cached_prefix(last, &built.built.body));
        self.compactions.prepared = Some(PreparedCut { first_kept_seq, based_on_seq, tokens_before, trim_kept_over });
        Ok(PreparedCompaction {
            first_kept_seq,
            based_on_seq,
            ladder: summary.ladder,
            summarised,
            kept,
            trimmed: summary.trimmed,
            omitted: summary.omitted,
            tokens_before,
            input_tokens: summary.tokens,
            split_turn,
            trim_kept_over,
            cached_bytes,
            cached_share: cached_bytes as f64 / built.built.body.len().max(1) as f64,
            system: SUMMARY_SYSTEM.to_owned(),
            prompt: summary.prompt,
            body: built.built.body,
        })
    }

    /// The request the session would build now for `input` (reminders not drained, nothing
    /// written), with the summary instructions as one more user message after it.
    fn build_extended(&mut self, input: &crate::request::BuildInput, instructions: &str) -> Result<(String, view::Report), SessionError> {
        self.build_extended_from(input, Some(instructions))
    }

    fn build_extended_from(&mut self, input: &crate::request::BuildInput, instructions: Option<&str>) -> Result<(String, view::Report), SessionError> {
        input.check().map_err(SessionError::Request)?;
        let mut options = self.build_options(input);
        let (replayer, cache, _) = self.synced();
        // Pruning decides as it would for the request itself: on the conversation's own count.
        let usage = options.usage_cached(replayer.items(), cache);
        options.context_tokens = Some(usage.used);
        let mut items = replayer.items().to_vec();
        if instructions.is_none() {
            // The request that asked for the model's last answer.
            let end = items.iter().rposition(|i| !i.is_assistant_side()).map_or(0, |i| i + 1);
            items.truncate(end);
        }
        if let Some(text) = instructions {
            items.push(Item::User(UserMessage {
                id: "compaction-request".into(),
                content: vec![Part::text(text)],
                synthetic: Some(SyntheticReason::SystemReminder),
            }));
        }
        let built = view::build(&items, &options).map_err(|e| SessionError::Request(crate::request::RequestError::Build(e)))?;
        Ok((built.body, built.report))
    }

    pub(super) fn apply_compaction(&mut self, apply: ApplyCompaction, ts: &str) -> Result<Reply, SessionError> {
        let prepared = self.compactions.prepared.ok_or(SessionError::NoCompactionPrepared)?;
        if self.compactions.last_rewrite > prepared.based_on_seq {
            self.compactions.prepared = None;
            return Err(SessionError::CompactionStale);
        }
        let templates = self.prompt.as_ref().map(|c| c.templates.clone()).unwrap_or_default();
        if let Some(reason) = check_summary(&apply.summary, &templates) {
            return Err(SessionError::DegenerateSummary(reason));
        }
        // Kept results trimmed by the compaction are trimmed from their whole text.
        if prepared.trim_kept_over.is_some() {
            let replayer = self.replayer();
            let at = (0..replayer.items().len()).find(|&i| replayer.item_seq(i) >= prepared.first_kept_seq).unwrap_or(replayer.items().len());
            let released = replayer.released_in(at..replayer.items().len());
            if !released.is_empty() && !self.restore_released(&released)? {
                return Err(SessionError::HistoryNeeded);
            }
        }
        let heads = match &self.prompt {
            Some(context) => Some(prompt::render_heads(context).map_err(SessionError::InvalidTemplate)?),
            None => None,
        };
        // The latest real request, restated when the cut leaves it out.
        let latest = {
            let replayer = self.replayer();
            let items = replayer.items();
            items
                .iter()
                .rposition(crate::view::prune::is_real_prompt)
                .filter(|&i| replayer.item_seq(i) < prepared.first_kept_seq)
                .map(|i| crate::tokens::item_texts(&items[i]).join("\n").trim().to_owned())
        };
        let edited = self.replayer().state().edited_paths.clone();
        let mut seqs = vec![self.write(
            RecordBody::Event(Event::CompactionCheckpoint(CompactionCheckpoint {
                summary: apply.summary.trim().to_owned(),
                first_kept_seq: prepared.first_kept_seq,
                tokens_before: Some(prepared.tokens_before),
                summary_tokens: apply.usage.as_ref().map(|u| u.output_tokens),
                trim_kept_over: prepared.trim_kept_over,
            })),
            ts,
        )];
        if let Some(heads) = heads {
            seqs.extend(self.record_heads(PromptHeadSnapshot { system: heads.system, first_user_prefix: heads.first_user_prefix, cuts: heads.allocation.cuts() }, ts));
        }
        let skills: Vec<String> =
            self.prompt.as_ref().and_then(|c| c.skills.as_ref()).map(|l| l.entries.iter().map(|e| e.name.clone()).collect()).unwrap_or_default();
        let text = state_reminder(latest.as_deref(), &edited, &skills, &apply.background_tasks);
        let reminder = Reminder { kind: ReminderKind::CompactionState, text, day: None };
        let injected = ReminderInjected { reminder: ReminderKind::CompactionState.as_str().to_owned(), text: view::reminders::render(&reminder) };
        seqs.push(self.write(RecordBody::Event(Event::ReminderInjected(injected)), ts));
        self.compactions.prepared = None;
        // The state after a compaction is small: a checkpoint of it is due.
        self.checkpoints.rewritten = true;
        Ok(Reply::Accepted { seqs })
    }
}


/// Bytes at the start of `body` that repeat `last` (less its closing brackets): what a provider's
/// prompt cache, holding `last`, can serve of it.
fn cached_prefix(last: &str, body: &str) -> usize {
    let stem = last.trim_end_matches(['}', ']']).len();
    PrefixReport::between(last, body).shared_bytes.min(stem)
}

/// Is the context past the point where the summarising request would still fit?
/// The headroom is at most a quarter of the window, so a small model is not always "due".
pub(super) fn compaction_due(usage: &ContextUsage) -> bool {
    let headroom = SUMMARY_HEADROOM.min(usage.size / 4);
    usage.threshold == Threshold::Compact || (usage.size > 0 && usage.used.saturating_add(headroom) > usage.size)
}

/// What the model must not lose across a compaction, besides the summary.
fn state_reminder(latest: Option<&str>, edited: &[String], skills: &[String], background: &[String]) -> String {
    let mut text = String::from("The conversation before this point was compacted: the summary above stands for it.");
    if let Some(latest) = latest.filter(|l| !l.is_empty()) {
        text.push_str(&format!("\n\nThe user's latest request, verbatim:\n{latest}"));
    }
    if !edited.is_empty() {
        text.push_str(&format!("\n\nFiles edited in this session: {}", edited.join(", ")));
    }
    if !skills.is_empty() {
        text.push_str(&format!("\n\nSkills available (load one to read it): {}", skills.join(", ")));
    }
    if !background.is_empty() {
        text.push_str(&format!("\n\nBackground tasks still running: {}", background.join("; ")));
    }
    text
}
