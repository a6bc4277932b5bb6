//! The host protocol: what discovery asks the host for, what the host answers, and the memo
//! of answers that makes a discovery run a restartable pure computation.
//!
//! A run reads through an [`FsView`]. A read the memo can answer returns at once; a read it
//! cannot is recorded as missing and returns [`Lookup::Pending`], and the run carries on with
//! whatever else it can do. When a run ends with reads missing, the engine hands them to the
//! host as one batch, stores the answers, and runs again. Rounds are as many as the longest
//! chain of reads (ancestors → listings → files → imports); the memo is also what makes a
//! refresh cheap: forget the changed paths, run again, and only those are asked for.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// One read the engine needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostRequest {
    pub id: u32,
    pub op: Op,
    pub path: String,
    /// readFile: the most bytes wanted (a host that can should read no more than this + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Op {
    ReadDir,
    ReadFile,
}

/// The host's answer to one request (exactly one of the optional fields is set).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostAnswer {
    pub id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<DirEntry>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<FileContent>,
    /// Full size of the file in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_found: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A directory entry as the host lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirEntry {
    pub name: String,
    pub kind: EntryKind,
    /// A symlink's target as written (relative to the directory, or absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// File content: bytes (preferred: invalid UTF-8 can be reported) or text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FileContent {
    Text(String),
    Bytes(#[serde(with = "serde_bytes_compat")] Vec<u8>),
}

/// Bytes from a JS `Uint8Array` (serde-wasm-bindgen hands them over as a byte buffer) or a
/// JSON array of numbers.
mod serde_bytes_compat {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// What the memo holds for one read.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Dir(Vec<DirEntry>),
    File(FileData),
    NotFound,
    Error(String),
}

/// A file as read: its bytes (possibly only a prefix) and its full size.
#[derive(Debug, Clone, PartialEq)]
pub struct FileData {
    pub bytes: Vec<u8>,
    pub size: u64,
}

impl FileData {
    /// True when the host returned less than the whole file.
    pub fn is_partial(&self) -> bool {
        (self.bytes.len() as u64) < self.size
    }
}

/// A read as a job sees it: the memo's bytes, cut to the limit asked for (borrowed, not copied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileView<'a> {
    pub bytes: &'a [u8],
    pub size: u64,
}

impl FileView<'_> {
    /// True when fewer bytes than the whole file are in view.
    pub fn is_partial(&self) -> bool {
        (self.bytes.len() as u64) < self.size
    }
}

impl Answer {
    /// Reads a host answer for a request of kind `op`.
    pub fn from_host(op: Op, answer: HostAnswer) -> Answer {
        if answer.not_found {
            return Answer::NotFound;
        }
        if let Some(error) = answer.error {
            return Answer::Error(error);
        }
        match op {
            Op::ReadDir => match answer.entries {
                Some(entries) => Answer::Dir(entries),
                None => Answer::Error("the host answered a directory listing without entries".to_owned()),
            },
            Op::ReadFile => match answer.content {
                Some(content) => {
                    let bytes = match content {
                        FileContent::Text(text) => text.into_bytes(),
                        FileContent::Bytes(bytes) => bytes,
                    };
                    let size = answer.size.unwrap_or(bytes.len() as u64).max(bytes.len() as u64);
                    Answer::File(FileData { bytes, size })
                }
                None => Answer::Error("the host answered a file read without content".to_owned()),
            },
        }
    }
}

/// Key of a memoised read.
pub type Key = (Op, String);

/// Everything the host has answered so far.
#[derive(Debug, Default, Clone)]
pub struct Memo {
    answers: HashMap<Key, Answer>,
}

impl Memo {
    pub fn insert(&mut self, key: Key, answer: Answer) {
        self.answers.insert(key, answer);
    }

    /// Forgets what is known about `path` (as a file and as a directory) and the listing that
    /// shows it: its parent's, or — when the parent was never listed (a new directory, as when
    /// a watcher reports `new-dir/SKILL.md`) — the nearest listed ancestor's.
    pub fn forget(&mut self, path: &str) {
        self.answers.remove(&(Op::ReadFile, path.to_owned()));
        self.answers.remove(&(Op::ReadDir, path.to_owned()));
        let mut child = path;
        while let Some(parent) = super::paths::parent(child) {
            if self.answers.remove(&(Op::ReadDir, parent.to_owned())).is_some() {
                break;
            }
            child = parent;
        }
    }
}

/// The result of a read through the memo.
#[derive(Debug)]
pub enum Lookup<T> {
    Ready(T),
    /// Not known yet: asked for in the next batch.
    Pending,
}

/// A problem reading a path.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    NotFound,
    Failed(String),
}

/// Reads for one run: answers from the memo, and a list of what is missing.
pub struct FsView<'a> {
    memo: &'a Memo,
    missing: RefCell<Vec<(Key, Option<u64>)>>,
}

impl<'a> FsView<'a> {
    pub fn new(memo: &'a Memo) -> Self {
        FsView { memo, missing: RefCell::new(Vec::new()) }
    }

    fn get(&self, key: Key, max: Option<u64>) -> Lookup<&'a Answer> {
        match self.memo.answers.get(&key) {
            Some(answer) => Lookup::Ready(answer),
            None => {
                let mut missing = self.missing.borrow_mut();
                if !missing.iter().any(|(k, _)| *k == key) {
                    missing.push((key, max));
                }
                Lookup::Pending
            }
        }
    }

    /// A directory's entries, sorted by name.
    pub fn list(&self, path: &str) -> Lookup<Result<&'a [DirEntry], ReadError>> {
        match self.get((Op::ReadDir, path.to_owned()), None) {
            Lookup::Pending => Lookup::Pending,
            Lookup::Ready(Answer::Dir(entries)) => Lookup::Ready(Ok(entries)),
            Lookup::Ready(Answer::NotFound) => Lookup::Ready(Err(ReadError::NotFound)),
            Lookup::Ready(Answer::Error(e)) => Lookup::Ready(Err(ReadError::Failed(e.clone()))),
            Lookup::Ready(Answer::File(_)) => Lookup::Ready(Err(ReadError::Failed("not a directory".to_owned()))),
        }
    }

    /// A file's first `max` bytes (and its full size). A memo holding fewer bytes than asked
    /// for — a prefix read for a smaller limit — asks the host again; a host that sent more
    /// than asked is cut here, so limits hold whatever the host does.
    pub fn read(&self, path: &str, max: u64) -> Lookup<Result<FileView<'a>, ReadError>> {
        let key = (Op::ReadFile, path.to_owned());
        if let Some(Answer::File(data)) = self.memo.answers.get(&key) {
            if data.is_partial() && (data.bytes.len() as u64) < max.min(data.size) {
                let mut missing = self.missing.borrow_mut();
                if !missing.iter().any(|(k, _)| *k == key) {
                    missing.push((key, Some(max)));
                }
                return Lookup::Pending;
            }
        }
        match self.get(key, Some(max)) {
            Lookup::Pending => Lookup::Pending,
            Lookup::Ready(Answer::File(data)) => {
                let keep = (max.min(data.bytes.len() as u64)) as usize;
                Lookup::Ready(Ok(FileView { bytes: &data.bytes[..keep], size: data.size }))
            }
            Lookup::Ready(Answer::NotFound) => Lookup::Ready(Err(ReadError::NotFound)),
            Lookup::Ready(Answer::Error(e)) => Lookup::Ready(Err(ReadError::Failed(e.clone()))),
            Lookup::Ready(Answer::Dir(_)) => Lookup::Ready(Err(ReadError::Failed("is a directory".to_owned()))),
        }
    }

    pub fn is_complete(&self) -> bool {
        self.missing.borrow().is_empty()
    }

    pub fn take_missing(self) -> Vec<(Key, Option<u64>)> {
        self.missing.into_inner()
    }
}
