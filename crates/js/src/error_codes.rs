//! The codes only the JavaScript facade raises, each declared once (see
//! `contextview::error_codes`): a command that is not one of the session's, and a result that
//! could not cross into JavaScript.

contextview::declare_error_codes! {
    INTERNAL = "internal";
    INVALID_COMMAND = "invalid_command";
}
