//! contextview builds the **model view** of a coding-agent session: the exact request a model
//! provider receives, assembled on demand from a lossless session log.
//!
//! Context is not chat history; it is a view built on demand. The durable record stays
//! lossless; the model's view may be lossy.
//!
//! ```text
//!  layer 1: durable updates            layer 2: conversation items        layer 3: provider payload
//!  (ACP session/update + our events)   (model semantics only)             (one API's wire format)
//!
//!  update::log ──parse──▶ update::replay ──items──▶ view::repair ──▶ provider::{anthropic,
//!   JSON Lines,             chunks merged,            dangling calls,      openai_chat,
//!   torn tail ok            tool updates folded       orphans, dupes       openai_responses,
//!                                                                          gemini} + validators
//! ```
//!
//! - [`conversation`]: the items every stage works on.
//! - [`update`]: the log (records, JSON Lines, replay).
//! - [`view`]: the request pipeline (repair, prune, images, reminders, ledger) and its report.
//! - [`tokens`]: the token estimator the ledger and the report use.
//! - [`provider`]: renderers and validators, one module per API.
//! - [`answer`]: the way back: a provider's answer (whole or streamed) decoded into the log.
//! - [`request`]: the one-call API the JS facade and the CLI use.
//! - `js` (wasm only): the JavaScript facade, the only module that knows about JS.
//!
//! ```
//! use contextview::request::{build_request, BuildInput};
//! use contextview::provider::Provider;
//!
//! let log = concat!(
//!     r#"{"format":"contextview.session-log","version":1,"sessionId":"s1"}"#, "\n",
//!     r#"{"seq":1,"ts":"2026-01-01T00:00:00Z","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}"#, "\n",
//! );
//! let input = BuildInput {
//!     system: Some("Be brief.".into()),
//!     log: Some(log.into()),
//!     ..BuildInput::new(Provider::Anthropic)
//! };
//! let out = build_request(&input).unwrap();
//! assert!(out.built.payload.to_json().contains(r#""role":"user""#));
//! ```

pub mod answer;
pub mod conversation;
pub mod cost;
pub mod diagnostic;
pub mod discovery;
pub mod framing;
pub mod import;
pub mod prompt;
pub mod provider;
pub mod request;
pub mod session;
pub mod simulate;
mod tagged;
mod value_read;
pub mod time;
pub mod tokens;
pub mod tool_def;
pub mod update;
pub mod view;

#[cfg(target_arch = "wasm32")]
mod js;

pub use conversation::{Item, Part};
pub use diagnostic::{Diagnostic, Severity};
pub use provider::{Payload, Provider};
pub use view::{build, BuildError, BuildOptions, Built, Report};

/// Every diagnostic code the crate raises, by module (update, view, session, answer, import,
/// discovery): each module lists its own in its `codes` module.
pub fn diagnostic_codes() -> impl Iterator<Item = &'static diagnostic::Code> {
    [update::codes::CODES, view::codes::CODES, session::codes::CODES, answer::codes::CODES, import::codes::CODES, discovery::codes::CODES]
        .into_iter()
        .flatten()
        .copied()
}

/// The README's Rust example, compiled and run by `cargo test --doc` (its `ts` examples run in
/// tests/js/readme.test.mjs).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
