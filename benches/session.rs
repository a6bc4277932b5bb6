//! The session state machine: commands per second through the queue, and the memory a session
//! holds relative to its log's bytes. `cargo bench --bench session` (run by `make bench`).
//!
//! Workload: a generated agent session — each step a prompt or a model response with a tool
//! call and its usage, then the tool's result (2 KB of output) — driven as commands.
//! - Throughput is compared, in the same process, with the least any host must do for the same
//!   records: parse their JSON lines (`serde_json::from_str`), and append them as lines to a
//!   session (`Session::append_line`, no commands, no effects).
//! - Memory is the live heap a session holds (counted by a global allocator), after loading a
//!   log and after one build (when its caches are full), divided by the log's size. The long pi
//!   session of the corpus is measured too when `../shared/corpus` is there.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use contextview::session::{Command, Session};
use contextview::update::Header;
use serde_json::json;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const NOW: &str = "2026-12-02T10:00:00Z";

fn commands(steps: usize) -> Vec<Command> {
    let mut out = vec![Command::from_value(json!({"type": "switchModel", "provider": "anthropic", "model": "claude-sonnet-4-5", "contextWindow": 10_000_000})).unwrap()];
    for i in 0..steps {
        let value = match i % 8 {
            0 => json!({"type": "userMessage", "text": format!("Step {i}: look at module {i} and fix what fails.")}),
            _ => json!({"type": "assistantResponse", "text": format!("Checking module {i}."),
                "toolCalls": [{"id": format!("call_{i}"), "name": "read", "input": {"path": format!("src/m{i}.rs")}}],
                "usage": {"inputTokens": 1000 + i * 600, "outputTokens": 40}}),
        };
        out.push(Command::from_value(value).unwrap());
        if i % 8 != 0 {
            let output = format!("// src/m{i}.rs\n{}", "fn item() -> Result<(), Error> { todo() }\n".repeat(48));
            out.push(Command::from_value(json!({"type": "toolResult", "toolCallId": format!("call_{i}"), "output": output})).unwrap());
        }
    }
    out
}

/// Runs the commands through a fresh session's queue, acknowledging every persist at once.
fn drive(commands: &[Command], build_every_step: bool) -> Session {
    let mut s = Session::create(Header::new("bench"));
    for c in commands {
        let is_result = matches!(c, Command::ToolResult(_));
        s.submit(c.clone(), Some(NOW.into()));
        if build_every_step && is_result {
            s.submit(Command::from_value(json!({"type": "buildRequest"})).unwrap(), None);
        }
        for p in s.process() {
            for e in p.effects {
                if let contextview::session::Effect::Persist { ticket, .. } = e {
                    s.ack(ticket, contextview::session::PersistOutcome::Committed).unwrap();
                }
            }
        }
    }
    s
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn memory(label: &str, log: &str) {
    let before = LIVE.load(Ordering::Relaxed);
    let mut s = Session::from_log(log);
    let loaded = LIVE.load(Ordering::Relaxed) - before;
    let p = s.dispatch(Command::from_value(json!({"type": "buildRequest", "options": {"provider": "anthropic", "model": "claude-sonnet-4-5", "limits": {"allowPrefill": true}}})).unwrap(), None).unwrap();
    let built = LIVE.load(Ordering::Relaxed) - before;
    let ok = p.error.is_none();
    drop(p);
    let held = LIVE.load(Ordering::Relaxed) - before;
    let ratio = |n: isize| format!("{:.2}×", n as f64 / log.len() as f64);
    println!(
        "| {label} | {} | {} | {} | {} |",
        log.len(),
        ratio(loaded),
        ratio(held),
        if ok { ratio(built) } else { "build failed".into() }
    );
    drop(s);
}

fn main() {
    let cmds = commands(2_000);
    let steps = cmds.len();
    let session = drive(&cmds, false);
    let log = session.snapshot().unwrap().log;
    let lines: Vec<&str> = log.lines().collect();
    let records = lines.len() - 1;
    println!("workload: {steps} commands writing {records} records ({} KB of log)", log.len() / 1024);

    let runs = 7;
    let parse = time(runs, || lines.iter().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).count());
    let append = time(runs, || {
        let mut s = Session::from_log(lines[0]);
        for l in &lines[1..] {
            s.append_line(l).unwrap();
        }
        s
    });
    let queue = time(runs, || drive(&cmds, false));
    let looped = time(3, || drive(&cmds, true));
    let builds = cmds.iter().filter(|c| matches!(c, Command::ToolResult(_))).count();
    println!("\n| path | total | per command | ÷ parse the records' JSON | ÷ append the lines |");
    println!("|---|---|---|---|---|");
    println!("| parse each record line (serde_json) | {:.1} ms | | 1.00× | |", parse * 1e3);
    println!("| `append_line` each record | {:.1} ms | | {:.2}× | 1.00× |", append * 1e3, append / parse);
    println!(
        "| commands through the queue (+ acks) | {:.1} ms | {:.2} µs ({:.0} commands/s) | {:.2}× | {:.2}× |",
        queue * 1e3,
        queue / steps as f64 * 1e6,
        steps as f64 / queue,
        queue / parse,
        queue / append
    );
    println!(
        "| the same + `buildRequest` after every tool result ({builds} builds) | {:.1} ms | {:.2} µs per command+build | | |",
        looped * 1e3,
        looped / (steps + builds) as f64 * 1e6
    );

    println!("\n| session | log bytes | held after load ÷ log | held after a build ÷ log | with the build's reply ÷ log |");
    println!("|---|---|---|---|---|");
    drop(session);
    memory("generated (above)", &log);
    let corpus = std::env::var_os("CONTEXTVIEW_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join("sessions/badlogic__pi-mono__packages__coding-agent__test__fixtures__large-session.jsonl");
    match std::fs::read_to_string(&corpus) {
        Ok(text) => {
            let imported = contextview_import::import(None, &text).unwrap();
            let mut log = imported.header.to_line() + "\n";
            for record in &imported.records {
                log.push_str(&record.to_line());
                log.push('\n');
            }
            memory("pi large session (corpus, imported)", &log);
        }
        Err(_) => println!("corpus session SKIPPED: not at {}", corpus.display()),
    }
}
