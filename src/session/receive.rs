//! The provider's answer as an input: a whole answer (`providerAnswer`), or a stream received
//! between `beginAnswer` and `endAnswer` with its bytes fed through [`AnswerBytes`] in any
//! chunking. Either way one decoder ([`crate::answer`]) reads it and one writer records it:
//! every block, the usage anchor, how it ended. An answer that failed with nothing in it
//! writes nothing; one that failed after content keeps the content, marked failed.

use super::protocol::{BeginAnswer, EndAnswer, ProviderAnswer, Reply, SessionError};
use super::{Input, Session, Settle};
use crate::answer::{Answer, Decoder};
use crate::diagnostic::Diagnostic;
use crate::provider::Provider;
use crate::update::acp::SessionUpdate;

/// A streamed answer being received.
#[derive(Debug, Clone)]
pub(super) struct Receiving {
    decoder: Decoder,
    model: Option<String>,
    fallback_id: String,
}

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

    pub(super) fn provider_answer(&mut self, input: ProviderAnswer, ts: &str) -> Result<Reply, SessionError> {
        let provider = self.answer_provider(input.provider)?;
        let fallback = format!("assistant-{}", self.next_seq());
        let mut decoder = Decoder::new(provider, &fallback);
        let mut updates = decoder.push(input.body.as_bytes());
        let (answer, closing, diagnostics) = decoder.finish();
        updates.extend(closing);
        Ok(self.record_answer(answer, input.model, diagnostics, updates, &fallback, ts))
    }

    pub(super) fn begin_answer(&mut self, begin: BeginAnswer) -> Result<Reply, SessionError> {
        let provider = self.answer_provider(begin.provider)?;
        let fallback_id = format!("assistant-{}", self.next_seq());
        let decoder = Decoder::new(provider, &fallback_id);
        self.receiving = Some(Box::new(Receiving { decoder, model: begin.model, fallback_id }));
        Ok(Reply::Unchanged)
    }

    pub(super) fn end_answer(&mut self, end: EndAnswer, ts: &str) -> Result<Reply, SessionError> {
        let receiving = self.receiving.take().ok_or(SessionError::NoAnswerBegun)?;
        if end.discard {
            return Ok(Reply::Unchanged);
        }
        let Receiving { decoder, model, fallback_id } = *receiving;
        let (answer, closing, diagnostics) = decoder.finish();
        Ok(self.record_answer(answer, model, diagnostics, closing, &fallback_id, ts))
    }

    /// Writes an answer's records. An answer that names no model belongs to the model the host
    /// named, else to the session's.
    fn record_answer(
        &mut self,
        mut answer: Answer,
        model: Option<String>,
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
        let seqs = if answer.is_empty() && answer.failure.is_some() {
            Vec::new()
        } else {
            answer.records(&message_id).into_iter().map(|body| self.write(body, ts)).collect()
        };
        Reply::Answered { seqs, answer: Box::new(answer.summary(&message_id)), diagnostics, updates }
    }
}
