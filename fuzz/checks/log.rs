//! The log reader and replay: any text is read (bad lines become diagnostics), replayed, and
//! built, under default options and a small window; what it reads writes back as the same
//! records; and a session fed those records one by one builds what a fresh build does.
use super::common;

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let log = contextview::update::parse_log(&text);
    common::replays_and_builds(&log.records);
    if let Some(header) = &log.header {
        common::round_trips(header, &log.records);
        common::live_equals_fresh(header, &log.records);
    }
}
