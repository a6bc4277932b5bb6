//! The pi importer: any text imports (bad lines become diagnostics), with a fidelity
//! report, into a log that replays, builds valid payloads and round-trips as text.
use super::common;

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let imported = contextview_import::import(Some(contextview_import::Format::Pi), &text).expect("an explicit format always imports");
    common::report_adds_up(&text, &imported);
    common::replays_and_builds(&imported.records);
    common::round_trips(&imported.header, &imported.records);
}
