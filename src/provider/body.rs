//! A serialized request body and where each conversation entry's JSON lies in it.
//!
//! The conversation is every payload's last field, so a body is `stem[e0,e1,…]}`: the rest of
//! the payload, then the entries. A session keeps the last body it built with the entries'
//! places, so an entry's JSON is held once — in the body that was sent — and the next build
//! copies it from there when the entry is unchanged, or, when entries were only appended, writes
//! the new ones onto the end of the same text.

use std::sync::Arc;

use serde::Serialize;

/// A request body with the place of each conversation entry's JSON.
#[derive(Debug, Clone)]
pub struct Body {
    /// The body's text, shared with whoever the build handed it to.
    text: Arc<String>,
    /// Where the conversation's `[` is.
    list: usize,
    /// Where each entry's JSON ends.
    ends: Vec<usize>,
}

impl Body {
    /// Starts a body whose text before the conversation is `stem`.
    pub(super) fn start(stem: &str, capacity: usize) -> Body {
        let mut text = String::with_capacity(capacity.max(stem.len() + 3));
        text.push_str(stem);
        let list = text.len();
        text.push_str("[]}");
        Body { text: Arc::new(text), list, ends: Vec::new() }
    }

    /// The body as it is sent.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The body's text, shared.
    pub fn text(&self) -> &Arc<String> {
        &self.text
    }

    /// The body's text, no longer tracked.
    pub fn into_text(self) -> Arc<String> {
        self.text
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// How many conversation entries the body holds.
    pub fn entries(&self) -> usize {
        self.ends.len()
    }

    /// Entry `i`'s JSON.
    pub fn entry(&self, i: usize) -> &str {
        &self.text[self.entry_start(i)..self.ends[i]]
    }

    fn entry_start(&self, i: usize) -> usize {
        match i {
            0 => self.list + 1,
            _ => self.ends[i - 1] + 1,
        }
    }

    /// Where the conversation's closing `]` is (or goes).
    fn list_end(&self) -> usize {
        self.ends.last().map_or(self.list + 1, |end| *end)
    }

    /// The text, to write `additional` more bytes onto the end of its list: copied first (the
    /// part before the list's end, with room) only when another holder still has it. Room
    /// grows by an eighth of the body at least, so a body an agent loop extends step by step is
    /// copied once per eighth it grows, and never holds more than an eighth unused.
    fn open(&mut self, additional: usize) -> &mut String {
        let at = self.list_end();
        let room = |len: usize| additional.max(len / 8);
        if Arc::get_mut(&mut self.text).is_none() {
            let mut copy = String::with_capacity(at + room(at));
            copy.push_str(&self.text[..at]);
            self.text = Arc::new(copy);
        }
        let text = Arc::make_mut(&mut self.text);
        text.truncate(at);
        if text.capacity() - text.len() < additional {
            text.reserve_exact(room(text.len()));
        }
        text
    }

    /// Adds `entry` to the conversation, as its JSON.
    pub(super) fn push<E: Serialize>(&mut self, entry: &E) {
        with_json(entry, |json| self.push_json(json));
    }

    /// Adds an entry whose JSON is already written.
    pub(super) fn push_json(&mut self, json: &str) {
        let first = self.ends.is_empty();
        // A comma, the entry, and the closing `]}`.
        let text = self.open(json.len() + 3);
        if !first {
            text.push(',');
        }
        text.push_str(json);
        let end = text.len();
        text.push_str("]}");
        self.ends.push(end);
    }

    /// Gives back room reserved beyond a sixteenth more than the body holds.
    pub(super) fn fit(&mut self) {
        let text = Arc::make_mut(&mut self.text);
        if text.capacity() - text.len() > text.len() / 16 {
            text.shrink_to_fit();
        }
    }

    /// Keeps the first `len` entries (a build that gave up on its appended ones).
    pub fn truncate_entries(&mut self, len: usize) {
        if len < self.ends.len() {
            self.ends.truncate(len);
            self.open(2).push_str("]}");
        }
    }
}

/// Calls `f` with `value`'s JSON.
///
/// Written into a byte buffer (kept per thread, so it is allocated once) rather than straight onto
/// the body: `serde_json::to_string` writes to one too, so every entry type's serializer is the
/// one already in the module, not a second copy for another writer (+4 KB gzipped, measured).
fn with_json<T: Serialize>(value: &T, f: impl FnOnce(&str)) {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with_borrow_mut(|scratch| {
        scratch.clear();
        // Serialising these types cannot fail (every map key is a string); were it to, the
        // entry is left empty, as `serde_json::to_string(…).unwrap_or_default()` would leave it.
        let json = match serde_json::to_writer(&mut *scratch, value) {
            Ok(()) => std::str::from_utf8(scratch).unwrap_or_default(),
            Err(_) => "",
        };
        f(json);
        // A large entry's buffer is not held on to.
        if scratch.capacity() > 1 << 20 {
            *scratch = Vec::new();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[derive(Serialize)]
    struct Message {
        role: &'static str,
        content: &'static str,
    }

    fn entries(body: &Body) -> Vec<&str> {
        (0..body.entries()).map(|i| body.entry(i)).collect()
    }

    #[test]
    fn entries_are_joined_into_the_list_that_ends_the_body() {
        let mut body = Body::start(r#"{"model":"m","messages":"#, 0);
        assert_eq!(body.as_str(), r#"{"model":"m","messages":[]}"#);
        body.push(&Message { role: "user", content: "héllo \"you\"\n" });
        body.push_json(r#"{"role":"assistant"}"#);
        assert_eq!(body.as_str(), r#"{"model":"m","messages":[{"role":"user","content":"héllo \"you\"\n"},{"role":"assistant"}]}"#);
        assert_eq!(entries(&body), [r#"{"role":"user","content":"héllo \"you\"\n"}"#, r#"{"role":"assistant"}"#]);
    }

    #[test]
    fn truncating_entries_closes_the_list_after_the_last_kept() {
        let mut body = Body::start("{\"x\":", 0);
        for i in 0..3 {
            body.push(&i);
        }
        body.truncate_entries(1);
        assert_eq!((body.as_str(), body.entries()), ("{\"x\":[0]}", 1));
        body.push(&12);
        assert_eq!((body.as_str(), entries(&body)), ("{\"x\":[0,12]}", vec!["0", "12"]));
        body.truncate_entries(0);
        assert_eq!((body.as_str(), body.entries()), ("{\"x\":[]}", 0));
        body.push(&7);
        assert_eq!((body.as_str(), entries(&body)), ("{\"x\":[7]}", vec!["7"]));
    }

    #[test]
    fn a_body_another_holder_has_is_copied_before_it_grows() {
        let mut body = Body::start("{\"x\":", 0);
        body.push(&1);
        let sent = Arc::clone(body.text());
        body.push(&2);
        assert_eq!((sent.as_str(), body.as_str()), ("{\"x\":[1]}", "{\"x\":[1,2]}"));
        assert!(!Arc::ptr_eq(&sent, body.text()));
        // Let go of, it grows in place.
        drop(sent);
        let at = Arc::as_ptr(body.text());
        body.push(&3);
        assert_eq!((Arc::as_ptr(body.text()), body.as_str()), (at, "{\"x\":[1,2,3]}"));
    }

    #[test]
    fn fitting_gives_back_room_reserved_beyond_a_sixteenth() {
        let mut body = Body::start("{\"x\":", 1 << 16);
        body.push(&"some entry");
        body.fit();
        assert!(body.text().capacity() <= body.len() + body.len() / 16, "{} for {} bytes", body.text().capacity(), body.len());
        assert_eq!(body.as_str(), "{\"x\":[\"some entry\"]}");
    }

    #[test]
    fn a_growing_body_keeps_at_most_an_eighth_unused() {
        let mut body = Body::start("{\"x\":", 0);
        for i in 0..20_000 {
            body.push(&format!("entry {i}"));
            let (len, capacity) = (body.len(), body.text().capacity());
            assert!(capacity - len <= len / 8 + 16, "{capacity} for {len} bytes");
        }
        assert_eq!(body.entry(19_999), "\"entry 19999\"");
    }
}
