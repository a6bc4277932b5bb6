//! Letting go, as state (`session/release.rs` and `session/history.rs` let go and read back).

/// Letting go: whether records storage confirmed leave memory (the host asked for it:
/// `Session::set_release_stored`), and the records asked of the host to read back results
/// let go (`Session::needed_records`).
#[derive(Debug, Clone, Default)]
pub(in crate::session) struct Release {
    pub stored: bool,
    pub needed: Vec<u64>,
}
