//! The diagnostics of reading and replaying a log: each code, its severity and when it is raised.
//!
//! Every diagnostic this module raises is made from one of these; `crate::diagnostic_codes()` lists
//! them all, and the README's Diagnostics table documents each.

declare_codes! {
    LOG_TORN_TAIL = "log.torn_tail", Warning, "the last line is incomplete (a write was cut short); it is dropped";
    LOG_MALFORMED_LINE = "log.malformed_line", Error, "a line is not JSON; it is skipped";
    LOG_NEWER_VERSION = "log.newer_version", Warning, "the header names a newer log format; records are read as this version knows them";
    LOG_BAD_HEADER = "log.bad_header", Error, "the header line is not a valid header";
    LOG_MISSING_HEADER = "log.missing_header", Warning, "the log has no header line; its records are read anyway";
    LOG_DUPLICATE_RECORD = "log.duplicate_record", Info, "a seq appears twice with the same record; the copy is skipped";
    LOG_SEQ_OUT_OF_ORDER = "log.seq_out_of_order", Warning, "a seq does not follow the one before it; records are kept in file order";
    LOG_UNKNOWN_RECORD = "log.unknown_record", Info, "a record of a kind this version does not know; kept in the log, left out of the view";
    LOG_BAD_ENVELOPE = "log.bad_envelope", Error, "a JSON line that is not a record: no numeric `seq` or no string `ts`";
    LOG_BAD_RECORD = "log.bad_record", Error, "a record whose body does not fit its kind";
    REPLAY_UNSUPPORTED_CONTENT = "replay.unsupported_content", Warning, "content with no model form (audio, a resource link, …); kept in the log, left out of the view";
    REPLAY_EMPTY_IMAGE = "replay.empty_image", Warning, "an image block with neither data nor a URI; left out";
    REPLAY_REWIND_OUT_OF_RANGE = "replay.rewind_out_of_range", Warning, "a rewind names a prompt the log does not have; it rewinds nothing";
    REPLAY_ORPHAN_UPDATE = "replay.orphan_update", Warning, "a tool call update for a call the log never started";
}
