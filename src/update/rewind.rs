//! Messages and prompts in a record list, and rewinds. A message is a run of chunks of one stream
//! with one `messageId` (chunks without ids continue each other only when adjacent); a real
//! prompt is a user message no harness wrote. A `rewind` record cuts the effective list back to
//! before the chosen real prompt, counted in the list as it stands at that moment (so rewinding
//! across a compaction is exact).

use super::acp::{AcpUpdate, ContentBlock, ContentChunk, ProviderMeta, Stream};
use super::record::{Event, Record, RecordBody};
use crate::diagnostic::Diagnostic;
use crate::update::codes;

pub(super) fn chunk_of(record: &Record) -> Option<(Stream, &ContentChunk)> {
    match &record.body {
        RecordBody::Update(AcpUpdate::Known(update)) => update.chunk(),
        RecordBody::Update(AcpUpdate::Other(_)) | RecordBody::Event(_) | RecordBody::Unknown(_) => None,
    }
}

/// Does `record` continue the message `prev` was part of? Same stream, same `messageId`
/// (two chunks without ids continue each other only when adjacent).
pub(super) fn continues(prev: Option<&Record>, record: &Record) -> bool {
    continues_key(prev.and_then(chunk_key).as_ref(), record)
}

/// What continuation needs of the previous record: its chunk stream and message id.
pub(super) type ChunkKey = (Stream, Option<String>);

pub(super) fn chunk_key(record: &Record) -> Option<ChunkKey> {
    chunk_of(record).map(|(stream, chunk)| (stream, chunk.message_id.clone()))
}

pub(super) fn continues_key(prev: Option<&ChunkKey>, record: &Record) -> bool {
    match (prev, chunk_of(record)) {
        (Some((ps, pid)), Some((s, c))) => *ps == s && *pid == c.message_id,
        _ => false,
    }
}

/// True when `record` starts a new real (non-synthetic) user prompt after `prev`.
pub(crate) fn is_real_prompt_start(prev: Option<&Record>, record: &Record) -> bool {
    match chunk_of(record) {
        Some((Stream::User, chunk)) => ProviderMeta::from_meta(chunk.meta.as_ref()).synthetic.is_none() && !continues(prev, record),
        _ => false,
    }
}

/// The text of every real prompt in the effective history (rewinds applied; compactions do not
/// hide them), in order: what a rewind's prompt index counts.
pub fn prompt_texts(records: &[Record]) -> Vec<String> {
    let mut diagnostics = Vec::new();
    let effective = apply_rewinds(records, &mut diagnostics);
    let mut prompts: Vec<String> = Vec::new();
    let mut in_prompt = false;
    let mut prev: Option<&Record> = None;
    for record in effective {
        if is_real_prompt_start(prev, record) {
            prompts.push(String::new());
            in_prompt = true;
        } else if !continues(prev, record) {
            in_prompt = false;
        }
        if let (true, Some((Stream::User, chunk)), Some(last)) = (in_prompt, chunk_of(record), prompts.last_mut()) {
            if let ContentBlock::Text { text, .. } = &chunk.content {
                last.push_str(text);
            }
        }
        prev = Some(record);
    }
    prompts
}

pub(super) fn apply_rewinds<'a>(records: &'a [Record], diagnostics: &mut Vec<Diagnostic>) -> Vec<&'a Record> {
    let mut effective: Vec<&Record> = Vec::with_capacity(records.len());
    let mut prompt_starts: Vec<usize> = Vec::new();
    for record in records {
        if let RecordBody::Event(Event::Rewind(rewind)) = &record.body {
            match usize::try_from(rewind.prompt_index).ok().and_then(|i| prompt_starts.get(i).copied()) {
                Some(position) => {
                    effective.truncate(position);
                    prompt_starts.truncate(rewind.prompt_index as usize);
                }
                None => diagnostics.push(
                    Diagnostic::new(
                        &codes::REPLAY_REWIND_OUT_OF_RANGE,
                        format!(
                            "rewind (seq {}) to prompt {} but only {} prompts exist; ignored",
                            record.seq,
                            rewind.prompt_index,
                            prompt_starts.len()
                        ),
                    )
                    .at_path(format!("seq:{}", record.seq)),
                ),
            }
            continue;
        }
        if is_real_prompt_start(effective.last().copied(), record) {
            prompt_starts.push(effective.len());
        }
        effective.push(record);
    }
    effective
}
