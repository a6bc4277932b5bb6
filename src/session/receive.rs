//! The provider's answer as an input: a whole answer (`providerAnswer`), or a stream received
//! between `beginAnswer` and `endAnswer` with its bytes fed through [`AnswerBytes`] in any
//! chunking. Either way one decoder ([`crate::answer`]) reads it and one writer records it:
//! every block, the usage anchor, how it ended.
//!
//! The response's status comes first: a status that is not 2xx makes the body an error,
//! whatever it holds. Every answer is recorded, a refusal with nothing in it too (its
//! `answer_end` says what the provider said, with the status and the request id), and the reply
//! says what the host does next: retry after how long, or nothing — what the session changed so
//! the next request differs (strip the images, prune, compact) is [`super::recovery`]'s.

use super::protocol::{BeginAnswer, Effect, EndAnswer, ProviderAnswer, Reply, SessionError};
use super::parts::receiving::Receiving;
use super::core::{Input, Session, Settle};
use crate::answer::{Answer, Decoder, Head};
use crate::diagnostic::Diagnostic;
use crate::provider::Provider;
use crate::update::acp::SessionUpdate;

/// Bytes of the streamed answer being received, in any chunking. Output: the updates they
/// completed (text and thought chunks, tool calls once whole), for the client.
pub struct AnswerBytes<'a>(pub &'a [u8]);

impl Input for AnswerBytes<'_> {
    type Output = Result<Vec<SessionUpdate>, SessionError>;
    const SETTLE: Settle = Settle::None;
    fn apply(self, s: &mut Session) -> Self::Output {
        let receiving = s.receiving.as_mut().ok_or(SessionError::NoAnswerBegun)?;
        Ok(receiving.decoder.push(self.0))
    }
}

/// The response's head as the decoder reads it, when the host gave its status.
fn head(status: Option<u16>, headers: Option<std::collections::BTreeMap<String, String>>) -> Option<Head> {
    status.map(|status| Head::new(status, headers.unwrap_or_default()))
}

impl Session {
    /// Feeds bytes of the streamed answer begun with `beginAnswer`.
    pub fn answer_bytes(&mut self, bytes: &[u8]) -> Result<Vec<SessionUpdate>, SessionError> {
        self.input(AnswerBytes(bytes))
    }

    /// The API an answer came from: the one given, else the session's.
    fn answer_provider(&mut self, given: Option<Provider>) -> Result<Provider, SessionError> {
        given
            .or_else(|| self.sampling().map(|s| s.provider))
            .ok_or_else(|| SessionError::InvalidOptions("no provider: name the answer's `provider` or switch the model first".into()))
    }

    fn decoder(provider: Provider, fallback: &str, head: Option<Head>) -> Decoder {
        match head {
            Some(head) => Decoder::for_response(provider, fallback, head),
            None => Decoder::new(provider, fallback),
        }
    }

    /// Reads a provider's answer without recording anything: what it says and how it ended,
    /// with the retry decision — for a request whose answer is not the conversation's (the
    /// summary request of a compaction, whose text `applyCompaction` takes).
    pub fn read_answer(&mut self, input: &ProviderAnswer, now: Option<&str>) -> Result<crate::answer::AnswerSummary, SessionError> {
        let provider = self.answer_provider(input.provider)?;
        let mut decoder = Self::decoder(provider, "read", head(input.status, input.headers.clone()));
        decoder.push(input.body.as_bytes());
        let (mut answer, _, _) = decoder.finish();
        if answer.model.is_none() {
            answer.model = input.model.clone();
        }
        let mut summary = answer.summary("read");
        let now_ms = now.and_then(crate::time::epoch_seconds).map(|s| s.saturating_mul(1000));
        summary.retry = answer.retry(input.attempt, now_ms, self.retry_salt(input.attempt), &crate::answer::retry::RetryPolicy::default());
        summary.context = answer.context_refusal();
        Ok(summary)
    }

    pub(super) fn provider_answer(&mut self, input: ProviderAnswer, ts: &str) -> Result<Reply, SessionError> {
        let provider = self.answer_provider(input.provider)?;
        let fallback = format!("assistant-{}", self.next_seq());
        let mut decoder = Self::decoder(provider, &fallback, head(input.status, input.headers));
        let mut updates = decoder.push(input.body.as_bytes());
        let (answer, closing, diagnostics) = decoder.finish();
        updates.extend(closing);
        Ok(self.record_answer(answer, input.model, input.attempt, diagnostics, updates, &fallback, ts))
    }

    pub(super) fn begin_answer(&mut self, begin: BeginAnswer) -> Result<Reply, SessionError> {
        let provider = self.answer_provider(begin.provider)?;
        let fallback_id = format!("assistant-{}", self.next_seq());
        let decoder = Self::decoder(provider, &fallback_id, head(begin.status, begin.headers));
        self.receiving = Some(Box::new(Receiving { decoder, model: begin.model, fallback_id, attempt: begin.attempt }));
        Ok(Reply::Unchanged)
    }

    pub(super) fn end_answer(&mut self, end: EndAnswer, ts: &str) -> Result<Reply, SessionError> {
        let receiving = self.receiving.take().ok_or(SessionError::NoAnswerBegun)?;
        if end.discard {
            return Ok(Reply::Unchanged);
        }
        let Receiving { decoder, model, fallback_id, attempt } = *receiving;
        let (answer, closing, diagnostics) = match &end.dropped {
            Some(reason) => decoder.finish_dropped(reason),
            None => decoder.finish(),
        };
        Ok(self.record_answer(answer, model, attempt, diagnostics, closing, &fallback_id, ts))
    }

    /// Writes an answer's records and says what to do next. An answer that names no model
    /// belongs to the model the host named, else to the session's.
    #[allow(clippy::too_many_arguments)]
    fn record_answer(
        &mut self,
        mut answer: Answer,
        model: Option<String>,
        attempt: u32,
        diagnostics: Vec<Diagnostic>,
        updates: Vec<SessionUpdate>,
        fallback: &str,
        ts: &str,
    ) -> Reply {
        if answer.model.is_none() {
            let session_model = self.sampling().filter(|s| s.provider == answer.provider).and_then(|s| s.model);
            answer.model = model.or(session_model);
            if let Some(usage) = answer.usage.as_mut() {
                usage.model = answer.model.clone();
            }
        }
        let message_id = answer.message_id(fallback);
        // What the session changes so the next request is not refused the same way: its own
        // records (a context-length refusal's count as the anchor) go before the answer's end.
        let (strips_images, recorded) = self.recover(&answer);
        let mut seqs = Vec::new();
        let mut records = answer.records(&message_id);
        let end = records.pop();
        for body in records.into_iter().chain(recorded).chain(end) {
            seqs.push(self.write(body, ts));
        }
        let (recovery, context) = self.recovery(&answer, strips_images);
        let mut summary = answer.summary(&message_id);
        let now_ms = crate::time::epoch_seconds(ts).map(|s| s.saturating_mul(1000));
        summary.retry = answer.retry(attempt, now_ms, self.retry_salt(attempt), &crate::answer::retry::RetryPolicy::default());
        summary.recovery = recovery;
        if context.is_some() {
            summary.context = context;
        }
        // Sending again may succeed: the wait before it leaves as an effect.
        if let Some(retry) = summary.retry.as_ref().filter(|r| r.retryable) {
            let wait = Effect::RetryAfter { after_ms: retry.after_ms.unwrap_or(0), attempt: attempt.saturating_add(1), reason: retry.reason.clone() };
            self.door.later.push(wait);
        }
        Reply::Answered { seqs, answer: Box::new(summary), diagnostics, updates }
    }

    /// What spreads this session's retries from another's: its id and how far its log is.
    fn retry_salt(&self, attempt: u32) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = rustc_hash::FxHasher::default();
        self.log.header.as_ref().map(|h| h.session_id.as_str()).hash(&mut hasher);
        self.next_seq().hash(&mut hasher);
        attempt.hash(&mut hasher);
        hasher.finish()
    }
}
