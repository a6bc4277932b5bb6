//! The answer decoders: any bytes, split anywhere, for any API. No panic and no hang; the same
//! answer whatever the split; and what it accepts, recorded after a prompt, replays and builds
//! for every provider a payload its validator passes.
#![no_main]

use contextview::answer::Decoder;
use contextview::update::record::{Header, Record, RecordBody};
use contextview::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, Stream};
use contextview::update::write;
use contextview::Provider;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&control, bytes)) = data.split_first() else { return };
    let provider = Provider::ALL[usize::from(control) % 4];
    let piece = 1 + usize::from(control >> 2);
    let whole = {
        let mut d = Decoder::new(provider, "fuzz");
        d.push(bytes);
        d.finish().0
    };
    let mut d = Decoder::new(provider, "fuzz");
    for chunk in bytes.chunks(piece) {
        d.push(chunk);
    }
    let split = d.finish().0;
    assert_eq!(whole, split, "the split changed the answer");

    let prompt = write::chunk(Stream::User, Some("u1"), ContentBlock::text("go"), &ProviderMeta::default());
    let mut records = vec![Record { seq: 1, ts: String::new(), body: RecordBody::Update(AcpUpdate::Known(prompt)) }];
    for body in whole.records(&whole.message_id("fuzz")) {
        records.push(Record { seq: records.len() as u64 + 1, ts: String::new(), body });
    }
    common::replays_and_builds(&records);
    common::round_trips(&Header::new("fuzz"), &records);
});
