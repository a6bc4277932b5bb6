//! The diagnostics of receiving a provider's answer: each code, its severity and when it is raised.
//!
//! Every diagnostic this module raises is made from one of these; `crate::diagnostic_codes()` lists
//! them all, and the README's Diagnostics table documents each.

declare_codes! {
    ANSWER_BAD_EVENT = "answer.bad_event", Warning, "a stream event whose data is not JSON; skipped";
    ANSWER_BAD_JSON = "answer.bad_json", Warning, "a JSON answer holding text that is not JSON; skipped";
    ANSWER_FRAME_TOO_LONG = "answer.frame_too_long", Warning, "an event longer than the framing limit; dropped";
    ANSWER_NOT_UTF8 = "answer.not_utf8", Warning, "bytes that are not UTF-8; replaced";
    ANSWER_CUT_SHORT = "answer.cut_short", Warning, "the answer ended inside an event or a document";
    ANSWER_TRAILING_BYTES = "answer.trailing_bytes", Warning, "bytes after the end of a JSON array answer; ignored";
    ANSWER_EMPTY = "answer.empty", Warning, "an answer with no bytes";
    ANSWER_PARTIAL = "answer.partial", Warning, "the answer ended before the provider finished it; what arrived is recorded, marked partial";
    ANSWER_EXTRA_CHOICES = "answer.extra_choices", Info, "more than one choice; the first is recorded";
    ANSWER_UNFINISHED_CALL = "answer.unfinished_call", Warning, "a tool call whose arguments never arrived whole; not recorded as a call (kept in the answer's end record)";
}
