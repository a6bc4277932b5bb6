//! Layer 1: the durable, append-only session log.
//!
//! - [`acp`]: the ACP `SessionUpdate` shapes we interpret (others are kept verbatim);
//! - [`record`]: the record envelope and our own record kinds;
//! - [`checkpoint`]: the replay's state kept in the log, to open from instead of replaying;
//! - [`log`]: the JSON Lines text form, tolerant of torn tails and bad lines;
//! - [`replay`]: records → conversation items (with `parts`: ACP content as model parts);
//! - [`client`]: records → the client's coalesced view;
//! - `rewind`: messages and real prompts in a record list, and the list after rewinds;
//! - [`timeline`]: the points in a log where the agent sent the model a request;
//! - [`write`]: the one writer of conversation updates (session, importers, answer decoders).

pub mod codes;
pub mod acp;
pub mod checkpoint;
pub mod client;
pub mod log;
mod parts;
pub mod record;
pub mod replay;
pub mod resume;
mod rewind;
pub mod timeline;
pub mod write;

pub use log::{parse_log, write_log, Log};
pub use checkpoint::Checkpoint;
pub use record::{Event, Header, Record, RecordBody};
pub use replay::{replay, ClientEntry, Replay, ReplayState, Replayer};
pub use timeline::{last_turn_start, request_points, RequestPoint};
