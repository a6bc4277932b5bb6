//! OpenCode's storage folder (up to 1.1) → the document `opencode export` writes for a session.
//!
//! OpenCode 1.0–1.1 keeps each session in JSON files under `~/.local/share/opencode/storage/`:
//! `session/<project>/<session id>.json` (its info; a subagent's names its parent in `parentID`),
//! `message/<session id>/<message id>.json` (each message's info) and
//! `part/<message id>/<part id>.json` (each part, naming its message). OpenCode reads them back in
//! file-name order (its `Storage.list` sorts the keys; message and part ids ascend with time) and
//! exports `{info, messages: [{info, parts}]}`: the same order is rebuilt here, from files given in
//! any order (a directory listing has none), so the export's reader ([`super::import`]) reads
//! both. Each file's text is kept as written, not re-serialised.
//!
//! A file that cannot take its place is left out with a diagnostic naming it (`messages[3]`,
//! `parts[7]`: its position among the files given): not JSON, not an object with an `id`, an id
//! with a NUL in it, a message of another session, a part that names no message or one not among
//! the messages kept, an id given twice. [`Assembled::order`] names each message of the export by
//! its file, for what the export's import then says of it.

use std::collections::btree_map::{BTreeMap, Entry};

use serde_json::Value;

use crate::codes;
use contextview::diagnostic::Diagnostic;

/// One session's files, as read from the folder: their texts, in any order.
#[derive(Debug, Clone, Copy)]
pub struct Files<'a> {
    /// `session/<project>/<session id>.json`.
    pub session: &'a str,
    /// `message/<session id>/*.json`.
    pub messages: &'a [&'a str],
    /// `part/<message id>/*.json` for each of those messages.
    pub parts: &'a [&'a str],
}

/// The session as `opencode export` writes it, and the files left out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    pub export: String,
    pub diagnostics: Vec<Diagnostic>,
    /// The export's messages, in order, each by its place among the message files given.
    pub order: Vec<usize>,
}

/// The ids a file names (its own always: a file without one is left out); the rest of it is
/// kept as written.
struct Ids {
    id: String,
    session_id: Option<String>,
    message_id: Option<String>,
}

/// A file read: its ids, and its text without the blank around it.
struct Read<'a> {
    ids: Ids,
    text: &'a str,
}

/// Reads a file's ids (parsed as a JSON value, as every importer parses: no reader of its own in
/// the module).
fn read<'a>(text: &'a str, path: &str, out: &mut Vec<Diagnostic>) -> Option<Read<'a>> {
    let left_out = |why: String| Diagnostic::new(&codes::IMPORT_STORAGE_FILE_LEFT_OUT, why).at_path(path.to_owned());
    let trimmed = text.trim();
    let value = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(object)) => object,
        Ok(_) => {
            out.push(left_out("not a JSON object; left out".to_owned()));
            return None;
        }
        Err(e) => {
            out.push(left_out(format!("not JSON ({e}); left out")));
            return None;
        }
    };
    let field = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
    // (Parts are ordered by their message's id and their own joined by a NUL.)
    if ["id", "sessionID", "messageID"].iter().any(|name| field(name).is_some_and(|id| id.contains('\0'))) {
        out.push(left_out("an id with a NUL character in it; left out".to_owned()));
        return None;
    }
    match field("id").filter(|id| !id.is_empty()) {
        Some(id) => Some(Read { ids: Ids { id, session_id: field("sessionID"), message_id: field("messageID") }, text: trimmed }),
        None => {
            out.push(left_out("names no `id`; left out".to_owned()));
            None
        }
    }
}

/// Puts a session's files together as OpenCode's `export` does: the session's info, then its
/// messages in id order, each with its parts in id order.
pub fn assemble(files: Files<'_>) -> Assembled {
    let mut diagnostics = Vec::new();
    let session = read(files.session, "session", &mut diagnostics);
    let read_messages: Vec<Option<Read>> = files.messages.iter().enumerate().map(|(i, text)| read(text, &format!("messages[{i}]"), &mut diagnostics)).collect();
    // The session's id; when its file could not be read, the one most of its messages name (the
    // first by id of those named most: whatever order they were given in).
    let owner = session.as_ref().map(|s| s.ids.id.clone()).or_else(|| {
        let mut named: BTreeMap<String, usize> = BTreeMap::new();
        for id in read_messages.iter().flatten().filter_map(|m| m.ids.session_id.clone()) {
            *named.entry(id).or_insert(0) += 1;
        }
        let most = named.values().copied().max()?;
        named.into_iter().find(|(_, n)| *n == most).map(|(id, _)| id)
    });
    // Messages of this session by id: a `BTreeMap` orders them (the one the reports' counts use:
    // no sort of its own in the module), and finds an id given twice.
    let mut messages: Vec<Read> = Vec::with_capacity(files.messages.len());
    let mut message_paths: Vec<usize> = Vec::with_capacity(files.messages.len());
    let mut message_order: BTreeMap<String, usize> = BTreeMap::new();
    for (i, message) in read_messages.into_iter().enumerate() {
        let path = format!("messages[{i}]");
        let Some(message) = message else { continue };
        let of = message.ids.session_id.clone();
        if of.is_some() && of != owner {
            let (of, owner) = (of.unwrap_or_default(), owner.clone().unwrap_or_default());
            diagnostics.push(Diagnostic::new(&codes::IMPORT_STORAGE_FILE_LEFT_OUT, format!("a message of session {of}, not {owner}; left out")).at_path(path));
            continue;
        }
        if first_of(&mut message_order, message.ids.id.clone(), &message_paths, &path, "messages", &mut diagnostics) {
            messages.push(message);
            message_paths.push(i);
        }
    }
    // Parts by their message's id, then their own (a message's parts are neighbours in that
    // order: `\0` sorts before any character of an id).
    let mut parts: Vec<Read> = Vec::with_capacity(files.parts.len());
    let mut part_order: BTreeMap<String, usize> = BTreeMap::new();
    let mut paths: Vec<usize> = Vec::with_capacity(files.parts.len());
    for (i, text) in files.parts.iter().enumerate() {
        let path = format!("parts[{i}]");
        let Some(part) = read(text, &path, &mut diagnostics) else { continue };
        let Some(message) = part.ids.message_id.as_deref() else {
            diagnostics.push(Diagnostic::new(&codes::IMPORT_STORAGE_FILE_LEFT_OUT, "a part that names no `messageID`; left out").at_path(path));
            continue;
        };
        let key = format!("{message}\0{}", part.ids.id);
        if first_of(&mut part_order, key, &paths, &path, "parts", &mut diagnostics) {
            parts.push(part);
            paths.push(i);
        }
    }
    // The session's info, or (when its file could not be read) its id alone.
    let order: Vec<usize> = message_order.values().map(|&m| message_paths[m]).collect();
    let info = match (&session, &owner) {
        (Some(s), _) => s.text.to_owned(),
        (None, Some(id)) => serde_json::json!({ "id": id }).to_string(),
        (None, None) => "{}".to_owned(),
    };
    let size = info.len() + files.messages.iter().chain(files.parts).map(|t| t.len() + 2).sum::<usize>() + 64;
    let mut export = String::with_capacity(size);
    export.push_str("{\"info\":");
    export.push_str(&info);
    export.push_str(",\"messages\":[");
    // Messages and parts both in id order, walked together: each part joins its message, or is
    // left out when its message was not given.
    let mut part_order = part_order.values().map(|&p| (&parts[p], paths[p])).peekable();
    let orphan = |part: &Read, i: usize, diagnostics: &mut Vec<Diagnostic>| {
        let message = part.ids.message_id.as_deref().unwrap_or_default();
        diagnostics.push(Diagnostic::new(&codes::IMPORT_STORAGE_FILE_LEFT_OUT, format!("a part of message {message}, which is not among the messages kept; left out")).at_path(format!("parts[{i}]")));
    };
    for (n, &m) in message_order.values().enumerate() {
        let id = messages[m].ids.id.as_str();
        export.push_str(if n == 0 { "{\"info\":" } else { ",{\"info\":" });
        export.push_str(messages[m].text);
        export.push_str(",\"parts\":[");
        let mut first = true;
        while let Some((part, i)) = part_order.next_if(|(part, _)| part.ids.message_id.as_deref().unwrap_or_default() <= id) {
            if part.ids.message_id.as_deref() != Some(id) {
                orphan(part, i, &mut diagnostics);
                continue;
            }
            if !first {
                export.push(',');
            }
            first = false;
            export.push_str(part.text);
        }
        export.push_str("]}");
    }
    for (part, i) in part_order {
        orphan(part, i, &mut diagnostics);
    }
    export.push_str("]}");
    Assembled { export, diagnostics, order }
}

/// Files `key` as the next file kept (`kept` holds each kept file's place among the files
/// given), and says so; or, when a file kept before gave it, leaves this one out, naming that
/// file.
fn first_of(order: &mut BTreeMap<String, usize>, key: String, kept: &[usize], path: &str, kind: &str, diagnostics: &mut Vec<Diagnostic>) -> bool {
    let id = key.rsplit('\0').next().unwrap_or_default().to_owned();
    match order.entry(key) {
        Entry::Vacant(vacant) => {
            vacant.insert(kept.len());
            true
        }
        Entry::Occupied(first) => {
            let first = kept[*first.get()];
            diagnostics.push(Diagnostic::new(&codes::IMPORT_STORAGE_FILE_LEFT_OUT, format!("{id} is given twice (first as {kind}[{first}]); left out")).at_path(path.to_owned()));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn left_out(diagnostics: &[Diagnostic]) -> Vec<(String, String)> {
        diagnostics.iter().map(|d| (d.path.clone().unwrap_or_default(), d.message.clone())).collect()
    }

    #[test]
    fn orders_messages_and_parts_by_id_and_keeps_each_files_text() {
        let session = "{\n  \"id\": \"ses_1\",\n  \"title\": \"t\"\n}\n";
        let messages = ["{\"id\":\"msg_2\",\"sessionID\":\"ses_1\",\"role\":\"assistant\"}", " {\"id\":\"msg_1\",\"sessionID\":\"ses_1\",\"role\":\"user\"}"];
        let parts = [
            "{\"id\":\"prt_b\",\"messageID\":\"msg_2\",\"type\":\"text\",\"text\":\"later\"}",
            "{\"id\":\"prt_a\",\"messageID\":\"msg_2\",\"type\":\"text\",\"text\":\"é first\"}",
            "{\"id\":\"prt_c\",\"messageID\":\"msg_1\",\"type\":\"text\",\"text\":\"hi\"}",
        ];
        let assembled = assemble(Files { session, messages: &messages, parts: &parts });
        assert_eq!(
            assembled,
            Assembled {
                export: "{\"info\":{\n  \"id\": \"ses_1\",\n  \"title\": \"t\"\n},\"messages\":[\
                    {\"info\":{\"id\":\"msg_1\",\"sessionID\":\"ses_1\",\"role\":\"user\"},\"parts\":[{\"id\":\"prt_c\",\"messageID\":\"msg_1\",\"type\":\"text\",\"text\":\"hi\"}]},\
                    {\"info\":{\"id\":\"msg_2\",\"sessionID\":\"ses_1\",\"role\":\"assistant\"},\"parts\":[\
                    {\"id\":\"prt_a\",\"messageID\":\"msg_2\",\"type\":\"text\",\"text\":\"é first\"},\
                    {\"id\":\"prt_b\",\"messageID\":\"msg_2\",\"type\":\"text\",\"text\":\"later\"}]}]}"
                    .to_owned(),
                diagnostics: vec![],
                order: vec![1, 0],
            }
        );
        // What the export's reader takes: the same document, parsed.
        assert!(serde_json::from_str::<serde_json::Value>(&assembled.export).is_ok());
    }

    #[test]
    fn names_every_file_it_leaves_out_and_why() {
        let session = "{\"id\":\"ses_1\"}";
        let messages = [
            "{\"id\":\"msg_9\",\"sessionID\":\"ses_other\"}",
            "{\"id\":\"msg_2\",\"sessionID\":\"ses_1\"",
            "{\"id\":\"msg_1\",\"sessionID\":\"ses_1\"}",
            "[1]",
            "{\"sessionID\":\"ses_1\"}",
            "{\"id\":\"msg_1\",\"sessionID\":\"ses_1\",\"role\":\"again\"}",
        ];
        let parts = ["{\"id\":\"prt_2\",\"messageID\":\"msg_7\"}", "{\"id\":\"prt_3\"}", "{\"id\":\"prt_1\",\"messageID\":\"msg_1\"}", "{\"id\":\"prt_1\",\"messageID\":\"msg_1\"}"];
        let assembled = assemble(Files { session, messages: &messages, parts: &parts });
        assert_eq!(assembled.export, "{\"info\":{\"id\":\"ses_1\"},\"messages\":[{\"info\":{\"id\":\"msg_1\",\"sessionID\":\"ses_1\"},\"parts\":[{\"id\":\"prt_1\",\"messageID\":\"msg_1\"}]}]}");
        assert!(assembled.diagnostics.iter().all(|d| d.code == "import.storage_file_left_out"));
        let pairs = |v: &[(&str, &str)]| v.iter().map(|(p, m)| (p.to_string(), m.to_string())).collect::<Vec<_>>();
        assert_eq!(
            left_out(&assembled.diagnostics),
            pairs(&[
                ("messages[1]", "not JSON (EOF while parsing an object at line 1 column 33); left out"),
                ("messages[3]", "not a JSON object; left out"),
                ("messages[4]", "names no `id`; left out"),
                ("messages[0]", "a message of session ses_other, not ses_1; left out"),
                ("messages[5]", "msg_1 is given twice (first as messages[2]); left out"),
                ("parts[1]", "a part that names no `messageID`; left out"),
                ("parts[3]", "prt_1 is given twice (first as parts[2]); left out"),
                ("parts[0]", "a part of message msg_7, which is not among the messages kept; left out"),
            ])
        );
    }

    #[test]
    fn without_its_session_file_the_session_is_the_one_most_messages_name() {
        let messages = ["{\"id\":\"msg_0\",\"sessionID\":\"ses_0\"}", "{\"id\":\"msg_2\",\"sessionID\":\"ses_1\"}", "{\"id\":\"msg_1\",\"sessionID\":\"ses_1\"}"];
        let assembled = assemble(Files { session: "", messages: &messages, parts: &[] });
        assert_eq!(
            assembled.export,
            "{\"info\":{\"id\":\"ses_1\"},\"messages\":[{\"info\":{\"id\":\"msg_1\",\"sessionID\":\"ses_1\"},\"parts\":[]},{\"info\":{\"id\":\"msg_2\",\"sessionID\":\"ses_1\"},\"parts\":[]}]}"
        );
        assert_eq!(assembled.order, vec![2, 1]);
        assert_eq!(
            left_out(&assembled.diagnostics),
            vec![
                ("session".to_owned(), "not JSON (EOF while parsing a value at line 1 column 0); left out".to_owned()),
                ("messages[0]".to_owned(), "a message of session ses_0, not ses_1; left out".to_owned()),
            ]
        );
    }

    #[test]
    fn an_id_with_a_nul_in_it_is_left_out() {
        // (Ordered by its message's id and its own joined by a NUL, such a part would sort
        // before its message's other parts.)
        let messages = ["{\"id\":\"a\",\"sessionID\":\"s\"}", "{\"id\":\"a\\u0000\",\"sessionID\":\"s\"}"];
        let parts = ["{\"id\":\"p\",\"messageID\":\"a\"}", "{\"id\":\"q\",\"messageID\":\"a\\u0000\"}"];
        let assembled = assemble(Files { session: "{\"id\":\"s\"}", messages: &messages, parts: &parts });
        assert_eq!(assembled.export, "{\"info\":{\"id\":\"s\"},\"messages\":[{\"info\":{\"id\":\"a\",\"sessionID\":\"s\"},\"parts\":[{\"id\":\"p\",\"messageID\":\"a\"}]}]}");
        assert_eq!(
            left_out(&assembled.diagnostics),
            vec![
                ("messages[1]".to_owned(), "an id with a NUL character in it; left out".to_owned()),
                ("parts[1]".to_owned(), "an id with a NUL character in it; left out".to_owned()),
            ]
        );
    }
}
