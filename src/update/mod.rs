//! Layer 1: the durable, append-only session log.
//!
//! - [`acp`]: the ACP `SessionUpdate` shapes we interpret (others are kept verbatim);
//! - [`record`]: the record envelope and our own record kinds;
//! - [`log`]: the JSON Lines text form, tolerant of torn tails and bad lines;
//! - [`replay`]: records → conversation items and the client's coalesced view;
//! - [`timeline`]: the points in a log where the agent sent the model a request;
//! - [`write`]: the one writer of conversation updates (session, importers, answer decoders).

pub mod acp;
pub mod log;
pub mod record;
pub mod replay;
pub mod timeline;
pub mod write;

pub use log::{parse_log, write_log, Log};
pub use record::{Event, Header, Record, RecordBody};
pub use replay::{replay, ClientEntry, Replay, ReplayState, Replayer};
pub use timeline::{request_points, RequestPoint};
