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
//! - [`session`]: the state machine a host drives — commands in, effects out.
//! - [`workspace`]: the rules and skills a prompt gets, as data (the `contextview-discovery`
//!   crate finds them; `contextview-import` reads other agents' sessions).
//!
//! The core knows no JavaScript: the npm package's facade is in the `contextview-js`,
//! `contextview-first` and `contextview-lazy` crates.
//!
//! A request from a log, in one call:
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
//!
//! The whole loop, minus the network: a session builds the request, the host sends it and hands
//! back the provider's answer, and the session records it — every record it wrote leaves as a
//! `persist` effect for the host's storage.
//!
//! ```
//! use contextview::session::{Command, Effect, Reply, Session};
//! use contextview::update::Header;
//! use serde_json::json;
//!
//! let mut session = Session::create(Header::new("s1"));
//! let mut run = |command: serde_json::Value| {
//!     let command: Command = serde_json::from_value(command).unwrap();
//!     session.dispatch(command, Some("2026-01-01T00:00:00Z".into())).unwrap()
//! };
//! run(json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 200000}));
//! run(json!({"type": "userMessage", "text": "What is 2 + 2?"}));
//! let built = run(json!({"type": "buildRequest", "options": {"maxTokens": 1024}}));
//! let Some(Reply::Built { body, .. }) = built.reply else { panic!("{:?}", built.error) };
//! assert!(body.contains("What is 2 + 2?"));
//!
//! // The host sends `body` to the Messages API; this is what came back.
//! let answer = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
//!   "content":[{"type":"text","text":"4"}],"stop_reason":"end_turn",
//!   "usage":{"input_tokens":20,"output_tokens":1}}"#;
//! let answered = run(json!({"type": "providerAnswer", "body": answer, "status": 200}));
//! let Some(Reply::Answered { answer, .. }) = answered.reply else { panic!("{:?}", answered.error) };
//! assert_eq!(answer.text, "4");
//! assert_eq!(answer.stop_reason.as_deref(), Some("end_turn"));
//! let stored: Vec<&String> = answered.effects.iter().flat_map(|e| match e {
//!     Effect::Persist { lines, .. } => lines.iter().collect(),
//!     _ => Vec::new(),
//! }).collect();
//! assert!(stored.iter().any(|line| line.contains(r#""text":"4""#)), "{stored:?}");
//! ```

// First, so that `declare_codes!` (defined there) is in scope in every module below.
#[macro_use]
pub mod diagnostic;
pub mod answer;
pub mod conversation;
pub mod cost;
pub mod error_codes;
pub mod framing;
pub mod prompt;
pub mod provider;
pub mod request;
pub mod session;
pub mod simulate;
mod tagged;
mod value_read;
pub mod time;
pub mod shape;
pub mod tokens;
pub mod tool_def;
pub mod update;
pub mod view;
pub mod workspace;


pub use conversation::{Item, Part};
pub use diagnostic::{Diagnostic, Severity};
pub use provider::{Payload, Provider};
pub use view::{build, BuildError, BuildOptions, Built, Report};

/// Every diagnostic code the crate raises, by module (update, view, session, answer, import,
/// discovery): each module lists its own in its `codes` module.
pub fn diagnostic_codes() -> impl Iterator<Item = &'static diagnostic::Code> {
    [update::codes::CODES, view::codes::CODES, session::codes::CODES, answer::codes::CODES]
        .into_iter()
        .flatten()
        .copied()
}

/// The README's Rust example, compiled and run by `cargo test --doc` (its `ts` examples run in
/// tests/js/readme.test.mjs).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
