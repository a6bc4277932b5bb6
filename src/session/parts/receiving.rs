//! A streamed answer being received, as state (`session/receive.rs` feeds and ends it).

use crate::answer::Decoder;

/// A streamed answer being received.
#[derive(Debug, Clone)]
pub(in crate::session) struct Receiving {
    pub decoder: Decoder,
    pub model: Option<String>,
    pub fallback_id: String,
    pub attempt: u32,
}
