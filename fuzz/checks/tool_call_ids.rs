//! Tool-call id normalisation: whatever the ids, each provider gets ids it accepts, the same
//! original always maps to the same id, two originals never share one, and the map leads back.
use std::collections::HashMap;

use contextview::provider::ids::{IdMapper, ANTHROPIC, LENIENT};

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let originals: Vec<&str> = text.split('\u{1}').collect();
    for rule in [ANTHROPIC, LENIENT] {
        let mut mapper = IdMapper::default();
        let mut seen: HashMap<String, String> = HashMap::new();
        for original in &originals {
            let id = mapper.map(original, rule);
            assert!(rule.accepts(&id), "{id:?} for {original:?}");
            assert_eq!(mapper.map(original, rule), id, "stable");
            if let Some(other) = seen.insert(id.clone(), (*original).to_owned()) {
                assert_eq!(&other, original, "{other:?} and {original:?} share {id:?}");
            }
        }
        let back = mapper.into_changed();
        for (id, original) in &seen {
            if id != original {
                assert_eq!(back.get(id), Some(original));
            }
        }
    }
}
