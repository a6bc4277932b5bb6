//! What builds keep between them: the view's cache, the provider's cache as the session's
//! requests filled it (the forecast), where pruning's boundaries stood, what was written since
//! the last build that explains a rewrite of its request, and whether the next strips images.

use crate::update::{Event, Record, RecordBody};
use crate::view;

/// What builds keep between them.
#[derive(Debug, Clone, Default)]
pub(in crate::session) struct Builds {
    /// Work kept between builds (token estimates, the last payload and the body it was sent as,
    /// with each entry's JSON in place).
    pub cache: view::ViewCache,
    /// The provider's cache as this session's requests have filled it (the reports' forecast).
    pub forecaster: crate::cost::Forecaster,
    /// Where the pruning boundaries (turn, step) stood at the last build, to tell what moving
    /// them cost.
    pub last_boundary: Option<(u32, u32)>,
    /// What was written since the last build that explains a rewrite of its request.
    pub since_build: SinceBuild,
    /// The next build strips every image (set by a provider error about size or images).
    pub strip_images_once: bool,
}

/// What was written since the last build that explains a rewrite of its request (the report's
/// `prefix.cause`): kept as the records come, so records let go before the build still count.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::session) struct SinceBuild {
    pub compaction: bool,
    pub rewind: bool,
    pub heads: bool,
}

impl SinceBuild {
    pub fn of(records: &[Record]) -> SinceBuild {
        let mut since = SinceBuild::default();
        for record in records {
            since.saw(record);
        }
        since
    }

    pub fn saw(&mut self, record: &Record) {
        match &record.body {
            RecordBody::Event(Event::CompactionCheckpoint(_)) => self.compaction = true,
            RecordBody::Event(Event::Rewind(_)) => self.rewind = true,
            RecordBody::Event(Event::PromptHeadSnapshot(_)) => self.heads = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SinceBuild;
    use crate::update::parse_log;

    #[test]
    fn what_explains_a_rewrite_is_kept_from_the_records_written_since_the_last_build() {
        let line = |seq: u64, event: &str| format!(r#"{{"seq":{seq},"ts":"2026-12-07T00:00:00Z","event":{event}}}"#);
        let log = [
            line(1, r#"{"kind":"edited_paths","paths":["/a"]}"#),
            line(2, r#"{"kind":"rewind","promptIndex":0}"#),
        ]
        .join("\n");
        let since = SinceBuild::of(&parse_log(&log).records);
        assert_eq!((since.compaction, since.rewind, since.heads), (false, true, false));
        assert_eq!((SinceBuild::of(&[]).compaction, SinceBuild::of(&[]).rewind), (false, false));
    }
}
