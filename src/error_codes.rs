//! The codes the core's errors carry: each declared once, here, and used by name where it is
//! raised (`SessionError::code`, `RequestError::code`, …), so a code is spelled in one place.
//!
//! The crates beside the core declare theirs the same way (`contextview_discovery::error_codes`,
//! `contextview_import::error_codes`, `contextview_js::error_codes`). A test holds every list to
//! the README's Errors table and to the JavaScript `ContextviewErrorCode` union, and fails on a
//! code raised as a literal or declared and never raised. (Diagnostics, which are data, not
//! errors, have their own lists: [`crate::diagnostic::Code`].)

/// Declares error codes: a constant for each, and `ERROR_CODES`, the list of them all.
#[macro_export]
#[doc(hidden)]
macro_rules! declare_error_codes {
    ($($name:ident = $code:literal;)*) => {
        $(pub const $name: &str = $code;)*
        /// Every code declared here.
        pub const ERROR_CODES: &[&str] = &[$($name),*];
    };
}

declare_error_codes! {
    ANSWER_IN_PROGRESS = "answer_in_progress";
    COMMAND_WAITING = "command_waiting";
    COMPACTION_STALE = "compaction_stale";
    DEGENERATE_SUMMARY = "degenerate_summary";
    EMPTY_CONVERSATION = "empty_conversation";
    ENDS_WITH_ASSISTANT = "ends_with_assistant";
    HISTORY_MISMATCH = "history_mismatch";
    HISTORY_NEEDED = "history_needed";
    INPUT_REFUSED = "input_refused";
    INVALID_ARGUMENT = "invalid_argument";
    INVALID_OPTIONS = "invalid_options";
    INVALID_PAYLOAD = "invalid_payload";
    INVALID_PROMPT_INDEX = "invalid_prompt_index";
    INVALID_RECORD = "invalid_record";
    INVALID_SNAPSHOT = "invalid_snapshot";
    INVALID_TEMPLATE = "invalid_template";
    NO_ANSWER_BEGUN = "no_answer_begun";
    NO_COMPACTION_PREPARED = "no_compaction_prepared";
    NO_SUBAGENT = "no_subagent";
    NOT_ASKED = "not_asked";
    NOTHING_TO_COMPACT = "nothing_to_compact";
    QUEUE_NOT_EMPTY = "queue_not_empty";
    RECORDS_UNAVAILABLE = "records_unavailable";
    SEQ_CONFLICT = "seq_conflict";
    SESSION_MISMATCH = "session_mismatch";
    SUBAGENT_CALL = "subagent_call";
    UNKNOWN_MODEL = "unknown_model";
    UNKNOWN_TICKET = "unknown_ticket";
    UNKNOWN_TOOL_CALL = "unknown_tool_call";
}
