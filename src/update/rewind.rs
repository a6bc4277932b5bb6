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
pub(crate) type ChunkKey = (Stream, Option<String>);

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
pub fn is_real_prompt_start(prev: Option<&Record>, record: &Record) -> bool {
    match chunk_of(record) {
        Some((Stream::User, chunk)) => ProviderMeta::from_meta(chunk.meta.as_ref()).synthetic.is_none() && !continues(prev, record),
        _ => false,
    }
}

/// The text of every real prompt in the effective history (rewinds applied; compactions do not
/// hide them), in order: what a rewind's prompt index counts.
pub fn prompt_texts(records: &[Record]) -> Vec<String> {
    prompt_fold(records).prompts
}

/// [`prompt_texts`] as a fold the records after these can go on from.
pub fn prompt_fold(records: &[Record]) -> PromptFold {
    let mut diagnostics = Vec::new();
    let mut fold = PromptFold::default();
    for record in apply_rewinds(records, &mut diagnostics) {
        fold.push(record);
    }
    fold
}

/// [`prompt_texts`] record by record, resumable: a checkpoint keeps it, and the records after
/// the checkpoint go on from it (they hold no rewind: a rewind needs the whole history).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, contextview_derive::ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct PromptFold {
    pub prompts: Vec<String>,
    /// The last record was part of a real prompt (a chunk continuing it adds to its text).
    #[serde(default)]
    in_prompt: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prev: Option<ChunkKey>,
}

impl PromptFold {
    pub fn push(&mut self, record: &Record) {
        if record.body.is_checkpoint() {
            return;
        }
        let prev = self.prev.as_ref();
        let starts = matches!(chunk_of(record), Some((Stream::User, chunk)) if ProviderMeta::from_meta(chunk.meta.as_ref()).synthetic.is_none())
            && !continues_key(prev, record);
        if starts {
            self.prompts.push(String::new());
            self.in_prompt = true;
        } else if !continues_key(prev, record) {
            self.in_prompt = false;
        }
        if let (true, Some((Stream::User, chunk)), Some(last)) = (self.in_prompt, chunk_of(record), self.prompts.last_mut()) {
            if let ContentBlock::Text { text, .. } = &chunk.content {
                last.push_str(text);
            }
        }
        self.prev = chunk_key(record);
    }
}

pub(super) fn apply_rewinds<'a>(records: &'a [Record], diagnostics: &mut Vec<Diagnostic>) -> Vec<&'a Record> {
    let mut effective: Vec<&Record> = Vec::with_capacity(records.len());
    let mut prompt_starts: Vec<usize> = Vec::new();
    for record in records {
        // A checkpoint is derived: the history reads as if it were not there.
        if record.body.is_checkpoint() {
            continue;
        }
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
