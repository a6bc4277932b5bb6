//! The session's compactions, as state (`session/compaction/` prepares and applies them).

/// The session's compactions: the one prepared and not applied yet, whether one was asked for
/// (it is asked for once), and the `seq` of the last rewind or compaction (what makes a
/// prepared one stale).
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::session) struct Compactions {
    pub prepared: Option<crate::session::protocol::PreparedCut>,
    pub asked: bool,
    pub last_rewrite: u64,
}
