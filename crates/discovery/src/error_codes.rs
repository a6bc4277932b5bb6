//! The codes the discovery engine's errors carry (`Outcome::Error`), each declared once (see
//! `contextview::error_codes`).

contextview::declare_error_codes! {
    DISCOVERY_STALLED = "discovery_stalled";
    NO_JOB = "no_job";
    NOT_DISCOVERED = "not_discovered";
    UNKNOWN_SKILL = "unknown_skill";
}
