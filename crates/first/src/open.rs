//! `Session.fromLog` on a JS string: the log is searched where it lies, in the JS heap, and
//! only the lines from its last checkpoint on are copied into wasm memory; the lines before
//! stay a JS string the facade hands over when the session asks for the whole history (a
//! rewind, a snapshot). Opening costs what the view holds, not the log's length.

use js_sys::JsString;

use contextview::session::open::{split, LogText};
use contextview::session::Session as NativeSession;

/// A JS string as the opener reads it (positions in UTF-16 units).
struct JsText<'a>(&'a JsString);

impl LogText for JsText<'_> {
    fn len(&self) -> usize {
        self.0.length() as usize
    }
    fn rfind_before(&self, pattern: &str, before: usize) -> Option<usize> {
        let from = before.checked_sub(1)?;
        let at = self.0.last_index_of(pattern, from.min(i32::MAX as usize) as i32);
        usize::try_from(at).ok()
    }
    fn find_from(&self, pattern: &str, from: usize) -> Option<usize> {
        let at = self.0.index_of(pattern, from.min(i32::MAX as usize) as i32);
        usize::try_from(at).ok()
    }
    fn slice(&self, from: usize, to: usize) -> String {
        String::from(self.0.slice(from as u32, to as u32))
    }
}

/// The session a log's text holds, and the lines before its last checkpoint, still a JS
/// string, when it opened from one.
pub(super) fn from_log(text: &JsString) -> (NativeSession, Option<JsString>) {
    let js = JsText(text);
    if let Some(at) = split(&js) {
        let head = js.slice(0, at.history_start);
        let tail = js.slice(at.tail_start, js.len());
        if let Some(session) = NativeSession::from_tail(&head, &tail, None) {
            return (session, Some(text.slice(at.history_start as u32, at.tail_start as u32)));
        }
    }
    (NativeSession::from_log(&String::from(text)), None)
}
