//! The code an import's error carries, declared once (see `contextview::error_codes`).

contextview::declare_error_codes! {
    UNKNOWN_FORMAT = "unknown_format";
}
