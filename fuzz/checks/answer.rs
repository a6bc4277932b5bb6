//! The answer decoders: any bytes, split anywhere, for any API, under any HTTP status and with
//! the connection dropping anywhere. No panic and no hang; the same answer whatever the split; a
//! status that is not 2xx is a failure with that status and nothing else; a call handed out of a
//! cut answer is one the whole answer hands out too (never half-made); the retry decision never
//! waits more than a minute; and what it records, after a prompt, replays and builds for every
//! provider a payload its validator passes.
//!
//! The first three bytes steer: the API and the split (byte 0), the HTTP status and headers
//! (byte 1: below 128 none, as a host that gives no status), where the connection drops (byte 2:
//! below 128 it does not).
use contextview::answer::retry::RetryPolicy;
use contextview::answer::{Answer, Decoder, Head};
use contextview::update::acp::{AcpUpdate, ContentBlock, ProviderMeta, Stream};
use contextview::update::record::{AnswerStatus, Header, Record, RecordBody};
use contextview::update::write;
use contextview::Provider;

use super::common;

const STATUSES: [u16; 16] = [200, 400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504, 529, 201, 200];
const RETRY_AFTER: [&str; 8] = ["", "0", "2", "1.5", "120", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", "-3"];

fn head(control: u8) -> Option<Head> {
    (control >= 128).then(|| {
        let status = STATUSES[usize::from(control & 15)];
        let mut headers = vec![("request-id".to_owned(), "req_fuzz".to_owned())];
        let after = RETRY_AFTER[usize::from((control >> 4) & 7)];
        if !after.is_empty() {
            headers.push(("retry-after".to_owned(), after.to_owned()));
        }
        Head::new(status, headers)
    })
}

fn decode(provider: Provider, head: Option<&Head>, bytes: &[u8], piece: usize, dropped: bool) -> Answer {
    let mut d = match head {
        Some(head) => Decoder::for_response(provider, "fuzz", head.clone()),
        None => Decoder::new(provider, "fuzz"),
    };
    for chunk in bytes.chunks(piece.max(1)) {
        d.push(chunk);
    }
    if dropped {
        d.finish_dropped("TypeError: terminated").0
    } else {
        d.finish().0
    }
}

fn calls(answer: &Answer) -> Vec<String> {
    answer.summary("fuzz").tool_calls.iter().map(|c| format!("{} {} {}", c.id, c.name, c.input)).collect()
}

pub fn check(data: &[u8]) {
    let [control, http, drop, bytes @ ..] = data else { return };
    let provider = Provider::ALL[usize::from(*control) % 4];
    let piece = 1 + usize::from(*control >> 2);
    let head = head(*http);
    let cut = (*drop >= 128).then(|| bytes.len() * usize::from(*drop - 128) / 128);
    let sent = &bytes[..cut.unwrap_or(bytes.len())];

    let whole = decode(provider, head.as_ref(), sent, sent.len(), cut.is_some());
    let split = decode(provider, head.as_ref(), sent, piece, cut.is_some());
    assert_eq!(whole, split, "the split changed the answer");

    match head.as_ref().filter(|h| !h.is_success()) {
        // A status that is not 2xx: the provider's error, whatever the body held.
        Some(head) => {
            assert_eq!(whole.status, AnswerStatus::Failed);
            assert_eq!(whole.failure.as_ref().and_then(|f| f.status), Some(head.status));
            assert!(whole.blocks.is_empty() && whole.usage.is_none(), "an error response holds no answer");
        }
        None => {
            // Nothing half-made: a call of the cut answer is a call of the answer read to its end.
            if cut.is_some() {
                let all = decode(provider, head.as_ref(), bytes, bytes.len(), false);
                let every = calls(&all);
                for call in calls(&whole) {
                    assert!(every.contains(&call), "{call} is not one of {every:?}");
                }
                if whole.status == AnswerStatus::Complete {
                    assert!(whole.dropped.is_none(), "a whole answer is not marked dropped");
                }
            }
        }
    }
    match whole.retry(u32::from(*control & 3), Some(1_445_412_480_000), 7, &RetryPolicy::default()) {
        Some(retry) => {
            assert!(retry.after_ms.is_none_or(|ms| ms <= 60_000), "a wait of {:?} ms", retry.after_ms);
            assert_eq!(retry.after_ms.is_some(), retry.retryable, "a wait is advised with a retry, and only then");
        }
        None => assert_eq!(whole.status, AnswerStatus::Complete),
    }

    let prompt = write::chunk(Stream::User, Some("u1"), ContentBlock::text("go"), &ProviderMeta::default());
    let mut records = vec![Record { seq: 1, ts: String::new(), body: RecordBody::Update(AcpUpdate::Known(prompt)) }];
    for body in whole.records(&whole.message_id("fuzz")) {
        records.push(Record { seq: records.len() as u64 + 1, ts: String::new(), body });
    }
    common::replays_and_builds(&records);
    common::round_trips(&Header::new("fuzz"), &records);
}
