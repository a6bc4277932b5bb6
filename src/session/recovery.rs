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

use crate::answer::{Answer, Ending, Recovery};
use crate::conversation::{Item, SyntheticReason};
use crate::update::acp::{ProviderMeta, SessionUpdate};
use crate::update::record::{AnswerStatus, Event, ModelSwitch, RecordBody, UsageAnchor};
use crate::update::write;
use crate::view::{Continued, ContinuedReason};

use super::Session;

impl Session {
    /// Before an answer's records are written: the records a refusal adds (the anchor of a
    /// context-length refusal, and the provider's window when it is smaller), and whether the
    /// next build strips the images.
    pub(super) fn recover(&mut self, answer: &Answer) -> (bool, Vec<RecordBody>) {
        if answer.too_large() {
            self.strip_images_once = true;
            return (true, Vec::new());
        }
        let Some(refusal) = answer.context_refusal() else { return (false, Vec::new()) };
        let mut records = Vec::new();
        let window = self.current_usage().map(|u| u.size).filter(|&size| size > 0);
        // The provider's limit below the window this session assumed: its window is the truth.
        let model = answer.model.clone().or_else(|| self.sampling().and_then(|s| s.model));
        if let (Some(limit), Some(model)) = (refusal.limit, model.clone()) {
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
        // The count it named, else at least the window it broke.
        if let Some(tokens) = refusal.tokens.or(refusal.limit).or(window) {
            records.push(RecordBody::Event(Event::UsageAnchor(UsageAnchor {
                provider: Some(answer.provider.as_str().to_owned()),
                model: answer.model.clone(),
                input_tokens: tokens,
                ..UsageAnchor::default()
            })));
        }
        (false, records)
    }

    /// After an answer's records are written: what the session changed for the next request.
    pub(super) fn recovery(&mut self, answer: &Answer, strips_images: bool) -> Option<Recovery> {
        if strips_images {
            return Some(Recovery::StripImages);
        }
        answer.context_refusal()?;
        let usage = self.current_usage()?;
        Some(match usage.threshold {
            crate::view::Threshold::Compact => Recovery::Compact,
            crate::view::Threshold::Ok | crate::view::Threshold::Prune => Recovery::Prune,
        })
    }

    /// Right before a build: when the conversation ends with an answer that was cut short and
    /// nothing came after it, the message that asks the model to go on, written to the log.
    pub(super) fn continue_cut_answer(&mut self, ts: &str) -> Option<Continued> {
        let replayer = self.replayer();
        let last = replayer.state().last_answer.clone()?;
        let items = replayer.items();
        let ending = match last.status {
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
            Ending::Refused => (
                ContinuedReason::Refused,
                SyntheticReason::AutoContinue,
                format!(
                    "Your last response was stopped before it finished ({}). Continue with the task if you can; if you cannot, \
                     say briefly why.",
                    last.stop_reason.as_deref().unwrap_or("refused")
                ),
            ),
            Ending::Interrupted | Ending::Failed => (
                ContinuedReason::Interrupted,
                SyntheticReason::AutoRecovery,
                "Your last response was interrupted before it finished (the connection to the model failed). Continue \
                 exactly where it stopped, without repeating anything. If you were writing a tool call, make the whole call \
                 again."
                    .to_owned(),
            ),
            // Done needs nothing; a paused turn goes back as it is.
            Ending::Done | Ending::Paused => return None,
        };
        let id = format!("{}-{}", synthetic.as_str(), self.next_seq());
        let meta = ProviderMeta { synthetic: Some(synthetic), ..ProviderMeta::default() };
        let text = crate::framing::wrap(crate::view::REMINDER_TAG, &text);
        let updates: Vec<SessionUpdate> = write::prompt(&text, Vec::new(), &id, &meta);
        let seqs = self.write_updates(updates, ts);
        Some(Continued { reason, answer_seq: last.seq, seq: seqs.first().copied().unwrap_or(0) })
    }
}
