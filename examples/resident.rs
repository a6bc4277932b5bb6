//! What a session holds after opening a log from its last checkpoint and building once, as a
//! `DurableSession` runs it (records storage confirmed and the results its requests clear let
//! go): the live heap, counted by a wrapping allocator — what wasm linear memory cannot say, as
//! it only ever grows to its peak. The opening bench (`benches/open.bench.mjs`) runs it.
//!
//! `cargo run --release --example resident -- LOG` prints one JSON object.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        // SAFETY: the caller's layout, passed on as it came.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: a pointer this allocator gave out, with its layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let path = std::env::args().nth(1).expect("LOG");
    let text = std::fs::read_to_string(&path).expect("a readable log");
    // The host's part, not counted: finding the tail and reading it (a storage's loadTail).
    let at = contextview::session::open::split(&text.as_str()).expect("a log with a checkpoint");
    let (head, tail) = (text[..at.history_start].to_owned(), text[at.tail_start..].to_owned());
    drop(text);
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut session = contextview::session::Session::from_tail(&head, &tail, None).expect("opens from its checkpoint");
    let opened = LIVE.load(Relaxed) - base;
    session.set_release_stored(true);
    let input: contextview::request::BuildInput = serde_json::from_value(serde_json::json!({"provider": "anthropic"})).unwrap();
    let body = session.build(&input).expect("builds").body.len();
    let built = LIVE.load(Relaxed) - base;
    let (records, held) = (session.record_count(), session.records().len());
    println!(
        "{}",
        serde_json::json!({"tailBytes": tail.len(), "opened": opened, "built": built, "peak": PEAK.load(Relaxed) - base, "bodyBytes": body, "records": records, "held": held})
    );
}
