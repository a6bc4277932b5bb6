//! What every reader's fuzz target checks of what the reader accepted: it replays, and builds
//! for every provider a payload that passes the provider's validator (a build may refuse with
//! a typed error, never with a rule its own renderer broke), and it survives the text form.

use contextview::conversation::Item;
use contextview::update::{parse_log, replay, write_log, Header, Record};
use contextview::view::{build, BuildError, BuildOptions};
use contextview::Provider;

pub fn builds_valid_payloads(items: &[Item]) {
    for provider in Provider::ALL {
        let model = contextview::request::default_model(provider);
        match build(items, &BuildOptions::new(provider, model)) {
            Ok(built) => assert!(built.payload.validate(&Default::default()).is_empty()),
            Err(BuildError::EmptyConversation { .. } | BuildError::EndsWithAssistant { .. }) => {}
            Err(e @ BuildError::InvalidPayload { .. }) => panic!("{provider}: {e:?}"),
        }
    }
}

/// Records written as a log read back as the same records.
pub fn round_trips(header: &Header, records: &[Record]) {
    let text = write_log(header, records);
    let again = parse_log(&text);
    assert_eq!(again.records.len(), records.len(), "{:?}", again.diagnostics);
    for (a, b) in again.records.iter().zip(records) {
        assert_eq!(a, b);
    }
}

pub fn replays_and_builds(records: &[Record]) {
    let replayed = replay(records);
    builds_valid_payloads(&replayed.items);
}
