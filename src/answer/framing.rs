//! How an answer's bytes are framed, found from its first bytes and read in any chunking:
//!
//! - **Server-Sent Events** (every streaming API; Gemini with `alt=sse`): lines ended by LF,
//!   CRLF or CR; `data:` lines joined with `\n` into one event at a blank line; `event:` names
//!   it; comments (`:`), `id:`, `retry:` and fields the spec does not define are read and
//!   dropped; OpenAI's `[DONE]` is an event like any other. JSON written outside the event
//!   stream (Gemini writes a pretty-printed `{"error": …}` after its last event when it fails
//!   mid-stream) — a line opening an object or array, and the lines after it up to a blank
//!   line — is gathered and handed on as JSON.
//! - **A JSON array written element by element** (Gemini's stream without `alt=sse`): each
//!   top-level element is handed on as soon as its closing brace arrives.
//! - **One JSON document** (a whole, non-streamed response, or an error body): handed on at the
//!   end.
//!
//! Bytes are split only at ASCII bytes, so a character split between two chunks is whole by the
//! time its line or element is decoded. Nothing here knows any API's event shapes.

/// One unit of an answer: an SSE event, or a JSON document (an array element, a whole body, or
/// stray text in a stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Event { name: Option<String>, data: String },
    Json(String),
}

/// Longest line, event or element the framer holds before it gives up on it: more than any
/// provider sends in one event (their request limit is 32 MB).
pub const MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// A problem with the framing itself (not with what the frames say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FramingError {
    /// A line, event or element longer than [`MAX_FRAME_BYTES`]: dropped.
    TooLong,
    /// Bytes that are not UTF-8 inside a line or element: replaced by U+FFFD.
    NotUtf8,
    /// The answer ended inside an event, an element or a document: what it held is handed on
    /// when it parses, reported otherwise.
    Unterminated,
    /// A JSON array stream held something after its closing bracket.
    TrailingBytes,
}

#[derive(Debug, Clone, Default)]
enum Mode {
    /// Nothing but whitespace (or a byte-order mark) seen yet.
    #[default]
    Unknown,
    Sse(Sse),
    Array(Array),
    /// One document; `skipping` once it grew past the limit (the rest is dropped too).
    Whole { buffer: Vec<u8>, skipping: bool },
}

/// Splits an answer's bytes into frames.
#[derive(Debug, Clone, Default)]
pub struct Framer {
    mode: Mode,
    /// Bytes held before the framing is known (leading whitespace).
    head: Vec<u8>,
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Reads more bytes; whole frames are pushed to `out`, problems to `errors`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        let mut bytes = bytes;
        if let Mode::Unknown = self.mode {
            self.head.extend_from_slice(bytes);
            if self.head.len() < 3 && b"\xEF\xBB\xBF".starts_with(&self.head) {
                // Perhaps the start of a byte-order mark.
                return;
            }
            let bom = if self.head.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
            let Some(first) = self.head[bom..].iter().position(|b| !b.is_ascii_whitespace()) else {
                // Only whitespace (or a partial byte-order mark) so far.
                if self.head.len() > MAX_FRAME_BYTES {
                    self.head.clear();
                }
                return;
            };
            self.mode = match self.head[bom + first] {
                b'{' => Mode::Whole { buffer: Vec::new(), skipping: false },
                b'[' => Mode::Array(Array::default()),
                _ => Mode::Sse(Sse::default()),
            };
            let held = std::mem::take(&mut self.head);
            self.feed(&held[bom + first..], out, errors);
            bytes = &[];
        }
        self.feed(bytes, out, errors);
    }

    fn feed(&mut self, bytes: &[u8], out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        if bytes.is_empty() {
            return;
        }
        match &mut self.mode {
            Mode::Unknown => {}
            Mode::Sse(sse) => sse.push(bytes, out, errors),
            Mode::Array(array) => array.push(bytes, out, errors),
            Mode::Whole { skipping: true, .. } => {}
            Mode::Whole { buffer, skipping } => {
                if buffer.len() + bytes.len() > MAX_FRAME_BYTES {
                    // Nothing of a document cut in two can be read: the rest is dropped with it.
                    errors.push(FramingError::TooLong);
                    *buffer = Vec::new();
                    *skipping = true;
                } else {
                    buffer.extend_from_slice(bytes);
                }
            }
        }
    }

    /// The end of the answer: what is still held is handed on.
    pub fn finish(&mut self, out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        match std::mem::take(&mut self.mode) {
            Mode::Unknown => {}
            Mode::Sse(mut sse) => sse.finish(out, errors),
            Mode::Array(array) => array.finish(out, errors),
            Mode::Whole { buffer, .. } => {
                if !buffer.is_empty() {
                    out.push(Frame::Json(text_of(&buffer, errors)));
                }
            }
        }
    }
}

/// The bytes as text, borrowed when they are UTF-8.
fn text_cow<'a>(bytes: &'a [u8], errors: &mut Vec<FramingError>) -> std::borrow::Cow<'a, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => {
            errors.push(FramingError::NotUtf8);
            String::from_utf8_lossy(bytes)
        }
    }
}

fn text_of(bytes: &[u8], errors: &mut Vec<FramingError>) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => {
            errors.push(FramingError::NotUtf8);
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

/// The SSE reader (WHATWG's event-stream rules, less reconnection).
#[derive(Debug, Clone, Default)]
struct Sse {
    /// Bytes of the line being read.
    line: Vec<u8>,
    /// The last byte was a CR: an LF right after it belongs to the same line end.
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
    /// Text that was not a field, gathered until a blank line or the end.
    stray: String,
    /// The line being read grew past the limit: it is skipped to its end.
    skipping: bool,
}

impl Sse {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if rest[0] == b'\n' {
                    rest = &rest[1..];
                    continue;
                }
            }
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.after_cr = rest[end] == b'\r';
                    if self.line.is_empty() && !self.skipping {
                        // The whole line is in this chunk: read it where it is.
                        if end <= MAX_FRAME_BYTES {
                            self.line_done(&rest[..end], out, errors);
                        } else {
                            errors.push(FramingError::TooLong);
                        }
                    } else {
                        self.take(&rest[..end], errors);
                        let line = std::mem::take(&mut self.line);
                        if !std::mem::take(&mut self.skipping) {
                            self.line_done(&line, out, errors);
                        }
                        // Keep the buffer's room for the next line split across chunks.
                        self.line = line;
                        self.line.clear();
                    }
                    rest = &rest[end + 1..];
                }
                None => {
                    self.take(rest, errors);
                    rest = &[];
                }
            }
        }
    }

    fn take(&mut self, bytes: &[u8], errors: &mut Vec<FramingError>) {
        if self.skipping {
            return;
        }
        if self.line.len() + bytes.len() > MAX_FRAME_BYTES {
            errors.push(FramingError::TooLong);
            self.line = Vec::new();
            self.skipping = true;
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        // Fields are ASCII: split on the bytes, and read only the value as text.
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => (&line[..i], line[i + 1..].strip_prefix(b" ").unwrap_or(&line[i + 1..])),
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                let value = text_cow(value, errors);
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(&value);
                    }
                    None => self.data = Some(value.into_owned()),
                }
            }
            b"event" => self.event = Some(text_cow(value, errors).into_owned()),
            b"id" | b"retry" => {}
            // A field the event stream does not define is ignored, as the spec says — unless
            // the line is JSON a server wrote outside the event stream (Gemini's error object
            // after its last event, pretty-printed over several lines): a line that opens an
            // object or array, and every line after it until a blank line.
            _ if self.stray.is_empty() && !matches!(line.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{' | b'[')) => {}
            _ => {
                let line = text_cow(line, errors);
                if self.stray.len() + line.len() > MAX_FRAME_BYTES {
                    errors.push(FramingError::TooLong);
                    self.stray.clear();
                } else {
                    self.stray.push_str(&line);
                    self.stray.push('\n');
                }
            }
        }
    }

    fn dispatch(&mut self, out: &mut Vec<Frame>) {
        let name = self.event.take();
        if let Some(data) = self.data.take() {
            out.push(Frame::Event { name, data });
        }
        let stray = std::mem::take(&mut self.stray);
        if !stray.trim().is_empty() {
            out.push(Frame::Json(stray));
        }
    }

    fn finish(&mut self, out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() && !self.skipping {
            self.line_done(&line, out, errors);
        }
        if self.data.is_some() {
            // An event the stream never closed with a blank line: handed on all the same.
            errors.push(FramingError::Unterminated);
        }
        self.dispatch(out);
    }
}

/// The JSON-array reader: a string-aware bracket scanner over the top-level elements.
#[derive(Debug, Clone, Default)]
struct Array {
    state: ArrayState,
    element: Vec<u8>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    skipping: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum ArrayState {
    /// Before the opening `[`.
    #[default]
    Start,
    /// Between elements (after `[` or a `,`).
    Between,
    /// Inside an element.
    Element,
    /// After the closing `]`.
    Done,
}

impl Array {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            match self.state {
                ArrayState::Start => {
                    if b == b'[' {
                        self.state = ArrayState::Between;
                    }
                }
                ArrayState::Between => match b {
                    b' ' | b'\t' | b'\n' | b'\r' | b',' => {}
                    b']' => self.state = ArrayState::Done,
                    _ => {
                        self.state = ArrayState::Element;
                        start = i;
                        self.depth = 0;
                        self.in_string = false;
                        self.escaped = false;
                        self.scan(b);
                        if self.depth == 0 && !self.in_string && matches!(b, b'}' | b']') {
                            self.close(&bytes[start..=i], out, errors);
                        }
                    }
                },
                ArrayState::Element => {
                    self.scan(b);
                    // An element is an object or an array (the streams hold objects).
                    if self.depth == 0 && !self.in_string && matches!(b, b'}' | b']') {
                        self.close(&bytes[start..=i], out, errors);
                    }
                }
                ArrayState::Done => {
                    if !b.is_ascii_whitespace() {
                        errors.push(FramingError::TrailingBytes);
                        return;
                    }
                }
            }
        }
        if self.state == ArrayState::Element {
            self.hold(&bytes[start..], errors);
        }
    }

    fn scan(&mut self, b: u8) {
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                (false, _) => {}
            }
            return;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }

    fn hold(&mut self, bytes: &[u8], errors: &mut Vec<FramingError>) {
        if self.skipping {
            return;
        }
        if self.element.len() + bytes.len() > MAX_FRAME_BYTES {
            errors.push(FramingError::TooLong);
            self.element = Vec::new();
            self.skipping = true;
            return;
        }
        self.element.extend_from_slice(bytes);
    }

    fn close(&mut self, tail: &[u8], out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        self.state = ArrayState::Between;
        if std::mem::take(&mut self.skipping) {
            self.element.clear();
            return;
        }
        let mut element = std::mem::take(&mut self.element);
        element.extend_from_slice(tail);
        out.push(Frame::Json(text_of(&element, errors)));
    }

    fn finish(self, out: &mut Vec<Frame>, errors: &mut Vec<FramingError>) {
        match self.state {
            ArrayState::Done => {}
            ArrayState::Element => {
                errors.push(FramingError::Unterminated);
                if !self.skipping && !self.element.is_empty() {
                    out.push(Frame::Json(text_of(&self.element, errors)));
                }
            }
            ArrayState::Start | ArrayState::Between => errors.push(FramingError::Unterminated),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn frames(chunks: &[&[u8]]) -> (Vec<Frame>, Vec<FramingError>) {
        let mut framer = Framer::new();
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        for chunk in chunks {
            framer.push(chunk, &mut out, &mut errors);
        }
        framer.finish(&mut out, &mut errors);
        (out, errors)
    }

    fn event(name: Option<&str>, data: &str) -> Frame {
        Frame::Event { name: name.map(str::to_owned), data: data.to_owned() }
    }

    #[test]
    fn sse_events_in_any_chunking_and_line_ending() {
        let text = "event: a\r\ndata: {\"x\":1}\r\n\r\n: keep-alive\nretry: 3000\nid: 7\ndata:first\ndata: second\n\ndata: [DONE]\r\r";
        let expected = vec![event(Some("a"), "{\"x\":1}"), event(None, "first\nsecond"), event(None, "[DONE]")];
        for split in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(split);
            assert_eq!(frames(&[a, b]), (expected.clone(), vec![]), "split at {split}");
        }
        let bytes: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        assert_eq!(frames(&bytes), (expected, vec![]));
    }

    #[test]
    fn a_character_split_between_chunks_is_whole_in_its_event() {
        let text = "data: {\"t\":\"h\u{e9}llo \u{1F600}\"}\n\n".as_bytes();
        for split in 0..=text.len() {
            let (a, b) = text.split_at(split);
            assert_eq!(frames(&[a, b]).0, vec![event(None, "{\"t\":\"h\u{e9}llo \u{1F600}\"}")], "split at {split}");
        }
    }

    #[test]
    fn an_empty_data_line_is_an_event_with_empty_data_and_a_line_separator_in_json_is_not_a_line_end() {
        assert_eq!(frames(&[b"data:\n\n"]).0, vec![event(None, "")]);
        assert_eq!(frames(&[b"data:\ndata:\n\n"]).0, vec![event(None, "\n")]);
        let text = "data: {\"t\":\"a\u{2028}b\"}\n\n";
        assert_eq!(frames(&[text.as_bytes()]).0, vec![event(None, "{\"t\":\"a\u{2028}b\"}")]);
    }

    #[test]
    fn text_outside_the_event_stream_is_handed_on_as_json() {
        let text = "data: {\"a\":1}\r\n\r\n{\n  \"error\": {\n    \"code\": 503\n  }\n}\n";
        assert_eq!(frames(&[text.as_bytes()]).0, vec![event(None, "{\"a\":1}"), Frame::Json("{\n  \"error\": {\n    \"code\": 503\n  }\n}\n".into())]);
    }

    #[test]
    fn a_field_the_spec_does_not_define_is_ignored() {
        let text = "foo: bar\nevent: a\nx-trace: {\"not\": \"json of ours\"}\ndata: {\"a\":1}\n\nfoo\n\n";
        for split in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(split);
            assert_eq!(frames(&[a, b]), (vec![event(Some("a"), "{\"a\":1}")], vec![]), "split at {split}");
        }
    }

    #[test]
    fn a_whole_document_over_the_limit_is_dropped_with_everything_after_the_cut() {
        let big = vec![b' '; MAX_FRAME_BYTES];
        let mut framer = Framer::new();
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        framer.push(b"{\"a\":\"", &mut out, &mut errors);
        framer.push(&big, &mut out, &mut errors);
        framer.push(b"\"}", &mut out, &mut errors);
        framer.push(b"{\"b\":1}", &mut out, &mut errors);
        framer.finish(&mut out, &mut errors);
        assert_eq!((out, errors), (vec![], vec![FramingError::TooLong]));
    }

    #[test]
    fn an_event_cut_off_by_the_end_is_handed_on_and_reported() {
        assert_eq!(frames(&[b"data: {\"a\":1}"]), (vec![event(None, "{\"a\":1}")], vec![FramingError::Unterminated]));
    }

    #[test]
    fn json_array_elements_in_any_chunking() {
        let text = "[{\n  \"a\": \"}{ ]\\\"\"\n}\n,\r\n{\"b\": [1, {\"c\": 2}]}\n]";
        let expected = vec![Frame::Json("{\n  \"a\": \"}{ ]\\\"\"\n}".into()), Frame::Json("{\"b\": [1, {\"c\": 2}]}".into())];
        for split in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(split);
            assert_eq!(frames(&[a, b]), (expected.clone(), vec![]), "split at {split}");
        }
    }

    #[test]
    fn a_cut_array_hands_on_what_it_holds_and_reports() {
        assert_eq!(frames(&[b"[{\"a\":1},{\"b\""]), (vec![Frame::Json("{\"a\":1}".into()), Frame::Json("{\"b\"".into())], vec![FramingError::Unterminated]));
    }

    #[test]
    fn a_whole_document_after_blank_lines_and_a_byte_order_mark() {
        let text = "\u{feff}\n\n  {\"id\": \"x\"}\n";
        for split in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(split);
            assert_eq!(frames(&[a, b]), (vec![Frame::Json("{\"id\": \"x\"}\n".into())], vec![]), "split at {split}");
        }
        assert_eq!(frames(&[b"  \n"]), (vec![], vec![]));
    }
}
