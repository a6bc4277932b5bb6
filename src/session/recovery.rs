//! Recovery: what the session changes after an answer went wrong, so the next request is one
//! the provider takes — recorded in the log like everything else.
//!
//! - **A request too large** (a 413, Anthropic's `request_too_large`, a 400 about an image): the
//!   next build strips every image, once (the chapter's 413 recovery).
//! - **A context-length refusal** (each API's own words, [`crate::answer::failure::overflow`]):
//!   the count the provider named becomes the ledger's anchor (a `usage_anchor` record; where it
//!   named no count, the window — it was at least that); where it named a limit below the
//!   window the session assumed, a `model_switch` records the provider's. The next build then
//!   prunes under token pressure, and when pruning cannot make it fit a `compactionDue` effect
//!   asks for a compaction before anything is sent again.
//! - **An answer cut short** — by the output limit (AutoContinue), the provider's filter, or
//!   interrupted mid-way by a dropped connection or an error after some of it arrived
//!   (AutoRecovery): the next build without new input writes a synthetic user message, framed
//!   as a system reminder, asking the model to go on from where it stopped, so the request ends
//!   with a user turn every API takes, thinking on or off. Anthropic's `pause_turn` needs none:
//!   the paused turn goes back as it is (the API's own way to go on).

use crate::answer::{Answer, ContextRefusal, Ending, Recovery};
use crate::conversation::{Item, SyntheticReason};
use crate::update::acp::{ProviderMeta, SessionUpdate};
use crate::update::record::{AnswerStatus, Event, ModelSwitch, RecordBody, UsageAnchor};
use crate::update::write;
use crate::view::{Continued, ContinuedReason};

use super::core::Session;

/// A window learned from a refused request that named no limit is this share smaller than
/// what the request held (1/10).
const LEARN_MARGIN: u64 = 10;

impl Session {
    /// Before an answer's records are written: the records a refusal adds (the learned window
    /// and the refusal's count beside the ledger's), and whether the next build strips the
    /// images.
    pub(super) fn recover(&mut self, answer: &Answer) -> (bool, Vec<RecordBody>) {
        if answer.too_large() {
            self.builds.strip_images_once = true;
            return (true, Vec::new());
        }
        let Some(refusal) = answer.context_refusal() else { return (false, Vec::new()) };
        let mut records = Vec::new();
        let usage = self.current_usage();
        let window = usage.as_ref().map(|u| u.size).filter(|&size| size > 0);
        // What the ledger counted for the refused request: its build's count, else the count now.
        let counted = self.builds.cache.last_used_tokens().or(usage.as_ref().map(|u| u.used)).unwrap_or(0);
        // The model's window: the limit the provider named; else less than the request held,
        // by its count or ours (so each refusal without numbers shrinks it further).
        let learned = refusal.limit.or_else(|| {
            let held = refusal.tokens.unwrap_or(counted);
            (held > 0).then(|| held - held / LEARN_MARGIN)
        });
        let model = answer.model.clone().or_else(|| self.sampling().and_then(|s| s.model));
        if let (Some(limit), Some(model)) = (learned, model.clone()) {
            if window.is_none_or(|w| limit < w) {
                records.push(RecordBody::Event(Event::ModelSwitch(ModelSwitch {
                    provider: answer.provider.as_str().to_owned(),
                    model,
                    context_window: Some(limit),
                })));
                if let Some(sampling) = self.sampling.as_mut() {
                    sampling.context_window = Some(limit);
                }
            }
        }
        // The provider's count beside the ledger's: the count it named; else, when we counted
        // no more than the limit it broke, just over that limit; else ours (nothing learned).
        let tokens = refusal.tokens.unwrap_or_else(|| match refusal.limit {
            Some(limit) if counted <= limit => limit + limit / 50 + 1,
            _ => counted,
        });
        if counted > 0 && tokens > 0 {
            records.push(RecordBody::Event(Event::UsageAnchor(UsageAnchor {
                provider: Some(answer.provider.as_str().to_owned()),
                model: answer.model.clone(),
                input_tokens: tokens,
                counted: Some(counted),
                ..UsageAnchor::default()
            })));
        }
        (false, records)
    }

    /// After an answer's records are written: what the session changed for the next request,
    /// and (for a context-length refusal) the window it now counts with and whether the latest
    /// prompt alone is over it.
    pub(super) fn recovery(&mut self, answer: &Answer, strips_images: bool) -> (Option<Recovery>, Option<ContextRefusal>) {
        if strips_images {
            return (Some(Recovery::StripImages), None);
        }
        let Some(mut refusal) = answer.context_refusal() else { return (None, None) };
        let Some(usage) = self.current_usage() else { return (Some(Recovery::Prune), Some(refusal)) };
        refusal.window = (usage.size > 0).then_some(usage.size);
        if let Some(prompt) = self.prompt_alone(usage.size) {
            refusal.prompt_tokens = Some(prompt);
            return (None, Some(refusal));
        }
        let recovery = match usage.threshold {
            crate::view::Threshold::Compact => Recovery::Compact,
            crate::view::Threshold::Ok | crate::view::Threshold::Prune => Recovery::Prune,
        };
        (Some(recovery), Some(refusal))
    }

    /// The tokens of the latest prompt with the heads (system prompt, tools) — what no pruning
    /// and no compaction leaves out — when they alone do not fit `window`, as the ledger counts
    /// (its refusal's correction applied).
    fn prompt_alone(&mut self, window: u64) -> Option<u64> {
        if window == 0 {
            return None;
        }
        let family = self.family();
        let ratio = self.replayer().state().correction.map_or(1.0, |c| c.ratio());
        let heads = self.builds.cache.last_head_tokens().unwrap_or(0);
        let prompt = self.replayer().items().iter().rev().find_map(|item| match item {
            Item::User(m) if m.synthetic.is_none() => Some(crate::tokens::item_tokens(item, family)),
            _ => None,
        })?;
        let alone = ((prompt + heads) as f64 * ratio).ceil() as u64;
        (alone >= window).then_some(alone)
    }

    /// Right before a build: when the conversation ends with an answer that was cut short and
    /// nothing came after it, the message that asks the model to go on, written to the log.
    pub(super) fn continue_cut_answer(&mut self, ts: &str) -> Option<Continued> {
        let replayer = self.replayer();
        let last = replayer.state().last_answer.clone()?;
        let items = replayer.items();
        let ending = match last.status {
            AnswerStatus::Complete if last.refused => Ending::Refused,
            AnswerStatus::Complete => Ending::of_stop_reason(last.stop_reason.as_deref()),
            AnswerStatus::Partial => Ending::Interrupted,
            AnswerStatus::Failed => Ending::Failed,
        };
        // What the model said last must be this answer's: text or reasoning (which goes back as
        // the reasoning rule gives it, so the request must end with a user turn), or — for an
        // interrupted answer — a call that arrived whole (it goes back with a synthetic result,
        // not run; a cut answer's whole calls are the host's to run).
        let said = match items.last() {
            Some(Item::Assistant(_) | Item::Reasoning(_)) => true,
            Some(Item::ToolCall(_)) => matches!(ending, Ending::Interrupted | Ending::Failed),
            Some(Item::User(_) | Item::ToolResult(_) | Item::Native(_)) | None => false,
        };
        if last.items != items.len() || !said {
            return None;
        }
        let (reason, synthetic, text) = match ending {
            Ending::OutputLimit => (
                ContinuedReason::OutputLimit,
                SyntheticReason::AutoContinue,
                "Your last response was cut off by the output token limit. Continue exactly where it stopped, without repeating \
                 anything or apologising. If you were writing a tool call, make the whole call again; split long output into \
                 smaller pieces."
                    .to_owned(),
            ),
            Ending::Interrupted | Ending::Failed => (
                ContinuedReason::Interrupted,
                SyntheticReason::AutoRecovery,
                format!(
                    "Your last response was interrupted before it finished ({}). Continue exactly where it stopped, without \
                     repeating anything. If you were writing a tool call, make the whole call again.",
                    Self::what_interrupted(&last)
                ),
            ),
            // Done needs nothing; a paused turn goes back as it is; a refusal is not asked to go
            // on (the build refuses until the input changes: `refused_unchanged`).
            Ending::Done | Ending::Paused | Ending::Refused => return None,
        };
        let id = format!("{}-{}", synthetic.as_str(), self.next_seq());
        let text: String = text;
        let meta = ProviderMeta { synthetic: Some(synthetic), ..ProviderMeta::default() };
        let text = crate::framing::wrap(crate::view::REMINDER_TAG, &text);
        let updates: Vec<SessionUpdate> = write::prompt(&text, Vec::new(), &id, &meta);
        let seqs = self.write_updates(updates, ts);
        Some(Continued { reason, answer_seq: last.seq, seq: seqs.first().copied().unwrap_or(0) })
    }

    /// What interrupted an answer, in words for the model: the provider's error (its kind and
    /// message), the connection, or the body stopping early.
    fn what_interrupted(last: &crate::update::replay::LastAnswer) -> String {
        match (&last.error, last.dropped) {
            (Some(error), _) => {
                let message: String = error.message.chars().take(200).collect();
                format!("the provider reported an error: {} — {}", error.kind, message)
            }
            (None, true) => "the connection to the model dropped".to_owned(),
            (None, false) => "the answer stopped arriving before the model finished it".to_owned(),
        }
    }

    /// Why a build now would send the request the provider last refused, unchanged: its last
    /// answer was a refusal (the model's, its filter's, a blocked prompt) and nothing the model
    /// sees came after it, to the same model. `None` when the request differs.
    pub(super) fn refused_unchanged(&mut self, input: &crate::request::BuildInput) -> Option<String> {
        let last = self.replayer().state().last_answer.clone().filter(|l| l.refused && l.status == AnswerStatus::Complete)?;
        let items = self.replayer().items();
        // What the model sees changed since (a message, a result, a rewind, a compaction).
        if items.len() != last.items {
            return None;
        }
        let options = self.build_options(input);
        let same_model = last.model.as_deref().is_none_or(|m| crate::provider::same_model(m, &options.render.model));
        if options.provider.as_str() != last.provider || !same_model {
            return None;
        }
        let what = match (&last.blocked, last.stop_reason.as_deref()) {
            (Some(reason), _) => format!("the prompt was blocked ({reason})"),
            (None, Some(reason)) => format!("the model's answer was refused or filtered (stop reason `{reason}`)"),
            (None, None) => "the model refused".to_owned(),
        };
        Some(format!(
            "{what}, and nothing changed since: the same request would be refused again. Change the input first — a new \
             message, a rewind, or another model — and build then"
        ))
    }
}
